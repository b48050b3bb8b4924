//! What an embedded engine (DuckDB, SQLite) may take of the host: memory, threads and disk.
//!
//! The byte cap of [`ExecOptions`](nao_core::ExecOptions) bounds what a result keeps; these
//! bound what the engine uses while it computes one. Server engines have their own limits,
//! set by their administrators, and ignore these.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The smallest default memory limit, whatever the machine.
const MIN_DEFAULT_MEMORY: u64 = 128 << 20;
/// The largest default memory limit, whatever the machine.
const MAX_DEFAULT_MEMORY: u64 = 2 << 30;
/// The default memory limit when the machine's memory cannot be read.
const FALLBACK_MEMORY: u64 = 1 << 30;
/// The default memory limit is this fraction (1/n) of the memory the process may use.
const DEFAULT_MEMORY_SHARE: u64 = 8;

/// Where DuckDB may write temporary data when a statement outgrows its memory (a large sort,
/// join, `DISTINCT` or aggregate). SQLite ignores this: it always writes its temporary data to
/// unnamed files in the system's temporary directory, without a size cap (see the SQLite
/// adapter's docs for why keeping it in memory would be worse).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Spill {
    /// Nowhere: a statement that outgrows the memory limit fails with an out-of-memory error.
    /// The default.
    Off,
    /// Into a private directory the adapter creates under `parent` (readable by the current
    /// user only, removed when the adapter is dropped; one left by a crashed process is
    /// removed when the next adapter opens), holding at most `max_bytes`. A statement that
    /// would spill more fails.
    Under {
        /// The directory to create the private directory in.
        parent: PathBuf,
        /// The most spilled data at any time, in bytes.
        max_bytes: u64,
    },
}

impl Spill {
    /// Spilling into a private directory under `parent`, at most `max_bytes`.
    pub fn under(parent: impl Into<PathBuf>, max_bytes: u64) -> Self {
        Spill::Under {
            parent: parent.into(),
            max_bytes,
        }
    }
}

impl Default for Spill {
    /// [`Spill::Off`]: an attacker's query cannot fill the host's disk. A host that wants big
    /// sorts and joins to spill names a directory on a filesystem sized for it.
    fn default() -> Self {
        Spill::Off
    }
}

/// Where an embedded engine runs statements.
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Isolation {
    /// In the host's process (the default). The engine's own limits apply; what they do not
    /// count is not bounded (each adapter's docs say what that is).
    #[default]
    InProcess,
    /// In worker processes (DuckDB only; SQLite ignores this: its per-value limits apply in
    /// the host's process, and the sum of the values one statement holds at once is bounded
    /// only when the host caps SQLite's heap with `sqlite::limit_process_heap`, see its docs):
    /// each statement runs in a child process started as `program` with `args`, then the
    /// worker's own arguments. The operating system bounds each worker's memory
    /// (`RLIMIT_DATA` on Unix), and a statement that times out or is cancelled is stopped by
    /// ending its worker, which gives all its memory back. The program must be one that
    /// calls `nao_dialects::duckdb::run_if_worker()` first thing in `main` (the host's own
    /// binary, from `std::env::current_exe()`), or the `nao-duckdb-worker` binary of this
    /// crate.
    Workers {
        /// The program to start.
        program: PathBuf,
        /// Arguments before the worker's own.
        args: Vec<OsString>,
        /// The most workers (statements at once) per database; the memory limit is shared
        /// among them.
        count: usize,
    },
}

impl Isolation {
    /// Statements in up to `count` worker processes started as `program` (see
    /// [`Isolation::Workers`]).
    pub fn workers(program: impl Into<PathBuf>, count: usize) -> Self {
        Isolation::Workers {
            program: program.into(),
            args: Vec::new(),
            count: count.max(1),
        }
    }
}

/// Resource bounds for an embedded engine, per database: memory, worker threads and spill.
///
/// The defaults are safe for a host that serves a model: an eighth of the memory the process
/// may use (the machine's, or its cgroup's when lower), between 128 MiB and 2 GiB; as many
/// threads as the machine has cores; no spilling to disk ([`Spill::Off`]); statements in the
/// host's process ([`Isolation::InProcess`]). See each adapter's docs for how it applies
/// them, and [`Isolation::Workers`] for a bound the operating system enforces.
///
/// ```
/// use nao_dialects::{EngineLimits, Spill};
///
/// let limits = EngineLimits::new()
///     .memory_limit(512 << 20)
///     .threads(2)
///     .spill(Spill::Off);
/// assert_eq!(limits.memory_limit_bytes(), 512 << 20);
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineLimits {
    memory_limit: u64,
    threads: usize,
    spill: Spill,
    isolation: Isolation,
}

impl Default for EngineLimits {
    fn default() -> Self {
        EngineLimits {
            memory_limit: default_memory_limit(),
            threads: std::thread::available_parallelism().map_or(1, usize::from),
            spill: Spill::default(),
            isolation: Isolation::default(),
        }
    }
}

impl EngineLimits {
    /// The defaults (see the type's docs).
    pub fn new() -> Self {
        EngineLimits::default()
    }

    /// The most memory the engine may use for one database, in bytes (at least 16 MiB).
    #[must_use]
    pub fn memory_limit(mut self, bytes: u64) -> Self {
        self.memory_limit = bytes.max(16 << 20);
        self
    }

    /// The most threads the engine uses (at least 1; the default is the machine's cores).
    /// DuckDB runs the statements of one database on a pool of this many threads; SQLite
    /// runs each statement on one thread and up to this many statements at once, each on a
    /// connection of its own (at least two).
    #[must_use]
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// Where the engine may spill.
    #[must_use]
    pub fn spill(mut self, spill: Spill) -> Self {
        self.spill = spill;
        self
    }

    /// Where statements run.
    #[must_use]
    pub fn isolation(mut self, isolation: Isolation) -> Self {
        self.isolation = isolation;
        self
    }

    /// Where statements run.
    pub fn isolation_mode(&self) -> &Isolation {
        &self.isolation
    }

    /// The memory limit, in bytes.
    pub fn memory_limit_bytes(&self) -> u64 {
        self.memory_limit
    }

    /// The thread limit.
    pub fn thread_count(&self) -> usize {
        self.threads
    }

    /// Where the engine may spill.
    pub fn spill_policy(&self) -> &Spill {
        &self.spill
    }
}

/// An eighth of the memory this process may use, between [`MIN_DEFAULT_MEMORY`] and
/// [`MAX_DEFAULT_MEMORY`].
fn default_memory_limit() -> u64 {
    let available = usable_memory().unwrap_or(FALLBACK_MEMORY * DEFAULT_MEMORY_SHARE);
    (available / DEFAULT_MEMORY_SHARE).clamp(MIN_DEFAULT_MEMORY, MAX_DEFAULT_MEMORY)
}

/// The machine's memory, or its cgroup's limit when lower. Read from `/proc` and `/sys` (two
/// numbers; a system-information crate would be a large dependency for them); `None` where
/// they do not exist.
fn usable_memory() -> Option<u64> {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|meminfo| {
            let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            kib.checked_mul(1024)
        })?;
    let cgroup = cgroup_limit(Path::new("/sys/fs/cgroup/memory.max"))
        .or_else(|| cgroup_limit(Path::new("/sys/fs/cgroup/memory/memory.limit_in_bytes")));
    Some(cgroup.map_or(total, |limit| limit.min(total)))
}

/// A cgroup memory limit file's number (`max` or a huge value means none).
fn cgroup_limit(path: &Path) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_memory_limit_is_a_bounded_share_of_the_machine() {
        let limit = EngineLimits::new().memory_limit_bytes();
        assert!((MIN_DEFAULT_MEMORY..=MAX_DEFAULT_MEMORY).contains(&limit));
        if let Some(memory) = usable_memory() {
            assert!(
                limit <= (memory / DEFAULT_MEMORY_SHARE).max(MIN_DEFAULT_MEMORY),
                "{limit} of {memory}"
            );
        }
    }

    #[test]
    fn settings_are_kept_and_floored() {
        let limits = EngineLimits::new()
            .memory_limit(1)
            .threads(0)
            .spill(Spill::Off);
        assert_eq!(limits.memory_limit_bytes(), 16 << 20);
        assert_eq!(limits.thread_count(), 1);
        assert_eq!(limits.spill_policy(), &Spill::Off);
    }
}
