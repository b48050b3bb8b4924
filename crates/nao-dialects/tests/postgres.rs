//! The PostgreSQL adapter against a real server (`NAO_TEST_POSTGRES_URL`, a superuser URL such
//! as `postgres://postgres@127.0.0.1:5432/test`). Each test makes its own schema and a
//! least-privilege login role (USAGE on the schema, SELECT on its tables), connects the adapter
//! as that role, as production would, and drops both at the end, even when it fails.
//!
//! Without the variable the tests say so and pass; with it set, an unreachable server fails
//! them.
#![cfg(feature = "postgres")]
#![allow(clippy::unwrap_used)] // Tests: a failed unwrap is a failed test.

mod support;

use std::str::FromStr;
use std::time::{Duration, Instant};

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, RecordBatch};
use arrow_buffer::i256;
use arrow_schema::{DataType, IntervalUnit, TimeUnit};
use futures_util::StreamExt;
use nao_core::guard::{Policy, ReadOnlySql, SqlDialect, check};
use nao_core::render::Truncation;
use nao_core::{Dialect, DialectError, DialectExt, ExecOptions, TableFilter, TableKind, TableRef};
use nao_dialects::OpenOptions;
use nao_dialects::conformance::{self, FIXTURE_STATEMENTS, Profile};
use nao_dialects::postgres::driver::Config;
use nao_dialects::postgres::{PostgresDialect, TlsMode, TlsSettings};
use support::postgres::{READER, Sandbox, server_url};
use tokio_util::sync::CancellationToken;

/// What only this file asks of the sandbox.
impl Sandbox {
    /// The conformance fixture, readable by the role.
    async fn fixture(&self) {
        for statement in FIXTURE_STATEMENTS {
            self.admin(statement).await;
        }
    }

    /// How many of the role's sessions are running a statement (or sit in a transaction).
    async fn busy_sessions(&self) -> i64 {
        self.admin
            .query_one(
                "SELECT count(*) FROM pg_stat_activity \
                 WHERE usename = $1 AND state IS DISTINCT FROM 'idle'",
                &[&self.role],
            )
            .await
            .unwrap()
            .get(0)
    }

    /// Waits (a few seconds at most) for the role's sessions to be idle; the count left.
    async fn settle(&self) -> i64 {
        let mut busy = self.busy_sessions().await;
        for _ in 0..100 {
            if busy == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
            busy = self.busy_sessions().await;
        }
        busy
    }

    async fn count(&self, sql: &str) -> i64 {
        self.admin.query_one(sql, &[]).await.unwrap().get(0)
    }
}

fn checked(sql: &str) -> ReadOnlySql {
    check(sql, SqlDialect::Postgres, &Policy::default()).unwrap()
}

fn unchecked(sql: &str) -> ReadOnlySql {
    ReadOnlySql::new_unchecked_allowing_writes(sql, SqlDialect::Postgres)
}

async fn query_one_batch(db: &PostgresDialect, sql: &str) -> RecordBatch {
    let result = db
        .query(&unchecked(sql), &ExecOptions::default())
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    arrow_select_concat(&result.schema, &result.batches)
}

/// The batches of a small result as one batch.
fn arrow_select_concat(schema: &arrow_schema::SchemaRef, batches: &[RecordBatch]) -> RecordBatch {
    assert!(
        batches.len() <= 1,
        "expected one batch, got {}",
        batches.len()
    );
    batches
        .first()
        .cloned()
        .unwrap_or_else(|| RecordBatch::new_empty(schema.clone()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conformance_as_a_least_privilege_role() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "conf", READER).await;
    sandbox.fixture().await;
    let db = sandbox.adapter().await;
    assert_eq!(db.sql_dialect(), SqlDialect::Postgres);
    conformance::run_all(&db).await;
    assert_eq!(sandbox.settle().await, 0, "nothing left running");
}

#[tokio::test(flavor = "current_thread")]
async fn conformance_holds_on_a_single_threaded_runtime() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "single", READER).await;
    sandbox.fixture().await;
    let db = sandbox.adapter().await;
    let portable = Profile::portable();
    conformance::timeout_stops_a_slow_query(&db, &portable).await;
    conformance::cancellation_stops_a_slow_query(&db, &portable).await;
    conformance::dropping_the_stream_stops_the_query(&db, &portable).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_past_the_guard_are_refused_and_change_nothing() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "writes", READER).await;
    sandbox.fixture().await;
    sandbox
        .admin("CREATE SEQUENCE nao_seq; CREATE TABLE nao_other (x int)")
        .await;
    let db = sandbox.adapter().await;
    let file = format!("/tmp/{}.csv", sandbox.schema);
    let writes = [
        "INSERT INTO nao_conformance (id, name) VALUES (99, 'written')".to_owned(),
        "INSERT INTO nao_conformance (id) VALUES (98) RETURNING id".to_owned(),
        "UPDATE nao_conformance SET name = 'changed'".to_owned(),
        "DELETE FROM nao_conformance".to_owned(),
        "TRUNCATE nao_conformance".to_owned(),
        "WITH gone AS (DELETE FROM nao_conformance RETURNING id) SELECT * FROM gone".to_owned(),
        "SELECT * FROM nao_conformance FOR UPDATE".to_owned(),
        "SELECT nextval('nao_seq')".to_owned(),
        "CREATE TABLE nao_created (x int)".to_owned(),
        "CREATE TEMP TABLE nao_temp AS SELECT 1 AS x".to_owned(),
        "CREATE VIEW nao_view AS SELECT 1 AS x".to_owned(),
        "DROP TABLE nao_other".to_owned(),
        "ALTER TABLE nao_conformance ADD COLUMN extra int".to_owned(),
        "COMMENT ON TABLE nao_conformance IS 'changed'".to_owned(),
        "GRANT SELECT ON nao_conformance TO PUBLIC".to_owned(),
        "SET TRANSACTION READ WRITE".to_owned(),
        "SET TRANSACTION READ WRITE; INSERT INTO nao_conformance (id) VALUES (97)".to_owned(),
        "COMMIT; INSERT INTO nao_conformance (id) VALUES (96)".to_owned(),
        "SELECT 1; DELETE FROM nao_conformance".to_owned(),
        "COMMIT".to_owned(),
        format!("COPY nao_conformance TO '{file}'"),
        format!("COPY (SELECT 1) TO PROGRAM 'touch {file}'"),
        "COPY nao_conformance TO STDOUT".to_owned(),
        format!("SELECT lo_export(lo_from_bytea(0, 'x'), '{file}')"),
        "DO $$ BEGIN INSERT INTO nao_conformance (id) VALUES (95); END $$".to_owned(),
    ];
    for write in &writes {
        let outcome = db.query(&unchecked(write), &ExecOptions::default()).await;
        let error = outcome
            .err()
            .unwrap_or_else(|| panic!("the engine path must refuse {write:?}"));
        assert!(
            matches!(
                error,
                DialectError::Permission { .. } | DialectError::Syntax { .. }
            ),
            "{write:?} must be refused as a permission or syntax error, got {error:?}"
        );
    }
    // A write that returns rows reaches the server, whose READ ONLY transaction refuses it
    // (SQLSTATE 25006); writes that return none are refused before they run.
    let insert = db
        .query(&unchecked(&writes[1]), &ExecOptions::default())
        .await
        .unwrap_err();
    assert_eq!(insert.code(), Some("25006"), "{insert}");
    assert!(
        db.refused_as_writing(&insert),
        "the server refusing a write is the readings disagreeing"
    );
    // Stacked statements fail at preparation (the extended protocol takes one).
    let stacked = db
        .query(&unchecked(&writes[17]), &ExecOptions::default())
        .await
        .unwrap_err();
    assert_eq!(stacked.code(), Some("42601"), "{stacked}");
    // A session setting changed by one statement does not outlive its transaction.
    db.query(
        &unchecked("SELECT set_config('default_transaction_read_only', 'off', false)"),
        &ExecOptions::default(),
    )
    .await
    .unwrap();
    assert!(
        db.query(&unchecked(&writes[0]), &ExecOptions::default())
            .await
            .is_err()
    );

    // Nothing changed on the server.
    assert_eq!(
        sandbox
            .count("SELECT count(*) FROM nao_conformance WHERE name IS DISTINCT FROM 'changed'")
            .await,
        3
    );
    assert_eq!(
        sandbox
            .count(&format!(
                "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
                 WHERE n.nspname = '{}'",
                sandbox.schema
            ))
            .await,
        3,
        "the schema still holds exactly the fixture, the sequence and nao_other"
    );
    assert_eq!(
        sandbox
            .count("SELECT count(*) FROM pg_attribute WHERE attrelid = 'nao_conformance'::regclass AND attnum > 0 AND NOT attisdropped")
            .await,
        3
    );
    assert_eq!(
        sandbox
            .count(
                "SELECT count(*) FROM (SELECT 1) AS one \
                 WHERE obj_description('nao_conformance'::regclass, 'pg_class') IS NULL"
            )
            .await,
        1,
        "no comment was set"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn even_a_superuser_connection_cannot_write_server_files() {
    // A READ ONLY transaction alone lets a superuser COPY to a file; the adapter refuses
    // statements that return no rows before they run. Production should still use a
    // least-privilege role.
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "superuser", READER).await;
    sandbox.fixture().await;
    let mut config = Config::from_str(&url).unwrap();
    config.options(format!("-c search_path={}", sandbox.schema));
    // The superuser is refused unless the host insists, as this test does.
    let db = PostgresDialect::connect_with_options(
        "pg_admin",
        config,
        &TlsSettings::new(TlsMode::Prefer),
        &OpenOptions::new().allow_privileged(true),
    )
    .await
    .unwrap();
    let file = format!("/tmp/{}.csv", sandbox.schema);
    for write in [
        format!("COPY nao_conformance TO '{file}'"),
        format!("COPY (SELECT 1) TO PROGRAM 'touch {file}'"),
    ] {
        let error = db
            .query(&unchecked(&write), &ExecOptions::default())
            .await
            .unwrap_err();
        assert!(
            matches!(error, DialectError::Permission { .. }),
            "{write}: {error:?}"
        );
    }
    let exists: bool = sandbox
        .admin
        .query_one("SELECT pg_stat_file($1, true) IS NOT NULL", &[&file])
        .await
        .unwrap()
        .get(0);
    assert!(!exists, "no file was written on the server");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_listed_type_maps_exactly() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "types", READER).await;
    sandbox
        .admin(
            r#"
            CREATE TYPE mood AS ENUM ('sad', 'happy');
            CREATE DOMAIN positive AS int4 CHECK (VALUE > 0);
            CREATE TABLE all_types (
                id int4 NOT NULL,
                i2 int2, i4 int4, i8 int8, f4 float4, f8 float8,
                n38 numeric(38, 10), n12 numeric(12, 2), n50 numeric(50, 5), nfree numeric,
                t text, vc varchar(10), c char(3), nm name, b bool, by bytea,
                d date, tm time, ts timestamp, tstz timestamptz, iv interval,
                u uuid, j json, jb jsonb,
                ai int4[], at text[], an numeric(10, 2)[], m mood, am mood[], dm positive
            );
            INSERT INTO all_types VALUES
            (1, -32768, -2147483648, -9223372036854775808, '-3.4028235e38', '-1.7976931348623157e308',
             '-9999999999999999999999999999.9999999999', '-9999999999.99',
             '-999999999999999999999999999999999999999999999.99999', '-0.000000000000000000001',
             '', '', 'a', 'n', false, '\x00ff10',
             '4713-01-01 BC', '00:00:00', '4713-01-01 00:00:00 BC', '1970-01-01 00:00:00+00',
             '-178000000 years', '00000000-0000-0000-0000-000000000000', '{"a": [1, 2.50, "x"]}',
             '{"a": [1, 2.50, "x"]}', '{1,NULL,-3}', '{"a","😀",NULL}', '{1.50,NULL}', 'sad',
             '{sad,happy}', 1),
            (2, 32767, 2147483647, 9223372036854775807, 'Infinity', '-0',
             '9999999999999999999999999999.9999999999', '0.01',
             '999999999999999999999999999999999999999999999.99999', 'NaN',
             '😀 𝄞 ünïcödé', 'abcdefghij', 'xyz', 'name', true, '',
             '5874897-12-31', '24:00:00', '294247-01-10 04:00:54.775807',
             '2024-06-01 12:34:56.789012+02', '1 year 2 months 3 days 04:05:06.789',
             'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '[]', '{}', '{}', '{}', '{}', 'happy', '{}',
             2147483647),
            (3, NULL, NULL, NULL, 'NaN', 'NaN', '0', '-0', '0.00001', '123.4500', NULL, NULL,
             NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '-1 days -00:00:00.000001', NULL,
             'null', 'null', NULL, NULL, NULL, NULL, NULL, NULL),
            (4, NULL, NULL, NULL, NULL, '5e-324', '0.0000000001', NULL, NULL, 'Infinity',
             NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
             NULL, NULL, NULL, NULL, NULL, NULL, NULL),
            (5, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
             NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
             NULL, NULL, NULL);
            "#,
        )
        .await;
    let db = sandbox.adapter().await;
    let batch = query_one_batch(&db, "SELECT * FROM all_types ORDER BY id").await;
    assert_eq!(batch.num_rows(), 5);
    let schema = batch.schema();
    let types: Vec<(&str, &DataType)> = schema
        .fields()
        .iter()
        .map(|f| (f.name().as_str(), f.data_type()))
        .collect();
    let list = |t: DataType| DataType::new_list(t, true);
    assert_eq!(
        types,
        [
            ("id", &DataType::Int32),
            ("i2", &DataType::Int16),
            ("i4", &DataType::Int32),
            ("i8", &DataType::Int64),
            ("f4", &DataType::Float32),
            ("f8", &DataType::Float64),
            ("n38", &DataType::Decimal128(38, 10)),
            ("n12", &DataType::Decimal128(12, 2)),
            ("n50", &DataType::Decimal256(50, 5)),
            ("nfree", &DataType::Utf8),
            ("t", &DataType::Utf8),
            ("vc", &DataType::Utf8),
            ("c", &DataType::Utf8),
            ("nm", &DataType::Utf8),
            ("b", &DataType::Boolean),
            ("by", &DataType::Binary),
            ("d", &DataType::Date32),
            ("tm", &DataType::Time64(TimeUnit::Microsecond)),
            ("ts", &DataType::Timestamp(TimeUnit::Microsecond, None)),
            (
                "tstz",
                &DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
            ),
            ("iv", &DataType::Interval(IntervalUnit::MonthDayNano)),
            ("u", &DataType::Utf8),
            ("j", &DataType::Utf8),
            ("jb", &DataType::Utf8),
            ("ai", &list(DataType::Int32)),
            ("at", &list(DataType::Utf8)),
            ("an", &list(DataType::Decimal128(10, 2))),
            ("m", &DataType::Utf8),
            ("am", &list(DataType::Utf8)),
            ("dm", &DataType::Int32),
        ]
    );
    let col = |name: &str| batch.column_by_name(name).unwrap().clone();

    let i2 = col("i2");
    let i2 = i2.as_primitive::<Int16Type>();
    assert_eq!((i2.value(0), i2.value(1)), (i16::MIN, i16::MAX));
    assert!(i2.is_null(2));
    let i4 = col("i4");
    let i4 = i4.as_primitive::<Int32Type>();
    assert_eq!((i4.value(0), i4.value(1)), (i32::MIN, i32::MAX));
    let i8 = col("i8");
    let i8 = i8.as_primitive::<Int64Type>();
    assert_eq!((i8.value(0), i8.value(1)), (i64::MIN, i64::MAX));

    let f4 = col("f4");
    let f4 = f4.as_primitive::<Float32Type>();
    assert_eq!(f4.value(0), -3.402_823_5e38_f32);
    assert_eq!(f4.value(1), f32::INFINITY);
    assert!(f4.value(2).is_nan());
    let f8 = col("f8");
    let f8 = f8.as_primitive::<Float64Type>();
    assert_eq!(f8.value(0), -f64::MAX);
    assert_eq!(f8.value(1).to_bits(), (-0.0_f64).to_bits(), "negative zero");
    assert!(f8.value(2).is_nan());
    assert_eq!(f8.value(3), 5e-324, "the smallest subnormal");

    let n38 = col("n38");
    let n38 = n38.as_primitive::<Decimal128Type>();
    let nines38 = 10_i128.pow(38) - 1;
    assert_eq!(
        (n38.value(0), n38.value(1), n38.value(2), n38.value(3)),
        (-nines38, nines38, 0, 1)
    );
    let n12 = col("n12");
    let n12 = n12.as_primitive::<Decimal128Type>();
    assert_eq!(
        (n12.value(0), n12.value(1), n12.value(2)),
        (-999_999_999_999, 1, 0)
    );
    let n50 = col("n50");
    let n50 = n50.as_primitive::<Decimal256Type>();
    let nines50 = i256::from_string(&"9".repeat(50)).unwrap();
    assert_eq!(n50.value(0), nines50.wrapping_neg());
    assert_eq!(n50.value(1), nines50);
    assert_eq!(n50.value(2), i256::from_i128(1));
    let nfree = col("nfree");
    let nfree = nfree.as_string::<i32>();
    assert_eq!(nfree.value(0), "-0.000000000000000000001");
    assert_eq!(nfree.value(1), "NaN");
    assert_eq!(nfree.value(2), "123.4500");
    assert_eq!(nfree.value(3), "Infinity");
    assert!(nfree.is_null(4));
    assert_eq!(
        schema
            .field_with_name("nfree")
            .unwrap()
            .metadata()
            .get("nao.postgres.type"),
        Some(&"numeric".to_owned())
    );

    let t = col("t");
    let t = t.as_string::<i32>();
    assert_eq!((t.value(0), t.value(1)), ("", "😀 𝄞 ünïcödé"));
    assert!(t.is_null(2) && !t.is_null(0), "empty text is not NULL");
    let c = col("c");
    assert_eq!(
        c.as_string::<i32>().value(0),
        "a  ",
        "char(3) keeps its padding"
    );
    assert_eq!(col("vc").as_string::<i32>().value(1), "abcdefghij");
    assert_eq!(col("nm").as_string::<i32>().value(1), "name");
    let b = col("b");
    let b = b.as_boolean();
    assert!(!b.value(0) && b.value(1) && b.is_null(2));
    let by = col("by");
    let by = by.as_binary::<i32>();
    assert_eq!(by.value(0), [0x00, 0xff, 0x10]);
    assert_eq!(by.value(1), b"");
    assert!(by.is_null(2));

    let d = col("d");
    let d = d.as_primitive::<Date32Type>();
    // PostgreSQL's first and last dates, in days from 1970-01-01 (as the server computes
    // `d - date '1970-01-01'`).
    assert_eq!((d.value(0), d.value(1)), (-2_440_550, 2_145_042_905));
    let tm = col("tm");
    let tm = tm.as_primitive::<Time64MicrosecondType>();
    assert_eq!((tm.value(0), tm.value(1)), (0, 86_400_000_000));
    let ts = col("ts");
    let ts = ts.as_primitive::<TimestampMicrosecondType>();
    assert_eq!(ts.value(0), -210_863_520_000_000_000, "4713-01-01 BC");
    assert_eq!(ts.value(1), i64::MAX, "the last microsecond Arrow can hold");
    let tstz = col("tstz");
    let tstz = tstz.as_primitive::<TimestampMicrosecondType>();
    assert_eq!(tstz.value(0), 0);
    assert_eq!(tstz.value(1), 1_717_238_096_789_012, "10:34:56.789012 UTC");
    let iv = col("iv");
    let iv = iv.as_primitive::<IntervalMonthDayNanoType>();
    assert_eq!(iv.value(0), IntervalMonthDayNano::new(-2_136_000_000, 0, 0));
    assert_eq!(
        iv.value(1),
        IntervalMonthDayNano::new(14, 3, 14_706_789_000_000)
    );
    assert_eq!(iv.value(2), IntervalMonthDayNano::new(0, -1, -1_000));

    let u = col("u");
    let u = u.as_string::<i32>();
    assert_eq!(u.value(0), "00000000-0000-0000-0000-000000000000");
    assert_eq!(u.value(1), "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
    let j = col("j");
    let j = j.as_string::<i32>();
    assert_eq!(
        j.value(0),
        r#"{"a": [1, 2.50, "x"]}"#,
        "json keeps its text"
    );
    assert_eq!(j.value(2), "null", "JSON null is not SQL NULL");
    assert!(j.is_null(3));
    let jb = col("jb");
    let jb = jb.as_string::<i32>();
    assert_eq!(jb.value(0), r#"{"a": [1, 2.50, "x"]}"#);
    assert_eq!(jb.value(1), "{}");
    assert_eq!(
        schema
            .field_with_name("jb")
            .unwrap()
            .metadata()
            .get("ARROW:extension:name"),
        Some(&"arrow.json".to_owned())
    );

    let ai = col("ai");
    let ai = ai.as_list::<i32>();
    let first = ai.value(0);
    let first = first.as_primitive::<Int32Type>();
    assert_eq!(first.len(), 3);
    assert_eq!(
        (first.value(0), first.is_null(1), first.value(2)),
        (1, true, -3)
    );
    assert_eq!(ai.value(1).len(), 0, "an empty array is an empty list");
    assert!(ai.is_null(2));
    let at = col("at");
    let at = at.as_list::<i32>().value(0);
    let at = at.as_string::<i32>();
    assert_eq!((at.value(0), at.value(1), at.is_null(2)), ("a", "😀", true));
    let an = col("an");
    let an = an.as_list::<i32>().value(0);
    let an = an.as_primitive::<Decimal128Type>();
    assert_eq!((an.value(0), an.is_null(1)), (150, true));
    let m = col("m");
    let m = m.as_string::<i32>();
    assert_eq!((m.value(0), m.value(1)), ("sad", "happy"));
    let am = col("am");
    let am = am.as_list::<i32>().value(0);
    assert_eq!(am.as_string::<i32>().value(1), "happy");
    let dm = col("dm");
    assert_eq!(dm.as_primitive::<Int32Type>().value(1), i32::MAX);

    for row in 0..5 {
        assert_eq!(
            batch.column(0).as_primitive::<Int32Type>().value(row),
            i32::try_from(row + 1).unwrap()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unmapped_types_come_back_as_text_with_a_note() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "cast", READER).await;
    let db = sandbox.adapter().await;
    let batch = query_one_batch(
        &db,
        "SELECT 1 AS id, inet '10.0.0.1/8' AS addr, int4range(1, 5) AS r, point(1, 2) AS p, \
         ARRAY[inet '::1'] AS addrs, (1, 'x')::record AS rec, money '12.34' AS cash, \
         timetz '10:00:00+02' AS tz, 'x' AS id -- a trailing comment\n;",
    )
    .await;
    let names: Vec<&str> = batch
        .schema_ref()
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(
        names,
        ["id", "addr", "r", "p", "addrs", "rec", "cash", "tz", "id"]
    );
    let text = |i: usize| batch.column(i).as_string::<i32>().value(0).to_owned();
    assert_eq!(batch.column(0).as_primitive::<Int32Type>().value(0), 1);
    assert_eq!(text(1), "10.0.0.1/8");
    assert_eq!(text(2), "[1,5)");
    assert_eq!(text(3), "(1,2)");
    assert_eq!(text(4), "{::1}");
    assert_eq!(text(5), "(1,x)");
    assert_eq!(text(7), "10:00:00+02");
    assert_eq!(text(8), "x");
    let field = batch.schema_ref().field(1).clone();
    assert_eq!(
        field.metadata().get("nao.postgres.type"),
        Some(&"inet".to_owned())
    );
    assert!(field.metadata().contains_key("nao.note"));

    // Values no Arrow type holds are refused with a hint to cast, never altered.
    for (sql, what) in [
        ("SELECT ARRAY[[1, 2], [3, 4]] AS grid", "dimensional"),
        ("SELECT 'infinity'::timestamptz AS t", "infinite"),
        ("SELECT '294276-12-31'::timestamp AS t", "range"),
        ("SELECT 'NaN'::numeric(10, 2) AS n", "NaN"),
    ] {
        let error = db
            .query(&unchecked(sql), &ExecOptions::default())
            .await
            .unwrap_err();
        assert!(
            matches!(error, DialectError::Unsupported { .. }) && error.to_string().contains(what),
            "{sql}: {error}"
        );
        assert!(error.to_string().contains("cast"), "{error}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_million_rows_stop_at_the_cap_and_leave_nothing_running() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "cap", READER).await;
    let db = sandbox.adapter().await;
    let sql = checked("SELECT n, n % 7 AS r FROM (SELECT generate_series(1, 10000000) AS n) AS s");
    let started = Instant::now();
    let result = db
        .query(&sql, &ExecOptions::default().with_max_rows(10_000))
        .await
        .unwrap();
    let elapsed = started.elapsed();
    assert_eq!(result.row_count, 10_000);
    assert_eq!(result.truncation, Some(Truncation::RowCap { cap: 10_000 }));
    let last = result.batches.last().unwrap();
    assert_eq!(
        last.column(0)
            .as_primitive::<Int32Type>()
            .value(last.num_rows() - 1),
        10_000
    );
    let bytes: usize = result
        .batches
        .iter()
        .map(RecordBatch::get_array_memory_size)
        .sum();
    eprintln!("10M-row query capped at 10k rows: {elapsed:?}, {bytes} bytes of Arrow kept");
    assert!(
        bytes < 4 << 20,
        "kept memory is bounded by the cap: {bytes}"
    );
    assert_eq!(sandbox.settle().await, 0, "no query left running");

    // The same through a stream dropped after its first batch.
    let mut stream = db
        .execute(&sql, &ExecOptions::default().with_batch_size(1_000))
        .await
        .unwrap();
    assert_eq!(stream.next().await.unwrap().unwrap().num_rows(), 1_000);
    drop(stream);
    assert_eq!(
        sandbox.settle().await,
        0,
        "no query left after a dropped stream"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeouts_and_cancellation_send_real_cancel_requests() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "cancel", READER).await;
    let db = sandbox.adapter().await;
    // The guard refuses pg_sleep; it stands for any slow statement here.
    let slow = unchecked("SELECT pg_sleep(60) AS slept");

    let timeout = ExecOptions::default().with_timeout(Duration::from_millis(300));
    let error = db.query(&slow, &timeout).await.unwrap_err();
    assert!(matches!(error, DialectError::Timeout { .. }), "{error:?}");
    assert_eq!(
        sandbox.settle().await,
        0,
        "the timed-out query was stopped on the server"
    );

    let cancel = CancellationToken::new();
    let options = ExecOptions::default().with_cancel(cancel.clone());
    let canceller = {
        let cancel = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            cancel.cancel();
        })
    };
    let error = db.query(&slow, &options).await.unwrap_err();
    canceller.await.unwrap();
    assert!(matches!(error, DialectError::Cancelled { .. }), "{error:?}");
    assert_eq!(
        sandbox.settle().await,
        0,
        "the cancelled query was stopped on the server"
    );

    // The server's own statement_timeout fires too when nothing else does: execute directly,
    // without the collecting helper's clock.
    let error = db
        .execute(
            &unchecked("SELECT count(*) AS n FROM pg_sleep(5), generate_series(1, 10)"),
            &ExecOptions::default().with_timeout(Duration::from_millis(200)),
        )
        .await
        .unwrap_err();
    assert!(matches!(error, DialectError::Timeout { .. }), "{error:?}");
    assert_eq!(sandbox.settle().await, 0);

    // The pool still serves queries.
    let batch = query_one_batch(&db, "SELECT 42 AS answer").await;
    assert_eq!(batch.column(0).as_primitive::<Int32Type>().value(0), 42);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_keep_their_sqlstate_and_kind() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "errors", READER).await;
    sandbox.fixture().await;
    sandbox
        .admin("CREATE TABLE secret (x int); REVOKE ALL ON secret FROM PUBLIC")
        .await;
    sandbox
        .admin(&format!("REVOKE SELECT ON secret FROM {}", sandbox.role))
        .await;
    let db = sandbox.adapter().await;
    conformance::errors_carry_kind_and_code(
        &db,
        &[
            ("SELEC 1", "syntax", "42601"),
            ("SELECT 1; SELECT 2", "syntax", "42601"),
            ("SELECT * FROM no_such_table", "unknown_object", "42P01"),
            (
                "SELECT nope FROM nao_conformance",
                "unknown_object",
                "42703",
            ),
            ("SELECT no_such_function(1)", "unknown_object", "42883"),
            ("SELECT * FROM no_such_schema.t", "unknown_object", "42P01"),
            ("SELECT * FROM secret", "permission", "42501"),
            ("SELECT 1 / 0", "engine", "22012"),
            ("SELECT id + 'x' FROM nao_conformance", "engine", "22P02"),
        ],
    )
    .await;
    let hint = db
        .query(
            &unchecked("SELECT no_such_function(1)"),
            &ExecOptions::default(),
        )
        .await
        .unwrap_err();
    assert!(hint.to_string().contains("hint:"), "{hint}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn introspection_respects_schema_filter_privileges_and_comments() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "intro", READER).await;
    sandbox.fixture().await;
    sandbox
        .admin(&format!(
            "COMMENT ON TABLE nao_conformance IS 'the fixture';
             COMMENT ON COLUMN nao_conformance.amount IS 'in euros';
             CREATE VIEW big_amounts AS SELECT * FROM nao_conformance WHERE amount > 5;
             CREATE MATERIALIZED VIEW amount_stats AS SELECT count(*) AS n FROM nao_conformance;
             CREATE TABLE hidden (x int);
             REVOKE SELECT ON hidden FROM {role};
             ANALYZE nao_conformance;",
            role = sandbox.role
        ))
        .await;
    let db = sandbox.adapter().await;
    let tables = db
        .list_tables(&TableFilter::default().with_schema(sandbox.schema.to_uppercase()))
        .await
        .unwrap();
    let listed: Vec<(&str, TableKind)> = tables.iter().map(|t| (t.name.as_str(), t.kind)).collect();
    assert_eq!(
        listed,
        [
            ("amount_stats", TableKind::MaterializedView),
            ("big_amounts", TableKind::View),
            ("nao_conformance", TableKind::Table),
        ],
        "the hidden table is not listed"
    );
    let fixture = &tables[2];
    assert_eq!(fixture.schema.as_deref(), Some(sandbox.schema.as_str()));
    assert_eq!(fixture.comment.as_deref(), Some("the fixture"));
    assert_eq!(fixture.estimated_rows, Some(3));
    let elsewhere = db
        .list_tables(&TableFilter::default().with_schema("pg_catalog"))
        .await
        .unwrap();
    assert!(
        elsewhere.is_empty(),
        "system schemas are not listed: {elsewhere:?}"
    );
    let pattern = db
        .list_tables(&TableFilter::default().with_pattern("big*"))
        .await
        .unwrap();
    assert_eq!(pattern.len(), 1);

    let described = db
        .describe_table(&TableRef::parse("NAO_CONFORMANCE"))
        .await
        .unwrap();
    assert_eq!(described.comment.as_deref(), Some("the fixture"));
    let columns = conformance::declared_columns(&described);
    assert_eq!(
        columns,
        [
            ("id", "integer", false),
            ("name", "character varying(40)", true),
            ("amount", "numeric(12,2)", true),
        ]
    );
    assert_eq!(described.columns[2].comment.as_deref(), Some("in euros"));
    let qualified = TableRef {
        schema: Some(sandbox.schema.clone()),
        name: "big_amounts".into(),
    };
    assert_eq!(
        db.describe_table(&qualified).await.unwrap().columns.len(),
        3
    );
    for missing in ["hidden", "no_such_table", "pg_catalog.pg_authid"] {
        let error = db
            .describe_table(&TableRef::parse(missing))
            .await
            .unwrap_err();
        assert!(
            matches!(error, DialectError::UnknownObject { .. }),
            "{missing}: {error:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pool_serves_concurrent_queries_and_keeps_few_connections() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "pool", READER).await;
    let db = std::sync::Arc::new(sandbox.adapter().await);
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let db = std::sync::Arc::clone(&db);
            tokio::spawn(async move {
                let sql = unchecked(&format!("SELECT {i} AS i, pg_sleep(0.1) AS s"));
                db.query(&sql, &ExecOptions::default())
                    .await
                    .unwrap()
                    .row_count
            })
        })
        .collect();
    for task in tasks {
        assert_eq!(task.await.unwrap(), 1);
    }
    // Connections past the four kept idle are closed; their server sessions end shortly after.
    let sessions_sql = format!(
        "SELECT count(*) FROM pg_stat_activity WHERE usename = '{}'",
        sandbox.role
    );
    let mut sessions = sandbox.count(&sessions_sql).await;
    for _ in 0..100 {
        if sessions <= 4 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        sessions = sandbox.count(&sessions_sql).await;
    }
    assert!(
        sessions <= 4,
        "at most four idle connections are kept: {sessions}"
    );
}

const PASSWORD: &str = "Sup3r-S3cret-Passw0rd";

fn assert_no_password(text: &str) {
    assert!(!text.contains(PASSWORD), "the password leaked: {text}");
}

#[tokio::test]
async fn unreachable_servers_are_connection_errors_without_the_password() {
    // Port 1 on the loopback interface refuses connections; no server is needed.
    let url = format!("postgres://someone:{PASSWORD}@127.0.0.1:1/db?connect_timeout=5");
    let error = PostgresDialect::open_url("pg", &url).await.unwrap_err();
    assert!(
        matches!(error, DialectError::Connection { .. }),
        "{error:?}"
    );
    assert!(error.is_retryable());
    assert_no_password(&error.to_string());
    assert_no_password(&format!("{error:?}"));

    let opened = nao_dialects::open("pg", &url).await.unwrap_err();
    assert_no_password(&opened.to_string());
    assert_no_password(&format!("{opened:?}"));

    let tls = format!(
        "postgres://someone:{PASSWORD}@127.0.0.1:1/db?sslmode=verify-full&sslrootcert=/nonexistent.pem"
    );
    let error = PostgresDialect::open_url("pg", &tls).await.unwrap_err();
    assert!(error.to_string().contains("/nonexistent.pem"), "{error}");
    assert_no_password(&error.to_string());
    assert_no_password(&format!("{error:?}"));

    let malformed = format!("postgres://someone:{PASSWORD}@127.0.0.1:1/db?bogus_option=1");
    let error = PostgresDialect::open_url("pg", &malformed)
        .await
        .unwrap_err();
    assert!(
        matches!(error, DialectError::Connection { .. }),
        "{error:?}"
    );
    assert_no_password(&error.to_string());
    assert_no_password(&format!("{error:?}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connected_adapter_never_shows_its_password() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "secret", READER).await;
    // Trust authentication on the test server accepts any password; the URL still carries one.
    let config = sandbox.role_config();
    let host = match &config.get_hosts()[0] {
        nao_dialects::postgres::driver::config::Host::Tcp(h) => h.clone(),
        #[allow(unreachable_patterns)]
        _ => "127.0.0.1".to_owned(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let dbname = config.get_dbname().unwrap_or("postgres");
    let with_password = format!(
        "postgres://{}:{PASSWORD}@{host}:{port}/{dbname}",
        sandbox.role
    );
    let db = nao_dialects::open("pg", &with_password).await.unwrap();
    let debug = format!("{db:?}");
    assert!(debug.contains(&sandbox.role), "{debug}");
    assert_no_password(&debug);
    let error = db
        .query(&unchecked("SELEC 1"), &ExecOptions::default())
        .await
        .unwrap_err();
    assert_no_password(&error.to_string());
    assert_no_password(&format!("{error:?}"));
}
