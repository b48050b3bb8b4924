//! gRPC statuses and Flight errors as [`DialectError`] kinds, keeping the server's message.
//!
//! Flight SQL servers report through gRPC status codes only loosely: Sail and DataFusion-based
//! servers answer both a syntax error and an unknown table with `InvalidArgument` (or
//! `Internal`), so within those codes the message decides between
//! [`DialectError::UnknownObject`] and [`DialectError::Syntax`]. The code goes along as
//! `grpc:<code>` for the host's logs.

use arrow_flight::error::FlightError;
use nao_core::DialectError;
use tonic::{Code, Status};

use crate::grpc_errors::{self, status_message};

/// Phrases with which engines say a name does not resolve (Spark/Sail, DataFusion, DuckDB,
/// PostgreSQL-like servers), compared in lower case.
const UNKNOWN_OBJECT_PHRASES: [&str; 10] = [
    "not found",
    "does not exist",
    "cannot be found",
    "cannot be resolved",
    "cannot resolve",
    "unresolved",
    "no such",
    "unknown",
    "no field named",
    "missing from the schema",
];

/// Phrases of a statement the engine could not parse or plan.
const SYNTAX_PHRASES: [&str; 4] = ["syntax", "parse", "parsing", "sql error"];

/// The error of a gRPC `status` from the server of `database`.
pub(super) fn from_status(database: &str, status: &Status) -> DialectError {
    if let Some(error) = grpc_errors::transport_failure(database, status) {
        return error;
    }
    let database = database.to_owned();
    let message = status_message(status);
    let code = Some(format!("grpc:{:?}", status.code()));
    let lower = message.to_lowercase();
    let says = |phrases: &[&str]| phrases.iter().any(|p| lower.contains(p));
    match status.code() {
        Code::InvalidArgument | Code::Internal | Code::Unknown | Code::FailedPrecondition
            if says(&UNKNOWN_OBJECT_PHRASES) && !says(&SYNTAX_PHRASES) =>
        {
            DialectError::UnknownObject {
                database,
                message,
                code,
            }
        }
        Code::InvalidArgument => DialectError::Syntax {
            database,
            message,
            code,
        },
        Code::Internal | Code::Unknown if says(&SYNTAX_PHRASES) => DialectError::Syntax {
            database,
            message,
            code,
        },
        other => grpc_errors::by_code(database, other, message, code, "Flight SQL"),
    }
}

/// The error of a Flight call (a status, or data that did not decode).
pub(super) fn from_flight(database: &str, error: FlightError) -> DialectError {
    match error {
        FlightError::Tonic(status) => from_status(database, &status),
        other => DialectError::Engine {
            database: database.to_owned(),
            message: format!("the server sent data that does not decode: {other}"),
            code: None,
            source: Some(Box::new(other)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(code: Code, message: &str) -> &'static str {
        from_status("db", &Status::new(code, message)).kind_code()
    }

    #[test]
    fn codes_and_messages_map_to_kinds() {
        assert_eq!(
            kind(
                Code::InvalidArgument,
                "[TABLE_OR_VIEW_NOT_FOUND] table `x` cannot be found"
            ),
            "unknown_object"
        );
        assert_eq!(
            kind(Code::InvalidArgument, "sql parser error: Expected SELECT"),
            "syntax"
        );
        assert_eq!(
            kind(Code::Internal, "error parsing SQL near FROM"),
            "syntax"
        );
        assert_eq!(kind(Code::NotFound, "no such table"), "unknown_object");
        assert_eq!(
            kind(
                Code::Internal,
                "Schema error: No field named nope. Valid fields are t.a"
            ),
            "unknown_object"
        );
        assert_eq!(kind(Code::PermissionDenied, "read only"), "permission");
        assert_eq!(kind(Code::Unavailable, "connection refused"), "connection");
        assert_eq!(kind(Code::Unauthenticated, "bad token"), "connection");
        assert_eq!(
            kind(Code::ResourceExhausted, "out of memory"),
            "resource_limit"
        );
        assert_eq!(kind(Code::Unimplemented, "GetTables"), "unsupported");
        assert_eq!(kind(Code::Aborted, "worker lost"), "engine");
    }

    #[test]
    fn the_servers_message_and_code_are_kept() {
        let error = from_status("db", &Status::new(Code::InvalidArgument, "Expected FROM"));
        assert!(error.to_string().contains("Expected FROM"), "{error}");
        assert_eq!(error.code(), Some("grpc:InvalidArgument"));
        let empty = from_status("db", &Status::new(Code::Unavailable, ""));
        assert!(empty.to_string().contains("unavailable"), "{empty}");
    }
}
