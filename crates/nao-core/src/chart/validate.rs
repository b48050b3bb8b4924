//! Checking a [`ChartSpec`] against the result it charts, with messages the model can act on.

use arrow_schema::{DataType, Schema};
use nao_render::quoted;

use super::values::{is_temporal, is_text, looks_like_iso_date, x_value_at};
use super::{AxisType, ChartSpec, ChartType, XValue};
use crate::QueryResult;

/// The most slices a pie or donut may have.
pub const MAX_PIE_SLICES: usize = 12;
/// The most rows a chart may plot.
pub const MAX_CHART_ROWS: u64 = 5_000;
/// The most bars a bar chart may have: more would be thinner than a few pixels each, and a bar
/// left out would be a value missing (lines and areas are thinned instead, see
/// [`ChartData::plotted`](super::ChartData::plotted)).
pub const MAX_BARS: u64 = 150;
/// The most series a chart may plot.
pub const MAX_SERIES: usize = 12;
/// The longest title, in characters.
pub const MAX_TITLE_CHARS: usize = 200;

/// Why a chart spec does not fit its result. `Display` says what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ChartSpecError {
    /// A key names no column of the result.
    #[error(
        "{role} {} is not a column of the result; the columns are: {columns}",
        quoted(.key, MAX_QUOTED_CHARS)
    )]
    UnknownColumn {
        /// Which argument (`x_axis_key`, `series[0].data_key`).
        role: String,
        /// The key the model used.
        key: String,
        /// The result's columns with their types.
        columns: String,
    },
    /// A series column is not numeric.
    #[error(
        "series {} has type {data_type}, which is not numeric; series must be numeric \
         columns (numeric columns here: {numeric}). Aggregate or CAST it in the SQL, or pick \
         another column.",
        quoted(.key, MAX_QUOTED_CHARS)
    )]
    NotNumeric {
        /// The column.
        key: String,
        /// Its Arrow type.
        data_type: String,
        /// The numeric columns of the result.
        numeric: String,
    },
    /// The x axis type does not fit the x column.
    #[error(
        "x_axis_type {axis:?} does not fit column {} ({data_type}): {hint}",
        quoted(.key, MAX_QUOTED_CHARS)
    )]
    AxisMismatch {
        /// The requested axis type.
        axis: String,
        /// The column.
        key: String,
        /// Its Arrow type.
        data_type: String,
        /// What would fit.
        hint: String,
    },
    /// The series count does not fit the chart type.
    #[error("{message}")]
    SeriesCount {
        /// What is wrong and what to do.
        message: String,
    },
    /// The result's shape does not fit the chart type (rows, slices).
    #[error("{message}")]
    Shape {
        /// What is wrong and what to do.
        message: String,
    },
    /// A label, title or colour is not acceptable.
    #[error("{message}")]
    Invalid {
        /// What is wrong and what to do.
        message: String,
    },
}

/// The longest key or value quoted in a message, in characters.
const MAX_QUOTED_CHARS: usize = 80;
/// Bytes of column names listed in a message before the rest are only counted.
const MAX_LIST_BYTES: usize = 1_024;

fn column_list(schema: &Schema) -> String {
    name_list(
        schema
            .fields()
            .iter()
            .map(|f| format!("{} ({})", f.name(), f.data_type())),
    )
}

/// Names joined by `, ` up to about [`MAX_LIST_BYTES`], then `and N more`; `(none)` if empty.
fn name_list(names: impl ExactSizeIterator<Item = String>) -> String {
    let total = names.len();
    let mut out = String::new();
    for (index, name) in names.enumerate() {
        if out.len() >= MAX_LIST_BYTES {
            out.push_str(&format!("and {} more", total - index));
            break;
        }
        out.push_str(&name);
        if index + 1 < total {
            out.push_str(", ");
        }
    }
    if out.is_empty() {
        "(none)".to_owned()
    } else {
        out
    }
}

fn find<'a>(
    schema: &'a Schema,
    role: &str,
    key: &str,
) -> Result<(usize, &'a DataType), ChartSpecError> {
    schema
        .index_of(key)
        .map(|i| (i, schema.field(i).data_type()))
        .map_err(|_| ChartSpecError::UnknownColumn {
            role: role.to_owned(),
            key: key.to_owned(),
            columns: column_list(schema),
        })
}

/// Whether `color` is `#rgb`, `#rrggbb`, `#rrggbbaa` or a plain colour name.
fn valid_color(color: &str) -> bool {
    match color.strip_prefix('#') {
        Some(hex) => {
            matches!(hex.len(), 3 | 4 | 6 | 8) && hex.bytes().all(|b| b.is_ascii_hexdigit())
        }
        None => {
            !color.is_empty() && color.len() <= 30 && color.bytes().all(|b| b.is_ascii_alphabetic())
        }
    }
}

/// Checks that `spec` can be drawn from `result`: every key is a column, series are numeric,
/// the x axis type fits, the series count and row count fit the chart type.
pub fn validate(spec: &ChartSpec, result: &QueryResult) -> Result<(), ChartSpecError> {
    let schema = result.schema.as_ref();
    let kind = spec.chart_type;
    if spec.title.trim().is_empty() || spec.title.chars().count() > MAX_TITLE_CHARS {
        return Err(ChartSpecError::Invalid {
            message: format!(
                "the title must be 1 to {MAX_TITLE_CHARS} characters; say what the chart shows"
            ),
        });
    }
    check_series_count(spec)?;
    let (x_index, x_type) = find(schema, "x_axis_key", &spec.x_axis_key)?;
    for (i, series) in spec.series.iter().enumerate() {
        let (_, data_type) = find(schema, &format!("series[{i}].data_key"), &series.data_key)?;
        if !data_type.is_numeric() {
            let numeric: Vec<String> = schema
                .fields()
                .iter()
                .filter(|f| f.data_type().is_numeric())
                .map(|f| f.name().clone())
                .collect();
            return Err(ChartSpecError::NotNumeric {
                key: series.data_key.clone(),
                data_type: data_type.to_string(),
                numeric: name_list(numeric.into_iter()),
            });
        }
        if let Some(color) = &series.color
            && !valid_color(color)
        {
            return Err(ChartSpecError::Invalid {
                message: format!(
                    "series[{i}].color {} is not a colour; use #rgb, #rrggbb or a name such as \
                     steelblue",
                    quoted(color, MAX_QUOTED_CHARS)
                ),
            });
        }
        if series
            .label
            .as_ref()
            .is_some_and(|l| l.chars().count() > MAX_TITLE_CHARS)
        {
            return Err(ChartSpecError::Invalid {
                message: format!("series[{i}].label is longer than {MAX_TITLE_CHARS} characters"),
            });
        }
    }
    if kind != ChartType::KpiCard {
        check_axis(spec, result, x_index, x_type)?;
    }
    check_rows(spec, result)
}

fn check_series_count(spec: &ChartSpec) -> Result<(), ChartSpecError> {
    let n = spec.series.len();
    let kind = spec.chart_type;
    let message = if n == 0 {
        Some("series is empty; name at least one numeric column to plot".to_owned())
    } else if n > MAX_SERIES {
        Some(format!(
            "{n} series is too many to read (at most {MAX_SERIES}); plot fewer columns or split \
             the chart"
        ))
    } else if kind.is_radial() && n != 1 {
        Some(format!(
            "a {} chart takes exactly one series (the slice sizes), not {n}; use a bar or \
             stacked_bar chart to compare several series",
            kind.name()
        ))
    } else if kind.is_stacked() && n < 2 {
        Some(format!(
            "a {} chart needs at least two series to stack, got one. Pivot the categories into \
             columns in the SQL, e.g. SELECT month, SUM(CASE WHEN category = 'A' THEN revenue \
             ELSE 0 END) AS a, SUM(CASE WHEN category = 'B' THEN revenue ELSE 0 END) AS b … \
             GROUP BY month, then list each column as a series; or use a {} chart for one \
             series",
            kind.name(),
            if kind == ChartType::StackedBar {
                "bar"
            } else {
                "area"
            }
        ))
    } else if kind == ChartType::KpiCard && n != 1 {
        Some(format!(
            "a kpi_card shows exactly one value: one series, not {n}; use one kpi_card per value"
        ))
    } else {
        None
    };
    message.map_or(Ok(()), |message| {
        Err(ChartSpecError::SeriesCount { message })
    })
}

fn check_axis(
    spec: &ChartSpec,
    result: &QueryResult,
    x_index: usize,
    x_type: &DataType,
) -> Result<(), ChartSpecError> {
    let mismatch = |hint: &str| ChartSpecError::AxisMismatch {
        axis: spec.x_axis_type.name().to_owned(),
        key: spec.x_axis_key.clone(),
        data_type: x_type.to_string(),
        hint: hint.to_owned(),
    };
    match spec.x_axis_type {
        AxisType::Number if !x_type.is_numeric() => {
            return Err(mismatch(if is_temporal(x_type) {
                "use x_axis_type \"date\""
            } else {
                "use x_axis_type \"category\" for labels"
            }));
        }
        AxisType::Date if is_temporal(x_type) => {}
        AxisType::Date if is_text(x_type) => {
            // Text dates (SQLite's strftime) must all read as ISO-8601.
            for batch in &result.batches {
                let column = batch.column(x_index);
                for row in 0..batch.num_rows() {
                    if let XValue::Text(text) = x_value_at(column.as_ref(), row)
                        && !looks_like_iso_date(&text)
                    {
                        return Err(mismatch(&format!(
                            "the value {} is not an ISO-8601 date (YYYY, YYYY-MM, \
                             YYYY-MM-DD); format it in the SQL or use x_axis_type \"category\"",
                            quoted(&text, MAX_QUOTED_CHARS)
                        )));
                    }
                }
            }
        }
        AxisType::Date => {
            return Err(mismatch(if x_type.is_numeric() {
                "use x_axis_type \"number\", or \"category\" for years and codes"
            } else {
                "use x_axis_type \"category\""
            }));
        }
        _ => {}
    }
    if spec.chart_type == ChartType::Scatter && spec.x_axis_type == AxisType::Category {
        return Err(ChartSpecError::Invalid {
            message: "a scatter chart needs a number or date x axis; use a bar chart for \
                      categories"
                .to_owned(),
        });
    }
    Ok(())
}

fn check_rows(spec: &ChartSpec, result: &QueryResult) -> Result<(), ChartSpecError> {
    let rows = result.row_count;
    let kind = spec.chart_type;
    let message = if rows == 0 {
        Some(
            "the result has no rows, so there is nothing to chart; check the query's filters"
                .to_owned(),
        )
    } else if kind == ChartType::KpiCard && rows != 1 {
        Some(format!(
            "a kpi_card shows one value, but the result has {rows} rows; aggregate to a single \
             row (e.g. SELECT SUM(…) AS total) or use another chart type"
        ))
    } else if kind.is_radial() && rows > MAX_PIE_SLICES as u64 {
        Some(format!(
            "a {} chart with {rows} slices cannot be read (at most {MAX_PIE_SLICES}); use a bar \
             or horizontal_bar chart, or keep the top {} and group the rest as 'other' in the \
             SQL (ORDER BY value DESC with a CASE on the rank)",
            kind.name(),
            MAX_PIE_SLICES - 1
        ))
    } else if kind.is_bar() && rows > MAX_BARS {
        Some(format!(
            "a {} chart of {rows} bars cannot be read (at most {MAX_BARS}); chart the top ones \
             (ORDER BY the value DESC LIMIT 20), group them in the SQL (GROUP BY a coarser \
             category), or use a line chart for a long series",
            kind.name()
        ))
    } else if rows > MAX_CHART_ROWS {
        Some(format!(
            "the result has {rows} rows, too many for one chart (at most {MAX_CHART_ROWS}); \
             aggregate in the SQL (GROUP BY a month, a category…)"
        ))
    } else {
        None
    };
    message.map_or(Ok(()), |message| Err(ChartSpecError::Shape { message }))
}
