//! The DuckDB adapter against real DuckDB databases: the shared conformance suite on a file and
//! on a sealed in-memory database, engine-level refusal of writes, exact Arrow types, runtime
//! errors mid-stream, streaming caps and opening from URLs.
#![cfg(feature = "duckdb")]
#![allow(clippy::unwrap_used)] // Tests: a failed unwrap is a failed test.

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, Field, IntervalUnit, Schema, TimeUnit};
use futures_util::StreamExt;
use nao_core::guard::{Policy, ReadOnlySql, SqlDialect, check};
use nao_core::render::Truncation;
use nao_core::{Dialect, DialectError, DialectExt, ExecOptions, TableFilter, TableRef};
use nao_dialects::conformance::{self, FIXTURE_STATEMENTS, Profile};
use nao_dialects::duckdb::DuckDbDialect;
use support::temp_dir::TestDir;

mod support;

/// A DuckDB file holding the conformance fixture, written and closed before the adapter opens.
fn fixture_file(dir: &TestDir) -> PathBuf {
    let path = dir.path("fixture.duckdb");
    let connection = duckdb::Connection::open(&path).unwrap();
    for statement in FIXTURE_STATEMENTS {
        connection.execute_batch(statement).unwrap();
    }
    connection.close().map_err(|(_, e)| e).unwrap();
    path
}

fn sealed_fixture(name: &str) -> DuckDbDialect {
    DuckDbDialect::in_memory(name, |connection| {
        for statement in FIXTURE_STATEMENTS {
            connection.execute_batch(statement)?;
        }
        Ok(())
    })
    .unwrap()
}

fn checked(sql: &str) -> ReadOnlySql {
    check(sql, SqlDialect::DuckDb, &Policy::default()).unwrap()
}

fn unchecked(sql: &str) -> ReadOnlySql {
    ReadOnlySql::new_unchecked_allowing_writes(sql, SqlDialect::DuckDb)
}

async fn count_rows(db: &dyn Dialect, sql: &str) -> i64 {
    let result = db
        .query(&checked(sql), &ExecOptions::default())
        .await
        .unwrap();
    result.batches[0]
        .column(0)
        .as_primitive::<Int64Type>()
        .value(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conformance_on_a_file_database() {
    let dir = TestDir::new("conformance-file");
    let db = DuckDbDialect::open("duck_file", fixture_file(&dir)).unwrap();
    assert_eq!(db.sql_dialect(), SqlDialect::DuckDb);
    conformance::run_all(&db).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conformance_on_a_sealed_in_memory_database() {
    let db = sealed_fixture("duck_memory");
    conformance::run_all(&db).await;
}

#[tokio::test(flavor = "current_thread")]
async fn conformance_holds_on_a_single_threaded_runtime() {
    // The blocking pool, not the runtime's one thread, runs DuckDB: timeouts still fire.
    let db = sealed_fixture("duck_single");
    let portable = Profile::portable();
    conformance::timeout_stops_a_slow_query(&db, &portable).await;
    conformance::cancellation_stops_a_slow_query(&db, &portable).await;
    conformance::dropping_the_stream_stops_the_query(&db, &portable).await;
}

/// Statements the engine itself must refuse, whatever the guard said.
fn writes(dir: &TestDir) -> Vec<String> {
    let file = |name: &str| dir.path(name).display().to_string();
    vec![
        "INSERT INTO nao_conformance VALUES (9, 'x', 1)".into(),
        "UPDATE nao_conformance SET name = 'changed'".into(),
        "DELETE FROM nao_conformance".into(),
        "CREATE TABLE created (x INTEGER)".into(),
        "CREATE VIEW created_view AS SELECT 1".into(),
        "DROP TABLE nao_conformance".into(),
        "ALTER TABLE nao_conformance ADD COLUMN extra INTEGER".into(),
        "COMMENT ON TABLE nao_conformance IS 'changed'".into(),
        format!("COPY nao_conformance TO '{}'", file("copied.csv")),
        format!(
            "COPY (SELECT 1) TO '{}' (FORMAT parquet)",
            file("copied.parquet")
        ),
        format!("EXPORT DATABASE '{}'", file("exported")),
        format!("ATTACH '{}' AS other", file("attached.duckdb")),
        // Instance-wide state a statement of its own connection could leave for the next ones.
        "ATTACH ':memory:' AS other".into(),
        "CREATE SECRET leaked (TYPE s3, KEY_ID 'k', SECRET 'v')".into(),
        "INSTALL json".into(),
        "INSTALL httpfs".into(),
        "LOAD httpfs".into(),
        "LOAD spatial".into(),
        format!("LOAD '{}'", file("evil.duckdb_extension")),
        "SET allow_unsigned_extensions = true".into(),
        "SET TimeZone = 'Europe/Paris'".into(),
        "SET enable_external_access = true".into(),
        "SET lock_configuration = false".into(),
        "RESET enable_external_access".into(),
        "SET access_mode = 'READ_WRITE'".into(),
        "PRAGMA enable_external_access".into(),
        "PRAGMA memory_limit = '1GB'".into(),
        "SELECT * FROM read_csv('/etc/passwd')".into(),
        "SELECT * FROM read_text('/etc/hostname')".into(),
        "SELECT * FROM glob('/etc/*')".into(),
        "SELECT 1; INSERT INTO nao_conformance VALUES (10, 'y', 2)".into(),
    ]
}

async fn assert_writes_refused(db: &dyn Dialect, dir: &TestDir) {
    let before = dir.snapshot();
    for write in writes(dir) {
        let outcome = db.query(&unchecked(&write), &ExecOptions::default()).await;
        match outcome {
            Err(e) => {
                assert!(
                    matches!(
                        e,
                        DialectError::Permission { .. } | DialectError::UnknownObject { .. }
                    ) || e.to_string().contains("read-only"),
                    "{write:?} refused with an unexpected kind: {e:?}"
                );
                if matches!(e, DialectError::Permission { .. }) {
                    assert!(
                        db.refused_as_writing(&e),
                        "{write:?}: a read-only layer refusing it is the readings disagreeing"
                    );
                }
            }
            Ok(result) => panic!("the engine must refuse {write:?}, got {result:?}"),
        }
    }
    // Statements DuckDB accepts on a read-only database as no-ops: they may succeed, and
    // must change nothing (LOAD of an extension compiled into libduckdb loads no file).
    for harmless in ["CHECKPOINT", "FORCE CHECKPOINT", "LOAD json"] {
        let outcome = db
            .query(&unchecked(harmless), &ExecOptions::default())
            .await;
        if let Err(e) = outcome {
            assert!(
                matches!(e, DialectError::Permission { .. }),
                "{harmless:?}: {e:?}"
            );
        }
    }
    assert_eq!(dir.snapshot(), before, "nothing may change on disk");
    assert_eq!(
        count_rows(db, "SELECT count(*) FROM nao_conformance").await,
        3
    );
    let tables = db.list_tables(&TableFilter::default()).await.unwrap();
    let names: Vec<&str> = tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["nao_conformance"]);
    assert_eq!(tables[0].comment, None);
    // The settings are still the locked ones.
    let settings = db
        .query(
            // duckdb_settings() is refused (it shows secret settings); current_setting of an
            // ordinary setting is not.
            &checked(
                "SELECT current_setting('access_mode')::VARCHAR AS v UNION ALL \
                 SELECT current_setting('enable_external_access')::VARCHAR UNION ALL \
                 SELECT current_setting('lock_configuration')::VARCHAR",
            ),
            &ExecOptions::default(),
        )
        .await
        .unwrap();
    let mut values: Vec<&str> = settings
        .batches
        .iter()
        .flat_map(|batch| batch.column(0).as_string::<i32>().iter().flatten())
        .collect();
    values.sort_unstable(); // UNION ALL keeps no order.
    assert_eq!(values, ["false", "read_only", "true"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engine_refuses_writes_on_a_file_database() {
    let dir = TestDir::new("writes-file");
    let path = fixture_file(&dir);
    let db = DuckDbDialect::open("duck_file", &path).unwrap();
    assert_writes_refused(&db, &dir).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engine_refuses_writes_on_a_sealed_database() {
    let dir = TestDir::new("writes-sealed");
    std::fs::write(dir.path("marker"), b"unchanged").unwrap();
    let db = sealed_fixture("duck_sealed");
    assert_writes_refused(&db, &dir).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statements_other_than_queries_are_refused_by_duckdb_s_reading() {
    // What DuckDB lets a read-only database do (TEMP objects in memory, session variables,
    // prepared statements, transactions) lives in the statement's own connection; handed
    // through the escape hatch it is refused before it runs, since DuckDB's parser does not
    // read it as a query, and the refusal counts as the readings disagreeing.
    let db = sealed_fixture("duck_temp");
    for statement in [
        "CREATE TEMP TABLE scratch AS SELECT 1 AS x",
        "CREATE TEMP MACRO plus_one(x) AS x + 1",
        "SET VARIABLE v = 42",
        "PREPARE p AS SELECT 1",
        "BEGIN TRANSACTION",
        "CALL duckdb_settings()",
        "SELECT 1; SELECT 2",
    ] {
        let refused = db
            .query(&unchecked(statement), &ExecOptions::default())
            .await;
        match refused {
            Err(e @ DialectError::Permission { .. }) => {
                assert_eq!(e.code(), Some("json_serialize_sql"), "{statement}: {e}");
                assert!(db.refused_as_writing(&e), "{statement}: {e}");
            }
            other => panic!("{statement}: {other:?}"),
        }
    }
    let read = db
        .query(&checked("SELECT * FROM scratch"), &ExecOptions::default())
        .await;
    assert!(
        matches!(read, Err(DialectError::UnknownObject { .. })),
        "{read:?}"
    );
    // A query through the hatch runs, and DuckDB's own syntax errors stay its own.
    let query = db
        .query(&unchecked("FROM nao_conformance"), &ExecOptions::default())
        .await
        .unwrap();
    assert_eq!(query.row_count, 3);
    let typo = db
        .query(&unchecked("SELEC 1"), &ExecOptions::default())
        .await;
    assert!(matches!(typo, Err(DialectError::Syntax { .. })), "{typo:?}");
    let tables = db.list_tables(&TableFilter::default()).await.unwrap();
    assert_eq!(tables.len(), 1, "{tables:?}");
}

const TYPES_TABLE: &str = "\
    CREATE TABLE types (id INTEGER, b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INTEGER, \
    i64 BIGINT, i128 HUGEINT, u8 UTINYINT, u16 USMALLINT, u32 UINTEGER, u64 UBIGINT, \
    f32 FLOAT, f64 DOUBLE, dec DECIMAL(38, 10), s VARCHAR, bl BLOB, d DATE, t TIME, \
    ts TIMESTAMP, tstz TIMESTAMPTZ, iv INTERVAL, u UUID, l INTEGER[], st STRUCT(a INTEGER, b VARCHAR), \
    m MAP(VARCHAR, INTEGER));
    INSERT INTO types VALUES
    (0, false, -128, -32768, -2147483648, -9223372036854775808, \
     -170141183460469231731687303715884105727, 0, 0, 0, 0, \
     -3.4028235e38, '-inf', -9999999999999999999999999999.9999999999, '', ''::BLOB, \
     DATE '0001-01-01', TIME '00:00:00', TIMESTAMP '0001-01-01 00:00:00', \
     TIMESTAMPTZ '1970-01-01 00:00:00+00', INTERVAL '-1 year -2 days -3 microseconds', \
     '00000000-0000-0000-0000-000000000000', [], {'a': NULL, 'b': NULL}, MAP {}),
    (1, true, 127, 32767, 2147483647, 9223372036854775807, \
     170141183460469231731687303715884105727, 255, 65535, 4294967295, 18446744073709551615, \
     3.4028235e38, 'inf', 9999999999999999999999999999.9999999999, 'snow ☃ clef 𝄞', \
     '\\x00nul\\x00'::BLOB, DATE '9999-12-31', TIME '23:59:59.999999', \
     TIMESTAMP '9999-12-31 23:59:59.999999', TIMESTAMPTZ '2024-02-29 12:30:00+02', \
     INTERVAL '14 months 3 days 4 hours', 'ffffffff-ffff-ffff-ffff-ffffffffffff', \
     [1, NULL, 3], {'a': 7, 'b': 'x'}, MAP {'k': 1, 'n': NULL}),
    (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'nan', '-0.0', \
     0.0000000001, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
     NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn types_round_trip_exactly() {
    let db = DuckDbDialect::in_memory("duck_types", |c| c.execute_batch(TYPES_TABLE)).unwrap();
    let result = db
        .query(
            &checked("SELECT * FROM types ORDER BY id"),
            &ExecOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(result.row_count, 4);
    assert_eq!(result.batches.len(), 1, "four rows come in one batch");
    let batch = &result.batches[0];
    let column = |name: &str| batch.column_by_name(name).unwrap().clone();
    let types: Vec<String> = result
        .schema
        .fields()
        .iter()
        .map(|f| format!("{}: {}", f.name(), f.data_type()))
        .collect();
    let utc = DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()));
    let expected = [
        ("b", DataType::Boolean),
        ("i8", DataType::Int8),
        ("i16", DataType::Int16),
        ("i32", DataType::Int32),
        ("i64", DataType::Int64),
        ("i128", DataType::Decimal128(38, 0)),
        ("u8", DataType::UInt8),
        ("u16", DataType::UInt16),
        ("u32", DataType::UInt32),
        ("u64", DataType::UInt64),
        ("f32", DataType::Float32),
        ("f64", DataType::Float64),
        ("dec", DataType::Decimal128(38, 10)),
        ("s", DataType::Utf8),
        ("bl", DataType::Binary),
        ("d", DataType::Date32),
        ("t", DataType::Time64(TimeUnit::Microsecond)),
        ("ts", DataType::Timestamp(TimeUnit::Microsecond, None)),
        ("tstz", utc),
        ("iv", DataType::Interval(IntervalUnit::MonthDayNano)),
        ("u", DataType::Utf8),
    ];
    for (name, data_type) in expected {
        assert_eq!(column(name).data_type(), &data_type, "{name}: {types:?}");
        // Row 3 is all NULL; the other NULLs are in row 2.
        assert!(column(name).is_null(3), "{name}");
    }

    assert_eq!(
        column("b").as_boolean().iter().collect::<Vec<_>>(),
        [Some(false), Some(true), None, None]
    );
    let ints = |name: &str| -> Vec<Option<i128>> {
        let c = column(name);
        (0..4)
            .map(|i| {
                (!c.is_null(i)).then(|| match c.data_type() {
                    DataType::Int8 => i128::from(c.as_primitive::<Int8Type>().value(i)),
                    DataType::Int16 => i128::from(c.as_primitive::<Int16Type>().value(i)),
                    DataType::Int32 => i128::from(c.as_primitive::<Int32Type>().value(i)),
                    DataType::Int64 => i128::from(c.as_primitive::<Int64Type>().value(i)),
                    DataType::UInt8 => i128::from(c.as_primitive::<UInt8Type>().value(i)),
                    DataType::UInt16 => i128::from(c.as_primitive::<UInt16Type>().value(i)),
                    DataType::UInt32 => i128::from(c.as_primitive::<UInt32Type>().value(i)),
                    DataType::UInt64 => i128::from(c.as_primitive::<UInt64Type>().value(i)),
                    DataType::Decimal128(..) => c.as_primitive::<Decimal128Type>().value(i),
                    other => panic!("{name}: {other}"),
                })
            })
            .collect()
    };
    assert_eq!(ints("i8"), [Some(-128), Some(127), None, None]);
    assert_eq!(ints("i16"), [Some(-32_768), Some(32_767), None, None]);
    assert_eq!(
        ints("i32"),
        [Some(i32::MIN.into()), Some(i32::MAX.into()), None, None]
    );
    assert_eq!(
        ints("i64"),
        [Some(i64::MIN.into()), Some(i64::MAX.into()), None, None]
    );
    assert_eq!(
        ints("i128"),
        [Some(-i128::MAX), Some(i128::MAX), None, None]
    );
    assert_eq!(ints("u8"), [Some(0), Some(255), None, None]);
    assert_eq!(ints("u16"), [Some(0), Some(65_535), None, None]);
    assert_eq!(ints("u32"), [Some(0), Some(u32::MAX.into()), None, None]);
    assert_eq!(ints("u64"), [Some(0), Some(u64::MAX.into()), None, None]);
    let nines = 10_i128.pow(38) - 1;
    assert_eq!(ints("dec"), [Some(-nines), Some(nines), Some(1), None]);

    let f32s = column("f32");
    let f32s = f32s.as_primitive::<Float32Type>();
    assert_eq!(
        (f32s.value(0), f32s.value(1)),
        (-3.402_823_5e38, 3.402_823_5e38)
    );
    assert!(f32s.value(2).is_nan());
    let f64s = column("f64");
    let f64s = f64s.as_primitive::<Float64Type>();
    assert_eq!(
        (f64s.value(0), f64s.value(1)),
        (f64::NEG_INFINITY, f64::INFINITY)
    );
    assert_eq!(
        f64s.value(2).to_bits(),
        (-0.0_f64).to_bits(),
        "-0.0 keeps its sign"
    );

    let strings = column("s");
    assert_eq!(
        strings.as_string::<i32>().iter().collect::<Vec<_>>(),
        [Some(""), Some("snow ☃ clef 𝄞"), None, None]
    );
    let blobs = column("bl");
    assert_eq!(
        blobs.as_binary::<i32>().iter().collect::<Vec<_>>(),
        [Some(&b""[..]), Some(&b"\0nul\0"[..]), None, None]
    );
    let dates = column("d");
    assert_eq!(
        dates
            .as_primitive::<Date32Type>()
            .iter()
            .collect::<Vec<_>>(),
        [Some(-719_162), Some(2_932_896), None, None]
    );
    let times = column("t");
    assert_eq!(
        times
            .as_primitive::<Time64MicrosecondType>()
            .iter()
            .collect::<Vec<_>>(),
        [Some(0), Some(86_399_999_999), None, None]
    );
    let stamps = column("ts");
    assert_eq!(
        stamps
            .as_primitive::<TimestampMicrosecondType>()
            .iter()
            .collect::<Vec<_>>(),
        [
            Some(-62_135_596_800_000_000),
            Some(253_402_300_799_999_999),
            None,
            None
        ]
    );
    let zoned = column("tstz");
    assert_eq!(
        zoned
            .as_primitive::<TimestampMicrosecondType>()
            .iter()
            .collect::<Vec<_>>(),
        [Some(0), Some(1_709_202_600_000_000), None, None],
        "TIMESTAMPTZ holds the UTC instant"
    );
    let intervals = column("iv");
    let intervals = intervals.as_primitive::<IntervalMonthDayNanoType>();
    assert_eq!(
        intervals.value(0),
        IntervalMonthDayNano::new(-12, -2, -3_000)
    );
    assert_eq!(
        intervals.value(1),
        IntervalMonthDayNano::new(14, 3, 4 * 3_600 * 1_000_000_000)
    );
    let uuids = column("u");
    assert_eq!(
        uuids.as_string::<i32>().iter().collect::<Vec<_>>(),
        [
            Some("00000000-0000-0000-0000-000000000000"),
            Some("ffffffff-ffff-ffff-ffff-ffffffffffff"),
            None,
            None
        ]
    );

    let lists = column("l");
    let lists = lists.as_list::<i32>();
    assert_eq!(lists.value_type(), DataType::Int32);
    assert_eq!(lists.value(0).len(), 0);
    let second = lists.value(1);
    assert_eq!(
        second
            .as_primitive::<Int32Type>()
            .iter()
            .collect::<Vec<_>>(),
        [Some(1), None, Some(3)]
    );
    assert!(lists.is_null(2));

    let structs = column("st");
    let structs = structs.as_struct();
    assert_eq!(structs.column_names(), ["a", "b"]);
    assert!(
        structs.is_valid(0) && structs.column(0).is_null(0),
        "a struct of NULLs is not NULL"
    );
    assert_eq!(structs.column(0).as_primitive::<Int32Type>().value(1), 7);
    assert_eq!(structs.column(1).as_string::<i32>().value(1), "x");
    assert!(structs.is_null(2));

    let maps = column("m");
    let maps = maps.as_map();
    assert_eq!(maps.value(0).len(), 0);
    let entries = maps.value(1);
    assert_eq!(
        entries
            .column(0)
            .as_string::<i32>()
            .iter()
            .collect::<Vec<_>>(),
        [Some("k"), Some("n")]
    );
    assert_eq!(
        entries
            .column(1)
            .as_primitive::<Int32Type>()
            .iter()
            .collect::<Vec<_>>(),
        [Some(1), None]
    );
    assert!(maps.is_null(2));

    // JSON is DuckDB's text: it comes through as the string DuckDB holds.
    let json = db
        .query(
            &checked("SELECT '{\"a\": [1, 2]}'::JSON AS j"),
            &ExecOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(json.schema.field(0).data_type(), &DataType::Utf8);
    assert_eq!(
        json.batches[0].column(0).as_string::<i32>().value(0),
        "{\"a\": [1, 2]}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn values_arrow_cannot_hold_exactly_are_refused() {
    let db = sealed_fixture("duck_uhugeint");
    for sql in [
        "SELECT 340282366920938463463374607431768211455::UHUGEINT AS big",
        "SELECT [1::UHUGEINT] AS nested",
    ] {
        let outcome = db.query(&checked(sql), &ExecOptions::default()).await;
        assert!(
            matches!(outcome, Err(DialectError::Unsupported { .. })),
            "{sql}: {outcome:?}"
        );
    }
    let cast = db
        .query(
            &checked("SELECT (340282366920938463463374607431768211455::UHUGEINT)::VARCHAR AS big"),
            &ExecOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(
        cast.batches[0].column(0).as_string::<i32>().value(0),
        "340282366920938463463374607431768211455"
    );
    // Every statement's connection sees the UTC time zone the adapter set before locking.
    let zone = db
        .query(
            &checked("SELECT current_setting('TimeZone') AS tz"),
            &ExecOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(zone.batches[0].column(0).as_string::<i32>().value(0), "UTC");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runtime_error_midway_is_an_error_not_a_panic() {
    let db = sealed_fixture("duck_midway");
    let sql = checked(
        "SELECT CAST(CASE WHEN n = 5000 THEN 'x' ELSE n::VARCHAR END AS INTEGER) AS v \
         FROM range(10000) t(n)",
    );
    let outcome = db
        .query(&sql, &ExecOptions::default().with_max_rows(100_000))
        .await;
    match outcome {
        Err(DialectError::Engine { message, code, .. }) => {
            assert!(
                message.contains("Could not convert string 'x'"),
                "{message}"
            );
            assert_eq!(code.as_deref(), Some("Conversion Error"));
        }
        other => panic!("a cast error at row 5,000 must be an engine error, got {other:?}"),
    }
    // Far enough in that DuckDB has streamed batches before it fails: the stream yields them,
    // then the error, then ends.
    let late = checked(
        "SELECT CAST(CASE WHEN n = 5000000 THEN 'x' ELSE n::VARCHAR END AS INTEGER) AS v \
         FROM range(10000000) t(n)",
    );
    let mut stream = db
        .execute(&late, &ExecOptions::default().with_max_rows(u64::MAX))
        .await
        .unwrap();
    let mut rows = 0;
    let mut errors = Vec::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(batch) => rows += batch.num_rows(),
            Err(e) => errors.push(e),
        }
    }
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        matches!(errors[0], DialectError::Engine { .. }),
        "{errors:?}"
    );
    assert!(
        rows > 0 && rows < 10_000_000,
        "{rows} rows before the error"
    );
    assert_eq!(
        count_rows(&db, "SELECT count(*) FROM nao_conformance").await,
        3
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streaming_stops_at_the_row_cap() {
    let db = sealed_fixture("duck_stream");
    let sql = checked("SELECT * FROM range(10000000)");
    let result = db
        .query(&sql, &ExecOptions::default().with_max_rows(10_000))
        .await
        .unwrap();
    assert_eq!(result.row_count, 10_000);
    assert_eq!(result.truncation, Some(Truncation::RowCap { cap: 10_000 }));
    let values = result
        .batches
        .iter()
        .flat_map(|b| b.column(0).as_primitive::<Int64Type>().values().to_vec());
    assert!(values.eq(0..10_000));

    // The adapter itself stops one row past the cap: the stream ends by itself.
    let mut stream = db
        .execute(&sql, &ExecOptions::default().with_max_rows(5_000))
        .await
        .unwrap();
    let mut rows = 0;
    while let Some(batch) = stream.next().await {
        rows += batch.unwrap().num_rows();
    }
    assert!(
        rows > 5_000 && rows <= 5_000 + 2_048,
        "{rows} rows streamed for a cap of 5,000"
    );

    // Dropping a stream mid-way frees the adapter for many more statements.
    for _ in 0..8 {
        let mut stream = db
            .execute(&sql, &ExecOptions::default().with_max_rows(u64::MAX))
            .await
            .unwrap();
        assert!(stream.next().await.unwrap().unwrap().num_rows() > 0);
        drop(stream);
    }
    assert_eq!(
        count_rows(&db, "SELECT count(*) FROM range(1000)").await,
        1000
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_result_knows_its_schema_before_any_batch() {
    let db = sealed_fixture("duck_schema");
    let sql = checked("SELECT id, amount FROM nao_conformance WHERE false");
    let mut stream = db.execute(&sql, &ExecOptions::default()).await.unwrap();
    assert_eq!(
        stream.schema().field(1).data_type(),
        &DataType::Decimal128(12, 2)
    );
    let mut rows = 0;
    while let Some(batch) = stream.next().await {
        rows += batch.unwrap().num_rows();
    }
    assert_eq!(rows, 0);
    // Errors at planning time come from execute itself.
    let missing = db
        .execute(&checked("SELECT * FROM nowhere"), &ExecOptions::default())
        .await;
    assert!(
        matches!(missing, Err(DialectError::UnknownObject { .. })),
        "{missing:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opens_from_urls() {
    let db = nao_dialects::open("mem", "duckdb::memory:").await.unwrap();
    assert_eq!(db.name(), "mem");
    assert_eq!(db.sql_dialect(), SqlDialect::DuckDb);
    assert!(
        db.list_tables(&TableFilter::default())
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(count_rows(&*db, "SELECT 42::BIGINT").await, 42);
    let refused = db
        .query(
            &unchecked("CREATE TABLE t (x INTEGER)"),
            &ExecOptions::default(),
        )
        .await;
    assert!(
        matches!(refused, Err(DialectError::Permission { .. })),
        "{refused:?}"
    );

    let dir = TestDir::new("url");
    let path = fixture_file(&dir);
    let db = nao_dialects::open("file", &format!("duckdb://{}", path.display()))
        .await
        .unwrap();
    assert_eq!(
        count_rows(&*db, "SELECT count(*) FROM nao_conformance").await,
        3
    );

    let missing = dir.path("missing.duckdb");
    let outcome = nao_dialects::open("gone", &format!("duckdb://{}", missing.display())).await;
    match outcome {
        Err(nao_dialects::OpenError::Dialect(DialectError::Connection { message, .. })) => {
            assert!(
                message.contains(&missing.display().to_string()),
                "{message}"
            );
        }
        other => panic!("a missing file must be a connection error, got {other:?}"),
    }
    assert!(!missing.exists(), "opening must not create the file");
    let direct = DuckDbDialect::open("gone", "/no/such/dir/missing.duckdb");
    assert!(
        matches!(direct, Err(DialectError::Connection { .. })),
        "{direct:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sealed_database_removes_its_directory_on_drop() {
    let db = sealed_fixture("duck_drop");
    let file = db.path().to_owned();
    assert!(file.is_file());
    assert!(file.starts_with(std::env::temp_dir()));
    let dir = file.parent().unwrap().to_owned();
    drop(db);
    assert!(!dir.exists(), "{} must be removed", dir.display());
    let failed = DuckDbDialect::in_memory("duck_bad", |c| c.execute_batch("CREATE TABLE"));
    assert!(
        matches!(failed, Err(DialectError::Engine { .. })),
        "{failed:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn introspection_reports_comments_schemas_and_views() {
    let db = DuckDbDialect::in_memory("duck_catalog", |c| {
        c.execute_batch(
            "CREATE SCHEMA sales; \
             CREATE TABLE sales.orders (id INTEGER PRIMARY KEY, total DECIMAL(10, 2) NOT NULL, note VARCHAR); \
             COMMENT ON TABLE sales.orders IS 'One row per order'; \
             COMMENT ON COLUMN sales.orders.total IS 'In euros'; \
             INSERT INTO sales.orders VALUES (1, 9.99, NULL); \
             CREATE VIEW big_orders AS SELECT * FROM sales.orders WHERE total > 100; \
             CREATE TABLE Orders (x INTEGER);",
        )
    })
    .unwrap();
    let tables = db.list_tables(&TableFilter::default()).await.unwrap();
    let listed: Vec<String> = tables
        .iter()
        .map(|t| format!("{} {}", t.table_ref(), t.kind))
        .collect();
    assert_eq!(
        listed,
        [
            "main.Orders table",
            "main.big_orders view",
            "sales.orders table"
        ]
    );
    assert_eq!(tables[2].comment.as_deref(), Some("One row per order"));
    assert_eq!(tables[2].estimated_rows, Some(1));
    let sales = db
        .list_tables(&TableFilter::default().with_schema("SALES"))
        .await
        .unwrap();
    assert_eq!(sales.len(), 1);
    let pattern = db
        .list_tables(&TableFilter::default().with_pattern("big*ord"))
        .await
        .unwrap();
    assert_eq!(pattern.len(), 1);

    let described = db
        .describe_table(&TableRef::parse("sales.orders"))
        .await
        .unwrap();
    assert_eq!(described.comment.as_deref(), Some("One row per order"));
    let columns: Vec<(&str, &str, bool, Option<&str>)> = described
        .columns
        .iter()
        .map(|c| {
            (
                c.name.as_str(),
                c.engine_type.as_str(),
                c.nullable,
                c.comment.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        columns,
        [
            ("id", "INTEGER", false, None),
            ("total", "DECIMAL(10,2)", false, Some("In euros")),
            ("note", "VARCHAR", true, None),
        ]
    );
    // Without a schema, `orders` is found case-insensitively; an exact match wins.
    let exact = db.describe_table(&TableRef::parse("Orders")).await.unwrap();
    assert_eq!(exact.table.schema.as_deref(), Some("main"));
    assert_eq!(exact.columns[0].name, "x");
    let view = db
        .describe_table(&TableRef::parse("BIG_ORDERS"))
        .await
        .unwrap();
    assert_eq!(view.columns.len(), 3);
    let missing = db.describe_table(&TableRef::parse("sales.nothing")).await;
    assert!(
        matches!(missing, Err(DialectError::UnknownObject { .. })),
        "{missing:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn from_batches_loads_arrow_tables() {
    use arrow_array::{
        BinaryArray, BooleanArray, Date32Array, Decimal128Array, Float64Array, Int32Array,
        StringArray, TimestampMicrosecondArray, UInt64Array,
    };
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int32, false),
        Field::new("flag", DataType::Boolean, true),
        Field::new("big", DataType::UInt64, true),
        Field::new("x", DataType::Float64, true),
        Field::new("name", DataType::Utf8, true),
        Field::new("raw", DataType::Binary, true),
        Field::new("day", DataType::Date32, true),
        Field::new(
            "at",
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            true,
        ),
        Field::new("price", DataType::Decimal128(12, 2), true),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(Int32Array::from(vec![1, 2])),
            Arc::new(BooleanArray::from(vec![Some(true), None])),
            Arc::new(UInt64Array::from(vec![Some(u64::MAX), None])),
            Arc::new(Float64Array::from(vec![Some(-0.5), None])),
            Arc::new(StringArray::from(vec![Some("a\"b 𝄞"), None])),
            Arc::new(BinaryArray::from(vec![Some(&b"\0x"[..]), None])),
            Arc::new(Date32Array::from(vec![Some(19_000), None])),
            Arc::new(
                TimestampMicrosecondArray::from(vec![Some(1_700_000_000_123_456), None])
                    .with_timezone("UTC"),
            ),
            Arc::new(
                Decimal128Array::from(vec![Some(-12_345), None])
                    .with_precision_and_scale(12, 2)
                    .unwrap(),
            ),
        ],
    )
    .unwrap();
    let empty = RecordBatch::new_empty(schema.clone());
    let db = DuckDbDialect::from_batches(
        "duck_batches",
        &[
            ("facts", &[batch.clone(), batch.clone()]),
            ("empty table", &[empty]),
        ],
    )
    .unwrap();
    let result = db
        .query(
            &checked("SELECT * FROM facts ORDER BY id"),
            &ExecOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(result.row_count, 4);
    let got = &result.batches[0];
    assert_eq!(
        got.column(0).as_primitive::<Int32Type>().values().to_vec(),
        [1, 1, 2, 2]
    );
    assert_eq!(
        got.column(2).as_primitive::<UInt64Type>().value(0),
        u64::MAX
    );
    assert_eq!(got.column(4).as_string::<i32>().value(0), "a\"b 𝄞");
    assert_eq!(got.column(5).as_binary::<i32>().value(0), b"\0x");
    assert_eq!(got.column(6).as_primitive::<Date32Type>().value(0), 19_000);
    assert_eq!(
        got.column(7)
            .as_primitive::<TimestampMicrosecondType>()
            .value(0),
        1_700_000_000_123_456
    );
    assert_eq!(got.column(8).data_type(), &DataType::Decimal128(12, 2));
    assert_eq!(
        got.column(8).as_primitive::<Decimal128Type>().value(0),
        -12_345
    );
    assert_eq!(got.column(8).null_count(), 2);
    let described = db.describe_table(&TableRef::parse("facts")).await.unwrap();
    assert!(!described.columns[0].nullable);
    assert_eq!(
        count_rows(&db, "SELECT count(*) FROM \"empty table\"").await,
        0
    );
    let no_batches = DuckDbDialect::from_batches("duck_none", &[("t", &[])]);
    assert!(no_batches.is_err());
}

#[tokio::test]
async fn the_demo_shop_describes_itself() {
    let shop = DuckDbDialect::demo("shop", nao_dialects::demo::DemoScale::Small).unwrap();
    conformance::demo_is_described(&shop).await;
}
