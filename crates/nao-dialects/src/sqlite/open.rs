//! Read-only connections: open flags, `query_only`, resource settings and limits, the
//! authorizer, and a pool of as many connections as statements may run at once.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::limits;
use super::resources::Resources;

/// How long a reader waits for a writer elsewhere to release its lock. SQLite cannot interrupt
/// this wait, so it stays short.
const BUSY_TIMEOUT: Duration = Duration::from_secs(2);

/// Where the pool's connections come from.
#[derive(Debug, Clone)]
pub(crate) enum Target {
    /// A database file.
    File(PathBuf),
    /// A `file:` URI (the sealed in-memory databases, in SQLite's `memdb` VFS).
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

/// Read-only connections to one database: at most [`Resources::connections`] in use at once,
/// each taken with a [`Slot`]; opened on demand and kept once opened.
#[derive(Debug)]
pub(crate) struct Pool {
    target: Target,
    resources: Resources,
    idle: Mutex<Vec<Connection>>,
    /// One permit per connection that may be in use.
    slots: Arc<Semaphore>,
}

impl Pool {
    /// A pool holding `first` (already opened with `resources`, which proved the target
    /// opens).
    pub(crate) fn new(target: Target, resources: Resources, first: Connection) -> Self {
        let slots = Arc::new(Semaphore::new(resources.connections));
        Pool {
            target,
            resources,
            idle: Mutex::new(vec![first]),
            slots,
        }
    }

    /// How many connections may be in use at once.
    pub(crate) fn size(&self) -> usize {
        self.resources.connections
    }

    /// Waits until a connection may be taken. Dropping the future gives up the wait.
    pub(crate) async fn slot(self: &Arc<Self>) -> Slot {
        let permit = Arc::clone(&self.slots)
            .acquire_owned()
            .await
            .unwrap_or_else(|_| unreachable!("the pool's semaphore is never closed"));
        Slot {
            pool: Arc::clone(self),
            _permit: permit,
        }
    }
}

/// The right to use one of the pool's connections; gives it up when dropped.
#[derive(Debug)]
pub(crate) struct Slot {
    pool: Arc<Pool>,
    _permit: OwnedSemaphorePermit,
}

impl Slot {
    /// An idle connection, or a new one. Blocking (it may open one): call from a blocking
    /// task.
    pub(crate) fn connection(&self) -> rusqlite::Result<Connection> {
        let idle = self.pool.idle.lock().ok().and_then(|mut idle| idle.pop());
        match idle {
            Some(conn) => Ok(conn),
            None => open_read_only_with(&self.pool.target, &self.pool.resources),
        }
    }

    /// Returns the connection taken with this slot, to serve the next statement, and gives
    /// up the slot. Idle connections never outnumber the slots, since each is taken and
    /// returned under one.
    pub(crate) fn give_back(self, conn: Connection) {
        if let Ok(mut idle) = self.pool.idle.lock() {
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

    /// An in-memory database (in the `memdb` VFS, as the adapter's) holding `t(x)` with one
    /// row, and its writer.
    pub(crate) fn shared_memory(name: &str) -> (Connection, Target) {
        let uri = format!("file:/{name}?vfs=memdb");
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

    #[tokio::test]
    async fn every_pooled_connection_has_the_settings_and_limits() {
        let (_writer, target) = shared_memory("nao_open_test_pool_limits");
        let engine = crate::EngineLimits::new()
            .memory_limit(64 << 20)
            .threads(3)
            .spill(crate::Spill::Off);
        let resources = Resources::new(&engine);
        let first = open_read_only_with(&target, &resources).expect("first");
        let pool = Arc::new(Pool::new(target, resources, first));
        assert_eq!(pool.size(), 3);
        // Every slot taken at once: the first connection, then new ones.
        let mut slots = Vec::new();
        for _ in 0..pool.size() {
            slots.push(pool.slot().await);
        }
        for slot in &slots {
            let mut conn = slot.connection().expect("connection");
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
            assert_eq!(cache, -5461, "64 MiB / (4 × 3), in KiB");
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

    #[tokio::test]
    async fn a_full_pool_makes_the_next_statement_wait_for_a_slot() {
        let (_writer, target) = shared_memory("nao_open_test_pool_wait");
        let resources = Resources::new(&crate::EngineLimits::new().threads(2));
        let first = open_read_only_with(&target, &resources).expect("first");
        let pool = Arc::new(Pool::new(target, resources, first));
        let one = pool.slot().await;
        let two = pool.slot().await;
        let conn = two.connection().expect("a second connection");
        let waiting = tokio::time::timeout(Duration::from_millis(50), pool.slot()).await;
        assert!(waiting.is_err(), "a third statement waits");
        two.give_back(conn);
        let three = tokio::time::timeout(Duration::from_secs(5), pool.slot())
            .await
            .expect("a slot given back is taken");
        let reused = three.connection().expect("the idle connection");
        let x: i64 = reused
            .query_row("SELECT x FROM t", [], |r| r.get(0))
            .expect("read");
        assert_eq!(x, 1);
        assert_eq!(pool.idle.lock().expect("idle").len(), 0, "it was reused");
        drop(one);
    }
}
