//! Spec + result → SVG through charts-rs.

use charts_rs::{
    AxisLabelOverflow, BarChart, Color, HorizontalBarChart, LineChart, PieChart, ScatterChart,
    Series, YAxisConfig,
};
use nao_core::chart::{AxisType, ChartData, ChartSpec, ChartSpecError, ChartType, XValue};

use crate::QueryResult;
use crate::fit_text::fit_text;
use crate::kpi::kpi_svg;
use crate::ticks::NiceAxis;
use crate::time_axis::epoch_seconds;

/// Width of the rendered SVG, in pixels.
pub const SVG_WIDTH: u32 = 800;
/// Height of the rendered SVG, in pixels.
pub const SVG_HEIGHT: u32 = 450;

/// Above this many categories, x labels are rotated (and thinned) rather than cut to their slots.
const ROTATE_LABELS_ABOVE: usize = 16;

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

/// The fonts chart text asks for, first to last: charts-rs lays text out with Roboto's metrics
/// (it embeds Roboto to measure), and a browser without Roboto takes the next rather than its
/// default serif, drawn at Roboto's widths ([`fit_text`]).
pub(crate) const FONT_STACK: &str = "Roboto, 'Helvetica Neue', Arial, sans-serif";

/// charts-rs's SVG as nao-charts hands it out: its text sized to the widths it was laid out
/// for ([`fit_text`]), and the font stack where charts-rs writes `font-family="Roboto"` alone.
fn finished(svg: String) -> String {
    fit_text(&svg).replace(
        "font-family=\"Roboto\"",
        &format!("font-family=\"{FONT_STACK}\""),
    )
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

/// The value axis of the series: round ticks covering every value, or every stack's total
/// (positive and negative parts apart) when `stacked`; from zero when the marks grow from it.
fn value_axis(data: &ChartData, stacked: bool, from_zero: bool) -> Option<NiceAxis> {
    if !stacked {
        let values = data.series.iter().flat_map(|s| s.values.iter().flatten());
        return NiceAxis::covering(values.copied(), from_zero);
    }
    let totals = (0..data.x.len()).flat_map(|row| {
        let at_row = data
            .series
            .iter()
            .filter_map(move |s| s.values.get(row).copied().flatten());
        let (up, down) = at_row.fold((0.0, 0.0), |(up, down), v: f64| {
            if v >= 0.0 {
                (up + v, down)
            } else {
                (up, down + v)
            }
        });
        [up, down]
    });
    NiceAxis::covering(totals, from_zero)
}

/// Puts `axis` (if any) and `title` on a charts-rs value axis.
#[allow(clippy::cast_possible_truncation)]
fn configure(config: Option<&mut YAxisConfig>, axis: Option<NiceAxis>, title: Option<&str>) {
    let Some(config) = config else { return };
    if let Some(axis) = axis {
        config.min = Some(axis.min as f32);
        config.max = Some(axis.max as f32);
        config.split_number = axis.splits;
    }
    if let Some(title) = title {
        config.title = Some(title.to_owned());
    }
}

/// The value axis title: the series' label when there is one series (several are named by
/// the legend).
fn series_title(data: &ChartData) -> Option<&str> {
    match data.series.as_slice() {
        [only] => Some(only.label.as_str()),
        _ => None,
    }
}

/// The points of a scatter chart: charts-rs reads each series as `x, y` pairs one after the
/// other. A row missing either value is not a point. Numbers are plotted as they are; any
/// other x (text) by its position in the result. A date x axis is drawn on a time scale instead
/// ([`DatedRows`]).
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

/// The rows of a chart whose x is a date, NULL dates left out: their labels, their times as
/// seconds since the epoch, and which rows they are.
struct DatedRows {
    rows: Vec<usize>,
    labels: Vec<String>,
    seconds: Vec<f64>,
}

impl DatedRows {
    /// `None` when an x value that is not NULL is not a date.
    fn of(data: &ChartData) -> Option<DatedRows> {
        let rows: Vec<usize> = (0..data.x.len())
            .filter(|&i| data.x[i] != XValue::Null)
            .collect();
        let x: Vec<XValue> = rows.iter().map(|&i| data.x[i].clone()).collect();
        Some(DatedRows {
            seconds: epoch_seconds(&x)?,
            labels: x.iter().map(XValue::label).collect(),
            rows,
        })
    }

    /// A series' values in these rows.
    fn values(&self, series: &nao_core::chart::SeriesData) -> Vec<Option<f64>> {
        self.rows.iter().map(|&i| series.values[i]).collect()
    }
}

/// Renders `spec` over `result` as a standalone SVG document.
pub fn render_svg(spec: &ChartSpec, result: &QueryResult) -> Result<String, ChartError> {
    let all = ChartData::extract(spec, result)?;
    let data = all.plotted(spec.chart_type);
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
    // Every category keeps a label, cut to its slot; with so many that a cut label would be
    // a few letters, labels turn 45° and every n-th is shown.
    let overflow = if labels.len() > ROTATE_LABELS_ABOVE {
        AxisLabelOverflow::Rotate
    } else {
        AxisLabelOverflow::Ellipsis
    };
    let (w, h) = (SVG_WIDTH as f32, SVG_HEIGHT as f32);
    let kind = spec.chart_type;
    macro_rules! finish {
        ($chart:ident) => {{
            $chart.width = w;
            $chart.height = h;
            $chart.title.text = spec.title.clone();
            if data.len() < all.len() {
                $chart.sub_title.text = format!(
                    "{} of {} rows plotted, every peak and trough kept",
                    data.len(),
                    all.len()
                );
            }
            $chart.series.colors = colors.clone();
            $chart.svg().map(finished).map_err(render_error)
        }};
    }
    match kind {
        ChartType::KpiCard => Ok(fit_text(&kpi_svg(
            &spec.title,
            &data,
            SVG_WIDTH / 2,
            SVG_HEIGHT / 2,
        ))),
        ChartType::Bar | ChartType::StackedBar => {
            let mut chart = BarChart::new(series(kind.is_stacked(), false), labels);
            chart.x_axis.label_overflow = overflow;
            chart.x_axis.title.clone_from(&spec.x_axis_key);
            let axis = value_axis(&data, kind.is_stacked(), true);
            configure(chart.y_axis_configs.first_mut(), axis, series_title(&data));
            finish!(chart)
        }
        ChartType::HorizontalBar => {
            let mut chart = HorizontalBarChart::new(series(false, false), labels);
            let axis = value_axis(&data, false, true);
            configure(chart.y_axis_configs.first_mut(), axis, None);
            finish!(chart)
        }
        ChartType::Line | ChartType::Area | ChartType::StackedArea => {
            let fill = kind != ChartType::Line;
            let mut chart = LineChart::new(series(kind.is_stacked(), fill), labels);
            chart.x_axis.label_overflow = overflow;
            // Dates on a time scale: uneven dates keep their spacing.
            if spec.x_axis_type == AxisType::Date
                && let Some(seconds) = epoch_seconds(&data.x)
            {
                chart.x_axis.kind = charts_rs::AxisType::Time;
                chart.x_axis.values = seconds;
            }
            chart.x_axis.title.clone_from(&spec.x_axis_key);
            // A line need not start at zero; an area grows from it.
            let axis = value_axis(&data, kind.is_stacked(), fill);
            configure(chart.y_axis_configs.first_mut(), axis, series_title(&data));
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
            chart.svg().map(finished).map_err(render_error)
        }
        ChartType::Scatter if spec.x_axis_type == AxisType::Date => {
            // charts-rs's scatter axis writes numbers only: dates are the points of a line
            // chart on its time axis, without the line.
            let dated = DatedRows::of(&data).ok_or_else(|| {
                render_error("a date x axis needs ISO-8601 dates (2024-03-01) in every row")
            })?;
            let series = data
                .series
                .iter()
                .map(|s| {
                    let mut series =
                        Series::new_nullable(s.label.clone(), f32_values(&dated.values(s)));
                    // No line between the points: a dash of length zero (charts-rs skips the
                    // symbols of a line of width zero).
                    series.stroke_dash_array = Some("0 1000000".to_owned());
                    series
                })
                .collect();
            let mut chart = LineChart::new(series, dated.labels);
            chart.x_axis.kind = charts_rs::AxisType::Time;
            chart.x_axis.values = dated.seconds;
            chart.x_axis.label_overflow = AxisLabelOverflow::Rotate;
            chart.x_axis.title.clone_from(&spec.x_axis_key);
            let axis = value_axis(&data, false, false);
            configure(chart.y_axis_configs.first_mut(), axis, series_title(&data));
            finish!(chart)
        }
        ChartType::Scatter => {
            let mut chart = ScatterChart::new(scatter_series(&data));
            let xs = data.x.iter().filter_map(|x| match x {
                XValue::Number(n) => Some(*n),
                _ => None,
            });
            let x_axis = NiceAxis::covering(xs, false);
            configure(Some(&mut chart.x_axis_config), x_axis, None);
            chart.x_axis.title.clone_from(&spec.x_axis_key);
            // charts-rs draws the vertical grid lines with the y axis's step count: the y axis
            // takes the x axis's, so the grid meets the x ticks.
            let ys = data
                .series
                .iter()
                .flat_map(|s| s.values.iter().flatten().copied());
            let y_axis = match x_axis {
                Some(x) => NiceAxis::covering_in(ys, false, x.splits),
                None => NiceAxis::covering(ys, false),
            };
            configure(
                chart.y_axis_configs.first_mut(),
                y_axis,
                series_title(&data),
            );
            finish!(chart)
        }
        _ => Err(render_error(format!(
            "chart type {} is not supported",
            kind.name()
        ))),
    }
}
