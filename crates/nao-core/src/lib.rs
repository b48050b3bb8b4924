//! # nao-core
//!
//! The heart of nao-rs: the [`Dialect`] trait that database adapters implement, the typed
//! [`Tool`] trait and the [`ToolRegistry`] that turns tools into JSON Schemas for any model and
//! runs the model's calls, the [`ToolContext`] every call shares (databases, the
//! [`ResultStore`] of query results by id, settings, artifacts, audit), and the built-in SQL
//! tools: execute_sql, read_query_result, list_tables and describe_table.
//! The [`chart`] module validates chart specs against stored results and exports Vega-Lite
//! (display_chart; SVG rendering is in `nao-charts`).
//!
//! ```
//! use std::sync::Arc;
//! use nao_core::arrow::array::{Int64Array, RecordBatch, StringArray};
//! use nao_core::arrow::datatypes::{DataType, Field, Schema};
//! use nao_core::{Databases, ToolCall, ToolContext, tools};
//! use nao_dialects::sqlite::SqliteDialect;
//! use serde_json::json;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! // A database: here an embedded SQLite loaded from Arrow (DuckDB, PostgreSQL… work the same).
//! let schema = Arc::new(Schema::new(vec![
//!     Field::new("region", DataType::Utf8, false),
//!     Field::new("orders", DataType::Int64, false),
//! ]));
//! let sales = RecordBatch::try_new(schema, vec![
//!     Arc::new(StringArray::from(vec!["north", "south"])),
//!     Arc::new(Int64Array::from(vec![120, 80])),
//! ]).unwrap();
//! let shop = SqliteDialect::from_batches("shop", &[("sales", &[sales])]).unwrap();
//!
//! // The tools, and the context every call of a conversation shares.
//! let registry = tools::sql_tools();
//! let ctx = ToolContext::new(Databases::new().with(Arc::new(shop)));
//!
//! // A call as the model makes it: JSON arguments in, Markdown out.
//! let call = ToolCall::new("call_1", "execute_sql", json!({"sql_query": "SELECT * FROM sales ORDER BY orders DESC"}));
//! let result = registry.call(&call, &ctx).await;
//! assert!(!result.is_error, "{}", result.content);
//! assert!(result.content.contains("| 1 | north | 120 |"), "{}", result.content);
//!
//! // Failures are results the model can act on.
//! let call = ToolCall::new("call_2", "execute_sql", json!({"sql_query": "DROP TABLE sales"}));
//! let refused = registry.call(&call, &ctx).await;
//! assert!(refused.is_error && refused.content.contains("DROP TABLE statements are not allowed"));
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
//! ## Agents
//! This crate holds the contracts an agent is built from, not an agent: the [`ModelProvider`]
//! trait and its message types, the tools, the registry and the context. The agent loop (the
//! system prompt with the schema context, the run loop, conversations, a scripted provider for
//! tests) is the `nao-agent` crate, one client of these contracts among others (nao-mcp serves
//! the same tools to MCP clients).
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

mod admission;
mod arguments;
mod audit;
mod catalog;
pub mod chart;
mod collect;
mod context;
mod dialect;
mod error;
mod exec;
mod governed;
pub mod masking;
pub mod provider;
mod query_result;
mod registry;
mod result_store;
pub mod scratch;
pub mod story;
pub mod telemetry;
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
/// The `schemars` the [`Tool`] trait's bounds are written against: a tool's `Args` and `Output`
/// derive its `JsonSchema` (with `#[schemars(crate = "nao_core::schemars")]`, or a `schemars`
/// dependency of the same major version).
pub use schemars;

pub use admission::{
    AdmissionLimits, Admitted, AdmittedDialect, DEFAULT_MAX_WAIT, DEFAULT_MAX_WAITING,
};
pub use audit::{AuditRecord, AuditSink, MemoryAudit, NoAudit, PolicyAction, PolicyEvent};
pub use catalog::{ColumnInfo, TableFilter, TableInfo, TableKind, TableRef, TableSchema};
pub use chart::{AxisType, ChartSpec, ChartSpecError, ChartType};
pub use collect::{CollectedBatches, collect_capped};
pub use context::{Artifact, Databases, Settings, ToolContext};
pub use dialect::{Dialect, DialectExt, quote_table};
pub use error::{BoxError, DialectError, ToolError};
pub use exec::{
    BatchStream, DEFAULT_BATCH_SIZE, DEFAULT_MAX_BYTES, DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT,
    ExecOptions, RowsRead,
};
pub use governed::GovernedDialect;
pub use provider::{
    Completion, CompletionRequest, CompletionStream, FinishReason, Message, ModelProvider,
    ProviderError, StreamEvent, ToolChoice, Usage,
};
pub use query_result::{QueryId, QueryResult};
pub use registry::{Approver, ToolCall, ToolRegistry, ToolResult, ToolSpec};
pub use result_store::{DEFAULT_RESULT_BUDGET, ResultStore};
pub use story::{MemoryStoryStore, Story, StoryError, StoryStore, StoryVersion};
pub use tool::{RiskLevel, Tool};
