//! The HTTP transport under hostile connections, in process: half-sent heads and bodies are
//! cut off, a declared oversized body is refused before it is sent, connections beyond the cap
//! wait, malformed JSON gets a JSON-RPC parse error.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::time::Duration;

use nao_core::{Databases, ToolContext, tools};
use nao_mcp::McpServer;
use nao_mcp::http::{HttpConfig, serve_listener};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

/// Generous: only a hang trips it, it is not a performance threshold.
const WAIT: Duration = Duration::from_secs(30);

/// A server on a free port with `config`; cancelled when the guard drops.
async fn serve(config: HttpConfig) -> (SocketAddr, tokio_util::sync::DropGuard) {
    let shop = nao_mcp::app::demo_database().unwrap();
    let server = McpServer::new(
        tools::sql_tools(),
        ToolContext::new(Databases::new().with(shop)),
    );
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let shutdown = CancellationToken::new();
    let stop = shutdown.clone();
    tokio::spawn(async move { serve_listener(server, listener, &config, stop).await });
    (addr, shutdown.drop_guard())
}

/// Everything the server sends until it closes the connection.
async fn read_all(stream: &mut TcpStream) -> String {
    let mut raw = Vec::new();
    tokio::time::timeout(WAIT, stream.read_to_end(&mut raw))
        .await
        .expect("the server closes the connection")
        .unwrap();
    String::from_utf8_lossy(&raw).into_owned()
}

fn head(addr: SocketAddr, content_length: u64) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {content_length}\r\n\r\n"
    )
}

#[tokio::test]
async fn a_half_sent_head_is_cut_off() {
    let (addr, _guard) =
        serve(HttpConfig::default().with_header_read_timeout(Duration::from_millis(200))).await;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1")
        .await
        .unwrap();
    // Closed without an answer (hyper may write a 408 first).
    let answer = read_all(&mut stream).await;
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
        "{answer}"
    );
    // An idle connection that never sends anything is closed too.
    let mut idle = TcpStream::connect(addr).await.unwrap();
    read_all(&mut idle).await;
}

#[tokio::test]
async fn a_half_sent_body_gets_408() {
    let (addr, _guard) =
        serve(HttpConfig::default().with_body_read_timeout(Duration::from_millis(200))).await;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(head(addr, 100).as_bytes()).await.unwrap();
    stream.write_all(b"{\"jsonrpc\":").await.unwrap();
    let answer = read_all(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
}

#[tokio::test]
async fn a_declared_oversized_body_is_refused_before_it_is_sent() {
    let (addr, _guard) = serve(HttpConfig::default().with_max_request_bytes(1024)).await;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    // The head alone, declaring a gigabyte: answered at once, no body needed.
    stream
        .write_all(head(addr, 1 << 30).as_bytes())
        .await
        .unwrap();
    let answer = read_all(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("connection: close"),
        "{answer}"
    );
}

#[tokio::test]
async fn malformed_json_gets_a_json_rpc_parse_error() {
    let (addr, _guard) = serve(HttpConfig::default()).await;
    for (body, code) in [("{not json", -32700), ("[1, 2]", -32600)] {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream
            .write_all(format!("{}{body}", head(addr, body.len() as u64)).as_bytes())
            .await
            .unwrap();
        let answer = read_all(&mut stream).await;
        assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
        let json = &answer[answer.find('{').unwrap()..];
        let error: Value = serde_json::from_str(json).unwrap();
        assert_eq!(error["error"]["code"], code, "{answer}");
        assert_eq!(error["jsonrpc"], "2.0");
    }
    // A body that is not declared JSON keeps rmcp's 415.
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let text = head(addr, 9).replace("application/json\r\n", "text/plain\r\n");
    stream
        .write_all(format!("{text}{{not json").as_bytes())
        .await
        .unwrap();
    let answer = read_all(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 415"), "{answer}");
}

#[tokio::test]
async fn connections_beyond_the_cap_wait_for_a_free_slot() {
    let (addr, _guard) = serve(HttpConfig::default().with_max_connections(2)).await;
    let first = TcpStream::connect(addr).await.unwrap();
    let _second = TcpStream::connect(addr).await.unwrap();
    // The third connects (the system queues it) but is not served while both slots are held.
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let request = format!(
        "{}{body}",
        head(addr, body.len() as u64).replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n")
    );
    let mut third = TcpStream::connect(addr).await.unwrap();
    third.write_all(request.as_bytes()).await.unwrap();
    let mut byte = [0u8; 1];
    let early = tokio::time::timeout(Duration::from_millis(300), third.read(&mut byte)).await;
    assert!(early.is_err(), "served beyond --max-connections");
    drop(first);
    let answer = read_all(&mut third).await;
    assert!(answer.starts_with("HTTP/1.1"), "{answer}");
}
