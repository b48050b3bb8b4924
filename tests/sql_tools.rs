//! The SQL tools driven like a model drives them — JSON arguments in, Markdown out — against
//! the demo database on each embedded engine: list_tables → describe_table → execute_sql (an
//! aggregate) → read_query_result (page 2) → a refused write → a timeout.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use nao::core::arrow::array::{Array, Int64Array, RecordBatch};
use nao::core::{Databases, Dialect, QueryId, Settings, ToolCall, ToolContext, ToolResult, tools};
use nao::dialects::conformance::slow_sql;
use nao::dialects::demo::{DemoScale, DemoTable, generate};
use serde_json::{Value, json};

async fn call(ctx: &ToolContext, name: &str, arguments: Value) -> ToolResult {
    let registry = tools::sql_tools();
    registry
        .call(&ToolCall::new(format!("call_{name}"), name, arguments), ctx)
        .await
}

fn count_of(tables: &[DemoTable], name: &str) -> usize {
    tables
        .iter()
        .find(|t| t.name == name)
        .map(DemoTable::row_count)
        .unwrap_or_default()
}

fn int_column_sum(batches: &[RecordBatch], column: usize) -> i64 {
    batches
        .iter()
        .map(|b| {
            let col = b.column(column);
            let ints = col
                .as_any()
                .downcast_ref::<Int64Array>()
                .unwrap_or_else(|| panic!("count column is {}, expected Int64", col.data_type()));
            ints.iter().flatten().sum::<i64>()
        })
        .sum()
}

async fn drive(database: Arc<dyn Dialect>, tables: &[DemoTable]) {
    let engine = database.name().to_owned();
    let settings = Settings::default().with_timeout(Duration::from_millis(500));
    let ctx = ToolContext::new(Databases::new().with(database)).with_settings(settings);

    let listed = call(&ctx, "list_tables", json!({})).await;
    assert!(!listed.is_error, "{engine}: {}", listed.content);
    for table in [
        "customers",
        "products",
        "orders",
        "order_items",
        "payments",
        "reviews",
    ] {
        assert!(
            listed.content.contains(table),
            "{engine}: list_tables misses {table}:\n{}",
            listed.content
        );
    }

    let described = call(&ctx, "describe_table", json!({"table": "orders"})).await;
    assert!(!described.is_error, "{engine}: {}", described.content);
    for column in ["customer_id", "ordered_at", "status", "total", "discount"] {
        assert!(
            described.content.contains(column),
            "{engine}: describe misses {column}:\n{}",
            described.content
        );
    }
    assert!(
        described.content.contains("Sample rows"),
        "{engine}: {}",
        described.content
    );

    let aggregate = call(
        &ctx,
        "execute_sql",
        json!({"sql_query": "SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status"}),
    )
    .await;
    assert!(!aggregate.is_error, "{engine}: {}", aggregate.content);
    assert!(
        aggregate.content.contains("delivered"),
        "{engine}: {}",
        aggregate.content
    );
    let structured = aggregate.structured.clone().expect("structured output");
    let id = structured["query_id"]
        .as_str()
        .expect("query_id")
        .to_owned();
    let stored = ctx
        .results()
        .get(&QueryId::from_model(&id))
        .await
        .expect("stored result");
    assert_eq!(
        int_column_sum(&stored.batches, 1) as usize,
        count_of(tables, "orders"),
        "{engine}: counts add up"
    );

    let all = call(
        &ctx,
        "execute_sql",
        json!({"sql_query": "SELECT id, total FROM orders ORDER BY id"}),
    )
    .await;
    assert!(!all.is_error, "{engine}: {}", all.content);
    let all_id = all
        .structured
        .as_ref()
        .and_then(|s| s["query_id"].as_str())
        .expect("query_id")
        .to_owned();
    assert!(
        all.content.contains("read_query_result"),
        "{engine}: the result says how to page:\n{}",
        all.content
    );
    let page = call(
        &ctx,
        "read_query_result",
        json!({"query_id": all_id, "offset": 40, "limit": 40}),
    )
    .await;
    assert!(!page.is_error, "{engine}: {}", page.content);
    assert!(
        page.content.contains("rows 41–80"),
        "{engine}: page 2:\n{}",
        page.content
    );
    assert!(
        page.content.contains("| 41 | 41 |"),
        "{engine}: row numbers continue:\n{}",
        page.content
    );

    let write = call(
        &ctx,
        "execute_sql",
        json!({"sql_query": "DELETE FROM orders WHERE id = 1"}),
    )
    .await;
    assert!(write.is_error, "{engine}: a write must be refused");
    assert_eq!(
        write.error_kind.as_deref(),
        Some("rejected_not_a_query"),
        "{engine}: {}",
        write.content
    );
    assert!(
        write.content.contains("DELETE"),
        "{engine}: {}",
        write.content
    );

    let slow = call(&ctx, "execute_sql", json!({"sql_query": slow_sql()})).await;
    assert!(slow.is_error, "{engine}: the slow query must time out");
    assert_eq!(
        slow.error_kind.as_deref(),
        Some("database_timeout"),
        "{engine}: {}",
        slow.content
    );

    let rows = call(
        &ctx,
        "execute_sql",
        json!({"sql_query": "SELECT count(*) AS n FROM orders"}),
    )
    .await;
    assert!(
        !rows.is_error,
        "{engine}: the database still answers after a timeout: {}",
        rows.content
    );
}

#[cfg(feature = "sqlite")]
#[tokio::test]
async fn sql_tools_on_sqlite() {
    use nao::dialects::sqlite::{SqliteDialect, load_batches};
    let tables = generate(DemoScale::Small).expect("demo data");
    let loaded = tables.clone();
    let database = SqliteDialect::in_memory("shop", move |conn| {
        for table in &loaded {
            load_batches(conn, table.name, &table.batches)?;
        }
        Ok(())
    })
    .expect("sqlite demo database");
    drive(Arc::new(database), &tables).await;
}

#[cfg(feature = "duckdb")]
#[tokio::test]
async fn sql_tools_on_duckdb() {
    use nao::dialects::duckdb::{DuckDbDialect, load_batches};
    let tables = generate(DemoScale::Small).expect("demo data");
    let loaded = tables.clone();
    let database = DuckDbDialect::in_memory("shop", move |conn| {
        for table in &loaded {
            load_batches(conn, table.name, &table.batches)?;
        }
        Ok(())
    })
    .expect("duckdb demo database");
    drive(Arc::new(database), &tables).await;
}
