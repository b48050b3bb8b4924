//! tokio-postgres errors as [`DialectError`] kinds, keeping PostgreSQL's message and SQLSTATE.

use std::time::Duration;

use nao_core::DialectError;

use crate::pump::StopReason;

/// `error`'s message followed by its causes' (tokio-postgres leaves them out: "error
/// performing TLS handshake" alone does not say that the certificate was refused).
fn with_causes(error: &tokio_postgres::Error) -> String {
    let mut message = error.to_string();
    let mut cause = std::error::Error::source(error);
    while let Some(current) = cause {
        let text = current.to_string();
        if !message.ends_with(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        cause = current.source();
    }
    message
}

/// Maps an error of a statement to its kind. `stop` is why the adapter cancelled the
/// statement, if it did; `limit` is the statement's time limit (for `statement_timeout`).
pub(super) fn from_postgres(
    database: &str,
    error: tokio_postgres::Error,
    stop: Option<StopReason>,
    limit: Duration,
) -> DialectError {
    let db = database.to_owned();
    let Some(db_error) = error.as_db_error() else {
        if let Some(reason) = stop {
            return reason.error(database);
        }
        // No server error: the connection broke, or the driver met something it could not
        // handle (a COPY stream, say).
        let message = with_causes(&error);
        let lost = error.is_closed()
            || std::error::Error::source(&error)
                .is_some_and(|s| s.downcast_ref::<std::io::Error>().is_some());
        return if lost {
            DialectError::Connection {
                database: db,
                message,
                source: Some(Box::new(error)),
            }
        } else {
            DialectError::Engine {
                database: db,
                message,
                code: None,
                source: Some(Box::new(error)),
            }
        };
    };
    let code = db_error.code().code().to_owned();
    let mut message = db_error.message().to_owned();
    if let Some(detail) = db_error.detail() {
        message.push_str(&format!(" (detail: {detail})"));
    }
    if let Some(hint) = db_error.hint() {
        message.push_str(&format!(" (hint: {hint})"));
    }
    let class = code.get(..2).unwrap_or("");
    match code.as_str() {
        "57014" => {
            let reason = stop.unwrap_or(if message.contains("statement timeout") {
                StopReason::Timeout(limit)
            } else {
                StopReason::Cancelled
            });
            reason.error(database)
        }
        "42P01" | "42703" | "42883" | "42704" | "3F000" | "42P02" => DialectError::UnknownObject {
            database: db,
            message,
            code: Some(code),
        },
        "42501" | "25006" => DialectError::Permission {
            database: db,
            message,
            code: Some(code),
        },
        _ if class == "42" => DialectError::Syntax {
            database: db,
            message,
            code: Some(code),
        },
        // Connection exceptions, authorization failures, unknown databases, server shutdown.
        _ if matches!(class, "08" | "28" | "3D")
            || matches!(code.as_str(), "57P01" | "57P02" | "57P03") =>
        {
            DialectError::Connection {
                database: db,
                message: format!("{message} (SQLSTATE {code})"),
                source: Some(Box::new(error)),
            }
        }
        _ => DialectError::Engine {
            database: db,
            message,
            code: Some(code),
            source: Some(Box::new(error)),
        },
    }
}

/// Whether `error` is PostgreSQL's read-only transaction refusing a write (`25006`,
/// read_only_sql_transaction): the guard and the server read the statement differently.
pub(super) fn refused_as_writing(error: &DialectError) -> bool {
    matches!(error, DialectError::Permission { code: Some(code), .. } if code == "25006")
}
