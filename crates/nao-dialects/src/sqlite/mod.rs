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
//!   handed out again; [`SqliteDialect::from_batches`] loads Arrow batches that way. The
//!   database lives in SQLite's `memdb` VFS under a name of its own, which the read-only
//!   connections open (see [Concurrency](#concurrency)).
//! - [`SqliteDialect::open_with`] and [`SqliteDialect::in_memory_with`] do the same within
//!   [`EngineLimits`](crate::EngineLimits) (see [Memory and limits](#memory-and-limits));
//!   `open` and `in_memory` use the defaults.
//! - [`open_url`] (used by [`crate::open`]): `sqlite:///path/to.db`, or `sqlite::memory:` for an
//!   empty in-memory database. Without the `sqlite` feature those URLs fail with a clear error.
//!   The engine limits come from [`OpenOptions`](crate::OpenOptions).
//!
//! ## Read-only layers
//! The SQL guard has already proved the statement a read ([`ReadOnlySql`](nao_core::guard::ReadOnlySql));
//! the engine enforces it again, so a guard bug or the guard's escape hatch cannot write:
//! 1. connections are opened with `SQLITE_OPEN_READ_ONLY`;
//! 2. `PRAGMA query_only = ON` makes SQLite refuse any write on the connection (this also
//!    covers the in-memory database, which its loading connection opened writable);
//! 3. an authorizer, consulted while each statement is prepared, allows only reads, `SELECT`,
//!    recursive CTEs, functions (except `load_extension` and file functions) and the pragmas
//!    that only read ([`SqlitePragma`](nao_core::guard::SqlitePragma), the list the guard
//!    uses too: reporting pragmas with any argument, settings without a value); it denies
//!    everything else, including `ATTACH`, `DETACH`, transactions, savepoints, `CREATE TEMP`,
//!    `ANALYZE`, `REINDEX`, `VACUUM`, virtual tables and every writable pragma, so a denied
//!    statement fails at preparation with a permission error;
//! 4. `trusted_schema = OFF` and `SQLITE_DBCONFIG_DEFENSIVE`, and extension loading stays off;
//! 5. SQLite's own classification of each prepared statement (`sqlite3_stmt_readonly`): one
//!    it says writes is refused whatever the guard and the authorizer decided, and the
//!    disagreement is logged (pragmas excepted: SQLite flags `PRAGMA journal_mode`, a report,
//!    as writing, so each pragma is the authorizer's to decide, by the guard's own list).
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
//! connection (see [Concurrency](#concurrency)). Preparation happens before
//! [`execute`](nao_core::Dialect::execute) returns, so syntax errors, unknown names and denied
//! writes come back from it; so does the first batch, which fixes the schema. Batches of
//! `batch_size` rows (sooner when they reach `max_bytes`) then go through the crate's
//! [statement pump](crate::pump), a channel holding one batch, so a slow consumer pauses the
//! statement. Reading stops after `max_rows + 1` rows (the extra row tells the caller the
//! result was cut), or once the batches sent pass `max_bytes` (the reader keeps none past it).
//! A progress handler, called every 1000 virtual-machine steps, interrupts the statement when
//! the cancellation token fires ([`Cancelled`](nao_core::DialectError::Cancelled)), the
//! timeout measured from the start of `execute` passes
//! ([`Timeout`](nao_core::DialectError::Timeout)), or the stream was dropped; the caller gets
//! the error from the stream at once, and the connection returns to the pool.
//!
//! ## Concurrency
//! Statements run in parallel, each on a read-only connection of its own, as many at once as
//! the [`EngineLimits`](crate::EngineLimits) threads allow (the machine's cores by default),
//! at least two; [`max_concurrent_statements`](nao_core::Dialect::max_concurrent_statements)
//! says how many, so a host's admission queue (nao-core's `AdmittedDialect`) holds the rest.
//! A statement beyond them waits for a connection, and that wait counts against its time
//! limit and ends when it is cancelled. Connections are opened when first needed and kept; a
//! statement keeps its connection until its stream is read to the end or dropped, so a caller
//! that holds as many unread streams as there are connections makes its next statement wait.
//! - *Files*: each connection takes SQLite's shared lock, which readers hold together, in
//!   rollback-journal and WAL mode alike.
//! - *In memory*: the database is a named `memdb` database (`file:/nao_…?vfs=memdb`), one
//!   buffer that every connection reads pages from into its own page cache, locking the buffer
//!   only while it copies a page. (A shared-cache database, `mode=memory&cache=shared`, would
//!   keep one copy of the pages, but its connections share one b-tree behind one mutex, held
//!   for each step of a statement: they ran one at a time, about one core however many
//!   callers.) The cost is memory: the database once, plus each connection's page cache,
//!   which holds the pages that connection read up to its `cache_size` (below). In the root
//!   crate's `concurrent_reads` bench on 2 cores, the demo shop (`DemoScale::Full`, about
//!   300,000 rows) took the process from 17 to 34 MiB resident once open, and to 58 MiB after
//!   its runs on two connections (shared-cache: 33 and 68 MiB, its pool then unbounded).
//!
//! ## Memory and limits
//! The byte cap ([`ExecOptions::max_bytes`](nao_core::ExecOptions::max_bytes)) bounds what a
//! result keeps; these bound what SQLite allocates while computing it. Measured figures below
//! are SQLite's own heap peak (`sqlite3_memory_highwater`) under the default 64 MiB cap.
//!
//! **The value limit, per statement.** Before each statement the adapter sets
//! `SQLITE_LIMIT_LENGTH` on its pooled connection to half the call's byte cap (a value is
//! held twice while it becomes Arrow), at least 1 MiB: 32 MiB by default instead of SQLite's
//! 1 GB. It bounds every string and blob a statement builds or reads and every row SQLite
//! builds inside it (sort keys, `DISTINCT` and `GROUP BY` rows, a recursive CTE's queue). A
//! statement that passes it stops with
//! [`DialectError::ResourceLimit`](nao_core::DialectError::ResourceLimit) naming the limit,
//! the cap and what to select instead; the connection is reset and serves the next
//! statement. A value stored in the database larger than the limit cannot be read in that
//! call (only `length()` of a BLOB, which SQLite answers from the record header).
//!
//! **The fixed limits, per connection** (each one's reason is in `limits.rs`), all set
//! explicitly so a newer SQLite's defaults change nothing:
//!
//! | limit | value | SQLite's default |
//! |---|---|---|
//! | SQL length | 1 MiB (the guard's default is 100 KB) | 1 GB |
//! | columns | 2000 | 2000 |
//! | expression depth | 1000 | 1000 |
//! | parser depth | 2500 | 2500 |
//! | compound SELECT terms | 500 | 500 |
//! | virtual-machine instructions | 1,000,000 (reported by SQLite as "out of memory") | 250,000,000 |
//! | function arguments | 127 | 1000 |
//! | attached databases | 0 (`ATTACH` is denied anyway) | 10 |
//! | LIKE/GLOB pattern | 100 bytes | 50,000 |
//! | parameters | 8 (the adapter binds none) | 32,766 |
//! | trigger depth | 0 (nothing writes) | 1000 |
//! | sorter helper threads | 0 | 0 |
//!
//! Each one passed is a `ResourceLimit` error with the limit, its value and advice.
//!
//! **Per database: [`EngineLimits`](crate::EngineLimits)**
//! ([`SqliteDialect::open_with`], [`SqliteDialect::in_memory_with`], and `sqlite://` URLs
//! through [`OpenOptions`](crate::OpenOptions); `open` and `in_memory` take the defaults):
//! - *Connections*: the threads, at least two (see [Concurrency](#concurrency)).
//! - *Page cache*: the connections' `cache_size` together are a quarter of the memory limit
//!   (each between 1 MiB and 64 MiB), so with every connection busy, caches and sort buffers
//!   hold at most half of it. The cache is also how much a sort keeps in memory before it
//!   writes sorted runs to a temporary file.
//! - *Soft heap limit*: `PRAGMA soft_heap_limit` is one setting for the whole process, so the
//!   adapters only ever lower it: to the smallest memory limit of any SQLite adapter opened so
//!   far, keeping a lower one the host set, and never raising it again (not even when that
//!   adapter is dropped). It never fails a statement: past it SQLite reuses cache pages
//!   instead of allocating new ones and sorts write their runs out at about 1 MiB.
//! - *Hard heap limit, the host's choice*: `sqlite3_hard_heap_limit64` makes every SQLite
//!   allocation in the process fail once the sum passes it: another database's adapter, the
//!   story store, or the host's own use of the same SQLite would fail for a statement they
//!   did not run, and an in-memory database holds its data on that same heap. So the adapter
//!   does not set one; a host that uses SQLite only through nao calls [`limit_process_heap`]
//!   (nao-mcp does, with its databases' memory limits plus 256 MiB), and then the values a
//!   statement holds at once are bounded too: statements that reach it fail with a
//!   `ResourceLimit` error.
//! - *Threads*: SQLite runs a statement on the thread that steps it, one of tokio's blocking
//!   threads, with no sorter helper threads; the thread limit is how many statements run at
//!   once, each on its connection.
//! - *Spill*: SQLite cannot honour [`Spill`](crate::Spill), so it is ignored and every
//!   connection runs with `temp_store = FILE`: a sort keeps a page cache's worth of rows in
//!   memory and writes the rest to temporary files as sorted runs, and each temporary b-tree
//!   keeps 2 MiB of cache and writes the rest to its own file.
//!   - Keeping them in memory instead (`temp_store = MEMORY`, the only way to write nothing)
//!     would leave them unbounded: nothing in SQLite limits them, and statements are only
//!     checked between virtual-machine steps. A `DISTINCT` over 3,000 generated 100 KB values
//!     took 316 MB of heap in 1.4 s in memory, 2.5 MB with files; an `ORDER BY` over
//!     3 million generated rows 115 MB against 2.4 MB (with a 2 MiB page cache). So
//!     [`Spill::Off`](crate::Spill::Off), the default, still writes temporary files for
//!     SQLite: memory stays bounded, disk does not (SQLite writes at disk speed until the
//!     time limit; a host that must write nothing should not give the model a SQLite
//!     database).
//!   - [`Spill::Under`](crate::Spill::Under)'s directory and cap are not used either: SQLite
//!     picks the directory once for the whole process (`SQLITE_TMPDIR`, `TMPDIR`,
//!     `/var/tmp`, `/usr/tmp`, `/tmp`: the first writable one; only its deprecated,
//!     process-wide `temp_store_directory` could move them, for every connection at once),
//!     and it has no cap on temporary files: the statement's time limit bounds them.
//!   - On Linux the files are opened with `O_TMPFILE` (mode 0600, never named), so they
//!     vanish when the statement closes them or the process dies, with nothing to clean up;
//!     on a tmpfs they take RAM.
//!
//! **What one statement can make SQLite allocate, and what bounds it:**
//!
//! | allocation | bounded by |
//! |---|---|
//! | one string or blob: `zeroblob`, `randomblob`, `printf('%.*c', n, 'x')`, `replace`, `\|\|`, `hex`, a stored value read | the value limit |
//! | an aggregate's accumulator: `group_concat`/`string_agg`, `json_group_array`/`_object` | the value limit; the buffer grows by doubling and is copied, so the peak is a few times the limit (`json_group_array` of `hex` values: 134 MB) |
//! | a recursive CTE that doubles a string | the value limit; each step holds a few copies (114 MB) |
//! | the values a statement holds at once (result columns, function arguments, CASE branches) | each by the value limit; their number only by the columns, function-argument and SQL-length limits: `max()` of ten 30 MB `randomblob`s holds all ten (315 MB). No per-statement bound on the sum exists in SQLite; only a hard heap limit bounds it |
//! | sorts (`ORDER BY`, `GROUP BY` and window `ORDER BY` without an index) | the page cache, then temporary files (bounded by the time limit) |
//! | temporary b-trees (`DISTINCT`, `UNION`/`INTERSECT`/`EXCEPT`, `IN (subquery)`, materialized CTEs and views, a recursive CTE's queue, window partitions, `count(DISTINCT …)`, automatic indexes) | 2 MiB of cache each, then temporary files (bounded by the time limit) |
//! | `json_each`/`json_tree` over a value | the value limit times a small factor (a 2-million-element array: 70 MB) |
//! | the parse tree and compiled program | the SQL length, instruction, depth and compound limits (a 1.3 MB `IN` list: 38 MB) |
//! | the page cache | `cache_size` per connection (an in-memory database's data is held once besides, in its `memdb` buffer) |
//!
//! Time is bounded by the progress handler between virtual-machine steps, but not inside one
//! function call: `LIKE`/`GLOB` cost the pattern's length times the value's (a 5,001-byte
//! pattern over 1 MB took 14 s, hence 100 bytes), and `instr`/`replace` the needle's times the
//! value's, bounded only by the value limit (a 10 KB needle in 30 MB: 7 s).
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
//! a limit passed (above) is `ResourceLimit`; the rest `Engine`. Each keeps SQLite's message
//! and its extended result code as `code`.

mod authorizer;
mod catalog;
mod comments;
mod convert;
mod decimal;
mod dialect;
mod engine_verdict;
mod errors;
mod limit_errors;
mod limits;
mod load;
mod open;
mod query;
mod resources;
mod temporal;
mod types;

pub use dialect::{SqliteDialect, open_url};
pub use load::{create_table, load_batches};
pub use resources::limit_process_heap;

/// The rusqlite crate this adapter is built on, for the connection handed to
/// [`SqliteDialect::in_memory`]'s loader.
pub use rusqlite;
