//! Opening DuckDB read-only, and sealing a database a host loaded into a private file.
//!
//! Three layers keep the engine from writing, whatever SQL reaches it:
//! 1. `access_mode = READ_ONLY`: DuckDB refuses every statement that would change the database
//!    file (INSERT, CREATE, CHECKPOINT, …).
//! 2. `enable_external_access = false` (and extension autoloading off): no reading or writing of
//!    other files (`COPY … TO`, `read_csv('/etc/passwd')`, `ATTACH`), no `INSTALL`/`LOAD`.
//! 3. `lock_configuration = true`, set last: no `SET`/`PRAGMA` can undo the first two.
//!
//! DuckDB has no read-only in-memory database, so [`seal`] builds the host's data in a file of
//! a private temporary directory through a writable connection, closes it, and reopens that
//! file through the same three layers. The directory is removed when the adapter is dropped.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use duckdb::{AccessMode, Config, Connection};
use nao_core::DialectError;

/// The file name of a sealed database: its DuckDB catalog is then called `memory`, like the
/// in-memory database the host thinks it built.
const SEALED_FILE: &str = "memory.duckdb";

/// Opens `path` read-only with external access off and the configuration locked.
pub(super) fn open_read_only(database: &str, path: &Path) -> Result<Connection, DialectError> {
    let connection_error = |what: String, source: Option<duckdb::Error>| DialectError::Connection {
        database: database.to_owned(),
        message: what,
        source: source.map(|e| Box::new(e) as nao_core::BoxError),
    };
    if !path.is_file() {
        return Err(connection_error(
            format!("no DuckDB database file at {}", path.display()),
            None,
        ));
    }
    let config = read_only_config()
        .map_err(|e| connection_error(format!("could not configure DuckDB: {e}"), Some(e)))?;
    let connection = Connection::open_with_flags(path, config).map_err(|e| {
        connection_error(format!("could not open {}: {e}", path.display()), Some(e))
    })?;
    // Timestamps with time zone come out as UTC instants labelled "UTC" (a zone every Arrow
    // reader knows), not the host's zone name. Best effort: without the ICU extension DuckDB
    // has no TimeZone setting, and its TIMESTAMPTZ is UTC already.
    if let Err(e) = connection.execute_batch("SET GLOBAL TimeZone = 'UTC'") {
        tracing::debug!(error = %e, "DuckDB has no TimeZone setting; keeping its default");
    }
    // Locking last: the options above are in place, and from here on no statement can change
    // any option (lock_configuration is a global setting, shared by every cloned connection).
    connection
        .execute_batch("SET lock_configuration = true")
        .map_err(|e| {
            connection_error(
                format!(
                    "could not lock the configuration of {}: {e}",
                    path.display()
                ),
                Some(e),
            )
        })?;
    Ok(connection)
}

fn read_only_config() -> duckdb::Result<Config> {
    Config::default()
        .access_mode(AccessMode::ReadOnly)?
        .enable_external_access(false)?
        .enable_autoload_extension(false)?
        .with("allow_community_extensions", "false")
}

/// A private temporary directory holding a sealed database, removed on drop.
#[derive(Debug)]
pub(super) struct SealedDir {
    path: PathBuf,
}

impl SealedDir {
    /// Creates a fresh directory under the system temporary directory, readable only by the
    /// current user on Unix.
    fn create() -> std::io::Result<Self> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let base = std::env::temp_dir();
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let mut last_error = None;
        for _ in 0..16 {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let path = base.join(format!("nao-duckdb-{}-{nanos}-{n}", std::process::id()));
            let mut builder = std::fs::DirBuilder::new();
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            match builder.create(&path) {
                Ok(()) => return Ok(SealedDir { path }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last_error = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last_error.unwrap_or_else(|| std::io::Error::other("no free temporary name")))
    }

    /// The sealed database file inside the directory.
    pub(super) fn file(&self) -> PathBuf {
        self.path.join(SEALED_FILE)
    }
}

impl Drop for SealedDir {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_dir_all(&self.path) {
            tracing::warn!(path = %self.path.display(), error = %e, "could not remove a sealed DuckDB directory");
        }
    }
}

/// Builds a database with `load` through a writable connection, then reopens it read-only.
///
/// The writable connection is checkpointed and closed before the read-only one opens, so the
/// file holds everything `load` wrote and no write-ahead log is left to replay.
pub(super) fn seal(
    database: &str,
    load: impl FnOnce(&Connection) -> duckdb::Result<()>,
) -> Result<(Connection, SealedDir), DialectError> {
    let connection_error =
        |message: String, source: Option<nao_core::BoxError>| DialectError::Connection {
            database: database.to_owned(),
            message,
            source,
        };
    let dir = SealedDir::create().map_err(|e| {
        connection_error(
            format!("could not create a temporary directory: {e}"),
            Some(Box::new(e)),
        )
    })?;
    let file = dir.file();
    {
        let writer = Connection::open(&file).map_err(|e| {
            connection_error(
                format!("could not create {}: {e}", file.display()),
                Some(Box::new(e)),
            )
        })?;
        load(&writer).map_err(|e| DialectError::Engine {
            database: database.to_owned(),
            message: format!("loading the in-memory database failed: {e}"),
            code: None,
            source: Some(Box::new(e)),
        })?;
        writer.execute_batch("CHECKPOINT").map_err(|e| {
            connection_error(
                format!("could not checkpoint {}: {e}", file.display()),
                Some(Box::new(e)),
            )
        })?;
        writer.close().map_err(|(_, e)| {
            connection_error(
                format!("could not close {}: {e}", file.display()),
                Some(Box::new(e)),
            )
        })?;
    }
    let connection = open_read_only(database, &file)?;
    Ok((connection, dir))
}
