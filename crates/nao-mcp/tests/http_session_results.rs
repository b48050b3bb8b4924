//! Results belong to their HTTP session, in process: another session cannot page them, and
//! they are dropped when the session ends (DELETE), so a finished client's results neither
//! hold memory nor push out another session's.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod http;

use std::sync::Arc;
use std::time::Duration;

use http::{HttpClient, WAIT};
use nao_core::{Databases, ResultStore, ToolContext, tools};
use nao_mcp::McpServer;
use nao_mcp::http::{HttpConfig, serve_listener};
use serde_json::json;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// The demo shop served on a free port; the host's view of the result store; a guard that
/// stops the server when dropped.
async fn serve() -> (HttpClient, Arc<ResultStore>, tokio_util::sync::DropGuard) {
    let shop = nao_mcp::app::demo_database().unwrap();
    let ctx = ToolContext::new(Databases::new().with(shop));
    let results = ctx.results().clone();
    let server = McpServer::new(tools::sql_tools(), ctx);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let shutdown = CancellationToken::new();
    let stop = shutdown.clone();
    tokio::spawn(
        async move { serve_listener(server, listener, &HttpConfig::default(), stop).await },
    );
    (HttpClient { addr }, results, shutdown.drop_guard())
}

#[tokio::test]
async fn a_sessions_results_are_its_own_and_go_with_it() {
    let (client, results, _server) = serve().await;
    let (alice, bob) = (client.open_session().await, client.open_session().await);
    let ran = client
        .execute_sql(&alice, 2, "SELECT * FROM orders")
        .await
        .json();
    let query_id = ran["result"]["structuredContent"]["query_id"]
        .as_str()
        .unwrap_or_else(|| panic!("{ran}"))
        .to_owned();
    let page = |session: String| {
        let query_id = query_id.clone();
        async move {
            client
                .in_session(
                    &session,
                    &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
                        "name": "read_query_result",
                        "arguments": {"query_id": query_id, "offset": 0, "limit": 5}}}),
                )
                .await
                .json()
        }
    };
    let own = page(alice.clone()).await;
    assert_eq!(own["result"]["isError"], json!(false), "{own}");
    let other = page(bob.clone()).await;
    assert_eq!(
        other["result"]["isError"],
        json!(true),
        "another session paged it: {other}"
    );
    assert_eq!(results.ids().len(), 1);
    assert!(results.memory_in_use() > 0);

    assert!(client.delete(&alice).await.status < 300);
    tokio::time::timeout(WAIT, async {
        while !results.ids().is_empty() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the ended session's results are dropped");
    assert_eq!(results.memory_in_use(), 0);
    // The other session is still served.
    assert_eq!(client.list_tools(&bob).await.status, 200);
}
