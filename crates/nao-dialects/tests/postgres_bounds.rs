//! Memory and connection bounds of the PostgreSQL adapter, against a real server
//! (`NAO_TEST_POSTGRES_URL`, a superuser URL such as `postgres://postgres@127.0.0.1:5432/test`):
//! a value larger than the byte cap is a clear error and never enters memory whole, wide rows
//! come in batches that fit the cap, and the pool never opens more connections than its cap,
//! however many callers wait.
//!
//! Each test makes its own schema and login role (no privileges beyond `USAGE` on the schema),
//! connects the adapter as that role, and drops both at the end. Without the variable the
//! tests say so and pass.
#![cfg(feature = "postgres")]
#![allow(clippy::unwrap_used)] // Tests: a failed unwrap is a failed test.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use nao_core::guard::{ReadOnlySql, SqlDialect};
use nao_core::{DialectError, DialectExt, ExecOptions};
use nao_dialects::postgres::{PostgresDialect, TlsMode, TlsSettings};
use support::capped;
use support::postgres::{Sandbox, connect_admin, server_url};

/// The role may use the schema and nothing more, and open at most 40 sessions, so a pool that
/// ignored its cap fails here instead of taking every connection slot of the shared server.
const CAPPED_ROLE: &str = "
    ALTER ROLE {role} CONNECTION LIMIT 40;
    GRANT USAGE ON SCHEMA {schema} TO {role};
    ALTER ROLE {role} SET search_path = {schema};";

/// What only this file asks of the sandbox.
impl Sandbox {
    /// The adapter as the role, with TLS `sslmode` (`disable` or `require`: the two ways the
    /// adapter reads the server's bytes).
    async fn adapter_sslmode(&self, sslmode: &str) -> PostgresDialect {
        let tls = match sslmode {
            "require" => TlsMode::Require,
            _ => TlsMode::Disable,
        };
        PostgresDialect::connect_with_tls("pg", self.role_config(), &TlsSettings::new(tls))
            .await
            .unwrap()
    }

    /// The role's server sessions now.
    async fn sessions(&self) -> i64 {
        self.admin
            .query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE usename = $1",
                &[&self.role],
            )
            .await
            .unwrap()
            .get(0)
    }
}

fn sql(text: &str) -> ReadOnlySql {
    // The guard is not under test here (and refuses pg_sleep, which stands for slow work).
    ReadOnlySql::new_unchecked_allowing_writes(text, SqlDialect::Postgres)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_value_larger_than_the_byte_cap_is_a_clear_error() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "value", CAPPED_ROLE).await;
    for sslmode in ["disable", "require"] {
        let db = sandbox.adapter_sslmode(sslmode).await;
        for (text, column) in [
            ("SELECT 1 AS id, repeat('x', 20000000) AS big", "big"),
            ("SELECT array_fill(7, ARRAY[3000000]) AS numbers", "numbers"),
            (
                "SELECT (SELECT array_agg(g) FROM generate_series(1, 2000000) g) AS agg",
                "agg",
            ),
        ] {
            let error = db.query(&sql(text), &capped(4 << 20)).await.unwrap_err();
            let message = error.to_string();
            assert!(
                matches!(error, DialectError::Unsupported { .. }),
                "{sslmode}: {text}: {error:?}"
            );
            assert!(
                message.contains(&format!("\"{column}\"")) && message.contains("length("),
                "{sslmode}: the message names the column and says what to select instead: \
                 {message}"
            );
            assert!(
                message.contains("4 MiB"),
                "{sslmode}: the message names the cap: {message}"
            );
        }
        // The adapter goes on serving (the connection that saw the value was not reused).
        let result = db
            .query(&sql("SELECT 42 AS answer"), &capped(4 << 20))
            .await
            .unwrap();
        assert_eq!(result.row_count, 1, "{sslmode}");
        // The same value fits a larger cap.
        let result = db
            .query(
                &sql("SELECT repeat('x', 20000000) AS big"),
                &capped(64 << 20),
            )
            .await
            .unwrap();
        assert_eq!(result.row_count, 1, "{sslmode}");
        assert_eq!(result.truncation, None, "{sslmode}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wide_rows_fill_the_byte_cap_in_batches_that_fit_it() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "wide", CAPPED_ROLE).await;
    let db = sandbox.adapter_sslmode("disable").await;
    let wide = sql("SELECT g, repeat('x', 1000000) AS v FROM generate_series(1, 200) g");
    support::wide_rows_fill_the_byte_cap_in_batches_that_fit_it(&db, &wide).await;
}

/// Runs `calls` concurrent statements sleeping `sleep` seconds while sampling the role's
/// server sessions; the outcomes and the most sessions seen at once.
async fn crowd(
    sandbox: &Sandbox,
    db: Arc<PostgresDialect>,
    calls: usize,
    sleep: f64,
    timeout: Duration,
) -> (Vec<Result<u64, DialectError>>, i64) {
    let most = Arc::new(AtomicI64::new(0));
    let sampler = {
        let most = Arc::clone(&most);
        let admin = connect_admin(&sandbox.url).await;
        let role = sandbox.role.clone();
        tokio::spawn(async move {
            loop {
                let count: i64 = admin
                    .query_one(
                        "SELECT count(*) FROM pg_stat_activity WHERE usename = $1",
                        &[&role],
                    )
                    .await
                    .unwrap()
                    .get(0);
                most.fetch_max(count, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
    };
    let tasks: Vec<_> = (0..calls)
        .map(|i| {
            let db = Arc::clone(&db);
            tokio::spawn(async move {
                let text = format!("SELECT {i} AS i, pg_sleep({sleep}) AS s");
                let options = ExecOptions::default().with_timeout(timeout);
                db.query(&sql(&text), &options).await.map(|r| r.row_count)
            })
        })
        .collect();
    let mut outcomes = Vec::with_capacity(calls);
    for task in tasks {
        outcomes.push(task.await.unwrap());
    }
    sampler.abort();
    let _ = sampler.await;
    // A last look, for sessions opened after the last sample.
    let most = most.load(Ordering::Relaxed).max(sandbox.sessions().await);
    (outcomes, most)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pool_caps_server_connections_under_a_crowd() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "crowd", CAPPED_ROLE).await;
    let db = Arc::new(sandbox.adapter_sslmode("disable").await);
    let (outcomes, most) = crowd(&sandbox, db, 120, 0.2, Duration::from_secs(60)).await;
    for outcome in &outcomes {
        assert_eq!(
            outcome.as_ref().ok(),
            Some(&1),
            "every call is served: {outcome:?}"
        );
    }
    assert!(
        most <= 8,
        "120 concurrent calls opened {most} server connections; the default cap is 8"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn callers_that_wait_past_their_deadline_are_told_they_waited_for_a_connection() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "wait", CAPPED_ROLE).await;
    let db = Arc::new(sandbox.adapter_sslmode("disable").await);
    // Twenty statements that cannot finish in three seconds, on a pool of eight: eight run into
    // their time limit, the others never get a connection. Under a loaded machine a caller may
    // also spend its whole limit opening a connection (CI saw one take over a second): that is
    // a third honest outcome, counted apart.
    let (outcomes, most) = crowd(&sandbox, db, 20, 30.0, Duration::from_secs(3)).await;
    let mut ran = 0;
    let mut waited = 0;
    for outcome in outcomes {
        match outcome {
            Err(DialectError::Timeout { .. }) => ran += 1,
            Err(error @ DialectError::Connection { .. })
                if error.to_string().contains("free connection") =>
            {
                assert!(error.is_retryable(), "{error}");
                waited += 1;
            }
            Err(error @ DialectError::Connection { .. })
                if error.to_string().contains("opening a connection") => {}
            other => panic!("a timeout, or a wait for a connection: {other:?}"),
        }
    }
    assert!(
        ran >= 1 && waited >= 1,
        "{ran} ran into the limit, {waited} waited for a connection"
    );
    assert!(most <= 8, "{most} server connections");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pool_cap_is_configurable() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "cap", CAPPED_ROLE).await;
    let db = Arc::new(
        sandbox
            .adapter_sslmode("disable")
            .await
            .with_max_connections(3),
    );
    let (outcomes, most) = crowd(&sandbox, db, 30, 0.1, Duration::from_secs(60)).await;
    assert!(outcomes.iter().all(|o| o.as_ref().ok() == Some(&1)));
    assert!(most <= 3, "{most} server connections with a cap of 3");
}
