//! Sessions of the streamable HTTP transport, on the real binary over real TCP: a cap on live
//! sessions (a full server refuses a new `initialize` with 503 and a JSON-RPC error instead of
//! evicting a session), idle sessions evicted, a running call keeping its session, and DELETE
//! freeing a slot. No wall-clock threshold: eviction is polled for within a generous bound.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod http;

use std::time::Duration;

use http::{HttpServer, Reply, WAIT};
use serde_json::json;
use tokio::time::Instant;

/// Polls `initialize` until a session is granted (a 503 means the server is still full).
async fn initialize_when_a_slot_frees(server: &HttpServer) -> Reply {
    let deadline = Instant::now() + WAIT;
    loop {
        let reply = server.initialize_with(1, &[]).await;
        if reply.status == 200 {
            return reply;
        }
        assert_eq!(reply.status, 503, "{reply:?}");
        assert!(
            Instant::now() < deadline,
            "no slot freed: the idle session was never evicted"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_full_server_refuses_new_sessions_until_one_is_deleted() {
    let server =
        HttpServer::start(&["--max-sessions", "2", "--session-idle-timeout", "3600"]).await;
    let first = server.open_session().await;
    let second = server.open_session().await;

    let refused = server.initialize_with(77, &[]).await;
    assert_eq!(refused.status, 503, "{refused:?}");
    assert!(refused.header("mcp-session-id").is_none(), "{refused:?}");
    assert!(refused.header("retry-after").is_some(), "{refused:?}");
    let error = refused.json();
    assert_eq!(error["jsonrpc"], "2.0", "{error}");
    assert_eq!(error["id"], 77, "{error}");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(message.contains("--max-sessions"), "{message}");

    // The live sessions were not evicted to make room.
    for session in [&first, &second] {
        let tools = server.list_tools(session).await;
        assert_eq!(tools.status, 200, "{tools:?}");
        assert!(tools.json()["result"]["tools"].is_array(), "{tools:?}");
    }

    // DELETE ends a session and frees its slot.
    let deleted = server.delete(&first).await;
    assert_eq!(deleted.status, 204, "{deleted:?}");
    assert_eq!(server.list_tools(&first).await.status, 404);
    let third = server.open_session().await;
    assert_eq!(server.list_tools(&third).await.status, 200);
    assert_eq!(server.list_tools(&second).await.status, 200);
}

#[tokio::test]
async fn idle_sessions_are_evicted_and_their_slot_reused() {
    // One slot and a tiny idle timeout: a second session gets in only once the first is gone.
    let server =
        HttpServer::start(&["--max-sessions", "1", "--session-idle-timeout", "0.05"]).await;
    let idle = server.initialize_with(1, &[]).await;
    assert_eq!(idle.status, 200, "{idle:?}");
    let idle = idle.header("mcp-session-id").unwrap().to_owned();

    let next = initialize_when_a_slot_frees(&server).await;
    assert!(next.header("mcp-session-id").is_some(), "{next:?}");
    assert_eq!(server.list_tools(&idle).await.status, 404);
    // Again: eviction goes on working once the first one happened.
    initialize_when_a_slot_frees(&server).await;
}

#[tokio::test]
async fn a_session_running_a_call_is_not_idle() {
    // The idle timeout is far shorter than the call: the session must outlive it and the call
    // must answer. (On a machine fast enough to finish the query within the timeout this
    // proves less, never a false failure.)
    let server = HttpServer::start(&["--session-idle-timeout", "0.2"]).await;
    let sql = "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3000000) \
               SELECT count(*) AS n FROM c";
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "execute_sql", "arguments": {"sql_query": sql}}});
    let deadline = Instant::now() + WAIT;
    let answer = loop {
        // The handshake itself may lose the race against a 0.2 s timeout on a loaded machine:
        // then start over; what is under test is the call once it runs.
        let reply = server.initialize_with(1, &[]).await;
        let session = reply.header("mcp-session-id").unwrap().to_owned();
        let initialized = server
            .in_session(
                &session,
                &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            )
            .await;
        if initialized.status == 202 {
            let answer = server.in_session(&session, &call).await;
            if answer.status == 200 {
                break answer;
            }
            assert_eq!(answer.status, 404, "{answer:?}");
        }
        assert!(Instant::now() < deadline, "never got a session to call in");
    };
    let message = answer.json();
    assert_eq!(message["id"], 3, "{message}");
    assert_eq!(message["result"]["isError"], false, "{message}");
    assert!(
        message["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("3000000"),
        "{message}"
    );
}

#[tokio::test]
async fn bad_session_flags_are_usage_errors() {
    for args in [
        ["--max-sessions", "0"],
        ["--max-sessions", "many"],
        ["--session-idle-timeout", "0"],
        ["--session-idle-timeout", "soon"],
    ] {
        let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_nao-mcp"))
            .arg("--demo")
            .args(args)
            .output()
            .await
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(args[0]), "{args:?}: {stderr}");
    }
}
