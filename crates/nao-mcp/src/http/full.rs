//! What a full server answers: a new `initialize` gets 503 with a JSON-RPC error the client
//! can show, and `Retry-After`; other session-less requests (stateless protocol versions need
//! no session) go on to rmcp.

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::header::{CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use hyper::http::request::Parts;
use hyper::{Request, Response, StatusCode};
use serde_json::{Value, json};

use super::{Endpoint, HttpResponse};

/// JSON-RPC's code for a server error that is not a protocol fault.
const SERVER_ERROR: i64 = -32000;

impl Endpoint {
    /// Refuses an `initialize` (the body already read), or passes anything else on to rmcp
    /// unchanged.
    pub(super) async fn when_full(&self, parts: Parts, bytes: Bytes) -> HttpResponse {
        match initialize_id(&bytes) {
            Some(id) => {
                // Warned once when the server filled up; one line per refusal is noise.
                tracing::debug!(
                    max_sessions = self.sessions.max_sessions(),
                    "refused a new session: the server is full"
                );
                self.full_response(id)
            }
            None => {
                self.service
                    .handle(Request::from_parts(parts, Full::new(bytes)))
                    .await
            }
        }
    }

    /// 503 with a JSON-RPC error answering request `id`.
    fn full_response(&self, id: Value) -> HttpResponse {
        let max = self.sessions.max_sessions();
        let idle = self.sessions.idle_timeout().as_secs().max(1);
        let message = format!(
            "the server is full: it already serves {max} MCP sessions (--max-sessions). \
             Close a session you no longer use (HTTP DELETE), or retry once an idle one has \
             timed out (--session-idle-timeout, {idle} s)."
        );
        let body = json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": SERVER_ERROR, "message": message},
        });
        let mut response = Response::new(Full::new(Bytes::from(body.to_string())).boxed());
        *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
        let headers = response.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(RETRY_AFTER, HeaderValue::from(idle));
        response
    }
}

/// The id of a JSON-RPC `initialize` request, or `None` for anything else.
fn initialize_id(body: &[u8]) -> Option<Value> {
    let message: Value = serde_json::from_slice(body).ok()?;
    if message.get("method")?.as_str()? != "initialize" {
        return None;
    }
    message.get("id").cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_initialize_requests_only() {
        let init = br#"{"jsonrpc":"2.0","id":7,"method":"initialize","params":{}}"#;
        assert_eq!(initialize_id(init), Some(json!(7)));
        let init = br#"{"jsonrpc":"2.0","id":"a","method":"initialize"}"#;
        assert_eq!(initialize_id(init), Some(json!("a")));
        for other in [
            &br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#[..],
            br#"{"jsonrpc":"2.0","method":"initialize"}"#,
            b"{not json",
            b"[]",
        ] {
            assert_eq!(initialize_id(other), None);
        }
    }
}
