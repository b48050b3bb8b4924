//! A story rendered to standalone HTML over the SQLite demo database: a well-formed document
//! with the chart as inline SVG, the tables as HTML tables (header, row cap and note), the grid,
//! escaped text, and a visible note for a result that is gone.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::elements;

use std::sync::Arc;

use nao_charts::{MAX_HTML_TABLE_ROWS, render_story_html};
use nao_core::story::StoryVersion;
use nao_core::{Databases, QueryId, ToolCall, ToolContext, tools};
use nao_dialects::demo::DemoScale;
use nao_dialects::sqlite::SqliteDialect;
use serde_json::json;

const MONTHLY: &str = "SELECT strftime('%Y-%m', ordered_at) AS month, SUM(total) AS revenue, \
     COUNT(*) AS orders FROM orders GROUP BY 1 ORDER BY 1";
const BY_CATEGORY: &str = "SELECT p.category, SUM(i.quantity * i.unit_price) AS revenue \
     FROM order_items i JOIN products p ON p.id = i.product_id GROUP BY 1 ORDER BY 2 DESC";
const ITEMS: &str = "SELECT order_id, quantity FROM order_items ORDER BY order_id, line_number";

async fn query(ctx: &ToolContext, sql: &str) -> String {
    let call = ToolCall::new("q", "execute_sql", json!({ "sql_query": sql }));
    let result = tools::sql_tools().call(&call, ctx).await;
    assert!(!result.is_error, "{}", result.content);
    result.structured.unwrap()["query_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn count(names: &[String], name: &str) -> usize {
    names.iter().filter(|n| *n == name).count()
}

#[tokio::test]
async fn story_renders_as_a_standalone_document() {
    let shop = SqliteDialect::demo("shop", DemoScale::Small).unwrap();
    let ctx = ToolContext::new(Databases::new().with(Arc::new(shop)));
    let monthly = query(&ctx, MONTHLY).await;
    let category = query(&ctx, BY_CATEGORY).await;
    let items = query(&ctx, ITEMS).await;
    let categories = ctx
        .results()
        .get(&QueryId::from_model(category.as_str()))
        .await
        .unwrap()
        .row_count as usize;
    let item_rows = ctx
        .results()
        .get(&QueryId::from_model(items.as_str()))
        .await
        .unwrap()
        .row_count as usize;
    assert!(categories > 0 && categories <= MAX_HTML_TABLE_ROWS);
    assert!(item_rows > MAX_HTML_TABLE_ROWS, "{item_rows} items");

    let code = format!(
        "# Summary\n\n### Detail\n\nRevenue **grew** in `Q3` <script>alert(1)</script> & more.\n\n\
         - first point\n- second point\n\n\
         <grid cols=\"2\">\n<chart query_id=\"{monthly}\" chart_type=\"line\" x_axis_key=\"month\" \
         x_axis_type=\"date\" series='[{{\"data_key\": \"revenue\", \"label\": \"Revenue\"}}]' \
         title=\"Monthly revenue\" />\n<table query_id=\"{category}\" title=\"By category\" />\n\
         </grid>\n\n<table query_id=\"{items}\" title=\"Items\" />\n\n\
         <chart query_id=\"q_gone\" chart_type=\"bar\" x_axis_key=\"a\" \
         series='[{{\"data_key\": \"b\"}}]' title=\"Lost\" />\n\nThe end.\n"
    );
    let story = StoryVersion::new(1, "Q3 <review>", code, None);
    let html = render_story_html(&story, ctx.results()).await.unwrap();

    assert!(
        html.starts_with("<!doctype html>\n<html lang=\"en\">"),
        "{html}"
    );
    assert!(html.contains("<meta charset=\"utf-8\" />"));
    assert!(html.contains("<style>"));
    assert!(html.contains("<h1>Q3 &lt;review&gt;</h1>"));
    assert!(html.trim_end().ends_with("</html>"));
    let names = elements(&html);

    // Markdown, escaped.
    assert!(html.contains("<h2>Summary</h2>\n<h4>Detail</h4>"));
    assert!(html.contains(
        "<p>Revenue <strong>grew</strong> in <code>Q3</code> \
         &lt;script&gt;alert(1)&lt;/script&gt; &amp; more.</p>"
    ));
    assert!(!html.contains("<script"));
    assert!(html.contains("<ul>\n<li>first point</li>\n<li>second point</li>\n</ul>"));

    // The grid holds the chart and the first table.
    let grid = "<div class=\"grid\" style=\"grid-template-columns: repeat(2, 1fr)\">";
    let grid_at = html.find(grid).expect("grid");
    let svg_at = html.find("<svg").expect("chart svg");
    let category_at = html.find("<caption>By category</caption>").unwrap();
    let grid_end = grid_at + html[grid_at..].find("</div>").unwrap();
    assert!(grid_at < svg_at && svg_at < category_at && category_at < grid_end);
    assert_eq!(count(&names, "svg"), 1);
    assert!(html[svg_at..].contains("Monthly revenue"));

    // Tables: headers, rows capped with a note.
    assert_eq!(count(&names, "table"), 2);
    assert!(html.contains("<thead><tr><th>category</th><th>revenue</th></tr></thead>"));
    assert!(html.contains("<thead><tr><th>order_id</th><th>quantity</th></tr></thead>"));
    assert_eq!(
        count(&names, "tr"),
        (1 + categories) + (1 + MAX_HTML_TABLE_ROWS)
    );
    let more = item_rows - MAX_HTML_TABLE_ROWS;
    assert!(html.contains(&format!(
        "<p class=\"more\">{more} more rows not shown.</p>"
    )));

    // The chart whose result is gone is a visible note naming its query id.
    assert!(html.contains(
        "<figure class=\"missing\"><figcaption>Query q_gone: the result is no longer \
         available, so this chart cannot be drawn</figcaption></figure>"
    ));
    assert!(html.contains("<p>The end.</p>"));
}

#[tokio::test]
async fn unscannable_tags_are_an_error() {
    let results = nao_core::ResultStore::new(1 << 20);
    let story = StoryVersion::new(1, "Bad", "<grid cols=\"9\">x</grid>", None);
    let err = render_story_html(&story, &results).await.unwrap_err();
    assert!(err.to_string().contains("1:13: grid cols"), "{err}");
}
