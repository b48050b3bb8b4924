//! The tools over the SQLite demo shop, called the way a model calls them.
#![allow(dead_code)] // Each test file uses part of it.

use nao_core::{Databases, ToolCall, ToolContext, ToolRegistry, ToolResult, tools};
use nao_dialects::demo::DemoScale;
use nao_dialects::sqlite::SqliteDialect;
use serde_json::{Value, json};

/// The default tools and a context over the small demo shop.
pub(crate) struct DemoTools {
    pub(crate) registry: ToolRegistry,
    pub(crate) ctx: ToolContext,
}

impl DemoTools {
    pub(crate) fn new() -> Self {
        let shop = SqliteDialect::demo("shop", DemoScale::Small).expect("demo database");
        DemoTools {
            registry: tools::default_tools(),
            ctx: ToolContext::new(Databases::new().with(std::sync::Arc::new(shop))),
        }
    }

    /// Runs `sql` with execute_sql and returns its query id.
    pub(crate) async fn query(&self, sql: &str) -> String {
        let result = self.call("execute_sql", json!({ "sql_query": sql })).await;
        assert!(!result.is_error, "{}", result.content);
        result.structured.expect("structured output")["query_id"]
            .as_str()
            .expect("a query id")
            .to_owned()
    }

    pub(crate) async fn call(&self, tool: &str, args: Value) -> ToolResult {
        self.registry
            .call(&ToolCall::new("c", tool, args), &self.ctx)
            .await
    }

    /// Calls `tool`, expecting success; returns its structured output.
    pub(crate) async fn ok(&self, tool: &str, args: Value) -> Value {
        let result = self.call(tool, args).await;
        assert!(!result.is_error, "{}", result.content);
        result.structured.expect("structured output")
    }

    /// Calls `tool`, expecting a failure; returns the message the model reads.
    pub(crate) async fn err(&self, tool: &str, args: Value) -> String {
        let result = self.call(tool, args).await;
        assert!(result.is_error, "expected an error: {}", result.content);
        result.content
    }
}
