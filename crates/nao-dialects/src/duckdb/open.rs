//! Opening DuckDB read-only within the host's limits, and sealing a database a host loaded
//! into a private file.
//!
//! Three layers keep the engine from writing, whatever SQL reaches it:
//! 1. `access_mode = READ_ONLY`: DuckDB refuses every statement that would change the database
//!    file (INSERT, CREATE, CHECKPOINT, …).
//! 2. `enable_external_access = false` (and extension autoloading off): no reading or writing of
//!    other files (`COPY … TO`, `read_csv('/etc/passwd')`, `ATTACH`), no `INSTALL`/`LOAD`.
//! 3. `lock_configuration = true`, set last: no `SET`/`PRAGMA` can undo the first two, nor the
//!    limits.
//!
//! The [`EngineLimits`] become `memory_limit`, `threads`, and `temp_directory` with
//! `max_temp_directory_size`: a private [`ScratchDir`] under the host's spill directory, or
//! none at all (an empty `temp_directory`: DuckDB then fails a statement that would spill).
//!
//! DuckDB has no read-only in-memory database, so [`seal`] builds the host's data in a file of
//! a private scratch directory through a writable connection, closes it, and reopens that file
//! through the same layers. The directories are removed when the adapter is dropped, and ones
//! left by a crashed process when the next adapter opens.

use std::path::{Path, PathBuf};

use duckdb::{AccessMode, Config, Connection};
use nao_core::DialectError;
use nao_core::scratch::ScratchDir;

use crate::{EngineLimits, Spill};

/// The file name of a sealed database: its DuckDB catalog is then called `memory`, like the
/// in-memory database the host thinks it built.
const SEALED_FILE: &str = "memory.duckdb";

/// The prefix of the scratch directories of sealed databases.
const SEALED_PREFIX: &str = "nao-duckdb-sealed";

/// The prefix of the scratch directories DuckDB spills into.
const SPILL_PREFIX: &str = "nao-duckdb-spill";

/// A database DuckDB has open read-only, with the directory it may spill into.
pub(super) struct Opened {
    /// The root connection statements are cloned from.
    pub(super) connection: Connection,
    /// The private spill directory ([`Spill::Under`]), removed on drop.
    pub(super) spill: Option<ScratchDir>,
}

/// The error for a failure to open or prepare `database`.
fn connection_error(
    database: &str,
    message: String,
    source: Option<nao_core::BoxError>,
) -> DialectError {
    DialectError::Connection {
        database: database.to_owned(),
        message,
        source,
    }
}

/// Opens `path` read-only with external access off, within `limits`, and the configuration
/// locked.
pub(super) fn open_read_only(
    database: &str,
    path: &Path,
    limits: &EngineLimits,
) -> Result<Opened, DialectError> {
    if !path.is_file() {
        return Err(connection_error(
            database,
            format!("no DuckDB database file at {}", path.display()),
            None,
        ));
    }
    let spill = match limits.spill_policy() {
        Spill::Under { parent, .. } => {
            Some(ScratchDir::create_in(parent, SPILL_PREFIX).map_err(|e| {
                connection_error(
                    database,
                    format!(
                        "could not create a spill directory under {}: {e}",
                        parent.display()
                    ),
                    Some(Box::new(e)),
                )
            })?)
        }
        _ => None,
    };
    let connection = open_configured(database, path, limits, spill.as_ref().map(ScratchDir::path))?;
    Ok(Opened { connection, spill })
}

/// Opens `path` read-only with external access off, within `limits`, spilling into
/// `spill_dir` (which the caller owns) if any, and the configuration locked.
pub(super) fn open_configured(
    database: &str,
    path: &Path,
    limits: &EngineLimits,
    spill_dir: Option<&Path>,
) -> Result<Connection, DialectError> {
    let config = read_only_config(limits, spill_dir).map_err(|e| {
        connection_error(
            database,
            format!("could not configure DuckDB: {e}"),
            Some(Box::new(e)),
        )
    })?;
    let connection = Connection::open_with_flags(path, config).map_err(|e| {
        connection_error(
            database,
            format!("could not open {}: {e}", path.display()),
            Some(Box::new(e)),
        )
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
                database,
                format!(
                    "could not lock the configuration of {}: {e}",
                    path.display()
                ),
                Some(Box::new(e)),
            )
        })?;
    Ok(connection)
}

/// The read-only layers and `limits`: DuckDB's memory limit (its buffer manager's; the module
/// docs say what it does not count), its threads, and where it spills: into `spill_dir` up to
/// the policy's size, or nowhere (an empty `temp_directory`). The spill settings come before
/// `enable_external_access = false`, which forbids changing them.
fn read_only_config(limits: &EngineLimits, spill_dir: Option<&Path>) -> duckdb::Result<Config> {
    let config = match (limits.spill_policy(), spill_dir) {
        (Spill::Under { max_bytes, .. }, Some(dir)) => Config::default()
            .with("temp_directory", dir.to_string_lossy())?
            .with("max_temp_directory_size", bytes(*max_bytes))?,
        _ => Config::default().with("temp_directory", "")?,
    };
    config
        .access_mode(AccessMode::ReadOnly)?
        .enable_external_access(false)?
        .enable_autoload_extension(false)?
        .with("allow_community_extensions", "false")?
        .max_memory(&bytes(limits.memory_limit_bytes()))?
        .threads(i64::try_from(limits.thread_count()).unwrap_or(i64::MAX))
}

/// A byte count as DuckDB reads sizes.
fn bytes(n: u64) -> String {
    format!("{n}B")
}

/// A sealed database: its scratch directory (removed on drop) and the file in it.
#[derive(Debug)]
pub(super) struct Sealed {
    dir: ScratchDir,
}

impl Sealed {
    /// The scratch directory.
    pub(super) fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The sealed database file.
    pub(super) fn file(&self) -> PathBuf {
        self.dir.path().join(SEALED_FILE)
    }
}

/// Builds a database with `load` through a writable connection, then reopens it read-only
/// within `limits`.
///
/// The writable connection is checkpointed and closed before the read-only one opens, so the
/// file holds everything `load` wrote and no write-ahead log is left to replay. The loading
/// connection is the host's and runs with DuckDB's defaults.
pub(super) fn seal(
    database: &str,
    limits: &EngineLimits,
    load: impl FnOnce(&Connection) -> duckdb::Result<()>,
) -> Result<(Opened, Sealed), DialectError> {
    let dir = ScratchDir::create_in(&std::env::temp_dir(), SEALED_PREFIX).map_err(|e| {
        connection_error(
            database,
            format!("could not create a temporary directory: {e}"),
            Some(Box::new(e)),
        )
    })?;
    let sealed = Sealed { dir };
    let file = sealed.file();
    {
        let writer = Connection::open(&file).map_err(|e| {
            connection_error(
                database,
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
                database,
                format!("could not checkpoint {}: {e}", file.display()),
                Some(Box::new(e)),
            )
        })?;
        writer.close().map_err(|(_, e)| {
            connection_error(
                database,
                format!("could not close {}: {e}", file.display()),
                Some(Box::new(e)),
            )
        })?;
    }
    let opened = open_read_only(database, &file, limits)?;
    Ok((opened, sealed))
}
