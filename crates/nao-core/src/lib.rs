//! # nao-core
//!
//! The heart of nao-rs: the [`Dialect`] trait that database adapters implement, the typed
//! [`Tool`] trait and the [`ToolRegistry`] that turns tools into JSON Schemas for any model and
//! runs the model's calls, the [`ToolContext`] every call shares (databases, the
//! [`ResultStore`] of query results by id, settings, artifacts, audit), and the built-in SQL
//! tools: execute_sql, read_query_result, list_tables and describe_table.
//!
//! ```
//! use nao_core::{Databases, ToolCall, ToolContext, tools};
//! use serde_json::json;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let registry = tools::sql_tools();
//! let names: Vec<String> = registry.specs().into_iter().map(|s| s.name).collect();
//! assert_eq!(names, ["describe_table", "execute_sql", "list_tables", "read_query_result"]);
//!
//! // Every failure comes back as a result the model can act on.
//! let ctx = ToolContext::new(Databases::new());
//! let call = ToolCall::new("call_1", "read_query_result", json!({"query_id": "q_x", "limit": 5000}));
//! let result = registry.call(&call, &ctx).await;
//! assert!(result.is_error);
//! assert!(result.content.contains("limit: must be at most 200"), "{}", result.content);
//! # });
//! ```
//!
//! ## Usage
//! - Implement [`Dialect`] for a database (or take one from `nao-dialects`); [`DialectExt`]
//!   adds capped collection and row sampling to every adapter.
//! - Register tools in a [`ToolRegistry`] ([`tools::sql_tools`] gives the built-ins), hand its
//!   [`ToolRegistry::specs`] to the model, and pass each [`ToolCall`] to [`ToolRegistry::call`].
//! - Share one [`ToolContext`] (and so one [`ResultStore`]) across a conversation, so the
//!   model can page any result it was given a query id for.
//!
//! ## Untrusted input
//! Model arguments are validated against the tool's schema (types, required fields, unknown
//! fields, ranges) before the tool runs; SQL goes through `nao_guard::check`; results are
//! bounded by [`Settings`] (rows, bytes, time); every failure is a [`ToolResult`] with
//! `is_error` set and a message that says what to do. Nothing here panics on model input.
//!
//! ## Performance
//! Results stay in the Arrow batches the driver produced; pages are zero-copy slices; the
//! renderer formats only the rows it shows.
#![forbid(unsafe_code)]

mod arguments;
mod audit;
mod catalog;
mod collect;
mod context;
mod dialect;
mod error;
mod exec;
mod query_result;
mod registry;
mod result_store;
mod tool;
pub mod tools;

/// The Arrow crates nao-rs is built on, re-exported so hosts use the same version.
pub mod arrow {
    pub use arrow_array as array;
    pub use arrow_ipc as ipc;
    pub use arrow_schema as datatypes;
}

pub use nao_guard as guard;
pub use nao_render as render;

pub use audit::{AuditRecord, AuditSink, MemoryAudit, NoAudit};
pub use catalog::{ColumnInfo, TableFilter, TableInfo, TableKind, TableRef, TableSchema};
pub use collect::{CollectedBatches, collect_capped};
pub use context::{Artifact, Databases, Settings, ToolContext};
pub use dialect::{Dialect, DialectExt, quote_table};
pub use error::{BoxError, DialectError, ToolError};
pub use exec::{
    BatchStream, DEFAULT_BATCH_SIZE, DEFAULT_MAX_BYTES, DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT,
    ExecOptions,
};
pub use query_result::{QueryId, QueryResult};
pub use registry::{Approver, ToolCall, ToolRegistry, ToolResult, ToolSpec};
pub use result_store::{DEFAULT_RESULT_BUDGET, ResultStore};
pub use tool::{RiskLevel, Tool};
