#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
// docs.rs (nightly) marks each feature-gated item with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod prelude;

/// The agent loop: system prompt with the schema context, runs and their events, conversations.
pub use nao_agent as agent;
/// SVG charts and story pages (feature `charts`).
#[cfg(feature = "charts")]
pub use nao_charts as charts;
/// The contracts (`Dialect`, `Tool`, `ModelProvider`), the tools, the policy layer and the
/// result store.
pub use nao_core as core;
/// Database adapters, one feature each, opened from URLs with [`dialects::open`].
pub use nao_dialects as dialects;
/// The SQL guard: proves a statement read-only under a policy, or says why not.
pub use nao_guard as guard;
/// The MCP server over the tools, as a library (feature `mcp`).
#[cfg(feature = "mcp")]
pub use nao_mcp as mcp;
/// Model providers: OpenAI-compatible Chat Completions and Anthropic Messages.
pub use nao_providers as providers;
/// Markdown for the model from Arrow.
pub use nao_render as render;
/// JSON for tool arguments and results (the `json!` macro is in the [`prelude`]).
pub use serde_json;
