//! The SQL tools on the embedded demo shop, called the way a model calls them: JSON arguments
//! in, Markdown out. No network, no keys.
//!
//! ```text
//! cargo run --example sql_tools
//! ```
#![allow(clippy::print_stdout)]

use std::process::ExitCode;
use std::sync::Arc;

use nao::core::{Databases, ToolCall, ToolContext, tools};
use nao::dialects::demo::DemoScale;
use nao::dialects::sqlite::SqliteDialect;
use serde_json::{Value, json};

#[tokio::main]
async fn main() -> ExitCode {
    let shop = match SqliteDialect::demo("shop", DemoScale::Full) {
        Ok(shop) => shop,
        Err(err) => {
            eprintln!("could not build the demo database: {err}");
            return ExitCode::FAILURE;
        }
    };
    let ctx = ToolContext::new(Databases::new().with(Arc::new(shop)));
    let registry = tools::sql_tools();

    let calls: [(&str, Value); 6] = [
        ("list_tables", json!({})),
        ("describe_table", json!({"table": "orders"})),
        (
            "execute_sql",
            json!({"sql_query": "SELECT strftime('%Y-%m', ordered_at) AS month, count(*) AS orders, \
                   sum(total) AS revenue FROM orders WHERE status <> 'cancelled' \
                   GROUP BY 1 ORDER BY 1"}),
        ),
        (
            "execute_sql",
            json!({"sql_query": "SELECT id, title, body FROM reviews ORDER BY id LIMIT 5"}),
        ),
        ("execute_sql", json!({"sql_query": "DELETE FROM orders"})),
        (
            "read_query_result",
            json!({"query_id": "q_unknown", "offset": 0}),
        ),
    ];
    for (i, (name, arguments)) in calls.into_iter().enumerate() {
        let call = ToolCall::new(format!("call_{i}"), name, arguments.clone());
        let result = registry.call(&call, &ctx).await;
        println!("## {name} {arguments}\n");
        println!("{}", result.content);
        if let Some(Value::String(id)) = result
            .structured
            .as_ref()
            .and_then(|s| s.get("query_id").cloned())
        {
            let page = ToolCall::new(
                "page",
                "read_query_result",
                json!({"query_id": id, "offset": 20, "limit": 3}),
            );
            println!(
                "## read_query_result (rows 21–23)\n\n{}",
                registry.call(&page, &ctx).await.content
            );
        }
    }
    ExitCode::SUCCESS
}
