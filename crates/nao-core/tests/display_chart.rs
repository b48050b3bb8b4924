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

const NO_ROWS: &str = "SELECT channel AS month, id AS revenue FROM orders WHERE id < 0";

/// A display_chart call the tool must refuse, and what its error must say.
struct Refused {
    /// The SQL whose result is charted; `None` names a query id that does not exist.
    sql: Option<&'static str>,
    chart: &'static str,
    x: &'static str,
    x_type: &'static str,
    series: Value,
    title: &'static str,
    says: &'static [&'static str],
}

/// A refused call titled "t".
fn refused(
    sql: &'static str,
    chart: &'static str,
    (x, x_type): (&'static str, &'static str),
    series: Value,
    says: &'static [&'static str],
) -> Refused {
    Refused {
        sql: Some(sql),
        chart,
        x,
        x_type,
        series,
        title: "t",
        says,
    }
}

fn one(key: &str) -> Value {
    json!([{ "data_key": key }])
}

#[tokio::test]
async fn every_invalid_chart_gets_an_error_that_says_what_to_change() {
    let cases = vec![
        Refused {
            sql: None,
            ..refused(
                "",
                "bar",
                ("a", "category"),
                one("b"),
                &["no query result has the id \"q_nope\""],
            )
        },
        // Unknown columns list the columns there are.
        refused(
            MONTHLY,
            "bar",
            ("months", "date"),
            one("revenue"),
            &[
                "x_axis_key \"months\" is not a column",
                "month (Utf8), revenue (",
            ],
        ),
        refused(
            MONTHLY,
            "bar",
            ("month", "date"),
            one("sales"),
            &[
                "series[0].data_key \"sales\" is not a column",
                "orders (Int64)",
            ],
        ),
        // Series must be numeric.
        refused(
            PRODUCTS,
            "scatter",
            ("price", "number"),
            one("name"),
            &[
                "series \"name\" has type Utf8, which is not numeric",
                "numeric columns here: price, cost",
            ],
        ),
        // The x axis type must fit the column.
        refused(
            BY_CATEGORY,
            "line",
            ("category", "date"),
            one("revenue"),
            &[
                "x_axis_type \"date\" does not fit column \"category\" (Utf8)",
                "is not an ISO-8601 date",
            ],
        ),
        refused(
            BY_CATEGORY,
            "line",
            ("category", "number"),
            one("revenue"),
            &["use x_axis_type \"category\""],
        ),
        refused(
            PRODUCTS,
            "line",
            ("price", "date"),
            one("cost"),
            &["does not fit column \"price\""],
        ),
        refused(
            PRODUCTS,
            "scatter",
            ("name", "category"),
            one("cost"),
            &["scatter chart needs a number or date x axis"],
        ),
        // Pie and donut take exactly one series.
        refused(
            BY_CHANNEL,
            "pie",
            ("month", "category"),
            json!([{"data_key": "web"}, {"data_key": "store"}]),
            &["a pie chart takes exactly one series"],
        ),
        refused(
            BY_CHANNEL,
            "donut",
            ("month", "category"),
            json!([{"data_key": "web"}, {"data_key": "store"}]),
            &["a donut chart takes exactly one series"],
        ),
        // Stacked types need two series, and are told how to pivot.
        refused(
            MONTHLY,
            "stacked_bar",
            ("month", "date"),
            one("revenue"),
            &["needs at least two series to stack", "SUM(CASE WHEN"],
        ),
        refused(
            MONTHLY,
            "stacked_area",
            ("month", "date"),
            one("revenue"),
            &["needs at least two series to stack", "SUM(CASE WHEN"],
        ),
        // A KPI card shows one value.
        refused(
            MONTHLY,
            "kpi_card",
            ("revenue", "number"),
            one("revenue"),
            &["a kpi_card shows one value, but the result has 23 rows"],
        ),
        refused(
            MONTHLY,
            "kpi_card",
            ("revenue", "number"),
            json!([{"data_key": "revenue"}, {"data_key": "orders"}]),
            &["kpi_card shows exactly one value: one series, not 2"],
        ),
        // Too many slices for a pie.
        refused(
            BY_CITY,
            "pie",
            ("city", "category"),
            one("customers"),
            &[
                "slices cannot be read (at most 12)",
                "use a bar or horizontal_bar chart, or keep the top 11",
            ],
        ),
        // Empty results, colours, titles, and arguments outside the schema.
        refused(
            NO_ROWS,
            "bar",
            ("month", "category"),
            one("revenue"),
            &["the result has no rows"],
        ),
        refused(
            MONTHLY,
            "bar",
            ("month", "date"),
            json!([{"data_key": "revenue", "color": "red\" onload=\"x"}]),
            &["is not a colour"],
        ),
        Refused {
            title: "   ",
            ..refused(
                MONTHLY,
                "bar",
                ("month", "date"),
                one("revenue"),
                &["the title must be"],
            )
        },
        refused(
            MONTHLY,
            "radar",
            ("month", "date"),
            one("revenue"),
            &["invalid arguments for display_chart"],
        ),
        refused(
            MONTHLY,
            "bar",
            ("month", "date"),
            json!([]),
            &["invalid arguments for display_chart"],
        ),
    ];
    let env = Env::new();
    let mut ids = std::collections::HashMap::new();
    for case in cases {
        let id = match case.sql {
            None => "q_nope".to_owned(),
            Some(sql) => match ids.get(sql) {
                Some(id) => String::clone(id),
                None => {
                    let id = env.query(sql).await;
                    ids.insert(sql, id.clone());
                    id
                }
            },
        };
        let call = args(
            &id,
            case.chart,
            case.x,
            case.x_type,
            case.series,
            case.title,
        );
        let msg = env.err(call.clone()).await;
        for expected in case.says {
            assert!(
                msg.contains(expected),
                "{call}\n  said: {msg}\n  not: {expected}"
            );
        }
    }
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

/// A line over more rows than a chart plots: the rows with each stretch's extremes are
/// plotted (the spike among them), the model is told so, and its figures count every row.
#[tokio::test]
async fn a_long_line_plots_its_extremes_and_says_so() {
    let env = Env::new();
    let id = env
        .query(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) \
             SELECT i AS step, CASE WHEN i = 1234 THEN 5000.0 ELSE (i % 97) * 1.0 END AS load \
             FROM n",
        )
        .await;
    let result = env
        .chart(args(
            &id,
            "line",
            "step",
            "number",
            json!([{"data_key": "load"}]),
            "Load",
        ))
        .await;
    assert!(!result.is_error, "{}", result.content);
    let values = result.structured.as_ref().unwrap()["vega_lite"]["data"]["values"]
        .as_array()
        .unwrap()
        .clone();
    assert!(
        values.len() <= nao_core::chart::MAX_PLOTTED_POINTS,
        "{}",
        values.len()
    );
    assert!(values.len() > 100, "{}", values.len());
    assert!(
        values
            .iter()
            .any(|v| v["step"] == 1234.0 && v["load"] == 5000.0),
        "the spike is plotted"
    );
    assert!(
        result
            .content
            .contains(&format!("{} of the 3000 rows are plotted", values.len())),
        "{}",
        result.content
    );
    // The total counts every row: 5000 for the spike plus (i % 97) over the rest.
    let total: u64 = (1..=3000u64)
        .filter(|i| *i != 1234)
        .map(|i| i % 97)
        .sum::<u64>()
        + 5000;
    assert!(
        result.content.contains(&format!(
            "total {}",
            nao_core::render::human_number(total as f64)
        )),
        "{}",
        result.content
    );
}

/// Bars are never thinned: past the most a chart can show apart, the model is told to choose.
#[tokio::test]
async fn too_many_bars_are_refused_with_what_to_do() {
    let env = Env::new();
    let id = env
        .query(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400) \
             SELECT 'sku-' || i AS sku, i * 1.0 AS sold, i * 2.0 AS returned FROM n",
        )
        .await;
    for kind in ["bar", "stacked_bar", "horizontal_bar"] {
        let message = env
            .err(args(
                &id,
                kind,
                "sku",
                "category",
                json!([{"data_key": "sold"}, {"data_key": "returned"}]),
                "Sold",
            ))
            .await;
        assert!(message.contains("400 bars"), "{message}");
        assert!(message.contains("LIMIT 20"), "{message}");
    }
    let line = env
        .chart(args(
            &id,
            "line",
            "sku",
            "category",
            json!([{"data_key": "sold"}]),
            "Sold",
        ))
        .await;
    assert!(!line.is_error, "{}", line.content);
}
