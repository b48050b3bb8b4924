//! ADBC errors (status, SQLSTATE, vendor code, message) as [`DialectError`] kinds, with every
//! secret of the configuration scrubbed from the message.
//!
//! The SQLSTATE decides first where the driver sets one (PostgreSQL's driver does; its class
//! says syntax, unknown object, privilege or connection); then the message, in the words
//! engines use (SQLite's driver sets no SQLSTATE: "no such table", "syntax error",
//! "readonly database"); then the ADBC status. The code kept is the SQLSTATE, else
//! `adbc:<status>[:<vendor code>]`.

use adbc_core::error::{Error, Status};
use arrow_schema::ArrowError;
use nao_core::DialectError;

use super::secrets::Secrets;

/// Longest driver message kept (drivers may attach whole query plans or stack traces).
const MAX_MESSAGE: usize = 4_096;

/// Phrases with which engines say a name does not resolve, compared in lower case.
const UNKNOWN_OBJECT: [&str; 12] = [
    "no such table",
    "no such column",
    "does not exist",
    "not found",
    "unknown table",
    "unknown column",
    "invalid identifier",
    "cannot resolve",
    "cannot be resolved",
    "cannot be found",
    "missing from the schema",
    "no field named",
];

/// The vendor code ADBC 1.1 drivers set to say "the error has details", not a vendor's code.
const VENDOR_CODE_PRIVATE_DATA: i32 = i32::MIN;

/// Phrases of a statement the engine could not parse.
const SYNTAX: [&str; 5] = [
    "syntax error",
    "parse error",
    "parser error",
    "parsererror",
    "sql error",
];

/// Phrases of a write refused by a read-only session or file.
const READ_ONLY: [&str; 4] = [
    "readonly database",
    "read-only",
    "read only",
    "attempt to write",
];

/// Where errors come from, to word and scrub them.
#[derive(Debug, Clone, Copy)]
pub(super) struct ErrorContext<'a> {
    pub(super) database: &'a str,
    pub(super) secrets: &'a Secrets,
}

impl ErrorContext<'_> {
    /// The error of an ADBC call.
    pub(super) fn adbc(&self, error: &Error) -> DialectError {
        let message = self.message(&error.message, error.status);
        let sqlstate = sqlstate(error);
        let code = sqlstate.clone().or_else(|| {
            Some(match error.vendor_code {
                0 | VENDOR_CODE_PRIVATE_DATA => format!("adbc:{:?}", error.status),
                vendor => format!("adbc:{:?}:{vendor}", error.status),
            })
        });
        classify(
            self.database,
            message,
            code,
            sqlstate.as_deref(),
            error.status,
        )
    }

    /// The error of reading the driver's Arrow stream (the driver's error, as the C stream
    /// interface carries it: a message only).
    pub(super) fn stream(&self, error: &ArrowError) -> DialectError {
        let text = match error {
            ArrowError::CDataInterface(text) => text.clone(),
            ArrowError::ExternalError(source) => source.to_string(),
            other => other.to_string(),
        };
        let message = self.message(&text, Status::Unknown);
        let state = embedded_sqlstate(&text);
        let code = state.clone().or_else(|| Some("adbc:stream".to_owned()));
        classify(
            self.database,
            message,
            code,
            state.as_deref(),
            Status::Unknown,
        )
    }

    /// A connection error with `what` failed, for loading, opening and session setup.
    pub(super) fn connection(&self, what: &str, error: &Error) -> DialectError {
        DialectError::Connection {
            database: self.database.to_owned(),
            message: format!("{what}: {}", self.message(&error.message, error.status)),
            source: None,
        }
    }

    fn message(&self, text: &str, status: Status) -> String {
        let text = self.secrets.scrub(text.trim());
        let text = if text.is_empty() {
            format!("the driver reported {status:?} without a message")
        } else {
            text
        };
        cut(text)
    }
}

/// The SQLSTATE the driver set, unless blank or all zeros.
fn sqlstate(error: &Error) -> Option<String> {
    let state: String = error
        .sqlstate
        .iter()
        .map(|&c| u8::try_from(c).map_or('?', char::from))
        .collect();
    let real = state.chars().all(|c| c.is_ascii_alphanumeric()) && state != "00000";
    real.then_some(state)
}

/// A SQLSTATE written in a stream error's text (`… (SQLSTATE 42P01)` or PostgreSQL's
/// driver's `[libpq] … SQLSTATE: 42P01`).
fn embedded_sqlstate(text: &str) -> Option<String> {
    let at = text.find("SQLSTATE")?;
    let state: String = text[at + "SQLSTATE".len()..]
        .trim_start_matches([':', ' ', '='])
        .chars()
        .take(5)
        .collect();
    (state.len() == 5 && state.chars().all(|c| c.is_ascii_alphanumeric())).then_some(state)
}

fn classify(
    database: &str,
    message: String,
    code: Option<String>,
    sqlstate: Option<&str>,
    status: Status,
) -> DialectError {
    let database = database.to_owned();
    let lower = message.to_lowercase();
    let says = |phrases: &[&str]| phrases.iter().any(|p| lower.contains(p));
    let class = sqlstate.map(|s| &s[..2]);
    match (sqlstate, class) {
        (Some("42601" | "42000"), _) => {
            return DialectError::Syntax {
                database,
                message,
                code,
            };
        }
        (Some("42P01" | "42703" | "42883" | "42704" | "3F000" | "42S02" | "42S22"), _) => {
            return DialectError::UnknownObject {
                database,
                message,
                code,
            };
        }
        (Some("25006" | "42501"), _) => {
            return DialectError::Permission {
                database,
                message,
                code,
            };
        }
        (_, Some("08" | "28")) => {
            return DialectError::Connection {
                database,
                message,
                source: None,
            };
        }
        (_, Some("53" | "54")) => {
            return DialectError::ResourceLimit {
                database,
                limit: "engine's resource limit".to_owned(),
                message,
                code,
            };
        }
        _ => {}
    }
    if says(&SYNTAX) {
        return DialectError::Syntax {
            database,
            message,
            code,
        };
    }
    // Only without a SQLSTATE (SQLite sets none): a driver that sets one names its read-only
    // refusal by it (25006 above), and its message may quote a value such as 'read-only'.
    if sqlstate.is_none() && says(&READ_ONLY) {
        return DialectError::Permission {
            database,
            message,
            code,
        };
    }
    if says(&UNKNOWN_OBJECT) {
        return DialectError::UnknownObject {
            database,
            message,
            code,
        };
    }
    match status {
        Status::NotFound => DialectError::UnknownObject {
            database,
            message,
            code,
        },
        Status::Unauthorized => DialectError::Permission {
            database,
            message,
            code,
        },
        Status::Unauthenticated | Status::IO => DialectError::Connection {
            database,
            message,
            source: None,
        },
        Status::NotImplemented => DialectError::Unsupported {
            database,
            what: message,
        },
        _ => DialectError::Engine {
            database,
            message,
            code,
            source: None,
        },
    }
}

fn cut(mut text: String) -> String {
    if text.len() > MAX_MESSAGE {
        let mut end = MAX_MESSAGE;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str(" …");
    }
    text
}

/// Whether `error` is a read-only layer of the session refusing a statement (see the
/// [module docs](super#read-only)): PostgreSQL's read-only transactions (SQLSTATE 25006),
/// SQLite's `query_only` session and read-only file ("attempt to write a readonly database",
/// no SQLSTATE). A missing privilege (42501) is not one: the role lacks a grant, which says
/// nothing about how the text was read. The other vendors have no read-only layer to refuse.
pub(super) fn refused_as_writing(error: &DialectError) -> bool {
    let DialectError::Permission { message, code, .. } = error else {
        return false;
    };
    match code.as_deref().and_then(sqlstate_of) {
        Some(state) => state == "25006",
        None => {
            let lower = message.to_lowercase();
            READ_ONLY.iter().any(|phrase| lower.contains(phrase))
        }
    }
}

/// The SQLSTATE a kept code is, if it is one (the code is `adbc:<status>…` otherwise).
fn sqlstate_of(code: &str) -> Option<&str> {
    (code.len() == 5 && code.chars().all(|c| c.is_ascii_alphanumeric())).then_some(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(status: Status, state: &str, message: &str) -> Error {
        let mut e = Error::with_message_and_status(message, status);
        for (slot, byte) in e.sqlstate.iter_mut().zip(state.bytes()) {
            *slot = byte as std::os::raw::c_char;
        }
        e
    }

    fn kind(status: Status, state: &str, message: &str) -> (&'static str, Option<String>) {
        let secrets = Secrets::default();
        let context = ErrorContext {
            database: "db",
            secrets: &secrets,
        };
        let e = context.adbc(&error(status, state, message));
        (e.kind_code(), e.code().map(str::to_owned))
    }

    #[test]
    fn sqlstates_decide_first() {
        assert_eq!(
            kind(Status::InvalidState, "42P01", "relation x").0,
            "unknown_object"
        );
        assert_eq!(
            kind(Status::InvalidState, "42703", "column x").0,
            "unknown_object"
        );
        assert_eq!(
            kind(Status::InvalidState, "42601", "at or near").0,
            "syntax"
        );
        assert_eq!(
            kind(Status::InvalidState, "25006", "cannot execute INSERT").0,
            "permission"
        );
        assert_eq!(kind(Status::IO, "08006", "server closed").0, "connection");
        assert_eq!(
            kind(Status::InvalidState, "42P01", "x"),
            ("unknown_object", Some("42P01".to_owned()))
        );
    }

    fn refusal(status: Status, state: &str, message: &str) -> bool {
        let secrets = Secrets::default();
        let context = ErrorContext {
            database: "db",
            secrets: &secrets,
        };
        refused_as_writing(&context.adbc(&error(status, state, message)))
    }

    #[test]
    fn read_only_layers_refusing_are_told_apart_from_other_refusals() {
        assert!(refusal(
            Status::InvalidState,
            "25006",
            "cannot execute INSERT in a read-only transaction"
        ));
        assert!(refusal(
            Status::Unknown,
            "",
            "attempt to write a readonly database"
        ));
        // A missing grant, an authentication failure: not a read-only layer.
        assert!(!refusal(
            Status::InvalidState,
            "42501",
            "permission denied for table t (read-only role)"
        ));
        assert!(!refusal(Status::Unauthorized, "", "not allowed"));
        // A value quoted in another error is no refusal at all.
        assert_eq!(
            kind(
                Status::InvalidState,
                "22P02",
                "invalid input value for enum mode: \"read-only\""
            )
            .0,
            "engine"
        );
        assert!(!refusal(
            Status::InvalidState,
            "22P02",
            "invalid input value for enum mode: \"read-only\""
        ));
    }

    #[test]
    fn messages_then_statuses_decide_without_a_sqlstate() {
        assert_eq!(
            kind(Status::Unknown, "", "no such table: t").0,
            "unknown_object"
        );
        assert_eq!(
            kind(Status::InvalidArguments, "", "near \"SELEC\": syntax error").0,
            "syntax"
        );
        assert_eq!(
            kind(Status::Unknown, "", "attempt to write a readonly database").0,
            "permission"
        );
        assert_eq!(
            kind(Status::Unauthenticated, "", "bad token").0,
            "connection"
        );
        assert_eq!(
            kind(Status::NotImplemented, "", "GetObjects").0,
            "unsupported"
        );
        assert_eq!(
            kind(
                Status::Internal,
                "",
                "analysis error: attribute x is missing from the schema: cannot resolve attribute"
            )
            .0,
            "unknown_object"
        );
        assert_eq!(
            kind(
                Status::Internal,
                "",
                "Error building plan: SQL error: ParserError(\"Expected: an SQL statement\")"
            )
            .0,
            "syntax"
        );
        assert_eq!(
            kind(Status::Internal, "", "boom"),
            ("engine", Some("adbc:Internal".to_owned()))
        );
    }

    #[test]
    fn secrets_and_length_are_bounded() {
        let mut secrets = Secrets::default();
        secrets.add("hunter22");
        let context = ErrorContext {
            database: "db",
            secrets: &secrets,
        };
        let long = format!("login hunter22 failed {}", "x".repeat(10_000));
        let e = context.adbc(&error(Status::Unauthenticated, "", &long));
        let text = e.to_string();
        assert!(
            !text.contains("hunter22") && text.len() < 5_000,
            "{}",
            text.len()
        );
        let e = context.stream(&ArrowError::CDataInterface(
            "ERROR: relation \"t\" does not exist (SQLSTATE: 42P01)".into(),
        ));
        assert_eq!((e.kind_code(), e.code()), ("unknown_object", Some("42P01")));
    }
}
