//! Who may talk to the streamable HTTP transport: requests whose `Host` is not a loopback name
//! (DNS rebinding) or whose `Origin` is present and not allowed (a web page in the user's
//! browser) get 403, on every method, before any session is created or touched.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod http;

use http::{HttpServer, PROTOCOL};
use serde_json::json;

#[tokio::test]
async fn foreign_origins_are_refused() {
    let server = HttpServer::start(&[]).await;
    for origin in [
        "http://evil.example",
        "https://localhost.evil.example",
        "http://127.0.0.1.nip.io:8080",
        "null",
        "not an origin",
    ] {
        let reply = server.initialize_with(1, &[("Origin", origin)]).await;
        assert_eq!(reply.status, 403, "{origin}: {reply:?}");
        assert!(reply.body.contains("Origin"), "{origin}: {reply:?}");
        assert!(reply.header("mcp-session-id").is_none(), "{reply:?}");
    }
}

#[tokio::test]
async fn loopback_origins_and_no_origin_are_served() {
    let server = HttpServer::start(&[]).await;
    for origin in [
        "http://localhost:5173",
        "http://LOCALHOST:3000",
        "http://127.0.0.1",
        "https://127.0.0.1:8443",
        "http://[::1]:8080",
    ] {
        let reply = server.initialize_with(1, &[("Origin", origin)]).await;
        assert_eq!(reply.status, 200, "{origin}: {reply:?}");
    }
    // Clients that are not browsers send no Origin at all.
    assert_eq!(server.initialize_with(1, &[]).await.status, 200);
}

#[tokio::test]
async fn foreign_hosts_are_refused() {
    let server = HttpServer::start(&[]).await;
    for host in ["evil.example", "evil.example:80", "localhost.evil.example"] {
        let reply = server.initialize_with(1, &[("Host", host)]).await;
        assert_eq!(reply.status, 403, "{host}: {reply:?}");
        assert!(reply.body.contains("Host"), "{host}: {reply:?}");
    }
    let reply = server.initialize_with(1, &[("Host", "localhost")]).await;
    assert_eq!(reply.status, 200, "{reply:?}");
}

#[tokio::test]
async fn a_foreign_origin_cannot_use_or_delete_a_session() {
    let server = HttpServer::start(&[]).await;
    let session = server.open_session().await;
    let evil = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", PROTOCOL),
        ("Origin", "http://evil.example"),
    ];
    let call = server
        .post(
            &json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}),
            &evil,
        )
        .await;
    assert_eq!(call.status, 403, "{call:?}");
    let delete = server.request("DELETE", &evil, "").await;
    assert_eq!(delete.status, 403, "{delete:?}");
    assert_eq!(server.list_tools(&session).await.status, 200);
}

#[tokio::test]
async fn allow_origin_adds_origins() {
    let server = HttpServer::start(&["--allow-origin", "https://app.example.com"]).await;
    let allowed = server
        .initialize_with(1, &[("Origin", "https://app.example.com")])
        .await;
    assert_eq!(allowed.status, 200, "{allowed:?}");
    let other = server
        .initialize_with(1, &[("Origin", "https://other.example.com")])
        .await;
    assert_eq!(other.status, 403, "{other:?}");
    let loopback = server
        .initialize_with(1, &[("Origin", "http://localhost:8080")])
        .await;
    assert_eq!(loopback.status, 200, "{loopback:?}");
}
