//! MySQL and MariaDB (feature `mysql`), through mysql_async: pooled connections, read-only at
//! every layer, rows streamed into Arrow batches.
//!
//! ```no_run
//! use nao_dialects::core::{DialectExt, ExecOptions, guard};
//! use nao_dialects::mysql::MySqlDialect;
//!
//! # async fn demo() -> Result<(), nao_dialects::core::DialectError> {
//! // Connect as a user that may only SELECT (see "Read-only, in layers").
//! let db = MySqlDialect::connect("shop", "mysql://nao_ro:secret@db.internal:3306/shop").await?;
//! let policy = guard::Policy::default();
//! let sql = guard::check("SELECT id, total FROM orders", db.sql_dialect(), &policy)
//!     .expect("a read");
//! let result = db.query(&sql, &ExecOptions::default()).await?;
//! println!("{} rows", result.row_count);
//! # Ok(()) }
//! # use nao_dialects::core::Dialect;
//! ```
//!
//! ## Opening
//! [`MySqlDialect::connect`] (and [`open_url`], used by [`crate::open`]) takes
//! `mysql://user:password@host:port/database?param=value`; `mariadb://` is the same. One
//! connection reads `SELECT VERSION()` to tell MySQL from MariaDB ([`Flavour`]) and checks the
//! user's privileges (see [Read-only, in layers](#read-only-in-layers)), then the pool is
//! built; a server that cannot be reached is a
//! [`DialectError::Connection`](nao_core::DialectError::Connection) at once, a privileged user
//! a [`DialectError::Permission`](nao_core::DialectError::Permission). The adapter's own URL
//! parameters are `allow_privileged=true|false` and `set_role=<role>` (or an
//! [`OpenOptions`](crate::OpenOptions) through [`MySqlDialect::connect_url_with`] or
//! [`MySqlDialect::connect_with_options`]); the others are mysql_async's: `pool_min`,
//! `pool_max` (connections, default 10 and 100), `inactive_connection_ttl`, `tcp_keepalive`, `socket`, `compression`, `stmt_cache_size`, ….
//! Neither `Debug` nor any error repeats the password: messages name `user@host:port/database`.
//!
//! ## TLS
//! TLS uses rustls (ring). `require_ssl=true` turns it on, verifying the server's certificate
//! against the built-in web PKI roots and its host name; `verify_ca=false` accepts any
//! certificate, `verify_identity=false` skips the host-name check, `built_in_roots=false`
//! trusts no built-in roots. `ssl_ca=/path/ca.pem` (the MySQL client's `--ssl-ca`) requires
//! TLS and trusts the certificates in that PEM file instead of the built-in roots (a private
//! CA, a cloud provider's bundle); `ssl_cert` and `ssl_key` (PEM, together) present a client
//! certificate. The files are read when the adapter opens, so a missing one is a
//! [`DialectError::Connection`](nao_core::DialectError::Connection) naming it. Without any of
//! these the connection is not encrypted, and a server that does not offer TLS to a URL that
//! requires it is refused, never spoken to in clear text. Options built in code
//! (`mysql_async::SslOpts`) go through [`MySqlDialect::connect_with`] ([`driver`]).
//!
//! ## Read-only, in layers
//! The SQL guard only lets reads through ([`ReadOnlySql`](nao_core::guard::ReadOnlySql)); the
//! server enforces it again, in case the guard misses one or a host uses its escape hatch:
//! 1. **A least-privilege user, checked at open** (the only complete layer): connect as a user
//!    with `SELECT` only, on the schemas the agent may read
//!    (`CREATE USER 'nao_reader'@'%' IDENTIFIED BY '…'; GRANT SELECT ON shop.* TO
//!    'nao_reader'@'%'`), without `FILE`, `PROCESS`, `SUPER` or any grant option.
//!
//!    Opening **refuses** ([`Permission`](nao_core::DialectError::Permission)) a user that can
//!    do more, naming each privilege and where it applies (`FILE on *.*`, `INSERT on
//!    `` `shop`.* ``, `UPDATE (columns) on `` `shop`.`orders` ``, `GRANT OPTION on …`, and
//!    `(through role …)` for a role's) and giving the SQL above. The check reads `SHOW GRANTS`
//!    for the user and for every role it may activate (granted, active or not, nested
//!    included; MariaDB's information schema shows none of a role's privileges, nor `PROXY`),
//!    and allows only `SELECT`, `SHOW VIEW`, `SHOW DATABASES` and `USAGE`: everything else
//!    refuses, including privileges this adapter has never heard of and grant lines it cannot
//!    read (fail closed) — `SUPER`, `FILE`, `PROCESS`, `SHUTDOWN`, `RELOAD`, every write and
//!    DDL privilege at any level, `EXECUTE`, `LOCK TABLES`, `CREATE TEMPORARY TABLES`,
//!    MariaDB 10.11's split privileges (`BINLOG ADMIN`, `CONNECTION ADMIN`,
//!    `READ_ONLY ADMIN`, `SET USER`, …) and MySQL's dynamic ones. A host that means it opens
//!    anyway with `allow_privileged=true` in the URL or
//!    [`OpenOptions::allow_privileged`](crate::OpenOptions::allow_privileged) (a warning is
//!    logged).
//!
//!    **`set_role=<role>`** (or [`OpenOptions::set_role`](crate::OpenOptions::set_role)) runs
//!    `` SET ROLE `<role>` `` on every connection, before the check. On MySQL and MariaDB a
//!    role *adds* its privileges to the user's own: it is the way to read through a role
//!    (a user with only `USAGE` whose `SELECT` comes from the role; leave the database out of
//!    the URL, since it is chosen at login, before the role), never a way to make a
//!    privileged user read-only. A root login with `set_role` is still refused.
//!
//!    The layers below do not stop
//!    everything, because some statements are not transactional at all. Measured on MariaDB
//!    10.11 as a privileged user (see this adapter's tests): the read-only transaction plus the
//!    read-only session refuse INSERT, UPDATE, DELETE, CREATE/DROP TABLE, temporary tables,
//!    and even the DDL that commits implicitly (`CREATE`/`DROP DATABASE`, `CREATE USER`,
//!    `GRANT`: the session's READ ONLY default applies to the transaction they start), but
//!    `SET GLOBAL …`, `FLUSH …`, `KILL …` and `SELECT … INTO OUTFILE` (which writes a file on
//!    the server) pass. MySQL lets implicitly committing DDL through a READ ONLY transaction.
//!    Only privileges stop all of these.
//! 2. **`START TRANSACTION READ ONLY`** before every statement, and `SET SESSION TRANSACTION
//!    READ ONLY` for the session (so a transaction started by an implicit commit is read-only
//!    too), ended by `ROLLBACK`, never `COMMIT`: writes fail with error 1792, and
//!    `SET TRANSACTION READ WRITE` inside the transaction fails with 1568.
//! 3. **Prepared statements**: the model's SQL runs through the binary protocol, which
//!    prepares exactly one statement: `COMMIT; INSERT …` stacking fails to prepare (a syntax
//!    error), so nothing can end the read-only transaction and then write in the same call.
//! 4. **A known `sql_mode`** on every session and again before every statement:
//!    `STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION`. It has neither
//!    `ANSI_QUOTES` nor `NO_BACKSLASH_ESCAPES`, because the guard's MySQL tokenizer reads
//!    `"…"` as a string, backticks as identifiers and `\` as an escape inside strings. A server
//!    whose default mode differed would read a string literal's end elsewhere than the guard
//!    did, and could run a statement the guard never saw. This is a security property, not a
//!    convenience. The session also gets `SET NAMES utf8mb4` and `time_zone = '+00:00'`.
//! 5. **A statement time limit on the server**: MariaDB's `max_statement_time` (seconds) or
//!    MySQL's `max_execution_time` (milliseconds, SELECT only), chosen by [`Flavour`], equal
//!    to [`ExecOptions::timeout`](nao_core::ExecOptions::timeout), so a statement stops even if
//!    this process dies. Recursive CTEs are allowed to recurse until that limit
//!    (`max_recursive_iterations` / `cte_max_recursion_depth` raised to 2³²−1): MariaDB would
//!    otherwise silently cut them at 1000 iterations, returning a wrong result.
//!
//! Pooled connections are reset (`COM_RESET_CONNECTION`) when they return to the pool, and the
//! session setup runs again.
//!
//! ## Types
//! Each result column's type, flags and character set decide its Arrow type:
//!
//! | MySQL / MariaDB | Arrow |
//! |---|---|
//! | `TINYINT`, `SMALLINT`, `MEDIUMINT`, `INT`, `BIGINT` | Int8, Int16, Int32, Int32, Int64 |
//! | the same `UNSIGNED` | UInt8, UInt16, UInt32, UInt32, UInt64 |
//! | `DECIMAL(p,s)`, p ≤ 38 | Decimal128(p, s), exact (parsed from the server's text) |
//! | `DECIMAL(p,s)`, p > 38 (MySQL allows 65) | Decimal256(p, s), exact |
//! | `FLOAT`, `DOUBLE` | Float32, Float64 |
//! | `DATE` | Date32 |
//! | `DATETIME(n)` | Timestamp(µs, no zone) |
//! | `TIMESTAMP(n)` | Timestamp(µs, "UTC") (the session's time zone is `+00:00`) |
//! | `TIME(n)` | Duration(µs): TIME is a signed duration up to ±838:59:59, not a time of day |
//! | `YEAR` | Int16 |
//! | `BIT(n)` | UInt64 (the bits as an unsigned number) |
//! | `CHAR`, `VARCHAR`, `TEXT` types, `ENUM`, `SET` | Utf8 |
//! | `JSON` | Utf8 (the JSON text; on MariaDB JSON is `LONGTEXT`) |
//! | `BINARY`, `VARBINARY`, `BLOB` types | Binary |
//! | `GEOMETRY` types | Binary: MySQL's internal form, a 4-byte little-endian SRID then WKB |
//! | `NULL` literal, anything else | Utf8 |
//!
//! Every field is nullable. Zero dates (`'0000-00-00'`) and other impossible dates (which
//! only a permissive `sql_mode` lets in) read as NULL. Text must be valid UTF-8 (the session
//! character set is utf8mb4, so the server converts); a value that is not fails the stream
//! with [`DialectError::Unsupported`](nao_core::DialectError::Unsupported) naming the column
//! and row.
//!
//! ## Streaming, caps, KILL QUERY
//! Each statement gets a pooled connection and a task of its own. `execute` returns once the
//! first batch is built or the result ended (SQL errors, the server's own errors before the
//! first row, and errors in the first batch's rows come back from `execute`; an empty result
//! keeps its schema). Rows are read as the server sends them and become batches of
//! `batch_size` rows, or fewer when they reach an eighth of `max_bytes`, handed to the crate's
//! [statement pump](crate::pump) (a channel holding one batch); the next batch starts
//! once the reader has taken the last, so a slow reader pauses the reading, and TCP
//! back-pressure the server. Reading stops one row past `max_rows`, or once the batches sent
//! pass `max_bytes` (a reader keeps nothing past it). When it stops early (a cap, a dropped
//! stream, the cancellation token, the time limit; the pump gives the caller its error at
//! once) the adapter sends `KILL QUERY <connection id>` from another pooled connection, reads
//! what the server still sends (at most 5 s), and rolls back; a connection whose state is then unknown, or that read a row over 1 MiB (the
//! driver's buffers grew to its size), is closed rather than reused.
//! Cancellation is [`DialectError::Cancelled`](nao_core::DialectError::Cancelled), the time
//! limit (ours or the server's) [`DialectError::Timeout`](nao_core::DialectError::Timeout).
//!
//! One row may take at most half of `max_bytes`: a longer one is an
//! [`Unsupported`](nao_core::DialectError::Unsupported) error naming the row, its size, its
//! largest column and what to select instead (`SUBSTRING(…)`, `LENGTH(…)`), never a silently
//! empty result. This keeps the adapter within about twice `max_bytes` for any row width (see
//! the `server_memory` benchmark). The driver reads a whole row before handing it over, so
//! what bounds one row in memory is the connection's `max_allowed_packet`: the server's
//! (16 MiB by default on MariaDB 10.11, 64 MiB on MySQL 8), unless the URL sets
//! `max_allowed_packet=<bytes>`, which makes the driver refuse a longer row (spread over
//! several packets or not) before it has read it whole. A value over the server's own
//! `max_allowed_packet` never leaves the server: MariaDB returns NULL for it, with a warning.
//!
//! ## Errors
//! The server's numeric code is kept as `code` and picks the kind: 1064 (also several
//! statements in one call) and 1295 are `Syntax`; 1146, 1054, 1305, 1049 are `UnknownObject`;
//! 1142, 1143, 1044, 1045, 1227 (privileges) and 1792, 1568 (the read-only transaction) are
//! `Permission`; 3024 and 1969 (the server's time limit) are `Timeout`; 1317 (interrupted)
//! is `Cancelled` or `Timeout`, whichever stopped it; 2002, 2003, 2006, 2013 and I/O failures
//! are `Connection`; the rest `Engine`.

mod catalog;
mod convert;
mod dialect;
mod errors;
mod open;
mod oversize;
mod privileges;
mod stream;
mod tls;
mod types;

pub use dialect::{MySqlDialect, open_url, open_url_with};
pub use open::Flavour;

/// The mysql_async crate this adapter is built on, for options built in code
/// ([`MySqlDialect::connect_with`]).
pub use ::mysql_async as driver;
