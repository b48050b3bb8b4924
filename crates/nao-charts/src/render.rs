//! Spec + result → SVG through charts-rs.

use charts_rs::{
    AxisLabelOverflow, BarChart, Color, HorizontalBarChart, LineChart, PieChart, ScatterChart,
    Series,
};
use nao_core::chart::{ChartData, ChartSpec, ChartSpecError, ChartType, XValue};

use crate::QueryResult;
use crate::kpi::kpi_svg;

/// Width of the rendered SVG, in pixels.
pub const SVG_WIDTH: u32 = 800;
/// Height of the rendered SVG, in pixels.
pub const SVG_HEIGHT: u32 = 450;

/// Above this many categories, x labels are rotated so they stay readable.
const ROTATE_LABELS_ABOVE: usize = 12;

/// Why a chart could not be rendered.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ChartError {
    /// The spec does not fit the result.
    #[error(transparent)]
    Spec(#[from] ChartSpecError),
    /// The charting library failed.
    #[error("the chart could not be drawn: {message}")]
    Render {
        /// What failed.
        message: String,
    },
}

fn render_error(e: impl std::fmt::Display) -> ChartError {
    ChartError::Render {
        message: e.to_string(),
    }
}

#[allow(clippy::cast_possible_truncation)]
fn f32_values(values: &[Option<f64>]) -> Vec<Option<f32>> {
    values.iter().map(|v| v.map(|v| v as f32)).collect()
}

/// The points of a scatter chart: charts-rs reads each series as `x, y` pairs one after the
/// other. A row missing either value is not a point. Numbers are plotted as they are; any
/// other x (text, dates) by its position in the result.
#[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
fn scatter_series(data: &ChartData) -> Vec<Series> {
    let xs: Vec<Option<f64>> = data
        .x
        .iter()
        .enumerate()
        .map(|(i, x)| match x {
            XValue::Number(n) => Some(*n),
            XValue::Null => None,
            _ => Some(i as f64),
        })
        .collect();
    data.series
        .iter()
        .map(|s| {
            let pairs = xs
                .iter()
                .zip(&s.values)
                .filter_map(|(x, y)| Some([(*x)? as f32, (*y)? as f32]))
                .flatten()
                .collect();
            Series::new(s.label.clone(), pairs)
        })
        .collect()
}

/// Renders `spec` over `result` as a standalone SVG document.
pub fn render_svg(spec: &ChartSpec, result: &QueryResult) -> Result<String, ChartError> {
    let data = ChartData::extract(spec, result)?;
    let labels: Vec<String> = data.x.iter().map(XValue::label).collect();
    let colors: Vec<Color> = data
        .series
        .iter()
        .map(|s| Color::from(s.color.as_str()))
        .collect();
    let series = |stack: bool, fill: bool| -> Vec<Series> {
        data.series
            .iter()
            .map(|s| {
                let mut series = Series::new_nullable(s.label.clone(), f32_values(&s.values));
                if stack {
                    series.stack = Some("total".to_owned());
                }
                if fill {
                    series.fill = Some(true);
                }
                series
            })
            .collect()
    };
    let overflow = if labels.len() > ROTATE_LABELS_ABOVE {
        AxisLabelOverflow::Rotate
    } else {
        AxisLabelOverflow::Thin
    };
    let (w, h) = (SVG_WIDTH as f32, SVG_HEIGHT as f32);
    let kind = spec.chart_type;
    macro_rules! finish {
        ($chart:ident) => {{
            $chart.width = w;
            $chart.height = h;
            $chart.title.text = spec.title.clone();
            $chart.series.colors = colors.clone();
            $chart.svg().map_err(render_error)
        }};
    }
    match kind {
        ChartType::KpiCard => Ok(kpi_svg(&spec.title, &data, SVG_WIDTH / 2, SVG_HEIGHT / 2)),
        ChartType::Bar | ChartType::StackedBar => {
            let mut chart = BarChart::new(series(kind.is_stacked(), false), labels);
            chart.x_axis.label_overflow = overflow;
            finish!(chart)
        }
        ChartType::HorizontalBar => {
            let mut chart = HorizontalBarChart::new(series(false, false), labels);
            finish!(chart)
        }
        ChartType::Line | ChartType::Area | ChartType::StackedArea => {
            let fill = kind != ChartType::Line;
            let mut chart = LineChart::new(series(kind.is_stacked(), fill), labels);
            chart.x_axis.label_overflow = overflow;
            finish!(chart)
        }
        ChartType::Pie | ChartType::Donut => {
            // One charts-rs series per slice, named by its x label.
            let values = data
                .series
                .first()
                .map(|s| s.values.as_slice())
                .unwrap_or(&[]);
            let slices: Vec<Series> = labels
                .iter()
                .zip(f32_values(values))
                .map(|(label, v)| Series::new_nullable(label.clone(), vec![v]))
                .collect();
            let mut chart = PieChart::new(slices);
            // Slices are angles only (charts-rs draws a rose, radius by value, by default).
            chart.rose_type = Some(false);
            chart.inner_radius = if kind == ChartType::Donut {
                chart.radius * 0.55
            } else {
                0.0
            };
            let colors: Vec<Color> = nao_core::chart::PALETTE
                .iter()
                .cycle()
                .take(labels.len())
                .map(|c| Color::from(*c))
                .collect();
            chart.width = w;
            chart.height = h;
            chart.title.text = spec.title.clone();
            chart.series.colors = colors;
            chart.svg().map_err(render_error)
        }
        ChartType::Scatter => {
            let mut chart = ScatterChart::new(scatter_series(&data));
            finish!(chart)
        }
        _ => Err(render_error(format!(
            "chart type {} is not supported",
            kind.name()
        ))),
    }
}
