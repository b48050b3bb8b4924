//! ClickHouse's errors as [`DialectError`] kinds, keeping the server's message and its
//! numeric code (`Code: 60` in the body, or the `X-ClickHouse-Exception-Code` header of
//! servers since 19.x).

use std::time::Duration;

use nao_core::DialectError;

use crate::pump::StopReason;

/// The most of a server's error message kept (its stack trace and the rest are dropped).
const MAX_MESSAGE: usize = 2_000;

/// A server error: its code, if it named one, and its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ServerError {
    pub(crate) code: Option<u32>,
    pub(crate) message: String,
}

impl ServerError {
    /// Reads an error body (`Code: 60, e.displayText() = DB::Exception: …, e.what() = …` of
    /// old servers, `Code: 60. DB::Exception: …. (UNKNOWN_TABLE) (version …)` of new ones),
    /// with the code from the header when the server sent one.
    pub(crate) fn parse(header_code: Option<&str>, body: &[u8]) -> ServerError {
        let text = String::from_utf8_lossy(body);
        let text = text.trim();
        let body_code = text.strip_prefix("Code: ").and_then(|rest| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        });
        let code = header_code
            .and_then(|c| c.trim().parse().ok())
            .or(body_code);
        let mut message = text;
        if body_code.is_some() {
            message = message
                .trim_start_matches("Code: ")
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .trim_start_matches([',', '.'])
                .trim_start();
        }
        message = message.trim_start_matches("e.displayText() = ");
        message = message.trim_start_matches("DB::Exception: ");
        if let Some(cut) = message.find(", e.what() = ") {
            message = &message[..cut];
        }
        // The first line only: what follows is a stack trace on some servers.
        message = message.lines().next().unwrap_or_default().trim();
        let mut message = message.to_owned();
        if message.len() > MAX_MESSAGE {
            let mut cut = MAX_MESSAGE;
            while !message.is_char_boundary(cut) {
                cut -= 1;
            }
            message.truncate(cut);
            message.push('…');
        }
        if message.is_empty() {
            message = "the server failed without a message".to_owned();
        }
        ServerError { code, message }
    }

    /// Whether a line of a result is the start of an error the server wrote after rows
    /// (the status was sent as 200 before the query failed).
    /// A value that merely starts like one (a String column holding `Code: 5`) is told
    /// apart by the `Exception` every server's error text holds.
    pub(crate) fn starts(line: &[u8]) -> bool {
        line.starts_with(b"Code: ")
            && line[6..].first().is_some_and(u8::is_ascii_digit)
            && line.windows(9).any(|w| w == b"Exception")
    }

    /// The [`DialectError`] kind of this error. `limit` is the statement's time limit (for
    /// the server's own timeout); `stop` is why the adapter stopped the statement, if it did.
    pub(crate) fn into_dialect(
        self,
        database: &str,
        limit: Duration,
        stop: Option<StopReason>,
    ) -> DialectError {
        if let Some(stop) = stop {
            return stop.error(database);
        }
        let database = database.to_owned();
        let ServerError { code, message } = self;
        let code_text = code.map(|c| c.to_string());
        match code.unwrap_or(0) {
            // SYNTAX_ERROR, and statements that parse but cannot be planned as written:
            // NUMBER_OF_ARGUMENTS_DOESNT_MATCH, ILLEGAL_TYPE_OF_ARGUMENT, ILLEGAL_COLUMN,
            // TYPE_MISMATCH, NOT_AN_AGGREGATE, ILLEGAL_AGGREGATION.
            62 | 42 | 43 | 44 | 53 | 215 | 184 => DialectError::Syntax {
                database,
                message,
                code: code_text,
            },
            // UNKNOWN_TABLE, UNKNOWN_IDENTIFIER, NO_SUCH_COLUMN_IN_TABLE, UNKNOWN_DATABASE,
            // UNKNOWN_FUNCTION, UNKNOWN_AGGREGATE_FUNCTION.
            60 | 47 | 16 | 81 | 46 | 63 => DialectError::UnknownObject {
                database,
                message,
                code: code_text,
            },
            // READONLY, ACCESS_DENIED, NOT_ENOUGH_PRIVILEGES, QUERY_IS_PROHIBITED.
            164 | 497 | 291 | 452 => DialectError::Permission {
                database,
                message,
                code: code_text,
            },
            // UNKNOWN_USER, WRONG_PASSWORD, REQUIRED_PASSWORD, IP_ADDRESS_NOT_ALLOWED,
            // AUTHENTICATION_FAILED: the credentials were refused.
            192 | 193 | 194 | 195 | 516 => DialectError::Connection {
                database,
                message: format!(
                    "the server refused the credentials: {message} (code {})",
                    code.unwrap_or(0)
                ),
                source: None,
            },
            // TIMEOUT_EXCEEDED (max_execution_time).
            159 => DialectError::Timeout { database, limit },
            // MEMORY_LIMIT_EXCEEDED, TOO_MANY_ROWS, TOO_MANY_BYTES, TOO_MANY_ROWS_OR_BYTES,
            // TOO_SLOW, TOO_MANY_SIMULTANEOUS_QUERIES.
            241 | 158 | 307 | 396 | 160 | 202 => DialectError::ResourceLimit {
                database,
                limit: limit_name(code.unwrap_or(0)).to_owned(),
                message,
                code: code_text,
            },
            _ => DialectError::Engine {
                database,
                message,
                code: code_text,
                source: None,
            },
        }
    }
}

fn limit_name(code: u32) -> &'static str {
    match code {
        241 => "server's memory limit for the query (max_memory_usage)",
        202 => "server's limit of queries at once",
        160 => "server's minimum execution speed",
        _ => "server's limit on rows or bytes read",
    }
}

/// Whether `error` is ClickHouse's `readonly` setting refusing a write (READONLY, 164): the
/// guard and the server read the statement differently.
pub(super) fn refused_as_writing(error: &DialectError) -> bool {
    matches!(error, DialectError::Permission { code: Some(code), .. } if code == "164")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(body: &str) -> (String, Option<String>) {
        let error = ServerError::parse(None, body.as_bytes()).into_dialect(
            "ch",
            Duration::from_secs(1),
            None,
        );
        (
            error.kind_code().to_owned(),
            error.code().map(str::to_owned),
        )
    }

    #[test]
    fn old_and_new_bodies() {
        let old = ServerError::parse(
            None,
            b"Code: 60, e.displayText() = DB::Exception: Table default.nope doesn't exist., e.what() = DB::Exception\n",
        );
        assert_eq!(old.code, Some(60));
        assert_eq!(old.message, "Table default.nope doesn't exist.");
        let new = ServerError::parse(
            Some("60"),
            b"Code: 60. DB::Exception: Table default.nope does not exist. (UNKNOWN_TABLE) (version 24.3.1.1)\n",
        );
        assert_eq!(new.code, Some(60));
        assert_eq!(
            new.message,
            "Table default.nope does not exist. (UNKNOWN_TABLE) (version 24.3.1.1)"
        );
        let bare = ServerError::parse(Some("241"), b"");
        assert_eq!(bare.code, Some(241));
        assert!(!bare.message.is_empty());
        let long = ServerError::parse(None, "é".repeat(5_000).as_bytes());
        assert!(long.message.len() <= MAX_MESSAGE + 3);
    }

    #[test]
    fn kinds_by_code() {
        let cases = [
            (
                "Code: 62, e.displayText() = DB::Exception: Syntax error",
                "syntax",
                "62",
            ),
            (
                "Code: 60. DB::Exception: Table x doesn't exist.",
                "unknown_object",
                "60",
            ),
            (
                "Code: 47, e.displayText() = DB::Exception: Unknown identifier",
                "unknown_object",
                "47",
            ),
            (
                "Code: 164, e.displayText() = DB::Exception: Cannot insert",
                "permission",
                "164",
            ),
            (
                "Code: 241. DB::Exception: Memory limit",
                "resource_limit",
                "241",
            ),
            ("Code: 999. DB::Exception: Something", "engine", "999"),
        ];
        for (body, want_kind, want_code) in cases {
            assert_eq!(
                kind(body),
                (want_kind.to_owned(), Some(want_code.to_owned())),
                "{body}"
            );
        }
        let timeout = ServerError::parse(None, b"Code: 159. DB::Exception: Timeout exceeded")
            .into_dialect("ch", Duration::from_secs(3), None);
        assert!(
            matches!(timeout, DialectError::Timeout { limit, .. } if limit == Duration::from_secs(3))
        );
        assert!(ServerError::starts(
            b"Code: 241, e.displayText() = DB::Exception: x"
        ));
        assert!(!ServerError::starts(b"Code: 5 is a value"));
        assert!(!ServerError::starts(b"Code: x"));
    }
}
