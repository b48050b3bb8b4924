//! A nao-rs adapter over [Apache DataFusion](https://datafusion.apache.org), the Rust-native query
//! engine: the worked example of the custom adapter guide (`nao_dialects::guide`), written
//! against nao's public API only (`nao_dialects::core`, which is nao-core, and
//! `nao_dialects::pump`), as a crate of your own would be.
//!
//! ```
//! # #[cfg(feature = "datafusion")] {
//! use datafusion_adapter::DataFusionDialect;
//! use nao_dialects::core::{Dialect, DialectExt, ExecOptions};
//! use nao_dialects::demo::DemoScale;
//!
//! # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
//! // Register tables (Arrow batches here; Parquet and CSV files too), then seal: the dialect
//! // registers nothing more, and refuses DDL, DML and statements with side effects.
//! let shop = DataFusionDialect::builder("shop")?
//!     .demo_shop(DemoScale::Small)?
//!     .build();
//! let sql = shop.prepare(
//!     "SELECT status, count(*) AS orders FROM orders GROUP BY status ORDER BY status",
//!     Some(100),
//! )?;
//! let result = shop.query(&sql, &ExecOptions::default()).await?;
//! assert!(result.row_count > 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! # }
//! ```
//!
//! # What the adapter does, and where
//! - [`DataFusionDialectBuilder`] (`builder.rs`): one `SessionContext` per database, with the
//!   memory, threads and spill space of an [`EngineLimits`](nao_dialects::EngineLimits);
//!   tables from Arrow batches, Parquet and CSV files, with comments on tables and columns
//!   (DataFusion's catalogue keeps none).
//! - [`DataFusionDialect`] (`dialect.rs`): the [`Dialect`](nao_dialects::core::Dialect)
//!   contract. Gate 2 is DataFusion's `SQLOptions`: DDL (`CREATE`, `DROP`, `CREATE EXTERNAL
//!   TABLE` over any file), DML (`INSERT`, `COPY … TO`) and statements (`SET`, transactions,
//!   `PREPARE`) are refused at planning, before anything runs. The guard reads statements as
//!   [`SqlDialect::Generic`](nao_dialects::core::guard::SqlDialect::Generic), the dialect
//!   DataFusion's own parser uses by default. Statements run through the shared statement pump
//!   ([`nao_dialects::pump`]): a task plans the statement, streams DataFusion's
//!   `SendableRecordBatchStream` into the pump, and drops it when the caller cancels, the time
//!   limit passes, the caps are reached or the reader goes away; dropping the stream is how
//!   DataFusion cancels (its partitions' tasks are aborted). That task and DataFusion's own run
//!   on a tokio runtime of the adapter's (`builder.rs`, `EngineRuntime`), so a statement that
//!   computes for seconds without yielding never holds the host's runtime;
//!   [`DataFusionDialect::running_tasks`] counts what still runs there.
//! - `catalog.rs`: `list_tables` and `describe_table` over DataFusion's catalogues, with the
//!   registered comments.
//! - `errors.rs`: DataFusion's errors to [`DialectError`](nao_dialects::core::DialectError)
//!   kinds (DataFusion has no error codes; the code is the kind of its error).
//!
//! # Types
//! DataFusion computes in Arrow, so values pass through as they are: exact decimals stay
//! `Decimal128`/`Decimal256`, timestamps keep their zone, lists and structs stay nested. Text
//! read from Parquet comes back as `Utf8View` (DataFusion's default), which nao renders as text.
//!
//! # Features
//! `datafusion` compiles the adapter. It is off by default only so that the nao-rs workspace's
//! `cargo test --workspace` does not compile DataFusion (about 5 minutes to build and 5 more to
//! lint, cold on two cores); a crate of your own depends on datafusion directly.
#![forbid(unsafe_code)]
// Without the `datafusion` feature the crate is empty, and the links above have no target.
#![cfg_attr(not(feature = "datafusion"), allow(rustdoc::broken_intra_doc_links))]

#[cfg(feature = "datafusion")]
mod builder;
#[cfg(feature = "datafusion")]
mod catalog;
#[cfg(feature = "datafusion")]
mod dialect;
#[cfg(feature = "datafusion")]
mod errors;

#[cfg(feature = "datafusion")]
pub use builder::{BuildError, DataFusionDialectBuilder};
/// The DataFusion this adapter is built on, for hosts that register their own tables.
#[cfg(feature = "datafusion")]
pub use datafusion;
#[cfg(feature = "datafusion")]
pub use dialect::DataFusionDialect;
#[cfg(feature = "datafusion")]
pub use errors::classify;
