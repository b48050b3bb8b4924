//! What a program that calls nao's tools needs, in one `use nao::prelude::*;`.
//!
//! ```
//! use std::sync::Arc;
//! use nao::prelude::*;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let shop = SqliteDialect::demo("shop", DemoScale::Small)?;
//! let ctx = ToolContext::new(Databases::new().with(Arc::new(shop)));
//! let call = ToolCall::new("call_1", "execute_sql", json!({"sql_query": "SELECT count(*) AS n FROM orders"}));
//! let result = tools::sql_tools().call(&call, &ctx).await;
//! assert!(!result.is_error, "{}", result.content);
//! # Ok(())
//! # }
//! ```

pub use nao_agent::{Agent, AgentEvent, AgentOutcome, ScriptedProvider};
pub use nao_core::{
    Databases, Dialect, DialectExt, QueryResult, Settings, ToolCall, ToolContext, ToolRegistry,
    ToolResult, tools,
};
pub use nao_dialects::demo::DemoScale;
pub use nao_dialects::open;
#[cfg(feature = "sqlite")]
pub use nao_dialects::sqlite::SqliteDialect;
pub use nao_guard::{Policy, SqlDialect, check};
pub use serde_json::{Value, json};
