//! No byte leaks through MCP (issue 13): the planted shop of the facade's governance tests
//! (`tests/support/planted.rs` at the workspace root: a denied table `secrets`, a denied column
//! `customers.ssn` and a hash-masked column `customers.email`, with recognisable values) is
//! served as the binary serves it, from the command line (`--database`, `--deny-table`,
//! `--deny-column`, `--mask-column`, `--mask-key-file`), and a client reads everything: the
//! server's instructions, every tool's listing and calls (successful, refused, failed), every
//! resource listed and read, the denied table's resource. No response holds a planted value or
//! names what is denied; masked values come back as hashes that keep grouping and distinct
//! counts; the stored results behind the query ids are masked too.
//!
//! Runs on a SQLite file, a DuckDB file (`duckdb` feature), and PostgreSQL and MySQL/MariaDB
//! (`postgres` and `mysql` features, with `NAO_TEST_POSTGRES_URL` and `NAO_TEST_MYSQL_URL`);
//! a server leg says why it skips when its variable is unset.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../../tests/support/mod.rs"]
mod support;

mod in_memory;

use in_memory::{connect, text};
use nao_core::QueryId;
use nao_mcp::McpServer;
use nao_mcp::options::Options;
use rmcp::ServiceError;
use rmcp::model::{CallToolResult, ReadResourceRequestParams};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};
use support::planted::{self, assert_no_denied_names, assert_no_leak};
use support::test_dir::TestDir;

/// The server the command line describes, serving the database at `url` as `gov` under the
/// planted policy, with a masking key from a file in `dir`.
async fn server(url: &str, dir: &TestDir) -> McpServer {
    let key = dir.path("mask.key");
    std::fs::write(&key, "00112233445566778899aabbccddeeff\n").unwrap();
    let args = [
        "--database".to_owned(),
        format!("gov={url}"),
        "--deny-table".to_owned(),
        planted::DENIED_TABLE.to_owned(),
        "--deny-column".to_owned(),
        planted::DENIED_COLUMN.to_owned(),
        format!("--mask-column={}=hash", planted::MASKED_COLUMN),
        "--mask-key-file".to_owned(),
        key.display().to_string(),
    ];
    let options = Options::parse(args, |_| None).unwrap();
    nao_mcp::app::build_server(&options).await.unwrap()
}

/// Calls a tool and checks the whole response (text and structured content) holds no
/// planted value.
async fn call(
    client: &RunningService<RoleClient, ()>,
    name: &str,
    arguments: Value,
) -> CallToolResult {
    let what = format!("{name} {arguments}");
    let result = in_memory::call(client, name, arguments).await;
    assert_no_leak(&what, &serde_json::to_string(&result).unwrap());
    result
}

/// The query id of a successful execute_sql.
fn query_id(sql: &str, result: &CallToolResult) -> String {
    assert_eq!(result.is_error, Some(false), "{sql}: {}", text(result));
    result.structured_content.as_ref().unwrap()["query_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Serves the database at `url` with the planted policy and reads everything a client can,
/// [`planted::IMPLICIT_CASTS`] included.
async fn no_byte_leaks(url: &str) {
    let dir = TestDir::new("mcp-governance");
    let server = server(url, &dir).await;
    let ctx = server.context().clone();
    let client = connect(server).await;

    let info = client.peer_info().expect("the server introduced itself");
    assert_no_leak("initialize", &serde_json::to_string(&*info).unwrap());
    let tools = client.list_all_tools().await.unwrap();
    assert_no_leak("tools/list", &serde_json::to_string(&tools).unwrap());
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "describe_table",
            "execute_sql",
            "list_tables",
            "read_query_result"
        ],
        "a new tool needs its place in this test"
    );

    // Resources: the denied table is not listed, none shows the denied column, every masked
    // sample is a hash, and the denied table's URI answers as a missing one.
    let resources = client.list_all_resources().await.unwrap();
    let listed = serde_json::to_string(&resources).unwrap();
    assert_no_leak("resources/list", &listed);
    assert_no_denied_names("resources/list", &listed);
    assert!(listed.contains("nao://gov/"), "{listed}");
    assert!(resources.len() >= 2, "{listed}");
    let mut hashes_shown = 0;
    for resource in &resources {
        let read = client
            .read_resource(ReadResourceRequestParams::new(resource.uri.as_str()))
            .await
            .unwrap();
        let body = serde_json::to_string(&read).unwrap();
        assert_no_leak(&resource.uri, &body);
        assert_no_denied_names(&resource.uri, &body);
        hashes_shown += planted::hashes_in(&body).len();
    }
    assert!(hashes_shown > 0, "the customers resource samples hashes");
    if let Ok(templates) = client.list_all_resource_templates().await {
        assert_no_leak(
            "resources/templates/list",
            &serde_json::to_string(&templates).unwrap(),
        );
    }
    for uri in ["nao://gov/secrets", "nao://gov/SECRETS"] {
        match client
            .read_resource(ReadResourceRequestParams::new(uri))
            .await
        {
            Err(ServiceError::McpError(error)) => {
                assert_no_leak(uri, &serde_json::to_string(&error).unwrap());
            }
            other => panic!("{uri}: the denied table answers: {other:?}"),
        }
    }

    // Tools.
    let listed = call(&client, "list_tables", json!({})).await;
    assert_no_denied_names("list_tables", &serde_json::to_string(&listed).unwrap());
    for table in ["customers", "orders"] {
        let described = call(&client, "describe_table", json!({ "table": table })).await;
        assert_eq!(described.is_error, Some(false), "{}", text(&described));
        assert_no_denied_names(
            "describe_table",
            &serde_json::to_string(&described).unwrap(),
        );
    }
    let hidden = call(&client, "describe_table", json!({ "table": "secrets" })).await;
    assert_eq!(hidden.is_error, Some(true), "{}", text(&hidden));

    let sql = "SELECT id, name, email, notes FROM customers ORDER BY id";
    let rows = call(&client, "execute_sql", json!({ "sql_query": sql })).await;
    let rows_id = query_id(sql, &rows);
    assert!(text(&rows).contains("values masked"), "{}", text(&rows));
    assert!(
        !planted::hashes_in(&text(&rows)).is_empty(),
        "{}",
        text(&rows)
    );
    let page = call(
        &client,
        "read_query_result",
        json!({"query_id": rows_id, "offset": 20, "limit": 20}),
    )
    .await;
    assert_eq!(page.is_error, Some(false), "{}", text(&page));
    assert!(
        !planted::hashes_in(&text(&page)).is_empty(),
        "{}",
        text(&page)
    );

    let sql = "SELECT email, count(*) AS n FROM customers GROUP BY email";
    let grouped = call(&client, "execute_sql", json!({ "sql_query": sql })).await;
    query_id(sql, &grouped);
    assert_eq!(
        grouped.structured_content.as_ref().unwrap()["row_count"],
        planted::email_groups(),
        "GROUP BY over hashes keeps the groups"
    );
    let sql = "SELECT count(DISTINCT email) AS n FROM customers";
    let distinct = call(&client, "execute_sql", json!({ "sql_query": sql })).await;
    query_id(sql, &distinct);
    assert!(
        text(&distinct).contains(&format!("| {} |", planted::distinct_emails())),
        "{}",
        text(&distinct)
    );

    for sql in planted::REVEALING.iter().chain(&planted::DENIED) {
        let refused = call(&client, "execute_sql", json!({ "sql_query": sql })).await;
        assert_eq!(refused.is_error, Some(true), "{sql}: {}", text(&refused));
    }
    for sql in planted::MASKED_THROUGH {
        let masked = call(&client, "execute_sql", json!({ "sql_query": sql })).await;
        query_id(sql, &masked);
        assert!(text(&masked).contains("values masked"), "{}", text(&masked));
    }
    // Whatever the guard and the engine decide, nothing planted shows.
    for sql in ["SELECT * FROM (SELECT email FROM customers) s"]
        .iter()
        .chain(&planted::IMPLICIT_CASTS)
    {
        call(&client, "execute_sql", json!({ "sql_query": sql })).await;
    }
    let unknown = call(
        &client,
        "read_query_result",
        json!({"query_id": "q_aaaaaaaaaaaaaaaa"}),
    )
    .await;
    assert_eq!(unknown.is_error, Some(true));
    client.cancel().await.unwrap();

    // What the server keeps behind the query ids is masked too.
    let stored = ctx
        .results()
        .get(&QueryId::from_model(&rows_id))
        .await
        .expect("the result is stored");
    let values = support::texts(&stored.batches);
    assert!(values.iter().any(|v| planted::is_hash(v)), "{values:?}");
    for value in values {
        assert_no_leak("the stored result", &value);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_planted_byte_reaches_an_mcp_client_on_sqlite() {
    let dir = TestDir::new("mcp-governance");
    let path = dir.path("gov.sqlite");
    let connection = nao_dialects::sqlite::rusqlite::Connection::open(&path).unwrap();
    connection
        .execute_batch(&planted::script(planted::Engine::Sqlite))
        .unwrap();
    drop(connection);
    no_byte_leaks(&format!("sqlite://{}", path.display())).await;
}

#[cfg(feature = "duckdb")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_planted_byte_reaches_an_mcp_client_on_duckdb() {
    let dir = TestDir::new("mcp-governance");
    let path = dir.path("gov.duckdb");
    let connection = nao_dialects::duckdb::driver::Connection::open(&path).unwrap();
    connection
        .execute_batch(&planted::script(planted::Engine::DuckDb))
        .unwrap();
    drop(connection);
    // DuckDB answers `email = 5` with an error quoting an email; the policy layer scrubs it.
    no_byte_leaks(&format!("duckdb://{}", path.display())).await;
}

#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_planted_byte_reaches_an_mcp_client_on_postgres() {
    let Some(url) = support::postgres::server_url() else {
        return;
    };
    let planted = support::postgres::PlantedSchema::new(&url).await;
    no_byte_leaks(&planted.reader_url()).await;
}

#[cfg(feature = "mysql")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_planted_byte_reaches_an_mcp_client_on_mysql() {
    let Some(url) = support::mysql::server_url() else {
        return;
    };
    let planted = support::mysql::PlantedDatabase::new(&url).await;
    no_byte_leaks(&planted.reader_url()).await;
}
