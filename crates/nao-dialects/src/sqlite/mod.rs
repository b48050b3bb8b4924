//! SQLite through rusqlite (SQLite compiled in): a database file or a sealed in-memory database,
//! read-only at every layer, results as Arrow batches.
//!
//! ```
//! use nao_dialects::core::{DialectExt, ExecOptions, guard};
//! use nao_dialects::sqlite::SqliteDialect;
//!
//! # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
//! let db = SqliteDialect::in_memory("shop", |conn| {
//!     conn.execute_batch(
//!         "CREATE TABLE orders (id INTEGER, total DECIMAL(10,2), placed DATE);
//!          INSERT INTO orders VALUES (1, 19.99, '2024-05-01'), (2, 5, '2024-05-02');",
//!     )
//! })?;
//! let sql = guard::check("SELECT * FROM orders", guard::SqlDialect::Sqlite, &guard::Policy::default())
//!     .expect("a read");
//! let result = db.query(&sql, &ExecOptions::default()).await?;
//! assert_eq!(result.row_count, 2);
//! assert_eq!(result.schema.field(1).data_type().to_string(), "Decimal128(10, 2)");
//! # Ok::<(), nao_dialects::core::DialectError>(())
//! # }).unwrap();
//! ```
//!
//! ## Opening
//! - [`SqliteDialect::open`] opens a file read-only (a missing file is a
//!   [`DialectError::Connection`](nao_core::DialectError::Connection) naming the path).
//! - [`SqliteDialect::in_memory`] gives the host a writable connection to load a new in-memory
//!   database, then seals it: the loading connection is kept (so the database lives) but never
//!   handed out again; [`SqliteDialect::from_batches`] loads Arrow batches that way.
//! - [`open_url`] (used by [`crate::open`]): `sqlite:///path/to.db`, or `sqlite::memory:` for an
//!   empty in-memory database. Without the `sqlite` feature those URLs fail with a clear error.
//!
//! ## Read-only layers
//! The SQL guard has already proved the statement a read ([`ReadOnlySql`](nao_core::guard::ReadOnlySql));
//! the engine enforces it again, so a guard bug or the guard's escape hatch cannot write:
//! 1. connections are opened with `SQLITE_OPEN_READ_ONLY`;
//! 2. `PRAGMA query_only = ON` makes SQLite refuse any write on the connection (this also
//!    covers the shared-cache in-memory database, whose pages a writer opened);
//! 3. an authorizer, consulted while each statement is prepared, allows only reads, `SELECT`,
//!    recursive CTEs, functions (except `load_extension` and file functions) and a few
//!    schema pragmas (`table_info`, `table_xinfo`, `table_list`, `index_list`, `index_info`,
//!    `index_xinfo`, `foreign_key_list`, `database_list`, `collation_list`); it denies
//!    everything else, including `ATTACH`, `DETACH`, transactions, savepoints, `CREATE TEMP`,
//!    `ANALYZE`, `REINDEX`, `VACUUM`, virtual tables and every writable pragma, so a denied
//!    statement fails at preparation with a permission error;
//! 4. `trusted_schema = OFF` and `SQLITE_DBCONFIG_DEFENSIVE`, and extension loading stays off.
//!
//! ## Types
//! Each column's declared type (`sqlite3_column_decltype`) decides its Arrow type:
//!
//! | declared | Arrow | values accepted |
//! |---|---|---|
//! | `INTEGER`, `INT`, `BIGINT`, `SMALLINT`, `TINYINT`, `INT2/4/8`, … | Int64 | INTEGER |
//! | `REAL`, `FLOAT`, `DOUBLE` | Float64 | REAL; INTEGER when exactly representable |
//! | `TEXT`, `VARCHAR(n)`, `CHAR(n)`, `CLOB` (any name with CHAR/CLOB/TEXT) | Utf8 | anything, as text (a BLOB must be UTF-8) |
//! | `BLOB` | Binary | BLOB, TEXT (its bytes) |
//! | `DECIMAL(p,s)`, `NUMERIC(p,s)` (p ≤ 38) | Decimal128(p,s) | INTEGER; REAL via its shortest round-trip text; TEXT parsed exactly; rounded half away from zero to `s` |
//! | `BOOLEAN`, `BOOL` | Boolean | 0, 1, `'true'`, `'false'` |
//! | `DATE` | Date32 | `YYYY-MM-DD` text |
//! | `DATETIME`, `TIMESTAMP` | Timestamp(µs, no zone) | `YYYY-MM-DD HH:MM[:SS[.ffffff]]`, `T` form, trailing `Z` |
//! | anything else, or none (expressions) | from the first batch | see below |
//!
//! A column without a usable declared type takes its type from the storage classes of its first
//! batch: all INTEGER → Int64; INTEGER and REAL → Float64 (Utf8 if an integer would not be
//! exact); any TEXT → Utf8; only BLOB → Binary; all NULL → Utf8. Dates in such columns stay
//! text. A later value that does not fit its column without loss (a REAL in an Int64 column,
//! text that is not a date in a DATE column) fails the stream with
//! [`DialectError::Unsupported`](nao_core::DialectError::Unsupported) naming the column and row
//! and suggesting a `CAST`. SQLite has no NaN: a NaN written into a REAL column is stored as
//! NULL. SQLite has no exact decimal storage either: a `DECIMAL` column has NUMERIC affinity, so
//! a value beyond 15 significant digits is kept by SQLite as the nearest REAL and reads back as
//! that REAL's decimal.
//!
//! ## Streaming, caps and time
//! Each statement runs on a tokio blocking thread (never on the async runtime) with a pooled
//! connection (at most four are kept idle). Preparation happens before
//! [`execute`](nao_core::Dialect::execute) returns, so syntax errors, unknown names and denied
//! writes come back from it; so does the first batch, which fixes the schema. Batches of
//! `batch_size` rows (sooner when they reach `max_bytes`) then go through a channel holding one
//! batch, so a slow consumer pauses the statement. Reading stops after `max_rows + 1` rows (the
//! extra row tells the caller the result was cut). A progress handler, called every 1000
//! virtual-machine steps, interrupts the statement when the cancellation token fires
//! ([`Cancelled`](nao_core::DialectError::Cancelled)), the timeout measured from the start of
//! `execute` passes ([`Timeout`](nao_core::DialectError::Timeout)), or the stream was dropped;
//! the connection then returns to the pool.
//!
//! ## Catalogue and comments
//! [`list_tables`](nao_core::Dialect::list_tables) and
//! [`describe_table`](nao_core::Dialect::describe_table) read `sqlite_schema` and
//! `pragma_table_xinfo`. SQLite has no `COMMENT ON`, but keeps each `CREATE TABLE` text as
//! written, comments included; the adapter reads table and column comments from it by the
//! common convention: a comment on the line of the opening parenthesis describes the table, one
//! on a column's line describes that column, comment lines of their own describe the column
//! that follows.
//! ```sql
//! CREATE TABLE orders ( -- One row per order.
//!   id INTEGER PRIMARY KEY, -- the order number
//!   -- what the customer paid, after discount
//!   total DECIMAL(12, 2)
//! )
//! ```
//! [`SqliteDialect::demo`] writes the demo shop's comments that way.
//!
//! ## Errors
//! Syntax errors ("near …: syntax error", "incomplete input") are `Syntax`; "no such table,
//! column, function" are `UnknownObject`; authorizer denials, `SQLITE_READONLY` and
//! `SQLITE_PERM` are `Permission`; `SQLITE_CANTOPEN` and "not a database" are `Connection`;
//! the rest `Engine`. Each keeps SQLite's message and its extended result code as `code`.

mod authorizer;
mod catalog;
mod comments;
mod convert;
mod decimal;
mod dialect;
mod errors;
mod load;
mod open;
mod query;
mod temporal;
mod types;

pub use dialect::{SqliteDialect, open_url};
pub use load::{create_table, load_batches};

/// The rusqlite crate this adapter is built on, for the connection handed to
/// [`SqliteDialect::in_memory`]'s loader.
pub use rusqlite;
