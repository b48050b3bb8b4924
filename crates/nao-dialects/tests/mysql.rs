//! The MySQL/MariaDB adapter against a real server (`NAO_TEST_MYSQL_URL`, a user that may
//! create databases and users, e.g. `mysql://root@127.0.0.1:3306/test`): the conformance suite
//! as a least-privilege user, defense in depth past the guard, exact Arrow types, a capped
//! 10-million-row query that leaves nothing running, and secrets kept out of errors.
//!
//! Without the variable each test says so and returns; with it, an unreachable server fails.
//! Each test makes its own database `nao_test_<random>` and user `nao_ro_<random>` and drops
//! both when it ends, even when it fails.
#![cfg(feature = "mysql")]
#![allow(clippy::unwrap_used)] // Tests: a failed unwrap is a failed test.

mod support;

use std::time::{Duration, Instant};

use arrow_array::Array;
use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_buffer::i256;
use arrow_schema::{DataType, TimeUnit};
use futures_util::StreamExt;
use mysql_async::prelude::Queryable;
use nao_core::guard::{Policy, ReadOnlySql, SqlDialect, check};
use nao_core::render::Truncation;
use nao_core::{Dialect, DialectError, DialectExt, ExecOptions, TableFilter, TableKind, TableRef};
use nao_dialects::OpenOptions;
use nao_dialects::conformance::{self, FIXTURE_STATEMENTS, FIXTURE_TABLE};
use nao_dialects::mysql::{Flavour, MySqlDialect};
use support::mysql::{Sandbox, server_url, unique};
use tokio_util::sync::CancellationToken;

/// What only this file asks of the sandbox.
impl Sandbox {
    /// A database name no test made yet, dropped with the sandbox should one appear.
    fn gap_database(&self) -> String {
        format!("{}_gap", self.db)
    }

    /// Statements of the read-only user still running on the server.
    async fn running(&self) -> Vec<String> {
        let mut conn = self.root_conn().await;
        conn.exec(
            "SELECT CONCAT(COMMAND, ': ', COALESCE(INFO, '')) FROM information_schema.PROCESSLIST \
             WHERE USER = ? AND INFO IS NOT NULL",
            (&self.user,),
        )
        .await
        .unwrap()
    }

    /// Waits (briefly) for the read-only user's statements to end, then asserts none runs.
    async fn assert_nothing_running(&self) {
        let mut running = self.running().await;
        for _ in 0..100 {
            if running.is_empty() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            running = self.running().await;
        }
        panic!("statements still running on the server: {running:?}");
    }
}

fn checked(db: &dyn Dialect, sql: &str) -> ReadOnlySql {
    check(sql, db.sql_dialect(), &Policy::default()).unwrap()
}

fn unchecked(db: &dyn Dialect, sql: &str) -> ReadOnlySql {
    ReadOnlySql::new_unchecked_allowing_writes(sql, db.sql_dialect())
}

async fn root_scalar(test: &Sandbox, sql: &str) -> Option<String> {
    let mut conn = test.root_conn().await;
    conn.query_first(sql).await.unwrap()
}

/// The fixture, unchanged: three rows, names as written.
async fn assert_fixture_unchanged(test: &Sandbox) {
    let fingerprint = root_scalar(
        test,
        "SELECT CONCAT(COUNT(*), ':', GROUP_CONCAT(CONCAT_WS('/', id, name, amount) ORDER BY id)) \
         FROM nao_conformance",
    )
    .await;
    assert_eq!(
        fingerprint.as_deref(),
        Some("3:1/alpha/10.50,2/beta,3/-0.25"),
        "the fixture must be unchanged"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conformance_as_a_least_privilege_user() {
    let Some(url) = server_url() else { return };
    let test = Sandbox::new(&url, "test", FIXTURE_STATEMENTS).await;
    let db = test.adapter("mysql_ro").await;
    conformance::run_all(&db).await;
    test.assert_nothing_running().await;
    assert_fixture_unchanged(&test).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opening_from_urls_detects_the_flavour() {
    let Some(url) = server_url() else { return };
    let test = Sandbox::new(&url, "test", FIXTURE_STATEMENTS).await;
    let mariadb_url = test.ro_url().replacen("mysql://", "mariadb://", 1);
    for url in [test.ro_url(), mariadb_url] {
        let db = nao_dialects::open("by_url", &url).await.unwrap();
        let result = db
            .query(
                &checked(&*db, "SELECT VERSION() AS v"),
                &ExecOptions::default(),
            )
            .await
            .unwrap();
        let version = result.batches[0].column(0).as_string::<i32>().value(0);
        let expected = if version.contains("MariaDB") {
            SqlDialect::MariaDb
        } else {
            SqlDialect::MySql
        };
        assert_eq!(db.sql_dialect(), expected, "{version}");
    }
    let db = test.adapter("flavour").await;
    let flavour = Flavour::from_version(db.server_version());
    assert_eq!(db.flavour(), flavour);
    // Pooled connections are reused: a round of small queries (reported, not asserted).
    let one = checked(&db, "SELECT 1 AS one");
    let started = Instant::now();
    for _ in 0..50 {
        let result = db.query(&one, &ExecOptions::default()).await.unwrap();
        assert_eq!(result.row_count, 1);
    }
    eprintln!("50 small queries: {:?} each", started.elapsed() / 50);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_user_cannot_write_even_past_the_guard() {
    let Some(url) = server_url() else { return };
    let test = Sandbox::new(&url, "test", FIXTURE_STATEMENTS).await;
    let db = nao_dialects::open("mysql_ro_writes", &test.ro_url())
        .await
        .unwrap();
    let outfile = format!("/tmp/nao_outfile_{}.txt", unique());
    let gap = &test.gap_database();
    let evil_user = format!("{}_evil", test.user);
    let refused = [
        "INSERT INTO nao_conformance (id, name) VALUES (99, 'written')".to_owned(),
        "UPDATE nao_conformance SET name = 'changed'".to_owned(),
        "DELETE FROM nao_conformance".to_owned(),
        "REPLACE INTO nao_conformance (id, name) VALUES (1, 'replaced')".to_owned(),
        "CREATE TABLE nao_conformance_created (x INTEGER)".to_owned(),
        "CREATE TEMPORARY TABLE nao_tmp (x INTEGER)".to_owned(),
        "ALTER TABLE nao_conformance ADD COLUMN extra INTEGER".to_owned(),
        "TRUNCATE TABLE nao_conformance".to_owned(),
        "DROP TABLE nao_conformance".to_owned(),
        format!("CREATE DATABASE `{gap}`"),
        format!("CREATE USER '{evil_user}'@'%'"),
        format!("GRANT ALL ON *.* TO '{}'@'%'", test.user),
        "SET GLOBAL max_connections = 1".to_owned(),
        "SET TRANSACTION READ WRITE".to_owned(),
        // Stacking: the binary protocol prepares one statement, so this fails to prepare.
        "COMMIT; INSERT INTO nao_conformance (id, name) VALUES (98, 'stacked')".to_owned(),
        format!("SELECT * FROM nao_conformance INTO OUTFILE '{outfile}'"),
    ];
    for write in &refused {
        let outcome = db
            .query(&unchecked(&*db, write), &ExecOptions::default())
            .await;
        match &outcome {
            Err(DialectError::Permission { code, .. }) => {
                eprintln!("refused (permission {code:?}): {write}");
            }
            Err(DialectError::Syntax { code, .. }) if write.starts_with("COMMIT;") => {
                eprintln!("refused (syntax {code:?}): {write}");
            }
            other => panic!("{write:?} must be refused as a permission error, got {other:?}"),
        }
    }
    // Changing the session's default access mode, or committing, then writing in the next
    // call: every call starts its own READ ONLY transaction, and the user may only SELECT.
    for first in ["SET SESSION TRANSACTION READ WRITE", "COMMIT"] {
        let _ = db
            .query(&unchecked(&*db, first), &ExecOptions::default())
            .await;
        let write = unchecked(
            &*db,
            "INSERT INTO nao_conformance (id, name) VALUES (97, 'after')",
        );
        let outcome = db.query(&write, &ExecOptions::default()).await;
        assert!(
            matches!(outcome, Err(DialectError::Permission { .. })),
            "a write after {first:?} must be refused: {outcome:?}"
        );
    }
    assert_fixture_unchanged(&test).await;
    let tables = root_scalar(
        &test,
        &format!(
            "SELECT GROUP_CONCAT(TABLE_NAME) FROM information_schema.TABLES \
             WHERE TABLE_SCHEMA = '{}'",
            test.db
        ),
    )
    .await;
    assert_eq!(
        tables.as_deref(),
        Some(FIXTURE_TABLE),
        "no table was created"
    );
    let columns = root_scalar(
        &test,
        "SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_NAME = 'nao_conformance' \
         AND TABLE_SCHEMA = DATABASE()",
    )
    .await;
    assert_eq!(columns.as_deref(), Some("3"), "no column was added");
    let gap_exists = root_scalar(
        &test,
        &format!("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = '{gap}'"),
    )
    .await;
    assert_eq!(gap_exists.as_deref(), Some("0"), "no database was created");
    let evil = root_scalar(
        &test,
        &format!("SELECT COUNT(*) FROM mysql.user WHERE User = '{evil_user}'"),
    )
    .await;
    assert_eq!(evil.as_deref(), Some("0"), "no user was created");
    let grants = root_scalar(
        &test,
        &format!(
            "SELECT COUNT(*) FROM mysql.user WHERE User = '{}' AND Insert_priv = 'Y'",
            test.user
        ),
    )
    .await;
    assert_eq!(grants.as_deref(), Some("0"), "no privilege was granted");
    let max_connections = root_scalar(&test, "SELECT @@GLOBAL.max_connections").await;
    assert_ne!(max_connections.as_deref(), Some("1"));
    assert!(
        !std::path::Path::new(&outfile).exists(),
        "INTO OUTFILE must not write {outfile}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_transaction_alone_refuses_table_writes_but_not_implicit_commits() {
    let Some(url) = server_url() else { return };
    let test = Sandbox::new(&url, "test", FIXTURE_STATEMENTS).await;
    // As the privileged user: only the READ ONLY transaction (and the prepared statement)
    // stand between a write and the data.
    // Root is refused unless the host insists, as this test does.
    let privileged = OpenOptions::new().allow_privileged(true);
    let db = MySqlDialect::connect_with_options("mysql_root", test.root_opts(), &privileged)
        .await
        .unwrap();
    let gap = &test.gap_database();
    let refused_by_the_transaction = [
        "INSERT INTO nao_conformance (id, name) VALUES (99, 'written')".to_owned(),
        "UPDATE nao_conformance SET name = 'changed'".to_owned(),
        "DELETE FROM nao_conformance".to_owned(),
        "CREATE TABLE nao_conformance_created (x INTEGER)".to_owned(),
        "CREATE TEMPORARY TABLE nao_tmp (x INTEGER)".to_owned(),
        "DROP TABLE nao_conformance".to_owned(),
        "SET TRANSACTION READ WRITE".to_owned(),
        // Statements that commit implicitly: the session's default access mode (READ ONLY)
        // applies to the transaction they start, so MariaDB refuses them too.
        format!("CREATE DATABASE `{gap}`"),
        format!("DROP DATABASE `{}`", test.db),
        format!("CREATE USER '{}_evil'@'%'", test.user),
        format!("GRANT INSERT ON `{}`.* TO '{}'@'%'", test.db, test.user),
    ];
    for write in &refused_by_the_transaction {
        let outcome = db
            .query(&unchecked(&db, write), &ExecOptions::default())
            .await;
        match &outcome {
            Err(error @ DialectError::Permission { code, .. })
                if matches!(code.as_deref(), Some("1792" | "1568")) =>
            {
                assert!(
                    db.refused_as_writing(error),
                    "the server refusing a write is the readings disagreeing: {error:?}"
                );
                eprintln!("refused by the READ ONLY transaction ({code:?}): {write}");
            }
            other if db.flavour() == Flavour::MySql => {
                eprintln!("MySQL: {write:?} gave {other:?}");
            }
            other => panic!("the READ ONLY transaction must refuse {write:?}, got {other:?}"),
        }
    }
    let stacked = unchecked(
        &db,
        "COMMIT; INSERT INTO nao_conformance (id, name) VALUES (98, 'stacked')",
    );
    let outcome = db.query(&stacked, &ExecOptions::default()).await;
    assert!(
        matches!(&outcome, Err(DialectError::Syntax { code, .. }) if code.as_deref() == Some("1064")),
        "stacking fails to prepare: {outcome:?}"
    );
    assert_fixture_unchanged(&test).await;
    let exists = root_scalar(
        &test,
        &format!("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = '{gap}'"),
    )
    .await;
    if db.flavour() == Flavour::MariaDb {
        assert_eq!(exists.as_deref(), Some("0"), "no database was created");
    }
    // The gap: statements that are not transactional at all. Setting a global variable to
    // its current value shows it without changing the server; FLUSH, KILL and
    // SELECT … INTO OUTFILE pass the same way. Only a least-privilege user stops them.
    let set_global = unchecked(&db, "SET GLOBAL max_connections = @@GLOBAL.max_connections");
    let outcome = db.query(&set_global, &ExecOptions::default()).await;
    eprintln!("SET GLOBAL inside START TRANSACTION READ ONLY as a privileged user: {outcome:?}");
    if db.flavour() == Flavour::MariaDb {
        assert!(outcome.is_ok(), "the documented gap: {outcome:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_type_reads_back_exactly() {
    let Some(url) = server_url() else { return };
    let test = Sandbox::new(&url, "test", FIXTURE_STATEMENTS).await;
    let mut root = test.root_conn().await;
    root.query_drop(
        "CREATE TABLE types_t (
            id INT NOT NULL PRIMARY KEY,
            ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT, siu SMALLINT UNSIGNED,
            mi MEDIUMINT, miu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED,
            bi BIGINT, biu BIGINT UNSIGNED,
            d38 DECIMAL(38,10), d65 DECIMAL(65,30), du DECIMAL(5,2) UNSIGNED,
            f FLOAT, dbl DOUBLE,
            dt DATE, dtm DATETIME(6), ts TIMESTAMP(6) NULL, tm TIME(6), y YEAR,
            c CHAR(3), vc VARCHAR(20), tx TEXT, bin BINARY(3), vb VARBINARY(10), bl BLOB,
            js JSON, b1 BIT(1), b64 BIT(64), en ENUM('a','b'), st SET('x','y'), g GEOMETRY
        ) DEFAULT CHARSET = utf8mb4",
    )
    .await
    .unwrap();
    root.query_drop(
        "INSERT INTO types_t VALUES
         (1, -128, 0, -32768, 0, -8388608, 0, -2147483648, 0, -9223372036854775808, 0,
          '-9999999999999999999999999999.9999999999',
          '-99999999999999999999999999999999999.999999999999999999999999999999', 0.00,
          1.5, -1e-300 * 1e-300,
          '1000-01-01', '1000-01-01 00:00:00.000000', '1970-01-01 00:00:01.000000',
          '-838:59:59.000000', 1901,
          'abc', '😀 naïve', 'x', x'000102', x'', x'00ff',
          '{\"a\": [1, 2.5, null]}', b'0', b'0', 'a', 'x,y', ST_GeomFromText('POINT(1 2)')),
         (2, 127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295,
          9223372036854775807, 18446744073709551615,
          '9999999999999999999999999999.9999999999',
          '99999999999999999999999999999999999.999999999999999999999999999999', 999.99,
          -0.25, 1.7976931348623157e308,
          '9999-12-31', '9999-12-31 23:59:59.999999', '2038-01-19 03:14:07.999999',
          '838:59:59.000000', 2155,
          '', '𝄞', REPEAT('z', 1000), x'ffffff', x'00', '', '[]', b'1',
          b'1111111111111111111111111111111111111111111111111111111111111111', 'b', '', NULL),
         (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
          NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
          NULL, NULL, NULL, NULL, NULL, NULL)",
    )
    .await
    .unwrap();
    // A zero date, which only a permissive sql_mode lets in.
    root.query_drop(
        "SET SESSION sql_mode = ''; INSERT INTO types_t (id, dt, dtm) \
         VALUES (4, '0000-00-00', '0000-00-00 00:00:00')",
    )
    .await
    .unwrap();
    drop(root);

    let db = test.adapter("mysql_types").await;
    let result = db
        .query(
            &checked(&db, "SELECT * FROM types_t ORDER BY id"),
            &ExecOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(result.row_count, 4);
    assert_eq!(result.batches.len(), 1, "four rows fit one batch");
    let batch = result.batches[0].clone();
    let col = |name: &str| batch.column(batch.schema().index_of(name).unwrap()).clone();
    let types: Vec<(String, DataType)> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| (f.name().clone(), f.data_type().clone()))
        .collect();
    let expected_types = [
        ("id", DataType::Int32),
        ("ti", DataType::Int8),
        ("tiu", DataType::UInt8),
        ("si", DataType::Int16),
        ("siu", DataType::UInt16),
        ("mi", DataType::Int32),
        ("miu", DataType::UInt32),
        ("i", DataType::Int32),
        ("iu", DataType::UInt32),
        ("bi", DataType::Int64),
        ("biu", DataType::UInt64),
        ("d38", DataType::Decimal128(38, 10)),
        ("d65", DataType::Decimal256(65, 30)),
        ("du", DataType::Decimal128(5, 2)),
        ("f", DataType::Float32),
        ("dbl", DataType::Float64),
        ("dt", DataType::Date32),
        ("dtm", DataType::Timestamp(TimeUnit::Microsecond, None)),
        (
            "ts",
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
        ),
        ("tm", DataType::Duration(TimeUnit::Microsecond)),
        ("y", DataType::Int16),
        ("c", DataType::Utf8),
        ("vc", DataType::Utf8),
        ("tx", DataType::Utf8),
        ("bin", DataType::Binary),
        ("vb", DataType::Binary),
        ("bl", DataType::Binary),
        ("js", DataType::Utf8),
        ("b1", DataType::UInt64),
        ("b64", DataType::UInt64),
        ("en", DataType::Utf8),
        ("st", DataType::Utf8),
        ("g", DataType::Binary),
    ];
    let expected_types: Vec<(String, DataType)> = expected_types
        .into_iter()
        .map(|(n, t)| (n.to_owned(), t))
        .collect();
    assert_eq!(types, expected_types);

    // Row 3 is all NULL but its id.
    for (index, column) in batch.columns().iter().enumerate().skip(1) {
        assert!(column.is_null(2), "column {index} of row 3 must be NULL");
    }
    macro_rules! values {
        ($name:literal, $type:ty) => {{
            let array = col($name);
            let array = array.as_primitive::<$type>();
            (array.value(0), array.value(1))
        }};
    }
    assert_eq!(values!("ti", Int8Type), (i8::MIN, i8::MAX));
    assert_eq!(values!("tiu", UInt8Type), (0, u8::MAX));
    assert_eq!(values!("si", Int16Type), (i16::MIN, i16::MAX));
    assert_eq!(values!("siu", UInt16Type), (0, u16::MAX));
    assert_eq!(values!("mi", Int32Type), (-8_388_608, 8_388_607));
    assert_eq!(values!("miu", UInt32Type), (0, 16_777_215));
    assert_eq!(values!("i", Int32Type), (i32::MIN, i32::MAX));
    assert_eq!(values!("iu", UInt32Type), (0, u32::MAX));
    assert_eq!(values!("bi", Int64Type), (i64::MIN, i64::MAX));
    assert_eq!(values!("biu", UInt64Type), (0, u64::MAX));
    let max38: i128 = "99999999999999999999999999999999999999".parse().unwrap();
    assert_eq!(values!("d38", Decimal128Type), (-max38, max38));
    let max65 = i256::from_string(&"9".repeat(65)).unwrap();
    assert_eq!(
        values!("d65", Decimal256Type),
        (max65.wrapping_neg(), max65)
    );
    assert_eq!(values!("du", Decimal128Type), (0, 99_999));
    assert_eq!(values!("f", Float32Type), (1.5, -0.25));
    let (negative_zero, max_double) = values!("dbl", Float64Type);
    // Negative zero: MariaDB 10.11 normalises -0.0 to 0, stored or computed, so 0 is exact.
    // The adapter copies a DOUBLE's bits from the binary protocol unchanged.
    assert_eq!(negative_zero, 0.0);
    let computed = db
        .query(
            &checked(&db, "SELECT -1e-300 * 1e-300 AS z"),
            &ExecOptions::default(),
        )
        .await
        .unwrap();
    let z = computed.batches[0]
        .column(0)
        .as_primitive::<Float64Type>()
        .value(0);
    eprintln!(
        "stored -0.0 reads back as {negative_zero:?}; computed -0.0 as {z:?} (sign negative: {})",
        z.is_sign_negative()
    );
    assert_eq!(z, 0.0);
    assert_eq!(max_double, f64::MAX);
    assert_eq!(values!("dt", Date32Type), (-354_285, 2_932_896));
    assert_eq!(
        values!("dtm", TimestampMicrosecondType),
        (-30_610_224_000_000_000, 253_402_300_799_999_999)
    );
    assert_eq!(
        values!("ts", TimestampMicrosecondType),
        (1_000_000, 2_147_483_647_999_999)
    );
    let time_limit = ((838 * 60 + 59) * 60 + 59) * 1_000_000_i64;
    assert_eq!(
        values!("tm", DurationMicrosecondType),
        (-time_limit, time_limit)
    );
    assert_eq!(values!("y", Int16Type), (1901, 2155));
    assert_eq!(values!("b1", UInt64Type), (0, 1));
    assert_eq!(values!("b64", UInt64Type), (0, u64::MAX));
    let strings = |name: &str| {
        let array = col(name);
        let array = array.as_string::<i32>();
        (array.value(0).to_owned(), array.value(1).to_owned())
    };
    assert_eq!(strings("c"), ("abc".into(), "".into()));
    assert_eq!(strings("vc"), ("😀 naïve".into(), "𝄞".into()));
    assert_eq!(strings("tx"), ("x".into(), "z".repeat(1000)));
    let json = strings("js");
    assert!(
        json.0.contains("[1, 2.5, null]") || json.0.contains("[1,2.5,null]"),
        "{json:?}"
    );
    assert_eq!(json.1, "[]");
    assert_eq!(strings("en"), ("a".into(), "b".into()));
    assert_eq!(strings("st"), ("x,y".into(), "".into()));
    let bytes = |name: &str| {
        let array = col(name);
        let array = array.as_binary::<i32>();
        (array.value(0).to_vec(), array.value(1).to_vec())
    };
    assert_eq!(bytes("bin"), (vec![0, 1, 2], vec![0xff; 3]));
    assert_eq!(bytes("vb"), (vec![], vec![0]));
    assert_eq!(bytes("bl"), (vec![0, 0xff], vec![]));
    // GEOMETRY: a 4-byte SRID (0), then WKB: little-endian, type 1 (point), x = 1, y = 2.
    let point = col("g");
    let point = point.as_binary::<i32>().value(0);
    let mut wkb = vec![0, 0, 0, 0, 1, 1, 0, 0, 0];
    wkb.extend(1.0f64.to_le_bytes());
    wkb.extend(2.0f64.to_le_bytes());
    assert_eq!(point, wkb.as_slice());
    // Row 4: zero dates read as NULL.
    assert!(col("dt").is_null(3) && col("dtm").is_null(3));
}

/// A query producing ten million rows on the server (a 1000-row recursive CTE cross-joined
/// with itself and a ten-row slice of itself), streamed as it is joined.
const TEN_MILLION_ROWS: &str = "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s \
     WHERE n < 1000) SELECT a.n * 10000 + b.n * 10 + c.n AS n FROM s AS a, s AS b, s AS c \
     WHERE c.n <= 10";

/// The peak resident memory of this process, from /proc (Linux), in MiB.
fn peak_rss_mib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_million_rows_stop_at_the_cap_and_leave_nothing_running() {
    let Some(url) = server_url() else { return };
    let test = Sandbox::new(&url, "test", FIXTURE_STATEMENTS).await;
    let db = test.adapter("mysql_big").await;
    let sql = checked(&db, TEN_MILLION_ROWS);

    let started = Instant::now();
    let result = db
        .query(&sql, &ExecOptions::default().with_max_rows(10_000))
        .await
        .unwrap();
    let elapsed = started.elapsed();
    assert_eq!(result.row_count, 10_000);
    assert_eq!(result.truncation, Some(Truncation::RowCap { cap: 10_000 }));
    let bytes: usize = result
        .batches
        .iter()
        .map(|b| b.get_array_memory_size())
        .sum();
    eprintln!(
        "10M-row query capped at 10k: {elapsed:?}, {} batches, {bytes} bytes of Arrow, \
         peak RSS {:?} MiB",
        result.batches.len(),
        peak_rss_mib()
    );
    test.assert_nothing_running().await;
    eprintln!("nothing running {:?} after the start", started.elapsed());

    // Dropping the stream after one batch stops the server too.
    let mut stream = db
        .execute(&sql, &ExecOptions::default().with_batch_size(1_000))
        .await
        .unwrap();
    let first = stream.next().await.unwrap().unwrap();
    assert_eq!(first.num_rows(), 1_000);
    drop(stream);
    test.assert_nothing_running().await;

    // The pool still serves queries afterwards.
    let again = db
        .query(
            &checked(&db, "SELECT COUNT(*) FROM nao_conformance"),
            &ExecOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(again.row_count, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeouts_and_cancellation_kill_the_server_query() {
    let Some(url) = server_url() else { return };
    let test = Sandbox::new(&url, "test", FIXTURE_STATEMENTS).await;
    let db = test.adapter("mysql_slow").await;
    let slow = checked(&db, &conformance::slow_sql());

    let options = ExecOptions::default().with_timeout(Duration::from_millis(300));
    let outcome = db.query(&slow, &options).await;
    assert!(
        matches!(outcome, Err(DialectError::Timeout { .. })),
        "{outcome:?}"
    );
    test.assert_nothing_running().await;

    // Streaming directly (no collect_capped deadline around it): the adapter's own deadline.
    let outcome = db.execute(&slow, &options).await;
    assert!(
        matches!(outcome, Err(DialectError::Timeout { .. })),
        "{outcome:?}"
    );
    test.assert_nothing_running().await;

    let cancel = CancellationToken::new();
    let options = ExecOptions::default()
        .with_timeout(Duration::from_secs(120))
        .with_cancel(cancel.clone());
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        cancel.cancel();
    });
    let outcome = db.execute(&slow, &options).await;
    canceller.await.unwrap();
    assert!(
        matches!(outcome, Err(DialectError::Cancelled { .. })),
        "{outcome:?}"
    );
    test.assert_nothing_running().await;

    // Cancelling mid-stream ends the stream with Cancelled.
    let cancel = CancellationToken::new();
    let options = ExecOptions::default()
        .with_batch_size(100)
        .with_max_rows(u64::MAX)
        .with_cancel(cancel.clone());
    let mut stream = db
        .execute(&checked(&db, TEN_MILLION_ROWS), &options)
        .await
        .unwrap();
    assert!(stream.next().await.unwrap().is_ok());
    cancel.cancel();
    let mut last = None;
    while let Some(item) = stream.next().await {
        last = Some(item);
    }
    assert!(
        matches!(last, Some(Err(DialectError::Cancelled { .. }))),
        "{last:?}"
    );
    test.assert_nothing_running().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_port_is_a_connection_error_and_passwords_never_show() {
    let password = "S3cretPassw0rd-nao";
    for url in [
        format!("mysql://nao_user:{password}@127.0.0.1:1/shop"),
        format!("mariadb://nao_user:{password}@127.0.0.1:1/shop"),
        format!("mysql://nao_user:{password}@127.0.0.1:1/shop?no_such_param=1"),
    ] {
        let outcome = nao_dialects::open("wrong_port", &url).await;
        let error = outcome.err().unwrap();
        let shown = format!("{error} {error:?}");
        assert!(!shown.contains(password), "the password leaked: {shown}");
        match MySqlDialect::connect("wrong_port", &url).await {
            Err(e @ DialectError::Connection { .. }) => {
                let shown = format!("{e} {e:?}");
                assert!(!shown.contains(password), "the password leaked: {shown}");
                if !url.contains("no_such_param") {
                    assert!(
                        shown.contains("127.0.0.1"),
                        "the error names the server: {shown}"
                    );
                }
            }
            other => panic!("a wrong port must be a connection error: {other:?}"),
        }
    }

    let Some(url) = server_url() else { return };
    let test = Sandbox::new(&url, "test", FIXTURE_STATEMENTS).await;
    // A wrong password: the server refuses the login.
    let wrong = test.ro_url().replace(&test.password, "not-the-password-42");
    let outcome = MySqlDialect::connect("wrong_password", &wrong).await;
    match &outcome {
        Err(e @ DialectError::Permission { code, .. }) => {
            assert_eq!(code.as_deref(), Some("1045"));
            let shown = format!("{e} {e:?}");
            assert!(!shown.contains("not-the-password-42"), "{shown}");
        }
        other => panic!("a wrong password must be a permission error: {other:?}"),
    }
    // A working adapter's Debug, and its errors, never show the password.
    let db = test.adapter("debug").await;
    let debug = format!("{db:?}");
    assert!(!debug.contains(&test.password), "{debug}");
    assert!(debug.contains(&test.user), "{debug}");
    let error = db
        .query(
            &checked(&db, "SELECT * FROM no_such_table"),
            &ExecOptions::default(),
        )
        .await
        .unwrap_err();
    let shown = format!("{error} {error:?}");
    assert!(!shown.contains(&test.password), "{shown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn required_tls_never_falls_back_to_clear_text() {
    let Some(url) = server_url() else { return };
    let test = Sandbox::new(&url, "test", FIXTURE_STATEMENTS).await;
    let mut root = test.root_conn().await;
    let have_ssl: Option<String> = root.query_first("SELECT @@have_ssl").await.unwrap_or(None);
    if have_ssl.as_deref() == Some("YES") {
        eprintln!("this server offers TLS: the clear-text refusal cannot be shown here");
        return;
    }
    // The server has no TLS: a URL that requires it must not connect at all, whether it asks
    // for TLS outright or names a CA to check the server against.
    let ca = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/unrelated-ca.pem"
    );
    for params in ["require_ssl=true".to_owned(), format!("ssl_ca={ca}")] {
        let error = MySqlDialect::connect("tls", &format!("{}?{params}", test.ro_url()))
            .await
            .map(|_| ())
            .unwrap_err();
        assert!(
            matches!(error, DialectError::Connection { .. }),
            "{params}: {error:?}"
        );
        let shown = format!("{error} {error:?}");
        assert!(!shown.contains(&test.password), "{shown}");
        assert!(
            shown.to_lowercase().contains("ssl") || shown.contains("TLS"),
            "{params}: {shown}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn introspection_reads_comments_views_and_types() {
    let Some(url) = server_url() else { return };
    let test = Sandbox::new(&url, "test", FIXTURE_STATEMENTS).await;
    let mut root = test.root_conn().await;
    root.query_drop(
        "CREATE TABLE orders (id BIGINT UNSIGNED NOT NULL COMMENT 'order number', \
         total DECIMAL(12,2) NULL, placed DATETIME(3)) COMMENT = 'one row per order'",
    )
    .await
    .unwrap();
    root.query_drop("CREATE VIEW big_orders AS SELECT id FROM orders WHERE total > 100")
        .await
        .unwrap();
    drop(root);
    let db = test.adapter("mysql_catalog").await;

    let tables = db.list_tables(&TableFilter::default()).await.unwrap();
    let names: Vec<&str> = tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["big_orders", "nao_conformance", "orders"]);
    let orders = tables.iter().find(|t| t.name == "orders").unwrap();
    assert_eq!(orders.kind, TableKind::Table);
    assert_eq!(orders.comment.as_deref(), Some("one row per order"));
    assert_eq!(orders.schema.as_deref(), Some(test.db.as_str()));
    let view = tables.iter().find(|t| t.name == "big_orders").unwrap();
    assert_eq!(view.kind, TableKind::View);
    assert_eq!(view.comment, None);

    let by_schema = db
        .list_tables(
            &TableFilter::default()
                .with_schema(test.db.to_uppercase())
                .with_pattern("ORD"),
        )
        .await
        .unwrap();
    let names: Vec<&str> = by_schema.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["big_orders", "orders"]);
    let elsewhere = db
        .list_tables(&TableFilter::default().with_schema("mysql"))
        .await
        .unwrap();
    assert!(
        elsewhere.is_empty(),
        "the read-only user sees no system tables: {elsewhere:?}"
    );

    let schema = db
        .describe_table(&TableRef::parse(&format!("{}.orders", test.db)))
        .await
        .unwrap();
    assert_eq!(schema.comment.as_deref(), Some("one row per order"));
    let columns = conformance::declared_columns(&schema);
    assert_eq!(
        columns,
        [
            ("id", "bigint(20) unsigned", false),
            ("total", "decimal(12,2)", true),
            ("placed", "datetime(3)", true)
        ]
    );
    assert_eq!(schema.columns[0].comment.as_deref(), Some("order number"));
    let missing = db.describe_table(&TableRef::parse("no_such_table")).await;
    assert!(
        matches!(missing, Err(DialectError::UnknownObject { .. })),
        "{missing:?}"
    );
    // The query result's types match what describe_table says.
    let sample = db
        .sample_rows(&TableRef::parse("orders"), 5, &ExecOptions::default())
        .await
        .unwrap();
    let types: Vec<DataType> = sample
        .schema
        .fields()
        .iter()
        .map(|f| f.data_type().clone())
        .collect();
    assert_eq!(
        types,
        [
            DataType::UInt64,
            DataType::Decimal128(12, 2),
            DataType::Timestamp(TimeUnit::Microsecond, None)
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_keep_the_server_code() {
    let Some(url) = server_url() else { return };
    let test = Sandbox::new(&url, "test", FIXTURE_STATEMENTS).await;
    let db = test.adapter("mysql_errors").await;
    conformance::errors_carry_kind_and_code(
        &db,
        &[
            ("SELECT * FROM no_such_table", "unknown_object", "1146"),
            (
                "SELECT no_such_column FROM nao_conformance",
                "unknown_object",
                "1054",
            ),
            // The server checks EXECUTE on a stored function before it looks for it.
            ("SELECT no_such_function(1)", "permission", "1370"),
            ("SELECT 1; SELECT 2", "syntax", "1064"),
            ("SELEC 1", "syntax", "1064"),
            ("SELECT * FROM mysql.user", "permission", "1142"),
        ],
    )
    .await;
    // A value the server cannot compute mid-stream is an engine error with its code.
    let error = db
        .query(
            &checked(&db, "SELECT CAST(18446744073709551615 AS UNSIGNED) + id AS overflow FROM nao_conformance"),
            &ExecOptions::default(),
        )
        .await
        .unwrap_err();
    assert_eq!(error.kind_code(), "engine", "{error}");
    assert_eq!(error.code(), Some("1690"), "{error}");
}

/// sqlparser's statement loop stops at the word `END` after a statement and drops the rest;
/// MariaDB reads `end` as a derived table's alias and runs the rest (a UNION reading any table
/// or calling any function). The guard reads every token now: refused; the engine shows the
/// class is real.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn end_after_a_statement_is_no_place_to_hide_sql() {
    let Some(url) = server_url() else { return };
    let test = Sandbox::new(&url, "test", FIXTURE_STATEMENTS).await;
    let db = test.adapter("mysql_ro").await;
    let sql = "SELECT id FROM (SELECT id FROM nao_conformance) end UNION SELECT version()";
    let refused = check(sql, db.sql_dialect(), &Policy::default()).unwrap_err();
    assert_eq!(refused.kind().code(), "parse", "{refused}");
    let ran = db
        .query(&unchecked(&db, sql), &ExecOptions::default())
        .await
        .unwrap();
    assert_eq!(
        ran.row_count, 4,
        "the engine ran the UNION the guard was not shown"
    );
}
