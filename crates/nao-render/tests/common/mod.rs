//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{Field, Schema};
use nao_render::{RenderBudget, ResultFacts, render_result};

/// A batch from named columns (all nullable).
pub(crate) fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    let fields: Vec<Field> = columns
        .iter()
        .map(|(name, array)| Field::new(*name, array.data_type().clone(), true))
        .collect();
    let arrays = columns.into_iter().map(|(_, array)| array).collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).expect("columns of equal length")
}

/// Renders a complete one-batch result as `q_1` with the default budget.
pub(crate) fn render(batch: &RecordBatch) -> String {
    render_with(batch, &RenderBudget::default())
}

/// Renders a complete one-batch result as `q_1` with `budget`.
pub(crate) fn render_with(batch: &RecordBatch, budget: &RenderBudget) -> String {
    let facts = ResultFacts::new("q_1", batch.num_rows() as u64);
    render_result(
        batch.schema_ref(),
        std::slice::from_ref(batch),
        &facts,
        budget,
    )
}
