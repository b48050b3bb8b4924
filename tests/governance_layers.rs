//! No byte leaks (issue 13): a planted shop ([`support::planted`]) with a denied table
//! (`secrets`), a denied column (`customers.ssn`) and a hash-masked column (`customers.email`),
//! all holding recognisable values, is read through every tool (list_tables, describe_table,
//! execute_sql, read_query_result, display_chart, story) and through the agent (its system
//! prompt and every message of a scripted session), and no text, structured output, artifact or
//! stored result holds a planted value or names what is denied. Masked values come back as
//! hashes that keep grouping and distinct counts equal to the bare database's; value-revealing
//! uses of the masked column are refused naming it; the model is told what was masked; the
//! audit sink hears what the policy hid, masked and refused.
//!
//! Runs on SQLite (default feature), DuckDB (`duckdb`), PostgreSQL (`postgres`, with
//! `NAO_TEST_POSTGRES_URL`) and MySQL/MariaDB (`mysql`, with `NAO_TEST_MYSQL_URL`); a server
//! leg says why it skips when its variable is unset.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeSet;
use std::sync::Arc;

use nao::agent::{Agent, AgentSettings, Conversation, ScriptedProvider};
use nao::core::arrow::array::cast::AsArray;
use nao::core::arrow::array::types::{Int32Type, Int64Type, UInt64Type};
use nao::core::arrow::array::{Array, RecordBatch};
use nao::core::arrow::datatypes::DataType;
use nao::core::guard::{MaskRule, Policy, ReadOnlySql, check};
use nao::core::{
    AuditSink, Completion, CompletionRequest, Databases, Dialect, DialectExt, ExecOptions,
    FinishReason, MemoryAudit, Message, PolicyAction, QueryResult, Settings, ToolCall, ToolContext,
    ToolResult, tools,
};
use nao::render::MASKED_FIELD_METADATA;
use serde_json::{Value, json};
use support::planted::{self, Engine, assert_no_denied_names, assert_no_leak, is_hash};

/// The host's policy over the planted shop.
fn policy() -> Policy {
    Policy::default()
        .deny_table(planted::DENIED_TABLE)
        .deny_column(planted::DENIED_COLUMN)
        .mask_column(planted::MASKED_COLUMN, MaskRule::Hash)
}

/// The one integer of a one-row, one-column result.
fn single_int(batches: &[RecordBatch]) -> i64 {
    let batch = batches.iter().find(|b| b.num_rows() > 0).expect("a row");
    let column = batch.column(0);
    match column.data_type() {
        DataType::Int64 => column.as_primitive::<Int64Type>().value(0),
        DataType::Int32 => i64::from(column.as_primitive::<Int32Type>().value(0)),
        DataType::UInt64 => i64::try_from(column.as_primitive::<UInt64Type>().value(0)).unwrap(),
        DataType::Decimal128(_, 0) => i64::try_from(
            column
                .as_primitive::<nao::core::arrow::array::types::Decimal128Type>()
                .value(0),
        )
        .unwrap(),
        other => panic!("not an integer count: {other}"),
    }
}

/// The text values of column `name` of a stored result, NULL as `None`.
fn column_texts(result: &QueryResult, name: &str) -> Vec<Option<String>> {
    let index = result.schema.index_of(name).unwrap();
    let mut out = Vec::new();
    for batch in &result.batches {
        let column = batch.column(index);
        let strings = column.as_string::<i32>();
        for row in 0..strings.len() {
            out.push(strings.is_valid(row).then(|| strings.value(row).to_owned()));
        }
    }
    out
}

/// The query ids (`q_` and 16 base32 characters) in `text`, in order.
fn query_ids(text: &str) -> Vec<String> {
    text.match_indices("q_")
        .filter_map(|(at, _)| text.get(at..at + 18))
        .filter(|id| {
            id[2..]
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
        .map(str::to_owned)
        .collect()
}

/// What the bare database (no policy) answers to a count.
async fn bare_count(database: &Arc<dyn Dialect>, sql: &str) -> i64 {
    let sql = check(sql, database.sql_dialect(), &Policy::default()).unwrap();
    let result = database.query(&sql, &ExecOptions::default()).await.unwrap();
    single_int(&result.batches)
}

/// The tools over the governed databases, with everything they answered kept for the final
/// checks.
struct Session {
    ctx: ToolContext,
    registry: nao::core::ToolRegistry,
    audit: Arc<MemoryAudit>,
    query_ids: Vec<String>,
    calls: usize,
}

impl Session {
    fn new(database: &Arc<dyn Dialect>) -> Session {
        let audit = Arc::new(MemoryAudit::default());
        let sink: Arc<dyn AuditSink> = audit.clone();
        let ctx = ToolContext::new(Databases::new().with(Arc::clone(database)))
            .with_settings(Settings::default().with_policy(policy()))
            .with_audit(sink);
        Session {
            ctx,
            registry: tools::default_tools(),
            audit,
            query_ids: Vec::new(),
            calls: 0,
        }
    }

    /// Calls a tool and checks its text and structured output hold no planted value.
    async fn call(&mut self, name: &str, arguments: Value) -> ToolResult {
        self.calls += 1;
        let call = ToolCall::new(format!("call_{}", self.calls), name, arguments.clone());
        let result = self.registry.call(&call, &self.ctx).await;
        let what = format!("{name} {arguments}");
        assert_no_leak(&what, &result.content);
        if let Some(structured) = &result.structured {
            assert_no_leak(&format!("{what} (structured)"), &structured.to_string());
            if let Some(id) = structured.get("query_id").and_then(Value::as_str) {
                self.query_ids.push(id.to_owned());
            }
        }
        result
    }

    /// Runs `sql` through execute_sql, which must succeed; returns the text and the stored
    /// result.
    async fn query(&mut self, sql: &str) -> (String, Arc<QueryResult>) {
        let result = self.call("execute_sql", json!({ "sql_query": sql })).await;
        assert!(!result.is_error, "{sql} failed:\n{}", result.content);
        let id = result.structured.as_ref().unwrap()["query_id"]
            .as_str()
            .unwrap()
            .to_owned();
        let stored = self.ctx.result(&id).await.unwrap();
        (result.content, stored)
    }

    /// Runs `sql` through execute_sql, which must refuse it; returns the message.
    async fn refused(&mut self, sql: &str) -> String {
        let result = self.call("execute_sql", json!({ "sql_query": sql })).await;
        assert!(result.is_error, "{sql} ran:\n{}", result.content);
        result.content
    }

    /// Every stored result, artifact and story version: none holds a planted value.
    async fn assert_nothing_stored_leaks(&self) {
        for id in &self.query_ids {
            let stored = self.ctx.result(id).await.unwrap();
            for text in support::texts(&stored.batches) {
                assert_no_leak(&format!("stored result {id} of {}", stored.sql), &text);
            }
        }
        let artifacts = self.ctx.artifacts();
        assert!(
            artifacts.iter().any(|a| a.kind == "chart")
                && artifacts.iter().any(|a| a.kind == "story"),
            "a chart and a story were made: {artifacts:?}"
        );
        for artifact in artifacts {
            assert_no_leak(
                &format!("artifact {} {}", artifact.kind, artifact.id),
                &artifact.content.to_string(),
            );
        }
        let story = self.ctx.story_store().latest("contacts").unwrap().unwrap();
        assert_no_leak("the stored story", &story.code);
    }
}

/// The catalogue: the denied table and column are nowhere, the masked column is marked and its
/// samples are hashes.
async fn catalogue(session: &mut Session) {
    let listed = session.call("list_tables", json!({})).await;
    assert!(!listed.is_error, "{}", listed.content);
    assert!(listed.content.contains("customers"), "{}", listed.content);
    assert!(listed.content.contains("orders"), "{}", listed.content);
    assert_no_denied_names("list_tables", &listed.content);
    assert_no_denied_names(
        "list_tables (structured)",
        &listed.structured.unwrap().to_string(),
    );

    let described = session
        .call("describe_table", json!({"table": "customers"}))
        .await;
    assert!(!described.is_error, "{}", described.content);
    for column in ["email", "notes", "name"] {
        assert!(described.content.contains(column), "{}", described.content);
    }
    assert_no_denied_names("describe_table customers", &described.content);
    let structured = described.structured.unwrap();
    assert_no_denied_names(
        "describe_table customers (structured)",
        &structured.to_string(),
    );
    let email = structured["columns"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "email")
        .expect("email is described");
    assert_eq!(email["mask"], "hash", "{structured}");
    assert!(
        !planted::hashes_in(&described.content).is_empty(),
        "the sample rows show hashed emails:\n{}",
        described.content
    );

    let hidden = session
        .call("describe_table", json!({"table": planted::DENIED_TABLE}))
        .await;
    assert!(
        hidden.is_error,
        "the denied table is described:\n{}",
        hidden.content
    );

    let orders = session
        .call("describe_table", json!({"table": "orders"}))
        .await;
    assert!(!orders.is_error, "{}", orders.content);
    assert_no_denied_names("describe_table orders", &orders.content);
}

/// execute_sql and read_query_result: hashes instead of values, the same groups and distinct
/// counts as the bare database, refusals that name the column, the notice.
async fn queries(session: &mut Session, bare: &Arc<dyn Dialect>) {
    let (text, rows) = session
        .query("SELECT id, name, email, notes FROM customers ORDER BY id")
        .await;
    assert!(
        text.contains("values masked") && text.contains("`email`"),
        "the model is told that email is masked:\n{text}"
    );
    let field = rows.schema.field_with_name("email").unwrap();
    assert!(
        field.metadata().contains_key(MASKED_FIELD_METADATA),
        "{field:?}"
    );
    let emails = column_texts(&rows, "email");
    assert_eq!(emails.len(), planted::CUSTOMERS as usize);
    for (id, value) in (1..).zip(&emails) {
        match (planted::email(id), value) {
            (None, None) => {}
            (Some(_), Some(hash)) => assert!(is_hash(hash), "customer {id}: {hash}"),
            (planted, shown) => panic!("customer {id}: planted {planted:?}, shown {shown:?}"),
        }
    }
    assert!(
        !planted::hashes_in(&text).is_empty(),
        "the table shows hashes:\n{text}"
    );
    let distinct: BTreeSet<String> = emails.iter().flatten().cloned().collect();
    assert_eq!(distinct.len(), planted::distinct_emails());

    let page = session
        .call(
            "read_query_result",
            json!({"query_id": rows.id.as_str(), "offset": 10, "limit": 25}),
        )
        .await;
    assert!(!page.is_error, "{}", page.content);
    assert!(
        !planted::hashes_in(&page.content).is_empty(),
        "{}",
        page.content
    );

    // Grouping and distinct counts over hashes agree with the bare database.
    let groups = bare_count(
        bare,
        "SELECT count(*) AS n FROM (SELECT email FROM customers GROUP BY email) g",
    )
    .await;
    let distinct_bare = bare_count(bare, "SELECT count(DISTINCT email) AS n FROM customers").await;
    assert_eq!(groups, planted::email_groups() as i64);
    assert_eq!(distinct_bare, planted::distinct_emails() as i64);
    let (_, grouped) = session
        .query("SELECT email, count(*) AS n FROM customers GROUP BY email")
        .await;
    assert_eq!(
        grouped.row_count, groups as u64,
        "GROUP BY email over hashes"
    );
    let (_, counted) = session
        .query("SELECT count(DISTINCT email) AS n FROM customers")
        .await;
    assert_eq!(
        single_int(&counted.batches),
        distinct_bare,
        "count(DISTINCT email)"
    );

    // Through subqueries, renames, CTEs and DISTINCT the values come back hashed, and equal
    // values give equal hashes across statements.
    for sql in planted::MASKED_THROUGH {
        assert_eq!(hashed_values(session, sql).await, distinct, "{sql}");
    }
    // A union with a plain column: the whole output column derives from email, so it is
    // hashed whole (the notes too).
    let union = hashed_values(
        session,
        "SELECT email FROM customers UNION SELECT notes FROM customers",
    )
    .await;
    assert!(union.is_superset(&distinct), "{union:?}");
    assert_eq!(union.len(), distinct.len() + planted::CUSTOMERS as usize);

    for sql in planted::REVEALING {
        let message = session.refused(sql).await;
        assert!(
            message.contains("email"),
            "the refusal of {sql} names the column:\n{message}"
        );
    }
    for sql in planted::DENIED {
        session.refused(sql).await;
    }
}

/// The distinct values of the one column `sql` selects, which must run, say that the column
/// is masked, and show only hashes (or NULL).
async fn hashed_values(session: &mut Session, sql: &str) -> BTreeSet<String> {
    let (text, result) = session.query(sql).await;
    assert!(text.contains("values masked"), "{sql}:\n{text}");
    let name = result.schema.field(0).name().clone();
    let hashes: BTreeSet<String> = column_texts(&result, &name).into_iter().flatten().collect();
    assert!(hashes.iter().all(|h| is_hash(h)), "{sql}: {hashes:?}");
    hashes
}

/// display_chart and story over a result keyed by the masked column.
async fn charts_and_stories(session: &mut Session) {
    let (text, joined) = session
        .query(
            "SELECT c.email AS contact, sum(o.amount) AS total FROM orders o \
             JOIN customers c ON c.id = o.customer_id GROUP BY c.email",
        )
        .await;
    assert!(text.contains("values masked"), "{text}");
    assert!(
        column_texts(&joined, "contact")
            .iter()
            .flatten()
            .all(|h| is_hash(h)),
        "joined emails are hashed"
    );
    let id = joined.id.as_str().to_owned();
    let chart = session
        .call(
            "display_chart",
            json!({
                "query_id": id,
                "chart_type": "bar",
                "x_axis_key": "contact",
                "x_axis_type": "category",
                "series": [{"data_key": "total", "label": "Total"}],
                "title": "Revenue by contact",
            }),
        )
        .await;
    assert!(!chart.is_error, "{}", chart.content);
    // A chart of the masked column as numbers fails; its message must not quote values either.
    let wrong = session
        .call(
            "display_chart",
            json!({
                "query_id": id,
                "chart_type": "bar",
                "x_axis_key": "total",
                "x_axis_type": "number",
                "series": [{"data_key": "contact"}],
                "title": "Contacts as numbers",
            }),
        )
        .await;
    assert!(wrong.is_error, "{}", wrong.content);

    let (_, customers) = session.query("SELECT name, email FROM customers").await;
    let code = format!(
        "# Contacts\n\n<chart query_id=\"{id}\" chart_type=\"bar\" x_axis_key=\"contact\" \
         series='[{{\"data_key\": \"total\", \"label\": \"Total\"}}]' title=\"Revenue\" />\n\n\
         <table query_id=\"{}\" title=\"Customers\" />\n",
        customers.id.as_str()
    );
    let story = session
        .call(
            "story",
            json!({"action": "create", "id": "contacts", "title": "Contacts", "code": code}),
        )
        .await;
    assert!(!story.is_error, "{}", story.content);
    let updated = session
        .call(
            "story",
            json!({"action": "update", "id": "contacts", "search": "# Contacts", "replace": "# Who buys"}),
        )
        .await;
    assert!(!updated.is_error, "{}", updated.content);
    // A tag naming the denied column: refused, without values.
    let denied = session
        .call(
            "story",
            json!({"action": "replace", "id": "contacts", "code": format!(
                "<chart query_id=\"{id}\" chart_type=\"bar\" x_axis_key=\"ssn\" \
                 series='[{{\"data_key\": \"total\"}}]' title=\"SSN\" />"
            )}),
        )
        .await;
    assert!(denied.is_error, "{}", denied.content);
}

/// The policy events: the denied table hidden, the denied column hidden, the masked column
/// masked, statements refused.
async fn audit(session: &Session, database: &Arc<dyn Dialect>) {
    // The layer sits under every caller: a statement no tool checked is judged too.
    let unchecked = ReadOnlySql::new_unchecked_allowing_writes(
        "SELECT ssn FROM customers",
        database.sql_dialect(),
    );
    let governed = session.ctx.databases().pick(None).unwrap();
    let error = governed
        .query(&unchecked, &ExecOptions::default())
        .await
        .expect_err("the layer refuses an unchecked statement");
    assert_eq!(error.kind_code(), "permission", "{error}");
    assert_no_leak("an unchecked statement", &error.to_string());

    let events = session.audit.policy_events();
    let actions: Vec<&PolicyAction> = events.iter().map(|e| &e.action).collect();
    assert!(
        actions
            .iter()
            .any(|a| matches!(a, PolicyAction::TablesHidden { tables }
            if tables.iter().any(|t| t.ends_with(planted::DENIED_TABLE)))),
        "{actions:#?}"
    );
    assert!(
        actions
            .iter()
            .any(|a| matches!(a, PolicyAction::TableHidden { .. })),
        "{actions:#?}"
    );
    assert!(
        actions
            .iter()
            .any(|a| matches!(a, PolicyAction::ColumnsHidden { columns, .. }
            if columns.iter().any(|c| c == "ssn"))),
        "{actions:#?}"
    );
    assert!(
        actions
            .iter()
            .any(|a| matches!(a, PolicyAction::ColumnsMasked { columns }
            if columns.iter().any(|c| c.contains("customers.email")))),
        "{actions:#?}"
    );
    assert!(
        actions
            .iter()
            .any(|a| matches!(a, PolicyAction::StatementRefused { .. })),
        "{actions:#?}"
    );
    for event in &events {
        assert_no_leak("a policy event", &format!("{event:?}"));
    }
    // Refusals by execute_sql's own check reach the audit as the call's outcome.
    let records = session.audit.records();
    assert!(
        records
            .iter()
            .any(|r| r.tool == "execute_sql" && r.outcome.contains("masked_column_use")),
        "{records:#?}"
    );
}

/// The text of a tool message of `request`.
fn tool_texts(request: &CompletionRequest) -> Vec<&str> {
    request
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool { content, .. } => Some(content.as_str()),
            _ => None,
        })
        .collect()
}

/// A scripted turn computed from the last query id the model was shown.
fn with_last_query_id(
    call_id: &'static str,
    tool: &'static str,
    arguments: impl Fn(&str) -> Value + Send + Sync + 'static,
) -> impl Fn(&CompletionRequest) -> Completion + Send + Sync + 'static {
    move |request| {
        let id = tool_texts(request)
            .iter()
            .flat_map(|text| query_ids(text))
            .last()
            .expect("the model was shown a query id");
        Completion::new(
            "",
            vec![ToolCall::new(call_id, tool, arguments(&id))],
            FinishReason::ToolCalls,
        )
    }
}

/// The agent: its system prompt, and every message of a session that calls every tool.
async fn agent(database: &Arc<dyn Dialect>) {
    let provider = Arc::new(
        ScriptedProvider::new()
            .calls([
                ("list_tables", json!({})),
                ("describe_table", json!({"table": "customers"})),
                ("describe_table", json!({"table": planted::DENIED_TABLE})),
            ])
            .call(
                "execute_sql",
                json!({"sql_query": "SELECT id, name, email, notes FROM customers ORDER BY id"}),
            )
            .then(with_last_query_id(
                "page",
                "read_query_result",
                |id| json!({"query_id": id, "offset": 20, "limit": 20}),
            ))
            .call(
                "execute_sql",
                json!({"sql_query": "SELECT c.email AS contact, sum(o.amount) AS total \
                    FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.email"}),
            )
            .then(with_last_query_id("chart", "display_chart", |id| {
                json!({
                    "query_id": id, "chart_type": "bar", "x_axis_key": "contact",
                    "x_axis_type": "category", "series": [{"data_key": "total"}],
                    "title": "Revenue by contact",
                })
            }))
            .then(with_last_query_id("story", "story", |id| {
                json!({"action": "create", "id": "revenue", "title": "Revenue", "code": format!(
                    "# Revenue\n\n<table query_id=\"{id}\" title=\"By contact\" />\n"
                )})
            }))
            .calls([
                (
                    "execute_sql",
                    json!({"sql_query": "SELECT lower(email) AS e FROM customers"}),
                ),
                (
                    "execute_sql",
                    json!({"sql_query": "SELECT token FROM secrets"}),
                ),
            ])
            .say("done"),
    );
    let audit = Arc::new(MemoryAudit::default());
    let agent = Agent::builder(provider.clone())
        .databases(Databases::new().with(Arc::clone(database)))
        .tool_settings(Settings::default().with_policy(policy()))
        .audit(audit.clone())
        .settings(AgentSettings::default())
        .build();
    let mut conversation = Conversation::new();
    agent
        .ask(&mut conversation, "Who are our best customers?")
        .await;
    assert_eq!(provider.remaining(), 0, "the whole script ran");

    let requests = provider.requests();
    let Message::System { content: prompt } = &requests[0].messages[0] else {
        panic!("no system prompt");
    };
    assert!(prompt.contains("customers"), "{prompt}");
    assert!(prompt.contains("email"), "{prompt}");
    assert_no_denied_names("the system prompt", prompt);
    assert_no_leak("the system prompt", prompt);

    let last = requests.last().unwrap();
    let shown = tool_texts(last);
    assert_eq!(shown.len(), 10, "every call was answered: {shown:#?}");
    assert!(
        shown.iter().any(|t| t.contains("values masked")),
        "the model is told what was masked: {shown:#?}"
    );
    for (n, request) in requests.iter().enumerate() {
        let everything = serde_json::to_string(request).unwrap();
        assert_no_leak(&format!("model request {n}"), &everything);
    }
    assert!(
        !audit.policy_events().is_empty(),
        "the agent's tools report to its audit sink"
    );
}

/// Each of [`planted::IMPLICIT_CASTS`], whatever its outcome, shows no planted value.
async fn implicit_casts(session: &mut Session) {
    for sql in planted::IMPLICIT_CASTS {
        session
            .call("execute_sql", json!({ "sql_query": sql }))
            .await;
    }
}

/// Every check on one database, [`planted::IMPLICIT_CASTS`] included.
async fn no_byte_leaks(database: Arc<dyn Dialect>) {
    let mut session = Session::new(&database);
    catalogue(&mut session).await;
    queries(&mut session, &database).await;
    implicit_casts(&mut session).await;
    charts_and_stories(&mut session).await;
    session.assert_nothing_stored_leaks().await;
    audit(&session, &database).await;
    agent(&database).await;
}

/// The planted shop in an in-memory SQLite.
#[cfg(feature = "sqlite")]
fn sqlite_shop() -> Arc<dyn Dialect> {
    let script = planted::script(Engine::Sqlite);
    let shop =
        nao::dialects::sqlite::SqliteDialect::in_memory("gov", |conn| conn.execute_batch(&script))
            .unwrap();
    Arc::new(shop)
}

/// The planted shop in a sealed in-memory DuckDB.
#[cfg(feature = "duckdb")]
async fn duckdb_shop() -> Arc<dyn Dialect> {
    let shop = tokio::task::spawn_blocking(|| {
        let script = planted::script(Engine::DuckDb);
        nao::dialects::duckdb::DuckDbDialect::in_memory("gov", |conn| conn.execute_batch(&script))
            .unwrap()
    })
    .await
    .unwrap();
    Arc::new(shop)
}

#[cfg(feature = "sqlite")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_planted_byte_reaches_the_model_on_sqlite() {
    no_byte_leaks(sqlite_shop()).await;
}

#[cfg(feature = "duckdb")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_planted_byte_reaches_the_model_on_duckdb() {
    // DuckDB answers `email = 5` with "Could not convert string '<the email>' to INT32": the
    // policy layer scrubs engine errors of statements that read a masked column.
    no_byte_leaks(duckdb_shop().await).await;
}

#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_planted_byte_reaches_the_model_on_postgres() {
    let Some(url) = support::postgres::server_url() else {
        return;
    };
    let planted = support::postgres::PlantedSchema::new(&url).await;
    let shop = nao::dialects::open("gov", &planted.reader_url())
        .await
        .unwrap();
    no_byte_leaks(shop).await;
}

#[cfg(feature = "mysql")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_planted_byte_reaches_the_model_on_mysql() {
    let Some(url) = support::mysql::server_url() else {
        return;
    };
    let planted = support::mysql::PlantedDatabase::new(&url).await;
    let shop = nao::dialects::open("gov", &planted.reader_url())
        .await
        .unwrap();
    no_byte_leaks(shop).await;
}

/// `*` over a subquery that selects only the masked column is answered with the values
/// masked, although the table also has the denied `ssn` (the subquery does not select it).
#[cfg(feature = "sqlite")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn star_over_a_subquery_of_the_masked_column_is_masked() {
    let database = sqlite_shop();
    let mut session = Session::new(&database);
    let plain = hashed_values(&mut session, "SELECT email FROM customers").await;
    let starred = hashed_values(
        &mut session,
        "SELECT * FROM (SELECT email FROM customers) s",
    )
    .await;
    assert_eq!(starred, plain);
}
