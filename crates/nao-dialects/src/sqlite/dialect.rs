//! [`SqliteDialect`]: opening a database read-only, and the [`Dialect`] implementation.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use arrow_array::RecordBatch;
use async_trait::async_trait;
use nao_core::guard::{ReadOnlySql, SqlDialect};
use nao_core::{
    BatchStream, Dialect, DialectError, ExecOptions, TableFilter, TableInfo, TableRef, TableSchema,
};
use rusqlite::{Connection, OpenFlags};

use super::open::{Pool, Target, open_read_only_with};
use super::resources::Resources;
use super::{catalog, errors, limits, load, query};
use crate::EngineLimits;

/// A SQLite database, read-only at every layer (see the [module docs](super)).
///
/// Cheap to share behind an `Arc`; queries run on tokio's blocking threads, each on a pooled
/// read-only connection, so several can run at once.
pub struct SqliteDialect {
    name: String,
    target: Target,
    pool: Arc<Pool>,
    /// The in-memory database's loading connection: kept open (a `memdb` database lives as
    /// long as one connection to it), never used again.
    _sealed_writer: Option<Mutex<Connection>>,
}

impl fmt::Debug for SqliteDialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SqliteDialect")
            .field("name", &self.name)
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

/// A name no other in-memory database of this process has.
fn unique_memory_name() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let count = NEXT.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!("nao_{}_{count}_{nanos:08x}", std::process::id())
}

impl SqliteDialect {
    /// Opens the database file at `path` read-only, naming it `name` (its `database_id`), with
    /// the default [`EngineLimits`].
    ///
    /// Fails with [`DialectError::Connection`] naming the path when the file is missing, is
    /// not a SQLite database, or cannot be opened. Blocking: opens the file and reads its
    /// schema.
    pub fn open(name: impl Into<String>, path: impl AsRef<Path>) -> Result<Self, DialectError> {
        SqliteDialect::open_with(name, path, &EngineLimits::default())
    }

    /// Opens the database file at `path` read-only, naming it `name`, within `limits`: the
    /// page cache of each connection and the process's soft heap limit (lowered, never
    /// raised). SQLite cannot honour the spill setting: temporary data goes to files whatever
    /// it says (see [Memory and limits](super#memory-and-limits)).
    ///
    /// ```
    /// use nao_dialects::EngineLimits;
    /// use nao_dialects::sqlite::SqliteDialect;
    ///
    /// # let dir = std::env::temp_dir().join(format!("nao-doc-open-with-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// # let path = dir.join("shop.db");
    /// # nao_dialects::sqlite::rusqlite::Connection::open(&path).unwrap().execute_batch("CREATE TABLE t (x INTEGER)").unwrap();
    /// let limits = EngineLimits::new().memory_limit(256 << 20).threads(1);
    /// let db = SqliteDialect::open_with("shop", &path, &limits)?;
    /// # drop(db);
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// # Ok::<(), nao_dialects::core::DialectError>(())
    /// ```
    ///
    /// # Errors
    /// As [`open`](Self::open).
    pub fn open_with(
        name: impl Into<String>,
        path: impl AsRef<Path>,
        limits: &EngineLimits,
    ) -> Result<Self, DialectError> {
        let name = name.into();
        let path = path.as_ref();
        let connection_error =
            |message: String, source: Option<rusqlite::Error>| DialectError::Connection {
                database: name.clone(),
                message,
                source: source.map(|e| Box::new(e) as nao_core::BoxError),
            };
        if !path.is_file() {
            let what = if path.exists() {
                "is not a file"
            } else {
                "does not exist"
            };
            return Err(connection_error(
                format!("the SQLite database {} {what}", path.display()),
                None,
            ));
        }
        let target = Target::File(path.to_path_buf());
        let resources = Resources::new(limits);
        let first = open_read_only_with(&target, &resources).map_err(|e| {
            connection_error(
                format!("cannot open the SQLite database {}: {e}", path.display()),
                Some(e),
            )
        })?;
        Ok(SqliteDialect {
            name,
            pool: Arc::new(Pool::new(target.clone(), resources, first)),
            target,
            _sealed_writer: None,
        })
    }

    /// Creates an in-memory database, lets `load` fill it through a writable connection, then
    /// seals it: that connection is kept (the database lives as long as it does) but never
    /// handed out, and every query runs on read-only connections to the same database in
    /// SQLite's `memdb` VFS (`file:/nao_…?vfs=memdb`), several at once (see
    /// [Memory and limits](super#memory-and-limits)).
    ///
    /// ```
    /// use nao_dialects::sqlite::SqliteDialect;
    ///
    /// let db = SqliteDialect::in_memory("demo", |conn| {
    ///     conn.execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2);")
    /// })?;
    /// # Ok::<(), nao_dialects::core::DialectError>(())
    /// ```
    ///
    /// # Errors
    /// [`DialectError::Engine`] (with SQLite's code) when `load` fails, and the errors of
    /// opening the read-only connections.
    pub fn in_memory(
        name: impl Into<String>,
        load: impl FnOnce(&Connection) -> rusqlite::Result<()>,
    ) -> Result<Self, DialectError> {
        SqliteDialect::in_memory_with(name, &EngineLimits::default(), load)
    }

    /// As [`in_memory`](Self::in_memory), with the query connections within `limits` (as
    /// [`open_with`](Self::open_with)). The database itself lives in SQLite's heap, whatever
    /// its size: the limits bound what queries add to it, and the loading connection is left
    /// as `load` needs it.
    ///
    /// # Errors
    /// As [`in_memory`](Self::in_memory).
    pub fn in_memory_with(
        name: impl Into<String>,
        limits: &EngineLimits,
        load: impl FnOnce(&Connection) -> rusqlite::Result<()>,
    ) -> Result<Self, DialectError> {
        let name = name.into();
        // Not a shared-cache database (`mode=memory&cache=shared`): its connections share one
        // b-tree behind one mutex, held for each step of a statement, so they run one at a
        // time. A named `memdb` database is one buffer that each connection reads into its
        // own page cache, locking the buffer only to copy a page.
        let uri = format!("file:/{}?vfs=memdb", unique_memory_name());
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let writer = Connection::open_with_flags(&uri, flags)
            .map_err(|e| errors::dialect_error(&name, e))?;
        load(&writer).map_err(|e| DialectError::Engine {
            database: name.clone(),
            message: format!("loading the in-memory database failed: {e}"),
            code: e.sqlite_extended_error_code().map(|c| c.to_string()),
            source: Some(Box::new(e)),
        })?;
        let target = Target::Uri(uri);
        let resources = Resources::new(limits);
        let first = open_read_only_with(&target, &resources)
            .map_err(|e| errors::dialect_error(&name, e))?;
        Ok(SqliteDialect {
            name,
            pool: Arc::new(Pool::new(target.clone(), resources, first)),
            target,
            _sealed_writer: Some(Mutex::new(writer)),
        })
    }

    /// The demo shop ([`crate::demo`]) at `scale`, in a sealed in-memory database, with its
    /// table and column comments (in the `CREATE TABLE` texts, see
    /// [`describe_table`](nao_core::Dialect::describe_table)).
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
        SqliteDialect::in_memory(name, move |conn| {
            tables
                .iter()
                .try_for_each(|t| load::load_demo_table(conn, t))
        })
    }

    /// An in-memory database holding `tables`, each created from its batches' schema and
    /// filled by [`load_batches`](super::load_batches).
    pub fn from_batches(
        name: impl Into<String>,
        tables: &[(&str, &[RecordBatch])],
    ) -> Result<Self, DialectError> {
        SqliteDialect::in_memory(name, |conn| {
            tables
                .iter()
                .try_for_each(|(table, batches)| load::load_batches(conn, table, batches))
        })
    }

    /// Runs `f` on a pooled connection on a blocking thread, under the value limit of the
    /// default byte cap (the catalogue's statements have no call options).
    async fn with_connection<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, DialectError> + Send + 'static,
    ) -> Result<T, DialectError> {
        let slot = self.pool.slot().await;
        let name = self.name.clone();
        let task = tokio::task::spawn_blocking(move || {
            let conn = slot
                .connection()
                .map_err(|e| errors::dialect_error(&name, e))?;
            let outcome = limits::set_value_limit(&conn, nao_core::DEFAULT_MAX_BYTES)
                .map_err(|e| errors::dialect_error(&name, e))
                .and_then(|()| f(&conn));
            slot.give_back(conn);
            outcome
        });
        task.await.map_err(|e| DialectError::Engine {
            database: self.name.clone(),
            message: format!("the SQLite worker failed: {e}"),
            code: None,
            source: None,
        })?
    }
}

/// Opens a database from a URL's path (`sqlite:///path.db`), or an empty in-memory database
/// for `None` (`sqlite::memory:`), within `limits`, on a blocking thread.
pub async fn open_url(
    name: &str,
    path: Option<PathBuf>,
    limits: EngineLimits,
) -> Result<Arc<dyn Dialect>, DialectError> {
    crate::url::open_blocking(name, "SQLite", move |name| match path {
        Some(path) => SqliteDialect::open_with(name, path, &limits),
        None => SqliteDialect::in_memory_with(name, &limits, |_| Ok(())),
    })
    .await
}

#[async_trait]
impl Dialect for SqliteDialect {
    fn refused_as_writing(&self, error: &DialectError) -> bool {
        super::errors::refused_as_writing(error)
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn sql_dialect(&self) -> SqlDialect {
        SqlDialect::Sqlite
    }

    /// The pool's connections (the [`EngineLimits`] threads, at least 2): a statement beyond
    /// them waits for one.
    fn max_concurrent_statements(&self) -> Option<usize> {
        Some(self.pool.size())
    }

    async fn execute(
        &self,
        sql: &ReadOnlySql,
        options: &ExecOptions,
    ) -> Result<BatchStream, DialectError> {
        let job = query::Job {
            database: self.name.clone(),
            sql: sql.sql().to_owned(),
            batch_size: options.batch_size,
            max_bytes: options.max_bytes,
        };
        query::execute(&self.pool, job, options).await
    }

    async fn list_tables(&self, filter: &TableFilter) -> Result<Vec<TableInfo>, DialectError> {
        let filter = filter.clone();
        let name = self.name.clone();
        self.with_connection(move |conn| {
            catalog::list_tables(conn, &filter).map_err(|e| errors::dialect_error(&name, e))
        })
        .await
    }

    async fn describe_table(&self, table: &TableRef) -> Result<TableSchema, DialectError> {
        let table = table.clone();
        let name = self.name.clone();
        self.with_connection(move |conn| {
            catalog::describe_table(conn, &table).map_err(|e| e.into_dialect_error(&name))
        })
        .await
    }
}
