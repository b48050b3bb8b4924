//! A tiny scripted HTTP/1.1 server for the provider tests: it answers requests with scripted
//! replies, in order, and records what it received.

#![allow(dead_code, unreachable_pub)]

pub mod requests;

use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One scripted reply.
#[derive(Debug, Clone)]
pub struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    chunks: Vec<Vec<u8>>,
    delay: Duration,
    hang: Option<Duration>,
}

impl Reply {
    /// A JSON reply.
    pub fn json(status: u16, body: impl Into<String>) -> Self {
        Reply {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            chunks: vec![body.into().into_bytes()],
            delay: Duration::ZERO,
            hang: None,
        }
    }

    /// A JSON reply from a fixture file.
    pub fn fixture(status: u16, name: &str) -> Self {
        Reply::json(status, fixture(name))
    }

    /// A `text/event-stream` reply, written in several chunks with small delays, split inside
    /// events as well as between them.
    pub fn sse(body: impl Into<String>) -> Self {
        let body = body.into().into_bytes();
        let mut chunks = Vec::new();
        let mut rest = body.as_slice();
        let mut size = 37;
        while !rest.is_empty() {
            let take = size.min(rest.len());
            chunks.push(rest[..take].to_vec());
            rest = &rest[take..];
            size = size * 3 % 401 + 17;
        }
        Reply {
            status: 200,
            headers: vec![
                (
                    "content-type".into(),
                    "text/event-stream; charset=utf-8".into(),
                ),
                ("cache-control".into(), "no-cache".into()),
            ],
            chunks,
            delay: Duration::from_millis(2),
            hang: None,
        }
    }

    /// An event-stream reply from a fixture file.
    pub fn sse_fixture(name: &str) -> Self {
        Reply::sse(fixture(name))
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// After the body, keeps the connection open without sending more for `duration`.
    pub fn then_hang(mut self, duration: Duration) -> Self {
        self.hang = Some(duration);
        self
    }
}

/// The text of a fixture under `tests/fixtures/`.
pub fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("fixture {}: {e}", path.display()))
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// `POST`.
    pub method: String,
    /// The path, e.g. `/v1/chat/completions`.
    pub path: String,
    /// Headers, names lowercased.
    pub headers: BTreeMap<String, String>,
    /// The body as JSON (`Null` when it is not JSON).
    pub body: Value,
}

impl Recorded {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }
}

/// The server; it stops with the test's runtime.
pub struct TestServer {
    address: SocketAddr,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

impl TestServer {
    /// Starts a server answering with `replies`, in order (then 500s).
    pub async fn start(replies: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("address");
        let requests = Arc::new(Mutex::new(Vec::new()));
        let replies = Arc::new(Mutex::new(VecDeque::from(replies)));
        let recorded = Arc::clone(&requests);
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let recorded = Arc::clone(&recorded);
                let replies = Arc::clone(&replies);
                tokio::spawn(async move {
                    let _ = serve(socket, recorded, replies).await;
                });
            }
        });
        TestServer { address, requests }
    }

    /// `http://127.0.0.1:port` followed by `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    /// The requests received so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().expect("lock").clone()
    }

    /// How many requests were received.
    pub fn count(&self) -> usize {
        self.requests.lock().expect("lock").len()
    }
}

async fn serve(
    mut socket: TcpStream,
    recorded: Arc<Mutex<Vec<Recorded>>>,
    replies: Arc<Mutex<VecDeque<Reply>>>,
) -> std::io::Result<()> {
    let mut seen = Vec::new();
    let mut buf = [0u8; 8192];
    let (head_end, length) = loop {
        let n = socket.read(&mut buf).await?;
        if n == 0 {
            return Ok(());
        }
        seen.extend_from_slice(&buf[..n]);
        if let Some(end) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&seen[..end]).to_string();
            let length = head
                .lines()
                .find_map(|line| {
                    let (name, value) = line.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse::<usize>().ok())
                        .flatten()
                })
                .unwrap_or(0);
            break (end, length);
        }
    };
    while seen.len() < head_end + 4 + length {
        let n = socket.read(&mut buf).await?;
        if n == 0 {
            return Ok(());
        }
        seen.extend_from_slice(&buf[..n]);
    }
    let head = String::from_utf8_lossy(&seen[..head_end]).to_string();
    let mut lines = head.lines();
    let request_line = lines.next().unwrap_or_default();
    let mut parts = request_line.split(' ');
    let method = parts.next().unwrap_or_default().to_owned();
    let path = parts.next().unwrap_or_default().to_owned();
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let body = &seen[head_end + 4..head_end + 4 + length];
    let body = serde_json::from_slice(body).unwrap_or(Value::Null);
    recorded.lock().expect("lock").push(Recorded {
        method,
        path,
        headers,
        body,
    });

    let reply = replies
        .lock()
        .expect("lock")
        .pop_front()
        .unwrap_or_else(|| Reply::json(500, r#"{"error":{"message":"no more scripted replies"}}"#));
    let mut out = format!("HTTP/1.1 {} {}\r\n", reply.status, reason(reply.status));
    for (name, value) in &reply.headers {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    let streaming = reply.hang.is_some() || reply.chunks.len() > 1;
    if !streaming {
        let total: usize = reply.chunks.iter().map(Vec::len).sum();
        out.push_str(&format!("content-length: {total}\r\n"));
    }
    out.push_str("connection: close\r\n\r\n");
    socket.write_all(out.as_bytes()).await?;
    for chunk in &reply.chunks {
        socket.write_all(chunk).await?;
        socket.flush().await?;
        if !reply.delay.is_zero() {
            tokio::time::sleep(reply.delay).await;
        }
    }
    if let Some(hang) = reply.hang {
        tokio::time::sleep(hang).await;
    }
    socket.shutdown().await
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        529 => "Site Overloaded",
        _ => "Status",
    }
}
