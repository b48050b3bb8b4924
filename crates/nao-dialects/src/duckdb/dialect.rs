//! [`DuckDbDialect`]: the adapter, its constructors and its [`Dialect`] implementation.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use arrow_array::RecordBatch;
use async_trait::async_trait;
use duckdb::Connection;
use nao_core::guard::{ReadOnlySql, SqlDialect};
use nao_core::{
    BatchStream, Dialect, DialectError, ExecOptions, TableFilter, TableInfo, TableRef, TableSchema,
};

use super::host_paths::HostPaths;
use super::open::{Opened, Sealed, open_read_only, seal};
use super::worker::{WorkerCommand, WorkerSettings, Workers};
use super::{catalog, errors, load, stream};
use crate::{EngineLimits, Isolation};

/// What a worker process maps besides DuckDB's memory limit: the program, DuckDB's own
/// structures and thread stacks, and the Arrow copy of a batch in flight (measured: see
/// `benches/embedded_memory.rs`).
const WORKER_OVERHEAD: u64 = 256 << 20;

/// A read-only DuckDB database: a file, or an in-memory database a host loaded and sealed.
///
/// Each statement runs on its own connection (cloned from a root connection) on a statement
/// thread; see the [module docs](super) for the read-only layers, streaming, caps, interrupts
/// and panic containment.
pub struct DuckDbDialect {
    name: Arc<str>,
    /// Where the database lives: the host's file, or the sealed copy.
    path: PathBuf,
    /// The connection statements are cloned from. Declared before the directories, so it
    /// closes before they are removed.
    root: Mutex<Connection>,
    /// Host paths kept out of the messages the model reads.
    host_paths: Arc<HostPaths>,
    /// The private directory DuckDB spills into, if spilling is on.
    spill: Option<nao_core::scratch::ScratchDir>,
    /// The spill directory and its size limit, which the adapter enforces.
    spill_quota: Option<stream::SpillQuota>,
    /// The worker processes statements run in, with [`Isolation::Workers`].
    workers: Option<Workers>,
    /// The private directory of a sealed in-memory database.
    sealed: Option<Sealed>,
}

impl DuckDbDialect {
    /// Opens the DuckDB file at `path` read-only, with external access off, the default
    /// [`EngineLimits`] and the configuration locked. Blocks while DuckDB opens the file; from
    /// async code use [`open_url`](super::open_url) or `spawn_blocking`.
    ///
    /// # Errors
    /// [`DialectError::Connection`] naming the path when the file is missing or DuckDB cannot
    /// open it.
    pub fn open(name: impl Into<String>, path: impl AsRef<Path>) -> Result<Self, DialectError> {
        DuckDbDialect::open_with(name, path, &EngineLimits::default())
    }

    /// Opens the DuckDB file at `path` read-only as [`open`](Self::open) does, within
    /// `limits`: DuckDB's memory limit, threads, and a private spill directory (or none); see
    /// [Limits](super#limits) for what they bound and what they do not.
    ///
    /// ```
    /// use nao_dialects::duckdb::DuckDbDialect;
    /// use nao_dialects::{EngineLimits, Spill};
    ///
    /// # let dir = std::env::temp_dir().join(format!("nao-doc-duckdb-open-with-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// # let path = dir.join("shop.duckdb");
    /// # nao_dialects::duckdb::driver::Connection::open(&path).unwrap().execute_batch("CREATE TABLE t (x INTEGER)").unwrap();
    /// let limits = EngineLimits::new()
    ///     .memory_limit(256 << 20)
    ///     .threads(2)
    ///     .spill(Spill::Off);
    /// let db = DuckDbDialect::open_with("shop", &path, &limits)?;
    /// # drop(db);
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// # Ok::<(), nao_dialects::core::DialectError>(())
    /// ```
    ///
    /// # Errors
    /// As [`open`](Self::open), and [`DialectError::Connection`] when the spill directory
    /// cannot be created.
    pub fn open_with(
        name: impl Into<String>,
        path: impl AsRef<Path>,
        limits: &EngineLimits,
    ) -> Result<Self, DialectError> {
        let name: String = name.into();
        let path = path.as_ref();
        let opened = open_read_only(&name, path, limits)?;
        Ok(DuckDbDialect::new(
            name,
            path.to_owned(),
            limits,
            opened,
            None,
        ))
    }

    /// The adapter over an opened database.
    fn new(
        name: String,
        path: PathBuf,
        limits: &EngineLimits,
        opened: Opened,
        sealed: Option<Sealed>,
    ) -> Self {
        let mut host_paths = HostPaths::default();
        if let Some(sealed) = &sealed {
            host_paths.add(sealed.dir(), "<the sealed database's directory>");
        } else {
            host_paths.add(&path, "<the database file>");
            if let Some(parent) = path.parent() {
                host_paths.add(parent, "<the database's directory>");
            }
        }
        if let Some(spill) = &opened.spill {
            host_paths.add(spill.path(), "<the spill directory>");
        }
        let spill_quota = match (&opened.spill, limits.spill_policy()) {
            (Some(dir), crate::Spill::Under { max_bytes, .. }) => Some(stream::SpillQuota {
                dir: dir.path().to_owned(),
                max_bytes: *max_bytes,
            }),
            _ => None,
        };
        let name: Arc<str> = name.into();
        let host_paths = Arc::new(host_paths);
        let workers = match limits.isolation_mode() {
            Isolation::Workers {
                program,
                args,
                count,
            } => {
                let count = (*count).max(1);
                let memory_limit = (limits.memory_limit_bytes() / count as u64).max(16 << 20);
                let settings = WorkerSettings {
                    name: name.to_string(),
                    path: path.clone(),
                    memory_limit,
                    threads: limits.thread_count(),
                    data_limit: memory_limit.saturating_add(WORKER_OVERHEAD),
                    spill: spill_quota.as_ref().map(|q| (q.dir.clone(), q.max_bytes)),
                };
                let command = WorkerCommand {
                    program: program.clone(),
                    args: args.clone(),
                    count,
                };
                Some(Workers::new(
                    Arc::clone(&name),
                    command,
                    settings,
                    Arc::clone(&host_paths),
                ))
            }
            _ => None,
        };
        DuckDbDialect {
            name,
            path,
            root: Mutex::new(opened.connection),
            host_paths,
            spill: opened.spill,
            spill_quota,
            workers,
            sealed,
        }
    }

    /// An in-memory database the host fills through `load`'s writable connection, then sealed:
    /// written to a file in a private temporary directory (removed when the adapter is
    /// dropped) and reopened read-only like [`open`](Self::open). Blocks while loading.
    ///
    /// The loading connection is the host's own and trusted: it may read files, for example.
    ///
    /// # Errors
    /// [`DialectError::Engine`] with DuckDB's message when `load` fails;
    /// [`DialectError::Connection`] when the temporary database cannot be made.
    pub fn in_memory(
        name: impl Into<String>,
        load: impl FnOnce(&Connection) -> duckdb::Result<()>,
    ) -> Result<Self, DialectError> {
        DuckDbDialect::in_memory_with(name, &EngineLimits::default(), load)
    }

    /// A sealed in-memory database as [`in_memory`](Self::in_memory) makes, whose read-only
    /// side runs within `limits` (the host's loading connection runs with DuckDB's defaults).
    ///
    /// # Errors
    /// As [`in_memory`](Self::in_memory).
    pub fn in_memory_with(
        name: impl Into<String>,
        limits: &EngineLimits,
        load: impl FnOnce(&Connection) -> duckdb::Result<()>,
    ) -> Result<Self, DialectError> {
        let name: String = name.into();
        let (opened, sealed) = seal(&name, limits, load)?;
        let file = sealed.file();
        Ok(DuckDbDialect::new(name, file, limits, opened, Some(sealed)))
    }

    /// A sealed in-memory database with one table per `(name, batches)` pair, created from the
    /// batches' schema (see [`load_batches`](super::load_batches) for the supported types).
    ///
    /// # Errors
    /// As [`in_memory`](Self::in_memory).
    pub fn from_batches(
        name: impl Into<String>,
        tables: &[(&str, &[RecordBatch])],
    ) -> Result<Self, DialectError> {
        DuckDbDialect::in_memory(name, |connection| {
            for (table, batches) in tables {
                load::load_batches(connection, table, batches)?;
            }
            Ok(())
        })
    }

    /// The demo shop ([`crate::demo`]) at `scale`, in a sealed in-memory database, with its
    /// table and column comments.
    ///
    /// # Errors
    /// As [`in_memory`](Self::in_memory), and [`DialectError::Unsupported`] if the demo data
    /// cannot be generated.
    pub fn demo(
        name: impl Into<String>,
        scale: crate::demo::DemoScale,
    ) -> Result<Self, DialectError> {
        let name = name.into();
        let tables = crate::demo::tables_for(&name, scale)?;
        DuckDbDialect::in_memory(name, move |connection| {
            tables
                .iter()
                .try_for_each(|table| load::load_demo_table(connection, table))
        })
    }

    /// The database file DuckDB has open (for a sealed database, its private copy).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A connection of its own for one statement or catalogue read.
    fn connection(&self) -> Result<Connection, DialectError> {
        let root = self
            .root
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        root.try_clone().map_err(|e| {
            self.host_paths
                .scrub(errors::from_duckdb(&self.name, e, None))
        })
    }

    /// Runs `read` on a fresh connection on the blocking pool.
    async fn blocking_read<T: Send + 'static>(
        &self,
        read: impl FnOnce(&str, &Connection) -> Result<T, DialectError> + Send + 'static,
    ) -> Result<T, DialectError> {
        let name = Arc::clone(&self.name);
        let connection = self.connection()?;
        tokio::task::spawn_blocking(move || read(&name, &connection))
            .await
            .map_err(|e| DialectError::Engine {
                database: self.name.to_string(),
                message: format!("the DuckDB catalogue read failed: {e}"),
                code: None,
                source: None,
            })?
            .map_err(|e| self.host_paths.scrub(e))
    }
}

impl fmt::Debug for DuckDbDialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DuckDbDialect")
            .field("name", &self.name)
            .field("path", &self.path)
            .field("sealed", &self.sealed.is_some())
            .field("spill", &self.spill.as_ref().map(|dir| dir.path()))
            .field("workers", &self.workers.is_some())
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl Dialect for DuckDbDialect {
    fn refused_as_writing(&self, error: &DialectError) -> bool {
        super::errors::refused_as_writing(error)
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn sql_dialect(&self) -> SqlDialect {
        SqlDialect::DuckDb
    }

    /// With [`Isolation::Workers`], the worker count: a statement beyond it would wait for a
    /// worker. In-process, none: each statement gets a connection of its own from the one
    /// database instance, and DuckDB shares its thread pool among them.
    fn max_concurrent_statements(&self) -> Option<usize> {
        self.workers.as_ref().map(Workers::count)
    }

    async fn execute(
        &self,
        sql: &ReadOnlySql,
        options: &ExecOptions,
    ) -> Result<BatchStream, DialectError> {
        if let Some(workers) = &self.workers {
            return workers.execute(sql.sql(), !sql.is_checked(), options).await;
        }
        let connection = self.connection()?;
        stream::execute(
            Arc::clone(&self.name),
            Arc::clone(&self.host_paths),
            connection,
            sql.sql().to_owned(),
            !sql.is_checked(),
            options,
            self.spill_quota.clone(),
        )
        .await
    }

    async fn list_tables(&self, filter: &TableFilter) -> Result<Vec<TableInfo>, DialectError> {
        let filter = filter.clone();
        self.blocking_read(move |name, connection| catalog::list_tables(name, connection, &filter))
            .await
    }

    async fn describe_table(&self, table: &TableRef) -> Result<TableSchema, DialectError> {
        let table = table.clone();
        self.blocking_read(move |name, connection| {
            catalog::describe_table(name, connection, &table)
        })
        .await
    }
}

/// Opens the adapter for a `duckdb:` URL: the file at `path` read-only, or with `None` an empty
/// sealed in-memory database. Opening runs on the blocking pool.
///
/// # Errors
/// As [`DuckDbDialect::open`] and [`DuckDbDialect::in_memory`].
pub async fn open_url(
    name: &str,
    path: Option<PathBuf>,
    limits: EngineLimits,
) -> Result<Arc<dyn Dialect>, DialectError> {
    crate::url::open_blocking(name, "DuckDB", move |name| match path {
        Some(path) => DuckDbDialect::open_with(name, path, &limits),
        None => DuckDbDialect::in_memory_with(name, &limits, |_| Ok(())),
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The read-only layers, on their own: statements handed through the escape hatch meet
    /// DuckDB's reading first ([`super::super::engine_verdict`]), so this runs writes on the
    /// adapter's own connection, past that reading, as a parser differential would reach it.
    #[test]
    #[allow(clippy::unwrap_used)]
    fn the_read_only_layers_refuse_writes_without_the_engine_verdict() {
        let db = DuckDbDialect::in_memory("layers", |c| {
            c.execute_batch("CREATE TABLE t AS SELECT 1 AS x")
        })
        .unwrap();
        let dir = std::env::temp_dir().join(format!("nao-layers-{}", std::process::id()));
        let copied = dir.join("copied.csv");
        let attached = dir.join("attached.duckdb");
        for write in [
            "INSERT INTO t VALUES (2)",
            "CREATE TABLE u (x INTEGER)",
            "DROP TABLE t",
            &format!("COPY t TO '{}'", copied.display()),
            "ATTACH ':memory:' AS other",
            &format!("ATTACH '{}' AS other", attached.display()),
            "INSTALL httpfs",
            "LOAD httpfs",
            "SET enable_external_access = true",
            "SET access_mode = 'READ_WRITE'",
            "SELECT * FROM read_csv('/etc/passwd')",
        ] {
            let connection = db.connection().unwrap();
            let refused = connection.execute_batch(write).unwrap_err();
            let error = errors::from_duckdb("layers", refused, None);
            assert!(
                matches!(error, DialectError::Permission { .. }),
                "{write}: {error:?}"
            );
        }
        assert!(!dir.exists(), "nothing was written under {}", dir.display());
        let connection = db.connection().unwrap();
        let count: i64 = connection
            .query_row("SELECT count(*) FROM t", [], |row| row.get(0))
            .unwrap();
        assert_eq!(count, 1);
    }
}
