//! Vega-Lite export: a [`ChartSpec`] plus its result become a Vega-Lite v6 spec whose data is
//! the result's rows (never values the model wrote).

use serde_json::{Map, Value, json};

use super::values::number_json;
use super::{AxisType, ChartData, ChartSpec, ChartSpecError, ChartType, PALETTE};
use crate::QueryResult;

/// The Vega-Lite schema the exported specs declare.
pub const VEGA_LITE_SCHEMA: &str = "https://vega.github.io/schema/vega-lite/v6.json";

/// Folded field names: which series a value belongs to, and the value.
const SERIES_KEY: &str = "__series_key";
const SERIES: &str = "__series";
const VALUE: &str = "__value";

/// Validates `spec` against `result` and exports it as a Vega-Lite spec. The data values are
/// the result's rows the chart plots ([`ChartData::plotted`]): the x column and the series
/// columns, in the result's order.
pub fn to_vega_lite(spec: &ChartSpec, result: &QueryResult) -> Result<Value, ChartSpecError> {
    let data = ChartData::extract(spec, result)?;
    Ok(vega_lite_from_data(spec, &data.plotted(spec.chart_type)))
}

/// The Vega-Lite spec of an already validated chart, plotting `data` as it is (pass
/// [`ChartData::plotted`] to thin a long line).
pub fn vega_lite_from_data(spec: &ChartSpec, data: &ChartData) -> Value {
    let mut top = Map::new();
    top.insert("$schema".into(), json!(VEGA_LITE_SCHEMA));
    top.insert(
        "description".into(),
        json!(format!(
            "{} chart of query {}",
            spec.chart_type.name(),
            spec.query_id
        )),
    );
    top.insert("usermeta".into(), json!({"query_id": spec.query_id}));
    top.insert("data".into(), json!({"values": rows(spec, data)}));
    match spec.chart_type {
        ChartType::KpiCard => kpi(spec, &mut top),
        ChartType::Pie | ChartType::Donut => pie(spec, data, &mut top),
        _ => cartesian(spec, data, &mut top),
    }
    Value::Object(top)
}

/// A Vega-Lite field reference: `.`, `[` and `]` would be read as nested access.
fn field(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '.' | '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn rows(spec: &ChartSpec, data: &ChartData) -> Vec<Value> {
    (0..data.len())
        .map(|row| {
            let mut object = Map::new();
            if spec.chart_type != ChartType::KpiCard {
                object.insert(spec.x_axis_key.clone(), data.x[row].to_json());
            }
            for series in &data.series {
                let value = series.values[row].map_or(Value::Null, number_json);
                object.insert(series.data_key.clone(), value);
            }
            Value::Object(object)
        })
        .collect()
}

fn title(spec: &ChartSpec) -> Value {
    json!({"text": spec.title})
}

fn kpi(spec: &ChartSpec, top: &mut Map<String, Value>) {
    let series = spec.series.first();
    let key = series.map_or("", |s| s.data_key.as_str());
    let label = series.map_or("", |s| s.display_label());
    top.insert(
        "title".into(),
        json!({"text": spec.title, "subtitle": label}),
    );
    top.insert("width".into(), json!(240));
    top.insert("height".into(), json!(120));
    top.insert(
        "mark".into(),
        json!({"type": "text", "fontSize": 48, "fontWeight": "bold"}),
    );
    top.insert(
        "encoding".into(),
        json!({"text": {"field": field(key), "type": "quantitative", "format": ",.2~f"}}),
    );
}

fn pie(spec: &ChartSpec, data: &ChartData, top: &mut Map<String, Value>) {
    let series = spec.series.first();
    let key = series.map_or("", |s| s.data_key.as_str());
    let label = series.map_or("", |s| s.display_label());
    top.insert("title".into(), title(spec));
    top.insert("width".into(), json!(320));
    top.insert("height".into(), json!(320));
    let mut mark = json!({"type": "arc", "outerRadius": 140});
    if spec.chart_type == ChartType::Donut {
        mark["innerRadius"] = json!(70);
    }
    top.insert("mark".into(), mark);
    let colors: Vec<&str> = (0..data.len())
        .map(|i| PALETTE[i % PALETTE.len()])
        .collect();
    top.insert(
        "encoding".into(),
        json!({
            "theta": {"field": field(key), "type": "quantitative", "stack": true, "title": label},
            "color": {
                "field": field(&spec.x_axis_key),
                "type": "nominal",
                "title": spec.x_axis_key,
                "sort": null,
                "scale": {"range": colors},
            },
            "tooltip": [
                {"field": field(&spec.x_axis_key), "type": "nominal"},
                {"field": field(key), "type": "quantitative", "title": label},
            ],
        }),
    );
}

fn cartesian(spec: &ChartSpec, data: &ChartData, top: &mut Map<String, Value>) {
    let kind = spec.chart_type;
    let bars = matches!(
        kind,
        ChartType::Bar | ChartType::HorizontalBar | ChartType::StackedBar
    );
    let several = data.series.len() > 1;
    top.insert("title".into(), title(spec));
    top.insert("width".into(), json!(640));
    top.insert("height".into(), json!(360));

    // Every series column is folded into (series, value) pairs so one encoding draws them all.
    let keys: Vec<String> = data.series.iter().map(|s| field(&s.data_key)).collect();
    let mut label_expr = format!("datum.{SERIES_KEY}");
    for series in data.series.iter().rev() {
        label_expr = format!(
            "datum.{SERIES_KEY} === {} ? {} : {label_expr}",
            Value::String(series.data_key.clone()),
            Value::String(series.label.clone())
        );
    }
    top.insert(
        "transform".into(),
        json!([
            {"fold": keys, "as": [SERIES_KEY, VALUE]},
            {"calculate": label_expr, "as": SERIES},
        ]),
    );

    let mark = match kind {
        ChartType::Line => json!({"type": "line", "point": true}),
        ChartType::Area => json!({"type": "area", "opacity": if several { 0.5 } else { 0.8 }}),
        ChartType::StackedArea => json!({"type": "area"}),
        ChartType::Scatter => json!({"type": "point", "filled": true}),
        _ => json!({"type": "bar"}),
    };
    top.insert("mark".into(), mark);

    let (x_type, sort) = match (spec.x_axis_type, bars) {
        (AxisType::Category, _) => ("nominal", Value::Null),
        (_, true) => ("ordinal", json!("ascending")),
        (AxisType::Date, false) => ("temporal", json!("ascending")),
        (AxisType::Number, false) => ("quantitative", json!("ascending")),
    };
    let mut x = json!({"field": field(&spec.x_axis_key), "type": x_type, "title": spec.x_axis_key});
    if x_type != "quantitative" && x_type != "temporal" {
        x["sort"] = sort;
    }
    if x_type == "quantitative" {
        x["scale"] = json!({"zero": false});
    }
    let y_title = data
        .series
        .iter()
        .map(|s| s.label.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let stack = if kind.is_stacked() {
        json!("zero")
    } else {
        Value::Null
    };
    let y = json!({"field": VALUE, "type": "quantitative", "title": y_title, "stack": stack});
    let labels: Vec<&str> = data.series.iter().map(|s| s.label.as_str()).collect();
    let colors: Vec<&str> = data.series.iter().map(|s| s.color.as_str()).collect();
    let legend = if several {
        json!({"title": null})
    } else {
        Value::Null
    };
    let color = json!({
        "field": SERIES,
        "type": "nominal",
        "scale": {"domain": labels, "range": colors},
        "sort": null,
        "legend": legend,
    });
    let tooltip = json!([
        {"field": field(&spec.x_axis_key), "type": x_type, "title": spec.x_axis_key},
        {"field": SERIES, "type": "nominal", "title": "series"},
        {"field": VALUE, "type": "quantitative", "title": "value"},
    ]);
    let mut encoding = Map::new();
    if kind == ChartType::HorizontalBar {
        encoding.insert("y".into(), x);
        encoding.insert("x".into(), y);
        if several {
            encoding.insert("yOffset".into(), json!({"field": SERIES, "sort": null}));
        }
    } else {
        encoding.insert("x".into(), x);
        encoding.insert("y".into(), y);
        if several && kind == ChartType::Bar {
            encoding.insert("xOffset".into(), json!({"field": SERIES, "sort": null}));
        }
    }
    encoding.insert("color".into(), color);
    encoding.insert("tooltip".into(), tooltip);
    top.insert("encoding".into(), Value::Object(encoding));
}
