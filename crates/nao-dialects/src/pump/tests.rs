//! The pump's contract: caps, stops before and after the first batch, a reader that goes
//! away, and the producer's errors. Time-limit tests run on tokio's paused clock, so they
//! wait for nothing and depend on no machine's speed.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use futures_util::{FutureExt, StreamExt};
use nao_core::{BatchStream, DialectError, ExecOptions};
use tokio_util::sync::CancellationToken;

use super::{Flow, StopReason, Stopped, channel};

fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, false)]))
}

/// `len` rows counting up from `start`.
fn numbers(start: i64, len: i64) -> RecordBatch {
    let values = Int64Array::from_iter_values(start..start + len);
    RecordBatch::try_new(schema(), vec![Arc::new(values)]).unwrap()
}

/// Every value of the stream, or its error.
async fn values(mut stream: BatchStream) -> Result<Vec<i64>, DialectError> {
    let mut all = Vec::new();
    while let Some(batch) = stream.next().await {
        all.extend(batch?.column(0).as_primitive::<Int64Type>().values().iter());
    }
    Ok(all)
}

#[tokio::test]
async fn the_batch_that_crosses_the_cap_is_cut_one_row_past_it() {
    let (mut producer, consumer) = channel("db", &ExecOptions::default().with_max_rows(5));
    assert_eq!(producer.row_limit(), 6);
    let reader = tokio::spawn(async move { values(consumer.stream().await?).await });
    assert_eq!(producer.batch(numbers(0, 4)).await, Ok(Flow::Continue));
    assert_eq!(producer.rows_left(), 2);
    assert_eq!(producer.batch(numbers(4, 4)).await, Ok(Flow::Full));
    assert_eq!(producer.rows_left(), 0);
    // A batch offered once full is dropped, not handed over.
    assert_eq!(producer.batch(numbers(8, 4)).await, Ok(Flow::Full));
    producer.finish();
    assert_eq!(reader.await.unwrap().unwrap(), [0, 1, 2, 3, 4, 5]);
}

#[tokio::test]
async fn a_result_that_fits_the_cap_exactly_is_read_to_its_end() {
    let (mut producer, consumer) = channel("db", &ExecOptions::default().with_max_rows(6));
    let reader = tokio::spawn(async move { values(consumer.stream().await?).await });
    assert_eq!(producer.batch(numbers(0, 3)).await, Ok(Flow::Continue));
    assert_eq!(producer.batch(numbers(3, 3)).await, Ok(Flow::Continue));
    producer.finish();
    assert_eq!(reader.await.unwrap().unwrap(), [0, 1, 2, 3, 4, 5]);
}

#[tokio::test]
async fn the_batch_that_passes_the_byte_cap_goes_whole_and_is_the_last() {
    let size = numbers(0, 100).get_array_memory_size();
    let options = ExecOptions::default().with_max_bytes(size + size / 2);
    let (mut producer, consumer) = channel("db", &options);
    let reader = tokio::spawn(async move { values(consumer.stream().await?).await });
    assert_eq!(producer.batch(numbers(0, 100)).await, Ok(Flow::Continue));
    // An empty batch holds no rows the reader keeps: it takes none of the cap.
    assert_eq!(producer.batch(numbers(0, 0)).await, Ok(Flow::Continue));
    assert_eq!(producer.batch(numbers(100, 100)).await, Ok(Flow::Full));
    producer.finish();
    let read = reader.await.unwrap().unwrap();
    assert_eq!(read.len(), 200, "the second batch is not cut by bytes");
}

#[tokio::test]
async fn an_empty_result_keeps_its_schema() {
    let (mut producer, consumer) = channel("db", &ExecOptions::default());
    producer.schema(schema()).await.unwrap();
    producer.finish();
    let stream = consumer.stream().await.unwrap();
    assert_eq!(stream.schema(), &schema());
    assert_eq!(values(stream).await.unwrap(), Vec::<i64>::new());
}

#[tokio::test]
async fn cancelling_before_the_first_batch_fails_execute_and_stops_the_producer() {
    let cancel = CancellationToken::new();
    let options = ExecOptions::default().with_cancel(cancel.clone());
    let (mut producer, consumer) = channel("db", &options);
    producer.schema(schema()).await.unwrap();
    let signal = producer.signal();
    let watcher = tokio::spawn(async move { signal.stopped().await });
    let canceller = async {
        tokio::task::yield_now().await;
        cancel.cancel();
    };
    let (outcome, ()) = tokio::join!(consumer.stream(), canceller);
    assert!(
        matches!(outcome, Err(DialectError::Cancelled { ref database }) if database == "db"),
        "{outcome:?}"
    );
    let cancelled = Stopped::Reason(StopReason::Cancelled);
    assert_eq!(watcher.await.unwrap(), cancelled);
    assert_eq!(producer.check(), Some(cancelled));
    assert_eq!(producer.stop_reason(), Some(StopReason::Cancelled));
    assert_eq!(producer.batch(numbers(0, 1)).await, Err(cancelled));
}

#[tokio::test(start_paused = true)]
async fn the_deadline_before_the_first_batch_fails_execute_and_stops_the_producer() {
    let limit = Duration::from_secs(30);
    let (mut producer, consumer) = channel("db", &ExecOptions::default().with_timeout(limit));
    producer.schema(schema()).await.unwrap();
    let signal = producer.signal();
    let watcher = tokio::spawn(async move { signal.stopped().await });
    let outcome = consumer.stream().await;
    assert!(
        matches!(outcome, Err(DialectError::Timeout { limit: l, .. }) if l == limit),
        "{outcome:?}"
    );
    let timed_out = Stopped::Reason(StopReason::Timeout(limit));
    assert_eq!(watcher.await.unwrap(), timed_out);
    assert_eq!(producer.batch(numbers(0, 1)).await, Err(timed_out));
}

#[tokio::test]
async fn cancelling_after_the_first_batch_ends_the_stream_with_the_error() {
    let cancel = CancellationToken::new();
    let options = ExecOptions::default().with_cancel(cancel.clone());
    let (mut producer, consumer) = channel("db", &options);
    let reader = tokio::spawn(consumer.stream());
    assert_eq!(producer.batch(numbers(0, 2)).await, Ok(Flow::Continue));
    let mut stream = reader.await.unwrap().unwrap();
    // A batch handed over before the stop is still read, then the stop's error, then the end.
    assert_eq!(producer.batch(numbers(2, 2)).await, Ok(Flow::Continue));
    cancel.cancel();
    assert_eq!(stream.next().await.unwrap().unwrap().num_rows(), 2);
    assert_eq!(stream.next().await.unwrap().unwrap().num_rows(), 2);
    let error = stream.next().await.unwrap().unwrap_err();
    assert!(matches!(error, DialectError::Cancelled { .. }), "{error:?}");
    assert!(stream.next().await.is_none());
    let cancelled = Stopped::Reason(StopReason::Cancelled);
    assert_eq!(producer.batch(numbers(4, 2)).await, Err(cancelled));
    assert_eq!(producer.room().await, Err(cancelled));
}

#[tokio::test(start_paused = true)]
async fn the_deadline_after_the_first_batch_ends_the_stream_with_the_error() {
    let limit = Duration::from_millis(500);
    let (mut producer, consumer) = channel("db", &ExecOptions::default().with_timeout(limit));
    let reader = tokio::spawn(consumer.stream());
    assert_eq!(producer.batch(numbers(0, 2)).await, Ok(Flow::Continue));
    let mut stream = reader.await.unwrap().unwrap();
    assert_eq!(stream.next().await.unwrap().unwrap().num_rows(), 2);
    // The producer is blocked in its engine: the reader hears of the deadline all the same.
    let error = stream.next().await.unwrap().unwrap_err();
    assert!(
        matches!(error, DialectError::Timeout { limit: l, .. } if l == limit),
        "{error:?}"
    );
    assert!(stream.next().await.is_none());
    assert_eq!(
        producer.stopped().await,
        Stopped::Reason(StopReason::Timeout(limit))
    );
}

#[tokio::test]
async fn the_first_reason_seen_is_the_one_both_halves_report() {
    let cancel = CancellationToken::new();
    let options = ExecOptions::default()
        .with_cancel(cancel.clone())
        .with_timeout(Duration::ZERO);
    let (producer, consumer) = channel("db", &options);
    let timed_out = Stopped::Reason(StopReason::Timeout(Duration::ZERO));
    assert_eq!(producer.check(), Some(timed_out));
    cancel.cancel();
    assert_eq!(producer.check(), Some(timed_out));
    let outcome = consumer.stream().await;
    assert!(
        matches!(outcome, Err(DialectError::Timeout { .. })),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn a_dropped_stream_is_noticed_by_the_producer() {
    let (mut producer, consumer) = channel("db", &ExecOptions::default());
    let reader = tokio::spawn(consumer.stream());
    assert_eq!(producer.batch(numbers(0, 1)).await, Ok(Flow::Continue));
    let stream = reader.await.unwrap().unwrap();
    let signal = producer.signal();
    assert_eq!(signal.check(), None);
    let watcher = tokio::spawn(async move { signal.stopped().await });
    drop(stream);
    assert_eq!(watcher.await.unwrap(), Stopped::ConsumerGone);
    assert_eq!(producer.check(), Some(Stopped::ConsumerGone));
    assert_eq!(producer.stop_reason(), None, "nobody is told a reason");
    assert_eq!(
        producer.batch(numbers(1, 1)).await,
        Err(Stopped::ConsumerGone)
    );
}

#[tokio::test]
async fn an_abandoned_execute_is_noticed_by_a_producer_on_a_thread() {
    let (mut producer, consumer) = channel("db", &ExecOptions::default());
    let thread = std::thread::spawn(move || {
        if let Err(stopped) = producer.blocking_schema(schema()) {
            return stopped;
        }
        // Blocks until the reader takes the schema or goes away.
        loop {
            if let Err(stopped) = producer.blocking_batch(numbers(0, 1)) {
                return stopped;
            }
        }
    });
    drop(consumer);
    assert_eq!(
        tokio::task::spawn_blocking(move || thread.join().unwrap())
            .await
            .unwrap(),
        Stopped::ConsumerGone
    );
}

#[tokio::test]
async fn a_producer_on_a_thread_streams_to_the_cap() {
    let (mut producer, consumer) = channel("db", &ExecOptions::default().with_max_rows(2_500));
    std::thread::spawn(move || {
        for start in (0..).step_by(1_000) {
            match producer.blocking_batch(numbers(start, 1_000)) {
                Ok(Flow::Continue) => {}
                Ok(Flow::Full) => break,
                Err(_) => return,
            }
        }
        producer.finish();
    });
    let read = values(consumer.stream().await.unwrap()).await.unwrap();
    assert!(read.into_iter().eq(0..2_501));
}

#[tokio::test]
async fn an_error_before_the_first_batch_comes_from_execute() {
    let (mut producer, consumer) = channel("db", &ExecOptions::default());
    producer.schema(schema()).await.unwrap();
    let error = DialectError::Syntax {
        database: "db".into(),
        message: "near SELEC".into(),
        code: Some("42601".into()),
    };
    let failing = async move { producer.fail(error).await };
    let (outcome, ()) = tokio::join!(consumer.stream(), failing);
    match outcome {
        Err(DialectError::Syntax { message, code, .. }) => {
            assert_eq!(
                (message.as_str(), code.as_deref()),
                ("near SELEC", Some("42601"))
            );
        }
        other => panic!("expected the producer's syntax error, got {other:?}"),
    }
}

#[tokio::test]
async fn an_error_after_the_first_batch_is_the_streams_last_item() {
    let (mut producer, consumer) = channel("db", &ExecOptions::default());
    let reader = tokio::spawn(async move {
        let mut stream = consumer.stream().await.unwrap();
        let mut items = Vec::new();
        while let Some(item) = stream.next().await {
            items.push(item.map(|b| b.num_rows()));
        }
        items
    });
    assert_eq!(producer.batch(numbers(0, 3)).await, Ok(Flow::Continue));
    producer
        .fail(DialectError::Unsupported {
            database: "db".into(),
            what: "row 4 does not fit".into(),
        })
        .await;
    // Nothing is handed over after an error.
    assert!(producer.batch(numbers(3, 1)).await.is_err());
    producer.finish();
    let items = reader.await.unwrap();
    assert_eq!(items.len(), 2, "{items:?}");
    assert_eq!(items[0].as_ref().ok(), Some(&3));
    assert!(
        matches!(items[1], Err(DialectError::Unsupported { .. })),
        "{items:?}"
    );
}

#[tokio::test]
async fn a_producer_dropped_without_finishing_ends_the_stream_with_an_error() {
    let (mut producer, consumer) = channel("db", &ExecOptions::default());
    let reader = tokio::spawn(async move { values(consumer.stream().await?).await });
    assert_eq!(producer.batch(numbers(0, 1)).await, Ok(Flow::Continue));
    drop(producer);
    let error = reader.await.unwrap().unwrap_err();
    let DialectError::Engine { ref message, .. } = error else {
        panic!("expected an engine error, got {error:?}");
    };
    assert!(message.contains("stopped before the end"), "{message}");
    // Before a schema, too.
    let (producer, consumer) = channel("db", &ExecOptions::default());
    producer.finish();
    let outcome = consumer.stream().await;
    assert!(
        matches!(outcome, Err(DialectError::Engine { .. })),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn finishing_after_a_stop_still_reports_the_stop() {
    let cancel = CancellationToken::new();
    let options = ExecOptions::default().with_cancel(cancel.clone());
    let (mut producer, consumer) = channel("db", &options);
    producer.schema(schema()).await.unwrap();
    cancel.cancel();
    producer.finish();
    let outcome = consumer.stream().await;
    assert!(
        matches!(outcome, Err(DialectError::Cancelled { .. })),
        "{outcome:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn with_a_grace_the_reader_waits_for_the_producers_own_error() {
    let cancel = CancellationToken::new();
    let options = ExecOptions::default().with_cancel(cancel.clone());
    let (mut producer, consumer) = channel("db", &options);
    producer.schema(schema()).await.unwrap();
    let engine = tokio::spawn(async move {
        // The engine takes a second to notice its interrupt, then reports in its own words.
        let stopped = producer.stopped().await;
        tokio::time::sleep(Duration::from_secs(1)).await;
        producer
            .fail(DialectError::ResourceLimit {
                database: "db".into(),
                limit: "spill space".into(),
                message: format!("stopped ({stopped})"),
                code: None,
            })
            .await;
    });
    cancel.cancel();
    let outcome = consumer.with_grace(Duration::from_secs(2)).stream().await;
    assert!(
        matches!(outcome, Err(DialectError::ResourceLimit { .. })),
        "{outcome:?}"
    );
    engine.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn with_a_grace_a_producer_that_never_stops_is_left_behind() {
    let cancel = CancellationToken::new();
    let options = ExecOptions::default().with_cancel(cancel.clone());
    let (mut producer, consumer) = channel("db", &options);
    producer.schema(schema()).await.unwrap();
    cancel.cancel();
    let started = tokio::time::Instant::now();
    let outcome = consumer.with_grace(Duration::from_secs(2)).stream().await;
    assert!(
        matches!(outcome, Err(DialectError::Cancelled { .. })),
        "{outcome:?}"
    );
    assert!(
        started.elapsed() >= Duration::from_secs(2),
        "on the paused clock"
    );
    drop(producer);
}

#[tokio::test]
async fn unless_stopped_runs_the_work_or_gives_the_stop() {
    let cancel = CancellationToken::new();
    let options = ExecOptions::default().with_cancel(cancel.clone());
    let (_producer, consumer) = channel("db", &options);
    assert_eq!(consumer.unless_stopped(async { 7 }).await.unwrap(), 7);
    cancel.cancel();
    // Cancelled first: work that is ready at once does not run.
    let outcome = consumer.unless_stopped(async { 7 }).await;
    assert!(
        matches!(outcome, Err(DialectError::Cancelled { .. })),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn room_waits_until_the_reader_has_taken_the_last_batch() {
    let (mut producer, consumer) = channel("db", &ExecOptions::default());
    let reader = tokio::spawn(consumer.stream());
    assert_eq!(producer.batch(numbers(0, 1)).await, Ok(Flow::Continue));
    // `stream` took the first batch from the channel already.
    let mut stream = reader.await.unwrap().unwrap();
    assert_eq!(producer.room().now_or_never(), Some(Ok(())));
    assert_eq!(producer.batch(numbers(1, 2)).await, Ok(Flow::Continue));
    assert_eq!(
        producer.room().now_or_never(),
        None,
        "the reader has not read it"
    );
    assert_eq!(stream.next().await.unwrap().unwrap().num_rows(), 1);
    assert_eq!(
        producer.room().now_or_never(),
        None,
        "that was the first batch"
    );
    assert_eq!(stream.next().await.unwrap().unwrap().num_rows(), 2);
    assert_eq!(producer.room().now_or_never(), Some(Ok(())));
}

#[test]
fn stop_reasons_are_errors_the_model_can_read() {
    let timeout = StopReason::Timeout(Duration::from_secs(3)).error("shop");
    let DialectError::Timeout { database, limit } = timeout else {
        panic!("expected a timeout, got {timeout:?}");
    };
    assert_eq!((database.as_str(), limit), ("shop", Duration::from_secs(3)));
    assert_eq!(StopReason::Cancelled.error("shop").kind_code(), "cancelled");
    assert_eq!(
        Stopped::from(StopReason::Cancelled).reason(),
        Some(StopReason::Cancelled)
    );
    assert_eq!(Stopped::ConsumerGone.reason(), None);
    assert!(Stopped::ConsumerGone.to_string().contains("nobody reads"));
}
