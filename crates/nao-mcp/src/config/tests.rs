#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::time::Duration;

use serde_json::json;

use super::*;

const EXAMPLE: &str = include_str!("../../examples/nao-mcp.toml");

fn no_env(_: &str) -> Option<String> {
    None
}

fn load_text(text: &str) -> Result<Loaded, ConfigError> {
    parse(text, "nao.toml", Path::new("/etc/nao"), &no_env)
}

fn error(text: &str) -> String {
    load_text(text).unwrap_err().0
}

#[test]
fn the_example_file_loads() {
    let loaded = load_text(EXAMPLE).unwrap();
    assert!(loaded.cli.demo);
    assert_eq!(loaded.cli.deny_tables, ["payments"]);
    assert_eq!(loaded.cli.timeout, Some(Duration::from_secs(30)));
    assert_eq!(loaded.cli.max_spill, Some(2 << 30));
    assert_eq!(loaded.cli.result_budget, Some(256 << 20));
    let names: Vec<&str> = loaded.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["orders_by_status", "revenue_by_country"]);
    let orders = &loaded.tools[0];
    assert_eq!(orders.database.as_deref(), Some("shop"));
    // Parameters keep the file's order.
    let parameters: Vec<&str> = orders.parameters.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(parameters, ["status", "limit"]);
    assert!(orders.parameters[0].required);
    assert_eq!(orders.parameters[1].default, Some(json!(20)));
    let channel = &loaded.tools[1].parameters[0];
    assert!(!channel.required && channel.default.is_none());
}

#[test]
fn every_key_is_read() {
    let env = |name: &str| (name == "WAREHOUSE_URL").then(|| "postgres://u:pw@h/w".to_owned());
    let text = r#"
        [server]
        demo = true
        log_level = "DEBUG"
        drain_timeout = "2.5s"
        max_request_bytes = 1_000
        [databases.warehouse]
        url_env = "WAREHOUSE_URL"
        [databases.events]
        url = "duckdb:///data/events.duckdb"
        [connections]
        set_role = "nao_reader"
        allow_privileged = true
        [policy]
        allow_tables = ["orders"]
        deny_tables = ["hr.*"]
        deny_columns = ["*.ssn"]
        mask_columns = ["customers.email=hash", "*.phone=partial:2"]
        mask_key_file = "keys/mask.key"
        detect_personal_values = true
        [limits]
        max_rows = 500
        timeout = 2.5
        max_running = 3
        max_waiting = 40
        max_wait = 0
        [engines]
        memory_limit = "512MiB"
        threads = 2
        spill_dir = "/var/tmp/nao"
        max_spill = "1GB"
        duckdb_in_process = true
        [results]
        budget = "64MiB"
        [http]
        listen = "127.0.0.1:8080"
        max_sessions = 7
        session_idle_timeout = 90
        max_connections = 64
        allow_origins = ["https://app.example.com"]
        allow_hosts = ["mcp.example.com"]
        auth_token_env = "NAO_TOKEN"
        auth_token_file = "token"
    "#;
    let cli = parse(text, "nao.toml", Path::new("/etc/nao"), &env)
        .unwrap()
        .cli;
    assert!(cli.demo && cli.allow_privileged && cli.detect_personal_values);
    assert_eq!(cli.log_level.as_deref(), Some("debug"));
    assert_eq!(cli.drain_timeout, Some(Duration::from_millis(2500)));
    assert_eq!(cli.max_request_bytes, Some(1000));
    assert_eq!(cli.databases.len(), 2);
    assert_eq!(cli.databases[0].name, "warehouse");
    assert_eq!(cli.databases[0].url, "postgres://u:pw@h/w");
    assert_eq!(cli.databases[1].url, "duckdb:///data/events.duckdb");
    assert_eq!(cli.set_role.as_deref(), Some("nao_reader"));
    assert_eq!(cli.allow_tables, ["orders"]);
    assert_eq!(cli.deny_tables, ["hr.*"]);
    assert_eq!(cli.deny_columns, ["*.ssn"]);
    assert_eq!(cli.mask_columns.len(), 2);
    assert_eq!(
        cli.mask_key_file.as_deref(),
        Some(Path::new("/etc/nao/keys/mask.key"))
    );
    assert_eq!(cli.max_rows, Some(500));
    assert_eq!(cli.timeout, Some(Duration::from_millis(2500)));
    assert_eq!(cli.max_running, Some(3));
    assert_eq!(cli.max_waiting, Some(40));
    assert_eq!(cli.max_wait, Some(Duration::ZERO));
    assert_eq!(cli.memory_limit, Some(512 << 20));
    assert_eq!(cli.engine_threads, Some(2));
    assert_eq!(cli.spill_dir.as_deref(), Some(Path::new("/var/tmp/nao")));
    assert_eq!(cli.max_spill, Some(1_000_000_000));
    assert!(cli.duckdb_in_process);
    assert_eq!(cli.result_budget, Some(64 << 20));
    assert_eq!(cli.http, Some("127.0.0.1:8080".parse().unwrap()));
    assert_eq!(cli.max_sessions, Some(7));
    assert_eq!(cli.session_idle_timeout, Some(Duration::from_secs(90)));
    assert_eq!(cli.max_connections, Some(64));
    assert_eq!(cli.allowed_origins, ["https://app.example.com:443"]);
    assert_eq!(cli.allowed_hosts, ["mcp.example.com"]);
    assert_eq!(cli.auth_token_env.as_deref(), Some("NAO_TOKEN"));
    assert_eq!(
        cli.auth_token_file.as_deref(),
        Some(Path::new("/etc/nao/token"))
    );
}

#[test]
fn unknown_keys_are_named_with_their_line() {
    let message = error("[limits]\nmax_rows = 5\nmax_rowz = 5\n");
    assert!(
        message.starts_with("nao.toml, line 3, column 1: "),
        "{message}"
    );
    assert!(
        message.contains("max_rowz") && message.contains("max_rows"),
        "{message}"
    );
    let message = error("[server]\ndemo = true\n\n[limitz]\nmax_rows = 5\n");
    assert!(
        message.contains("line 4") && message.contains("limitz"),
        "{message}"
    );
    let message = error(
        "[tools.t]\ndescription = \"d\"\nsql = \"SELECT 1\"\nparameters.p = { type = \"string\", description = \"p\", dflt = \"x\" }\n",
    );
    assert!(
        message.contains("line 4") && message.contains("dflt"),
        "{message}"
    );
}

#[test]
fn values_are_checked_by_the_flags_rules() {
    let message = error("[limits]\ntimeout = \"soon\"\n");
    assert_eq!(
        message,
        "nao.toml, line 2, column 11: limits.timeout wants seconds, got \"soon\""
    );
    let message = error("[engines]\nmemory_limit = \"lots\"\n");
    assert!(
        message.contains("engines.memory_limit wants a size like 512MiB"),
        "{message}"
    );
    let message = error("[http]\nallow_origins = [\"ftp://x\"]\n");
    assert!(
        message.contains("http.allow_origins wants an origin"),
        "{message}"
    );
    let message = error("[limits]\nmax_rows = true\n");
    assert!(
        message.contains("line 2") && message.contains("a number or a string"),
        "{message}"
    );
    let message = error("[server]\nlog_level = \"loud\"\n");
    assert!(
        message.contains("server.log_level wants error, warn"),
        "{message}"
    );
    let message = error("[policy]\nmask_columns = [\"customers.email\"]\n");
    assert!(
        message.contains("policy.mask_columns wants PATTERN=RULE"),
        "{message}"
    );
}

#[test]
fn databases_want_one_url_and_a_set_variable() {
    let message = error("[databases.w]\nurl_env = \"NAO_NOT_SET\"\n");
    assert!(
        message.contains("line 2") && message.contains("\"NAO_NOT_SET\" is not set"),
        "{message}"
    );
    let message = error("[databases.w]\nurl = \"sqlite::memory:\"\nurl_env = \"X\"\n");
    assert!(
        message.contains("exactly one of url and url_env"),
        "{message}"
    );
    let message = error("[databases.w]\n");
    assert!(
        message.contains("exactly one of url and url_env"),
        "{message}"
    );
    let message = error("[databases.\"a b\"]\nurl = \"sqlite::memory:\"\n");
    assert!(message.contains("a database name is"), "{message}");
}

#[test]
fn no_password_in_any_error() {
    let secret = "s3cr3t-PLANTED";
    let url = format!("postgres://u:{secret}@h/db");
    for text in [
        format!("[databases.x]\nurl = \"{url}\"\n[limits]\nmax_rows = \"{url}\"\n"),
        format!("[databases.x]\nurl = \"{url}\"\n[server]\ndemo = \"{url}\"\n"),
        format!("[databases.x]\nurl = \"{url}\"\nport = 5\n"),
        format!("[databases.x]\nurl = [\"{url}\"]\n"),
        format!("[http]\nlisten = \"{url}\"\n"),
        format!("[http]\nallow_hosts = [\"{url}\"]\n"),
        format!("[policy]\nallow_tables = \"{url}\"\n"),
        format!(
            "[tools.t]\ndescription = \"d\"\nsql = \"SELECT 1\"\nparameters.p = {{ type = \"integer\", description = \"p\", default = \"{url}\" }}\n"
        ),
        format!("[databases.x]\nurl = \"{url}\n"),
    ] {
        let message = error(&text);
        assert!(!message.contains(secret), "{message}");
    }
}

#[test]
fn named_query_declarations_are_checked() {
    let tool = |parameters: &str| {
        format!("[tools.q]\ndescription = \"d\"\nsql = \"SELECT :p\"\n{parameters}\n")
    };
    let message = error(&tool(
        "parameters.p = { type = \"float\", description = \"p\" }",
    ));
    assert!(
        message.contains("unknown variant `float`") && message.contains("line 4"),
        "{message}"
    );
    let message = error(&tool(
        "parameters.p = { type = \"integer\", description = \"p\", default = \"x\" }",
    ));
    assert!(
        message.contains("tools.q.parameters.p.default is not a integer value"),
        "{message}"
    );
    let message = error(&tool(
        "parameters.p = { type = \"integer\", description = \"p\", default = 1, required = true }",
    ));
    assert!(
        message.contains("a parameter with a default is not required"),
        "{message}"
    );
    let message = error(&tool(
        "parameters.\"p-1\" = { type = \"string\", description = \"p\" }",
    ));
    assert!(message.contains("a parameter name is"), "{message}");
    let message = error(&tool("parameters.p = { type = \"string\" }"));
    assert!(message.contains("missing field `description`"), "{message}");
    let message = error("[tools.execute_sql]\ndescription = \"d\"\nsql = \"SELECT 1\"\n");
    assert!(
        message.contains("a built-in tool has this name"),
        "{message}"
    );
    let message = error("[tools.\"a b\"]\ndescription = \"d\"\nsql = \"SELECT 1\"\n");
    assert!(message.contains("a tool name is"), "{message}");
    let message = error("[tools.q]\ndescription = \" \"\nsql = \"SELECT 1\"\n");
    assert!(message.contains("say what the query answers"), "{message}");
    let message = error("[tools.q]\ndescription = \"d\"\nsql = \"\"\n");
    assert!(message.contains("tools.q.sql is empty"), "{message}");
    let loaded = load_text(&tool(
        "parameters.p = { type = \"number\", description = \"p\", default = 2 }",
    ))
    .unwrap();
    assert_eq!(loaded.tools[0].parameters[0].kind, ParameterType::Number);
    assert_eq!(loaded.tools[0].parameters[0].default, Some(json!(2)));
}
