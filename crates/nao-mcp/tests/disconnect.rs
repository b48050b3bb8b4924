//! A client that goes away mid-call stops its statement: over streamable HTTP by closing the
//! connection (the call is cancelled once the client has not resumed within the SSE retry
//! interval plus a second), over stdio by closing its end of stdout.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod http;
mod stdio;

use http::{ENDLESS_SQL, HttpServer};
use serde_json::json;
use stdio::Server;

#[tokio::test]
async fn an_http_client_that_hangs_up_cancels_its_statement() {
    let server = HttpServer::start(&["--log-level", "debug", "--timeout", "3600"]).await;
    let session = server.open_session().await;
    let stream = server.start_call(&session, 30, ENDLESS_SQL).await;
    drop(stream);
    // The server's own account of how the call ended: without the disconnect it would run
    // for the whole hour of --timeout.
    let line = server
        .wait_for_log(&["call ended", "id=30", "outcome=\"cancelled\""])
        .await;
    assert!(line.contains("execute_sql"), "{line}");
    // The session goes on serving.
    let reply = server
        .execute_sql(&session, 31, "SELECT count(*) AS n FROM products")
        .await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert!(
        reply.json()["result"]["isError"] != json!(true),
        "{reply:?}"
    );
}

#[tokio::test]
async fn an_http_client_that_stays_keeps_its_call() {
    let server = HttpServer::start(&["--log-level", "debug"]).await;
    let session = server.open_session().await;
    // A call whose client reads to the end is answered, not cancelled.
    let reply = server
        .execute_sql(&session, 40, "SELECT count(*) AS n FROM orders")
        .await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let line = server.wait_for_log(&["call ended", "id=40"]).await;
    assert!(line.contains("outcome=\"ok\""), "{line}");
}

#[tokio::test]
async fn a_stdio_client_that_closes_its_pipes_cancels_its_statement() {
    let mut server = Server::start(&["--log-level", "debug", "--timeout", "3600"]).await;
    server
        .send(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "execute_sql", "arguments": {"sql_query": ENDLESS_SQL}}}),
        )
        .await;
    // A list sent after the call is answered: the call is running.
    server.ping(2).await;
    server.hang_up();
    let (status, stderr) = server.exit().await;
    assert!(status.code().is_some(), "killed by a signal: {status:?}");
    assert!(
        stderr.contains("the client closed stdout"),
        "the server saw the reader go: {stderr}"
    );
    let ended = stderr
        .lines()
        .find(|line| line.contains("call ended") && line.contains("id=1"))
        .unwrap_or_else(|| panic!("the call ended before the exit: {stderr}"));
    assert!(ended.contains("outcome=\"cancelled\""), "{ended}");
    // rmcp's drain after EOF would have waited for the statement in vain.
    assert!(!stderr.contains("timed out draining"), "{stderr}");
}
