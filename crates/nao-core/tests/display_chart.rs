//! display_chart on the SQLite demo database: every validation rule, every chart type, the
//! Vega-Lite structure, and every demo chart validated against the official Vega-Lite schema.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::OnceLock;

use common::DemoTools;

use nao_core::ChartType;
use nao_core::chart::{ChartSpec, Series, to_vega_lite};
use serde_json::{Value, json};

/// The tools over the demo shop, with display_chart helpers.
struct Env {
    tools: DemoTools,
}

impl Env {
    fn new() -> Self {
        Env {
            tools: DemoTools::new(),
        }
    }

    async fn query(&self, sql: &str) -> String {
        self.tools.query(sql).await
    }

    async fn chart(&self, args: Value) -> nao_core::ToolResult {
        self.tools.call("display_chart", args).await
    }

    async fn ok(&self, args: Value) -> Value {
        self.tools.ok("display_chart", args).await
    }

    async fn err(&self, args: Value) -> String {
        self.tools.err("display_chart", args).await
    }
}

const MONTHLY: &str = "SELECT strftime('%Y-%m', ordered_at) AS month, SUM(total) AS revenue, \
     COUNT(*) AS orders FROM orders GROUP BY 1 ORDER BY 1";
const BY_CHANNEL: &str = "SELECT strftime('%Y-%m', ordered_at) AS month, \
     SUM(CASE WHEN channel = 'web' THEN total ELSE 0 END) AS web, \
     SUM(CASE WHEN channel = 'mobile' THEN total ELSE 0 END) AS mobile, \
     SUM(CASE WHEN channel = 'store' THEN total ELSE 0 END) AS store \
     FROM orders GROUP BY 1 ORDER BY 1";
const BY_CATEGORY: &str = "SELECT p.category, SUM(i.quantity * i.unit_price) AS revenue \
     FROM order_items i JOIN products p ON p.id = i.product_id GROUP BY 1 ORDER BY 2 DESC";
const BY_CITY: &str =
    "SELECT city, COUNT(*) AS customers FROM customers GROUP BY 1 ORDER BY 2 DESC";
const PRODUCTS: &str = "SELECT price, cost, name FROM products ORDER BY id";
const TOTAL: &str = "SELECT SUM(total) AS revenue FROM orders";

fn args(
    query_id: &str,
    chart_type: &str,
    x: &str,
    x_type: &str,
    series: Value,
    title: &str,
) -> Value {
    json!({
        "query_id": query_id,
        "chart_type": chart_type,
        "x_axis_key": x,
        "x_axis_type": x_type,
        "series": series,
        "title": title,
    })
}

/// The demo charts: one per chart type, as a model would ask for them.
async fn demo_charts(env: &Env) -> Vec<(&'static str, Value)> {
    let monthly = env.query(MONTHLY).await;
    let channel = env.query(BY_CHANNEL).await;
    let category = env.query(BY_CATEGORY).await;
    let products = env.query(PRODUCTS).await;
    let total = env.query(TOTAL).await;
    let channels = json!([
        {"data_key": "web", "label": "Web"},
        {"data_key": "mobile", "label": "Mobile", "color": "#ff7f0e"},
        {"data_key": "store", "label": "Store"},
    ]);
    let revenue = json!([{"data_key": "revenue", "label": "Revenue"}]);
    vec![
        (
            "bar",
            args(
                &category,
                "bar",
                "category",
                "category",
                revenue.clone(),
                "Revenue by category",
            ),
        ),
        (
            "horizontal_bar",
            args(
                &category,
                "horizontal_bar",
                "category",
                "category",
                revenue.clone(),
                "Revenue by category",
            ),
        ),
        (
            "stacked_bar",
            args(
                &channel,
                "stacked_bar",
                "month",
                "date",
                channels.clone(),
                "Monthly revenue by channel",
            ),
        ),
        (
            "line",
            args(
                &monthly,
                "line",
                "month",
                "date",
                json!([{"data_key": "revenue"}, {"data_key": "orders"}]),
                "Monthly revenue and orders",
            ),
        ),
        (
            "area",
            args(
                &monthly,
                "area",
                "month",
                "date",
                revenue.clone(),
                "Monthly revenue",
            ),
        ),
        (
            "stacked_area",
            args(
                &channel,
                "stacked_area",
                "month",
                "date",
                channels.clone(),
                "Monthly revenue by channel",
            ),
        ),
        (
            "pie",
            args(
                &category,
                "pie",
                "category",
                "category",
                revenue.clone(),
                "Revenue share by category",
            ),
        ),
        (
            "donut",
            args(
                &category,
                "donut",
                "category",
                "category",
                revenue.clone(),
                "Revenue share by category",
            ),
        ),
        (
            "scatter",
            args(
                &products,
                "scatter",
                "price",
                "number",
                json!([{"data_key": "cost", "label": "Cost"}]),
                "Cost against price",
            ),
        ),
        (
            "kpi_card",
            args(
                &total,
                "kpi_card",
                "revenue",
                "number",
                revenue,
                "Total revenue",
            ),
        ),
        (
            "grouped_bar",
            args(
                &channel,
                "bar",
                "month",
                "date",
                channels,
                "Monthly revenue by channel",
            ),
        ),
    ]
}

#[tokio::test]
async fn every_chart_type_is_accepted_and_pushed_as_an_artifact() {
    let env = Env::new();
    let charts = demo_charts(&env).await;
    for (name, args) in &charts {
        let out = env.ok(args.clone()).await;
        assert_eq!(out["spec"]["chart_type"], args["chart_type"], "{name}");
        assert!(out["chart_id"].as_str().unwrap().starts_with("chart_"));
        assert!(
            !out["vega_lite"]["data"]["values"]
                .as_array()
                .unwrap()
                .is_empty()
        );
    }
    let artifacts = env.tools.ctx.artifacts();
    assert_eq!(artifacts.len(), charts.len());
    assert!(artifacts.iter().all(|a| a.kind == "chart"));
    assert!(artifacts[0].content["spec"]["series"].is_array());
    assert!(artifacts[0].content["vega_lite"]["mark"].is_object());
}

#[tokio::test]
async fn the_model_gets_a_summary() {
    let env = Env::new();
    let monthly = env.query(MONTHLY).await;
    let result = env
        .chart(args(
            &monthly,
            "line",
            "month",
            "date",
            json!([{"data_key": "revenue", "label": "Revenue"}]),
            "Monthly | revenue",
        ))
        .await;
    assert!(!result.is_error);
    let md = &result.content;
    assert!(
        md.contains("is shown to the user: line \"Monthly \\| revenue\""),
        "{md}"
    );
    assert!(
        md.contains("- x: `month` (date), from 2023-02 to 2024-12"),
        "{md}"
    );
    assert!(md.contains("- series Revenue (`revenue`): min "), "{md}");
    assert_eq!(result.row_count, Some(23));

    let total = env.query(TOTAL).await;
    let kpi = env
        .chart(args(
            &total,
            "kpi_card",
            "revenue",
            "number",
            json!([{"data_key": "revenue"}]),
            "Total",
        ))
        .await;
    assert!(
        kpi.content.contains("- revenue (`revenue`): "),
        "{}",
        kpi.content
    );
}

#[tokio::test]
async fn unknown_query_id() {
    let env = Env::new();
    let msg = env
        .err(args(
            "q_nope",
            "bar",
            "a",
            "category",
            json!([{"data_key": "b"}]),
            "t",
        ))
        .await;
    assert!(
        msg.contains("no query result has the id \"q_nope\""),
        "{msg}"
    );
}

#[tokio::test]
async fn unknown_columns_list_the_columns() {
    let env = Env::new();
    let q = env.query(MONTHLY).await;
    let msg = env
        .err(args(
            &q,
            "bar",
            "months",
            "date",
            json!([{"data_key": "revenue"}]),
            "t",
        ))
        .await;
    assert!(
        msg.contains("x_axis_key \"months\" is not a column"),
        "{msg}"
    );
    assert!(msg.contains("month (Utf8), revenue ("), "{msg}");
    let msg = env
        .err(args(
            &q,
            "bar",
            "month",
            "date",
            json!([{"data_key": "sales"}]),
            "t",
        ))
        .await;
    assert!(
        msg.contains("series[0].data_key \"sales\" is not a column"),
        "{msg}"
    );
    assert!(msg.contains("orders (Int64)"), "{msg}");
}

#[tokio::test]
async fn series_must_be_numeric() {
    let env = Env::new();
    let q = env.query(PRODUCTS).await;
    let msg = env
        .err(args(
            &q,
            "scatter",
            "price",
            "number",
            json!([{"data_key": "name"}]),
            "t",
        ))
        .await;
    assert!(
        msg.contains("series \"name\" has type Utf8, which is not numeric"),
        "{msg}"
    );
    assert!(msg.contains("numeric columns here: price, cost"), "{msg}");
}

#[tokio::test]
async fn x_axis_type_must_fit_the_column() {
    let env = Env::new();
    let q = env.query(BY_CATEGORY).await;
    let msg = env
        .err(args(
            &q,
            "line",
            "category",
            "date",
            json!([{"data_key": "revenue"}]),
            "t",
        ))
        .await;
    assert!(
        msg.contains("x_axis_type \"date\" does not fit column \"category\" (Utf8)"),
        "{msg}"
    );
    assert!(msg.contains("is not an ISO-8601 date"), "{msg}");
    let msg = env
        .err(args(
            &q,
            "line",
            "category",
            "number",
            json!([{"data_key": "revenue"}]),
            "t",
        ))
        .await;
    assert!(
        msg.contains("use x_axis_type \\\"category\\\"")
            || msg.contains("use x_axis_type \"category\""),
        "{msg}"
    );
    let p = env.query(PRODUCTS).await;
    let msg = env
        .err(args(
            &p,
            "line",
            "price",
            "date",
            json!([{"data_key": "cost"}]),
            "t",
        ))
        .await;
    assert!(msg.contains("does not fit column \"price\""), "{msg}");
    let msg = env
        .err(args(
            &p,
            "scatter",
            "name",
            "category",
            json!([{"data_key": "cost"}]),
            "t",
        ))
        .await;
    assert!(
        msg.contains("scatter chart needs a number or date x axis"),
        "{msg}"
    );
}

#[tokio::test]
async fn pie_and_donut_take_exactly_one_series() {
    let env = Env::new();
    let q = env.query(BY_CHANNEL).await;
    for kind in ["pie", "donut"] {
        let msg = env
            .err(args(
                &q,
                kind,
                "month",
                "category",
                json!([{"data_key": "web"}, {"data_key": "store"}]),
                "t",
            ))
            .await;
        assert!(
            msg.contains(&format!("a {kind} chart takes exactly one series")),
            "{msg}"
        );
    }
}

#[tokio::test]
async fn stacked_types_need_two_series_and_suggest_pivoting() {
    let env = Env::new();
    let q = env.query(MONTHLY).await;
    for kind in ["stacked_bar", "stacked_area"] {
        let msg = env
            .err(args(
                &q,
                kind,
                "month",
                "date",
                json!([{"data_key": "revenue"}]),
                "t",
            ))
            .await;
        assert!(msg.contains("needs at least two series to stack"), "{msg}");
        assert!(msg.contains("SUM(CASE WHEN"), "{msg}");
    }
}

#[tokio::test]
async fn kpi_card_shows_one_value() {
    let env = Env::new();
    let q = env.query(MONTHLY).await;
    let msg = env
        .err(args(
            &q,
            "kpi_card",
            "revenue",
            "number",
            json!([{"data_key": "revenue"}]),
            "t",
        ))
        .await;
    assert!(
        msg.contains("a kpi_card shows one value, but the result has 23 rows"),
        "{msg}"
    );
    let msg = env
        .err(args(
            &q,
            "kpi_card",
            "revenue",
            "number",
            json!([{"data_key": "revenue"}, {"data_key": "orders"}]),
            "t",
        ))
        .await;
    assert!(
        msg.contains("kpi_card shows exactly one value: one series, not 2"),
        "{msg}"
    );
}

#[tokio::test]
async fn too_many_slices_for_a_pie() {
    let env = Env::new();
    let q = env.query(BY_CITY).await;
    let msg = env
        .err(args(
            &q,
            "pie",
            "city",
            "category",
            json!([{"data_key": "customers"}]),
            "t",
        ))
        .await;
    assert!(msg.contains("slices cannot be read (at most 12)"), "{msg}");
    assert!(
        msg.contains("use a bar or horizontal_bar chart, or keep the top 11"),
        "{msg}"
    );
}

#[tokio::test]
async fn shapes_titles_colours_and_schema_errors() {
    let env = Env::new();
    let q = env.query(MONTHLY).await;
    let empty = env
        .query("SELECT channel AS month, id AS revenue FROM orders WHERE id < 0")
        .await;
    let msg = env
        .err(args(
            &empty,
            "bar",
            "month",
            "category",
            json!([{"data_key": "revenue"}]),
            "t",
        ))
        .await;
    assert!(msg.contains("the result has no rows"), "{msg}");
    let msg = env
        .err(args(
            &q,
            "bar",
            "month",
            "date",
            json!([{"data_key": "revenue", "color": "red\" onload=\"x"}]),
            "t",
        ))
        .await;
    assert!(msg.contains("is not a colour"), "{msg}");
    let msg = env
        .err(args(
            &q,
            "bar",
            "month",
            "date",
            json!([{"data_key": "revenue"}]),
            "   ",
        ))
        .await;
    assert!(msg.contains("the title must be"), "{msg}");
    let msg = env
        .err(args(
            &q,
            "radar",
            "month",
            "date",
            json!([{"data_key": "revenue"}]),
            "t",
        ))
        .await;
    assert!(msg.contains("invalid arguments for display_chart"), "{msg}");
    let msg = env
        .err(args(&q, "bar", "month", "date", json!([]), "t"))
        .await;
    assert!(msg.contains("invalid arguments for display_chart"), "{msg}");
}

#[tokio::test]
async fn vega_lite_data_comes_from_the_result() {
    let env = Env::new();
    let q = env.query(BY_CHANNEL).await;
    let out = env
        .ok(args(
            &q,
            "stacked_bar",
            "month",
            "date",
            json!([{"data_key": "web", "label": "Web"}, {"data_key": "store", "color": "#123456"}]),
            "By channel",
        ))
        .await;
    let vl = &out["vega_lite"];
    assert_eq!(
        vl["$schema"],
        "https://vega.github.io/schema/vega-lite/v6.json"
    );
    assert_eq!(vl["title"]["text"], "By channel");
    let values = vl["data"]["values"].as_array().unwrap();
    assert_eq!(values.len(), 23);
    assert_eq!(values[0]["month"], "2023-02");
    assert!(values[0]["web"].is_number());
    // Only the charted columns are exported.
    assert!(values[0].get("mobile").is_none());
    assert_eq!(vl["transform"][0]["fold"], json!(["web", "store"]));
    assert_eq!(vl["mark"]["type"], "bar");
    assert_eq!(vl["encoding"]["x"]["type"], "ordinal");
    assert_eq!(vl["encoding"]["y"]["type"], "quantitative");
    assert_eq!(vl["encoding"]["y"]["stack"], "zero");
    assert_eq!(
        vl["encoding"]["color"]["scale"]["domain"],
        json!(["Web", "store"])
    );
    assert_eq!(vl["encoding"]["color"]["scale"]["range"][1], "#123456");

    let line = env
        .ok(args(
            &q,
            "line",
            "month",
            "date",
            json!([{"data_key": "web"}]),
            "Web",
        ))
        .await;
    let enc = &line["vega_lite"]["encoding"];
    assert_eq!(enc["x"]["type"], "temporal");
    assert_eq!(enc["y"]["stack"], Value::Null);
    assert_eq!(enc["color"]["legend"], Value::Null);

    let c = env.query(BY_CATEGORY).await;
    let bar = env
        .ok(args(
            &c,
            "horizontal_bar",
            "category",
            "category",
            json!([{"data_key": "revenue"}]),
            "t",
        ))
        .await;
    let enc = &bar["vega_lite"]["encoding"];
    assert_eq!(enc["y"]["type"], "nominal");
    assert_eq!(
        enc["y"]["sort"],
        Value::Null,
        "categories keep the query's order"
    );
    assert_eq!(enc["x"]["field"], "__value");
    let pie = env
        .ok(args(
            &c,
            "donut",
            "category",
            "category",
            json!([{"data_key": "revenue"}]),
            "t",
        ))
        .await;
    let vl = &pie["vega_lite"];
    assert_eq!(vl["mark"]["type"], "arc");
    assert!(vl["mark"]["innerRadius"].is_number());
    assert_eq!(vl["encoding"]["theta"]["type"], "quantitative");
    assert_eq!(vl["encoding"]["color"]["type"], "nominal");
}

#[tokio::test]
async fn field_names_with_dots_are_escaped() {
    let env = Env::new();
    let q = env
        .query("SELECT 'a' AS \"x.y\", 1 AS \"v[0]\" UNION ALL SELECT 'b', 2")
        .await;
    let result = env
        .tools
        .ctx
        .results()
        .get(&nao_core::QueryId::from_model(q.clone()))
        .await
        .unwrap();
    let spec = ChartSpec::new(
        &q,
        ChartType::Bar,
        "x.y",
        nao_core::AxisType::Category,
        vec![Series::new("v[0]")],
        "t",
    );
    let vl = to_vega_lite(&spec, &result).unwrap();
    assert_eq!(vl["encoding"]["x"]["field"], "x\\.y");
    assert_eq!(vl["transform"][0]["fold"][0], "v\\[0\\]");
    assert_eq!(vl["data"]["values"][0]["x.y"], "a");
    schema_validator().validate(&vl).unwrap();
}

fn encode_refs(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if key == "$ref"
                    && let Value::String(r) = v
                {
                    let mut encoded = String::new();
                    for c in r.chars() {
                        if c.is_ascii_alphanumeric() || "-._~!$&'()*+,;=:@/?#%".contains(c) {
                            encoded.push(c);
                        } else {
                            let mut buf = [0u8; 4];
                            for b in c.encode_utf8(&mut buf).bytes() {
                                encoded.push_str(&format!("%{b:02X}"));
                            }
                        }
                    }
                    *r = encoded;
                } else {
                    encode_refs(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(encode_refs),
        _ => {}
    }
}

fn schema_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/vega-lite-v6.5.0.schema.json"
        );
        let mut schema: Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        // The official schema's `$ref`s hold `<`, `|`, `>` and spaces raw (generic type names),
        // which the draft-07 meta-schema's `uri-reference` format refuses: percent-encode them,
        // as RFC 6901 says a pointer in a URI fragment is written.
        encode_refs(&mut schema);
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft7)
            .build(&schema)
            .unwrap()
    })
}

#[tokio::test]
async fn every_demo_chart_is_valid_vega_lite() {
    // The validator does reject what is not Vega-Lite.
    assert!(!schema_validator().is_valid(&json!({"mark": "pie_slice", "data": {"values": []}})));
    let env = Env::new();
    for (name, args) in demo_charts(&env).await {
        let out = env.ok(args).await;
        let vl = &out["vega_lite"];
        let errors: Vec<String> = schema_validator()
            .iter_errors(vl)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .take(5)
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:#?}\n{vl:#}");
    }
}
