//! The DuckDB adapter (feature `duckdb`), through the duckdb crate's Arrow API.
//!
//! ```
//! use nao_core::{DialectExt, ExecOptions, guard};
//! use nao_dialects::duckdb::DuckDbDialect;
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! // The host loads data through a writable connection; the adapter then only reads.
//! let db = DuckDbDialect::in_memory("demo", |c| {
//!     c.execute_batch("CREATE TABLE t AS SELECT range AS n FROM range(5)")
//! })
//! .unwrap();
//! let policy = guard::Policy::default();
//! let sql = guard::check("SELECT sum(n) AS total FROM t", guard::SqlDialect::DuckDb, &policy)
//!     .unwrap();
//! let result = db.query(&sql, &ExecOptions::default()).await.unwrap();
//! assert_eq!(result.row_count, 1);
//!
//! // Writes that slip past the guard are refused by the engine itself.
//! let write = guard::ReadOnlySql::new_unchecked_allowing_writes(
//!     "DROP TABLE t",
//!     guard::SqlDialect::DuckDb,
//! );
//! assert!(db.query(&write, &ExecOptions::default()).await.is_err());
//! # });
//! ```
//!
//! ## Read-only, in layers
//! The SQL guard only lets reads through; the engine refuses writes too, in case the guard
//! misses one. Files are opened with `access_mode = READ_ONLY` (no statement can change the
//! database), `enable_external_access = false` with extension autoloading off (no other file
//! is read or written: no `COPY … TO`, `read_csv`, `ATTACH`, `INSTALL`, `LOAD`), and then
//! `lock_configuration = true`, so no `SET` or `PRAGMA` can lift the other two.
//!
//! ## Sealing an in-memory database
//! DuckDB has no read-only in-memory mode. [`DuckDbDialect::in_memory`] hands the host a
//! writable connection to a file in a private temporary directory, checkpoints and closes it,
//! then reopens the file through the same layers as any other file. The directory is removed
//! when the adapter is dropped. [`DuckDbDialect::from_batches`] does the same from Arrow
//! batches ([`load_batches`]).
//!
//! ## Streaming, caps, interrupts
//! Every statement gets a connection of its own (cloned from a root connection) and runs on a
//! thread of its own, never on the async runtime. It is prepared and started before
//! [`execute`](nao_core::Dialect::execute) returns, so SQL errors come back from `execute`
//! and the Arrow schema is known before the first batch. Batches go through a channel of
//! capacity 1; the worker stops one row past `max_rows`, or when the stream is dropped. A
//! watcher interrupts the running statement (DuckDB's interrupt handle) when the cancellation
//! token fires or the time limit passes, giving [`DialectError::Cancelled`] or
//! [`DialectError::Timeout`]. Should DuckDB not honour the interrupt (seen with recursive CTEs
//! on reused threads, hence a thread per statement), the caller gets the error two seconds
//! later anyway, and the statement's thread is left to DuckDB, still interrupted every 50 ms.
//!
//! ## Panic containment
//! The duckdb crate's Arrow iterator panics when a chunk fails to fetch or convert (a cast
//! error at row 10,000 of a model's query). The adapter uses the fallible `Statement::step`
//! and still runs every fetch and conversion in `catch_unwind`: a failure is a
//! [`DialectError::Engine`] (or the kind its message says), never a panic in the caller.
//!
//! ## Types
//! Batches are DuckDB's own Arrow export, unchanged: `DECIMAL` as `Decimal128`, `HUGEINT` as
//! `Decimal128(38, 0)`, timestamps with their unit (and `UTC` for `TIMESTAMPTZ`), intervals as
//! `Interval(MonthDayNano)`, lists, structs and maps as nested Arrow types.
//!
//! ## Errors
//! DuckDB's message is kept; its `"<Type> Error"` prefix is the code and picks the kind:
//! `Parser Error` is a syntax error, a missing table, column or function is an unknown object,
//! read-only and disabled-access refusals are permission errors, `IO Error` is a connection
//! error, the rest are engine errors.
//!
//! [`DialectError::Cancelled`]: nao_core::DialectError::Cancelled
//! [`DialectError::Timeout`]: nao_core::DialectError::Timeout
//! [`DialectError::Engine`]: nao_core::DialectError::Engine

mod catalog;
mod dialect;
mod errors;
mod load;
mod open;
mod stream;

pub use dialect::{DuckDbDialect, open_url};
pub use load::load_batches;

/// The duckdb crate this adapter is built on (the version whose DuckDB matches the linked
/// libduckdb), so hosts can name the connection type the loader receives.
pub use ::duckdb as driver;
