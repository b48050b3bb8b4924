//! A bare HTTP/1.1 client for the `nao-mcp` binary serving streamable HTTP: every request on
//! its own connection (`Connection: close`), any headers (a hostile `Origin` or `Host`), the
//! whole answer read to EOF. Shared by the HTTP test files.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code, unreachable_pub)]

use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};

/// Generous: only a hang trips it, it is not a performance threshold.
pub const WAIT: Duration = Duration::from_secs(60);

/// A statement that runs for hours: counting to 10^11 one row at a time.
pub const ENDLESS_SQL: &str = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c \
     WHERE x < 100000000000) SELECT count(*) FROM c";

/// The protocol version the tests speak.
pub const PROTOCOL: &str = "2025-06-18";

/// The binary, serving the demo database over HTTP on a free port; its [`HttpClient`]
/// methods talk to it.
pub struct HttpServer {
    child: Child,
    client: HttpClient,
    /// Everything it wrote to stderr so far.
    pub stderr: Arc<Mutex<String>>,
}

impl std::ops::Deref for HttpServer {
    type Target = HttpClient;

    fn deref(&self) -> &HttpClient {
        &self.client
    }
}

/// Requests to a streamable HTTP endpoint at `addr` (the binary's or one served in process).
#[derive(Debug, Clone, Copy)]
pub struct HttpClient {
    /// Where the server listens.
    pub addr: SocketAddr,
}

impl HttpServer {
    /// Starts `nao-mcp --demo --http 127.0.0.1:0` with `extra` flags and waits until it listens.
    pub async fn start(extra: &[&str]) -> HttpServer {
        Self::spawn(Command::new(env!("CARGO_BIN_EXE_nao-mcp")), extra).await
    }

    /// As [`start`](Self::start), with the process allowed at most `fd_limit` open files
    /// (`ulimit -n` in a shell that then becomes the server).
    pub async fn start_with_fd_limit(fd_limit: u32, extra: &[&str]) -> HttpServer {
        let mut shell = Command::new("sh");
        shell.args([
            "-c",
            &format!("ulimit -n {fd_limit} && exec \"$0\" \"$@\""),
            env!("CARGO_BIN_EXE_nao-mcp"),
        ]);
        Self::spawn(shell, extra).await
    }

    async fn spawn(mut command: Command, extra: &[&str]) -> HttpServer {
        let mut child = command
            .args(["--demo", "--http", "127.0.0.1:0", "--log-level", "info"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the binary starts");
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let stderr = Arc::new(Mutex::new(String::new()));
        let addr = tokio::time::timeout(WAIT, async {
            while let Some(line) = lines.next_line().await.unwrap() {
                stderr.lock().unwrap().push_str(&format!("{line}\n"));
                if let Some(rest) = line.split("serving streamable HTTP on http://").nth(1) {
                    let addr = rest.trim_end_matches("/mcp").trim();
                    return addr.parse::<SocketAddr>().unwrap();
                }
            }
            panic!("the server exited: {}", stderr.lock().unwrap());
        })
        .await
        .expect("the server listens");
        // Keep draining stderr so the server never blocks on a full pipe.
        let sink = stderr.clone();
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                sink.lock().unwrap().push_str(&format!("{line}\n"));
            }
        });
        HttpServer {
            child,
            client: HttpClient { addr },
            stderr,
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id().expect("a running child")
    }

    /// Sends SIGTERM.
    pub fn terminate(&self) {
        let killed = std::process::Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .status()
            .expect("kill runs");
        assert!(killed.success());
    }

    /// Waits for the process to exit.
    pub async fn exit_status(&mut self) -> std::process::ExitStatus {
        tokio::time::timeout(WAIT, self.child.wait())
            .await
            .expect("the server exits")
            .unwrap()
    }

    /// Waits until stderr holds a line containing every one of `needles`; returns that line.
    pub async fn wait_for_log(&self, needles: &[&str]) -> String {
        tokio::time::timeout(WAIT, async {
            loop {
                let found = self
                    .stderr
                    .lock()
                    .unwrap()
                    .lines()
                    .find(|line| needles.iter().all(|n| line.contains(n)))
                    .map(str::to_owned);
                if let Some(line) = found {
                    return line;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await
        .unwrap_or_else(|_| {
            panic!(
                "no log line with {needles:?}:\n{}",
                self.stderr.lock().unwrap()
            )
        })
    }
}

impl HttpClient {
    /// A `tools/call` of `execute_sql` within `session`, on a connection left open once the
    /// response has begun (its head read): drop it to vanish mid-call.
    pub async fn start_call(&self, session: &str, id: i64, sql: &str) -> TcpStream {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "execute_sql", "arguments": {"sql_query": sql}}})
        .to_string();
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMcp-Session-Id: {session}\r\n\
             MCP-Protocol-Version: {PROTOCOL}\r\nContent-Length: {}\r\n\r\n",
            self.addr,
            body.len()
        );
        tokio::time::timeout(WAIT, async {
            let mut stream = TcpStream::connect(self.addr).await.unwrap();
            stream.write_all(head.as_bytes()).await.unwrap();
            stream.write_all(body.as_bytes()).await.unwrap();
            let mut seen = Vec::new();
            let mut byte = [0u8; 1];
            while !seen.ends_with(b"\r\n\r\n") {
                let n = stream.read(&mut byte).await.unwrap();
                assert_eq!(n, 1, "the server closed before answering");
                seen.push(byte[0]);
            }
            let head = String::from_utf8_lossy(&seen);
            assert!(head.starts_with("HTTP/1.1 200"), "{head}");
            stream
        })
        .await
        .expect("the call starts")
    }

    /// A `tools/call` of `execute_sql` within `session`, answered in full.
    pub async fn execute_sql(&self, session: &str, id: i64, sql: &str) -> Reply {
        self.in_session(
            session,
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "execute_sql", "arguments": {"sql_query": sql}}}),
        )
        .await
    }

    /// A POST of a JSON-RPC message to `/mcp`, with the headers MCP needs and `extra`.
    pub async fn post(&self, message: &Value, extra: &[(&str, &str)]) -> Reply {
        let mut headers = vec![
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ];
        headers.extend_from_slice(extra);
        self.request("POST", &headers, &message.to_string()).await
    }

    /// An `initialize` request with this JSON-RPC id and `extra` headers.
    pub async fn initialize_with(&self, id: i64, extra: &[(&str, &str)]) -> Reply {
        self.post(
            &json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
                "protocolVersion": PROTOCOL, "capabilities": {},
                "clientInfo": {"name": "http-tests", "version": "0"}}}),
            extra,
        )
        .await
    }

    /// A new session: `initialize`, then `notifications/initialized`. Returns its id.
    pub async fn open_session(&self) -> String {
        let reply = self.initialize_with(1, &[]).await;
        assert_eq!(reply.status, 200, "{reply:?}");
        let session = reply
            .header("mcp-session-id")
            .expect("a session id")
            .to_owned();
        let initialized = self
            .in_session(
                &session,
                &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            )
            .await;
        assert_eq!(initialized.status, 202, "{initialized:?}");
        session
    }

    /// A message within `session`.
    pub async fn in_session(&self, session: &str, message: &Value) -> Reply {
        self.post(
            message,
            &[
                ("Mcp-Session-Id", session),
                ("MCP-Protocol-Version", PROTOCOL),
            ],
        )
        .await
    }

    /// `tools/list` within `session`.
    pub async fn list_tools(&self, session: &str) -> Reply {
        self.in_session(
            session,
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        )
        .await
    }

    /// HTTP DELETE of `session`.
    pub async fn delete(&self, session: &str) -> Reply {
        self.request(
            "DELETE",
            &[
                ("Mcp-Session-Id", session),
                ("MCP-Protocol-Version", PROTOCOL),
            ],
            "",
        )
        .await
    }

    /// One request on a new connection; `Host` defaults to the server's address.
    pub async fn request(&self, method: &str, headers: &[(&str, &str)], body: &str) -> Reply {
        let host = format!("{}", self.addr);
        let mut head = format!("{method} /mcp HTTP/1.1\r\nConnection: close\r\n");
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            head.push_str(&format!("Host: {host}\r\n"));
        }
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
        tokio::time::timeout(WAIT, async {
            let mut stream = TcpStream::connect(self.addr).await.unwrap();
            stream.write_all(head.as_bytes()).await.unwrap();
            stream.write_all(body.as_bytes()).await.unwrap();
            let mut raw = Vec::new();
            stream.read_to_end(&mut raw).await.unwrap();
            Reply::parse(&String::from_utf8_lossy(&raw))
        })
        .await
        .expect("the server answers")
    }
}

/// An HTTP answer: status, headers (names lower-cased) and the body as text (de-chunked).
#[derive(Debug, Clone)]
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// The headers.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: String,
}

impl Reply {
    fn parse(raw: &str) -> Reply {
        let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((raw, ""));
        let mut lines = head.lines();
        let status = lines
            .next()
            .and_then(|line| line.split_whitespace().nth(1))
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("not an HTTP answer: {raw:?}"));
        let headers = lines
            .filter_map(|line| line.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        let mut reply = Reply {
            status,
            headers,
            body: body.to_owned(),
        };
        if reply.header("transfer-encoding") == Some("chunked") {
            reply.body = dechunk(body);
        }
        reply
    }

    /// The first header of this (lower-case) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The first JSON object in the body (a JSON body, or the `data:` of an SSE event).
    pub fn json(&self) -> Value {
        let start = self.body.find('{').expect("a JSON object in the body");
        let mut stream = serde_json::Deserializer::from_str(&self.body[start..]).into_iter();
        stream
            .next()
            .expect("a JSON value")
            .unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

/// The payload of a chunked body.
fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].strip_prefix("\r\n").unwrap_or(&rest[size..]);
    }
    out
}
