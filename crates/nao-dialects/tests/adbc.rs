//! The ADBC adapter through the Apache Arrow ADBC drivers that `scripts/adbc/fetch-drivers.sh`
//! fetches (`NAO_ADBC_DRIVER_DIR`): the conformance suite through the PostgreSQL driver on
//! `NAO_TEST_POSTGRES_URL` (a sandbox schema and a least-privilege read-only role of the
//! test's own) and through the SQLite driver on a fixture file, and through the Flight SQL
//! driver on Sail and roapi (`NAO_TEST_FLIGHT_SQL_URL`, `NAO_TEST_ROAPI_FLIGHT_SQL_URL`, as
//! `scripts/engines/start.sh` prints them); the Snowflake and BigQuery drivers load, take every
//! option the URL maps, and fail to connect with a clear error.
//!
//! Without `NAO_ADBC_DRIVER_DIR` (or the server's variable) the tests say so and pass.
#![cfg(feature = "adbc")]
#![allow(clippy::unwrap_used, clippy::print_stderr)]

mod support;

use std::time::Duration;

use nao_core::guard::{ReadOnlySql, SqlDialect};
use nao_core::{Dialect, DialectError, DialectExt, ExecOptions};
use nao_dialects::adbc::{AdbcConfig, AdbcDialect};
use nao_dialects::conformance::{self, DecimalForm, FIXTURE_STATEMENTS, Profile};

/// The drivers' folder, or `None` (saying so) when the tests skip.
fn driver_dir() -> Option<String> {
    let dir = std::env::var("NAO_ADBC_DRIVER_DIR")
        .ok()
        .filter(|d| !d.trim().is_empty());
    if dir.is_none() {
        eprintln!(
            "NAO_ADBC_DRIVER_DIR is not set: skipping this test \
             (eval \"$(scripts/adbc/fetch-drivers.sh)\" sets it)"
        );
    }
    dir
}

#[cfg(feature = "postgres")]
mod postgres {
    use super::*;
    use crate::support::postgres::{READER, Sandbox, server_url};

    async fn sandbox(label: &str) -> Option<Sandbox> {
        driver_dir()?;
        let url = server_url()?;
        let sandbox = Sandbox::new(&url, label, READER).await;
        for statement in FIXTURE_STATEMENTS {
            sandbox.admin(statement).await;
        }
        Some(sandbox)
    }

    fn adbc_url(sandbox: &Sandbox) -> String {
        format!("adbc:{}", sandbox.url_as(&sandbox.role, ""))
    }

    /// The driver returns NUMERIC as its exact text (`Utf8`) and says so in the field's
    /// metadata (`ADBC:postgresql:typname` = `numeric`); the adapter passes it on unconverted.
    async fn numeric_says_its_type(dialect: &AdbcDialect) {
        let sql = nao_core::guard::check(
            "SELECT amount FROM nao_conformance",
            dialect.sql_dialect(),
            &nao_core::guard::Policy::default(),
        )
        .unwrap();
        let result = dialect.query(&sql, &ExecOptions::default()).await.unwrap();
        let field = result.schema.field(0);
        assert_eq!(
            field
                .metadata()
                .get("ADBC:postgresql:typname")
                .map(String::as_str),
            Some("numeric"),
            "{field:?}"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn conformance_through_the_postgresql_driver() {
        let Some(sandbox) = sandbox("adbc_conf").await else {
            return;
        };
        let pg = AdbcDialect::open_url("adbc_pg", &adbc_url(&sandbox))
            .await
            .unwrap();
        assert_eq!(pg.sql_dialect(), SqlDialect::Postgres, "{:?}", pg.info());
        numeric_says_its_type(&pg).await;
        let profile = Profile::portable().with_decimal_form(DecimalForm::ExactText);
        conformance::run_all_with(&pg, &profile).await;
    }

    /// Attribute notation (PostgreSQL runs `c.touch` as `touch(c)` when `c` has no column
    /// `touch`) is refused unless the catalogue proves the name a column, as the native adapter
    /// does; through ADBC the adapter's own catalogue is the proof.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn attribute_calls_are_refused_unless_proven_columns() {
        let Some(sandbox) = sandbox("adbc_attr").await else {
            return;
        };
        let schema = &sandbox.schema;
        sandbox
            .admin(&format!(
                "CREATE FUNCTION {schema}.touch(r {schema}.nao_conformance) RETURNS text \
                 LANGUAGE sql AS $$ SELECT 'called' $$"
            ))
            .await;
        // The class is real: the server runs the notation as a call.
        let called: String = sandbox
            .admin
            .query_one(
                &format!("SELECT c.touch FROM {schema}.nao_conformance c LIMIT 1"),
                &[],
            )
            .await
            .unwrap()
            .get(0);
        assert_eq!(called, "called");
        let pg = AdbcDialect::open_url("adbc_attr", &adbc_url(&sandbox))
            .await
            .unwrap();
        let call = checked(&pg, "SELECT c.touch FROM nao_conformance c");
        assert!(!call.attribute_refs().is_empty(), "the guard lists c.touch");
        let error = pg.query(&call, &ExecOptions::default()).await.unwrap_err();
        assert_eq!(error.kind_code(), "permission", "{error}");
        assert!(error.to_string().contains("touch"), "{error}");
        // A relation the guard cannot name: refused because a function `touch` exists...
        let hidden = checked(&pg, "SELECT x.touch FROM (SELECT * FROM nao_conformance) x");
        let error = pg
            .query(&hidden, &ExecOptions::default())
            .await
            .unwrap_err();
        assert_eq!(error.kind_code(), "permission", "{error}");
        // ...while names that are columns, or that no function has, run (as the native adapter
        // decides: `x.name` there is refused too, since pg_catalog has a function `name`).
        let column = checked(&pg, "SELECT c.name FROM nao_conformance c");
        let rows = pg.query(&column, &ExecOptions::default()).await.unwrap();
        assert_eq!(rows.row_count, 3);
        let derived = checked(
            &pg,
            "SELECT x.amount FROM (SELECT * FROM nao_conformance) x",
        );
        let rows = pg.query(&derived, &ExecOptions::default()).await.unwrap();
        assert_eq!(rows.row_count, 3);
    }

    /// Statements of the role that the server is still running.
    async fn active(sandbox: &Sandbox) -> i64 {
        sandbox
            .admin
            .query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE usename = $1 AND state = 'active'",
                &[&sandbox.role],
            )
            .await
            .unwrap()
            .get(0)
    }

    /// Waits (five seconds at most) for the role to run nothing; what is still running.
    async fn settled(sandbox: &Sandbox) -> i64 {
        for _ in 0..100 {
            if active(sandbox).await == 0 {
                return 0;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        active(sandbox).await
    }

    fn checked(pg: &AdbcDialect, sql: &str) -> ReadOnlySql {
        nao_core::guard::check(sql, pg.sql_dialect(), &nao_core::guard::Policy::default()).unwrap()
    }

    /// `AdbcStatementCancel` from the watcher ends the query on the server, for a timeout, a
    /// cancelled token and a result cut at the row cap alike.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn stopped_statements_stop_on_the_server() {
        let Some(sandbox) = sandbox("adbc_stop").await else {
            return;
        };
        let pg = AdbcDialect::open_url("adbc_pg", &adbc_url(&sandbox))
            .await
            .unwrap();
        let slow = checked(&pg, &conformance::slow_sql());

        let timed_out = pg
            .query(
                &slow,
                &ExecOptions::default().with_timeout(Duration::from_millis(500)),
            )
            .await;
        assert!(
            matches!(timed_out, Err(DialectError::Timeout { .. })),
            "{timed_out:?}"
        );
        assert_eq!(settled(&sandbox).await, 0, "the timed-out query still runs");

        let cancel = tokio_util::sync::CancellationToken::new();
        let options = ExecOptions::default().with_cancel(cancel.clone());
        let running = tokio::spawn({
            let slow = slow.clone();
            let pg = AdbcDialect::open_url("adbc_pg2", &adbc_url(&sandbox))
                .await
                .unwrap();
            async move { pg.query(&slow, &options).await.map(|r| r.row_count) }
        });
        // Cancel once the server runs it (the new connection's session setup comes first: up
        // to ten seconds on a loaded machine; two were not always enough in CI).
        for _ in 0..500 {
            if active(&sandbox).await > 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(active(&sandbox).await, 1, "the slow query runs");
        cancel.cancel();
        let cancelled = running.await.unwrap();
        assert!(
            matches!(cancelled, Err(DialectError::Cancelled { .. })),
            "{cancelled:?}"
        );
        assert_eq!(settled(&sandbox).await, 0, "the cancelled query still runs");

        let many = checked(&pg, &conformance::million_rows_sql());
        let capped = pg
            .query(&many, &ExecOptions::default().with_max_rows(10))
            .await
            .unwrap();
        assert_eq!(capped.row_count, 10);
        assert_eq!(settled(&sandbox).await, 0, "the capped query still runs");
        // The connections serve the next statement.
        let again = checked(&pg, "SELECT count(*) AS n FROM nao_conformance");
        assert_eq!(
            pg.query(&again, &ExecOptions::default())
                .await
                .unwrap()
                .row_count,
            1
        );
    }

    /// The driver's SQLSTATEs become kinds and codes; the session refuses writes itself.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn errors_keep_their_sqlstate() {
        let Some(sandbox) = sandbox("adbc_errors").await else {
            return;
        };
        let pg = AdbcDialect::open_url("adbc_pg", &adbc_url(&sandbox))
            .await
            .unwrap();
        conformance::errors_carry_kind_and_code(
            &pg,
            &[
                (
                    "INSERT INTO nao_conformance (id) VALUES (9)",
                    "permission",
                    "25006",
                ),
                (
                    "CREATE TABLE nao_adbc_created (x int)",
                    "permission",
                    "25006",
                ),
                ("SELECT * FROM no_such_table", "unknown_object", "42P01"),
                (
                    "SELECT no_such_column FROM nao_conformance",
                    "unknown_object",
                    "42703",
                ),
                ("SELEC 1", "syntax", "42601"),
            ],
        )
        .await;
        // The read-only session refusing a write is the guard's and the engine's readings
        // disagreeing (here through the escape hatch); a missing grant is not.
        let write = ReadOnlySql::new_unchecked_allowing_writes(
            "INSERT INTO nao_conformance (id) VALUES (9)",
            pg.sql_dialect(),
        );
        let refused = pg.query(&write, &ExecOptions::default()).await.unwrap_err();
        assert!(pg.refused_as_writing(&refused), "{refused:?}");
        // (pg_authid is refused by the guard's sensitive catalogue, so through the hatch too.)
        let ungranted =
            ReadOnlySql::new_unchecked_allowing_writes("SELECT * FROM pg_authid", pg.sql_dialect());
        let denied = pg.query(&ungranted, &ExecOptions::default()).await;
        match denied {
            Err(e) => assert!(!pg.refused_as_writing(&e), "{e:?}"),
            Ok(result) => panic!("a least-privilege role read pg_authid: {result:?}"),
        }
    }

    /// An unqualified name is described from the schema the login's queries read it from. The
    /// driver lists every schema's tables (pg_class is readable by all), here another schema's
    /// `nao_conformance` listed first, which the login may not use: the adapter resolves the
    /// name along the search path among the schemas the login may use, and lists only those.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn unqualified_names_resolve_along_the_search_path() {
        let Some(sandbox) = sandbox("adbc_path").await else {
            return;
        };
        // Sorts before the sandbox's schema (`nao_test_adbc_path_…`).
        let other = format!("nao_test_a_{}", sandbox.suffix);
        sandbox
            .admin(&format!(
                "CREATE SCHEMA {other}; CREATE TABLE {other}.nao_conformance (hidden_col int)"
            ))
            .await;
        let pg = AdbcDialect::open_url("adbc_path", &adbc_url(&sandbox))
            .await
            .unwrap();
        let described = pg
            .describe_table(&nao_core::TableRef::parse("nao_conformance"))
            .await;
        let listed = pg.list_tables(&nao_core::TableFilter::default()).await;
        sandbox.admin(&format!("DROP SCHEMA {other} CASCADE")).await;
        let described = described.unwrap();
        assert_eq!(
            described.table.schema.as_deref(),
            Some(sandbox.schema.as_str())
        );
        let names: Vec<&str> = described.columns.iter().map(|c| c.name.as_str()).collect();
        assert!(!names.contains(&"hidden_col"), "{names:?}");
        assert!(names.contains(&"amount"), "{names:?}");
        let listed = listed.unwrap();
        let schemas: Vec<Option<&str>> = listed
            .iter()
            .map(|t| t.schema.as_deref())
            .filter(|s| s.is_some_and(|s| s.starts_with("nao_test_")))
            .collect();
        assert!(
            schemas.iter().all(|s| *s == Some(sandbox.schema.as_str())),
            "{schemas:?}"
        );
    }

    /// Column comments come from the driver's `remarks`; types from its type names.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn columns_carry_comments_and_types() {
        let Some(sandbox) = sandbox("adbc_comments").await else {
            return;
        };
        sandbox
            .admin("COMMENT ON COLUMN nao_conformance.name IS 'who bought it'")
            .await;
        let pg = AdbcDialect::open_url("adbc_pg", &adbc_url(&sandbox))
            .await
            .unwrap();
        let schema = pg
            .describe_table(&nao_core::TableRef::parse("nao_conformance"))
            .await
            .unwrap();
        let columns: Vec<(&str, &str, bool, Option<&str>)> = schema
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
                ("id", "int4", false, None),
                ("name", "varchar", true, Some("who bought it")),
                ("amount", "numeric", true, None),
            ]
        );
        assert_eq!(
            schema.table.schema.as_deref(),
            Some(sandbox.schema.as_str())
        );
    }

    /// A server that is not there is a connection error naming the driver and the endpoint,
    /// without the URL's password.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_unreachable_server_is_a_clear_error() {
        if driver_dir().is_none() {
            return;
        }
        let url = "adbc:postgresql://nao:pg-secret-321@127.0.0.1:9/test?connect_timeout=5";
        let config = AdbcConfig::from_url(url).unwrap();
        super::unreachable(&config, "127.0.0.1:9", &["pg-secret-321"]).await;
    }
}

/// A SQLite file holding the conformance fixture, written through rusqlite.
fn sqlite_fixture(dir: &support::temp_dir::TestDir) -> std::path::PathBuf {
    let path = dir.path("fixture.db");
    let connection = nao_dialects::sqlite::rusqlite::Connection::open(&path).unwrap();
    for statement in FIXTURE_STATEMENTS {
        connection.execute_batch(statement).unwrap();
    }
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conformance_through_the_sqlite_driver() {
    if driver_dir().is_none() {
        return;
    }
    let dir = support::temp_dir::TestDir::new("adbc-sqlite");
    let path = sqlite_fixture(&dir);
    let before = dir.snapshot();
    let lite = AdbcDialect::open_url("adbc_sqlite", &format!("adbc:sqlite:{}", path.display()))
        .await
        .unwrap();
    assert_eq!(lite.sql_dialect(), SqlDialect::Sqlite, "{:?}", lite.info());
    let profile = sqlite_profile().with_decimal_form(DecimalForm::Float);
    conformance::run_all_with(&lite, &profile).await;
    assert_eq!(dir.snapshot(), before, "the file is unchanged");
}

/// `set_role` is PostgreSQL's `SET ROLE`: on a vendor without it the adapter refuses to open
/// rather than ignore a role the host meant statements to run as.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_role_on_a_vendor_without_roles_is_refused() {
    if driver_dir().is_none() {
        return;
    }
    let dir = support::temp_dir::TestDir::new("adbc-sqlite-role");
    let path = sqlite_fixture(&dir);
    let url = format!("adbc:sqlite:{}?set_role=nao_reader", path.display());
    let error = AdbcDialect::open_url("adbc_sqlite", &url)
        .await
        .unwrap_err();
    assert!(
        matches!(error, DialectError::Connection { .. })
            && error.to_string().contains("set_role is for PostgreSQL"),
        "{error:?}"
    );
}

/// The SQLite driver (1.13) answers `AdbcStatementCancel` with NotImplemented: a stopped
/// statement runs on its thread until SQLite is done with it. The suite's slow query (ten
/// billion steps) would outlive the test, so SQLite's counts to thirty million (seconds).
fn sqlite_profile() -> Profile {
    Profile::portable().with_slow_sql(SQLITE_SLOW_SQL)
}

const SQLITE_SLOW_SQL: &str = "WITH RECURSIVE series(n) AS (SELECT 1 UNION ALL SELECT n + 1 \
     FROM series WHERE n < 30000000) SELECT count(*) FROM series";

/// On a driver that cannot cancel, the caller still hears of the timeout at once, and the
/// connection comes back (for the next statement) when the engine has finished the stopped one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_driver_without_cancel_gives_the_connection_back_when_done() {
    if driver_dir().is_none() {
        return;
    }
    let dir = support::temp_dir::TestDir::new("adbc-sqlite-nocancel");
    let path = sqlite_fixture(&dir);
    let url = format!("adbc:sqlite:{}?pool=1", path.display());
    let lite = AdbcDialect::open_url("adbc_sqlite", &url).await.unwrap();
    let slow = ReadOnlySql::new_unchecked_allowing_writes(SQLITE_SLOW_SQL, lite.sql_dialect());
    let stopped = lite
        .query(
            &slow,
            &ExecOptions::default().with_timeout(Duration::from_millis(200)),
        )
        .await;
    assert!(
        matches!(stopped, Err(DialectError::Timeout { .. })),
        "{stopped:?}"
    );
    // The only connection is busy with the stopped statement until SQLite finishes it.
    let quick = ReadOnlySql::new_unchecked_allowing_writes("SELECT 1 AS one", lite.sql_dialect());
    let waited = lite
        .query(
            &quick,
            &ExecOptions::default().with_timeout(Duration::from_secs(120)),
        )
        .await
        .unwrap();
    assert_eq!(waited.row_count, 1);
}

/// Every option of `config` as the driver reads it back (`AdbcDatabaseGetOption`), after
/// the adapter loaded the driver and set them up (no connection: no server is reached).
/// Secrets are not read back: the BigQuery driver (1.11) panics returning a long option
/// value (a service account key) and, being Go, stays poisoned for the whole process.
fn options_reach_the_driver(config: &AdbcConfig) {
    use nao_dialects::adbc::api::Optionable;
    use nao_dialects::adbc::api::options::OptionDatabase;
    let (_driver, database) = config.open_database("offline").unwrap();
    for (key, value) in config.database_options() {
        if config.shown_option(key).as_deref() == Some("***") {
            continue;
        }
        let read = database.get_option_string(OptionDatabase::from(key.as_str()));
        match (config.driver.as_str(), key.as_str()) {
            // The Snowflake driver reads auth types and durations back in its own spelling.
            ("snowflake", "adbc.snowflake.sql.auth_type") => {
                assert_eq!(read.unwrap(), "SNOWFLAKE", "{key}");
            }
            ("snowflake", "adbc.snowflake.sql.client_option.login_timeout") => {
                assert_eq!(read.unwrap(), "5", "{key}");
            }
            _ => assert_eq!(read.as_ref().ok(), Some(value), "{}: {key}", config.driver),
        }
    }
}

/// Opening fails as a connection error that names the driver and the endpoint and repeats
/// none of `secrets`.
async fn unreachable(config: &AdbcConfig, endpoint: &str, secrets: &[&str]) {
    let opened = tokio::time::timeout(
        Duration::from_secs(120),
        AdbcDialect::connect("cloud", config),
    )
    .await
    .expect("a failed connection must not hang");
    let error = match opened {
        Err(error @ DialectError::Connection { .. }) => error,
        other => panic!(
            "{}: expected a connection error, got {other:?}",
            config.driver
        ),
    };
    let text = format!("{error} {error:?}");
    assert!(
        text.contains(&format!("ADBC driver {}", config.driver)),
        "{text}"
    );
    assert!(text.contains(endpoint), "{text}");
    for secret in secrets {
        assert!(!text.contains(secret), "{secret} leaked: {text}");
    }
    eprintln!("{}: {error}", config.driver);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn snowflake_driver_takes_the_mapped_options_and_fails_clearly_offline() {
    if driver_dir().is_none() {
        return;
    }
    let config = AdbcConfig::from_url(
        "adbc:snowflake://NAO_READER:sf-secret-123@nao-test-account/SHOP/PUBLIC\
         ?warehouse=NAO_WH&role=NAO_READER_ROLE&auth_type=auth_snowflake\
         &option.adbc.snowflake.sql.client_option.login_timeout=5s",
    )
    .unwrap();
    assert!(!format!("{config:?}").contains("sf-secret-123"));
    options_reach_the_driver(&config);
    unreachable(&config, "nao-test-account", &["sf-secret-123"]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bigquery_driver_takes_the_mapped_options_and_fails_clearly_offline() {
    if driver_dir().is_none() {
        return;
    }
    let key = r#"{"type":"service_account","project_id":"nao-test-project","private_key_id":"k1","private_key":"bq-secret-456","client_email":"nao@nao-test-project.iam.gserviceaccount.com","token_uri":"http://127.0.0.1:9/token"}"#;
    let url = format!(
        "adbc:bigquery://nao-test-project/sales?location=EU&credentials_json={}",
        url_encode(key)
    );
    let config = AdbcConfig::from_url(&url).unwrap();
    assert!(!format!("{config:?}").contains("bq-secret-456"));
    options_reach_the_driver(&config);
    unreachable(&config, "nao-test-project", &["bq-secret-456", key]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flight_sql_driver_fails_clearly_without_a_server() {
    if driver_dir().is_none() {
        return;
    }
    let config = AdbcConfig::from_url("adbc:flightsql://nao:fs-secret-789@127.0.0.1:9").unwrap();
    options_reach_the_driver_where_readable(&config);
    unreachable(&config, "127.0.0.1:9", &["fs-secret-789"]).await;
}

/// The Flight SQL driver reads back only some options; those must hold what was set.
fn options_reach_the_driver_where_readable(config: &AdbcConfig) {
    use nao_dialects::adbc::api::Optionable;
    use nao_dialects::adbc::api::options::OptionDatabase;
    let (_driver, database) = config.open_database("offline").unwrap();
    for (key, value) in config.database_options() {
        if let Ok(read) = database.get_option_string(OptionDatabase::from(key.as_str())) {
            assert_eq!(&read, value, "{key}");
        }
    }
}

fn url_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
fn a_driver_that_is_nowhere_is_a_clear_error() {
    let config =
        AdbcConfig::new("nao_no_such_driver").with_search_dirs(vec!["/nonexistent".into()]);
    let Err(error) = config.open_database("missing") else {
        panic!("a driver that is nowhere loaded");
    };
    let error = error.to_string();
    assert!(
        error.contains("nao_no_such_driver") && error.contains("fetch-drivers.sh"),
        "{error}"
    );
}

/// The Flight SQL servers `scripts/engines/start.sh` starts (Sail, roapi), each as an `adbc:`
/// URL with its variable.
fn flight_sql_servers() -> Vec<(&'static str, String)> {
    let mut found = Vec::new();
    if driver_dir().is_none() {
        return found;
    }
    for var in ["NAO_TEST_FLIGHT_SQL_URL", "NAO_TEST_ROAPI_FLIGHT_SQL_URL"] {
        match std::env::var(var) {
            Ok(url) if !url.is_empty() => found.push((var, format!("adbc:{url}"))),
            _ => eprintln!(
                "{var} is not set: skipping that server (scripts/engines/start.sh sets it)"
            ),
        }
    }
    found
}

/// Sail's `range(n)` yields `id`, roapi's (DataFusion) `value`; roapi computes slower, runs on
/// after a cancellation and reports every Parquet column nullable. Neither refuses writes.
fn flight_sql_profile(var: &str) -> Profile {
    if var.contains("ROAPI") {
        Profile::range_function("value")
            .without_engine_write_refusal()
            .with_slow_sql(
                "SELECT sum((a.value * b.value) % 7) AS s FROM range(30000) a CROSS JOIN range(10000) b",
            )
            .without_not_null()
    } else {
        Profile::range_function("id").without_engine_write_refusal()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conformance_through_the_flight_sql_driver() {
    for (var, url) in flight_sql_servers() {
        let server = AdbcDialect::open_url("adbc_flight", &url)
            .await
            .unwrap_or_else(|e| panic!("{var}: {e}"));
        let profile = flight_sql_profile(var);
        if var.contains("ROAPI") {
            roapi_checks(&server, &profile).await;
        } else {
            conformance::run_all_with(&server, &profile).await;
            sail_runs_no_job(&server).await;
        }
    }
}

/// The suite on roapi through the ADBC Flight SQL driver, but for the empty result: the driver
/// takes a result's schema from the `FlightInfo`, and roapi sends an empty one there (its
/// schema travels with the batches, and an empty result has none), so an empty result has no
/// columns. The native Flight SQL adapter reads it from the prepared statement instead.
async fn roapi_checks(server: &AdbcDialect, profile: &Profile) {
    conformance::reads_the_fixture(server, profile).await;
    conformance::row_cap_marks_truncation(server, profile).await;
    conformance::timeout_stops_a_slow_query(server, profile).await;
    conformance::cancellation_stops_a_slow_query(server, profile).await;
    conformance::writes_are_refused(server, profile).await;
    conformance::introspection_lists_and_describes(server, profile).await;
    conformance::errors_are_classified(server).await;
    conformance::dropping_the_stream_stops_the_query(server, profile).await;
    let empty = nao_core::guard::check(
        "SELECT id, name FROM nao_conformance WHERE id < 0",
        server.sql_dialect(),
        &nao_core::guard::Policy::default(),
    )
    .unwrap();
    let result = server.query(&empty, &ExecOptions::default()).await.unwrap();
    assert_eq!((result.row_count, result.schema.fields().len()), (0, 0));
}

/// After the suite's timeouts, cancellations and dropped streams, Sail runs no job of them
/// (`system.execution.jobs`; the query asking is one job itself). The job is cancelled as Sail
/// notices its stream gone: polled for a few seconds.
async fn sail_runs_no_job(server: &AdbcDialect) {
    use arrow_array::cast::AsArray;
    let sql = nao_core::guard::check(
        "SELECT count(*) AS running FROM system.execution.jobs WHERE status = 'RUNNING'",
        server.sql_dialect(),
        &nao_core::guard::Policy::default(),
    )
    .unwrap();
    let mut running = 0;
    for _ in 0..50 {
        let result = server.query(&sql, &ExecOptions::default()).await.unwrap();
        running = result.batches[0]
            .column(0)
            .as_primitive::<arrow_array::types::Int64Type>()
            .value(0);
        if running <= 1 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("Sail still runs {} jobs of stopped statements", running - 1);
}
