//! The engine's own reading of a statement, after the guard's: SQLite's classification of the
//! prepared statement (`sqlite3_stmt_readonly`). The guard reads the text with sqlparser, the
//! authorizer ([`super::authorizer`]) sees each action while SQLite prepares it; this asks SQLite
//! what the prepared program does, and refuses one that writes to the database whatever the
//! other two decided. A refusal here means the readings disagreed (a guard or authorizer gap, or
//! the escape hatch): it is logged as such, so it becomes a test case.
//!
//! `sqlite3_stmt_readonly` is true for statements that change no database file: `SELECT`,
//! `EXPLAIN`, and also `BEGIN`/`COMMIT`, `SAVEPOINT`, `ATTACH`/`DETACH` (connection state, not
//! content), which the authorizer refuses. For `PRAGMA` statements it is conservative: `PRAGMA
//! journal_mode`, which only reports, is flagged as writing (the same pragma with a value changes
//! the journal). Pragmas are therefore left to the authorizer, which decides each one by the list
//! the guard uses too (`SqlitePragma`), argument included; the live test
//! `guard_engine_agreement` checks that the two agree on every pragma the engine has.

use nao_core::DialectError;
use rusqlite::Statement;

/// The code of this layer's refusals.
pub(super) const STMT_READONLY_CODE: &str = "stmt_readonly";

/// `Err` with a permission refusal when SQLite says the prepared `statement` writes.
pub(super) fn refuse_writes(
    statement: &Statement<'_>,
    sql: &str,
    database: &str,
) -> Result<(), DialectError> {
    if statement.readonly() || is_pragma(sql) {
        return Ok(());
    }
    tracing::warn!(
        database,
        "SQLite classifies a statement that reached it as read-only as one that writes \
         (sqlite3_stmt_readonly); refused"
    );
    Err(DialectError::Permission {
        database: database.to_owned(),
        message: "refused: SQLite reports that this statement writes to the database, and a \
                  data agent's connection only reads; write a SELECT"
            .to_owned(),
        code: Some(STMT_READONLY_CODE.to_owned()),
    })
}

/// Whether `sql`'s first word, after blanks and comments, is `PRAGMA`.
fn is_pragma(sql: &str) -> bool {
    let mut rest = sql;
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix("--") {
            rest = after.split_once('\n').map_or("", |(_, next)| next);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.split_once("*/").map_or("", |(_, next)| next);
        } else {
            break;
        }
    }
    rest.get(..6)
        .is_some_and(|word| word.eq_ignore_ascii_case("pragma"))
        && !rest[6..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On a plain connection (no authorizer, writable), SQLite's classification alone decides.
    #[test]
    fn writes_are_refused_and_reads_pass() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (x INTEGER); CREATE TABLE u (x INTEGER)")
            .unwrap();
        for write in [
            "INSERT INTO t VALUES (1)",
            "UPDATE t SET x = 2",
            "DELETE FROM t",
            "REPLACE INTO t VALUES (3)",
            "INSERT INTO t SELECT x FROM u",
            "WITH c AS (SELECT 1 AS x) INSERT INTO t SELECT x FROM c",
            "CREATE TABLE v (x INTEGER)",
            "CREATE TEMP TABLE w (x INTEGER)",
            "DROP TABLE u",
            "ALTER TABLE t ADD COLUMN y TEXT",
            "CREATE INDEX i ON t (x)",
            "CREATE VIEW vv AS SELECT 1",
            "VACUUM",
            "ANALYZE",
        ] {
            let statement = conn.prepare(write).unwrap();
            let error = refuse_writes(&statement, write, "db").expect_err(write);
            assert!(
                matches!(error, DialectError::Permission { .. }),
                "{write}: {error:?}"
            );
            assert!(
                super::super::errors::refused_as_writing(&error),
                "{write}: the refusal is the readings disagreeing: {error:?}"
            );
        }
        for read in [
            "SELECT * FROM t",
            "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 3) \
             SELECT n FROM s",
            "EXPLAIN QUERY PLAN SELECT * FROM t",
            "VALUES (1), (2)",
            "PRAGMA table_info(t)",
            "SELECT * FROM pragma_table_info('t')",
        ] {
            let statement = conn.prepare(read).unwrap();
            refuse_writes(&statement, read, "db").unwrap_or_else(|e| panic!("{read}: {e}"));
        }
    }

    /// SQLite flags `PRAGMA journal_mode` (a report) as writing; pragmas are the authorizer's
    /// to decide, so this layer lets every pragma through, and only pragmas.
    #[test]
    fn pragmas_are_left_to_the_authorizer() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let report = "/* mode */ -- of the journal\n pragma journal_mode";
        let statement = conn.prepare(report).unwrap();
        assert!(
            !statement.readonly(),
            "SQLite's flag changed: revisit this layer"
        );
        refuse_writes(&statement, report, "db").unwrap();
        for (sql, pragma) in [
            ("PRAGMA user_version = 3", true),
            ("  Pragma table_info(t)", true),
            ("PRAGMATIC", false),
            ("pragma_table_info", false),
            ("SELECT 1 -- PRAGMA", false),
            ("/* PRAGMA */ SELECT 1", false),
            ("-- PRAGMA x", false),
        ] {
            assert_eq!(is_pragma(sql), pragma, "{sql}");
        }
    }
}
