//! The engine's own reading of a statement, after the guard's: SQLite's classification of the
//! prepared statement (`sqlite3_stmt_readonly`). The guard reads the text with sqlparser, the
//! authorizer ([`super::authorizer`]) sees each action while SQLite prepares it; this asks SQLite
//! what the prepared program does, and refuses one that writes to the database whatever the
//! other two decided. A refusal here means the readings disagreed (a guard or authorizer gap, or
//! the escape hatch): it is logged as such, so it becomes a test case.
//!
//! `sqlite3_stmt_readonly` is true for statements that change no database file: `SELECT`,
//! `EXPLAIN`, the pragmas that read, and also `BEGIN`/`COMMIT`, `SAVEPOINT`, `ATTACH`/`DETACH`
//! (connection state, not content), which the authorizer refuses.

use nao_core::DialectError;
use rusqlite::Statement;

/// `Err` with a permission refusal when SQLite says the prepared `statement` writes.
pub(super) fn refuse_writes(statement: &Statement<'_>, database: &str) -> Result<(), DialectError> {
    if statement.readonly() {
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
        code: Some("stmt_readonly".to_owned()),
    })
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
            "PRAGMA user_version = 3",
            "ANALYZE",
        ] {
            let statement = conn.prepare(write).unwrap();
            let error = refuse_writes(&statement, "db").expect_err(write);
            assert!(
                matches!(error, DialectError::Permission { .. }),
                "{write}: {error:?}"
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
            refuse_writes(&statement, "db").unwrap_or_else(|e| panic!("{read}: {e}"));
        }
    }
}
