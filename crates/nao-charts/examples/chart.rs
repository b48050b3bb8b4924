//! Writes an SVG of every chart type over the demo database, and a story page showing some of
//! them, into a directory (default `target/charts`); with `--png`, also a PNG of each through
//! headless Chromium (`NAO_TEST_CHROMIUM`, else `/usr/bin/chromium`), so a person can look at
//! them: `cargo run -p nao-charts --example chart -- out/ --png`.

#[path = "../tests/common/chromium.rs"]
#[allow(dead_code)]
mod chromium;
#[path = "../tests/common/demo_queries.rs"]
mod demo_queries;

use std::path::PathBuf;

use std::sync::Arc;

use nao_core::{Databases, QueryId, ToolCall, ToolContext, tools};
use nao_dialects::demo::{DemoScale, generate};
use nao_dialects::sqlite::{SqliteDialect, load_batches};
use serde_json::json;

use demo_queries::{BY_CATEGORY, MONTHLY_BY_CHANNEL as MONTHLY};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let png = args.iter().any(|a| a == "--png");
    let dir = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .cloned()
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
    let mut pages: Vec<(PathBuf, (u32, u32))> = Vec::new();
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
        pages.push((PathBuf::from(path), (svg_width(&spec), svg_height(&spec))));
    }
    let story = nao_core::story::StoryVersion::new(
        1,
        "Revenue review",
        format!(
            "# Summary\n\n1. **Electronics** earns the most.\n2. Web leads the channels.\n\n\
             <grid cols=\"2\">\n<chart query_id=\"{}\" chart_type=\"line\" x_axis_key=\"month\" \
             x_axis_type=\"date\" series='[{{\"data_key\": \"web\", \"label\": \"Web\"}}]' \
             title=\"Monthly web revenue\" />\n<table query_id=\"{}\" title=\"By category\" />\n\
             </grid>\n",
            ids[0], ids[1]
        ),
        None,
    );
    let path = format!("{dir}/story.html");
    std::fs::write(
        &path,
        nao_charts::render_story_html(&story, ctx.results()).await?,
    )?;
    eprintln!("wrote {path}");
    pages.push((PathBuf::from(path), (1200, 1000)));
    if png {
        let browser = std::env::var_os("NAO_TEST_CHROMIUM")
            .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
        // Browser profiles (one per run) in a scratch directory, removed after.
        let profiles =
            std::env::temp_dir().join(format!("nao-chart-example-{}", std::process::id()));
        for (page, size) in &pages {
            let page = std::fs::canonicalize(page)?;
            let shot =
                chromium::screenshot(&browser, &chromium::profile_dir(&profiles), &page, *size);
            eprintln!("wrote {}", shot.display());
        }
        std::fs::remove_dir_all(&profiles)?;
    }
    Ok(())
}

/// The size a chart is drawn at (a KPI card is a quarter of the others).
fn svg_width(spec: &nao_core::chart::ChartSpec) -> u32 {
    match spec.chart_type {
        nao_core::chart::ChartType::KpiCard => nao_charts::SVG_WIDTH / 2,
        _ => nao_charts::SVG_WIDTH,
    }
}

fn svg_height(spec: &nao_core::chart::ChartSpec) -> u32 {
    match spec.chart_type {
        nao_core::chart::ChartType::KpiCard => nao_charts::SVG_HEIGHT / 2,
        _ => nao_charts::SVG_HEIGHT,
    }
}
