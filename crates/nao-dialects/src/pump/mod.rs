//! The statement pump every adapter runs its statements through: from the engine's reader (a
//! thread or a task) to the [`BatchStream`](nao_core::BatchStream) that
//! [`Dialect::execute`](nao_core::Dialect::execute) returns, with the row cap, the byte cap,
//! the caller's cancellation token, the time limit and a dropped stream all handled once,
//! here. An adapter contributes how to start, read and interrupt a statement on its engine.
//!
//! ```
//! use std::sync::Arc;
//!
//! use futures_util::StreamExt;
//! use nao_dialects::core::arrow::array::{Int64Array, RecordBatch};
//! use nao_dialects::core::arrow::datatypes::{DataType, Field, Schema};
//! use nao_dialects::core::{BatchStream, DialectError, ExecOptions};
//! use nao_dialects::pump::{self, Flow};
//!
//! /// `execute` of an adapter whose engine is read on a thread of its own.
//! async fn execute(options: &ExecOptions) -> Result<BatchStream, DialectError> {
//!     let (mut producer, consumer) = pump::channel("numbers", options);
//!     std::thread::spawn(move || {
//!         // Preparing the statement: an error here would go to `producer.blocking_fail`.
//!         let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, false)]));
//!         if producer.blocking_schema(schema.clone()).is_err() {
//!             return; // cancelled, out of time, or nobody reads: stop the engine, return
//!         }
//!         for start in (0_i64..).step_by(1_000) {
//!             // Reading the engine: here, a thousand numbers at a time, for ever.
//!             let numbers = Int64Array::from_iter_values(start..start + 1_000);
//!             let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(numbers)])
//!                 .expect("the batch matches its schema");
//!             match producer.blocking_batch(batch) {
//!                 Ok(Flow::Continue) => {}
//!                 Ok(Flow::Full) => break, // the caps are reached: stop the engine here
//!                 Err(_stopped) => return,
//!             }
//!         }
//!         producer.finish();
//!     });
//!     // The schema and the first batch, or the first error, come back from here.
//!     consumer.stream().await
//! }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let mut stream = execute(&ExecOptions::default().with_max_rows(2_500)).await?;
//! let mut rows = 0;
//! while let Some(batch) = stream.next().await {
//!     rows += batch?.num_rows();
//! }
//! // One row past the cap, so the reader can tell the result was cut.
//! assert_eq!(rows, 2_501);
//! # Ok::<(), DialectError>(())
//! # }).unwrap();
//! ```
//!
//! # The two halves
//! [`channel`](fn@channel) makes a [`Producer`] and a [`Consumer`] for one statement from the
//! caller's [`ExecOptions`](nao_core::ExecOptions); between them is a channel holding one
//! message, so a slow reader pauses the producer (and, through it, the engine).
//!
//! - The **producer** goes to the adapter's worker. It announces the schema
//!   ([`schema`](Producer::schema); an empty result keeps its columns), hands batches over
//!   ([`batch`](Producer::batch)), reports an error ([`fail`](Producer::fail)) or says the
//!   result is complete ([`finish`](Producer::finish)). Each has an async form for a tokio
//!   task and a `blocking_` form for a thread.
//! - The **consumer** stays in `execute`: [`stream`](Consumer::stream) waits for the schema
//!   and the first batch (or the end of an empty result, or the error), so errors of
//!   preparation and of the first rows come back from `execute` itself, then returns the rest
//!   as a [`BatchStream`](nao_core::BatchStream).
//!
//! # Caps
//! The reader of a result keeps at most `max_rows` rows and stops at the first batch that
//! takes it past `max_bytes` ([`collect_capped`](nao_core::collect_capped)); the producer
//! reads no more than that:
//! - **Rows.** [`batch`](Producer::batch) hands over at most `max_rows + 1` rows in all: one
//!   past the cap tells a result that was cut from one that fits exactly. The batch that
//!   crosses that count is cut there (a zero-copy slice). A producer that reads row by row asks
//!   [`rows_left`](Producer::rows_left) instead and never reads more.
//! - **Bytes.** The batch that takes the Arrow bytes handed over past `max_bytes` (as
//!   `get_array_memory_size` counts them) goes whole: the reader cuts it by its own measure.
//! - After either, `batch` says [`Flow::Full`]: the producer stops reading, stops the engine's
//!   work (cancels the query on the server) and calls `finish`.
//!
//! A producer that builds its batches from rows sends one early when it nears the byte cap,
//! and calls [`room`](Producer::room) before building the next one, so that it holds at most
//! one batch beside the reader's whatever the row width.
//!
//! # Stopping
//! A statement stops when the caller's cancellation token fires, when its time limit passes
//! (counted from `channel`), or when the reader drops the stream. Both halves see it:
//! - The reader gets [`StopReason::error`] (a [`DialectError::Cancelled`] or
//!   [`DialectError::Timeout`]) from the pump itself, at once, whatever the producer is
//!   doing; a batch already handed over is read first, and the stream ends after the error.
//!   An adapter whose engine may not stop at once can make the reader wait a little for the
//!   producer's own word ([`Consumer::with_grace`]).
//! - The producer's next `schema`, `batch` or `room` returns [`Stopped`] (also when the
//!   reader went away: [`Stopped::ConsumerGone`]); it then stops and returns without
//!   `finish`. A producer blocked in its engine needs a **watcher**: a task that awaits
//!   [`StopSignal::stopped`] and interrupts the engine (DuckDB's interrupt handle, a
//!   PostgreSQL cancel request, MySQL's `KILL QUERY`, Flight SQL's `CancelFlightInfo`), or an
//!   engine hook that polls [`StopSignal::check`] (SQLite's progress handler). The engine's
//!   "interrupted" error then maps to the right kind through [`StopSignal::reason`].
//!
//! ```
//! use nao_dialects::core::{DialectError, ExecOptions};
//! use nao_dialects::pump::{self, Stopped};
//! use tokio_util::sync::CancellationToken;
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let cancel = CancellationToken::new();
//! let options = ExecOptions::default().with_cancel(cancel.clone());
//! let (producer, consumer) = pump::channel("slow", &options);
//! // The watcher: here it only reports; an adapter interrupts its engine.
//! let signal = producer.signal();
//! let watcher = tokio::spawn(async move { signal.stopped().await });
//! cancel.cancel();
//! let outcome = consumer.stream().await;
//! assert!(matches!(outcome, Err(DialectError::Cancelled { .. })));
//! assert_eq!(watcher.await.unwrap(), Stopped::Reason(pump::StopReason::Cancelled));
//! # });
//! ```
//!
//! # An async producer
//! A producer that gets whole Arrow batches from a network stream (Flight SQL) runs as a task
//! and races each read against the stop, so that it can cancel the server's work:
//!
//! ```
//! use std::sync::Arc;
//!
//! use futures_util::StreamExt;
//! use nao_dialects::core::arrow::array::{Int32Array, RecordBatch};
//! use nao_dialects::core::arrow::datatypes::{DataType, Field, Schema};
//! use nao_dialects::core::{DialectError, ExecOptions};
//! use nao_dialects::pump::{self, Flow};
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let schema = Arc::new(Schema::new(vec![Field::new("v", DataType::Int32, true)]));
//! let values = Int32Array::from(vec![1, 2, 3]);
//! let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(values)])?;
//! // Stands for the server's stream of batches.
//! let mut network = futures_util::stream::iter(vec![Ok(batch.clone()), Ok(batch)]).boxed();
//!
//! let options = ExecOptions::default().with_max_rows(4);
//! let (mut producer, consumer) = pump::channel("remote", &options);
//! tokio::spawn(async move {
//!     if producer.schema(schema).await.is_err() {
//!         return;
//!     }
//!     loop {
//!         let next = tokio::select! {
//!             next = network.next() => next,
//!             _stopped = producer.stopped() => return, // cancel the server's work here
//!         };
//!         match next {
//!             Some(Ok(batch)) => match producer.batch(batch).await {
//!                 Ok(Flow::Continue) => {}
//!                 Ok(Flow::Full) => break, // and here
//!                 Err(_stopped) => return,
//!             },
//!             Some(Err(error)) => return producer.fail(error).await,
//!             None => break,
//!         }
//!     }
//!     producer.finish();
//! });
//! let mut stream = consumer.stream().await?;
//! let mut rows = 0;
//! while let Some(batch) = stream.next().await {
//!     rows += batch?.num_rows();
//! }
//! assert_eq!(rows, 5, "the second batch is cut one row past the cap of 4");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```
//!
//! # What stays in the adapter
//! Converting the engine's values to Arrow, how many rows to fetch at a time, how to
//! interrupt the engine, its connections and their cleanup, and mapping its errors to
//! [`DialectError`](nao_core::DialectError) kinds. The stream ends when the producer is
//! finished with (dropped after [`finish`](Producer::finish)), so an adapter that finishes
//! after returning its connection to the pool ends the stream on a free connection.
//!
//! [`DialectError::Cancelled`]: nao_core::DialectError::Cancelled
//! [`DialectError::Timeout`]: nao_core::DialectError::Timeout

mod channel;
mod consumer;
mod producer;
mod reason;
mod signal;
#[cfg(test)]
mod tests;

pub use channel::channel;
pub use consumer::Consumer;
pub use producer::{Flow, Producer};
pub use reason::{StopReason, Stopped};
pub use signal::StopSignal;
