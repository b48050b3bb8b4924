//! What a SQLite database may take of the host, from its [`EngineLimits`]: how many
//! connections read at once, the page cache of each and the process's soft heap limit;
//! temporary data goes to files whatever the [`Spill`](crate::Spill) setting (see the
//! [module docs](super) for what each bounds, and what SQLite cannot do).

use std::sync::Mutex;

use rusqlite::Connection;

use crate::EngineLimits;

/// The page caches of all connections together are this fraction (1/n) of the memory limit:
/// every connection busy, each with its cache and a sort buffer of the same size (the sorter
/// writes to a temporary file past the cache size), then holds at most half the limit.
const CACHE_SHARE: u64 = 4;
/// The fewest connections a database reads through, whatever the thread limit: one long
/// statement then does not hold up every other.
const MIN_CONNECTIONS: usize = 2;
/// The smallest page cache of a connection.
const MIN_CACHE: u64 = 1 << 20;
/// The largest page cache of a connection: sorts larger than this merge from temporary files,
/// which costs little more than sorting in memory, and a larger cache only helps repeated scans.
const MAX_CACHE: u64 = 64 << 20;

/// Serializes the read-and-lower of the process-wide soft heap limit between adapters.
static SOFT_HEAP_LIMIT: Mutex<()> = Mutex::new(());

/// The settings every query connection of one database gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Resources {
    /// Connections that read at once: the limit's threads, at least [`MIN_CONNECTIONS`].
    pub(crate) connections: usize,
    /// Page cache of each connection, in KiB.
    pub(crate) cache_kib: u64,
    /// The soft heap limit this database asks of the process, in bytes.
    pub(crate) soft_heap_limit: u64,
}

impl Resources {
    /// The settings for `limits`. Its spill setting changes nothing: SQLite cannot keep
    /// temporary data off the disk without leaving its memory unbounded (module docs).
    pub(crate) fn new(limits: &EngineLimits) -> Self {
        let connections = limits.thread_count().max(MIN_CONNECTIONS);
        let memory = limits.memory_limit_bytes();
        let share = CACHE_SHARE.saturating_mul(u64::try_from(connections).unwrap_or(u64::MAX));
        let cache = (memory / share).clamp(MIN_CACHE, MAX_CACHE);
        Resources {
            connections,
            cache_kib: cache >> 10,
            soft_heap_limit: memory,
        }
    }

    /// Applies the settings to a connection being opened (before its authorizer, which
    /// denies these pragmas).
    pub(crate) fn apply(&self, conn: &Connection) -> rusqlite::Result<()> {
        // A negative cache size is in KiB.
        let cache = -i64::try_from(self.cache_kib).unwrap_or(i64::MAX);
        conn.pragma_update(None, "cache_size", cache)?;
        // SQLite's build default, set anyway: in memory, sorts and temporary b-trees would
        // grow without bound (a DISTINCT over 100 KB values took 316 MB in 1.4 s).
        conn.pragma_update(None, "temp_store", "FILE")?;
        lower_soft_heap_limit(conn, self.soft_heap_limit)
    }
}

/// Lowers the process's soft heap limit to `bytes` when it is unset or higher; never raises
/// it. The limit is SQLite's, one for the whole process: the adapters of several databases
/// share it, so the smallest memory limit any of them asked for wins, as does a lower one
/// the host set. Lowering it never fails a statement, it only makes SQLite reuse cache pages
/// and write sort runs to temporary files sooner.
pub(crate) fn lower_soft_heap_limit(conn: &Connection, bytes: u64) -> rusqlite::Result<()> {
    let wanted = i64::try_from(bytes).unwrap_or(i64::MAX);
    let _serial = SOFT_HEAP_LIMIT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let current = soft_heap_limit(conn)?;
    if current <= 0 || wanted < current {
        conn.pragma_update(None, "soft_heap_limit", wanted)?;
    }
    Ok(())
}

/// Caps every SQLite allocation in this process at `bytes` in total (SQLite's hard heap
/// limit), and returns the cap now in force. One setting for the whole process: it only ever
/// lowers the cap, and it counts every SQLite database of the process, in-memory ones
/// included, and the host's own use of SQLite. For a host that uses SQLite only through nao
/// (nao-mcp calls it): a statement that holds many large values at once, which the per-value
/// limit does not bound, then fails as a [`DialectError::ResourceLimit`] instead of taking the
/// host's memory.
///
/// ```
/// let cap = nao_dialects::sqlite::limit_process_heap(8 << 30)?;
/// assert!(cap > 0 && cap <= 8 << 30);
/// # Ok::<(), nao_dialects::core::DialectError>(())
/// ```
///
/// # Errors
/// [`DialectError::Engine`] if SQLite cannot be asked.
///
/// [`DialectError::ResourceLimit`]: nao_core::DialectError::ResourceLimit
/// [`DialectError::Engine`]: nao_core::DialectError::Engine
pub fn limit_process_heap(bytes: u64) -> Result<u64, nao_core::DialectError> {
    let failed = |e: rusqlite::Error| nao_core::DialectError::Engine {
        database: "sqlite".to_owned(),
        message: format!("could not set SQLite's hard heap limit: {e}"),
        code: None,
        source: Some(Box::new(e)),
    };
    let conn = Connection::open_in_memory().map_err(failed)?;
    let wanted = i64::try_from(bytes).unwrap_or(i64::MAX).max(1);
    // The pragma itself only lowers the limit (or sets a first one); it returns the limit.
    let now: i64 = conn
        .query_row(&format!("PRAGMA hard_heap_limit = {wanted}"), [], |row| {
            row.get(0)
        })
        .map_err(failed)?;
    Ok(u64::try_from(now).unwrap_or(0))
}

/// The process's soft heap limit, in bytes (0: none).
pub(crate) fn soft_heap_limit(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA soft_heap_limit", [], |row| row.get(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_is_a_bounded_share_of_the_memory_limit() {
        let of = |bytes: u64| Resources::new(&EngineLimits::new().memory_limit(bytes).threads(4));
        assert_eq!(of(512 << 20).cache_kib, 32 << 10);
        assert_eq!(of(16 << 20).cache_kib, MIN_CACHE >> 10);
        assert_eq!(of(8 << 30).cache_kib, MAX_CACHE >> 10);
        assert_eq!(of(512 << 20).soft_heap_limit, 512 << 20);
    }

    #[test]
    fn the_connections_follow_the_threads_and_share_the_cache() {
        let of = |threads: usize| {
            Resources::new(&EngineLimits::new().memory_limit(512 << 20).threads(threads))
        };
        assert_eq!(of(1).connections, MIN_CONNECTIONS, "at least two");
        assert_eq!(of(1).cache_kib, 64 << 10, "512 MiB / (4 × 2)");
        assert_eq!(of(8).connections, 8);
        assert_eq!(of(8).cache_kib, 16 << 10, "512 MiB / (4 × 8)");
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        assert_eq!(
            Resources::new(&EngineLimits::default()).connections,
            cores.max(MIN_CONNECTIONS),
            "the default is the machine's cores"
        );
        // Every connection busy with its cache and a sort buffer: at most half the limit.
        for threads in [1, 2, 3, 8, 64] {
            let r = of(threads);
            let all = 2 * r.connections as u64 * (r.cache_kib << 10);
            assert!(
                all <= 256 << 20 || r.cache_kib == MIN_CACHE >> 10,
                "{threads}: {all}"
            );
        }
    }

    #[test]
    fn the_settings_reach_the_connection() {
        let conn = Connection::open_in_memory().expect("open");
        // Spill::Off too: SQLite's temporary data goes to files whatever the setting.
        let resources = Resources::new(
            &EngineLimits::new()
                .memory_limit(256 << 20)
                .threads(4)
                .spill(crate::Spill::Off),
        );
        resources.apply(&conn).expect("apply");
        let cache: i64 = conn
            .query_row("PRAGMA cache_size", [], |r| r.get(0))
            .expect("cache_size");
        assert_eq!(cache, -(16 << 10));
        let temp: i64 = conn
            .query_row("PRAGMA temp_store", [], |r| r.get(0))
            .expect("temp_store");
        assert_eq!(temp, 1, "FILE");
    }

    #[test]
    fn the_soft_heap_limit_is_lowered_never_raised() {
        // Process-wide, and other tests lower it too: only "at most" can be checked.
        let conn = Connection::open_in_memory().expect("open");
        lower_soft_heap_limit(&conn, 3 << 30).expect("lower");
        let before = soft_heap_limit(&conn).expect("read");
        assert!(before > 0 && before <= 3 << 30, "{before}");
        lower_soft_heap_limit(&conn, (before as u64) * 2).expect("not raised");
        let after = soft_heap_limit(&conn).expect("read");
        assert!(after > 0 && after <= before, "{after} after {before}");
        lower_soft_heap_limit(&conn, 200 << 20).expect("lower");
        let lowered = soft_heap_limit(&conn).expect("read");
        assert!(lowered > 0 && lowered <= 200 << 20, "{lowered}");
    }
}
