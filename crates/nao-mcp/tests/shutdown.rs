//! SIGTERM under load: the `nao-mcp` binary stops taking calls, lets running ones finish
//! within `--drain-timeout`, answers the rest with a JSON-RPC error and exits with success.
//! Over streamable HTTP and over stdio.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod http;
mod stdio;

use http::{ENDLESS_SQL, HttpServer, WAIT};
use serde_json::{Value, json};
use stdio::Server;

/// A statement that takes a moment (a few million rows counted), but ends.
const FINITE_SQL: &str = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c \
     WHERE x < 2000000) SELECT count(*) AS n FROM c";

#[tokio::test]
async fn http_calls_running_at_sigterm_are_answered_and_the_exit_is_clean() {
    let mut server = HttpServer::start(&["--drain-timeout", "60", "--log-level", "debug"]).await;
    let session = server.open_session().await;
    // The calls' responses have begun (their streams are open) before the signal.
    let mut streams = Vec::new();
    for id in 10..14 {
        streams.push(server.start_call(&session, id, FINITE_SQL).await);
    }
    server.terminate();
    let mut answers = Vec::new();
    for stream in streams {
        answers.push(tokio::spawn(read_to_end(stream)));
    }
    for answer in answers {
        let body = answer.await.unwrap();
        assert!(
            body.contains("2000000"),
            "every running call finishes with its result: {body}"
        );
    }
    let status = server.exit_status().await;
    assert!(status.success(), "{status:?}");
    let log = server.stderr.lock().unwrap().clone();
    assert!(log.contains("drained running calls"), "{log}");
    assert!(!log.contains("panicked"), "{log}");
    // The sessions are closed before the transport stops, so none of their workers is cut
    // off mid-way (rmcp logs that as an error).
    let errors: Vec<&str> = log
        .lines()
        .filter(|line| line.contains(" ERROR "))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[tokio::test]
async fn http_calls_past_the_drain_deadline_get_a_json_rpc_error() {
    let mut server = HttpServer::start(&["--drain-timeout", "0.2"]).await;
    let session = server.open_session().await;
    let stream = server.start_call(&session, 20, ENDLESS_SQL).await;
    server.terminate();
    let body = read_to_end(stream).await;
    let answer = first_json(&body);
    assert_eq!(answer["id"], 20, "{body}");
    assert_eq!(answer["error"]["code"], -32000, "{body}");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("--drain-timeout"), "{message}");
    let status = server.exit_status().await;
    assert!(status.success(), "{status:?}");
}

#[tokio::test]
async fn stdio_calls_past_the_drain_deadline_get_a_json_rpc_error() {
    let mut server = Server::start(&["--drain-timeout", "0.2"]).await;
    server
        .send(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "execute_sql", "arguments": {"sql_query": ENDLESS_SQL}}}),
        )
        .await;
    // The call is running once a list sent after it is answered (calls run concurrently).
    server.ping(2).await;
    server.terminate();
    let answer = server.response(1).await;
    assert_eq!(answer["error"]["code"], -32000, "{answer}");
    let (status, _) = server.exit().await;
    assert!(status.success(), "{status:?}");
}

/// Everything the server sends on `stream` until it closes it.
async fn read_to_end(mut stream: tokio::net::TcpStream) -> String {
    use tokio::io::AsyncReadExt;
    let mut raw = Vec::new();
    tokio::time::timeout(WAIT, stream.read_to_end(&mut raw))
        .await
        .expect("the server ends the response")
        .unwrap();
    String::from_utf8_lossy(&raw).into_owned()
}

/// The first JSON-RPC message (`data:` of an SSE event) in `body`.
fn first_json(body: &str) -> Value {
    body.lines()
        .filter_map(|line| line.trim().strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .find(|value| value.get("jsonrpc").is_some())
        .unwrap_or_else(|| panic!("no JSON-RPC message in {body:?}"))
}
