//! Reading a request body within bounds, and answering a body that is not JSON-RPC.
//!
//! A declared `Content-Length` above the limit is refused with 413 before a byte of the body
//! is read; a body that keeps coming past the limit (chunked) gets 413 too, and one that does
//! not arrive in time 408. Malformed JSON gets HTTP 400 with a JSON-RPC parse error (-32700)
//! and JSON that is no JSON-RPC message 400 with an invalid-request error (-32600), as the
//! streamable HTTP transport allows ("a JSON-RPC error response that has no id").

use std::time::Duration;

use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{CONNECTION, CONTENT_LENGTH, CONTENT_TYPE, HeaderValue};
use hyper::http::request::Parts;
use hyper::{Request, Response, StatusCode};
use rmcp::model::ClientJsonRpcMessage;
use serde_json::{Value, json};

use super::{HttpResponse, text_response};

/// JSON-RPC: the message is not valid JSON.
const PARSE_ERROR: i64 = -32700;

/// JSON-RPC: the JSON is not a valid request object.
const INVALID_REQUEST: i64 = -32600;

/// JSON-RPC: a server error that is not a protocol fault.
const SERVER_ERROR: i64 = -32000;

/// The most characters of a parser's complaint quoted back.
const MAX_DETAIL_CHARS: usize = 200;

/// Reads the whole body of `request`, at most `max_bytes` and within `timeout`. A refusal is
/// the response to send; it closes the connection, whose unread body is of no further use.
pub(super) async fn read_body(
    request: Request<Incoming>,
    max_bytes: usize,
    timeout: Duration,
) -> Result<(Parts, Bytes), HttpResponse> {
    let (parts, body) = request.into_parts();
    let declared = parts
        .headers
        .get(CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|text| text.trim().parse::<u64>().ok());
    if declared.is_some_and(|length| length > max_bytes as u64) {
        return Err(too_large());
    }
    match tokio::time::timeout(timeout, Limited::new(body, max_bytes).collect()).await {
        Ok(Ok(collected)) => Ok((parts, collected.to_bytes())),
        Ok(Err(error)) if error.is::<LengthLimitError>() => Err(too_large()),
        Ok(Err(_)) => Err(closing(text_response(
            StatusCode::BAD_REQUEST,
            "Bad Request: the request body could not be read\n",
        ))),
        Err(_) => Err(closing(text_response(
            StatusCode::REQUEST_TIMEOUT,
            "Request Timeout: the request body did not arrive in time\n",
        ))),
    }
}

/// Whether the request says its body is JSON (what rmcp accepts; anything else gets its 415).
pub(super) fn declares_json(parts: &Parts) -> bool {
    parts
        .headers
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

/// `None` when `body` is a JSON-RPC message rmcp can take; otherwise the 400 answer with the
/// JSON-RPC error that says why.
pub(super) fn json_rpc_refusal(body: &[u8]) -> Option<HttpResponse> {
    let value: Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(error) => {
            return Some(json_rpc_error(
                Value::Null,
                PARSE_ERROR,
                &format!(
                    "Parse error: the body is not valid JSON ({})",
                    detail(&error)
                ),
            ));
        }
    };
    // The id, when the object has a usable one, so the client can match the answer.
    let id = match value.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    };
    match serde_json::from_value::<ClientJsonRpcMessage>(value) {
        Ok(_) => None,
        Err(error) => Some(json_rpc_error(
            id,
            INVALID_REQUEST,
            &format!(
                "Invalid Request: the body is not a JSON-RPC 2.0 request, notification or \
                 response of MCP ({})",
                detail(&error)
            ),
        )),
    }
}

/// A parser's complaint, bounded (it may quote the body).
fn detail(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.char_indices().nth(MAX_DETAIL_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// 400 with a JSON-RPC error object.
fn json_rpc_error(id: Value, code: i64, message: &str) -> HttpResponse {
    let body = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())).boxed());
    *response.status_mut() = StatusCode::BAD_REQUEST;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// 503 with a JSON-RPC error answering the request in `body` (if it is one): the server is
/// shutting down.
pub(super) fn shutting_down(body: &[u8]) -> HttpResponse {
    let id = serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|message| message.get("id").cloned())
        .unwrap_or(Value::Null);
    let mut response = json_rpc_error(id, SERVER_ERROR, crate::drain::REFUSED);
    *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    closing(response)
}

fn too_large() -> HttpResponse {
    closing(text_response(
        StatusCode::PAYLOAD_TOO_LARGE,
        "Payload Too Large: the request is larger than --max-request-bytes\n",
    ))
}

/// `response`, closing the connection after it.
fn closing(mut response: HttpResponse) -> HttpResponse {
    response
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
    response
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn error_of(body: &[u8]) -> Value {
        let response = json_rpc_refusal(body).expect("refused");
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        let bytes = futures_body(response);
        serde_json::from_slice(&bytes).unwrap()
    }

    fn futures_body(response: HttpResponse) -> Bytes {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime
            .block_on(response.into_body().collect())
            .unwrap()
            .to_bytes()
    }

    #[test]
    fn malformed_json_is_a_parse_error_and_odd_json_an_invalid_request() {
        for garbage in [&b"{not json"[..], b"", b"\xff\xfe", b"{\"jsonrpc\":"] {
            let error = error_of(garbage);
            assert_eq!(error["error"]["code"], PARSE_ERROR, "{error}");
            assert_eq!(error["id"], Value::Null);
        }
        for odd in [&b"[]"[..], b"42", br#"{"jsonrpc":"2.0","id":5}"#] {
            let error = error_of(odd);
            assert_eq!(error["error"]["code"], INVALID_REQUEST, "{error}");
        }
        let error = error_of(br#"{"jsonrpc":"2.0","id":5}"#);
        assert_eq!(error["id"], 5, "the id is kept when there is one");
    }

    #[test]
    fn messages_pass() {
        for message in [
            &br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#[..],
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            br#"{"jsonrpc":"2.0","id":"x","method":"no/such/method","params":{}}"#,
        ] {
            assert!(json_rpc_refusal(message).is_none());
        }
    }

    #[test]
    fn long_complaints_are_cut() {
        let body = format!("{{\"a\": \"{}", "x".repeat(10_000));
        let error = error_of(body.as_bytes());
        let message = error["error"]["message"].as_str().unwrap();
        assert!(
            message.chars().count() < MAX_DETAIL_CHARS + 200,
            "{message}"
        );
    }
}
