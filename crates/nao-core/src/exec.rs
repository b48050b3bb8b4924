//! How a statement runs: its limits, and the stream of Arrow batches it yields.

use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use futures_core::Stream;
use tokio_util::sync::CancellationToken;

use crate::{Admitted, DialectError};

/// Default [`ExecOptions::max_rows`]: rows kept from one result.
pub const DEFAULT_MAX_ROWS: u64 = 10_000;
/// Default [`ExecOptions::max_bytes`]: Arrow memory kept from one result (64 MiB).
pub const DEFAULT_MAX_BYTES: usize = 64 << 20;
/// Default [`ExecOptions::timeout`].
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default [`ExecOptions::batch_size`]: rows per batch for adapters that build batches.
pub const DEFAULT_BATCH_SIZE: usize = 2_048;

/// Limits for one execution. Adapters push them down to the engine where they can (a
/// server-side statement timeout, stopping the cursor at the cap);
/// [`collect_capped`](crate::collect_capped) enforces them on any stream.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ExecOptions {
    /// Keep at most this many rows; the adapter reads one more to know the result was cut.
    pub max_rows: u64,
    /// Keep at most this many bytes of Arrow memory.
    pub max_bytes: usize,
    /// Stop the statement after this long.
    pub timeout: Duration,
    /// Cancelled by the caller to stop the statement.
    pub cancel: CancellationToken,
    /// Rows per batch, for adapters that build batches themselves.
    pub batch_size: usize,
    /// The statement's turn on its database, when it has taken one
    /// ([`DialectExt::query`](crate::DialectExt::query) does).
    turn: Option<Arc<Admitted>>,
    /// Counts the rows [`collect_capped`](crate::collect_capped) keeps, for whoever reports
    /// progress.
    rows_read: Option<RowsRead>,
}

/// A count of the rows read so far by the statements that share it, for progress reports (an
/// MCP server's `notifications/progress`). Clones share the count; reading it never waits.
#[derive(Debug, Clone, Default)]
pub struct RowsRead(Arc<AtomicU64>);

impl RowsRead {
    /// The rows read so far.
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }

    /// Counts `rows` more.
    pub(crate) fn add(&self, rows: u64) {
        self.0.fetch_add(rows, Ordering::Relaxed);
    }
}

impl Default for ExecOptions {
    fn default() -> Self {
        ExecOptions {
            max_rows: DEFAULT_MAX_ROWS,
            max_bytes: DEFAULT_MAX_BYTES,
            timeout: DEFAULT_TIMEOUT,
            cancel: CancellationToken::new(),
            batch_size: DEFAULT_BATCH_SIZE,
            turn: None,
            rows_read: None,
        }
    }
}

impl ExecOptions {
    /// Sets the row cap.
    #[must_use]
    pub fn with_max_rows(mut self, rows: u64) -> Self {
        self.max_rows = rows;
        self
    }

    /// Sets the byte cap.
    #[must_use]
    pub fn with_max_bytes(mut self, bytes: usize) -> Self {
        self.max_bytes = bytes;
        self
    }

    /// Sets the time limit.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Uses `cancel` to stop the statement.
    #[must_use]
    pub fn with_cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// Carries the statement's turn on its database, so the database does not make it wait
    /// again.
    pub(crate) fn with_turn(mut self, turn: Admitted) -> Self {
        self.turn = Some(Arc::new(turn));
        self
    }

    /// Whether the statement holds a turn given by the gate `gate`.
    pub(crate) fn admitted_by(&self, gate: u64) -> bool {
        self.turn.as_ref().is_some_and(|t| t.is_from(gate))
    }

    /// Counts the rows kept from the result into `rows_read` as they arrive.
    #[must_use]
    pub fn with_rows_read(mut self, rows_read: RowsRead) -> Self {
        self.rows_read = Some(rows_read);
        self
    }

    /// The count the rows kept go to, if any.
    pub(crate) fn rows_read(&self) -> Option<&RowsRead> {
        self.rows_read.as_ref()
    }

    /// Sets the rows per batch (at least 1).
    #[must_use]
    pub fn with_batch_size(mut self, rows: usize) -> Self {
        self.batch_size = rows.max(1);
        self
    }
}

type BoxedBatches = Pin<Box<dyn Stream<Item = Result<RecordBatch, DialectError>> + Send>>;

/// What a layer learnt about the columns while the batches passed, applied to the schema once
/// they have been read.
type SchemaMarks = Box<dyn FnOnce(&SchemaRef) -> SchemaRef + Send>;

/// The batches of a running statement, with their schema known up front (so an empty result
/// still has columns). Dropping the stream stops the statement: adapters cancel the engine's
/// work when their stream is dropped.
pub struct BatchStream {
    schema: SchemaRef,
    batches: BoxedBatches,
    marks: Option<SchemaMarks>,
    /// What must live as long as the stream (a turn on the database).
    kept: Vec<Box<dyn std::any::Any + Send>>,
}

impl BatchStream {
    /// Wraps a stream of batches that all have `schema`.
    pub fn new(
        schema: SchemaRef,
        batches: impl Stream<Item = Result<RecordBatch, DialectError>> + Send + 'static,
    ) -> Self {
        BatchStream {
            schema,
            batches: Box::pin(batches),
            marks: None,
            kept: Vec::new(),
        }
    }

    /// Keeps `value` alive until the stream is dropped (a turn on the database, so the
    /// database counts the statement as running while its batches are read).
    #[must_use]
    pub fn keeping(mut self, value: impl std::any::Any + Send) -> Self {
        self.kept.push(Box::new(value));
        self
    }

    /// Adds `marks`, which a reader applies to the schema once it has read the batches
    /// ([`read_schema`](Self::read_schema)): for a layer that learns something about the
    /// columns only while the batches pass (the value detector, which marks the columns where
    /// it replaced values). Every batch keeps the stream's [`schema`](Self::schema).
    #[must_use]
    pub fn with_schema_marks(
        mut self,
        marks: impl FnOnce(&SchemaRef) -> SchemaRef + Send + 'static,
    ) -> Self {
        self.marks = Some(Box::new(marks));
        self
    }

    /// The schema as the reader should see it once it has read the batches it keeps: the
    /// stream's schema with the marks of [`with_schema_marks`](Self::with_schema_marks), if
    /// any (they are applied once; later calls give the plain schema).
    pub fn read_schema(&mut self) -> SchemaRef {
        match self.marks.take() {
            Some(marks) => marks(&self.schema),
            None => self.schema.clone(),
        }
    }

    /// A stream over batches already in memory.
    pub fn from_batches(schema: SchemaRef, batches: Vec<RecordBatch>) -> Self {
        BatchStream::new(
            schema,
            futures_util::stream::iter(batches.into_iter().map(Ok)),
        )
    }

    /// The schema of every batch.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }
}

impl fmt::Debug for BatchStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BatchStream")
            .field("schema", &self.schema)
            .finish_non_exhaustive()
    }
}

impl Stream for BatchStream {
    type Item = Result<RecordBatch, DialectError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.batches.as_mut().poll_next(cx)
    }
}
