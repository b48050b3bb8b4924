//! A story rendered to standalone HTML: over the SQLite demo database, a well-formed document
//! with the chart as inline SVG, the tables as HTML tables (header, row cap and note), the grid,
//! escaped text, and a visible note for a result that is gone; then the Markdown between tags
//! (CommonMark lists, emphasis, links, tables), raw HTML shown as text, unsafe link schemes
//! dropped, images as links, and table cells as the model read them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::elements;

use std::sync::Arc;

use nao_charts::{MAX_HTML_TABLE_ROWS, render_story_html};
use nao_core::arrow::array::{
    ArrayRef, Decimal128Array, Float64Array, RecordBatch, StringArray, TimestampMicrosecondArray,
};
use nao_core::arrow::datatypes::{DataType, Field, Schema, TimeUnit};
use nao_core::render::{RenderBudget, ResultFacts, render_result};
use nao_core::story::StoryVersion;
use nao_core::{Databases, QueryId, QueryResult, ResultStore, ToolCall, ToolContext, tools};
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
    assert!(
        html.contains("<thead><tr><th>category</th><th class=\"num\">revenue</th></tr></thead>")
    );
    assert!(html.contains(
        "<thead><tr><th class=\"num\">order_id</th><th class=\"num\">quantity</th></tr></thead>"
    ));
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

/// The part of the page after the title: what the story's code became.
async fn story_body(code: &str, results: &ResultStore) -> String {
    let story = StoryVersion::new(1, "T", code, None);
    let html = render_story_html(&story, results).await.unwrap();
    elements(&html);
    let start = html.find("<h1>T</h1>\n").unwrap() + "<h1>T</h1>\n".len();
    let end = html.rfind("</body>").unwrap();
    html[start..end].to_owned()
}

#[tokio::test]
async fn markdown_renders_as_commonmark() {
    let results = ResultStore::new(1 << 20);
    // The quickstart's own answer, then emphasis, a link, a strikethrough and a table.
    let code = "Top categories:\n\n\
                1. **Electronics** leads with *most* revenue\n\
                2. **Home** is _second_\n\n\
                See [the docs](https://example.com/a?b=1&c=2 \"Docs\"), ~~not this~~.\n\n\
                | Category | Revenue |\n\
                |:---|---:|\n\
                | Electronics | 1.8M |\n\
                | Home & garden | 0.9M |\n\n\
                > quoted *note*\n";
    assert_eq!(
        story_body(code, &results).await,
        "<p>Top categories:</p>\n\
         <ol>\n\
         <li><strong>Electronics</strong> leads with <em>most</em> revenue</li>\n\
         <li><strong>Home</strong> is <em>second</em></li>\n\
         </ol>\n\
         <p>See <a href=\"https://example.com/a?b=1&amp;c=2\" title=\"Docs\">the docs</a>, \
         <del>not this</del>.</p>\n\
         <table><thead><tr><th style=\"text-align: left\">Category</th>\
         <th style=\"text-align: right\">Revenue</th></tr></thead><tbody>\n\
         <tr><td style=\"text-align: left\">Electronics</td>\
         <td style=\"text-align: right\">1.8M</td></tr>\n\
         <tr><td style=\"text-align: left\">Home &amp; garden</td>\
         <td style=\"text-align: right\">0.9M</td></tr>\n\
         </tbody></table>\n\
         <blockquote>\n<p>quoted <em>note</em></p>\n</blockquote>\n"
    );
}

#[tokio::test]
async fn markdown_between_tags_keeps_its_structure() {
    let results = ResultStore::new(1 << 20);
    // A list interrupted by a table tag carries on with its numbering; headings sit below
    // the title.
    let code = "# Findings\n\n1. First, by month:\n<table query_id=\"q_gone\" />\n\
                2. Second, **bold** again\n\n###### Deep\n";
    assert_eq!(
        story_body(code, &results).await,
        "<h2>Findings</h2>\n\
         <ol>\n<li>First, by month:</li>\n</ol>\n\
         <figure class=\"missing\"><figcaption>Query q_gone: the result is no longer available, \
         so this table cannot be shown</figcaption></figure>\n\
         <ol start=\"2\">\n<li>Second, <strong>bold</strong> again</li>\n</ol>\n\
         <h6>Deep</h6>\n"
    );
}

#[tokio::test]
async fn raw_html_is_shown_as_text() {
    let results = ResultStore::new(1 << 20);
    let code = "<script>alert(1)</script>\n\n\
                Inline <SCRIPT src=x></SCRIPT> and <img src=x onerror=alert(1)> here.\n\n\
                <iframe src=\"https://example.com\"></iframe>\n\n\
                <!-- a comment -->\n";
    let body = story_body(code, &results).await;
    assert_eq!(
        body,
        "<pre><code>&lt;script&gt;alert(1)&lt;/script&gt;\n</code></pre>\n\
         <p>Inline &lt;SCRIPT src=x&gt;&lt;/SCRIPT&gt; and &lt;img src=x onerror=alert(1)&gt; \
         here.</p>\n\
         <pre><code>&lt;iframe src=\"https://example.com\"&gt;&lt;/iframe&gt;\n</code></pre>\n\
         <pre><code>&lt;!-- a comment --&gt;\n</code></pre>\n"
    );
    let lower = body.to_ascii_lowercase();
    for element in ["<script", "<img", "<iframe", "<!--"] {
        assert!(!lower.contains(element), "{element} in {body}");
    }
}

/// The `href` values of a page.
fn hrefs(html: &str) -> Vec<&str> {
    html.split("href=\"")
        .skip(1)
        .map(|rest| &rest[..rest.find('"').unwrap()])
        .collect()
}

#[tokio::test]
async fn unsafe_link_urls_are_dropped_and_their_text_kept() {
    let results = ResultStore::new(1 << 20);
    let code = "[a](javascript:alert(1)) [b]( JaVaScRiPt:alert(1)) \
                [c](<\u{1}javascript:alert(1)>) [d](&#106;avascript:alert(1)) \
                [e](<java\tscript:alert(1)>) [f](data:text/html;base64,PHNjcmlwdD4=) \
                [g](VBScript:msgbox) [h][ref] <javascript:alert(1)>\n\n\
                [ok](https://example.com) [mail](mailto:a@example.com) [frag](#top) \
                [rel](other.html) <b@example.com>\n\n\
                [ref]: javascript:alert(1)\n";
    let body = story_body(code, &results).await;
    assert_eq!(
        body,
        "<p>a b c d e f g h javascript:alert(1)</p>\n\
         <p><a href=\"https://example.com\">ok</a> <a href=\"mailto:a@example.com\">mail</a> \
         <a href=\"#top\">frag</a> <a href=\"other.html\">rel</a> \
         <a href=\"mailto:b@example.com\">b@example.com</a></p>\n"
    );
    assert_eq!(
        hrefs(&body),
        [
            "https://example.com",
            "mailto:a@example.com",
            "#top",
            "other.html",
            "mailto:b@example.com"
        ]
    );
}

#[tokio::test]
async fn images_become_links_and_are_never_loaded() {
    let results = ResultStore::new(1 << 20);
    let code = "![Revenue chart](https://example.com/c.png \"Q3\") ![](https://example.com/d.png) \
                [![badge](https://example.com/b.svg)](https://example.com) \
                ![pixel](data:image/png;base64,AAAA) ![x](javascript:alert(1)) \
                ![see [docs](https://example.com/docs)](https://example.com/i.png)\n";
    let body = story_body(code, &results).await;
    assert_eq!(
        body,
        "<p><a href=\"https://example.com/c.png\" title=\"Q3\">[image: Revenue chart]</a> \
         <a href=\"https://example.com/d.png\">[image]</a> \
         <a href=\"https://example.com\">[image: badge]</a> \
         [image: pixel] [image: x] \
         <a href=\"https://example.com/i.png\">[image: see docs]</a></p>\n"
    );
    assert!(!body.contains("<img"));
}

#[tokio::test]
async fn hostile_markdown_renders_well_formed() {
    let results = ResultStore::new(1 << 20);
    for code in [
        ">".repeat(20_000),
        "[".repeat(50_000),
        "*a ".repeat(20_000),
        "- ".repeat(20_000),
        "|a|\n|-|\n".repeat(5_000),
        "![".repeat(8_000) + &"](javascript:x)".repeat(8_000),
        "[a](".repeat(40_000),
        "\0\u{1}<\u{202e}&#0;&#x110000;\r\n\t".repeat(5_000),
        "```\n<table".to_owned(),
    ] {
        let body = story_body(&code, &results).await;
        assert!(!body.to_ascii_lowercase().contains("<script"));
        assert!(!body.contains("javascript:x\""));
    }
}

/// A result of one row per case, as a database could return it.
fn cells_result() -> QueryResult {
    let schema = Arc::new(Schema::new(vec![
        Field::new("name", DataType::Utf8, true),
        Field::new("revenue", DataType::Float64, true),
        Field::new("total", DataType::Decimal128(12, 2), true),
        Field::new(
            "at",
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            true,
        ),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(vec![
            Some("Acme | Co <b>"),
            Some("line\nbreak"),
            Some("∅"),
            None,
        ])),
        Arc::new(Float64Array::from(vec![
            Some(1869876.5999999999),
            Some(5.0),
            Some(1e20),
            None,
        ])),
        Arc::new(
            Decimal128Array::from(vec![Some(1_250_000), Some(-5), Some(0), None])
                .with_precision_and_scale(12, 2)
                .unwrap(),
        ),
        Arc::new(
            TimestampMicrosecondArray::from(vec![
                Some(1_709_294_400_500_000),
                Some(0),
                Some(1),
                None,
            ])
            .with_timezone("UTC"),
        ),
    ];
    let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
    let mut result = QueryResult::new(QueryId::random(), "shop", "SELECT …", schema);
    result.row_count = batch.num_rows() as u64;
    result.batches.push(batch);
    result
}

#[tokio::test]
async fn table_cells_read_as_the_model_read_them_numbers_for_people() {
    let results = ResultStore::new(1 << 20);
    let result = results.insert(cells_result()).await;
    let id = result.id.as_str().to_owned();
    // What the model read: the execute_sql Markdown of the same result.
    let markdown = render_result(
        &result.schema,
        &result.batches,
        &ResultFacts::new(id.as_str(), result.row_count),
        &RenderBudget::default(),
    );
    for row in [
        "| 1 | Acme \\| Co &lt;b> | 1869876.5999999999 | 12500.00 | 2024-03-01T12:00:00.5Z |",
        "| 2 | line\\nbreak | 5 | -0.05 | 1970-01-01T00:00:00Z |",
        "| 3 | \\u{2205} | 1e20 | 0.00 | 1970-01-01T00:00:00.000001Z |",
        "| 4 | ∅ | ∅ | ∅ | ∅ |",
    ] {
        assert!(markdown.contains(row), "{row} not in {markdown}");
    }
    // The same cells, numbers written for people: grouped, a float's binary noise rounded.
    let body = story_body(&format!("<table query_id=\"{id}\" />"), &results).await;
    assert_eq!(
        body,
        "<table>\n<thead><tr><th>name</th><th class=\"num\">revenue</th>\
         <th class=\"num\">total</th><th>at</th></tr></thead>\n<tbody>\n\
         <tr><td>Acme | Co &lt;b&gt;</td><td class=\"num\">1,869,876.6</td>\
         <td class=\"num\">12,500.00</td><td>2024-03-01T12:00:00.5Z</td></tr>\n\
         <tr><td>line\\nbreak</td><td class=\"num\">5</td><td class=\"num\">-0.05</td>\
         <td>1970-01-01T00:00:00Z</td></tr>\n\
         <tr><td>\\u{2205}</td><td class=\"num\">1e20</td><td class=\"num\">0.00</td>\
         <td>1970-01-01T00:00:00.000001Z</td></tr>\n\
         <tr><td>∅</td><td class=\"num\">∅</td><td class=\"num\">∅</td><td>∅</td></tr>\n\
         </tbody>\n</table>\n\
         <p class=\"more\">∅ is NULL (no value).</p>\n"
    );
}

#[tokio::test]
async fn demo_table_cells_match_the_execute_sql_output() {
    let shop = SqliteDialect::demo("shop", DemoScale::Small).unwrap();
    let ctx = ToolContext::new(Databases::new().with(Arc::new(shop)));
    let call = ToolCall::new("q", "execute_sql", json!({ "sql_query": BY_CATEGORY }));
    let output = tools::sql_tools().call(&call, &ctx).await;
    let id = output.structured.as_ref().unwrap()["query_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let body = story_body(&format!("<table query_id=\"{id}\" />"), ctx.results()).await;
    // Each HTML row holds the cells of the model's Markdown row, in order.
    let mut rows = 0;
    for line in output.content.lines() {
        let cells: Vec<&str> = line.split(" | ").collect();
        let [number, category, revenue] = cells[..] else {
            continue;
        };
        if number.trim_start_matches("| ").parse::<usize>().is_err() {
            continue;
        }
        // The model's exact number, as people read it (the HTML rounds a float to cents).
        let revenue: f64 = revenue.trim_end_matches(" |").parse().unwrap();
        let prefix = format!("<tr><td>{category}</td><td class=\"num\">");
        let at = body
            .find(&prefix)
            .unwrap_or_else(|| panic!("{prefix} not in {body}"));
        let shown = &body[at + prefix.len()..];
        let shown: f64 = shown[..shown.find('<').unwrap()]
            .replace(',', "")
            .parse()
            .unwrap();
        assert!(
            (shown - revenue).abs() <= 0.005,
            "{category}: {shown} for {revenue}"
        );
        rows += 1;
    }
    assert!(rows > 0, "{}", output.content);
}
