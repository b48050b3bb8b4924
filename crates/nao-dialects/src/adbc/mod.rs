//! Any database with an ADBC driver (feature `adbc`): PostgreSQL, SQLite, Flight SQL servers,
//! Snowflake, BigQuery, … through the Apache Arrow ADBC drivers (C ABI shared libraries
//! loaded at run time by the `adbc_driver_manager` crate). Results are the driver's Arrow
//! stream, unconverted.
//!
//! ```no_run
//! # async fn run() -> Result<(), nao_core::DialectError> {
//! use nao_dialects::adbc::{AdbcConfig, AdbcDialect};
//!
//! // PostgreSQL through the ADBC PostgreSQL driver (found in NAO_ADBC_DRIVER_DIR).
//! let pg = AdbcDialect::open_url("pg", "adbc:postgresql://reader@127.0.0.1:5432/shop").await?;
//! # let _ = pg;
//! // Any driver and option, by hand.
//! let config = AdbcConfig::new("/opt/adbc/libadbc_driver_duckdb.so")
//!     .with_entrypoint("duckdb_adbc_init")
//!     .with_option("path", "/data/shop.duckdb")
//!     .with_option("access_mode", "READ_ONLY");
//! let duck = AdbcDialect::connect("duck", &config).await?;
//! # let _ = duck;
//! # Ok(()) }
//! ```
//!
//! # URLs
//! [`AdbcConfig::from_url`] maps an `adbc:` URL to a driver and its options:
//!
//! | URL | driver | options |
//! |---|---|---|
//! | `adbc:postgresql://user:pw@host:port/db?sslmode=…` | `postgresql` | `uri` = the URL without `adbc:` (libpq reads it) |
//! | `adbc:sqlite:/path/file.db` | `sqlite` | `uri` = `file:/path/file.db?mode=ro` |
//! | `adbc:flightsql://user:pw@host:port?token=…` (`flightsql+tls`) | `flightsql` | `uri` = `grpc://host:port` (`grpc+tls`), `username`, `password`, `adbc.flight.sql.authorization_header` = `Bearer <token>` |
//! | `adbc:snowflake://user:pw@account/db/schema?warehouse=&role=&auth_type=&private_key_file=` | `snowflake` | `username`, `password`, `adbc.snowflake.sql.{account,db,schema,warehouse,role,auth_type}`, `…client_option.jwt_private_key` |
//! | `adbc:bigquery://project/dataset?credentials_file=&credentials_json=&location=` | `bigquery` | `adbc.bigquery.sql.{project_id,dataset_id,location,auth_type,auth_credentials}` |
//!
//! Every URL also takes `dialect=` (the SQL dialect to check statements in; default: from
//! the driver's vendor name), `pool=` (most connections, default 4), `driver=` (a driver
//! name or path instead of the scheme's), `option.<key>=<value>` (any database option,
//! passed as is), and on PostgreSQL `set_role=` and `allow_privileged=` (see
//! [Read-only](#read-only)). [`AdbcConfig`] takes any driver and options directly. No error, log line or
//! `Debug` output repeats a password, token or key: option values under secret-sounding keys
//! and passwords inside URIs are scrubbed from the driver's messages.
//!
//! # Finding the driver
//! A path (with a `/` or an extension) loads that library or ADBC driver manifest (`.toml`).
//! A name (`postgresql`) is looked for as `<name>.toml` or `lib<name>.so`, then as
//! `adbc_driver_<name>`, first in the folders of `NAO_ADBC_DRIVER_DIR`
//! ([`AdbcConfig::search_dirs`]), then where the ADBC driver-manifest convention says:
//! `ADBC_DRIVER_PATH`, `~/.config/adbc/drivers`, `/etc/adbc/drivers`, and last the dynamic
//! loader's path. `scripts/adbc/fetch-drivers.sh` fetches the Apache Arrow project's drivers
//! from their PyPI wheels into one folder, with a manifest each, and prints
//! `NAO_ADBC_DRIVER_DIR`.
//!
//! # Statements
//! ADBC calls block, so each statement runs on a blocking thread with a connection of its
//! own; the driver's `ArrowArrayStream` goes batch by batch into the shared
//! [statement pump](crate::pump) (row cap plus one, byte budget, timeout, the caller's token,
//! a dropped stream). To stop a statement (cancelled, out of time, the caps reached, nobody
//! reading) a watcher calls `AdbcStatementCancel` from another thread (ADBC 1.1: PostgreSQL's
//! driver sends a cancel request, which ends the query on the server; a driver without it
//! stops at its next batch), and the stream is released. Catalogue calls run the same way,
//! bounded by the default statement timeout.
//!
//! What the drivers do (measured with the PyPI builds of `scripts/adbc/fetch-drivers.sh`):
//! - **PostgreSQL 1.13**: cancels on the server (the query leaves `pg_stat_activity`);
//!   `NUMERIC` arrives as its exact text (`Utf8`, field metadata `ADBC:postgresql:typname`),
//!   not as a decimal type, and goes on so; nullability is in neither `GetObjects` nor the
//!   table schema, so it is read from `information_schema.columns`.
//! - **SQLite 1.13**: no `AdbcStatementCancel` (NotImplemented): the caller hears of a
//!   timeout or cancellation at once, but the statement runs on its thread, holding its
//!   connection, until SQLite finishes it. `DECIMAL` columns arrive as SQLite stores them.
//! - **Flight SQL 1.13**: cancels the call; on Sail, `GetObjects` is not implemented and on
//!   roapi malformed, so the catalogue comes from `SHOW TABLES` and `SELECT * … LIMIT 0`;
//!   roapi sends a result's schema only with its rows, so an empty result has no columns.
//! - **Snowflake, BigQuery 1.11**: reach their service only when a connection opens.
//!   BigQuery's driver panics (and, being Go, stays poisoned for the process) when asked to
//!   read back a long option value: the adapter never reads options back.
//!
//! # Read-only
//! Each new connection runs the read-only statements of its vendor (from `get_info`), or the
//! host's own ([`AdbcConfig::with_session_sql`]):
//! - **PostgreSQL**: `SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY` (the driver has
//!   no read-only option; autocommit transactions are then read-only, writes fail with
//!   SQLSTATE 25006). At open, a login that may do more than read is refused (superuser,
//!   membership in the file, program or signal roles, any write grant or ownership: the
//!   native adapter's check and message, run through the driver) unless the host allows it
//!   (`allow_privileged=true`, [`AdbcConfig::with_allow_privileged`], `OpenOptions`);
//!   `set_role=<role>` ([`AdbcConfig::with_role`]) switches every connection to a read-only
//!   role, and the check runs as that role.
//! - **SQLite**: the file is opened as `file:…?mode=ro` and the session runs
//!   `PRAGMA query_only = ON`.
//! - **Flight SQL, Snowflake, BigQuery**: no read-only mode in the driver or the session.
//!   The guard (only [`ReadOnlySql`](nao_core::guard::ReadOnlySql) reaches the driver) and
//!   the credentials' own rights (a Snowflake role, a BigQuery service account with read
//!   roles only) are the fences.
//!
//! # Errors
//! The driver's SQLSTATE decides the [`DialectError`](nao_core::DialectError) kind first
//! (42601 syntax, 42P01/42703 unknown object, 25006/42501 permission, class 08 connection),
//! then its message in the words engines use (SQLite sets no SQLSTATE), then the ADBC
//! status; the code kept is the SQLSTATE, else `adbc:<status>[:<vendor code>]`.

mod catalog;
mod config;
mod dialect;
mod driver;
mod errors;
mod from_url;
mod info;
mod pool;
mod privileges;
mod search_path;
mod secrets;
mod sql_catalog;
mod statement;

pub use config::{AdbcConfig, DEFAULT_MAX_CONNECTIONS};
pub use dialect::AdbcDialect;
pub use from_url::AdbcUrlError;
pub use info::DriverInfo;

/// The ADBC API crate this adapter is built on (options, status codes), for hosts that use
/// the loaded driver directly.
pub use ::adbc_core as api;

/// The ADBC driver manager crate that loads the drivers.
pub use ::adbc_driver_manager as driver_manager;
