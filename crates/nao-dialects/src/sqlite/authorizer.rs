//! The authorizer every query connection installs: the engine's own list of what a statement
//! may do, consulted while each statement is prepared.
//!
//! Pragmas are decided by the guard's list of SQLite pragmas that only read
//! ([`SqlitePragma`]), the same list the guard approves `PRAGMA …` statements and `pragma_…`
//! table-valued functions by. The guard allows that list minus what shows the host
//! (`database_list` prints file paths, refused by its sensitive catalogue unless the host lifts
//! it), so a pragma the guard approved is one this authorizer lets run.

use nao_core::guard::SqlitePragma;
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};

/// Functions denied even though the engine would run them: extension loading (which rusqlite
/// leaves disabled, and stays so), and the file functions of the SQLite shell in case a build
/// ever registers them.
const DENIED_FUNCTIONS: &[&str] = &[
    "load_extension",
    "readfile",
    "writefile",
    "edit",
    "fts3_tokenizer",
];

/// Decides what a statement may do while it is prepared: reads, selects, functions (but
/// [`DENIED_FUNCTIONS`]), recursive CTEs and the pragmas that only read, with the argument
/// they are given ([`SqlitePragma::only_reads`]: `PRAGMA journal_mode` reads, `PRAGMA
/// journal_mode = WAL` sets). Everything else — inserts, updates, deletes, DDL, ATTACH/DETACH,
/// transactions, savepoints, ANALYZE, REINDEX, virtual tables, pragmas with effects
/// (`optimize`, `wal_checkpoint`, `incremental_vacuum`) or that read every page
/// (`integrity_check`), and any action a newer SQLite adds — is denied.
pub(crate) fn authorize(context: AuthContext<'_>) -> Authorization {
    match context.action {
        AuthAction::Select | AuthAction::Read { .. } | AuthAction::Recursive => {
            Authorization::Allow
        }
        AuthAction::Function { function_name } => {
            if DENIED_FUNCTIONS
                .iter()
                .any(|f| f.eq_ignore_ascii_case(function_name))
            {
                Authorization::Deny
            } else {
                Authorization::Allow
            }
        }
        AuthAction::Pragma {
            pragma_name,
            pragma_value,
        } => {
            if SqlitePragma::only_reads(pragma_name, pragma_value) {
                Authorization::Allow
            } else {
                Authorization::Deny
            }
        }
        _ => Authorization::Deny,
    }
}

#[cfg(test)]
mod tests {
    use super::super::open::open_read_only;
    use super::super::open::tests::shared_memory;

    #[test]
    fn the_authorizer_denies_writes_and_settings_but_allows_reads() {
        let (_writer, target) = shared_memory("nao_open_test_authorizer");
        let conn = open_read_only(&target).expect("open reader");
        for denied in [
            "INSERT INTO t VALUES (2)",
            "PRAGMA query_only = OFF",
            "PRAGMA writable_schema = ON",
            "BEGIN",
            "SAVEPOINT s",
            "ANALYZE",
            "SELECT load_extension('x')",
        ] {
            let err = conn.prepare(denied).map(|_| ()).expect_err(denied);
            assert!(
                err.to_string().contains("not authorized"),
                "{denied}: {err}"
            );
        }
        // Settings read without a value, in both forms; a value sets, and is denied. The
        // table-valued form takes no value at all (its one argument is a schema).
        for denied in [
            "PRAGMA journal_mode = WAL",
            "PRAGMA main.journal_mode(WAL)",
            "PRAGMA user_version = 7",
            "PRAGMA optimize",
            "PRAGMA wal_checkpoint",
            "PRAGMA integrity_check",
            "SELECT * FROM pragma_optimize",
            "SELECT * FROM pragma_integrity_check",
        ] {
            let err = conn
                .query_row(denied, [], |r| r.get::<_, rusqlite::types::Value>(0))
                .expect_err(denied);
            assert!(
                err.to_string().contains("not authorized"),
                "{denied}: {err}"
            );
        }
        assert!(conn.prepare("SELECT * FROM pragma_query_only(0)").is_err());
        for read in [
            "PRAGMA journal_mode",
            "SELECT * FROM pragma_journal_mode",
            "SELECT * FROM pragma_query_only",
            "PRAGMA user_version",
        ] {
            conn.query_row(read, [], |r| r.get::<_, rusqlite::types::Value>(0))
                .unwrap_or_else(|e| panic!("{read}: {e}"));
        }
        for allowed in [
            "SELECT * FROM t",
            "PRAGMA table_info(t)",
            "SELECT name FROM pragma_table_xinfo('t')",
            "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 3) SELECT n FROM s",
        ] {
            conn.prepare(allowed)
                .unwrap_or_else(|e| panic!("{allowed}: {e}"));
        }
    }
}
