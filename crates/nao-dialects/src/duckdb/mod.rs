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
//! `lock_configuration = true`, so no `SET` or `PRAGMA` can lift the other two. Each statement
//! runs on a connection of its own, so what DuckDB still allows a read-only database (TEMP
//! objects, session variables) ends with it. A statement handed through the escape hatch
//! ([`ReadOnlySql::new_unchecked_allowing_writes`](nao_core::guard::ReadOnlySql::new_unchecked_allowing_writes))
//! also meets DuckDB's own reading before it runs: unless DuckDB's parser reads exactly one
//! query (`json_serialize_sql`), it is refused.
//!
//! ## Limits
//! Each database opens within the host's [`EngineLimits`](crate::EngineLimits)
//! ([`DuckDbDialect::open_with`], [`DuckDbDialect::in_memory_with`], or
//! [`OpenOptions::engine_limits`](crate::OpenOptions::engine_limits) for URLs), locked like the
//! read-only layers:
//! - `memory_limit`: DuckDB's buffer manager fails an allocation past it with an out-of-memory
//!   error, which the model reads as [`DialectError::ResourceLimit`] (without DuckDB's advice
//!   to change settings, which the model cannot do). It counts hash tables, sorts, aggregate
//!   states, materialised CTEs and the string data of computed columns.
//! - `threads`.
//! - Spilling: [`Spill::Off`](crate::Spill::Off) (the default) sets an empty
//!   `temp_directory`, so nothing is written to disk and a statement past the memory limit
//!   fails; [`Spill::Under`](crate::Spill::Under) gives DuckDB a private directory (removed with
//!   the adapter; one left by a crashed process is removed when the next adapter opens) with
//!   `max_temp_directory_size`. DuckDB 1.5.6 does not hold that size (a hash aggregate wrote
//!   289 MB under a 1 MiB limit), so the adapter measures the directory every 50 ms while a
//!   statement runs and stops the statement past the limit, as a `ResourceLimit`.
//!
//! What the memory limit does **not** bound (measured on DuckDB 1.5.6 with a 256 MiB limit):
//! values folded from constants at planning time (`SELECT repeat('x', 1000000000)`: 2.9 GB),
//! the element buffers of lists built by scalar functions (`range(100000000)`,
//! `list_resize([1], 200000000)`: several GB), and the Arrow export of a constant column,
//! which copies the value into every row of a 2048-row chunk
//! (`SELECT repeat('x', 1000000) FROM range(2000)`: 3.9 GB). DuckDB allocates these outside
//! its buffer manager and does not check for interrupts while building one value, so neither
//! the limit nor the statement timeout stops them; a timed-out statement of this kind keeps its
//! thread and memory until it finishes. `benches/embedded_memory.rs` measures these shapes.
//!
//! [`Isolation::Workers`](crate::Isolation::Workers) bounds them: statements run in worker
//! processes whose `RLIMIT_DATA` covers every allocation (each shape above then fails as a
//! `ResourceLimit` within the worker's memory), and a statement past its time limit or
//! cancelled is stopped by ending its worker, which returns all its memory. See the
//! `worker` module docs of [`run_if_worker`].
//!
//! Host paths (the database file, its directory, the sealed and spill directories) are
//! replaced by words in every error message the adapter returns; the guard refuses the
//! catalogue functions that print them (`duckdb_databases()`, `duckdb_settings()`,
//! `current_setting('temp_directory')`, …).
//!
//! ## Sealing an in-memory database
//! DuckDB has no read-only in-memory mode. [`DuckDbDialect::in_memory`] hands the host a
//! writable connection to a file in a private temporary directory, checkpoints and closes it,
//! then reopens the file through the same layers as any other file. The directory is removed
//! when the adapter is dropped. [`DuckDbDialect::from_batches`] does the same from Arrow
//! batches ([`load_batches`]).
//!
//! ## Streaming, caps, interrupts
//! Every statement gets a connection of its own (cloned from a root connection, closed before
//! its stream ends) and runs on a statement thread, never on the async runtime: one statement
//! at a time per thread; a thread whose statement took under 50 ms waits for the next one (at
//! most 4 wait, for at most 10 s), the others end (giving back the memory DuckDB's allocator
//! keeps per thread); a new one starts whenever none waits. It is prepared and started before
//! [`execute`](nao_core::Dialect::execute) returns, so SQL errors come back from `execute`
//! and the Arrow schema is known before the first batch. Batches go through the crate's
//! [statement pump](crate::pump), a channel of capacity 1; the worker stops one row past
//! `max_rows` (the chunk that crosses it is cut there), once the batches sent pass
//! `max_bytes`, or when the stream is dropped. A watcher interrupts the running statement
//! (DuckDB's interrupt handle) when the cancellation token fires, the time limit passes or the
//! stream is dropped, giving [`DialectError::Cancelled`] or [`DialectError::Timeout`]. Should
//! DuckDB not honour the interrupt (seen with recursive CTEs run on tokio's blocking pool), the
//! caller gets the error two seconds later anyway, and the statement's thread is left to
//! DuckDB, still interrupted every 50 ms.
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
//! [`DialectError::ResourceLimit`]: nao_core::DialectError::ResourceLimit

mod catalog;
mod dialect;
mod engine_verdict;
mod errors;
mod host_paths;
mod load;
mod open;
mod stream;
mod threads;
mod worker;

pub use dialect::{DuckDbDialect, open_url};
pub use load::load_batches;
pub use worker::{WORKER_ARG, run_if_worker};

/// The duckdb crate this adapter is built on (the version whose DuckDB matches the linked
/// libduckdb), so hosts can name the connection type the loader receives.
pub use ::duckdb as driver;
