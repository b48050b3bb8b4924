//! What the gRPC adapters (Flight SQL, Spark Connect) share about errors: a status's message
//! with its causes, and the kinds that a status code decides by itself. Which statement errors
//! (syntax, unknown names) hide behind `InvalidArgument` or `Internal` is each protocol's own
//! reading of the message.

use nao_core::DialectError;
use tonic::{Code, Status};

/// `error`'s message followed by its causes' (tonic's transport error alone says only
/// "transport error").
pub(crate) fn with_causes(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    push_causes(&mut message, error.source());
    message
}

/// Appends `: <cause>` for `cause` and each of its own causes that `message` does not say yet.
fn push_causes(message: &mut String, mut cause: Option<&(dyn std::error::Error + 'static)>) {
    while let Some(current) = cause {
        let text = current.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        cause = current.source();
    }
}

/// The status's message without a closing full stop (the error kinds add their own
/// sentence), or its code's description when the server sent none, with the causes of a
/// transport failure (a refused connection) after it.
pub(crate) fn status_message(status: &Status) -> String {
    let mut message = status.message().trim().trim_end_matches('.').to_owned();
    if message.is_empty() {
        message = status.code().description().to_owned();
    }
    push_causes(&mut message, std::error::Error::source(status));
    message
}

/// A connection error for a status the client made itself because the connection failed (its
/// causes hold tonic's transport error: refused, reset, a TLS or HTTP/2 failure, such as plain
/// gRPC sent to a TLS port), whatever code it carries; `None` for the server's own answers.
pub(crate) fn transport_failure(database: &str, status: &Status) -> Option<DialectError> {
    let mut cause = std::error::Error::source(status);
    while let Some(current) = cause {
        if current.is::<tonic::transport::Error>() {
            return Some(DialectError::Connection {
                database: database.to_owned(),
                message: format!("the connection failed: {}", status_message(status)),
                source: None,
            });
        }
        cause = current.source();
    }
    None
}

/// The error a status `code` means by itself: not found, permission, credentials, an
/// unreachable server, a resource limit, an RPC the server lacks (`protocol` names the
/// protocol in that message); anything else is an engine error with `error_code`.
pub(crate) fn by_code(
    database: String,
    code: Code,
    message: String,
    error_code: Option<String>,
    protocol: &str,
) -> DialectError {
    match code {
        Code::NotFound => DialectError::UnknownObject {
            database,
            message,
            code: error_code,
        },
        Code::PermissionDenied => DialectError::Permission {
            database,
            message,
            code: error_code,
        },
        Code::Unauthenticated => DialectError::Connection {
            database,
            message: format!("the server refused the credentials: {message}"),
            source: None,
        },
        Code::Unavailable => DialectError::Connection {
            database,
            message,
            source: None,
        },
        Code::ResourceExhausted => DialectError::ResourceLimit {
            database,
            limit: "server's resource limit".to_owned(),
            message,
            code: error_code,
        },
        Code::Unimplemented => DialectError::Unsupported {
            database,
            what: format!("the server does not implement this {protocol} call: {message}"),
        },
        _ => DialectError::Engine {
            database,
            message,
            code: error_code,
            source: None,
        },
    }
}
