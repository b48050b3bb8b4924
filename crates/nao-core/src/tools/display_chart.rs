//! display_chart: a chart over a stored result, validated against its columns and rows, handed
//! to the host as a typed spec plus Vega-Lite.

use std::fmt::Write as _;

use async_trait::async_trait;
use nao_render::{escape_cell, inline_code};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::chart::{AxisType, ChartData, ChartSpec, ChartType, Series, vega_lite_from_data};
use crate::{Artifact, QueryId, Tool, ToolContext, ToolError};

/// Arguments of display_chart.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DisplayChartArgs {
    /// The query_id that execute_sql returned; the chart plots that result's rows.
    #[schemars(length(min = 1))]
    pub query_id: String,
    /// The kind of chart.
    pub chart_type: ChartType,
    /// The column for the x axis (the slice labels of a pie or donut).
    #[schemars(length(min = 1))]
    pub x_axis_key: String,
    /// What the x column holds: date, number or category.
    pub x_axis_type: AxisType,
    /// The numeric columns to plot: one for pie, donut and kpi_card; two or more for stacked
    /// types.
    #[schemars(length(min = 1, max = 12))]
    pub series: Vec<Series>,
    /// The chart's title: what it shows.
    #[schemars(length(min = 1, max = 200))]
    pub title: String,
}

/// What display_chart returns: the spec and its Vega-Lite rendering (also pushed to the
/// context as an [`Artifact`] of kind `"chart"`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct DisplayChartOutput {
    /// The artifact's id.
    pub chart_id: String,
    /// The validated spec.
    pub spec: ChartSpec,
    /// The Vega-Lite spec, with the result's rows as data.
    pub vega_lite: serde_json::Value,
    /// Rows plotted.
    pub row_count: u64,
    #[serde(skip)]
    markdown: String,
}

/// The display_chart tool.
#[derive(Debug, Clone, Default)]
pub struct DisplayChart;

const DESCRIPTION: &str = "Show the user a chart of a result that execute_sql stored (by its \
query_id). Pick the columns: x_axis_key for the x axis (or pie slices) with x_axis_type date, \
number or category, and series for the numeric columns to plot. Chart types: bar, \
horizontal_bar, stacked_bar, line, area, stacked_area, pie, donut, scatter, kpi_card. pie, donut \
and kpi_card take exactly one series (kpi_card needs a one-row result); stacked types take two or \
more (pivot categories into columns with SUM(CASE WHEN …)). Shape the data in SQL first: \
aggregate, order, keep pies to at most 12 slices and bar charts to at most 150 bars (long \
lines are thinned to their peaks and troughs). The data comes from the result; the tool \
checks the columns and says what to fix.";

#[async_trait]
impl Tool for DisplayChart {
    type Args = DisplayChartArgs;
    type Output = DisplayChartOutput;

    fn name(&self) -> &str {
        "display_chart"
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    async fn call(
        &self,
        args: DisplayChartArgs,
        ctx: &ToolContext,
    ) -> Result<DisplayChartOutput, ToolError> {
        let result = ctx.result(&args.query_id).await?;
        let spec = ChartSpec::new(
            result.id.as_str(),
            args.chart_type,
            args.x_axis_key,
            args.x_axis_type,
            args.series,
            args.title.trim(),
        );
        let data = ChartData::extract(&spec, &result).map_err(|e| ToolError::InvalidArguments {
            tool: self.name().to_owned(),
            message: e.to_string(),
        })?;
        let plotted = data.plotted(spec.chart_type);
        let vega_lite = vega_lite_from_data(&spec, &plotted);
        let chart_id = format!("chart_{}", &QueryId::random().as_str()[2..]);
        ctx.push_artifact(Artifact::new(
            "chart",
            chart_id.clone(),
            serde_json::json!({"spec": spec, "vega_lite": vega_lite}),
        ));
        let markdown = summary(&chart_id, &spec, &data, plotted.len());
        Ok(DisplayChartOutput {
            chart_id,
            spec,
            vega_lite,
            row_count: data.len() as u64,
            markdown,
        })
    }

    fn render(&self, output: &DisplayChartOutput) -> String {
        output.markdown.clone()
    }

    fn row_count(&self, output: &DisplayChartOutput) -> Option<u64> {
        Some(output.row_count)
    }
}

/// The longest title, label or x value quoted in the summary, in characters.
const MAX_TEXT_CHARS: usize = 120;
/// The longest column name quoted in the summary, in characters.
const MAX_KEY_CHARS: usize = 64;

/// What the model is told: the chart is shown, what it plots, and each series' range, so it
/// can describe the chart without seeing it. Titles, labels and x values (from the model and
/// the database) are escaped, column names are code spans.
fn summary(chart_id: &str, spec: &ChartSpec, data: &ChartData, plotted: usize) -> String {
    let text = |s: &str| escape_cell(s, MAX_TEXT_CHARS);
    let key = |s: &str| inline_code(s, MAX_KEY_CHARS);
    let mut out = format!(
        "Chart {} is shown to the user: {} \"{}\" of query {}, {} row{}.\n",
        inline_code(chart_id, MAX_KEY_CHARS),
        spec.chart_type.name(),
        text(&spec.title),
        inline_code(&spec.query_id, MAX_KEY_CHARS),
        data.len(),
        if data.len() == 1 { "" } else { "s" }
    );
    if plotted < data.len() {
        let _ = writeln!(
            out,
            "- {plotted} of the {} rows are plotted: from each stretch of rows, those with each \
             series' lowest and highest value, so every peak and trough shows; the figures \
             below count every row.",
            data.len()
        );
    }
    if spec.chart_type != ChartType::KpiCard {
        let first = data.x.first().map(|x| text(&x.label())).unwrap_or_default();
        let last = data.x.last().map(|x| text(&x.label())).unwrap_or_default();
        let _ = writeln!(
            out,
            "- x: {} ({}), from {first} to {last}",
            key(&spec.x_axis_key),
            spec.x_axis_type.name()
        );
    }
    for series in &data.series {
        let values: Vec<f64> = series.values.iter().flatten().copied().collect();
        let nulls = series.values.len() - values.len();
        let label = text(&series.label);
        let data_key = key(&series.data_key);
        if spec.chart_type == ChartType::KpiCard {
            let value = values
                .first()
                .map_or("NULL".to_owned(), |v| crate::render::human_number(*v));
            let _ = writeln!(out, "- {label} ({data_key}): {value}");
            continue;
        }
        if values.is_empty() {
            let _ = writeln!(out, "- series {label} ({data_key}): all NULL");
            continue;
        }
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let sum: f64 = values.iter().sum();
        let _ = write!(
            out,
            "- series {label} ({data_key}): min {}, max {}, total {}",
            crate::render::human_number(min),
            crate::render::human_number(max),
            crate::render::human_number(sum),
        );
        if nulls > 0 {
            let _ = write!(out, ", {nulls} NULL");
        }
        out.push('\n');
    }
    out.push_str("Do not repeat the numbers as a table; describe what the chart shows.\n");
    out
}
