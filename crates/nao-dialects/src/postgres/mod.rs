//! The PostgreSQL adapter (feature `postgres`), through tokio-postgres: pooled connections,
//! every statement in a READ ONLY transaction, rows streamed from a portal into Arrow batches.
//!
//! ```no_run
//! use nao_dialects::core::{DialectExt, ExecOptions, guard};
//! use nao_dialects::postgres::PostgresDialect;
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! // Connect as a least-privilege role (see below), never as the owner of the data, and
//! // check the server's certificate (see TLS below).
//! let url = "postgres://nao_reader@db.internal:5432/shop\
//!            ?sslmode=verify-full&sslrootcert=/etc/nao/db-ca.pem";
//! let db = PostgresDialect::open_url("shop", url).await?;
//! let policy = guard::Policy::default();
//! let sql = guard::check("SELECT id, total FROM orders", guard::SqlDialect::Postgres, &policy)?;
//! let result = db.query(&sql, &ExecOptions::default()).await?;
//! println!("{} rows", result.row_count);
//! # Ok(())
//! # }
//! ```
//!
//! ## Opening
//! [`PostgresDialect::open_url`] (and [`crate::open`]) take `postgres://user[:password]@host
//! [:port]/db[?options]`, `postgresql://…` or a `key=value` connection string, parsed by
//! tokio-postgres (with libpq's TLS parameters, see [TLS](#tls), and the adapter's own
//! `allow_privileged` and `set_role`, see [Read-only, in layers](#read-only-in-layers));
//! [`PostgresDialect::connect`] takes a [`driver::Config`], and
//! [`PostgresDialect::connect_with_options`] an [`OpenOptions`](crate::OpenOptions) too. One
//! connection is made at once, so an unreachable server or a refused login is a
//! [`Connection`](nao_core::DialectError::Connection) error from opening (a URL without
//! `connect_timeout` gets 10 seconds), and a privileged role a
//! [`Permission`](nao_core::DialectError::Permission) error. The password never appears in `Debug`, `Display` or any
//! error: `Debug` shows the hosts, ports, database and user, and a malformed URL is reported by
//! what is wrong with it, not by its text.
//!
//! ## TLS
//! TLS runs on rustls (ring), with libpq's parameter names and meanings, so connection strings
//! written for `psql` work unchanged. In a URL or connection string:
//!
//! | `sslmode` | encrypted | server certificate checked |
//! |---|---|---|
//! | `disable` | no | — |
//! | `prefer` (the default) | when the server offers TLS | only if root certificates are available, as in `verify-ca` |
//! | `require` | yes, or no connection | only if root certificates are available, as in `verify-ca` |
//! | `verify-ca` | yes | chains to a trusted root; any host name |
//! | `verify-full` | yes | chains to a trusted root and names the host |
//!
//! The trusted roots are `sslrootcert=/path/ca.pem` (PEM, one or more certificates),
//! `sslrootcert=system` (the operating system's store; the mode then defaults to, and must
//! be, `verify-full`), or else `~/.postgresql/root.crt` when it exists. Without roots,
//! `verify-ca` and `verify-full` refuse to connect and say why. `sslcert` and `sslkey` (PEM,
//! the key unencrypted) present a client certificate. `sslpassword`, `sslcrl`, `sslcrldir`
//! and libpq's `allow` mode are refused rather than ignored. The handshake offers ALPN
//! `postgresql`, as libpq 17 does, so `sslnegotiation=direct` works with PostgreSQL 17. The files are read when the
//! adapter opens, so a missing or malformed one is an error then, naming the file.
//!
//! In code, [`PostgresDialect::connect_with_tls`] takes the same settings as a
//! [`TlsSettings`]; [`PostgresDialect::connect`] follows the driver `Config`'s own `sslmode`
//! (`disable`, `prefer`, `require`).
//!
//! Only `verify-full` stops a man in the middle; `require` without roots protects against
//! eavesdropping only. Channel binding is not offered: SCRAM authentication runs as
//! `SCRAM-SHA-256` (so `channel_binding=require` fails to connect).
//!
//! ## Read-only, in layers
//! The SQL guard only lets reads through ([`ReadOnlySql`](nao_core::guard::ReadOnlySql)); the
//! adapter and the server refuse writes again, in case the guard misses one:
//! 1. **A least-privilege role, checked at open**: `LOGIN`, `CONNECT` on the database, `USAGE`
//!    on the schemas it may read and `SELECT` on their tables, nothing else. This is the layer
//!    that holds when the others cannot: a READ ONLY transaction still lets a superuser
//!    `COPY … TO` a server file or program, call `lo_export`, or reach other servers through
//!    extensions such as dblink; a statement the guard misses runs with the role's rights.
//!    ```sql
//!    CREATE ROLE nao_reader LOGIN PASSWORD '…';
//!    GRANT CONNECT ON DATABASE shop TO nao_reader;
//!    GRANT USAGE ON SCHEMA sales TO nao_reader;
//!    GRANT SELECT ON ALL TABLES IN SCHEMA sales TO nao_reader;
//!    ALTER DEFAULT PRIVILEGES IN SCHEMA sales GRANT SELECT ON TABLES TO nao_reader;
//!    ```
//!    Opening **refuses** ([`Permission`](nao_core::DialectError::Permission)) a role that can
//!    do more than read, naming each privilege found and giving the SQL above. One catalogue
//!    query, as the role statements run as, finds: the attributes `SUPERUSER`, `BYPASSRLS`,
//!    `CREATEROLE` (before PostgreSQL 16 it may grant itself any non-superuser role),
//!    `CREATEDB` and `REPLICATION`; membership, direct or inherited, even `NOINHERIT`, in
//!    `pg_read_server_files`, `pg_write_server_files`, `pg_execute_server_program`,
//!    `pg_signal_backend`, `pg_signal_autovacuum_worker`, `pg_write_all_data`,
//!    `pg_read_all_data` (it reads `pg_authid`, password hashes included, whatever the
//!    grants), `pg_read_all_stats` (every session's statement text; `pg_monitor` carries it),
//!    `pg_maintain`, `pg_checkpoint` and `pg_create_subscription`; `CREATE` on the database or
//!    a schema; and on every table, view, sequence and foreign table outside the system
//!    schemas, ownership, `INSERT`, `UPDATE`, `REFERENCES` (on the table or any column),
//!    `DELETE`, `TRUNCATE`, `TRIGGER`, and a sequence's `USAGE` or `UPDATE` (`nextval`,
//!    `setval`). Ten tables are named, the rest counted. Not refused: `TEMPORARY` (granted to
//!    `PUBLIC` by default), `EXECUTE` on functions, `pg_read_all_settings`.
//!
//!    A host that means it opens anyway with `allow_privileged=true` in the URL or
//!    [`OpenOptions::allow_privileged`](crate::OpenOptions::allow_privileged) (a warning is
//!    logged); the guard and the layers below then stand alone.
//!
//!    **`set_role=<role>`** (or [`OpenOptions::set_role`](crate::OpenOptions::set_role)) runs
//!    `SET ROLE "<role>"` on every new connection, and the check runs as that role. It is
//!    what privilege checks see: tables, functions (`pg_read_file` and friends are granted
//!    to roles, not to the session), `COPY`, `lo_export`. It is **not** a boundary against
//!    the session itself: the login (`session_user`) keeps its rights, and a statement that
//!    ran `RESET ROLE`, `SET ROLE <login>`, `SET SESSION AUTHORIZATION`, `RESET ALL`,
//!    `DISCARD ALL` or `set_config('role', …)` would be the login again. Those are held off
//!    by the guard (it refuses `SET`/`RESET` and `set_config`) and by layer 4 (statements
//!    without rows never run); a `set_config` past both is undone by the statement's
//!    `ROLLBACK`, but runs with the login's rights until then. So prefer logging in as the
//!    read-only role; use `set_role` when the login cannot change, and know that a superuser
//!    login behind it is one guard bug away (a warning is logged when it is one). Role-level
//!    settings (`ALTER ROLE … SET`) of the target role do not apply after `SET ROLE`.
//! 2. **A READ ONLY transaction per statement**: `START TRANSACTION ISOLATION LEVEL REPEATABLE
//!    READ, READ ONLY`, then `SET LOCAL statement_timeout` and a `SELECT 1` that takes the
//!    snapshot (after which `SET TRANSACTION READ WRITE` is refused), then the statement, then
//!    always `ROLLBACK`, never `COMMIT`. Settings a statement changes end with the transaction;
//!    session-level advisory locks are released before a connection is pooled again. Each
//!    connection also starts with `default_transaction_read_only = on`.
//! 3. **The extended query protocol**: the statement is prepared on its own, so stacked
//!    statements (`COMMIT; DROP …`) fail at preparation with a syntax error (SQLSTATE 42601).
//! 4. **Only statements that return rows run**: a prepared statement without a row
//!    description (`SET`, `COPY`, `COMMIT`, `DO`, DDL, a write without `RETURNING`) is refused
//!    with [`Permission`](nao_core::DialectError::Permission) before it executes. This is what
//!    stops `COPY … TO` a file even on a superuser connection.
//! 5. **`standard_conforming_strings = on`** on every connection (and in every transaction), so
//!    the server reads string literals the way the guard's tokenizer does.
//!
//! ## Types
//! Column types come from the prepared statement, so an empty result keeps its schema. Values
//! arrive in PostgreSQL's binary format and are decoded by the adapter:
//!
//! | PostgreSQL | Arrow |
//! |---|---|
//! | `int2`, `int4`, `int8` | Int16, Int32, Int64 |
//! | `oid` | UInt32 |
//! | `float4`, `float8` | Float32, Float64 (NaN, ±Infinity and −0 kept) |
//! | `numeric(p, s)`, p ≤ 38 | Decimal128(p, s) |
//! | `numeric(p, s)`, 38 < p ≤ 76 | Decimal256(p, s) |
//! | `numeric` without precision (sums, averages, casts), or p > 76, or s > p | Utf8: the exact decimal text PostgreSQL prints (`1050.50`, `0.33333333333333333333`, `NaN`, `Infinity`), metadata `nao.postgres.type = numeric` |
//! | `text`, `varchar`, `char(n)` (padded), `name`, `citext`, enums, `unknown`, `void` | Utf8 |
//! | `bool` | Boolean |
//! | `bytea` | Binary |
//! | `date` | Date32 |
//! | `time` | Time64(µs) |
//! | `timestamp` | Timestamp(µs, none) |
//! | `timestamptz` | Timestamp(µs, "UTC") |
//! | `interval` | Interval(MonthDayNano) |
//! | `uuid` | Utf8, canonical lowercase `8-4-4-4-12` |
//! | `json`, `jsonb` | Utf8 (the JSON text), extension metadata `arrow.json` |
//! | one-dimensional arrays of the above | List of the element type |
//! | domains | their base type |
//! | anything else (`inet`, ranges, geometric types, `money`, `timetz`, composites, …) | Utf8: the server casts the column to text, metadata `nao.postgres.type` and `nao.note` |
//!
//! Unconstrained `numeric` is text because no Arrow decimal holds every value exactly (an
//! average has 16 or more fraction digits; a fixed scale would round or fail), and text keeps
//! every digit and NaN/±Infinity. For a number column, cast in SQL: `sum(x)::numeric(18, 2)`.
//!
//! Types without a mapping are read by re-preparing the statement as
//! `SELECT q."c0" AS "a", q."c1"::text AS "b" FROM (<statement>) AS q("c0", "c1")` (names
//! and positions kept). A statement that cannot be wrapped (it is not a query) fails with
//! [`Unsupported`](nao_core::DialectError::Unsupported), suggesting `::text`.
//!
//! Values no Arrow type holds are refused, never altered: infinite dates and timestamps,
//! timestamps past Arrow's range (after year 294247), NaN in a `numeric(p, s)` column, a value
//! with more fraction digits than its column's scale, intervals whose time part exceeds
//! Arrow's nanosecond range, multi-dimensional arrays. The error names the column and row and
//! says to cast.
//!
//! ## Streaming, caps, cancellation
//! **Connections.** The pool opens at most 8 server connections at once (running, idle or
//! closing; [`PostgresDialect::with_max_connections`] sets another cap): a statement holds
//! its connection from BEGIN to ROLLBACK, so 8 statements run at once and the rest wait in
//! line, each until its own deadline. A statement that waited past it never ran, and fails
//! with a [`Connection`](nao_core::DialectError::Connection) error (retryable) that says it
//! waited for a connection. Up to four idle connections are kept; broken ones, ones in an
//! unknown state, and ones that received a message over 1 MiB (the driver's read buffer grew
//! to that size and would keep it) are closed. The adapter opens the sockets itself, TLS
//! included, so that the driver reads through the wire guard below; it follows the hosts,
//! `hostaddr`, ports, `load_balance_hosts`, `connect_timeout`, `keepalives`, `sslmode` and
//! `sslnegotiation` of the connection settings, does not apply `keepalives_idle`,
//! `keepalives_interval`, `keepalives_retries` or `tcp_user_timeout`, and refuses
//! `target_session_attrs` other than `any`.
//!
//! **Rows, bounded by bytes.** Each statement runs in a task of its own. The statement is
//! bound to a portal and its rows are fetched a few at a time: one row first, doubling while
//! rows stay narrow, never more than fit an eighth of `max_bytes` at the widest row seen (a
//! statement whose columns all have a fixed width starts at `batch_size`). Rows become Arrow
//! batches of `batch_size` rows, or fewer when they reach an eighth of `max_bytes`, handed to
//! the crate's [statement pump](crate::pump) (a channel of capacity 1), which applies the caps,
//! the token and the time limit as for every adapter; the next batch starts once the reader
//! has taken the last,
//! so a slow reader pauses the server. Reading stops after `max_rows + 1` rows, or once the
//! batches sent pass `max_bytes` (a reader keeps nothing past it): the portal is suspended
//! there, so nothing keeps running on the server, and the ROLLBACK closes it. [`execute`]
//! returns once the first batch (or the end, or an error) is known.
//!
//! **One row may take at most half of `max_bytes`.** A longer one is an
//! [`Unsupported`](nao_core::DialectError::Unsupported) error naming the row, its size, its
//! largest column, and what to select instead (`substring(…)`, `length(…)`,
//! `cardinality(…)` for arrays), never a silently empty result. It never enters memory: the
//! driver reads each message whole before handing it over, so a guard on the connection's
//! bytes reads every message's length from its header and fails the connection at a row over
//! the limit (which is then dropped). Together these keep the adapter within about twice
//! `max_bytes` for any row width, one 1 GB value or a huge array included (see the
//! `server_memory` benchmark).
//!
//! **Time.** The time limit is enforced twice: by the server (`statement_timeout`, per round
//! trip), and by the adapter for the whole statement, waiting for a connection included. The
//! caller gets its [`Timeout`](nao_core::DialectError::Timeout) or
//! [`Cancelled`](nao_core::DialectError::Cancelled) at the deadline or the token, from the
//! pump itself; meanwhile the task sends a real cancel request (a separate connection, made
//! as the statement's was, with the backend's key), waits for the server to stop, and drops
//! the connection instead of pooling it (a late cancel request must not hit a later
//! statement), in the background.
//!
//! ## Errors
//! PostgreSQL's message (with its detail and hint) is kept and its SQLSTATE is the `code`:
//! `42P01`, `42703`, `42883`, `42704`, `3F000`, `42P02` are unknown objects; `42501` and
//! `25006` are permission errors; other `42xxx` are syntax errors; `57014` is a timeout or a
//! cancellation (whichever the adapter sent, or the server's statement timeout); `08xxx`,
//! `28xxx`, `3D000` and server shutdowns are connection errors; the rest are engine errors.
//!
//! ## Catalogue
//! [`list_tables`] and [`describe_table`] read `pg_catalog`: tables, partitioned tables, views,
//! materialized views and foreign tables outside the system schemas that the role may read
//! (schema `USAGE` and `SELECT` on some column), with comments (`obj_description`,
//! `col_description`), declared types (`format_type`), nullability and the planner's row
//! estimate. The schema filter is applied by the server, case-insensitively. A table named
//! without a schema resolves through the search path first, then `public`.
//!
//! [`execute`]: nao_core::Dialect::execute
//! [`list_tables`]: nao_core::Dialect::list_tables
//! [`describe_table`]: nao_core::Dialect::describe_table

mod attribute_check;
mod catalog;
mod convert;
mod dialect;
mod errors;
mod fetch;
mod numeric;
mod oversize;
mod pool;
mod privileges;
mod socket;
mod stream;
mod tls;
mod types;
mod watch;
mod wire;

pub use dialect::{PostgresDialect, open_url, open_url_with};
pub use tls::{TlsMode, TlsSettings, TrustRoots};

/// The tokio-postgres crate this adapter is built on, so hosts can build a
/// [`Config`](driver::Config) for [`PostgresDialect::connect`].
pub use ::tokio_postgres as driver;
