//! Read-only connections: open flags, `query_only`, resource settings and limits, the
//! authorizer, and a small pool.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use super::limits;
use super::resources::Resources;

/// Idle connections kept for the next query; more are opened when queries overlap and
/// closed when they finish.
const MAX_IDLE: usize = 4;

/// How long a reader waits for a writer elsewhere to release its lock. SQLite cannot interrupt
/// this wait, so it stays short.
const BUSY_TIMEOUT: Duration = Duration::from_secs(2);

/// Where the pool's connections come from.
#[derive(Debug, Clone)]
pub(crate) enum Target {
    /// A database file.
    File(PathBuf),
    /// A `file:` URI (the shared-cache in-memory databases).
    Uri(String),
}

/// Opens one query connection: `SQLITE_OPEN_READ_ONLY`, then `query_only`, defensive mode and
/// an untrusted schema, the cache, temporary storage and heap settings of `resources`, the
/// fixed limits, then the authorizer (installed last, since it denies the pragmas that set the
/// rest).
pub(crate) fn open_read_only_with(
    target: &Target,
    resources: &Resources,
) -> rusqlite::Result<Connection> {
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
    resources.apply(&conn)?;
    limits::set_fixed(&conn)?;
    conn.authorizer(Some(super::authorizer::authorize))?;
    // Reading the schema here makes a file that is not a database fail at open, not later.
    conn.query_row("SELECT count(*) FROM sqlite_schema", [], |_| Ok(()))?;
    Ok(conn)
}

/// [`open_read_only_with`] the settings of the default [`EngineLimits`](crate::EngineLimits)
/// (for tests).
#[cfg(test)]
pub(crate) fn open_read_only(target: &Target) -> rusqlite::Result<Connection> {
    open_read_only_with(target, &tests::default_resources())
}

/// Read-only connections to one database, opened on demand, at most [`MAX_IDLE`] kept.
#[derive(Debug)]
pub(crate) struct Pool {
    target: Target,
    resources: Resources,
    idle: Mutex<Vec<Connection>>,
}

impl Pool {
    /// A pool holding `first` (already opened with `resources`, which proved the target
    /// opens).
    pub(crate) fn new(target: Target, resources: Resources, first: Connection) -> Self {
        Pool {
            target,
            resources,
            idle: Mutex::new(vec![first]),
        }
    }

    /// An idle connection, or a new one. Blocking: call from a blocking task.
    pub(crate) fn get(&self) -> rusqlite::Result<Connection> {
        let idle = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        match idle {
            Some(conn) => Ok(conn),
            None => open_read_only_with(&self.target, &self.resources),
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
pub(crate) mod tests {
    use super::*;

    /// The settings of the default [`EngineLimits`](crate::EngineLimits).
    pub(crate) fn default_resources() -> Resources {
        Resources::new(&crate::EngineLimits::default())
    }

    /// A shared-cache in-memory database holding `t(x)` with one row, and its writer.
    pub(crate) fn shared_memory(name: &str) -> (Connection, Target) {
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
        conn.authorizer(
            None::<fn(rusqlite::hooks::AuthContext<'_>) -> rusqlite::hooks::Authorization>,
        )
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
    fn every_pooled_connection_has_the_settings_and_limits() {
        let (_writer, target) = shared_memory("nao_open_test_pool_limits");
        let engine = crate::EngineLimits::new()
            .memory_limit(64 << 20)
            .spill(crate::Spill::Off);
        let resources = Resources::new(&engine);
        let first = open_read_only_with(&target, &resources).expect("first");
        let pool = Pool::new(target, resources, first);
        // More connections than the pool keeps, all held at once: the first, then new ones.
        let held: Vec<Connection> = (0..MAX_IDLE + 2)
            .map(|_| pool.get().expect("connection"))
            .collect();
        for mut conn in held {
            for fixed in limits::FIXED {
                assert_eq!(
                    conn.limit(fixed.limit).expect("limit"),
                    fixed.value,
                    "{fixed:?}"
                );
            }
            // The authorizer denies reading these pragmas; this connection is not returned.
            conn.authorizer(
                None::<fn(rusqlite::hooks::AuthContext<'_>) -> rusqlite::hooks::Authorization>,
            )
            .expect("remove authorizer");
            let cache: i64 = conn
                .query_row("PRAGMA cache_size", [], |r| r.get(0))
                .expect("cache_size");
            assert_eq!(cache, -4096, "64 MiB / 16, in KiB");
            let temp: i64 = conn
                .query_row("PRAGMA temp_store", [], |r| r.get(0))
                .expect("temp_store");
            assert_eq!(temp, 1, "FILE, also under Spill::Off");
            let err = conn
                .execute("ATTACH ':memory:' AS other", [])
                .expect_err("no database may be attached");
            assert!(err.to_string().contains("too many attached"), "{err}");
        }
    }
}
