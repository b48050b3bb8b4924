//! ClickHouse (feature `clickhouse`), over its HTTP interface with reqwest (rustls on ring).
//!
//! ```no_run
//! # async fn run() -> Result<(), nao_core::DialectError> {
//! use nao_dialects::clickhouse::ClickHouseDialect;
//!
//! // A read-only user on the server's HTTP port; `clickhouses://` speaks HTTPS.
//! let events = ClickHouseDialect::open_url("events", "clickhouse://reader:secret@127.0.0.1:8123/default").await?;
//! println!("ClickHouse {} in {}", events.server_version(), events.time_zone());
//! # Ok(()) }
//! ```
//!
//! # URLs and credentials
//! [`ClickHouseConfig::from_url`] reads `clickhouse://user:password@host:port/database`
//! (HTTP, port 8123 by default) and `clickhouses://…` (HTTPS, port 8443, the system's roots,
//! or a private CA with `?tls_ca=/path/ca.pem`).
//! The credentials go in an `Authorization: Basic` header (never in the URL of a request);
//! no error, log line or `Debug` output repeats the password.
//!
//! # Statements
//! A statement is one `POST` with the SQL as its body and the adapter's settings in the query
//! string: `readonly=2`, `max_execution_time` (the statement's timeout plus two seconds: the
//! pump's own deadline comes first, the server's stops a query the adapter lost),
//! `max_result_rows` (the row cap plus one) with `result_overflow_mode=break`,
//! `max_result_bytes` (a backstop at four times the byte cap plus 64 MiB: ClickHouse counts
//! its own column sizes, the pump cuts at Arrow's), and a `query_id` of ours
//! (`nao-<random>-<n>`). The answer is read as `TabSeparatedWithNamesAndTypes` (the
//! `default_format` parameter), chunk by chunk: each line is parsed into Arrow builders and
//! handed to the shared [statement pump](crate::pump) in batches of `batch_size` rows or a
//! quarter of the byte cap, whichever comes first, so no result is held whole.
//!
//! TabSeparated over JSONCompact: it streams row by row with a bounded line, its escapes are
//! few and exact (`\t \n \\ \0 \'` …, undone as the server wrote them), String values may be
//! any bytes (JSON would have to be valid UTF-8), and 64-bit integers and decimals come as
//! their exact digits. ClickHouse 18.16 (Debian's) has no Arrow or Parquet output.
//!
//! Servers that write `ArrowStream` (their `system.formats` lists it: 20.x and later) are read
//! in it instead, unless the user's profile forbids settings: first `DESCRIBE (query)` for the
//! columns' ClickHouse types, then the statement with `default_format=ArrowStream`,
//! `max_block_size` = the batch size, strings as Utf8, no dictionaries, no compression; the
//! Arrow IPC stream is decoded as it arrives (arrow-ipc's `StreamDecoder`, each block at most
//! the byte cap), and the columns ArrowStream writes as bare numbers or bytes (`DateTime`,
//! `Enum8/16`, `IPv4`, `UUID`, `IPv6`, top-level or in `Nullable`) are given the types of the
//! table below, so both paths give the same Arrow types. A statement `DESCRIBE` cannot take
//! runs on the text path, which reports the server's error. This path is tested against
//! answers of ClickHouse 26.9 (chDB) recorded by `scripts/clickhouse/record-arrow-fixtures.py`.
//!
//! Stopping (the caps, the caller's cancellation, the timeout, a dropped stream): the
//! response is dropped, which closes its connection, and `KILL QUERY WHERE query_id = …
//! SYNC` is sent on a request of its own, because a server whose client left goes on
//! computing until it next writes. The stream ends (at a cap) only after that, so its end
//! means the query is done; the live tests check `system.processes`.
//!
//! # Types
//! | ClickHouse | Arrow |
//! |---|---|
//! | `Int8`…`Int64`, `UInt8`…`UInt64`, `Float32/64`, `Bool` | the same |
//! | `Decimal(P, S)`, `Decimal32/64/128(S)` | `Decimal128(P, S)`, exact |
//! | `String` | `Utf8` (bytes that are not UTF-8 become U+FFFD) |
//! | `FixedString(N)` | `FixedSizeBinary(N)` |
//! | `Date`, `Date32` | `Date32` |
//! | `DateTime`, `DateTime('zone')` | `Timestamp(Second, zone)` (the server's zone when the column names none) |
//! | `DateTime64(P, 'zone')` | `Timestamp(ms/µs/ns, zone)` |
//! | `Nullable(T)` | T, nullable |
//! | `LowCardinality(T)` | T |
//! | `Array(T)`, `Tuple(…)`, `Map(K, V)` | `List`, `Struct` (named elements keep their names, else `1`, `2`, …), `Map` |
//! | `Enum8/16`, `UUID`, `IPv4`, `IPv6` | `Utf8` (the names, the canonical text) |
//! | `Nothing` | `Null` |
//! | anything else (`AggregateFunction`, `Int128`, …) | `Utf8`, as the server writes it |
//!
//! `DateTime` values come as local times of their zone and are turned into instants with
//! chrono-tz; the hour repeated when clocks go back is read as its earlier instant (the text
//! cannot say which). Old servers write day 0 as `0000-00-00`: it is read as 1970-01-01.
//!
//! # Catalogue
//! `list_tables` reads `system.tables` of the filter's database (the schema; else the URL's),
//! temporary tables left out, with the pattern applied as everywhere; the engine names the
//! kind (`View`, `MaterializedView`; `Distributed`, `Merge`, `Dictionary` and the external
//! engines are "other"). `describe_table` reads `system.columns` in the table's column order:
//! the ClickHouse type as written (`Nullable(String)`, `DateTime('Asia/Tokyo')`), nullable
//! exactly when it is `Nullable(…)`, and the column's comment. Table comments come from
//! `system.tables.comment` on servers that have it (21.x and later; 18.16 has none).
//!
//! # Errors
//! The code of `Code: N` in the body (and the `X-ClickHouse-Exception-Code` header of servers
//! since 19.x) picks the [`DialectError`](nao_core::DialectError) kind, and is kept as its
//! code: 62 and planning errors (42, 43, 44, 53, 184, 215) are syntax, 60, 47, 16, 81, 46, 63
//! unknown objects, 164 (read-only), 497, 291, 452 permission, 192–195 and 516 refused
//! credentials (a connection error), 159 timeout, 241, 158, 307, 396, 160, 202 resource limits;
//! others are engine errors. An error the server writes after rows (its status went out as 200
//! before the query failed) is read from the body's tail.
//!
//! # Read-only
//! Three layers: the guard (only [`ReadOnlySql`](nao_core::guard::ReadOnlySql) reaches the
//! server, with ClickHouse's denied functions, `file`, `url`, `remote`, `s3`, …); `readonly=2`
//! on every statement (reads and settings only); and the user, best given a read-only profile
//! (`<readonly>2</readonly>` or `1`), which the server then enforces for every statement
//! whatever it is sent: the adapter reads the user's `readonly` at connect and then stops
//! sending `readonly` (which such a server refuses); with `readonly=1`, which forbids every
//! setting, it sends no settings at all, and the caps and the timeout are the pump's alone
//! (`KILL QUERY` still stops its statements; such a user may call no table function, not even
//! `numbers()`, so `readonly=2` suits a model better).
//!
//! # Untrusted input
//! A result line is at most the byte cap long (1 MiB at least), nested values and type names
//! nest at most 64 and 32 deep, error bodies are read up to 64 KiB and catalogue answers up
//! to 32 MiB; a malformed value, header or body is an error naming the column, never a panic.

mod arrow_stream;
mod batch;
mod catalog;
mod client;
mod config;
mod dialect;
mod errors;
mod escape;
mod lines;
mod literal;
mod stream;
mod types;
mod values;

pub use config::{ClickHouseConfig, ClickHouseUrlError, DEFAULT_CONNECT_TIMEOUT};
pub use dialect::ClickHouseDialect;
