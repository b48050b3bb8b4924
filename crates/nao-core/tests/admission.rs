//! Admission control over the SQLite demo shop: at most `max_running` statements at once, a
//! bounded queue, waiting that does not count against a statement's time limit, and a busy
//! error (retryable, with retry advice) for a statement that gets no turn.

use std::sync::Arc;
use std::time::Duration;

use nao_core::guard::{Policy, check};
use nao_core::{
    AdmissionLimits, AdmittedDialect, Databases, Dialect, DialectExt, ExecOptions, Settings,
    ToolCall, ToolContext, tools,
};
use nao_dialects::demo::DemoScale;
use nao_dialects::sqlite::SqliteDialect;
use tokio_util::sync::CancellationToken;

fn shop() -> Arc<dyn Dialect> {
    Arc::new(SqliteDialect::demo("shop", DemoScale::Small).expect("demo database"))
}

fn one_at_a_time(max_waiting: usize, max_wait: Duration) -> Arc<AdmittedDialect> {
    let limits = AdmissionLimits::default()
        .with_max_running(1)
        .with_max_waiting(max_waiting)
        .with_max_wait(max_wait);
    Arc::new(AdmittedDialect::new(shop(), limits))
}

async fn count(
    database: &dyn Dialect,
    options: &ExecOptions,
) -> Result<u64, nao_core::DialectError> {
    let sql = check(
        "SELECT count(*) FROM products",
        database.sql_dialect(),
        &Policy::default(),
    )
    .expect("valid SQL");
    database.query(&sql, options).await.map(|r| r.row_count)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiting_for_a_turn_does_not_count_against_the_time_limit() {
    let database = one_at_a_time(8, Duration::from_secs(60));
    let held = database
        .admit(&ExecOptions::default())
        .await
        .expect("the only turn");
    let waiter = {
        let database = Arc::clone(&database);
        tokio::spawn(async move {
            let options = ExecOptions::default().with_timeout(Duration::from_secs(1));
            count(database.as_ref(), &options).await
        })
    };
    // The waiter waits longer than its own time limit before it gets the turn.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(!waiter.is_finished(), "it waits while the turn is held");
    drop(held);
    assert_eq!(waiter.await.unwrap().expect("runs once admitted"), 1);
}

#[tokio::test]
async fn a_full_queue_turns_statements_away_as_busy_at_once() {
    let database = one_at_a_time(0, Duration::from_secs(60));
    let _held = database
        .admit(&ExecOptions::default())
        .await
        .expect("the only turn");
    let error = count(database.as_ref(), &ExecOptions::default())
        .await
        .expect_err("no room to wait");
    assert_eq!(error.kind_code(), "busy");
    assert!(error.is_retryable());
    assert!(error.to_string().contains("retry the same call"), "{error}");
}

#[tokio::test]
async fn a_statement_that_waits_too_long_is_turned_away_and_a_cancelled_one_stops_waiting() {
    let database = one_at_a_time(8, Duration::from_millis(50));
    let held = database
        .admit(&ExecOptions::default())
        .await
        .expect("the only turn");
    let error = count(database.as_ref(), &ExecOptions::default())
        .await
        .expect_err("waited too long");
    assert_eq!(error.kind_code(), "busy", "{error}");

    let patient = one_at_a_time(8, Duration::from_secs(600));
    let _held_too = patient
        .admit(&ExecOptions::default())
        .await
        .expect("the only turn");
    let cancel = CancellationToken::new();
    let options = ExecOptions::default().with_cancel(cancel.clone());
    let waiter = {
        let patient = Arc::clone(&patient);
        tokio::spawn(async move { count(patient.as_ref(), &options).await })
    };
    cancel.cancel();
    let error = waiter.await.unwrap().expect_err("cancelled while waiting");
    assert_eq!(error.kind_code(), "cancelled", "{error}");
    drop(held);
    // Once the turn is free, statements run again.
    assert_eq!(
        count(database.as_ref(), &ExecOptions::default())
            .await
            .unwrap(),
        1
    );
}

#[tokio::test]
async fn the_model_is_told_to_retry_a_busy_database() {
    let limits = AdmissionLimits::default()
        .with_max_running(1)
        .with_max_waiting(0);
    let ctx = ToolContext::new(Databases::new().with(shop()))
        .with_settings(Settings::default().with_admission(limits));
    let database = ctx.databases().pick(None).unwrap().clone();
    let _held = database
        .admit(&ExecOptions::default())
        .await
        .expect("the only turn");
    let call = ToolCall::new(
        "c",
        "execute_sql",
        serde_json::json!({"sql_query": "SELECT count(*) FROM products"}),
    );
    let result = tools::sql_tools().call(&call, &ctx).await;
    assert!(result.is_error, "{}", result.content);
    assert!(result.content.contains("busy"), "{}", result.content);
    assert!(
        result.content.contains("Retry the same call"),
        "{}",
        result.content
    );
}

#[tokio::test]
async fn no_more_statements_run_than_the_adapter_can() {
    /// The demo shop, claiming it runs one statement at a time.
    #[derive(Debug)]
    struct Single(Arc<dyn Dialect>);

    #[async_trait::async_trait]
    impl Dialect for Single {
        fn name(&self) -> &str {
            self.0.name()
        }
        fn sql_dialect(&self) -> nao_core::guard::SqlDialect {
            self.0.sql_dialect()
        }
        async fn execute(
            &self,
            sql: &nao_core::guard::ReadOnlySql,
            options: &ExecOptions,
        ) -> Result<nao_core::BatchStream, nao_core::DialectError> {
            self.0.execute(sql, options).await
        }
        async fn list_tables(
            &self,
            filter: &nao_core::TableFilter,
        ) -> Result<Vec<nao_core::TableInfo>, nao_core::DialectError> {
            self.0.list_tables(filter).await
        }
        async fn describe_table(
            &self,
            table: &nao_core::TableRef,
        ) -> Result<nao_core::TableSchema, nao_core::DialectError> {
            self.0.describe_table(table).await
        }
        fn max_concurrent_statements(&self) -> Option<usize> {
            Some(1)
        }
    }

    let limits = AdmissionLimits::default()
        .with_max_running(8)
        .with_max_waiting(0);
    let database = AdmittedDialect::new(Arc::new(Single(shop())), limits);
    assert_eq!(database.limits().max_running(), 1);
    let _held = database
        .admit(&ExecOptions::default())
        .await
        .expect("the only turn");
    let error = count(&database, &ExecOptions::default())
        .await
        .expect_err("busy");
    assert_eq!(error.kind_code(), "busy");
}
