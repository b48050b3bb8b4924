//! The ClickHouse adapter against a real server (`NAO_TEST_CLICKHOUSE_URL`, a read-only user,
//! and `NAO_TEST_CLICKHOUSE_ADMIN_URL`, a user that may create databases; both printed by
//! `scripts/clickhouse/start.sh`): the conformance suite as the read-only user, exact Arrow
//! types of real columns, stopped statements that leave nothing running (`system.processes`),
//! error codes, and secrets kept out of errors.
//!
//! Without the variables each test says so and returns; with them, an unreachable server
//! fails. Each test makes its own database `nao_test_<random>` through the admin URL and drops
//! it when it ends, even when it fails.
#![cfg(feature = "clickhouse")]
#![allow(clippy::unwrap_used)] // Tests: a failed unwrap is a failed test.

use std::panic::AssertUnwindSafe;
use std::time::Duration;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ListArray};
use arrow_schema::{DataType, TimeUnit};
use futures_util::{FutureExt, StreamExt};
use nao_core::guard::{Policy, ReadOnlySql, check};
use nao_core::render::Truncation;
use nao_core::{Dialect, DialectError, DialectExt, ExecOptions, TableFilter, TableRef};
use nao_dialects::clickhouse::{ClickHouseConfig, ClickHouseDialect};
use nao_dialects::conformance::{self, Profile};
use tokio_util::sync::CancellationToken;

/// The two URLs, or `None` (saying so) when either is unset.
fn urls() -> Option<(String, String)> {
    let get = |var: &str| std::env::var(var).ok().filter(|u| !u.trim().is_empty());
    match (
        get("NAO_TEST_CLICKHOUSE_URL"),
        get("NAO_TEST_CLICKHOUSE_ADMIN_URL"),
    ) {
        (Some(reader), Some(admin)) => Some((reader, admin)),
        _ => {
            eprintln!(
                "NAO_TEST_CLICKHOUSE_URL and NAO_TEST_CLICKHOUSE_ADMIN_URL are not both set: \
                 skipping this test (run `eval \"$(scripts/clickhouse/start.sh)\"`)"
            );
            None
        }
    }
}

/// A random lowercase hex suffix.
fn unique() -> String {
    let mut bytes = [0_u8; 6];
    getrandom::fill(&mut bytes).unwrap();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A database of the test's own on the server, written through the admin user.
struct Sandbox {
    admin: ClickHouseConfig,
    reader_url: String,
    db: String,
    http: reqwest::Client,
}

impl Sandbox {
    async fn new(reader_url: &str, admin_url: &str) -> Sandbox {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let sandbox = Sandbox {
            admin: ClickHouseConfig::from_url(admin_url).unwrap(),
            reader_url: reader_url.to_owned(),
            db: format!("nao_test_{}", unique()),
            http: reqwest::Client::builder().no_proxy().build().unwrap(),
        };
        sandbox
            .admin(&format!("CREATE DATABASE {}", sandbox.db))
            .await;
        sandbox
    }

    /// Runs `sql` as the admin user (in the sandbox's database once it exists) and returns
    /// its body; a failure fails the test.
    async fn admin(&self, sql: &str) -> String {
        let scheme = if self.admin.tls { "https" } else { "http" };
        // 18.16 creates LowCardinality columns only with this (later servers ignore it).
        let url = format!(
            "{scheme}://{}:{}/?allow_experimental_low_cardinality_type=1",
            self.admin.host, self.admin.port
        );
        let response = self
            .http
            .post(url)
            .basic_auth(&self.admin.user, Some(&self.admin.password))
            .body(sql.to_owned())
            .send()
            .await
            .unwrap();
        let status = response.status();
        let body = response.text().await.unwrap();
        assert!(
            status.is_success(),
            "admin statement {sql:?} failed: {body}"
        );
        body
    }

    /// The read-only user's URL, on the sandbox's database.
    fn reader_url(&self) -> String {
        let base = self.reader_url.rsplit_once('/').unwrap().0;
        format!("{base}/{}", self.db)
    }

    async fn reader(&self, name: &str) -> ClickHouseDialect {
        ClickHouseDialect::open_url(name, &self.reader_url())
            .await
            .unwrap()
    }

    /// The queries running on the server whose text holds `marker` (the query asking is left
    /// out).
    async fn running(&self, marker: &str) -> Vec<String> {
        let body = self
            .admin(&format!(
                "SELECT query_id FROM system.processes WHERE query LIKE '%{marker}%' \
                 AND query NOT LIKE '%system.processes%' FORMAT TabSeparated"
            ))
            .await;
        body.lines().map(str::to_owned).collect()
    }

    /// Asserts that no query holding `marker` runs. A stopped statement's error reaches the
    /// reader at once while the adapter's `KILL QUERY … SYNC` is still on its way, so this
    /// waits for it a little; not longer than 1.5 s, because the server's own backstop
    /// (`max_execution_time`, the timeout plus two seconds) would end an unkilled query of a
    /// one-second timeout after three and hide a missing kill.
    async fn assert_nothing_running(&self, marker: &str) {
        let mut running = self.running(marker).await;
        for _ in 0..30 {
            if running.is_empty() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
            running = self.running(marker).await;
        }
        panic!("queries still running on the server: {running:?}");
    }

    /// Runs `body`, then drops the database whatever happened.
    async fn run(self, body: impl AsyncFnOnce(&Sandbox)) {
        let outcome = AssertUnwindSafe(body(&self)).catch_unwind().await;
        self.admin(&format!("DROP DATABASE IF EXISTS {}", self.db))
            .await;
        if let Err(panic) = outcome {
            std::panic::resume_unwind(panic);
        }
    }
}

fn checked(db: &dyn Dialect, sql: &str) -> ReadOnlySql {
    check(sql, db.sql_dialect(), &Policy::default())
        .unwrap_or_else(|e| panic!("the guard refused {sql:?}: {e}"))
}

/// The conformance fixture in ClickHouse's DDL (the suite's portable DDL has no engine).
async fn create_fixture(test: &Sandbox) {
    test.admin(&format!(
        "CREATE TABLE {}.nao_conformance (id Int32, name Nullable(String), \
         amount Nullable(Decimal(12, 2))) ENGINE = MergeTree ORDER BY id",
        test.db
    ))
    .await;
    test.admin(&format!(
        "INSERT INTO {}.nao_conformance (id, name, amount) VALUES \
         (1, 'alpha', 10.50), (2, 'beta', NULL), (3, NULL, -0.25)",
        test.db
    ))
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conformance_suite_as_the_read_only_user() {
    let Some((reader, admin)) = urls() else {
        return;
    };
    Sandbox::new(&reader, &admin)
        .await
        .run(async |test| {
            create_fixture(test).await;
            let db = test.reader("clickhouse").await;
            assert!(
                !db.sends_readonly(),
                "the reader's profile is read-only, so the adapter must not send readonly"
            );
            // The profile's cross join fails on 18.16's memory limit within a second (its
            // CROSS JOIN materialises): a streaming sum of a trillion numbers runs for an
            // hour in constant memory, and the server stops it itself after the statement's
            // timeout plus two seconds (max_execution_time).
            let marker = format!("nao_slow_{}", unique());
            let profile = Profile::table_function("numbers", "number").with_slow_sql(format!(
                "SELECT sum(number % 7) AS {marker} FROM numbers(1000000000000)"
            ));
            conformance::run_all_with(&db, &profile).await;
            conformance::errors_carry_kind_and_code(
                &db,
                &[
                    ("SELECT * FROM no_such_table", "unknown_object", "60"),
                    (
                        "SELECT no_such_column FROM nao_conformance",
                        "unknown_object",
                        "47",
                    ),
                    ("SELEC 1", "syntax", "62"),
                    (
                        "INSERT INTO nao_conformance (id) VALUES (9)",
                        "permission",
                        "164",
                    ),
                    ("SELECT no_such_function(1)", "unknown_object", "46"),
                ],
            )
            .await;
            // The suite's slow queries were stopped on the server too.
            test.assert_nothing_running(&marker).await;
        })
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_admin_user_is_made_read_only_per_statement() {
    let Some((reader, admin)) = urls() else {
        return;
    };
    Sandbox::new(&reader, &admin)
        .await
        .run(async |test| {
            create_fixture(test).await;
            let base = admin.rsplit_once('/').unwrap().0;
            let db = ClickHouseDialect::open_url("admin", &format!("{base}/{}", test.db))
                .await
                .unwrap();
            assert!(
                db.sends_readonly(),
                "a writing user gets readonly=2 on each statement"
            );
            let write = ReadOnlySql::new_unchecked_allowing_writes(
                "INSERT INTO nao_conformance (id) VALUES (9)",
                db.sql_dialect(),
            );
            let error = db.query(&write, &ExecOptions::default()).await.unwrap_err();
            assert_eq!(
                (error.kind_code(), error.code()),
                ("permission", Some("164")),
                "{error}"
            );
            let count = test
                .admin(&format!("SELECT count() FROM {}.nao_conformance", test.db))
                .await;
            assert_eq!(count.trim(), "3");
        })
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_columns_round_trip_into_exact_arrow_types() {
    let Some((reader, admin)) = urls() else {
        return;
    };
    Sandbox::new(&reader, &admin)
        .await
        .run(async |test| {
            test.admin(&format!(
                "CREATE TABLE {}.typed (\
                   i8 Int8, u64 UInt64, f32 Float32, f64 Float64, \
                   d Decimal(38, 10), d9 Decimal(9, 2), \
                   s String, fs FixedString(4), lc LowCardinality(String), \
                   day Date, ts DateTime, tokyo DateTime('Asia/Tokyo'), \
                   ns Nullable(String), ni Nullable(Int64), \
                   arr Array(Nullable(String)), nested Array(Array(UInt8)), \
                   tup Tuple(UInt8, String, Date), e Enum8('red' = 1, 'green' = 2), u UUID \
                 ) ENGINE = Memory",
                test.db
            ))
            .await;
            // Every TabSeparated escape in a String, a tab and a quote inside arrays, the
            // extremes of the integer types, and a decimal past f64's precision.
            test.admin(&format!(
                "INSERT INTO {}.typed VALUES \
                 (-128, 18446744073709551615, 0.5, -inf, \
                  1234567890123456789012345678.0123456789, -1234567.89, \
                  'tab\\tnl\\nbs\\\\nul\\0q\\'cr\\r', 'ab', 'low', \
                  '2020-02-29', '2020-01-01 00:00:00', '2020-01-01 09:00:00', \
                  NULL, 42, ['a\\tb', NULL, 'it''s'], [[1, 2], []], \
                  (7, 'x\\ty', '1999-12-31'), 'green', '01234567-89ab-cdef-0123-456789abcdef'), \
                 (127, 0, -0.25, nan, 0, 0, '', 'abcd', 'low', \
                  '1970-01-02', '1970-01-01 00:00:01', '1970-01-01 09:00:00', \
                  'x', NULL, [], [], (0, '', '1970-01-02'), 'red', \
                  '00000000-0000-0000-0000-000000000000')",
                test.db
            ))
            .await;
            let db = test.reader("typed").await;
            let sql = checked(&db, "SELECT * FROM typed ORDER BY i8");
            let result = db.query(&sql, &ExecOptions::default()).await.unwrap();
            assert_eq!(result.row_count, 2);
            // Two rows: one batch.
            assert_eq!(result.batches.len(), 1);
            let batch = result.batches[0].clone();
            let schema = batch.schema();
            let types: Vec<&DataType> = schema.fields().iter().map(|f| f.data_type()).collect();
            assert_eq!(types[0], &DataType::Int8);
            assert_eq!(types[1], &DataType::UInt64);
            assert_eq!(types[4], &DataType::Decimal128(38, 10));
            assert_eq!(types[7], &DataType::FixedSizeBinary(4));
            assert_eq!(
                types[8],
                &DataType::Utf8,
                "LowCardinality(String) is its strings"
            );
            assert_eq!(types[9], &DataType::Date32);
            assert_eq!(
                types[10],
                &DataType::Timestamp(TimeUnit::Second, Some(db.time_zone().into()))
            );
            assert_eq!(
                types[11],
                &DataType::Timestamp(TimeUnit::Second, Some("Asia/Tokyo".into()))
            );
            assert!(!schema.field(0).is_nullable() && schema.field(12).is_nullable());
            assert_eq!(types[18], &DataType::Utf8, "Enum8 as its names");

            assert_eq!(
                batch.column(0).as_primitive::<Int8Type>().values(),
                &[-128, 127]
            );
            assert_eq!(
                batch.column(1).as_primitive::<UInt64Type>().value(0),
                u64::MAX
            );
            assert_eq!(
                batch.column(2).as_primitive::<Float32Type>().value(1),
                -0.25
            );
            assert_eq!(
                batch.column(3).as_primitive::<Float64Type>().value(0),
                f64::NEG_INFINITY
            );
            assert!(
                batch
                    .column(3)
                    .as_primitive::<Float64Type>()
                    .value(1)
                    .is_nan()
            );
            assert_eq!(
                batch.column(4).as_primitive::<Decimal128Type>().value(0),
                12_345_678_901_234_567_890_123_456_780_123_456_789
            );
            assert_eq!(
                batch.column(5).as_primitive::<Decimal128Type>().value(0),
                -123_456_789
            );
            assert_eq!(
                batch.column(6).as_string::<i32>().value(0),
                "tab\tnl\nbs\\nul\0q'cr\r"
            );
            assert_eq!(batch.column(7).as_fixed_size_binary().value(0), b"ab\0\0");
            assert_eq!(
                batch.column(9).as_primitive::<Date32Type>().values(),
                &[18_321, 1]
            );
            // Both timestamps are the same instants, whatever zone wrote them.
            let utc = batch.column(10).as_primitive::<TimestampSecondType>();
            let tokyo = batch.column(11).as_primitive::<TimestampSecondType>();
            assert_eq!(utc.values(), &[1_577_836_800, 1]);
            assert_eq!(tokyo.values(), &[1_577_836_800, 0]);
            assert!(batch.column(12).is_null(0) && batch.column(13).is_null(1));
            assert_eq!(batch.column(13).as_primitive::<Int64Type>().value(0), 42);
            let arr = batch
                .column(14)
                .as_any()
                .downcast_ref::<ListArray>()
                .unwrap();
            let first = arr.value(0);
            let first = first.as_string::<i32>();
            assert_eq!(
                (first.value(0), first.is_null(1), first.value(2)),
                ("a\tb", true, "it's")
            );
            assert_eq!(arr.value(1).len(), 0);
            let nested = batch.column(15).as_list::<i32>();
            assert_eq!(
                nested
                    .value(0)
                    .as_list::<i32>()
                    .value(0)
                    .as_primitive::<UInt8Type>()
                    .values(),
                &[1, 2]
            );
            let tup = batch.column(16).as_struct();
            assert_eq!(tup.column(1).as_string::<i32>().value(0), "x\ty");
            assert_eq!(tup.column(2).as_primitive::<Date32Type>().value(0), 10_956);
            assert_eq!(batch.column(17).as_string::<i32>().value(0), "green");
            assert_eq!(
                batch.column(18).as_string::<i32>().value(0),
                "01234567-89ab-cdef-0123-456789abcdef"
            );

            // The catalogue: engine types, nullability from Nullable(…), the table listed.
            let described = db.describe_table(&TableRef::parse("typed")).await.unwrap();
            let ns = described.columns.iter().find(|c| c.name == "ns").unwrap();
            assert_eq!(
                (ns.engine_type.as_str(), ns.nullable),
                ("Nullable(String)", true)
            );
            let tokyo = described
                .columns
                .iter()
                .find(|c| c.name == "tokyo")
                .unwrap();
            assert_eq!(
                (tokyo.engine_type.as_str(), tokyo.nullable),
                ("DateTime('Asia/Tokyo')", false)
            );
            let listed = db
                .list_tables(
                    &TableFilter::default()
                        .with_schema(test.db.clone())
                        .with_pattern("TYP"),
                )
                .await
                .unwrap();
            assert_eq!(listed.len(), 1, "{listed:?}");
            assert_eq!(listed[0].schema.as_deref(), Some(test.db.as_str()));
        })
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopped_statements_leave_nothing_running() {
    let Some((reader, admin)) = urls() else {
        return;
    };
    Sandbox::new(&reader, &admin)
        .await
        .run(async |test| {
            let db = test.reader("stops").await;
            let marker = format!("nao_slow_{}", unique());
            // An hour of work before the first row, in constant memory; a server that goes
            // on with a query whose client left (18.16 does) would still run it.
            let slow = checked(
                &db,
                &format!("SELECT sum(number % 7) AS {marker} FROM numbers(1000000000000)"),
            );

            // The timeout.
            let options = ExecOptions::default().with_timeout(Duration::from_secs(1));
            let outcome = db.query(&slow, &options).await;
            assert!(
                matches!(outcome, Err(DialectError::Timeout { .. })),
                "{outcome:?}"
            );
            test.assert_nothing_running(&marker).await;

            // The caller's cancellation, once the query runs on the server.
            let cancel = CancellationToken::new();
            let options = ExecOptions::default().with_cancel(cancel.clone());
            let running = tokio::spawn({
                let db = test.reader("stops-cancel").await;
                let slow = slow.clone();
                async move { db.query(&slow, &options).await }
            });
            while test.running(&marker).await.is_empty() {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            cancel.cancel();
            let outcome = running.await.unwrap();
            assert!(
                matches!(outcome, Err(DialectError::Cancelled { .. })),
                "{outcome:?}"
            );
            test.assert_nothing_running(&marker).await;

            // The row cap on an endless result: cut, and the query stopped on the server.
            let endless = checked(
                &db,
                &format!("SELECT number AS {marker} FROM system.numbers"),
            );
            let capped = db
                .query(&endless, &ExecOptions::default().with_max_rows(10))
                .await
                .unwrap();
            assert_eq!(capped.row_count, 10);
            assert_eq!(capped.truncation, Some(Truncation::RowCap { cap: 10 }));
            test.assert_nothing_running(&marker).await;

            // The byte cap on the same.
            let bytes = db
                .query(
                    &endless,
                    &ExecOptions::default()
                        .with_max_rows(u64::MAX - 1)
                        .with_max_bytes(1 << 20),
                )
                .await
                .unwrap();
            assert!(
                matches!(bytes.truncation, Some(Truncation::ByteCap { .. })),
                "{:?}",
                bytes.truncation
            );
            test.assert_nothing_running(&marker).await;

            // A stream dropped after its first batch.
            let mut stream = db
                .execute(&endless, &ExecOptions::default().with_batch_size(100))
                .await
                .unwrap();
            assert!(stream.next().await.unwrap().is_ok());
            drop(stream);
            test.assert_nothing_running(&marker).await;
        })
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_stay_out_of_errors_and_debug_output() {
    let Some((reader, _admin)) = urls() else {
        return;
    };
    let config = ClickHouseConfig::from_url(&reader).unwrap();
    let wrong = format!(
        "clickhouse://{}:{}@{}:{}/default",
        config.user, "not-the-password-4711", config.host, config.port
    );
    let error = ClickHouseDialect::open_url("wrong", &wrong)
        .await
        .unwrap_err();
    assert!(
        matches!(error, DialectError::Connection { .. }),
        "{error:?}"
    );
    let text = format!("{error} {error:?}");
    assert!(!text.contains("not-the-password-4711"), "{text}");
    let db = ClickHouseDialect::open_url("right", &reader).await.unwrap();
    let debug = format!("{db:?}");
    assert!(
        !config.password.is_empty() && !debug.contains(&config.password),
        "{debug}"
    );
    let refused = ClickHouseDialect::open_url("closed", "clickhouse://u:hunter2@127.0.0.1:1/")
        .await
        .unwrap_err();
    assert!(matches!(refused, DialectError::Connection { .. }));
    assert!(!format!("{refused} {refused:?}").contains("hunter2"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_error_after_rows_is_the_servers_error() {
    let Some((reader, admin)) = urls() else {
        return;
    };
    Sandbox::new(&reader, &admin)
        .await
        .run(async |test| {
            let db = test.reader("late-error").await;
            // The server sends 262 144 rows with status 200, then fails (throwIf, code 395)
            // and writes its error after them.
            let sql = ReadOnlySql::new_unchecked_allowing_writes(
                "SELECT number, throwIf(number = 300000) AS t FROM numbers(400000)",
                db.sql_dialect(),
            );
            let options = ExecOptions::default()
                .with_max_rows(1_000_000)
                .with_max_bytes(1 << 30);
            let mut stream = db.execute(&sql, &options).await.unwrap();
            let mut rows = 0;
            let mut failure = None;
            while let Some(batch) = stream.next().await {
                match batch {
                    Ok(batch) => rows += batch.num_rows(),
                    Err(error) => failure = Some(error),
                }
            }
            let error = failure.expect("the server's error ends the stream");
            assert_eq!(
                (error.kind_code(), error.code()),
                ("engine", Some("395")),
                "{error}"
            );
            assert!(error.to_string().contains("throwIf"), "{error}");
            assert!(
                rows > 0 && rows < 300_000,
                "{rows} rows came before the error"
            );
        })
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_that_may_set_nothing_is_capped_and_stopped_by_the_adapter() {
    let Some((reader, admin)) = urls() else {
        return;
    };
    let Some(strict) = std::env::var("NAO_TEST_CLICKHOUSE_STRICT_URL")
        .ok()
        .filter(|u| !u.trim().is_empty())
    else {
        eprintln!("NAO_TEST_CLICKHOUSE_STRICT_URL is not set: skipping this test");
        return;
    };
    Sandbox::new(&reader, &admin)
        .await
        .run(async |test| {
            create_fixture(test).await;
            let base = strict.rsplit_once('/').unwrap().0;
            let db = ClickHouseDialect::open_url("strict", &format!("{base}/{}", test.db))
                .await
                .unwrap();
            // readonly=1 refuses every setting: none is sent, so statements run at all.
            assert!(!db.sends_readonly() && !db.sends_limits() && !db.reads_arrow());
            conformance::reads_the_fixture(&db, &Profile::portable()).await;
            conformance::errors_are_classified(&db).await;
            let marker = format!("nao_slow_{}", unique());
            // Table functions are refused in readonly=1, system.numbers is not.
            let endless = checked(
                &db,
                &format!("SELECT number AS {marker} FROM system.numbers"),
            );
            let capped = db
                .query(&endless, &ExecOptions::default().with_max_rows(10))
                .await
                .unwrap();
            assert_eq!(capped.truncation, Some(Truncation::RowCap { cap: 10 }));
            test.assert_nothing_running(&marker).await;
            let slow = checked(
                &db,
                &format!(
                    "SELECT sum(number % 7) AS {marker} FROM \
                     (SELECT number FROM system.numbers LIMIT 1000000000000)"
                ),
            );
            let options = ExecOptions::default().with_timeout(Duration::from_secs(1));
            let outcome = db.query(&slow, &options).await;
            assert!(
                matches!(outcome, Err(DialectError::Timeout { .. })),
                "{outcome:?}"
            );
            // No max_execution_time backs the adapter up here: only its KILL QUERY stops it.
            test.assert_nothing_running(&marker).await;
            let write = ReadOnlySql::new_unchecked_allowing_writes(
                "INSERT INTO nao_conformance (id) VALUES (9)",
                db.sql_dialect(),
            );
            let error = db.query(&write, &ExecOptions::default()).await.unwrap_err();
            assert_eq!(error.code(), Some("164"), "{error}");
        })
        .await;
}
