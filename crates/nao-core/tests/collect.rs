//! Collecting a batch stream under row and byte caps, deadlines and cancellation.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use arrow_array::{Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use futures_util::StreamExt;
use nao_core::render::Truncation;
use nao_core::{BatchStream, DialectError, ExecOptions, RowsRead, collect_capped};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, false)]))
}

fn batches(count: usize, rows: i64) -> Vec<RecordBatch> {
    (0..count)
        .map(|i| {
            let start = i as i64 * rows;
            RecordBatch::try_new(
                schema(),
                vec![Arc::new(Int64Array::from_iter_values(start..start + rows))],
            )
            .unwrap()
        })
        .collect()
}

async fn collect(
    stream: BatchStream,
    options: &ExecOptions,
) -> Result<nao_core::CollectedBatches, DialectError> {
    collect_capped(stream, options, "db", Instant::now()).await
}

#[tokio::test]
async fn a_result_that_fits_is_complete() {
    let stream = BatchStream::from_batches(schema(), batches(3, 10));
    let got = collect(stream, &ExecOptions::default().with_max_rows(30))
        .await
        .unwrap();
    assert_eq!(got.row_count, 30);
    assert_eq!(got.truncation, None);
}

#[tokio::test]
async fn rows_read_counts_the_rows_kept_across_statements() {
    let rows_read = RowsRead::default();
    let options = ExecOptions::default()
        .with_max_rows(25)
        .with_rows_read(rows_read.clone());
    let cut = collect(
        BatchStream::from_batches(schema(), batches(3, 10)),
        &options,
    )
    .await
    .unwrap();
    assert_eq!(cut.row_count, 25);
    assert_eq!(
        rows_read.get(),
        25,
        "the cut batch counts only its kept rows"
    );
    let whole = collect(
        BatchStream::from_batches(schema(), batches(2, 10)),
        &options,
    )
    .await
    .unwrap();
    assert_eq!(whole.row_count, 20);
    assert_eq!(
        rows_read.get(),
        45,
        "a second statement adds to the same count"
    );
}

#[tokio::test]
async fn the_row_cap_cuts_inside_a_batch_and_says_so() {
    let stream = BatchStream::from_batches(schema(), batches(3, 10));
    let got = collect(stream, &ExecOptions::default().with_max_rows(25))
        .await
        .unwrap();
    assert_eq!(got.row_count, 25);
    assert_eq!(
        got.batches
            .iter()
            .map(RecordBatch::num_rows)
            .collect::<Vec<_>>(),
        [10, 10, 5]
    );
    assert_eq!(got.truncation, Some(Truncation::RowCap { cap: 25 }));
    let last = got.batches[2]
        .column(0)
        .as_any()
        .downcast_ref::<Int64Array>()
        .unwrap();
    assert_eq!(last.value(4), 24);
}

#[tokio::test]
async fn the_byte_cap_keeps_what_fits() {
    let all = batches(4, 1_000);
    let one = all[0].get_array_memory_size();
    let stream = BatchStream::from_batches(schema(), all);
    let got = collect(
        stream,
        &ExecOptions::default().with_max_bytes(one * 2 + one / 2),
    )
    .await
    .unwrap();
    assert_eq!(
        got.truncation,
        Some(Truncation::ByteCap {
            cap: (one * 2 + one / 2) as u64
        })
    );
    assert!(
        got.row_count >= 2_000 && got.row_count < 3_000,
        "{}",
        got.row_count
    );
}

#[tokio::test]
async fn an_empty_result_keeps_its_schema() {
    let got = collect(
        BatchStream::from_batches(schema(), vec![]),
        &ExecOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!(got.row_count, 0);
    assert_eq!(got.schema.fields().len(), 1);
}

fn endless() -> BatchStream {
    let stream = futures_util::stream::unfold(0i64, |i| async move {
        tokio::time::sleep(Duration::from_millis(5)).await;
        let batch =
            RecordBatch::try_new(schema(), vec![Arc::new(Int64Array::from(vec![i]))]).unwrap();
        Some((Ok(batch), i + 1))
    });
    BatchStream::new(schema(), stream)
}

fn silent() -> BatchStream {
    BatchStream::new(schema(), futures_util::stream::pending())
}

#[tokio::test(start_paused = true)]
async fn a_deadline_with_rows_returns_them_as_a_timed_out_prefix() {
    let options = ExecOptions::default()
        .with_timeout(Duration::from_millis(100))
        .with_max_rows(1_000_000);
    let got = collect(endless(), &options).await.unwrap();
    assert!(got.row_count > 0);
    assert_eq!(
        got.truncation,
        Some(Truncation::Timeout {
            limit: Duration::from_millis(100)
        })
    );
    assert!(
        options.cancel.is_cancelled(),
        "the timeout cancels the adapter's token"
    );
}

#[tokio::test(start_paused = true)]
async fn a_deadline_without_rows_is_a_timeout_error() {
    let options = ExecOptions::default().with_timeout(Duration::from_millis(100));
    let err = collect(silent(), &options).await.unwrap_err();
    assert!(matches!(err, DialectError::Timeout { .. }), "{err:?}");
    assert!(err.to_string().contains("ran longer than"));
}

#[tokio::test(start_paused = true)]
async fn cancellation_is_an_error() {
    let cancel = CancellationToken::new();
    let options = ExecOptions::default().with_cancel(cancel.clone());
    let task = tokio::spawn(async move { collect(silent(), &options).await });
    tokio::time::sleep(Duration::from_millis(10)).await;
    cancel.cancel();
    let err = task.await.unwrap().unwrap_err();
    assert!(matches!(err, DialectError::Cancelled { .. }), "{err:?}");
}

#[tokio::test]
async fn stream_errors_pass_through() {
    let failing = futures_util::stream::iter(vec![Err(DialectError::Engine {
        database: "db".into(),
        message: "division by zero".into(),
        code: None,
        source: None,
    })]);
    let err = collect(BatchStream::new(schema(), failing), &ExecOptions::default())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("division by zero"));
    let mut stream = BatchStream::from_batches(schema(), batches(1, 1));
    assert!(stream.next().await.is_some());
}
