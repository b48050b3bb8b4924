//! Data-level checks: each mark of a chart sits where the value it stands for belongs. The
//! axes are read back from the SVG (tick positions and their labels), and every mark's pixel
//! position is mapped back through them to a value, which must be the row's own value within a
//! pixel. Counting marks cannot see a chart that plots the wrong data; this can.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use nao_charts::render_svg;
use nao_core::chart::{AxisType, ChartSpec, ChartType, Series, XValue, x_value_at};
use nao_core::{Databases, QueryId, QueryResult, ToolCall, ToolContext, tools};
use nao_dialects::demo::{DemoScale, generate};
use nao_dialects::sqlite::{SqliteDialect, load_batches};
use serde_json::json;

async fn query(sql: &str) -> Arc<QueryResult> {
    let tables = generate(DemoScale::Small).unwrap();
    let shop = SqliteDialect::in_memory("shop", move |conn| {
        for table in &tables {
            load_batches(conn, table.name, &table.batches)?;
        }
        Ok(())
    })
    .unwrap();
    let ctx = ToolContext::new(Databases::new().with(Arc::new(shop)));
    let call = ToolCall::new("q", "execute_sql", json!({ "sql_query": sql }));
    let result = tools::sql_tools().call(&call, &ctx).await;
    assert!(!result.is_error, "{}", result.content);
    let id = result.structured.unwrap()["query_id"]
        .as_str()
        .unwrap()
        .to_owned();
    ctx.results().get(&QueryId::from_model(id)).await.unwrap()
}

/// The numbers of column `name`, row by row (`None` for NULL).
fn numbers(result: &QueryResult, name: &str) -> Vec<Option<f64>> {
    let index = result.schema.index_of(name).unwrap();
    result
        .batches
        .iter()
        .flat_map(|batch| {
            let column = batch.column(index);
            (0..batch.num_rows()).map(move |row| match x_value_at(column.as_ref(), row) {
                XValue::Number(n) => Some(n),
                XValue::Null => None,
                other => panic!("{name} holds {other:?}, not a number"),
            })
        })
        .collect()
}

/// The value of an attribute in one tag.
fn attribute(tag: &str, name: &str) -> Option<f64> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    let end = tag[start..].find('"')? + start;
    tag[start..end].parse().ok()
}

/// An axis read back from the SVG: the pixel position of each tick and the value of its label.
#[derive(Debug, Default)]
struct Axis {
    ticks: Vec<f64>,
    labels: Vec<f64>,
}

impl Axis {
    /// Pixel → value, checked: the labels must be linear in their ticks' positions (within a
    /// pixel), or the axis itself misplaces its labels.
    fn to_value(&self) -> impl Fn(f64) -> f64 {
        assert_eq!(
            self.ticks.len(),
            self.labels.len(),
            "one label per tick: {self:?}"
        );
        assert!(self.ticks.len() >= 2, "an axis has two ticks: {self:?}");
        let (p0, v0) = (self.ticks[0], self.labels[0]);
        let last = self.ticks.len() - 1;
        let per_pixel = (self.labels[last] - v0) / (self.ticks[last] - p0);
        for (p, v) in self.ticks.iter().zip(&self.labels) {
            let expected = v0 + (p - p0) * per_pixel;
            assert!(
                (expected - v).abs() <= per_pixel.abs(),
                "tick at {p} is labelled {v}, the axis says {expected}: {self:?}"
            );
        }
        move |pixel| v0 + (pixel - p0) * per_pixel
    }

    /// The value one pixel spans.
    fn per_pixel(&self) -> f64 {
        let last = self.ticks.len() - 1;
        ((self.labels[last] - self.labels[0]) / (self.ticks[last] - self.ticks[0])).abs()
    }
}

/// The x and y axes of a cartesian chart: tick marks are 5-pixel lines out of the axis
/// (vertical ones below the x axis, horizontal ones left of the y axis); the numeric labels
/// after them are theirs, in the same order.
fn axes(svg: &str) -> (Axis, Axis) {
    let (mut x, mut y) = (Axis::default(), Axis::default());
    let mut current: Option<char> = None;
    let mut rest = svg;
    while let Some(start) = rest.find('<') {
        let end = rest[start..].find('>').unwrap() + start;
        let tag = &rest[start..=end];
        if tag.starts_with("<line ") {
            let get = |n| attribute(tag, n).unwrap_or(f64::NAN);
            let (x1, y1, x2, y2) = (get("x1"), get("y1"), get("x2"), get("y2"));
            if x1 == x2 && (y2 - y1 - 5.0).abs() < 0.01 {
                x.ticks.push(x1);
                current = Some('x');
            } else if y1 == y2 && (x1 - x2 - 5.0).abs() < 0.01 {
                y.ticks.push(y1);
                current = Some('y');
            }
        } else if tag.starts_with("<text ") {
            let text_end = rest[end + 1..].find('<').unwrap() + end + 1;
            let text = rest[end + 1..text_end].trim();
            if let (Some(axis), Ok(value)) = (current, text.parse::<f64>()) {
                match axis {
                    'x' => x.labels.push(value),
                    _ => y.labels.push(value),
                }
            }
        }
        rest = &rest[end + 1..];
    }
    (x, y)
}

/// The centres of the data points (circles that carry a series, not the legend's).
fn points(svg: &str) -> Vec<(f64, f64)> {
    svg.match_indices("<circle ")
        .map(|(start, _)| &svg[start..start + svg[start..].find('>').unwrap()])
        .filter(|tag| tag.contains("data-series="))
        .map(|tag| (attribute(tag, "cx").unwrap(), attribute(tag, "cy").unwrap()))
        .collect()
}

/// Renders a scatter of `y` against `x` over `result` and checks that every row with both
/// values is one point, at the position of its values.
fn assert_scatter_plots(result: &QueryResult, x: &str, y: &str) {
    let spec = ChartSpec::new(
        result.id.as_str(),
        ChartType::Scatter,
        x,
        AxisType::Number,
        vec![Series::new(y)],
        format!("{y} against {x}"),
    );
    let svg = render_svg(&spec, result).unwrap();
    let rows: Vec<(f64, f64)> = numbers(result, x)
        .into_iter()
        .zip(numbers(result, y))
        .filter_map(|(x, y)| Some((x?, y?)))
        .collect();
    let drawn = points(&svg);
    assert_eq!(
        drawn.len(),
        rows.len(),
        "one point per row with both values"
    );
    let (x_axis, y_axis) = axes(&svg);
    let (x_of, y_of) = (x_axis.to_value(), y_axis.to_value());
    let (x_tolerance, y_tolerance) = (x_axis.per_pixel(), y_axis.per_pixel());
    for (i, ((cx, cy), (want_x, want_y))) in drawn.iter().zip(&rows).enumerate() {
        let (got_x, got_y) = (x_of(*cx), y_of(*cy));
        assert!(
            (got_x - want_x).abs() <= x_tolerance && (got_y - want_y).abs() <= y_tolerance,
            "point {i} at ({cx}, {cy}) reads ({got_x:.2}, {got_y:.2}), the row is \
             ({want_x}, {want_y}); axes: x {x_axis:?}, y {y_axis:?}"
        );
    }
}

#[tokio::test]
async fn scatter_points_sit_at_their_rows_values() {
    let products = query("SELECT price, cost FROM products").await;
    assert!(products.row_count >= 20, "enough products to tell");
    assert_scatter_plots(&products, "price", "cost");
}

#[tokio::test]
async fn scatter_with_negative_values_and_nulls_plots_the_complete_rows() {
    let result = query(
        "SELECT column1 AS x, column2 AS y FROM (VALUES (1.5, -2.0), (NULL, 3.0), \
         (-4.0, 5.5), (10.0, NULL), (7.25, 0.0), (-1.0, -8.5))",
    )
    .await;
    assert_scatter_plots(&result, "x", "y");
}

#[tokio::test]
async fn scatter_of_one_row_is_one_point() {
    let result = query("SELECT 3.5 AS x, 42.0 AS y").await;
    let spec = ChartSpec::new(
        result.id.as_str(),
        ChartType::Scatter,
        "x",
        AxisType::Number,
        vec![Series::new("y")],
        "one row",
    );
    let svg = render_svg(&spec, &result).unwrap();
    assert_eq!(points(&svg).len(), 1, "{svg}");
}
