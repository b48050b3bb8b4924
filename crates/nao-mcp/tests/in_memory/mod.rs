//! A server driven in-process over an in-memory pipe, for the tests that speak MCP to it
//! through rmcp's own client (or raw JSON-RPC on the pipe).
#![allow(dead_code)] // Each test file uses part of it.

use nao_mcp::McpServer;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use serde_json::Value;
use tokio::io::DuplexStream;

/// Serves `server` on one end of an in-memory pipe, until the other end, returned, closes.
pub(crate) fn serve(server: McpServer) -> DuplexStream {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = server.serve(server_io).await.expect("server starts");
        let _ = running.waiting().await;
    });
    client_io
}

/// rmcp's client, initialized, of `server`.
pub(crate) async fn connect(server: McpServer) -> RunningService<RoleClient, ()> {
    ().serve(serve(server)).await.expect("client connects")
}

/// Calls a tool; `arguments` must be a JSON object.
pub(crate) async fn call(
    client: &RunningService<RoleClient, ()>,
    name: &str,
    arguments: Value,
) -> CallToolResult {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object")
    };
    client
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(arguments))
        .await
        .expect("tools/call answers")
}

/// The text content of a tool result.
pub(crate) fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}
