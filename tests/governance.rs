//! The host's policy as one layer (issue 13, first part): a denied table and a denied column of
//! the demo shop never reach the model, whichever path reads them: list_tables,
//! describe_table (columns and sample rows), execute_sql, and the agent's system prompt.
//! The denied column's real values are read first through the bare adapter, then looked for in
//! every text the model receives. Runs on SQLite, and on DuckDB with the `duckdb` feature.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use nao::agent::{Agent, AgentSettings, Conversation, ScriptedProvider};
use nao::core::arrow::array::Array;
use nao::core::arrow::array::cast::AsArray;
use nao::core::guard::{Policy, SqlDialect, check};
use nao::core::{
    CompletionRequest, Databases, Dialect, DialectExt, ExecOptions, Message, Settings, ToolCall,
    ToolContext, tools,
};
use nao::dialects::demo::DemoScale;
use serde_json::{Value, json};

/// The host's policy: no reviews, no customer emails.
fn policy() -> Policy {
    Policy::default()
        .deny_table("reviews")
        .deny_column("customers.email")
}

/// Customer emails, read through the bare adapter (no policy).
async fn emails(database: &Arc<dyn Dialect>, dialect: SqlDialect) -> Vec<String> {
    let sql = check(
        "SELECT email FROM customers WHERE email IS NOT NULL LIMIT 200",
        dialect,
        &Policy::default(),
    )
    .unwrap();
    let result = database.query(&sql, &ExecOptions::default()).await.unwrap();
    let mut found = Vec::new();
    for batch in &result.batches {
        let column = batch.column(0);
        let strings = column.as_string::<i32>();
        for i in 0..strings.len() {
            if strings.is_valid(i) {
                found.push(strings.value(i).to_owned());
            }
        }
    }
    assert!(found.len() > 20, "the demo has customer emails");
    found
}

/// Fails if `text` holds a denied value or names the denied table.
fn assert_clean(what: &str, text: &str, emails: &[String]) {
    for email in emails {
        assert!(
            !text.contains(email.as_str()),
            "{what} shows {email}:\n{text}"
        );
    }
    assert!(
        !text.contains("@example.com"),
        "{what} shows an email:\n{text}"
    );
}

async fn call(ctx: &ToolContext, name: &str, arguments: Value) -> (bool, String) {
    let result = tools::sql_tools()
        .call(&ToolCall::new(format!("call_{name}"), name, arguments), ctx)
        .await;
    (result.is_error, result.content)
}

async fn check_database(database: Arc<dyn Dialect>) {
    let dialect = database.sql_dialect();
    let emails = emails(&database, dialect).await;
    let ctx = ToolContext::new(Databases::new().with(Arc::clone(&database)))
        .with_settings(Settings::default().with_policy(policy()));

    let (failed, listed) = call(&ctx, "list_tables", json!({})).await;
    assert!(!failed, "{listed}");
    assert!(listed.contains("customers"), "{listed}");
    assert!(
        !listed.contains("reviews"),
        "list_tables lists a denied table:\n{listed}"
    );

    let (failed, described) = call(&ctx, "describe_table", json!({"table": "customers"})).await;
    assert!(!failed, "{described}");
    assert!(described.contains("name"), "{described}");
    assert!(
        !described.contains("email"),
        "describe_table lists a denied column:\n{described}"
    );
    assert_clean("describe_table", &described, &emails);

    let (failed, refused) = call(&ctx, "describe_table", json!({"table": "reviews"})).await;
    assert!(failed, "describe_table of a denied table: {refused}");

    for sql in [
        "SELECT * FROM customers",
        "SELECT lower(email) AS e FROM customers",
        "SELECT count(*) FROM reviews",
    ] {
        let (failed, text) = call(&ctx, "execute_sql", json!({"sql_query": sql})).await;
        assert!(failed, "{sql} ran:\n{text}");
        assert_clean(sql, &text, &emails);
    }
    // The layer sits under every caller: a statement that no tool checked is judged too.
    let unchecked = nao::core::guard::ReadOnlySql::new_unchecked_allowing_writes(
        "SELECT email FROM customers",
        dialect,
    );
    let governed = ctx.databases().pick(None).unwrap();
    let error = governed
        .query(&unchecked, &ExecOptions::default())
        .await
        .expect_err("the layer refuses");
    assert_eq!(error.kind_code(), "permission", "{error}");

    // The agent's system prompt: schema context with samples, built from the same databases.
    let provider = Arc::new(ScriptedProvider::new().say("done"));
    let agent = Agent::builder(provider.clone())
        .databases(Databases::new().with(database))
        .tool_settings(Settings::default().with_policy(policy()))
        .settings(AgentSettings::default())
        .build();
    let mut conversation = Conversation::new();
    agent.ask(&mut conversation, "Who are our customers?").await;
    let requests: Vec<CompletionRequest> = provider.requests();
    let Message::System { content: prompt } = &requests[0].messages[0] else {
        panic!("no system prompt");
    };
    assert!(prompt.contains("customers("), "{prompt}");
    assert!(
        !prompt.contains("reviews("),
        "the prompt shows a denied table:\n{prompt}"
    );
    assert!(
        !prompt.contains("email"),
        "the prompt shows a denied column:\n{prompt}"
    );
    assert_clean("the system prompt", prompt, &emails);
}

#[tokio::test]
async fn denied_tables_and_columns_never_reach_the_model_on_sqlite() {
    let shop = nao::dialects::sqlite::SqliteDialect::demo("shop", DemoScale::Small).unwrap();
    check_database(Arc::new(shop)).await;
}

#[cfg(feature = "duckdb")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn denied_tables_and_columns_never_reach_the_model_on_duckdb() {
    let shop = tokio::task::spawn_blocking(|| {
        nao::dialects::duckdb::DuckDbDialect::demo("shop", DemoScale::Small).unwrap()
    })
    .await
    .unwrap();
    check_database(Arc::new(shop)).await;
}
