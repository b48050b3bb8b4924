//! MySQL and MariaDB errors as [`DialectError`] kinds, keeping the server's message and its
//! numeric error code.

use std::time::Duration;

use mysql_async::{DriverError, Error, ServerError};
use nao_core::DialectError;

use crate::pump::StopReason;

/// Maps a driver error. `limit` is the statement's time limit (for the server's own timeout
/// errors); `stop` is why the adapter interrupted the statement, if it did.
pub(super) fn from_mysql(
    database: &str,
    error: Error,
    limit: Duration,
    stop: Option<StopReason>,
) -> DialectError {
    match error {
        Error::Server(server) => from_server(database, server, limit, stop),
        Error::Io(_) | Error::Driver(DriverError::ConnectionClosed) => DialectError::Connection {
            database: database.to_owned(),
            message: error.to_string(),
            source: Some(Box::new(error)),
        },
        Error::Driver(_) | Error::Other(_) | Error::Url(_) => DialectError::Engine {
            database: database.to_owned(),
            message: error.to_string(),
            code: None,
            source: Some(Box::new(error)),
        },
    }
}

/// Classifies a server error by its code.
pub(super) fn from_server(
    database: &str,
    error: ServerError,
    limit: Duration,
    stop: Option<StopReason>,
) -> DialectError {
    let database = database.to_owned();
    let code = Some(error.code.to_string());
    match error.code {
        // ER_PARSE_ERROR (also several statements in one: they cannot be prepared),
        // ER_SYNTAX_ERROR, ER_UNSUPPORTED_PS (a statement the binary protocol cannot prepare).
        1064 | 1149 | 1295 => DialectError::Syntax {
            database,
            message: error.message,
            code,
        },
        // ER_NO_SUCH_TABLE, ER_BAD_FIELD_ERROR, ER_SP_DOES_NOT_EXIST, ER_BAD_DB_ERROR,
        // ER_BAD_TABLE_ERROR, ER_UNKNOWN_TABLE, ER_VIEW_INVALID, ER_FUNC_INEXISTENT_NAME_COLLISION.
        1146 | 1054 | 1305 | 1049 | 1051 | 1109 | 1356 | 1630 => DialectError::UnknownObject {
            database,
            message: error.message,
            code,
        },
        // Privileges (table, column, database, login, SUPER/FILE-like, routine), and the
        // read-only layers: ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION, ER_CANT_CHANGE_TX_ISOLATION
        // (changing the access mode inside the transaction), ER_OPTION_PREVENTS_STATEMENT
        // (--read-only, --secure-file-priv), ER_READ_ONLY_MODE.
        1142 | 1143 | 1044 | 1045 | 1227 | 1370 | 1698 | 1792 | 1568 | 1290 | 1836 => {
            DialectError::Permission {
                database,
                message: error.message,
                code,
            }
        }
        // MySQL's max_execution_time (3024; 1907 in early 5.7), MariaDB's max_statement_time.
        3024 | 1907 | 1969 => DialectError::Timeout { database, limit },
        // ER_QUERY_INTERRUPTED: our KILL QUERY, or someone else's.
        1317 => match stop {
            Some(StopReason::Timeout(limit)) => DialectError::Timeout { database, limit },
            _ => DialectError::Cancelled { database },
        },
        // Too many connections, server shutdown, connection killed, lost connection.
        1040 | 1053 | 1927 | 2002 | 2003 | 2006 | 2013 => DialectError::Connection {
            database,
            message: error.to_string(),
            source: Some(Box::new(error)),
        },
        _ => DialectError::Engine {
            database,
            message: error.message.clone(),
            code,
            source: Some(Box::new(error)),
        },
    }
}

/// Whether `error` is the server's read-only layer refusing a write: the read-only transaction
/// (ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION, 1792; ER_CANT_CHANGE_TX_CHARACTERISTICS, 1568,
/// for a statement that would make it writable), a read-only server (`--read-only`,
/// `super_read_only`: ER_OPTION_PREVENTS_STATEMENT, 1290) or ER_READ_ONLY_MODE (1836). The guard
/// and the server read the statement differently.
pub(super) fn refused_as_writing(error: &DialectError) -> bool {
    matches!(
        error,
        DialectError::Permission { code: Some(code), .. } if matches!(code.as_str(), "1792" | "1568" | "1290" | "1836")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(code: u16) -> &'static str {
        let error = ServerError {
            code,
            message: "m".into(),
            state: "HY000".into(),
        };
        from_server("db", error, Duration::from_secs(1), None).kind_code()
    }

    #[test]
    fn server_codes_map_to_kinds() {
        assert_eq!(kind(1064), "syntax");
        for code in [1146, 1054, 1305, 1049] {
            assert_eq!(kind(code), "unknown_object", "{code}");
        }
        for code in [1142, 1143, 1044, 1045, 1227, 1792] {
            assert_eq!(kind(code), "permission", "{code}");
        }
        assert_eq!(kind(3024), "timeout");
        assert_eq!(kind(1969), "timeout");
        assert_eq!(kind(1317), "cancelled");
        for code in [2002, 2003, 2006, 2013] {
            assert_eq!(kind(code), "connection", "{code}");
        }
        assert_eq!(kind(1365), "engine");
    }

    #[test]
    fn the_code_is_kept_and_interrupts_say_why() {
        let error = ServerError {
            code: 1146,
            message: "Table 't.x' doesn't exist".into(),
            state: "42S02".into(),
        };
        let mapped = from_server("db", error, Duration::from_secs(1), None);
        assert_eq!(mapped.code(), Some("1146"));
        let interrupted = ServerError {
            code: 1317,
            message: "Query execution was interrupted".into(),
            state: "70100".into(),
        };
        let limit = Duration::from_millis(300);
        let mapped = from_server("db", interrupted, limit, Some(StopReason::Timeout(limit)));
        assert_eq!(mapped.kind_code(), "timeout");
    }
}
