//! Read-only connections: open flags, `query_only`, the authorizer, and a small pool.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::{Connection, OpenFlags};

/// Idle connections kept for the next query; more are opened when queries overlap and
/// closed when they finish.
const MAX_IDLE: usize = 4;

/// How long a reader waits for a writer elsewhere to release its lock. SQLite cannot interrupt
/// this wait, so it stays short.
const BUSY_TIMEOUT: Duration = Duration::from_secs(2);

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

/// Where the pool's connections come from.
#[derive(Debug, Clone)]
pub(crate) enum Target {
    /// A database file.
    File(PathBuf),
    /// A `file:` URI (the shared-cache in-memory databases).
    Uri(String),
}

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

/// Opens one query connection: `SQLITE_OPEN_READ_ONLY`, then `query_only`, defensive mode and
/// an untrusted schema, then the authorizer (installed last, since it denies the pragmas that
/// set the rest).
pub(crate) fn open_read_only(target: &Target) -> rusqlite::Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut conn = match target {
        Target::File(path) => Connection::open_with_flags(path, flags)?,
        Target::Uri(uri) => Connection::open_with_flags(uri, flags | OpenFlags::SQLITE_OPEN_URI)?,
    };
    conn.pragma_update(None, "query_only", true)?;
    // Views and triggers in a database file cannot call functions marked unsafe.
    conn.pragma_update(None, "trusted_schema", false)?;
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.authorizer(Some(authorize))?;
    // Reading the schema here makes a file that is not a database fail at open, not later.
    conn.query_row("SELECT count(*) FROM sqlite_schema", [], |_| Ok(()))?;
    Ok(conn)
}

/// Read-only connections to one database, opened on demand, at most [`MAX_IDLE`] kept.
#[derive(Debug)]
pub(crate) struct Pool {
    target: Target,
    idle: Mutex<Vec<Connection>>,
}

impl Pool {
    /// A pool holding `first` (already opened, which proved the target opens).
    pub(crate) fn new(target: Target, first: Connection) -> Self {
        Pool {
            target,
            idle: Mutex::new(vec![first]),
        }
    }

    /// An idle connection, or a new one. Blocking: call from a blocking task.
    pub(crate) fn get(&self) -> rusqlite::Result<Connection> {
        let idle = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        match idle {
            Some(conn) => Ok(conn),
            None => open_read_only(&self.target),
        }
    }

    /// Returns a connection after use; beyond [`MAX_IDLE`] it is closed.
    pub(crate) fn put(&self, conn: Connection) {
        if let Ok(mut idle) = self.idle.lock()
            && idle.len() < MAX_IDLE
        {
            idle.push(conn);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared_memory(name: &str) -> (Connection, Target) {
        let uri = format!("file:{name}?mode=memory&cache=shared");
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_URI;
        let writer = Connection::open_with_flags(&uri, flags).expect("open writer");
        writer
            .execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);")
            .expect("load");
        (writer, Target::Uri(uri))
    }

    #[test]
    fn query_only_refuses_writes_even_without_the_authorizer() {
        let (_writer, target) = shared_memory("nao_open_test_query_only");
        let mut conn = open_read_only(&target).expect("open reader");
        conn.authorizer(None::<fn(AuthContext<'_>) -> Authorization>)
            .expect("remove authorizer");
        let err = conn
            .execute("INSERT INTO t VALUES (2)", [])
            .expect_err("query_only must refuse");
        assert!(err.to_string().contains("readonly"), "{err}");
        let rows: i64 = conn
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .expect("read");
        assert_eq!(rows, 1);
    }

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
