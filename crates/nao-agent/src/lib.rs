//! # nao-agent
//!
//! The agent loop of nao-rs: a model, the tools and the databases, from a question to an
//! answer. An [`Agent`] is one client of `nao-core`'s contracts: it drives any
//! [`ModelProvider`](nao_core::ModelProvider) over a [`ToolRegistry`](nao_core::ToolRegistry)
//! and the databases of a [`ToolContext`](nao_core::ToolContext), and nothing in `nao-core`
//! depends on it.
//!
//! ```
//! use std::sync::Arc;
//! use nao_agent::{Agent, AgentEvent, Conversation, ScriptedProvider, StopReason};
//! use nao_core::{Completion, FinishReason, Message};
//! use nao_dialects::demo::DemoScale;
//! use nao_dialects::sqlite::SqliteDialect;
//! use serde_json::json;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! // The demo shop (customers, products, orders…) in an embedded SQLite database.
//! let shop = SqliteDialect::demo("shop", DemoScale::Small).unwrap();
//!
//! // A scripted model, offline: a query on a table that does not exist, the fix, then an
//! // answer that quotes the first row of the result it was shown.
//! let model = Arc::new(
//!     ScriptedProvider::new()
//!         .call("execute_sql", json!({"sql_query": "SELECT count(*) FROM purchases"}))
//!         .call("execute_sql", json!({"sql_query":
//!             "SELECT status, count(*) AS orders FROM orders GROUP BY status ORDER BY orders DESC"}))
//!         .then(|request| {
//!             let shown = request.messages.iter().rev().find_map(|m| match m {
//!                 Message::Tool { content, .. } => Some(content.clone()),
//!                 _ => None,
//!             }).unwrap_or_default();
//!             let top = shown.lines().find(|l| l.starts_with("| 1 |")).unwrap_or_default();
//!             let cells: Vec<&str> = top.split(" | ").collect();
//!             let answer = match cells.as_slice() {
//!                 [_, status, count] => format!("Most orders are {status}: {}.", count.trim_end_matches(" |")),
//!                 _ => "I could not read the result.".to_owned(),
//!             };
//!             Completion::new(answer, vec![], FinishReason::Stop)
//!         }),
//! );
//! let agent = Agent::builder(model.clone()).database(Arc::new(shop)).build();
//!
//! let mut conversation = Conversation::new();
//! let outcome = agent.ask(&mut conversation, "Which order status is the most common?").await;
//! assert_eq!(outcome.stop, StopReason::Answer);
//! assert!(outcome.answer.as_deref().unwrap().starts_with("Most orders are delivered: "));
//! // The first query failed and the model saw why.
//! assert!(outcome.events.iter().any(|e| matches!(e,
//!     AgentEvent::ToolFinished { is_error: true, .. })));
//! assert!(model.requests()[1].messages.iter().any(|m| matches!(m,
//!     Message::Tool { is_error: true, content, .. } if content.contains("purchases"))));
//! // The system prompt described the shop's tables, with the engine's hints.
//! let prompt = conversation.system_prompt.as_deref().unwrap();
//! assert!(prompt.contains("## Database \"shop\" (SQLite)"));
//! assert!(prompt.contains("orders("));
//! # });
//! ```
//!
//! ## Usage
//! An [`Agent`] holds a [`ModelProvider`](nao_core::ModelProvider), a
//! [`ToolRegistry`](nao_core::ToolRegistry) (by default
//! [`tools::default_tools`](nao_core::tools::default_tools): the SQL tools plus display_chart,
//! story, clarification and suggest_follow_ups), the databases and [`AgentSettings`].
//! [`Agent::run`] answers one question in a [`Conversation`] and streams [`AgentEvent`]s;
//! [`Agent::ask`] gathers them into an [`AgentOutcome`].
//!
//! - **System prompt**: role and rules, each database's dialect hints (row limits, identifier
//!   quoting, date functions), and the schema context — tables, columns, types, comments and a
//!   few sample values — within [`AgentSettings::schema_token_budget`]; when the schema is
//!   larger, the tables most relevant to the question are described and the rest named.
//! - **Loop**: tool calls of one turn run concurrently; errors (SQL errors, guard rejections,
//!   bad arguments) go back to the model so it can fix its SQL; the run stops on an answer,
//!   a clarification or follow-ups, and at a limit (steps, tokens, failed queries) asks for a
//!   best-effort answer instead of failing.
//! - **State**: a [`Conversation`] serializes with serde; resume it on any agent sharing the
//!   same [`ResultStore`](nao_core::ResultStore) and the query ids of earlier turns still page.
//! - **Tests and demos**: [`ScriptedProvider`] replays a script of turns and records what the
//!   model was shown. For a real model, take one from `nao-providers`.
//!
//! ## Tracing
//! A run is traced with [`tracing`](https://docs.rs/tracing) spans named and attributed after
//! the OpenTelemetry semantic conventions for generative AI and for database calls; the names
//! and keys are constants of [`nao_core::telemetry`]:
//!
//! ```text
//! invoke_agent                         one per Agent::run / Agent::ask
//! ├── chat {model}                     one per model call (each retry too)
//! ├── execute_tool {tool}              one per tool call (concurrent calls are siblings)
//! │   └── {SELECT|EXPLAIN|SHOW…} {db}  the statement an execute_sql call ran (span `db_query`)
//! └── …
//! ```
//!
//! | span | attributes |
//! |---|---|
//! | `invoke_agent` | `gen_ai.operation.name`, `gen_ai.provider.name`, `gen_ai.request.model`; at the end `gen_ai.usage.input_tokens` / `output_tokens` (the run's totals), `nao.agent.stop_reason`, `error.type` if the model failed |
//! | `chat` | `gen_ai.operation.name`, `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.request.max_tokens`, `gen_ai.request.temperature`, `gen_ai.response.model`, `gen_ai.response.finish_reasons`, `gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens`, `gen_ai.usage.cache_read.input_tokens`, `server.address` / `server.port` (the providers of `nao-providers`), `error.type` (`auth`, `rate_limited`, `transient`, …) |
//! | `execute_tool` | `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type`, `error.type` (the tool result's error kind) |
//! | `db_query` | `db.system.name`, `db.namespace` (the database's name), `db.operation.name`, `nao.db.statement.kind`, `db.response.returned_rows`, `nao.db.response.bytes`, `nao.db.response.truncated`, `nao.db.response.truncated_by`, `error.type` (`syntax`, `unknown_object`, `timeout`, …), and `db.query.text` only on opt-in |
//!
//! Each span also carries `otel.name` (its OpenTelemetry name, such as `chat gpt-4.1`),
//! `otel.kind` and, on failure, `otel.status_code`, which `tracing-opentelemetry` turns into
//! the exported span's name, kind and status. The queries nao-rs writes itself (the schema
//! context's and describe_table's sample rows) are not traced as `db_query` spans.
//!
//! **What spans never hold**: prompts, completions, tool arguments, cell values, API keys,
//! connection URLs. The SQL text is left out by default; a host opts in with
//! [`Settings::with_traced_query_text`](nao_core::Settings::with_traced_query_text)`(`[`TracedQueryText::LiteralsMasked`](nao_core::telemetry::TracedQueryText)`)`
//! (given to [`AgentBuilder::tool_settings`]), and even then every literal is replaced by `?`
//! and comments are dropped ([`nao_guard::mask_literals`]).
//!
//! **Cost**: with no subscriber listening (or one filtering the spans out) a span is a no-op:
//! no field is evaluated and nothing known only at the end (tokens, rows, bytes) is computed.
//!
//! **Export**: nao-rs depends on `tracing` only. To send the spans to an OpenTelemetry
//! collector, a host installs `tracing-opentelemetry` over the OpenTelemetry SDK and an
//! exporter of its choice (the versions of those crates must match each other):
//!
//! ```ignore
//! // Cargo.toml: opentelemetry, opentelemetry_sdk, opentelemetry-otlp, tracing-opentelemetry,
//! // tracing-subscriber (features "registry", "env-filter").
//! use opentelemetry::trace::TracerProvider as _;
//! use tracing_subscriber::prelude::*;
//!
//! let exporter = opentelemetry_otlp::SpanExporter::builder().with_tonic().build()?;
//! let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder()
//!     .with_batch_exporter(exporter)
//!     .build();
//! tracing_subscriber::registry()
//!     .with(tracing_subscriber::EnvFilter::new("warn,nao_core::telemetry=info"))
//!     .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("my-data-agent")))
//!     .init();
//! // … build the agent and run it; call provider.shutdown() before exiting.
//! ```
//!
//! Every span has the target `nao_core::telemetry`, so that filter keeps exactly them (and
//! warnings from everywhere).
//!
//! ## Untrusted input
//! Everything the model reads about the databases comes through the host's policy: the agent
//! sees its databases only as [`ToolContext`](nao_core::ToolContext) hands them out, wrapped in
//! the policy layer, so denied tables and columns are neither described nor sampled. Table
//! and column names, types, comments and sample values are data, never instructions: the
//! schema context writes each of them through `nao-render` ([`nao_render::escape_cell`] and
//! [`nao_render::cell_text`]), escaped exactly as result tables are, so a comment or value
//! cannot open a heading, a link, a code fence or a new line in the prompt. The model's tool
//! calls go through the registry's argument validation and the SQL guard.
#![forbid(unsafe_code)]

mod builder;
mod conversation;
mod events;
mod prompt;
mod run;
mod schema_context;
mod scripted;
mod settings;

pub use builder::{Agent, AgentBuilder};
pub use conversation::Conversation;
pub use events::{AgentEvent, AgentOutcome, StopReason};
pub use prompt::{PromptDatabase, build_system_prompt, dialect_hints};
pub use run::AgentRun;
pub use schema_context::{
    ColumnContext, SchemaSelection, TableContext, add_samples, estimate_tokens, load_catalog,
    rank_tables, render_table, select_tables,
};
pub use scripted::ScriptedProvider;
pub use settings::{AgentSettings, ModelPricing};
