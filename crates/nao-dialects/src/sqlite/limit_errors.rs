//! Statements that pass one of SQLite's limits ([`limits`](super::limits)), as
//! [`DialectError::ResourceLimit`]: which limit and its size, SQLite's message and code, and
//! what to write instead. The SQL is valid; retrying it cannot help, it must ask for less.

use nao_core::DialectError;
use rusqlite::ffi::ErrorCode;

use super::errors::failure;
use super::limits::{self, FixedLimit, VALUE_FLOOR};
use crate::sizes::human as size;

/// The error for `error` when it is a limit being passed, else `None`.
pub(crate) fn limit_error(
    database: &str,
    error: &rusqlite::Error,
    max_bytes: usize,
) -> Option<DialectError> {
    let (code, extended, sqlite) = failure(error)?;
    let lower = sqlite.to_ascii_lowercase();
    let (limit, message) = match code {
        ErrorCode::TooBig if !lower.contains("statement too long") => {
            value_too_big(max_bytes, &sqlite)
        }
        ErrorCode::OutOfMemory => out_of_memory(&sqlite),
        _ => {
            let hit = limits::fixed_hit(&lower)?;
            (
                format!("{} {}", amount(hit), hit.what),
                format!("SQLite: {sqlite}. {}", hit.advice),
            )
        }
    };
    Some(DialectError::ResourceLimit {
        database: database.to_owned(),
        limit,
        message,
        code: Some(extended.to_string()),
    })
}

/// A limit's value for people: a size for the limits in bytes, else the number.
fn amount(limit: &FixedLimit) -> String {
    match usize::try_from(limit.value) {
        Ok(bytes) if limit.bytes => size(bytes),
        _ => limit.value.to_string(),
    }
}

/// A string, blob or row over the value limit of the call's byte cap: (limit, message).
fn value_too_big(max_bytes: usize, sqlite: &str) -> (String, String) {
    let value = limits::value_limit(max_bytes);
    let why = if value > max_bytes / 2 {
        format!(
            "at least {} whatever the byte cap; this call's is {}",
            size(VALUE_FLOOR),
            size(max_bytes)
        )
    } else {
        format!("half of this call's byte cap of {}", size(max_bytes))
    };
    (
        format!("largest string, blob or row of {} ({why})", size(value)),
        format!(
            "SQLite: {sqlite}. Values built in the statement count (by group_concat, \
             json_group_array, printf, replace, zeroblob, randomblob, ||, a recursive CTE), and \
             so do values stored in the table: of those only length() of a BLOB can be read \
             in this call"
        ),
    )
}

/// SQLite's allocation failed: a program over the instruction limit (SQLite reports that as
/// out of memory), or a heap limit the host set for the process: (limit, message).
fn out_of_memory(sqlite: &str) -> (String, String) {
    (
        format!(
            "{} virtual-machine instructions per statement, or the process's SQLite heap limit",
            limits::VDBE_OP
        ),
        format!(
            "SQLite: {sqlite}. Make the statement smaller and cheaper: fewer columns, shorter \
             IN lists, fewer repeated views or subqueries, fewer large values at once"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error of `sql` on a connection with the limits of a call capped at `max_bytes`.
    fn error_of(sql: &str, max_bytes: usize) -> DialectError {
        let conn = rusqlite::Connection::open_in_memory().expect("open");
        limits::set_fixed(&conn).expect("fixed limits");
        limits::set_value_limit(&conn, max_bytes).expect("value limit");
        let err = conn
            .prepare(sql)
            .and_then(|mut s| s.query_row([], |r| r.get::<_, rusqlite::types::Value>(0)))
            .expect_err("must fail");
        super::super::errors::statement_error("db", err, max_bytes)
    }

    #[test]
    fn a_value_over_the_limit_names_the_limit_the_cap_and_what_to_do() {
        let err = error_of("SELECT zeroblob(999999999)", 64 << 20);
        assert_eq!(err.kind_code(), "resource_limit", "{err}");
        assert_eq!(err.code(), Some("18"));
        let text = err.to_string();
        for part in [
            "largest string, blob or row of 32 MiB",
            "byte cap of 64 MiB",
            "string or blob too big",
            "group_concat",
            "substr()",
        ] {
            assert!(text.contains(part), "{part:?} in {text}");
        }
        let floored = error_of("SELECT printf('%.*c', 2000000, 'x')", 100_000).to_string();
        assert!(
            floored.contains("of 1 MiB") && floored.contains("this call's is 97.7 KiB"),
            "{floored}"
        );
    }

    #[test]
    fn fixed_limits_name_their_value_and_advice() {
        let err = error_of(&format!("SELECT 'a' LIKE '{}'", "a".repeat(101)), 64 << 20);
        assert_eq!(err.kind_code(), "resource_limit", "{err}");
        let text = err.to_string();
        assert!(
            text.contains("the 100 bytes per LIKE or GLOB pattern allowed")
                && text.contains("Use a shorter pattern"),
            "{text}"
        );
        let long = format!("SELECT 1 -- {}", "x".repeat(limits::SQL_LENGTH as usize));
        let text = error_of(&long, 64 << 20).to_string();
        assert!(
            text.contains("the 1 MiB of SQL per statement allowed"),
            "{text}"
        );
        assert!(!text.contains("string, blob or row"), "{text}");
    }

    #[test]
    fn other_errors_are_not_limits() {
        let conn = rusqlite::Connection::open_in_memory().expect("open");
        let err = conn.prepare("SELEC 1").map(|_| ()).expect_err("syntax");
        assert!(limit_error("db", &err, 64 << 20).is_none());
    }
}
