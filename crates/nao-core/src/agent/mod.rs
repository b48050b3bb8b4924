//! The agent loop: a model, the tools and the databases, from a question to an answer.
//!
//! An [`Agent`] holds a [`ModelProvider`](crate::ModelProvider), a
//! [`ToolRegistry`](crate::ToolRegistry) (by default [`tools::default_tools`](crate::tools::default_tools):
//! the SQL tools plus clarification and suggest_follow_ups), the databases and
//! [`AgentSettings`]. [`Agent::run`] answers one question in a [`Conversation`] and streams
//! [`AgentEvent`]s; [`Agent::ask`] gathers them into an [`AgentOutcome`].
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
//!   same [`ResultStore`](crate::ResultStore) and the query ids of earlier turns still page.
//! - **Tests and demos**: [`ScriptedProvider`] replays a script of turns and records what the
//!   model was shown.
//!
//! ```
//! use std::sync::Arc;
//! use nao_core::agent::{Agent, AgentEvent, Conversation, ScriptedProvider, StopReason};
//! use nao_core::{Completion, FinishReason, Message};
//! use nao_dialects::sqlite::SqliteDialect;
//! use serde_json::json;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let shop = SqliteDialect::in_memory("shop", |conn| {
//!     conn.execute_batch(
//!         "CREATE TABLE orders (id INTEGER, status TEXT, total REAL);
//!          INSERT INTO orders VALUES (1, 'paid', 10.5), (2, 'paid', 4.5), (3, 'refunded', 7.0);",
//!     )
//! }).unwrap();
//!
//! // A scripted model: one query with a wrong column, the fix, then an answer quoting the result.
//! let model = Arc::new(
//!     ScriptedProvider::new()
//!         .call("execute_sql", json!({"sql_query": "SELECT sum(amount) FROM orders"}))
//!         .call("execute_sql", json!({"sql_query":
//!             "SELECT sum(total) AS revenue FROM orders WHERE status = 'paid'"}))
//!         .then(|request| {
//!             let shown = request.messages.iter().rev().find_map(|m| match m {
//!                 Message::Tool { content, .. } => Some(content.clone()),
//!                 _ => None,
//!             }).unwrap_or_default();
//!             let revenue = if shown.contains("| 15 |") { "15" } else { "unknown" };
//!             Completion::new(format!("Paid orders bring {revenue} in revenue."), vec![], FinishReason::Stop)
//!         }),
//! );
//! let agent = Agent::builder(model.clone()).database(Arc::new(shop)).build();
//!
//! let mut conversation = Conversation::new();
//! let outcome = agent.ask(&mut conversation, "What is the revenue of paid orders?").await;
//! assert_eq!(outcome.stop, StopReason::Answer);
//! assert_eq!(outcome.answer.as_deref(), Some("Paid orders bring 15 in revenue."));
//! // The first query failed and the model saw why.
//! assert!(outcome.events.iter().any(|e| matches!(e,
//!     AgentEvent::ToolFinished { is_error: true, .. })));
//! assert!(model.requests()[1].messages.iter().any(|m| matches!(m,
//!     Message::Tool { is_error: true, content, .. } if content.contains("amount"))));
//! # });
//! ```

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
