//! gRPC statuses from Spark Connect servers as [`DialectError`] kinds, keeping the server's
//! message and Spark's error class.
//!
//! Spark Connect servers answer almost every failure with `INTERNAL` and put what happened in
//! a `google.rpc.ErrorInfo` detail: `reason` is the exception's class
//! (`org.apache.spark.sql.catalyst.parser.ParseException`), and Apache Spark adds the error
//! class (`TABLE_OR_VIEW_NOT_FOUND`, `PARSE_SYNTAX_ERROR`) and the SQLSTATE to its metadata.
//! Sail gives the class names only, with the error class inside the message
//! (`Table not found: [TABLE_OR_VIEW_NOT_FOUND] …`). The kind is decided from the error class
//! and SQLSTATE when there are some, then from the exception class, then from the message.
//! The error's `code` is the error class (or the SQLSTATE, or `grpc:<code>`), and the message
//! names the error class when the server's message does not.

use nao_core::DialectError;
use prost::Message;
use tonic::{Code, Status};

use crate::grpc_errors::{self, status_message};

use super::proto::{ERROR_INFO_TYPE, ErrorInfo, RpcStatus};

/// Phrases with which Spark and Sail say a name does not resolve, compared in lower case.
const UNKNOWN_OBJECT_PHRASES: [&str; 7] = [
    "not found",
    "does not exist",
    "cannot be found",
    "cannot be resolved",
    "cannot resolve",
    "unresolved",
    "missing from the schema",
];

/// Phrases of a statement that does not parse: Spark's, and Sail's parser's
/// (`found SELEC at 0:5 expected …`).
const SYNTAX_PHRASES: [&str; 4] = [
    "syntax error",
    "parse error",
    "mismatched input",
    " expected ",
];

/// What Spark's `ErrorInfo` says about an error.
#[derive(Debug, Default, PartialEq, Eq)]
struct SparkError {
    /// The exception's class (`ErrorInfo.reason`).
    exception: Option<String>,
    /// Spark's error class (`TABLE_OR_VIEW_NOT_FOUND`).
    error_class: Option<String>,
    /// The SQLSTATE.
    sql_state: Option<String>,
}

/// The error of a gRPC `status` from the server of `database`.
pub(super) fn from_status(database: &str, status: &Status) -> DialectError {
    if let Some(error) = grpc_errors::transport_failure(database, status) {
        return error;
    }
    let database = database.to_owned();
    let spark = spark_error(status);
    let mut message = status_message(status);
    let error_class = spark
        .error_class
        .clone()
        .or_else(|| bracketed_error_class(&message));
    if let Some(class) = &error_class
        && !message.contains(class.as_str())
    {
        message.push_str(&format!(" [{class}]"));
    }
    if let Some(state) = &spark.sql_state
        && !message.contains(state.as_str())
    {
        message.push_str(&format!(" (SQLSTATE {state})"));
    }
    let code = Some(
        error_class
            .clone()
            .or_else(|| spark.sql_state.clone())
            .unwrap_or_else(|| format!("grpc:{:?}", status.code())),
    );
    match status.code() {
        Code::Internal | Code::Unknown | Code::InvalidArgument | Code::FailedPrecondition => {
            match statement_kind(&spark, error_class.as_deref(), &message) {
                Some(Kind::Syntax) => DialectError::Syntax {
                    database,
                    message,
                    code,
                },
                Some(Kind::UnknownObject) => DialectError::UnknownObject {
                    database,
                    message,
                    code,
                },
                Some(Kind::Permission) => DialectError::Permission {
                    database,
                    message,
                    code,
                },
                None => DialectError::Engine {
                    database,
                    message,
                    code,
                    source: None,
                },
            }
        }
        other => grpc_errors::by_code(database, other, message, code, "Spark Connect"),
    }
}

/// The kinds a failed statement can have besides an engine error.
enum Kind {
    Syntax,
    UnknownObject,
    Permission,
}

/// The statement's kind of failure, from the error class, SQLSTATE, exception or message.
fn statement_kind(spark: &SparkError, error_class: Option<&str>, message: &str) -> Option<Kind> {
    if let Some(class) = error_class {
        let class = class.to_ascii_uppercase();
        if class.starts_with("PARSE_") || class.contains("SYNTAX") {
            return Some(Kind::Syntax);
        }
        if class.contains("NOT_FOUND")
            || class.starts_with("UNRESOLVED_")
            || class.contains("_DOES_NOT_EXIST")
        {
            return Some(Kind::UnknownObject);
        }
        if class.contains("PERMISSION") || class.contains("INSUFFICIENT_PRIVILEGES") {
            return Some(Kind::Permission);
        }
    }
    if let Some(state) = &spark.sql_state {
        match state.as_str() {
            "42601" | "42000" => return Some(Kind::Syntax),
            "42P01" | "42703" | "42704" | "42883" | "3F000" | "42S02" | "42S22" => {
                return Some(Kind::UnknownObject);
            }
            "42501" => return Some(Kind::Permission),
            _ => {}
        }
    }
    if let Some(exception) = &spark.exception
        && exception.ends_with("ParseException")
    {
        return Some(Kind::Syntax);
    }
    let lower = message.to_lowercase();
    let says = |phrases: &[&str]| phrases.iter().any(|p| lower.contains(p));
    if says(&UNKNOWN_OBJECT_PHRASES) {
        Some(Kind::UnknownObject)
    } else if says(&SYNTAX_PHRASES) {
        Some(Kind::Syntax)
    } else {
        None
    }
}

/// The `ErrorInfo` of the status's details, if the server sent one.
fn spark_error(status: &Status) -> SparkError {
    let Ok(details) = RpcStatus::decode(status.details()) else {
        return SparkError::default();
    };
    let Some(info) = details
        .details
        .iter()
        .filter(|any| any.type_url == ERROR_INFO_TYPE)
        .find_map(|any| ErrorInfo::decode(any.value.as_slice()).ok())
    else {
        return SparkError::default();
    };
    let non_empty = |s: Option<&String>| s.filter(|s| !s.is_empty()).cloned();
    SparkError {
        exception: non_empty(Some(&info.reason)),
        error_class: non_empty(info.metadata.get("errorClass")),
        sql_state: non_empty(info.metadata.get("sqlState")),
    }
}

/// Spark's error class as its messages write it, `[TABLE_OR_VIEW_NOT_FOUND]` (Sail's
/// messages carry it only so).
fn bracketed_error_class(message: &str) -> Option<String> {
    let start = message.find('[')? + 1;
    let len = message[start..].find(']')?;
    let class = &message[start..start + len];
    let plausible = class.len() >= 3
        && class
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || matches!(c, '_' | '.'))
        && class.starts_with(|c: char| c.is_ascii_uppercase());
    plausible.then(|| class.to_owned())
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::super::proto::Any;
    use super::*;

    /// A status as Spark sends it: INTERNAL with an `ErrorInfo`.
    fn spark_status(message: &str, reason: &str, metadata: &[(&str, &str)]) -> Status {
        let info = ErrorInfo {
            reason: reason.to_owned(),
            domain: "org.apache.spark".to_owned(),
            metadata: metadata
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect::<HashMap<_, _>>(),
        };
        let details = RpcStatus {
            code: Code::Internal as i32,
            message: message.to_owned(),
            details: vec![Any {
                type_url: ERROR_INFO_TYPE.to_owned(),
                value: info.encode_to_vec(),
            }],
        };
        Status::with_details(Code::Internal, message, details.encode_to_vec().into())
    }

    #[test]
    fn apache_spark_errors_map_by_error_class() {
        let syntax = from_status(
            "db",
            &spark_status(
                "[PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'. SQLSTATE: 42601",
                "org.apache.spark.sql.catalyst.parser.ParseException",
                &[("errorClass", "PARSE_SYNTAX_ERROR"), ("sqlState", "42601")],
            ),
        );
        assert_eq!(syntax.kind_code(), "syntax");
        assert_eq!(syntax.code(), Some("PARSE_SYNTAX_ERROR"));
        let column = from_status(
            "db",
            &spark_status(
                "A column, variable, or function parameter with name `nope` cannot be resolved",
                "org.apache.spark.sql.AnalysisException",
                &[
                    ("errorClass", "UNRESOLVED_COLUMN.WITH_SUGGESTION"),
                    ("sqlState", "42703"),
                ],
            ),
        );
        assert_eq!(column.kind_code(), "unknown_object");
        let text = column.to_string();
        assert!(text.contains("UNRESOLVED_COLUMN.WITH_SUGGESTION"), "{text}");
        assert!(text.contains("SQLSTATE 42703"), "{text}");
        let zero = from_status(
            "db",
            &spark_status(
                "[DIVIDE_BY_ZERO] Division by zero",
                "org.apache.spark.SparkArithmeticException",
                &[("errorClass", "DIVIDE_BY_ZERO"), ("sqlState", "22012")],
            ),
        );
        assert_eq!(zero.kind_code(), "engine");
    }

    #[test]
    fn sail_errors_map_by_class_name_and_message() {
        let table = from_status(
            "db",
            &spark_status(
                "Table not found: [TABLE_OR_VIEW_NOT_FOUND] Table or view not found: nope",
                "org.apache.spark.sql.AnalysisException",
                &[],
            ),
        );
        assert_eq!(table.kind_code(), "unknown_object");
        assert_eq!(table.code(), Some("TABLE_OR_VIEW_NOT_FOUND"));
        let column = from_status(
            "db",
            &spark_status(
                "attribute ObjectName([Identifier(\"nope\")]) is missing from the schema: \
                 cannot resolve attribute",
                "org.apache.spark.sql.AnalysisException",
                &[],
            ),
        );
        assert_eq!(column.kind_code(), "unknown_object");
        assert_eq!(column.code(), Some("grpc:Internal"));
        let syntax = from_status(
            "db",
            &spark_status(
                "invalid argument: found SELEC at 0:5 expected something else, ';', statement, \
                 or end of input",
                "java.lang.IllegalArgumentException",
                &[],
            ),
        );
        assert_eq!(syntax.kind_code(), "syntax");
        assert!(syntax.to_string().contains("found SELEC"), "{syntax}");
    }

    #[test]
    fn transport_codes_map_to_kinds() {
        let kind = |code, message| from_status("db", &Status::new(code, message)).kind_code();
        assert_eq!(kind(Code::Unavailable, "connection refused"), "connection");
        assert_eq!(kind(Code::Unauthenticated, "bad token"), "connection");
        assert_eq!(kind(Code::PermissionDenied, "no"), "permission");
        assert_eq!(kind(Code::ResourceExhausted, "too big"), "resource_limit");
        assert_eq!(kind(Code::Unimplemented, "Interrupt"), "unsupported");
        assert_eq!(kind(Code::Internal, "divide by zero"), "engine");
        let empty = from_status("db", &Status::new(Code::Unavailable, ""));
        assert!(empty.to_string().contains("unavailable"), "{empty}");
    }
}
