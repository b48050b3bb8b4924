//! Named queries of the `--config` file as tools (issue 18): listed with their parameters'
//! JSON Schema, called through MCP, checked at startup, and never injectable. The model's
//! values are written into the operator's SQL as literals: every attempt to end a literal
//! early (quotes, backslash-quote on MySQL, comment starts, semicolons, Unicode quote
//! look-alikes) must come back as the very string that was sent, and a lookup by such a value
//! must find nothing.
//!
//! Runs on a SQLite file always, and on PostgreSQL (with `standard_conforming_strings` off for
//! the role, where a plain literal's backslashes would be escapes) and MySQL/MariaDB (`postgres`
//! and `mysql` features, with `NAO_TEST_POSTGRES_URL` and `NAO_TEST_MYSQL_URL`); a server leg
//! says why it skips when its variable is unset.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../../tests/support/mod.rs"]
mod support;

mod in_memory;

use support::test_dir::TestDir;

use in_memory::{call, connect, text};
use nao_core::QueryId;
use nao_mcp::McpServer;
use nao_mcp::options::Options;
use rmcp::model::CallToolResult;
use serde_json::{Value, json};

/// Strings that try to leave their literal, per engine family, and ordinary awkward ones.
const ATTACKS: [&str; 18] = [
    "' OR '1'='1",
    "x' OR 1=1 --",
    "x'; DROP TABLE customers; --",
    "x' UNION SELECT id, token FROM secrets --",
    "x' UNION SELECT id, token FROM secrets #",
    "\\' UNION SELECT id, token FROM secrets -- ",
    "\\\\' OR 1=1 /*",
    "x\\'); SELECT 1; --",
    "x\u{2019} OR 1=1 --",
    "x\u{02BC} OR 1=1 --",
    "x\u{FF07} OR 1=1 --",
    "x\u{2032}) OR (1=1",
    "/* open comment",
    "-- line comment",
    "a\nb\r\nc\td",
    "é ü 中文 🦀 \u{200B}",
    "%_\\%\\_",
    "Customer 07' --",
];

/// The config file of the tests: three named queries over the database `db`.
fn config(url: &str, policy: &str) -> String {
    format!(
        r#"
[databases.db]
url = "{url}"

[policy]
{policy}

[tools.echo]
description = "Returns the text it is given."
sql = "SELECT :s AS v"
parameters.s = {{ type = "string", description = "Any text." }}

[tools.customer_by_name]
description = "The customer with this exact name."
database = "db"
sql = """
SELECT id, name FROM customers
WHERE name = :name -- the name as given
ORDER BY id"""
parameters.name = {{ type = "string", description = "A customer's full name." }}

[tools.customers_below]
description = "Customers whose id is below a bound, optionally only the first ones."
sql = "SELECT id FROM customers WHERE id < :bound AND (:everyone OR id > 1) AND id * 1.0 >= :floor ORDER BY id LIMIT :n"
parameters.bound = {{ type = "integer", description = "Exclusive upper bound of the id." }}
parameters.everyone = {{ type = "boolean", description = "Include customer 1.", default = true }}
parameters.floor = {{ type = "number", description = "Least id.", default = 0 }}
parameters.n = {{ type = "integer", description = "How many.", default = 100 }}
"#
    )
}

/// The server the config file describes.
async fn server(dir: &TestDir, config_text: &str) -> Result<McpServer, String> {
    let path = dir.path("nao-mcp.toml");
    std::fs::write(&path, config_text).unwrap();
    let options = Options::parse([format!("--config={}", path.display())], |_| None)
        .map_err(|e| e.to_string())?;
    nao_mcp::app::build_server(&options)
        .await
        .map_err(|e| e.to_string())
}

/// The stored rows of a successful call, each column's text values.
async fn rows(
    server_ctx: &nao_core::ToolContext,
    what: &str,
    result: &CallToolResult,
) -> Vec<String> {
    assert_eq!(result.is_error, Some(false), "{what}: {}", text(result));
    let id = result.structured_content.as_ref().unwrap()["query_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let stored = server_ctx
        .results()
        .get(&QueryId::from_model(&id))
        .await
        .unwrap();
    support::texts(&stored.batches)
}

/// Every attack through `echo` comes back as itself, and finds no customer by name.
/// `carries` says which strings the engine's literals can hold (NUL is refused before any
/// SQL is written, as is what the parser cannot read back).
async fn no_injection(server: McpServer, engine: &str, carries: impl Fn(&str) -> bool) {
    let ctx = server.context().clone();
    let client = connect(server).await;
    for attack in ATTACKS.iter().copied().chain(["Customer 07", "x\0y"]) {
        let what = format!("{engine}: echo {attack:?}");
        let echoed = call(&client, "echo", json!({ "s": attack })).await;
        if !carries(attack) {
            assert_eq!(echoed.is_error, Some(true), "{what}: {}", text(&echoed));
            assert!(
                text(&echoed).contains("invalid_arguments"),
                "{what}: {}",
                text(&echoed)
            );
            continue;
        }
        assert_eq!(rows(&ctx, &what, &echoed).await, [attack], "{what}");

        let what = format!("{engine}: customer_by_name {attack:?}");
        let found = call(&client, "customer_by_name", json!({ "name": attack })).await;
        let found_rows = rows(&ctx, &what, &found).await;
        let serialized = serde_json::to_string(&found).unwrap();
        support::planted::assert_no_leak(&what, &serialized);
        if attack == "Customer 07" {
            assert_eq!(found_rows, ["Customer 07"], "{what}");
        } else {
            assert!(found_rows.is_empty(), "{what}: {found_rows:?}");
        }
    }
    client.cancel().await.unwrap();
}

/// `x\0y` needs an escape for NUL; backslashes and quotes read back everywhere else.
fn carries_all_but_nul(value: &str) -> bool {
    !value.contains('\0')
}

/// A SQLite file with the planted shop.
fn planted_sqlite(dir: &TestDir) -> String {
    let path = dir.path("shop.db");
    let conn = nao_dialects::sqlite::rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(&support::planted::script(support::planted::Engine::Sqlite))
        .unwrap();
    format!("sqlite://{}", path.display())
}

#[tokio::test]
async fn named_queries_are_listed_with_their_schema_and_called() {
    let dir = TestDir::new("mcp-named");
    let url = planted_sqlite(&dir);
    let server = server(&dir, &config(&url, "")).await.unwrap();
    let ctx = server.context().clone();
    let client = connect(server).await;
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "customer_by_name",
            "customers_below",
            "describe_table",
            "echo",
            "execute_sql",
            "list_tables",
            "read_query_result"
        ]
    );
    let below = tools.iter().find(|t| t.name == "customers_below").unwrap();
    assert_eq!(
        Value::Object((*below.input_schema).clone()),
        json!({
            "type": "object",
            "properties": {
                "bound": {"type": "integer", "description": "Exclusive upper bound of the id."},
                "everyone": {"type": "boolean", "description": "Include customer 1.", "default": true},
                "floor": {"type": "number", "description": "Least id.", "default": 0},
                "n": {"type": "integer", "description": "How many.", "default": 100},
            },
            "required": ["bound"],
            "additionalProperties": false,
        })
    );
    let description = below.description.as_deref().unwrap();
    assert!(
        description.starts_with("Customers whose id is below a bound"),
        "{description}"
    );
    assert!(description.contains("\"db\""), "{description}");
    assert_eq!(
        below.annotations.as_ref().unwrap().read_only_hint,
        Some(true)
    );

    let ids = |result: CallToolResult| {
        let ctx = ctx.clone();
        async move { rows(&ctx, "customers_below", &result).await }
    };
    let result = call(&client, "customers_below", json!({"bound": 4})).await;
    let structured = result.structured_content.clone().unwrap();
    assert_eq!(
        structured["executed_sql"].as_str().unwrap(),
        "SELECT id FROM customers WHERE id < 4 AND (TRUE OR id > 1) AND id * 1.0 >= 0 ORDER BY id LIMIT 100"
    );
    assert_eq!(structured["row_count"], 3);
    assert!(text(&result).contains("| id"), "{}", text(&result));
    let _ = ids(result).await;
    let result = call(
        &client,
        "customers_below",
        json!({"bound": 6, "everyone": false, "floor": 2.5, "n": 2}),
    )
    .await;
    assert_eq!(
        result.structured_content.as_ref().unwrap()["executed_sql"],
        "SELECT id FROM customers WHERE id < 6 AND (FALSE OR id > 1) AND id * 1.0 >= 2.5 ORDER BY id LIMIT 2"
    );
    assert_eq!(result.structured_content.as_ref().unwrap()["row_count"], 2);
    // A negative number cannot turn `-` into a comment.
    let result = call(&client, "customers_below", json!({"bound": -1})).await;
    assert!(
        result.structured_content.as_ref().unwrap()["executed_sql"]
            .as_str()
            .unwrap()
            .contains("id < (-1)")
    );
    assert_eq!(result.structured_content.as_ref().unwrap()["row_count"], 0);

    // The schema is enforced before any SQL is written.
    for (arguments, expected) in [
        (json!({}), "bound"),
        (json!({"bound": "1 OR 1=1"}), "bound"),
        (json!({"bound": 1.5}), "bound"),
        (json!({"bound": 1, "everyone": "yes"}), "everyone"),
        (json!({"bound": 1, "limit": 3}), "limit"),
    ] {
        let result = call(&client, "customers_below", arguments.clone()).await;
        assert_eq!(result.is_error, Some(true), "{arguments}");
        let message = text(&result);
        assert!(
            message.contains("invalid_arguments") && message.contains(expected),
            "{arguments}: {message}"
        );
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn sqlite_values_stay_literals() {
    let dir = TestDir::new("mcp-named");
    let url = planted_sqlite(&dir);
    let server = server(&dir, &config(&url, "")).await.unwrap();
    no_injection(server, "SQLite", carries_all_but_nul).await;
}

#[tokio::test]
async fn templates_are_checked_at_startup() {
    let dir = TestDir::new("mcp-named");
    let url = planted_sqlite(&dir);
    let with_tool = |tool: &str, policy: &str| {
        format!(
            "[databases.db]\nurl = \"{url}\"\n[policy]\n{policy}\n[tools.t]\ndescription = \"d\"\n{tool}\n"
        )
    };
    for (tool, policy, expected) in [
        (
            "sql = \"SELECT * FROM customers WHERE id = :id\"",
            "",
            "uses :id, which is not among its parameters",
        ),
        (
            "sql = \"SELECT 1\"\nparameters.id = { type = \"integer\", description = \"i\" }",
            "",
            "the parameter id is declared but its sql never uses :id",
        ),
        (
            "sql = \"SELECT * FROM :tbl\"\nparameters.tbl = { type = \"string\", description = \"t\" }",
            "",
            "does not parse as SQLite SQL",
        ),
        (
            "sql = \"DELETE FROM customers WHERE id = :id\"\nparameters.id = { type = \"integer\", description = \"i\" }",
            "",
            "refused by the guard or the policy",
        ),
        (
            "sql = \"SELECT token FROM secrets WHERE id = :id\"\nparameters.id = { type = \"integer\", description = \"i\" }",
            "deny_tables = [\"secrets\"]",
            "refused by the guard or the policy",
        ),
        ("sql = \"SELECT 1; SELECT 2\"", "", "holds 2 statements"),
        ("sql = \"SELECT $1\"", "", "write parameters as :name"),
        (
            "database = \"elsewhere\"\nsql = \"SELECT 1\"",
            "",
            "there is no database \"elsewhere\"",
        ),
    ] {
        let error = server(&dir, &with_tool(tool, policy))
            .await
            .err()
            .unwrap_or_default();
        assert!(
            error.contains("named query \"t\"") && error.contains(expected),
            "{tool}: {error}"
        );
    }
    // Several databases: a named query says which.
    let two = format!(
        "[databases.a]\nurl = \"{url}\"\n[databases.b]\nurl = \"{url}\"\n\
         [tools.t]\ndescription = \"d\"\nsql = \"SELECT 1\"\n"
    );
    let error = server(&dir, &two).await.err().unwrap_or_default();
    assert!(error.contains("database = "), "{error}");
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn postgres_values_stay_literals_whatever_standard_conforming_strings() {
    use nao_dialects::postgres::driver::{Config, NoTls};
    use std::str::FromStr;
    let Some(admin_url) = support::postgres::server_url() else {
        return;
    };
    let planted = support::postgres::PlantedSchema::new(&admin_url).await;
    // Backslashes in a plain literal are escapes for this role's sessions: only `E''` keeps a
    // value with backslashes exact whatever the setting.
    let (admin, connection) = Config::from_str(&admin_url)
        .unwrap()
        .connect(NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    admin
        .batch_execute(&format!(
            "ALTER ROLE {} SET standard_conforming_strings = off",
            planted.role
        ))
        .await
        .unwrap();
    let dir = TestDir::new("mcp-named");
    let server = server(&dir, &config(&planted.reader_url(), ""))
        .await
        .unwrap();
    no_injection(server, "PostgreSQL", carries_all_but_nul).await;
}

#[cfg(feature = "mysql")]
#[tokio::test]
async fn mysql_values_stay_literals() {
    let Some(admin_url) = support::mysql::server_url() else {
        return;
    };
    let planted = support::mysql::PlantedDatabase::new(&admin_url).await;
    let dir = TestDir::new("mcp-named");
    let server = server(&dir, &config(&planted.reader_url(), ""))
        .await
        .unwrap();
    // MySQL has an escape for NUL: every value reads back.
    no_injection(server, "MySQL", |_| true).await;
}
