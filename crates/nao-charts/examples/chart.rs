//! Writes an SVG of every chart type over the demo database into a directory (default
//! `target/charts`): `cargo run -p nao-charts --example chart -- out/`.

use std::sync::Arc;

use nao_core::{Databases, QueryId, ToolCall, ToolContext, tools};
use nao_dialects::demo::{DemoScale, generate};
use nao_dialects::sqlite::{SqliteDialect, load_batches};
use serde_json::json;

const MONTHLY: &str = "SELECT strftime('%Y-%m', ordered_at) AS month, \
     SUM(CASE WHEN channel = 'web' THEN total ELSE 0 END) AS web, \
     SUM(CASE WHEN channel = 'mobile' THEN total ELSE 0 END) AS mobile, \
     SUM(CASE WHEN channel = 'store' THEN total ELSE 0 END) AS store \
     FROM orders GROUP BY 1 ORDER BY 1";
const BY_CATEGORY: &str = "SELECT p.category, SUM(i.quantity * i.unit_price) AS revenue \
     FROM order_items i JOIN products p ON p.id = i.product_id GROUP BY 1 ORDER BY 2 DESC";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/charts".to_owned());
    std::fs::create_dir_all(&dir)?;
    let tables = generate(DemoScale::Full)?;
    let shop = SqliteDialect::in_memory("shop", move |conn| {
        for table in &tables {
            load_batches(conn, table.name, &table.batches)?;
        }
        Ok(())
    })?;
    let registry = tools::default_tools();
    let ctx = ToolContext::new(Databases::new().with(Arc::new(shop)));
    let mut ids = Vec::new();
    for sql in [
        MONTHLY,
        BY_CATEGORY,
        "SELECT price, cost FROM products",
        "SELECT SUM(total) AS revenue FROM orders",
    ] {
        let result = registry
            .call(
                &ToolCall::new("q", "execute_sql", json!({ "sql_query": sql })),
                &ctx,
            )
            .await;
        let structured = result.structured.ok_or(result.content)?;
        ids.push(
            structured["query_id"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        );
    }
    let channels = json!([{"data_key": "web", "label": "Web"}, {"data_key": "mobile", "label": "Mobile"}, {"data_key": "store", "label": "Store"}]);
    let revenue = json!([{"data_key": "revenue", "label": "Revenue"}]);
    let charts = [
        (
            "bar",
            &ids[1],
            "category",
            "category",
            revenue.clone(),
            "Revenue by category",
        ),
        (
            "horizontal_bar",
            &ids[1],
            "category",
            "category",
            revenue.clone(),
            "Revenue by category",
        ),
        (
            "stacked_bar",
            &ids[0],
            "month",
            "date",
            channels.clone(),
            "Monthly revenue by channel",
        ),
        (
            "line",
            &ids[0],
            "month",
            "date",
            channels.clone(),
            "Monthly revenue by channel",
        ),
        (
            "area",
            &ids[0],
            "month",
            "date",
            json!([{"data_key": "web", "label": "Web"}]),
            "Monthly web revenue",
        ),
        (
            "stacked_area",
            &ids[0],
            "month",
            "date",
            channels,
            "Monthly revenue by channel",
        ),
        (
            "pie",
            &ids[1],
            "category",
            "category",
            revenue.clone(),
            "Revenue share by category",
        ),
        (
            "donut",
            &ids[1],
            "category",
            "category",
            revenue.clone(),
            "Revenue share by category",
        ),
        (
            "scatter",
            &ids[2],
            "price",
            "number",
            json!([{"data_key": "cost", "label": "Cost"}]),
            "Cost against price",
        ),
        (
            "kpi_card",
            &ids[3],
            "revenue",
            "number",
            revenue,
            "Total revenue",
        ),
    ];
    for (kind, id, x, x_type, series, title) in charts {
        let args = json!({"query_id": id, "chart_type": kind, "x_axis_key": x, "x_axis_type": x_type, "series": series, "title": title});
        let result = registry
            .call(&ToolCall::new("c", "display_chart", args), &ctx)
            .await;
        if result.is_error {
            return Err(result.content.into());
        }
        let spec = serde_json::from_value(result.structured.ok_or("no output")?["spec"].clone())?;
        let stored = ctx
            .results()
            .get(&QueryId::from_model(id.as_str()))
            .await
            .ok_or("evicted")?;
        let svg = nao_charts::render_svg(&spec, &stored)?;
        let path = format!("{dir}/{kind}.svg");
        std::fs::write(&path, svg)?;
        eprintln!("wrote {path}");
    }
    Ok(())
}
