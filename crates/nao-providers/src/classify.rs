//! Turns HTTP statuses, error bodies and transport failures into [`ProviderError`]s.

use std::time::{Duration, SystemTime};

use nao_core::ProviderError;
use reqwest::header::HeaderMap;
use serde_json::Value;

/// The longest provider message kept in an error, in bytes.
pub(crate) const MAX_MESSAGE_BYTES: usize = 2000;

/// Phrases providers use when the prompt does not fit the context window.
const CONTEXT_PHRASES: &[&str] = &[
    "context_length_exceeded",
    "maximum context length",
    "context length",
    "context window",
    "prompt is too long",
    "too many tokens",
    "exceed_context_size",
    "exceeds the available context size",
    "input is too long",
    "reduce the length of the messages",
];

/// The error a failed HTTP response stands for.
pub(crate) fn from_status(
    provider: &str,
    status: u16,
    headers: &HeaderMap,
    body: &[u8],
) -> ProviderError {
    let (kind, message) = error_message(body);
    let message = if message.is_empty() {
        format!("HTTP {status}")
    } else {
        message
    };
    let retry_after = retry_after(headers);
    let provider = provider.to_owned();
    let context = is_context_length(kind.as_deref(), &message);
    match status {
        400 | 404 | 413 | 422 if context => ProviderError::ContextLength { provider, message },
        413 => ProviderError::ContextLength { provider, message },
        400 | 404 | 422 => ProviderError::InvalidRequest { provider, message },
        401 | 403 => ProviderError::Auth { provider, message },
        429 => ProviderError::RateLimited {
            provider,
            message,
            retry_after,
        },
        408 | 409 | 500 | 502 | 503 | 504 | 529 => ProviderError::Transient {
            provider,
            message,
            status: Some(status),
            retry_after,
        },
        _ => ProviderError::Permanent {
            provider,
            message: format!("HTTP {status}: {message}"),
            source: None,
        },
    }
}

/// The error an error object inside a successful response or a stream stands for
/// (`{"error": {"type": ..., "message": ...}}`), classified by its type or code.
pub(crate) fn from_error_object(provider: &str, error: &Value) -> ProviderError {
    let (kind, message) = describe_error(error);
    let provider = provider.to_owned();
    let kind = kind.unwrap_or_default();
    let status = error
        .get("code")
        .and_then(Value::as_u64)
        .and_then(|c| u16::try_from(c).ok());
    if is_context_length(Some(&kind), &message) {
        return ProviderError::ContextLength { provider, message };
    }
    match (kind.as_str(), status) {
        ("overloaded_error" | "api_error" | "server_error" | "timeout_error", _)
        | (_, Some(408 | 500 | 502 | 503 | 504 | 529)) => ProviderError::Transient {
            provider,
            message,
            status,
            retry_after: None,
        },
        ("rate_limit_error" | "rate_limit_exceeded" | "insufficient_quota", _) | (_, Some(429)) => {
            ProviderError::RateLimited {
                provider,
                message,
                retry_after: None,
            }
        }
        ("authentication_error" | "permission_error" | "invalid_api_key", _)
        | (_, Some(401 | 403)) => ProviderError::Auth { provider, message },
        ("invalid_request_error" | "not_found_error" | "request_too_large", _)
        | (_, Some(400 | 404 | 422)) => ProviderError::InvalidRequest { provider, message },
        _ => ProviderError::Permanent {
            provider,
            message,
            source: None,
        },
    }
}

/// A failure to send the request or read the response: always worth retrying, except a
/// request the client could not even build.
pub(crate) fn from_transport(provider: &str, error: &reqwest::Error) -> ProviderError {
    let message = error_chain(error);
    if error.is_builder() {
        return ProviderError::Permanent {
            provider: provider.to_owned(),
            message,
            source: None,
        };
    }
    ProviderError::Transient {
        provider: provider.to_owned(),
        message,
        status: error.status().map(|s| s.as_u16()),
        retry_after: None,
    }
}

/// A timeout of ours (the whole request, or the gap between stream chunks).
pub(crate) fn timeout(provider: &str, what: &str, after: Duration) -> ProviderError {
    ProviderError::Transient {
        provider: provider.to_owned(),
        message: format!("{what} timed out after {after:?}"),
        status: None,
        retry_after: None,
    }
}

/// A response we could not make sense of.
pub(crate) fn malformed(provider: &str, what: impl std::fmt::Display) -> ProviderError {
    ProviderError::Permanent {
        provider: provider.to_owned(),
        message: format!("malformed response: {what}"),
        source: None,
    }
}

/// A stream that ended before the answer was complete (worth a retry).
pub(crate) fn cut_short(provider: &str) -> ProviderError {
    ProviderError::Transient {
        provider: provider.to_owned(),
        message: "the stream ended before the answer was complete".into(),
        status: None,
        retry_after: None,
    }
}

fn error_chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(inner) = source {
        let text = inner.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = inner.source();
    }
    cut(&message, MAX_MESSAGE_BYTES)
}

fn is_context_length(kind: Option<&str>, message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    let kind = kind.unwrap_or_default().to_ascii_lowercase();
    CONTEXT_PHRASES
        .iter()
        .any(|phrase| lower.contains(phrase) || kind.contains(phrase))
}

/// The error's type or code and its message, from the body shapes providers use:
/// `{"error": {"message", "type", "code"}}` (OpenAI and most compatibles),
/// `{"type": "error", "error": {"type", "message"}}` (Anthropic), `{"error": "text"}` (Ollama),
/// `{"message": "text"}`, or plain text.
pub(crate) fn error_message(body: &[u8]) -> (Option<String>, String) {
    match serde_json::from_slice::<Value>(body) {
        Ok(value) => match value.get("error") {
            Some(error) => describe_error(error),
            None => describe_error(&value),
        },
        Err(_) => (
            None,
            cut(String::from_utf8_lossy(body).trim(), MAX_MESSAGE_BYTES),
        ),
    }
}

fn describe_error(error: &Value) -> (Option<String>, String) {
    if let Some(text) = error.as_str() {
        return (None, cut(text, MAX_MESSAGE_BYTES));
    }
    let text_of = |key: &str| error.get(key).and_then(Value::as_str).map(str::to_owned);
    let kind = text_of("code")
        .filter(|code| !code.is_empty())
        .or_else(|| text_of("type"));
    let message = match text_of("message") {
        Some(message) => message,
        None => error.to_string(),
    };
    (kind, cut(&message, MAX_MESSAGE_BYTES))
}

/// Cuts `text` to at most `max` bytes on a character boundary, marking the cut.
pub(crate) fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes cut)", &text[..end], text.len() - end)
}

/// How long the provider asks to wait: `retry-after-ms` (milliseconds), else `retry-after`
/// (seconds, or an HTTP date).
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return seconds(ms / 1000.0);
    }
    let value = header("retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return seconds(secs);
    }
    let at = parse_http_date(value)?;
    Some(
        at.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

fn seconds(secs: f64) -> Option<Duration> {
    // Bounded so that a hostile header cannot make `from_secs_f64` panic.
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(86_400.0 * 365.0)))
}

/// Parses an HTTP date: the IMF-fixdate RFC 9110 requires (`Sun, 06 Nov 1994 08:49:37 GMT`)
/// and the two obsolete forms it asks recipients to read.
pub(crate) fn parse_http_date(text: &str) -> Option<SystemTime> {
    httpdate::parse_http_date(text.trim()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;
    use std::time::UNIX_EPOCH;

    #[test]
    fn http_dates_parse() {
        let at = parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").expect("valid date");
        assert_eq!(
            at.duration_since(UNIX_EPOCH).ok(),
            Some(Duration::from_secs(784_111_777))
        );
        assert_eq!(parse_http_date("Sun, 06 Nov 1994 08:49:37 PST"), None);
        assert_eq!(parse_http_date("yesterday"), None);
        assert_eq!(parse_http_date("Sun, 06 Foo 1994 08:49:37 GMT"), None);
        // The obsolete forms RFC 9110 asks recipients to accept.
        assert_eq!(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), Some(at));
        assert_eq!(parse_http_date("Sun Nov  6 08:49:37 1994"), Some(at));
    }

    #[test]
    fn retry_after_forms() {
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(2)));
        headers.insert("retry-after-ms", HeaderValue::from_static("150"));
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(150)));
        headers.clear();
        headers.insert(
            "retry-after",
            HeaderValue::from_static("Sun, 06 Nov 1994 08:49:37 GMT"),
        );
        assert_eq!(retry_after(&headers), Some(Duration::ZERO));
        headers.insert("retry-after", HeaderValue::from_static("-1"));
        assert_eq!(retry_after(&headers), None);
        headers.insert("retry-after", HeaderValue::from_static("1e300"));
        assert!(retry_after(&headers).is_some());
    }

    #[test]
    fn long_messages_are_cut_on_a_char_boundary() {
        let text = "é".repeat(3000);
        let cut = cut(&text, 5);
        assert!(cut.starts_with("éé…"), "{cut}");
    }
}
