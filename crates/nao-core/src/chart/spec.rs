//! The typed chart specification the model asks for through display_chart.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The kind of chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ChartType {
    /// Vertical bars; several series are grouped side by side.
    Bar,
    /// Horizontal bars, for long category names.
    HorizontalBar,
    /// Vertical bars with the series stacked (at least two series).
    StackedBar,
    /// Lines, one per series.
    Line,
    /// Filled areas, overlapping.
    Area,
    /// Filled areas stacked on each other (at least two series).
    StackedArea,
    /// Shares of a whole: one series, one slice per row.
    Pie,
    /// A pie with a hole.
    Donut,
    /// Points at (x, y), one colour per series.
    Scatter,
    /// One big number: one series, one row.
    KpiCard,
}

impl ChartType {
    /// Every chart type, in the order of the docs.
    pub const ALL: [ChartType; 10] = [
        ChartType::Bar,
        ChartType::HorizontalBar,
        ChartType::StackedBar,
        ChartType::Line,
        ChartType::Area,
        ChartType::StackedArea,
        ChartType::Pie,
        ChartType::Donut,
        ChartType::Scatter,
        ChartType::KpiCard,
    ];

    /// Its snake_case name (`"stacked_bar"`).
    pub fn name(self) -> &'static str {
        match self {
            ChartType::Bar => "bar",
            ChartType::HorizontalBar => "horizontal_bar",
            ChartType::StackedBar => "stacked_bar",
            ChartType::Line => "line",
            ChartType::Area => "area",
            ChartType::StackedArea => "stacked_area",
            ChartType::Pie => "pie",
            ChartType::Donut => "donut",
            ChartType::Scatter => "scatter",
            ChartType::KpiCard => "kpi_card",
        }
    }

    /// Whether the series are stacked on each other.
    pub fn is_stacked(self) -> bool {
        matches!(self, ChartType::StackedBar | ChartType::StackedArea)
    }

    /// Whether it draws one bar per row (bar, stacked bar, horizontal bar).
    pub fn is_bar(self) -> bool {
        matches!(
            self,
            ChartType::Bar | ChartType::StackedBar | ChartType::HorizontalBar
        )
    }

    /// Whether it shows shares of a whole (pie, donut).
    pub fn is_radial(self) -> bool {
        matches!(self, ChartType::Pie | ChartType::Donut)
    }
}

/// What the x axis (or the slices of a pie) holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum AxisType {
    /// Dates or timestamps (a date/timestamp column, or ISO-8601 text such as `2024-03`).
    Date,
    /// Numbers on a continuous scale.
    Number,
    /// Distinct labels, in the order of the result.
    Category,
}

impl AxisType {
    /// Its snake_case name.
    pub fn name(self) -> &'static str {
        match self {
            AxisType::Date => "date",
            AxisType::Number => "number",
            AxisType::Category => "category",
        }
    }
}

/// One plotted series: a numeric column of the result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Series {
    /// The column holding the values.
    pub data_key: String,
    /// The name shown in the legend (default: the column name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// A CSS colour: `#rgb`, `#rrggbb` or a plain colour name such as `steelblue`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
}

impl Series {
    /// A series over `data_key`.
    pub fn new(data_key: impl Into<String>) -> Self {
        Series {
            data_key: data_key.into(),
            label: None,
            color: None,
        }
    }

    /// Sets the legend label.
    #[must_use]
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Sets the colour.
    #[must_use]
    pub fn with_color(mut self, color: impl Into<String>) -> Self {
        self.color = Some(color.into());
        self
    }

    /// The legend label: the label, or else the column name.
    pub fn display_label(&self) -> &str {
        self.label.as_deref().unwrap_or(&self.data_key)
    }
}

/// A chart over a stored query result: which columns go where, and how it is drawn. The data
/// itself always comes from the result (see [`ChartData`](crate::chart::ChartData)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ChartSpec {
    /// The query result charted.
    pub query_id: String,
    /// The kind of chart.
    pub chart_type: ChartType,
    /// The column on the x axis (the slice labels of a pie).
    pub x_axis_key: String,
    /// What that column holds.
    pub x_axis_type: AxisType,
    /// The plotted columns.
    pub series: Vec<Series>,
    /// The chart's title.
    pub title: String,
}

impl ChartSpec {
    /// A chart spec.
    pub fn new(
        query_id: impl Into<String>,
        chart_type: ChartType,
        x_axis_key: impl Into<String>,
        x_axis_type: AxisType,
        series: Vec<Series>,
        title: impl Into<String>,
    ) -> Self {
        ChartSpec {
            query_id: query_id.into(),
            chart_type,
            x_axis_key: x_axis_key.into(),
            x_axis_type,
            series,
            title: title.into(),
        }
    }
}
