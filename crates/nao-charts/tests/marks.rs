//! Data-level checks: each mark of a chart sits where the value it stands for belongs. The
//! axes are read back from the SVG (tick positions and their labels), and every mark's pixel
//! position is mapped back through them to a value, which must be the row's own value within a
//! pixel. Counting marks cannot see a chart that plots the wrong data; this can.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::query;
use nao_core::QueryResult;

use nao_charts::render_svg;
use nao_core::chart::{AxisType, ChartSpec, ChartType, Series, XValue, x_value_at};

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

/// The SVG of a `kind` chart of `series` against `x` over `result` (titled by its kind).
fn draw(result: &QueryResult, kind: ChartType, x: &str, axis: AxisType, series: &[&str]) -> String {
    let series = series.iter().map(|name| Series::new(*name)).collect();
    let spec = ChartSpec::new(result.id.as_str(), kind, x, axis, series, kind.name());
    render_svg(&spec, result).unwrap()
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

/// A label as charts-rs writes it: a number with an optional `k`, `M`, `G` or `T` suffix.
fn label_value(text: &str) -> Option<f64> {
    let (number, scale) = match text.char_indices().last()? {
        (i, 'k') => (&text[..i], 1e3),
        (i, 'M') => (&text[..i], 1e6),
        (i, 'G') => (&text[..i], 1e9),
        (i, 'T') => (&text[..i], 1e12),
        _ => (text, 1.0),
    };
    number.parse::<f64>().ok().map(|n| n * scale)
}

/// The x and y axes of a cartesian chart, read from its grid: the long horizontal lines (grid
/// lines and the x axis) are the y ticks, the long vertical ones (grid lines and the y axis)
/// the x ticks; the numeric labels left of the plot are the y axis's, top to bottom, those
/// below it the x axis's, left to right. A category axis has no numeric labels.
fn axes(svg: &str) -> (Axis, Axis) {
    let mut horizontal = Vec::new(); // (y, left)
    let mut vertical = Vec::new(); // (x, bottom)
    let mut texts = Vec::new(); // (x, y, value)
    let mut rest = svg;
    while let Some(start) = rest.find('<') {
        let end = rest[start..].find('>').unwrap() + start;
        let tag = &rest[start..=end];
        if tag.starts_with("<line ") {
            let get = |n| attribute(tag, n).unwrap_or(f64::NAN);
            let (x1, y1, x2, y2) = (get("x1"), get("y1"), get("x2"), get("y2"));
            if y1 == y2 && (x2 - x1).abs() > 50.0 {
                horizontal.push((y1, x1.min(x2)));
            } else if x1 == x2 && (y2 - y1).abs() > 50.0 {
                vertical.push((x1, y1.max(y2)));
            }
        } else if tag.starts_with("<text ") {
            let text_end = rest[end + 1..].find('<').unwrap() + end + 1;
            if let (Some(x), Some(y), Some(value)) = (
                attribute(tag, "x"),
                attribute(tag, "y"),
                label_value(rest[end + 1..text_end].trim()),
            ) {
                texts.push((x, y, value));
            }
        }
        rest = &rest[end + 1..];
    }
    let left = horizontal.iter().map(|h| h.1).fold(f64::INFINITY, f64::min);
    let bottom = horizontal
        .iter()
        .map(|h| h.0)
        .fold(f64::NEG_INFINITY, f64::max);
    let distinct = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.dedup_by(|a, b| (*a - *b).abs() < 0.5);
        v
    };
    // A label's y is its baseline: a few pixels below its tick on the y axis, a line below
    // the plot on the x axis.
    let below = |t: &&(f64, f64, f64)| t.1 > bottom + 10.0;
    let mut y_labels: Vec<_> = texts.iter().filter(|t| t.0 < left && !below(t)).collect();
    y_labels.sort_by(|a, b| a.1.total_cmp(&b.1));
    let mut x_labels: Vec<_> = texts.iter().filter(below).collect();
    x_labels.sort_by(|a, b| a.0.total_cmp(&b.0));
    let x = Axis {
        ticks: if x_labels.is_empty() {
            Vec::new()
        } else {
            distinct(vertical.iter().map(|v| v.0).collect())
        },
        labels: x_labels.iter().map(|t| t.2).collect(),
    };
    let y = Axis {
        ticks: distinct(horizontal.iter().map(|h| h.0).collect()),
        labels: y_labels.iter().map(|t| t.2).collect(),
    };
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
    let svg = draw(result, ChartType::Scatter, x, AxisType::Number, &[y]);
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
    let svg = draw(&result, ChartType::Scatter, "x", AxisType::Number, &["y"]);
    assert_eq!(points(&svg).len(), 1, "{svg}");
}

/// The bars of a chart: `(top, bottom)` of each rect that carries a series, in order.
fn bars(svg: &str) -> Vec<(f64, f64)> {
    bar_rects(svg)
        .into_iter()
        .map(|(_, top, bottom)| (top, bottom))
        .collect()
}

/// Renders a bar chart of `value` by `category` over `result` and checks that every bar spans
/// from zero to its row's value on the y axis.
fn assert_bars_span_their_values(result: &QueryResult, category: &str, value: &str) {
    let svg = draw(
        result,
        ChartType::Bar,
        category,
        AxisType::Category,
        &[value],
    );
    let rows: Vec<f64> = numbers(result, value).into_iter().flatten().collect();
    let drawn = bars(&svg);
    assert_eq!(drawn.len(), rows.len(), "one bar per value");
    let (_, y_axis) = axes(&svg);
    let y_of = y_axis.to_value();
    let tolerance = y_axis.per_pixel();
    for (i, ((top, bottom), want)) in drawn.iter().zip(&rows).enumerate() {
        let (high, low) = (y_of(*top), y_of(*bottom));
        let (want_high, want_low) = if *want >= 0.0 {
            (*want, 0.0)
        } else {
            (0.0, *want)
        };
        assert!(
            (high - want_high).abs() <= tolerance && (low - want_low).abs() <= tolerance,
            "bar {i} spans {low:.1}..{high:.1}, the row is {want}; y axis {y_axis:?}"
        );
    }
}

#[tokio::test]
async fn bars_span_from_zero_to_their_values() {
    let revenue = query(
        "SELECT p.category, SUM(i.quantity * i.unit_price) AS revenue \
         FROM order_items i JOIN products p ON p.id = i.product_id GROUP BY 1 ORDER BY 2 DESC",
    )
    .await;
    assert_bars_span_their_values(&revenue, "category", "revenue");
}

#[tokio::test]
async fn negative_bars_hang_below_zero() {
    let result = query(
        "SELECT column1 AS month, column2 AS margin FROM (VALUES ('Jan', 120.5), \
         ('Feb', -40.25), ('Mar', 0.0), ('Apr', -310.0), ('May', 75.0))",
    )
    .await;
    assert_bars_span_their_values(&result, "month", "margin");
}
/// The vertices of each straight path (`M x y L x y …`) whose tag passes `wanted`, in order.
fn polylines(svg: &str, wanted: impl Fn(&str) -> bool) -> Vec<Vec<(f64, f64)>> {
    svg.match_indices("<path ")
        .map(|(start, _)| &svg[start..start + svg[start..].find('>').unwrap()])
        .filter(|tag| wanted(tag))
        .map(|tag| {
            let d = &tag[tag.find(" d=\"").unwrap() + 4..];
            let d = &d[..d.find('"').unwrap()];
            let numbers: Vec<f64> = d
                .split(|c: char| c == 'M' || c == 'L' || c.is_whitespace())
                .filter(|part| !part.is_empty())
                .map(|part| part.parse().unwrap())
                .collect();
            numbers.chunks(2).map(|p| (p[0], p[1])).collect()
        })
        .collect()
}

/// The vertices of each line (paths without fill), in order.
fn lines(svg: &str) -> Vec<Vec<(f64, f64)>> {
    polylines(svg, |tag| {
        tag.contains("fill=\"none\"") && tag.contains(" d=\"M ")
    })
}

#[tokio::test]
async fn a_line_over_uneven_dates_keeps_their_spacing_and_values() {
    // Two days apart, then fifty-nine, then one: row positions would space them evenly.
    let result = query(
        "SELECT column1 AS day, column2 AS visits FROM (VALUES ('2024-01-01', 120.0), \
         ('2024-01-03', 80.0), ('2024-03-02', 200.0), ('2024-03-03', 150.0))",
    )
    .await;
    let svg = draw(&result, ChartType::Line, "day", AxisType::Date, &["visits"]);
    let drawn = lines(&svg);
    assert_eq!(drawn.len(), 1, "one line: {svg}");
    let line = &drawn[0];
    assert_eq!(line.len(), 4, "one vertex per row");
    let days = [0.0, 2.0, 61.0, 62.0];
    let per_day = (line[3].0 - line[0].0) / days[3];
    assert!(per_day > 0.0, "time runs left to right");
    for (vertex, day) in line.iter().zip(days) {
        let expected = line[0].0 + day * per_day;
        assert!(
            (vertex.0 - expected).abs() <= 1.0,
            "day {day} at x {} where the time scale puts it at {expected:.1}: {line:?}",
            vertex.0
        );
    }
    let (_, y_axis) = axes(&svg);
    let y_of = y_axis.to_value();
    for (vertex, want) in line.iter().zip([120.0, 80.0, 200.0, 150.0]) {
        assert!(
            (y_of(vertex.1) - want).abs() <= y_axis.per_pixel(),
            "vertex at y {} reads {:.1}, the row is {want}",
            vertex.1,
            y_of(vertex.1)
        );
    }
}

#[tokio::test]
async fn a_kpi_number_fits_its_card_even_in_a_wider_font() {
    for sql in [
        "SELECT 19395221.6 AS revenue",
        "SELECT -1234567890123.25 AS revenue",
        "SELECT 7 AS revenue",
    ] {
        let result = query(sql).await;
        let svg = draw(
            &result,
            ChartType::KpiCard,
            "revenue",
            AxisType::Number,
            &["revenue"],
        );
        let width = attribute(&svg[..svg.find('>').unwrap()], "width").unwrap();
        let big = svg.find("font-weight=\"bold\"").unwrap();
        let tag_start = svg[..big].rfind("<text").unwrap();
        let tag = &svg[tag_start..big + svg[big..].find('>').unwrap()];
        let size = attribute(tag, "font-size").unwrap();
        let text_end = big + svg[big..].find("</text>").unwrap();
        let number = &svg[big + svg[big..].find('>').unwrap() + 1..text_end];
        #[allow(clippy::cast_precision_loss)]
        let chars = number.chars().count() as f64;
        // A wide fallback: 0.75 em per character, 20% wider than Roboto's bold digits.
        let drawn = chars * size * 0.75;
        assert!(
            drawn <= width,
            "{number} at {size}px takes {drawn}px of a {width}px card"
        );
        assert!(svg.contains("sans-serif"), "a generic fallback font: {svg}");
    }
}

#[tokio::test]
async fn chart_text_falls_back_to_a_sans_serif_font() {
    let result = query("SELECT 'a' AS k, 1.0 AS v UNION ALL SELECT 'b', 2.0").await;
    for kind in [
        ChartType::Bar,
        ChartType::Line,
        ChartType::Pie,
        ChartType::Scatter,
    ] {
        let axis = if kind == ChartType::Scatter {
            AxisType::Number
        } else {
            AxisType::Category
        };
        let x = if kind == ChartType::Scatter { "v" } else { "k" };
        let svg = draw(&result, kind, x, axis, &["v"]);
        let families: Vec<&str> = svg
            .match_indices("font-family=\"")
            .map(|(i, m)| {
                let rest = &svg[i + m.len()..];
                &rest[..rest.find('"').unwrap()]
            })
            .collect();
        assert!(!families.is_empty(), "{kind:?} has text");
        for family in families {
            assert!(
                family.ends_with("sans-serif"),
                "{kind:?}: font-family {family:?} has no generic fallback"
            );
        }
    }
}

/// The bars of a horizontal bar chart: `(left, right)` of each rect that carries a series.
fn horizontal_bars(svg: &str) -> Vec<(f64, f64)> {
    svg.match_indices("<rect ")
        .map(|(start, _)| &svg[start..start + svg[start..].find('>').unwrap()])
        .filter(|tag| tag.contains("data-series="))
        .map(|tag| {
            let left = attribute(tag, "x").unwrap();
            (left, left + attribute(tag, "width").unwrap())
        })
        .collect()
}

#[tokio::test]
async fn horizontal_bars_span_from_zero_to_their_values() {
    let result = query(
        "SELECT column1 AS team, column2 AS score FROM (VALUES ('a', 120.5), ('b', 40.25), \
         ('c', 310.0), ('d', 75.0))",
    )
    .await;
    let svg = draw(
        &result,
        ChartType::HorizontalBar,
        "team",
        AxisType::Category,
        &["score"],
    );
    let rows: Vec<f64> = numbers(&result, "score").into_iter().flatten().collect();
    let drawn = horizontal_bars(&svg);
    assert_eq!(drawn.len(), rows.len(), "one bar per value");
    let (x_axis, _) = axes(&svg);
    let x_of = x_axis.to_value();
    let tolerance = x_axis.per_pixel();
    for ((left, right), want) in drawn.iter().zip(&rows) {
        let (low, high) = (x_of(*left), x_of(*right));
        assert!(
            low.abs() <= tolerance && (high - want).abs() <= tolerance,
            "bar spans {low:.1}..{high:.1}, the row is {want}; x axis {x_axis:?}"
        );
    }
}

#[tokio::test]
async fn stacked_bars_stack_each_series_on_the_ones_before() {
    let result = query(
        "SELECT column1 AS month, column2 AS web, column3 AS store FROM (VALUES \
         ('Jan', 100.0, 50.0), ('Feb', 20.0, 180.0), ('Mar', 0.0, 75.5))",
    )
    .await;
    let svg = draw(
        &result,
        ChartType::StackedBar,
        "month",
        AxisType::Category,
        &["web", "store"],
    );
    let (web, store) = (numbers(&result, "web"), numbers(&result, "store"));
    let (_, y_axis) = axes(&svg);
    let y_of = y_axis.to_value();
    let tolerance = y_axis.per_pixel();
    // Segments in order: every web bar, then every store bar; a zero bar has no height.
    let segments: Vec<(f64, f64)> = bars(&svg)
        .iter()
        .map(|(top, bottom)| (y_of(*bottom), y_of(*top)))
        .filter(|(low, high)| high - low > tolerance)
        .collect();
    let mut expected = Vec::new();
    for (w, s) in web.iter().zip(&store) {
        let (w, s) = (w.unwrap(), s.unwrap());
        expected.push(((0.0, w), (w, w + s)));
    }
    let want: Vec<(f64, f64)> = expected
        .iter()
        .map(|e| e.0)
        .chain(expected.iter().map(|e| e.1))
        .filter(|(low, high)| high > low)
        .collect();
    assert_eq!(
        segments.len(),
        want.len(),
        "segments {segments:?}, rows {want:?}"
    );
    for (got, want) in segments.iter().zip(&want) {
        assert!(
            (got.0 - want.0).abs() <= tolerance && (got.1 - want.1).abs() <= tolerance,
            "segment {:.1}..{:.1}, expected {}..{}; y axis {y_axis:?}",
            got.0,
            got.1,
            want.0,
            want.1
        );
    }
}

#[tokio::test]
async fn stacked_areas_draw_each_series_on_the_running_total() {
    let result = query(
        "SELECT column1 AS month, column2 AS web, column3 AS store FROM (VALUES \
         ('Jan', 100.0, 50.0), ('Feb', 20.0, 180.0), ('Mar', 0.0, 75.5), ('Apr', 60.0, 0.0))",
    )
    .await;
    let svg = draw(
        &result,
        ChartType::StackedArea,
        "month",
        AxisType::Category,
        &["web", "store"],
    );
    let (web, store) = (numbers(&result, "web"), numbers(&result, "store"));
    let tops: Vec<Vec<f64>> = vec![
        web.iter().map(|w| w.unwrap()).collect(),
        web.iter()
            .zip(&store)
            .map(|(w, s)| w.unwrap() + s.unwrap())
            .collect(),
    ];
    let drawn = lines(&svg);
    assert_eq!(drawn.len(), tops.len(), "one outline per series: {drawn:?}");
    let (_, y_axis) = axes(&svg);
    let y_of = y_axis.to_value();
    for (line, want) in drawn.iter().zip(&tops) {
        assert_eq!(line.len(), want.len(), "one vertex per row");
        for (vertex, want) in line.iter().zip(want) {
            assert!(
                (y_of(vertex.1) - want).abs() <= y_axis.per_pixel(),
                "vertex at y {} reads {:.1}, the running total is {want}; y axis {y_axis:?}",
                vertex.1,
                y_of(vertex.1)
            );
        }
    }
}

/// Bar rectangles with their left edge: (x, top, bottom).
fn bar_rects(svg: &str) -> Vec<(f64, f64, f64)> {
    svg.match_indices("<rect ")
        .map(|(start, _)| &svg[start..start + svg[start..].find('>').unwrap()])
        .filter(|tag| tag.contains("data-series="))
        .map(|tag| {
            let top = attribute(tag, "y").unwrap();
            (
                attribute(tag, "x").unwrap(),
                top,
                top + attribute(tag, "height").unwrap(),
            )
        })
        .collect()
}

/// A month with no value (NULL) between months with values.
const WITH_A_NULL: &str = "SELECT column1 AS month, column2 AS sales FROM (VALUES ('Jan', 10.0), \
     ('Feb', NULL), ('Mar', 30.0), ('Apr', 20.0))";

#[tokio::test]
async fn a_null_value_draws_no_bar_and_moves_no_other() {
    let result = query(WITH_A_NULL).await;
    let svg = draw(
        &result,
        ChartType::Bar,
        "month",
        AxisType::Category,
        &["sales"],
    );
    let drawn = bar_rects(&svg);
    assert_eq!(drawn.len(), 3, "no bar for Feb: {drawn:?}");
    // Feb keeps its band, empty: Jan to Mar is two bands, Mar to Apr one.
    let band = drawn[2].0 - drawn[1].0;
    assert!(
        (drawn[1].0 - drawn[0].0 - 2.0 * band).abs() <= 1.0,
        "the bars keep their months' places: {drawn:?}"
    );
    let (_, y_axis) = axes(&svg);
    let y_of = y_axis.to_value();
    for ((_, top, bottom), want) in drawn.iter().zip([10.0, 30.0, 20.0]) {
        assert!((y_of(*top) - want).abs() <= y_axis.per_pixel(), "{drawn:?}");
        assert!(y_of(*bottom).abs() <= y_axis.per_pixel(), "{drawn:?}");
    }
}

/// The centres of a line's point symbols: `<circle>`s drawn as a batch, whose stroke their
/// group sets (the legend's circle carries its own).
fn symbols(svg: &str) -> Vec<(f64, f64)> {
    svg.match_indices("<circle ")
        .map(|(start, _)| &svg[start..start + svg[start..].find('>').unwrap()])
        .filter(|tag| !tag.contains("stroke-width="))
        .filter_map(|tag| Some((attribute(tag, "cx")?, attribute(tag, "cy")?)))
        .collect()
}

#[tokio::test]
async fn a_null_value_breaks_the_line_and_a_lone_value_still_shows() {
    let result = query(WITH_A_NULL).await;
    for kind in [ChartType::Line, ChartType::Area] {
        let svg = draw(&result, kind, "month", AxisType::Category, &["sales"]);
        let drawn = lines(&svg);
        // No vertex for Feb, and no segment across it: Jan alone, then Mar to Apr.
        assert_eq!(
            drawn.iter().map(Vec::len).collect::<Vec<_>>(),
            [1, 2],
            "{kind:?}: {drawn:?}"
        );
        let (_, y_axis) = axes(&svg);
        let y_of = y_axis.to_value();
        let vertices: Vec<(f64, f64)> = drawn.concat();
        for ((_, y), want) in vertices.iter().zip([10.0, 30.0, 20.0]) {
            assert!(
                (y_of(*y) - want).abs() <= y_axis.per_pixel(),
                "{kind:?}: {vertices:?}"
            );
        }
        // A one-vertex path draws nothing: Jan shows as its symbol.
        let jan = vertices[0];
        assert!(
            symbols(&svg)
                .iter()
                .any(|(x, y)| (x - jan.0).abs() <= 1.0 && (y - jan.1).abs() <= 1.0),
            "{kind:?}: no symbol at Jan {jan:?}: {:?}",
            symbols(&svg)
        );
    }
}

/// The x axis's category labels, left to right (text below the plot that is not a number).
fn category_labels(svg: &str) -> Vec<(f64, String)> {
    let mut labels = Vec::new();
    let mut rest = svg;
    while let Some(start) = rest.find("<text ") {
        let end = rest[start..].find('>').unwrap() + start;
        let close = rest[end..].find("</text>").unwrap() + end;
        let tag = &rest[start..end];
        let text = rest[end + 1..close].trim();
        if let (Some(x), Some(y)) = (attribute(tag, "x"), attribute(tag, "y"))
            && y > 300.0
            && y < 430.0
            && label_value(text).is_none()
        {
            labels.push((x, text.to_owned()));
        }
        rest = &rest[close..];
    }
    labels
}

#[tokio::test]
async fn every_bar_keeps_its_label_however_long() {
    let products = [
        "Ergonomic office chair with lumbar support",
        "Standing desk, walnut, 160 x 80 cm",
        "Noise-cancelling wireless headphones",
        "USB-C docking station with dual HDMI",
        "Mechanical keyboard, brown switches",
        "27-inch 4K monitor with height stand",
        "Webcam 1080p with privacy shutter",
    ];
    let values: Vec<String> = products
        .iter()
        .enumerate()
        .map(|(i, p)| format!("('{p}', {}.0)", i + 1))
        .collect();
    let result = query(&format!(
        "SELECT column1 AS product, column2 AS sales FROM (VALUES {})",
        values.join(", ")
    ))
    .await;
    let svg = draw(
        &result,
        ChartType::Bar,
        "product",
        AxisType::Category,
        &["sales"],
    );
    let labels = category_labels(&svg);
    assert_eq!(
        labels.len(),
        products.len(),
        "one label per bar: {labels:?}"
    );
    let slot = (labels[1].0 - labels[0].0).abs();
    for ((x, label), product) in labels.iter().zip(products) {
        // Cut where it would run into the next one, never rewritten.
        let kept = label.trim_end_matches('…');
        assert!(
            product.starts_with(kept) && !kept.is_empty(),
            "{label} for {product}"
        );
        // Roboto's letters average about half an em: the label stays inside its slot.
        let width = label.chars().count() as f64 * 0.5 * 14.0;
        assert!(
            width <= slot,
            "{label} at {x} is about {width:.0} px in a {slot:.0} px slot"
        );
    }
}

/// A slice's path: where it starts, and its first and last radial points.
struct Slice {
    start: (f64, f64),
    first: (f64, f64),
    last: (f64, f64),
}

/// Each slice's starting point (`M`: the centre of a pie, the inner radius of a donut) and its
/// first and last radial points (`L x,y`): a slice starts and ends on a radius (charts-rs rounds
/// its corners between them).
fn slices(svg: &str) -> Vec<Slice> {
    let point = |text: &str| {
        let (x, y) = text.split_once(',').unwrap();
        (x.parse::<f64>().unwrap(), y.trim().parse::<f64>().unwrap())
    };
    svg.match_indices("<path ")
        .map(|(start, _)| &svg[start..start + svg[start..].find('>').unwrap()])
        .filter(|tag| tag.contains("data-percentage="))
        .map(|tag| {
            let d = &tag[tag.find(" d=\"").unwrap() + 4..];
            let d = &d[..d.find('"').unwrap()];
            let radial: Vec<(f64, f64)> = d
                .split('L')
                .skip(1)
                .map(|p| point(p.split_whitespace().next().unwrap()))
                .collect();
            let start = point(
                d.strip_prefix('M')
                    .unwrap()
                    .split_whitespace()
                    .next()
                    .unwrap(),
            );
            Slice {
                start,
                first: radial[0],
                last: *radial.last().unwrap(),
            }
        })
        .collect()
}

/// Where the lines through `a1`-`a2` and `b1`-`b2` meet.
fn intersection(a1: (f64, f64), a2: (f64, f64), b1: (f64, f64), b2: (f64, f64)) -> (f64, f64) {
    let (dxa, dya) = (a2.0 - a1.0, a2.1 - a1.1);
    let (dxb, dyb) = (b2.0 - b1.0, b2.1 - b1.1);
    let t = ((b1.0 - a1.0) * dyb - (b1.1 - a1.1) * dxb) / (dxa * dyb - dya * dxb);
    (a1.0 + t * dxa, a1.1 + t * dya)
}

#[tokio::test]
async fn pie_and_donut_slices_turn_by_their_share() {
    let result = query(
        "SELECT column1 AS channel, column2 AS orders FROM (VALUES ('web', 10.0), \
         ('mobile', 30.0), ('store', 45.0), ('phone', 15.0))",
    )
    .await;
    let shares = [0.10, 0.30, 0.45, 0.15];
    for kind in [ChartType::Pie, ChartType::Donut] {
        let svg = draw(&result, kind, "channel", AxisType::Category, &["orders"]);
        let drawn = slices(&svg);
        assert_eq!(drawn.len(), 4, "{kind:?}: one slice per row");
        // A slice's start and its first radial point lie on its first radius: two such radii
        // meet at the centre.
        let centre = intersection(
            drawn[0].start,
            drawn[0].first,
            drawn[1].start,
            drawn[1].first,
        );
        let angle = |p: (f64, f64)| (p.1 - centre.1).atan2(p.0 - centre.0).to_degrees();
        for (i, (slice, share)) in drawn.iter().zip(shares).enumerate() {
            let turn = (angle(slice.last) - angle(slice.first)).rem_euclid(360.0);
            assert!(
                (turn - share * 360.0).abs() <= 2.0,
                "{kind:?}: slice {i} turns {turn:.1}°, its share is {:.1}°",
                share * 360.0
            );
            let next = &drawn[(i + 1) % drawn.len()];
            let gap = (angle(next.first) - angle(slice.last)).rem_euclid(360.0);
            assert!(
                gap.min(360.0 - gap) <= 2.0,
                "{kind:?}: slice {i} ends {gap:.1}° before the next starts"
            );
        }
    }
}

/// The filled polygons (`<path … fill-opacity=…>`): each one's vertices.
fn fills(svg: &str) -> Vec<Vec<(f64, f64)>> {
    polylines(svg, |tag| tag.contains("fill-opacity="))
}

#[tokio::test]
async fn an_area_is_filled_from_zero_up_to_its_values() {
    let result = query(
        "SELECT column1 AS week, column2 AS signups FROM (VALUES ('W1', 120.0), \
         ('W2', 80.0), ('W3', 200.0), ('W4', 150.0))",
    )
    .await;
    let svg = draw(
        &result,
        ChartType::Area,
        "week",
        AxisType::Category,
        &["signups"],
    );
    let (_, y_axis) = axes(&svg);
    let y_of = y_axis.to_value();
    let tolerance = y_axis.per_pixel();
    let outline = lines(&svg).concat();
    assert_eq!(outline.len(), 4, "{outline:?}");
    for ((_, y), want) in outline.iter().zip([120.0, 80.0, 200.0, 150.0]) {
        assert!((y_of(*y) - want).abs() <= tolerance, "{outline:?}");
    }
    // The fill runs along the outline and closes along zero.
    let fill = &fills(&svg)[0];
    for vertex in &outline {
        assert!(fill.contains(vertex), "{vertex:?} not on the fill {fill:?}");
    }
    let below: Vec<&(f64, f64)> = fill.iter().filter(|v| !outline.contains(v)).collect();
    assert!(!below.is_empty(), "{fill:?}");
    for (_, y) in below {
        assert!(
            y_of(*y).abs() <= tolerance,
            "the fill closes at {:.1}, not at zero",
            y_of(*y)
        );
    }
}

#[tokio::test]
async fn a_long_line_keeps_its_spike_where_it_was_and_says_how_many_rows_it_plots() {
    let result = query(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) \
         SELECT i AS step, CASE WHEN i = 1234 THEN 500.0 ELSE (i % 97) * 1.0 END AS load FROM n",
    )
    .await;
    let svg = draw(
        &result,
        ChartType::Line,
        "step",
        AxisType::Category,
        &["load"],
    );
    let line = lines(&svg).concat();
    assert!(
        line.len() <= nao_core::chart::MAX_PLOTTED_POINTS,
        "{}",
        line.len()
    );
    assert!(
        svg.contains(&format!("{} of 3000 rows plotted", line.len())),
        "no subtitle says how many rows"
    );
    // The highest vertex is the spike, at its value, 1233/2999 of the way along the line.
    let (_, y_axis) = axes(&svg);
    let y_of = y_axis.to_value();
    let top = line
        .iter()
        .copied()
        .fold((0.0, f64::MAX), |a, b| if b.1 < a.1 { b } else { a });
    assert!((y_of(top.1) - 500.0).abs() <= y_axis.per_pixel(), "{top:?}");
    let (first, last) = (line[0].0, line[line.len() - 1].0);
    let along = (top.0 - first) / (last - first);
    assert!(
        (along - 1233.0 / 2999.0).abs() < 0.002,
        "the spike sits {along:.4} along"
    );
}

#[tokio::test]
async fn a_date_scatter_places_its_points_in_time() {
    // Out of order, unevenly spaced, one date missing: points by date, not by row.
    let result = query(
        "SELECT column1 AS day, column2 AS visits FROM (VALUES ('2024-03-02', 200.0), \
         ('2024-01-01', 120.0), (NULL, 999.0), ('2024-03-03', 150.0), ('2024-01-03', 80.0))",
    )
    .await;
    let svg = draw(
        &result,
        ChartType::Scatter,
        "day",
        AxisType::Date,
        &["visits"],
    );
    // No line joins the points (a dash of length zero).
    assert!(!svg.contains("stroke-dasharray=\"") || svg.contains("stroke-dasharray=\"0 1000000\""));
    let mut drawn = symbols(&svg);
    drawn.sort_by(|a, b| a.0.total_cmp(&b.0));
    assert_eq!(drawn.len(), 4, "one point per dated row: {drawn:?}");
    // Days since 2024-01-01, in time order, with their values.
    let rows = [(0.0, 120.0), (2.0, 80.0), (61.0, 200.0), (62.0, 150.0)];
    let per_day = (drawn[3].0 - drawn[0].0) / 62.0;
    let (_, y_axis) = axes(&svg);
    let y_of = y_axis.to_value();
    for ((x, y), (day, visits)) in drawn.iter().zip(rows) {
        let expected = drawn[0].0 + day * per_day;
        assert!(
            (x - expected).abs() <= 1.0,
            "day {day} at {x}, not {expected:.1}: {drawn:?}"
        );
        assert!((y_of(*y) - visits).abs() <= y_axis.per_pixel(), "{drawn:?}");
    }
}
