//! Stored results for the result store's tests: one Int64 column `n` holding `0..rows`.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use arrow_array::{Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use nao_core::{QueryId, QueryResult};

/// A result of `rows` rows under a fresh random id.
pub(crate) fn result(rows: i64) -> QueryResult {
    let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, false)]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![Arc::new(Int64Array::from_iter_values(0..rows))],
    )
    .unwrap();
    let mut result = QueryResult::new(QueryId::random(), "db", "SELECT n FROM t", schema);
    result.row_count = rows as u64;
    result.batches = vec![batch];
    result.elapsed = Duration::from_millis(3);
    result
}
