//! Database adapters for nao-rs: each engine behind a cargo feature, each returning Arrow
//! record batches through `nao_core`'s `Dialect` trait.
//!
//! This crate is not written yet; the adapters are the subject of the nao-core and
//! PostgreSQL/MySQL issues.

pub use nao_core as core;
