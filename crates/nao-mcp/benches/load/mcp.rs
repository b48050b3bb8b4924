//! One MCP session over streamable HTTP: `initialize`, `tools/call`, `DELETE`, on a keep-alive
//! connection (a new one when the server closed it), each request under a deadline. Answers are
//! JSON or an SSE stream; the JSON-RPC response with the request's id is picked out of either.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};

use crate::http::{HttpConnection, HttpError, HttpResponse};

/// The protocol version the test speaks.
const PROTOCOL: &str = "2025-06-18";

/// Why a call got no tool result; [`CallError::kind`] names it in the table.
#[derive(Debug)]
pub(crate) enum CallError {
    /// No answer within the request deadline.
    Timeout,
    /// The connection failed or the answer was not HTTP.
    Http(HttpError),
    /// An HTTP status other than the expected one.
    Status { status: u16, body: String },
    /// A JSON-RPC error response.
    JsonRpc { code: i64, message: String },
    /// The answer holds no JSON-RPC response to the request.
    Protocol(String),
}

impl CallError {
    /// A short stable name for the table: `client_timeout`, `io`, `http_503`, `jsonrpc_-32603`…
    pub(crate) fn kind(&self) -> String {
        match self {
            CallError::Timeout => "client_timeout".into(),
            CallError::Http(HttpError::Io(_) | HttpError::ClosedBeforeAnswer) => "io".into(),
            CallError::Http(HttpError::Malformed(_)) => "bad_http".into(),
            CallError::Status { status, .. } => format!("http_{status}"),
            CallError::JsonRpc { code, .. } => format!("jsonrpc_{code}"),
            CallError::Protocol(_) => "bad_jsonrpc".into(),
        }
    }
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Timeout => f.write_str("no answer within the request deadline"),
            CallError::Http(error) => write!(f, "{error}"),
            CallError::Status { status, body } => write!(f, "HTTP {status}: {body}"),
            CallError::JsonRpc { code, message } => write!(f, "JSON-RPC error {code}: {message}"),
            CallError::Protocol(what) => write!(f, "{what}"),
        }
    }
}

/// What a `tools/call` answered.
#[derive(Debug)]
pub(crate) struct ToolReply {
    /// The tool's error kind (`database_timeout`, `unknown_query`…) when `isError` is set.
    pub(crate) error_kind: Option<String>,
    /// `structuredContent.query_id`, for paging.
    pub(crate) query_id: Option<String>,
}

/// A client session.
#[derive(Debug)]
pub(crate) struct McpSession {
    addr: SocketAddr,
    deadline: Duration,
    connection: Option<HttpConnection>,
    session: Option<String>,
    next_id: u64,
    /// Connections opened beyond the first (the server closed a keep-alive one, or a request
    /// failed on it).
    pub(crate) reconnects: u64,
}

impl McpSession {
    /// A session to the server at `addr`, every request bounded by `deadline`. Nothing is sent
    /// until [`initialize`](Self::initialize).
    pub(crate) fn new(addr: SocketAddr, deadline: Duration) -> Self {
        McpSession {
            addr,
            deadline,
            connection: None,
            session: None,
            next_id: 1,
            reconnects: 0,
        }
    }

    /// `initialize`, then `notifications/initialized`.
    pub(crate) async fn initialize(&mut self) -> Result<(), CallError> {
        let params = json!({
            "protocolVersion": PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "nao-mcp-load", "version": env!("CARGO_PKG_VERSION")},
        });
        let (response, _) = self.request("initialize", params).await?;
        self.session = response.header("mcp-session-id").map(str::to_owned);
        if self.session.is_none() {
            return Err(CallError::Protocol("initialize gave no session id".into()));
        }
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let answer = self.post(&note).await?;
        if answer.status != 202 {
            return Err(status_error(&answer));
        }
        Ok(())
    }

    /// `tools/call` of `name` with `arguments`.
    pub(crate) async fn call_tool(
        &mut self,
        name: &str,
        arguments: Value,
    ) -> Result<ToolReply, CallError> {
        let (_, result) = self
            .request("tools/call", json!({"name": name, "arguments": arguments}))
            .await?;
        let is_error = result
            .get("isError")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let error_kind = is_error.then(|| {
            let text = result
                .pointer("/content/0/text")
                .and_then(Value::as_str)
                .unwrap_or_default();
            tool_error_kind(text)
        });
        let query_id = result
            .pointer("/structuredContent/query_id")
            .and_then(Value::as_str)
            .map(str::to_owned);
        Ok(ToolReply {
            error_kind,
            query_id,
        })
    }

    /// Ends the session with HTTP DELETE (as a well-behaved client does).
    pub(crate) async fn close(&mut self) -> Result<(), CallError> {
        let Some(session) = self.session.take() else {
            return Ok(());
        };
        let answer = self
            .exchange(
                "DELETE",
                &[
                    ("Mcp-Session-Id", &session),
                    ("MCP-Protocol-Version", PROTOCOL),
                ],
                b"",
            )
            .await?;
        if !matches!(answer.status, 200 | 202 | 204) {
            return Err(status_error(&answer));
        }
        Ok(())
    }

    /// A JSON-RPC request; returns the HTTP answer and the response's `result`.
    async fn request(
        &mut self,
        method: &str,
        params: Value,
    ) -> Result<(HttpResponse, Value), CallError> {
        let id = self.next_id;
        self.next_id += 1;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let mut answer = self.post(&message).await?;
        if answer.status != 200 {
            return Err(status_error(&answer));
        }
        let mut response = find_response(&answer, id)?;
        if let Some(error) = response.get("error") {
            return Err(CallError::JsonRpc {
                code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                message: error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
            });
        }
        let result = response.get_mut("result").map(Value::take).ok_or_else(|| {
            CallError::Protocol("a response with neither result nor error".into())
        })?;
        answer.body = Vec::new();
        Ok((answer, result))
    }

    /// A POST of `message` within the session (if one is open).
    async fn post(&mut self, message: &Value) -> Result<HttpResponse, CallError> {
        let body = message.to_string();
        let session = self.session.clone();
        let mut headers = vec![
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ];
        if let Some(session) = &session {
            headers.push(("Mcp-Session-Id", session));
            headers.push(("MCP-Protocol-Version", PROTOCOL));
        }
        self.exchange("POST", &headers, body.as_bytes()).await
    }

    /// One request under the deadline, on the open connection or a new one; sent again once
    /// on a new connection when a reused one turns out closed.
    async fn exchange(
        &mut self,
        method: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Result<HttpResponse, CallError> {
        let addr = self.addr;
        let attempt = async {
            loop {
                let mut connection = match self.connection.take() {
                    Some(connection) => connection,
                    None => {
                        self.reconnects += 1;
                        HttpConnection::connect(addr)
                            .await
                            .map_err(CallError::Http)?
                    }
                };
                let reused = connection.answered > 0;
                match connection.send(method, addr, headers, body).await {
                    Ok(answer) => {
                        if answer.keep_alive {
                            self.connection = Some(connection);
                        }
                        return Ok(answer);
                    }
                    Err(HttpError::ClosedBeforeAnswer) if reused => continue,
                    Err(error) => return Err(CallError::Http(error)),
                }
            }
        };
        match tokio::time::timeout(self.deadline, attempt).await {
            Ok(answer) => answer,
            Err(_) => {
                // The connection may still carry the late answer: never reuse it.
                self.connection = None;
                Err(CallError::Timeout)
            }
        }
    }
}

/// The JSON-RPC response with `id` in a JSON body or in the `data:` events of an SSE body.
fn find_response(answer: &HttpResponse, id: u64) -> Result<Value, CallError> {
    let is_response = |value: &Value| {
        value.get("id").and_then(Value::as_u64) == Some(id)
            && (value.get("result").is_some() || value.get("error").is_some())
    };
    let content_type = answer.header("content-type").unwrap_or_default();
    if content_type.starts_with("text/event-stream") {
        let text = String::from_utf8_lossy(&answer.body);
        for event in text.replace("\r\n", "\n").split("\n\n") {
            let data: Vec<&str> = event
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(|data| data.strip_prefix(' ').unwrap_or(data))
                .collect();
            if data.is_empty() || data.iter().all(|line| line.is_empty()) {
                continue;
            }
            if let Ok(value) = serde_json::from_str::<Value>(&data.join("\n"))
                && is_response(&value)
            {
                return Ok(value);
            }
        }
        Err(CallError::Protocol(format!(
            "no response with id {id} in the event stream"
        )))
    } else {
        match serde_json::from_slice::<Value>(&answer.body) {
            Ok(value) if is_response(&value) => Ok(value),
            Ok(_) => Err(CallError::Protocol(format!("no response with id {id}"))),
            Err(error) => Err(CallError::Protocol(format!(
                "a body that is not JSON: {error}"
            ))),
        }
    }
}

/// The kind of a tool error text, which starts `Error (KIND):` (nao-render's tool errors).
fn tool_error_kind(text: &str) -> String {
    text.strip_prefix("Error (")
        .and_then(|rest| rest.split_once("):"))
        .map_or_else(|| "unparsed".to_owned(), |(kind, _)| kind.to_owned())
}

fn status_error(answer: &HttpResponse) -> CallError {
    let body = String::from_utf8_lossy(&answer.body);
    CallError::Status {
        status: answer.status,
        body: body.chars().take(200).collect(),
    }
}
