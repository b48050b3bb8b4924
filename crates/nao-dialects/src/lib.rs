//! Database adapters for nao-rs: each engine behind a cargo feature, each returning Arrow
//! record batches through [`nao_core::Dialect`], read-only at every layer the engine has.
//!
//! ```
//! use nao_dialects::core::{Dialect, DialectExt, ExecOptions, TableRef, guard};
//! use nao_dialects::demo::DemoScale;
//!
//! # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
//! # #[cfg(feature = "sqlite")] {
//! // The demo shop in a sealed in-memory SQLite database (no files, no network).
//! let shop = nao_dialects::sqlite::SqliteDialect::demo("shop", DemoScale::Small)?;
//! // Or any database from a URL: sqlite://, duckdb://, postgres://, mysql://.
//! let scratch = nao_dialects::open("scratch", "sqlite::memory:").await?;
//! assert_eq!(scratch.name(), "scratch");
//!
//! // Only statements the guard proved read-only run.
//! let policy = guard::Policy::default();
//! let sql = guard::check(
//!     "SELECT status, COUNT(*) AS orders FROM orders GROUP BY status ORDER BY status",
//!     shop.sql_dialect(),
//!     &policy,
//! )?;
//! let result = shop.query(&sql, &ExecOptions::default().with_max_rows(100)).await?;
//! assert_eq!(result.schema.field(1).name(), "orders");
//! assert!(result.row_count > 0);
//!
//! // Tables, columns and their comments, for the model.
//! let orders = shop.describe_table(&TableRef::parse("orders")).await?;
//! assert!(orders.comment.is_some());
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```
//!
//! # Adapters
//!
//! | feature | module | engine | opens |
//! |---|---|---|---|
//! | `sqlite` (default) | `sqlite` | SQLite, compiled in | `sqlite:///path.db`, `sqlite::memory:` |
//! | `duckdb` | `duckdb` | DuckDB, a prebuilt libduckdb | `duckdb:///path.duckdb`, `duckdb::memory:` |
//! | `duckdb-bundled` | `duckdb` | DuckDB compiled from source | as above |
//! | `postgres` | `postgres` | PostgreSQL and its wire protocol, TLS on rustls | `postgres://…` (libpq parameters, `sslmode` up to `verify-full`) |
//! | `mysql` | `mysql` | MySQL, MariaDB and their wire protocol | `mysql://…`, `mariadb://…` |
//! | `flight-sql` | `flight_sql` | Arrow Flight SQL servers (Sail, roapi, Dremio, …), TLS on rustls | `flightsql://host:port`, `flightsql+tls://…` |
//! | `spark-connect` | `spark_connect` | Spark Connect: Apache Spark, Databricks Connect, Sail; TLS on rustls | `sc://host:port/;session_id=…;token=…` |
//! | `clickhouse` | `clickhouse` | ClickHouse over its HTTP interface, TLS on rustls | `clickhouse://user:pass@host:8123/db`, `clickhouses://…` |
//! | `adbc` | `adbc` | any ADBC driver loaded at run time: PostgreSQL, SQLite, Flight SQL, Snowflake, BigQuery, … | `adbc:postgresql://…`, `adbc:sqlite:<path>`, `adbc:snowflake://…` (`adbc::AdbcConfig` for any driver) |
//!
//! [`open`] picks the adapter by the URL's scheme and says which feature to enable when it is
//! off. Each adapter module documents its read-only layers, its type mapping to Arrow, how it
//! streams, caps and stops statements, and how its errors map to
//! [`DialectError`](nao_core::DialectError) kinds.
//!
//! # Also here
//! - [`guide`]: writing an adapter of your own, step by step (the `Dialect` contract, the
//!   pump, types, errors, read-only duties, cancellation, the catalogue, the guard dialect, the
//!   conformance suite), with a worked example over Apache DataFusion in the repository's
//!   `examples/datafusion-adapter`.
//! - [`pump`]: the statement pump every adapter runs its statements through (row and byte
//!   caps, cancellation, time limit, a dropped stream), for adapters written outside this
//!   crate too.
//! - [`demo`]: a deterministic e-commerce database (six tables, about 300 000 rows, comments
//!   on tables and columns) generated as Arrow batches; `SqliteDialect::demo` and
//!   `DuckDbDialect::demo` load it.
//! - `conformance` (feature `conformance`, off by default): the checks every adapter passes
//!   against its real engine, for adapters written outside this crate too: `run` returns a
//!   report, `conformance_tests!` makes one test per check.
//! - `story_store` (with `sqlite`): a durable story store on SQLite.
#![forbid(unsafe_code)]
// docs.rs (nightly) marks each feature-gated item with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "adbc")]
pub mod adbc;
#[cfg(any(feature = "flight-sql", feature = "adbc"))]
mod attribute_calls;
#[cfg(any(
    feature = "flight-sql",
    feature = "spark-connect",
    feature = "clickhouse"
))]
mod catalog_bound;
#[cfg(feature = "clickhouse")]
pub mod clickhouse;
#[cfg(feature = "conformance")]
pub mod conformance;
#[cfg(any(feature = "mysql", feature = "clickhouse"))]
mod decimal_text;
pub mod demo;
#[cfg(feature = "duckdb")]
pub mod duckdb;
mod engine_limits;
#[cfg(feature = "flight-sql")]
pub mod flight_sql;
#[cfg(any(feature = "flight-sql", feature = "spark-connect"))]
mod grpc_errors;
pub mod guide;
#[cfg(feature = "mysql")]
pub mod mysql;
#[cfg(any(feature = "postgres", feature = "mysql"))]
mod oversize;
#[cfg(any(feature = "postgres", feature = "adbc"))]
mod pg_privileges;
#[cfg(feature = "postgres")]
pub mod postgres;
pub mod pump;
mod sizes;
#[cfg(feature = "spark-connect")]
pub mod spark_connect;
#[cfg(feature = "sqlite")]
pub mod sqlite;
#[cfg(feature = "sqlite")]
pub mod story_store;
mod url;
#[cfg(any(
    feature = "postgres",
    feature = "clickhouse",
    feature = "spark-connect"
))]
mod uuid_text;

pub use engine_limits::{EngineLimits, Isolation, Spill};
pub use url::{OpenError, OpenOptions, open, open_with};

pub use nao_core as core;
