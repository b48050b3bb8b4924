//! # nao
//!
//! Give LLM data agents their hands: prove SQL read-only, run it on a real database, and show
//! the model a result it can trust. This facade re-exports the crates of the workspace.
//!
//! ```
//! use nao::guard::{check, Policy, SqlDialect};
//!
//! let sql = check("SELECT name FROM customers", SqlDialect::Sqlite, &Policy::default()).unwrap();
//! assert_eq!(sql.tables()[0].to_string(), "customers");
//! assert!(check("DELETE FROM customers", SqlDialect::Sqlite, &Policy::default()).is_err());
//! ```
#![forbid(unsafe_code)]

pub use nao_agent as agent;
pub use nao_core as core;
pub use nao_dialects as dialects;
pub use nao_guard as guard;
pub use nao_providers as providers;
pub use nao_render as render;

/// The README's example, compiled and run as a doc test so the README stays true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
