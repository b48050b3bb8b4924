//! The heart of nao-rs: the `Tool`, `Dialect` and `ModelProvider` traits, the tool registry, the
//! shared tool context and the agent loop.
//!
//! This crate is not written yet; its contents are the subject of the nao-core issue. It already
//! re-exports the two pure crates it is built on, so hosts can depend on one crate.
#![forbid(unsafe_code)]

pub use nao_guard as guard;
pub use nao_render as render;
