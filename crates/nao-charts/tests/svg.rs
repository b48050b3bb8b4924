//! Structural checks of the SVG of every chart type over the SQLite demo database: well-formed
//! markup, marks drawn, title/axis/legend labels present, and labels escaped.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{elements, query};
use nao_core::QueryResult;

use nao_charts::render_svg;
use nao_core::chart::{AxisType, ChartSpec, ChartType, Series};

fn count(names: &[String], name: &str) -> usize {
    names.iter().filter(|n| *n == name).count()
}

const MONTHLY: &str = "SELECT strftime('%Y-%m', ordered_at) AS month, \
     SUM(CASE WHEN channel = 'web' THEN total ELSE 0 END) AS web, \
     SUM(CASE WHEN channel = 'store' THEN total ELSE 0 END) AS store \
     FROM orders GROUP BY 1 ORDER BY 1";
const BY_CATEGORY: &str = "SELECT p.category, SUM(i.quantity * i.unit_price) AS revenue \
     FROM order_items i JOIN products p ON p.id = i.product_id GROUP BY 1 ORDER BY 2 DESC";

fn spec(
    r: &QueryResult,
    kind: ChartType,
    x: &str,
    axis: AxisType,
    series: Vec<Series>,
) -> ChartSpec {
    ChartSpec::new(
        r.id.as_str(),
        kind,
        x,
        axis,
        series,
        format!("{} chart", kind.name()),
    )
}

fn two() -> Vec<Series> {
    vec![
        Series::new("web").with_label("Web"),
        Series::new("store").with_label("Store"),
    ]
}

#[tokio::test]
async fn cartesian_charts_have_title_axes_and_legend() {
    let monthly = query(MONTHLY).await;
    for kind in [
        ChartType::Bar,
        ChartType::StackedBar,
        ChartType::Line,
        ChartType::Area,
        ChartType::StackedArea,
    ] {
        let svg = render_svg(
            &spec(&monthly, kind, "month", AxisType::Date, two()),
            &monthly,
        )
        .unwrap();
        let names = elements(&svg);
        assert_eq!(names[0], "svg", "{kind:?}");
        assert!(
            svg.contains(&format!("{} chart", kind.name())),
            "{kind:?} title"
        );
        assert!(
            svg.contains("Web") && svg.contains("Store"),
            "{kind:?} legend"
        );
        // Bars stand one per month; lines and areas are on a time scale, labelled at round
        // dates.
        let first = if matches!(kind, ChartType::Bar | ChartType::StackedBar) {
            "2023-02"
        } else {
            "2023-04"
        };
        assert!(
            svg.contains(first) && svg.contains("2024-"),
            "{kind:?} dates on the x axis"
        );
        if matches!(kind, ChartType::Bar | ChartType::StackedBar) {
            assert!(
                count(&names, "rect") >= 2 * 23,
                "{kind:?}: {} rects",
                count(&names, "rect")
            );
        } else {
            assert!(
                count(&names, "path") + count(&names, "polyline") >= 2,
                "{kind:?} lines"
            );
        }
    }
}

#[tokio::test]
async fn horizontal_bars_pies_scatter_and_kpi() {
    let cat = query(BY_CATEGORY).await;
    let revenue = || vec![Series::new("revenue").with_label("Revenue")];
    let svg = render_svg(
        &spec(
            &cat,
            ChartType::HorizontalBar,
            "category",
            AxisType::Category,
            revenue(),
        ),
        &cat,
    )
    .unwrap();
    let names = elements(&svg);
    assert!(count(&names, "rect") >= usize::try_from(cat.row_count).unwrap());
    let first = nao_core::chart::x_value_at(cat.batches[0].column(0).as_ref(), 0).label();
    assert!(svg.contains(&first), "category label {first}");

    for kind in [ChartType::Pie, ChartType::Donut] {
        let svg = render_svg(
            &spec(&cat, kind, "category", AxisType::Category, revenue()),
            &cat,
        )
        .unwrap();
        let names = elements(&svg);
        assert!(
            count(&names, "path") >= usize::try_from(cat.row_count).unwrap(),
            "{kind:?} slices"
        );
        assert!(svg.contains(&first), "{kind:?} legend");
    }

    let products = query("SELECT price, cost FROM products").await;
    let svg = render_svg(
        &spec(
            &products,
            ChartType::Scatter,
            "price",
            AxisType::Number,
            vec![Series::new("cost")],
        ),
        &products,
    )
    .unwrap();
    let names = elements(&svg);
    assert!(count(&names, "circle") >= 20, "scatter points: {names:?}");

    let total = query("SELECT SUM(total) AS revenue FROM orders").await;
    let svg = render_svg(
        &spec(
            &total,
            ChartType::KpiCard,
            "revenue",
            AxisType::Number,
            revenue(),
        ),
        &total,
    )
    .unwrap();
    let names = elements(&svg);
    assert_eq!(count(&names, "text"), 3);
    assert!(svg.contains("kpi_card chart") && svg.contains("Revenue"));
}

#[tokio::test]
async fn labels_are_escaped() {
    let r =
        query("SELECT 'a<b & \"c\"' AS label, 3 AS v UNION ALL SELECT '</svg><script>', 4").await;
    let s = ChartSpec::new(
        r.id.as_str(),
        ChartType::Bar,
        "label",
        AxisType::Category,
        vec![Series::new("v").with_label("x<&\"y")],
        "T <&\" itle",
    );
    for kind in [ChartType::Bar, ChartType::Pie, ChartType::HorizontalBar] {
        let mut s = s.clone();
        s.chart_type = kind;
        let svg = render_svg(&s, &r).unwrap();
        elements(&svg);
        assert!(!svg.contains("<script>"), "{kind:?}");
        assert!(svg.contains("T &lt;&amp;"), "{kind:?}: {svg}");
    }
}

#[tokio::test]
async fn invalid_specs_are_errors_not_panics() {
    let r = query(BY_CATEGORY).await;
    let s = spec(
        &r,
        ChartType::Pie,
        "category",
        AxisType::Category,
        vec![Series::new("nope")],
    );
    let err = render_svg(&s, &r).unwrap_err();
    assert!(
        err.to_string().contains("\"nope\" is not a column"),
        "{err}"
    );
}
