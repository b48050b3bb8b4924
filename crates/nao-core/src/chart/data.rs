//! The values a chart plots, read from the stored result (never from the model).

use super::values::{number_at, x_value_at};
use super::{ChartSpec, ChartSpecError, PALETTE, XValue, validate};
use crate::QueryResult;

/// One plotted series with its values, row by row.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SeriesData {
    /// The column.
    pub data_key: String,
    /// The legend label.
    pub label: String,
    /// The colour (the series' own, or one of the [`PALETTE`]).
    pub color: String,
    /// The values; NULL is `None`.
    pub values: Vec<Option<f64>>,
}

/// A validated chart's data: the x values and each series' values, in the result's row order.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ChartData {
    /// The x values (slice labels of a pie).
    pub x: Vec<XValue>,
    /// The series.
    pub series: Vec<SeriesData>,
}

impl ChartData {
    /// Validates `spec` against `result` and reads the values it plots.
    pub fn extract(spec: &ChartSpec, result: &QueryResult) -> Result<ChartData, ChartSpecError> {
        validate(spec, result)?;
        let schema = result.schema.as_ref();
        let x_index = schema.index_of(&spec.x_axis_key).ok();
        let mut x = Vec::new();
        let mut series: Vec<SeriesData> = spec
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| SeriesData {
                data_key: s.data_key.clone(),
                label: s.display_label().to_owned(),
                color: s
                    .color
                    .clone()
                    .unwrap_or_else(|| PALETTE[i % PALETTE.len()].to_owned()),
                values: Vec::new(),
            })
            .collect();
        let indexes: Vec<Option<usize>> = spec
            .series
            .iter()
            .map(|s| schema.index_of(&s.data_key).ok())
            .collect();
        for batch in &result.batches {
            for row in 0..batch.num_rows() {
                x.push(x_index.map_or(XValue::Null, |i| x_value_at(batch.column(i).as_ref(), row)));
                for (data, index) in series.iter_mut().zip(&indexes) {
                    data.values
                        .push(index.and_then(|i| number_at(batch.column(i).as_ref(), row)));
                }
            }
        }
        Ok(ChartData { x, series })
    }

    /// Rows plotted.
    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }
}
