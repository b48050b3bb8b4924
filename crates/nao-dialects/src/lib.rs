//! Database adapters for nao-rs: each engine behind a cargo feature, each returning Arrow
//! record batches through [`nao_core::Dialect`].
#![forbid(unsafe_code)]

pub mod conformance;
pub mod demo;
#[cfg(feature = "duckdb")]
pub mod duckdb;
#[cfg(feature = "mysql")]
pub mod mysql;
#[cfg(feature = "postgres")]
pub mod postgres;
#[cfg(feature = "sqlite")]
pub mod sqlite;
#[cfg(feature = "sqlite")]
pub mod story_store;
mod url;

pub use url::{OpenError, open};

pub use nao_core as core;
