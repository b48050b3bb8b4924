//! rusqlite errors as [`DialectError`] kinds, keeping SQLite's message and extended code.

use nao_core::DialectError;
use rusqlite::ffi::ErrorCode;

/// The SQLite failure inside a rusqlite error: (primary code, extended code, message).
pub(super) fn failure(error: &rusqlite::Error) -> Option<(ErrorCode, i32, String)> {
    match error {
        rusqlite::Error::SqliteFailure(e, message) => Some((
            e.code,
            e.extended_code,
            message.clone().unwrap_or_else(|| e.to_string()),
        )),
        rusqlite::Error::SqlInputError { error, msg, .. } => {
            Some((error.code, error.extended_code, msg.clone()))
        }
        _ => None,
    }
}

/// Whether SQLite stopped the statement because the progress handler (or an interrupt) said
/// so.
pub(crate) fn is_interrupt(error: &rusqlite::Error) -> bool {
    failure(error).is_some_and(|(code, _, _)| code == ErrorCode::OperationInterrupted)
}

/// Maps a rusqlite error of a statement run with the byte cap `max_bytes` on `database`: a
/// statement that passed one of SQLite's limits gets a message naming the limit and what to
/// write instead ([`limit_errors`](super::limit_errors)); any other error its kind.
pub(crate) fn statement_error(
    database: &str,
    error: rusqlite::Error,
    max_bytes: usize,
) -> DialectError {
    match super::limit_errors::limit_error(database, &error, max_bytes) {
        Some(limit) => limit,
        None => dialect_error(database, error),
    }
}

/// Maps a rusqlite error of a statement on `database` to its kind.
pub(crate) fn dialect_error(database: &str, error: rusqlite::Error) -> DialectError {
    let database = database.to_owned();
    let Some((code, extended, message)) = failure(&error) else {
        return match error {
            rusqlite::Error::Empty => DialectError::Syntax {
                database,
                message: "the statement is empty".into(),
                code: None,
            },
            rusqlite::Error::MultipleStatement => DialectError::Syntax {
                database,
                message: "only one statement can run at a time".into(),
                code: None,
            },
            other => DialectError::Engine {
                database,
                message: other.to_string(),
                code: None,
                source: Some(Box::new(other)),
            },
        };
    };
    let lower = message.to_ascii_lowercase();
    let code_text = Some(extended.to_string());
    if matches!(
        code,
        ErrorCode::AuthorizationForStatementDenied
            | ErrorCode::ReadOnly
            | ErrorCode::PermissionDenied
    ) || authorizer_refused(&lower)
    {
        return DialectError::Permission {
            database,
            message,
            code: code_text,
        };
    }
    if matches!(code, ErrorCode::CannotOpen | ErrorCode::NotADatabase) {
        return DialectError::Connection {
            database,
            message,
            source: Some(Box::new(error)),
        };
    }
    if lower.contains("syntax error")
        || lower.contains("incomplete input")
        || lower.contains("unrecognized token")
    {
        return DialectError::Syntax {
            database,
            message,
            code: code_text,
        };
    }
    if [
        "no such table",
        "no such column",
        "no such function",
        "no such view",
        "no such module",
        "no such collation",
        "unknown database",
    ]
    .iter()
    .any(|m| lower.contains(m))
    {
        return DialectError::UnknownObject {
            database,
            message,
            code: code_text,
        };
    }
    DialectError::Engine {
        database,
        message,
        code: code_text,
        source: Some(Box::new(error)),
    }
}

/// Whether SQLite's message is the authorizer's refusal. A function it denies fails with
/// `SQLITE_ERROR` and "not authorized to use function: …", so the message decides, by how it
/// starts: a name in another error ("no such column: not authorized") is no refusal.
fn authorizer_refused(lower: &str) -> bool {
    lower.starts_with("not authorized")
}

/// Whether `error` is one of SQLite's read-only layers refusing a statement: the authorizer
/// (`SQLITE_AUTH`, or "not authorized to use function": an action or function outside the
/// guard's read-only list, a write above all), SQLite's
/// reading of the prepared statement ([`super::engine_verdict`]), or a database opened
/// read-only (`SQLITE_READONLY` and its extended codes). A statement reaches them only after
/// the guard read it as read-only, so the readings disagree.
pub(super) fn refused_as_writing(error: &DialectError) -> bool {
    const SQLITE_AUTH: i32 = 23;
    const SQLITE_READONLY: i32 = 8;
    let DialectError::Permission {
        code: Some(code),
        message,
        ..
    } = error
    else {
        return false;
    };
    authorizer_refused(&message.to_ascii_lowercase())
        || code == super::engine_verdict::STMT_READONLY_CODE
        || code
            .parse::<i32>()
            .is_ok_and(|extended| extended == SQLITE_AUTH || extended & 0xff == SQLITE_READONLY)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(sql: &str) -> DialectError {
        let conn = rusqlite::Connection::open_in_memory().expect("open");
        conn.execute_batch("CREATE TABLE t (x INTEGER)")
            .expect("create");
        let err = conn.prepare(sql).map(|_| ()).expect_err("must fail");
        dialect_error("db", err)
    }

    #[test]
    fn errors_map_to_kinds_with_codes() {
        let syntax = error_of("SELEC 1");
        assert_eq!(syntax.kind_code(), "syntax", "{syntax}");
        assert_eq!(syntax.code(), Some("1"));
        assert_eq!(error_of("SELECT (1").kind_code(), "syntax");
        assert_eq!(error_of("SELECT * FROM nope").kind_code(), "unknown_object");
        assert_eq!(error_of("SELECT nope FROM t").kind_code(), "unknown_object");
        assert_eq!(error_of("SELECT nope(1)").kind_code(), "unknown_object");
        assert_eq!(error_of("").kind_code(), "syntax");
        assert_eq!(error_of("SELECT 1; SELECT 2").kind_code(), "syntax");
        assert!(
            error_of("SELECT * FROM nope")
                .to_string()
                .contains("no such table: nope")
        );
    }

    #[test]
    fn a_name_in_an_error_is_no_refusal() {
        for sql in [
            "SELECT [not authorized] FROM t",
            "SELECT * FROM [attempt to write a readonly database]",
        ] {
            let error = error_of(sql);
            assert_eq!(error.kind_code(), "unknown_object", "{error}");
            assert!(!refused_as_writing(&error), "{error}");
        }
    }
}
