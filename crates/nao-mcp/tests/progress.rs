//! Progress notifications: a call whose request carries a progress token hears that it is
//! still running, with increasing progress, and nothing after its result; a call without a
//! token hears nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod in_memory;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use nao_core::{Databases, Settings, ToolContext, tools};
use nao_mcp::McpServer;
use rmcp::model::{CallToolRequestParams, ClientConfig, ProgressNotificationParam};
use rmcp::service::{NotificationContext, RoleClient, RunningService};
use rmcp::{ClientHandler, ServiceExt};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

/// A client that keeps every progress notification it hears.
#[derive(Clone, Default)]
struct Heard(Arc<Mutex<Vec<ProgressNotificationParam>>>);

impl Heard {
    fn notes(&self) -> Vec<ProgressNotificationParam> {
        self.0.lock().unwrap().clone()
    }
}

impl ClientHandler for Heard {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.0.lock().unwrap().push(params);
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::default()
    }
}

/// The server over the demo shop, reporting progress every 20 ms, served on an in-memory
/// pipe whose other end is returned.
fn serve() -> DuplexStream {
    let shop = nao_mcp::app::demo_database().unwrap();
    let ctx = ToolContext::new(Databases::new().with(shop)).with_settings(Settings::default());
    in_memory::serve(
        McpServer::new(tools::sql_tools(), ctx).with_progress_interval(Duration::from_millis(20)),
    )
}

async fn connect(heard: Heard) -> RunningService<RoleClient, Heard> {
    heard.serve(serve()).await.expect("client connects")
}

/// A statement that keeps SQLite busy for a while (hundreds of milliseconds at least, on any
/// machine) before its one row comes back.
fn slow_query() -> CallToolRequestParams {
    let sql = "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 1000000) \
               SELECT count(*) AS c FROM n";
    let serde_json::Value::Object(arguments) = json!({ "sql_query": sql }) else {
        unreachable!()
    };
    CallToolRequestParams::new("execute_sql").with_arguments(arguments)
}

#[tokio::test]
async fn a_long_call_with_a_progress_token_hears_increasing_progress_until_its_result() {
    let heard = Heard::default();
    let client = connect(heard.clone()).await;
    // rmcp's client gives every request a progress token of its own.
    let result = client
        .call_tool(slow_query())
        .await
        .expect("tools/call answers");
    assert_eq!(result.is_error, Some(false), "{result:?}");
    // Notifications may still be on their way to the client's handler: give them time.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let heard_by_then = heard.notes();
    assert!(
        !heard_by_then.is_empty(),
        "a call running for longer than the interval heard no progress"
    );
    for pair in heard_by_then.windows(2) {
        assert!(pair[0].progress < pair[1].progress, "{heard_by_then:?}");
    }
    let token = &heard_by_then[0].progress_token;
    for note in &heard_by_then {
        assert_eq!(&note.progress_token, token);
        let message = note.message.as_deref().unwrap_or("");
        assert!(
            message.starts_with("execute_sql still running after")
                && message.ends_with(" rows read"),
            "{message}"
        );
    }
    // The reports ended with the call: ten more intervals bring none.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(heard.notes().len(), heard_by_then.len());
    client.cancel().await.unwrap();
}

/// A client that speaks JSON-RPC itself, so that its request carries no progress token.
#[tokio::test]
async fn a_call_without_a_progress_token_hears_nothing() {
    let (read, mut write) = tokio::io::split(serve());
    let mut lines = BufReader::new(read).lines();
    let mut send = async |message: serde_json::Value| {
        let mut line = message.to_string();
        line.push('\n');
        write.write_all(line.as_bytes()).await.unwrap();
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}}),
    )
    .await;
    let initialized = lines.next_line().await.unwrap().unwrap();
    assert!(initialized.contains("\"id\":1"), "{initialized}");
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    let request = slow_query();
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": request.name, "arguments": request.arguments}}),
    )
    .await;
    let mut progress = 0;
    loop {
        let line = lines
            .next_line()
            .await
            .unwrap()
            .expect("the server answers");
        let message: serde_json::Value = serde_json::from_str(&line).unwrap();
        if message["method"] == "notifications/progress" {
            progress += 1;
        }
        if message["id"] == 2 {
            assert_eq!(message["result"]["isError"], false, "{line}");
            break;
        }
    }
    assert_eq!(
        progress, 0,
        "notifications for a request without a progress token"
    );
}
