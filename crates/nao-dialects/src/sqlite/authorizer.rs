//! The authorizer every query connection installs: the engine's own list of what a statement
//! may do, consulted while each statement is prepared.

use rusqlite::hooks::{AuthAction, AuthContext, Authorization};

/// Pragmas that only report on the schema. Every other pragma (writable settings such as
/// `journal_mode`, `query_only`, `writable_schema`, or ones with effects such as
/// `optimize`, `wal_checkpoint`, `incremental_vacuum`) is denied.
const READ_ONLY_PRAGMAS: &[&str] = &[
    "table_info",
    "table_xinfo",
    "table_list",
    "index_list",
    "index_info",
    "index_xinfo",
    "foreign_key_list",
    "database_list",
    "collation_list",
];

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
/// [`DENIED_FUNCTIONS`]), recursive CTEs and the [`READ_ONLY_PRAGMAS`]. Everything else —
/// inserts, updates, deletes, DDL, ATTACH/DETACH, transactions, savepoints, ANALYZE, REINDEX,
/// virtual tables, and any action a newer SQLite adds — is denied.
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
        AuthAction::Pragma { pragma_name, .. } => {
            if READ_ONLY_PRAGMAS
                .iter()
                .any(|p| p.eq_ignore_ascii_case(pragma_name))
            {
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
        // Table-valued pragmas cannot set anything, and reading a non-schema pragma runs the
        // pragma through the authorizer, which denies it.
        assert!(conn.prepare("SELECT * FROM pragma_query_only(0)").is_err());
        for smuggled in [
            "SELECT * FROM pragma_journal_mode",
            "SELECT * FROM pragma_query_only",
        ] {
            let err = conn
                .query_row(smuggled, [], |r| r.get::<_, rusqlite::types::Value>(0))
                .expect_err(smuggled);
            assert!(
                err.to_string().contains("not authorized"),
                "{smuggled}: {err}"
            );
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
