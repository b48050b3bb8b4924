//! [`Producer`]: the adapter's half of a statement, which reads the engine and hands batches
//! over, within the caps.

use std::sync::atomic::Ordering;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use nao_core::{DialectError, ExecOptions};
use tokio::sync::mpsc::{self, error::TrySendError};

use super::channel::Message;
use super::{StopReason, StopSignal, Stopped};

/// What the producer does after a batch was handed over. Exhaustive on purpose: a producer
/// either reads on or stops, and matches both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Go on reading.
    Continue,
    /// The reader has all it will keep: the row cap plus one row (so it can tell the result
    /// was cut), or batches past the byte cap. Stop reading, stop the engine's work (cancel the
    /// query on the server), then [`finish`](Producer::finish): the result ends there.
    Full,
}

/// The adapter's half of one statement (see the [module docs](super)): announces the schema,
/// hands batches over within the row and byte caps, reports an error, and says when the
/// result is complete.
///
/// Every method has an async form for producers that run as tokio tasks and a `blocking_`
/// form for producers on a thread of their own (the blocking forms panic when called from
/// inside an async task, as tokio's `blocking_send` does). Methods that hand something over
/// return [`Stopped`] when the statement must stop: the producer then stops its engine's work
/// and returns, without [`finish`](Self::finish) (the reader is told why by the pump itself).
#[derive(Debug)]
pub struct Producer {
    tx: mpsc::Sender<Message>,
    signal: StopSignal,
    /// Rows the reader may get: the row cap plus one.
    row_limit: u64,
    max_bytes: usize,
    /// Rows handed over.
    rows: u64,
    /// Arrow bytes handed over.
    bytes: usize,
    schema_sent: bool,
    full: bool,
    failed: bool,
}

impl Producer {
    pub(super) fn new(
        tx: mpsc::Sender<Message>,
        signal: StopSignal,
        options: &ExecOptions,
    ) -> Self {
        Producer {
            tx,
            signal,
            row_limit: options.max_rows.saturating_add(1),
            max_bytes: options.max_bytes,
            rows: 0,
            bytes: 0,
            schema_sent: false,
            full: false,
            failed: false,
        }
    }

    /// The statement's [`StopSignal`], for a watcher task or an engine hook that outlives a
    /// borrow of the producer.
    pub fn signal(&self) -> StopSignal {
        self.signal.clone()
    }

    /// Why the statement must stop now, if it must ([`StopSignal::check`]).
    pub fn check(&self) -> Option<Stopped> {
        self.signal.check()
    }

    /// The recorded stop reason, if any ([`StopSignal::reason`]).
    pub fn stop_reason(&self) -> Option<StopReason> {
        self.signal.reason()
    }

    /// Resolves when the statement must stop ([`StopSignal::stopped`]).
    pub async fn stopped(&self) -> Stopped {
        self.signal.stopped().await
    }

    /// The most rows the reader will take: the row cap plus one (one row past the cap tells a
    /// cut result from one that fits). A producer that reads row by row reads no more.
    pub fn row_limit(&self) -> u64 {
        self.row_limit
    }

    /// Rows still wanted: [`row_limit`](Self::row_limit) less the rows handed over.
    pub fn rows_left(&self) -> u64 {
        self.row_limit.saturating_sub(self.rows)
    }

    /// The call's byte cap: the reader keeps batches up to it and stops at the first that
    /// passes it. A producer that builds batches may send one early when it nears this.
    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    /// Announces the result's schema, before any batch; known before the first row, it lets
    /// an empty result keep its columns. A second call does nothing. [`batch`](Self::batch)
    /// announces the batch's own schema when this was not called.
    pub async fn schema(&mut self, schema: SchemaRef) -> Result<(), Stopped> {
        match self.take_schema(schema)? {
            Some(message) => self.send(message).await,
            None => Ok(()),
        }
    }

    /// [`schema`](Self::schema) from a thread of the producer's own.
    pub fn blocking_schema(&mut self, schema: SchemaRef) -> Result<(), Stopped> {
        match self.take_schema(schema)? {
            Some(message) => self.blocking_send(message),
            None => Ok(()),
        }
    }

    /// Hands `batch` over, waiting while the reader is one batch behind (racing the stop
    /// signals). The batch that crosses the row cap plus one is cut there (a zero-copy
    /// slice); the one that takes the bytes handed over past the byte cap goes whole (a slice
    /// would keep the same buffers, and the reader cuts by its own measure). After either,
    /// [`Flow::Full`]; a batch offered after that is dropped.
    pub async fn batch(&mut self, batch: RecordBatch) -> Result<Flow, Stopped> {
        if !self.schema_sent {
            self.schema(batch.schema()).await?;
        }
        let (message, flow) = match self.take_batch(batch)? {
            Some(taken) => taken,
            None => return Ok(Flow::Full),
        };
        self.send(message).await?;
        Ok(flow)
    }

    /// [`batch`](Self::batch) from a thread of the producer's own. It cannot race the stop
    /// signals while it waits for the reader; a reader that stops drops its end, which ends
    /// the wait.
    pub fn blocking_batch(&mut self, batch: RecordBatch) -> Result<Flow, Stopped> {
        if !self.schema_sent {
            self.blocking_schema(batch.schema())?;
        }
        let (message, flow) = match self.take_batch(batch)? {
            Some(taken) => taken,
            None => return Ok(Flow::Full),
        };
        self.blocking_send(message)?;
        Ok(flow)
    }

    /// Waits until the reader has taken the last batch: a producer that calls this before it
    /// builds the next batch holds at most one batch beside the reader's (what keeps the
    /// server adapters within about twice the byte cap whatever the row width).
    pub async fn room(&self) -> Result<(), Stopped> {
        if let Some(stopped) = self.check() {
            return Err(stopped);
        }
        tokio::select! {
            biased;
            permit = self.tx.reserve() => permit.map(drop).map_err(|_| Stopped::ConsumerGone),
            stopped = self.signal.stopped() => Err(stopped),
        }
    }

    /// Reports `error` to the reader (from `execute` before the first batch, else as the
    /// stream's last item). Nothing more is handed over afterwards.
    pub async fn fail(&mut self, error: DialectError) {
        if !std::mem::replace(&mut self.failed, true) {
            let _ = self.tx.send(Message::Failed(error)).await;
        }
    }

    /// [`fail`](Self::fail) from a thread of the producer's own.
    pub fn blocking_fail(&mut self, error: DialectError) {
        if !std::mem::replace(&mut self.failed, true) {
            let _ = self.tx.blocking_send(Message::Failed(error));
        }
    }

    /// The result is complete (or cut at a cap, after [`Flow::Full`]): the stream ends once
    /// the producer is dropped here. Call it after the adapter's own cleanup (a connection
    /// returned to its pool), so the stream's end means the statement is done. A producer
    /// dropped without it (a panic, or a bug) ends the stream with an error; after a stop, the
    /// stream ends with the stop's error.
    pub fn finish(self) {
        if !self.failed && self.signal.shared.check_reason().is_none() {
            self.signal.shared.finished.store(true, Ordering::Release);
        }
    }

    /// The schema message, unless one was sent.
    fn take_schema(&mut self, schema: SchemaRef) -> Result<Option<Message>, Stopped> {
        if let Some(stopped) = self.refusal() {
            return Err(stopped);
        }
        if std::mem::replace(&mut self.schema_sent, true) {
            return Ok(None);
        }
        Ok(Some(Message::Schema(schema)))
    }

    /// The batch, cut at the row limit, with the flow after it; `None` once full.
    fn take_batch(&mut self, batch: RecordBatch) -> Result<Option<(Message, Flow)>, Stopped> {
        if let Some(stopped) = self.refusal() {
            return Err(stopped);
        }
        if self.full {
            return Ok(None);
        }
        let left = self.rows_left();
        let batch = if batch.num_rows() as u64 > left {
            batch.slice(0, usize::try_from(left).unwrap_or(usize::MAX))
        } else {
            batch
        };
        let rows = batch.num_rows();
        self.rows = self.rows.saturating_add(rows as u64);
        // An empty batch holds no rows the reader keeps, so it takes none of the byte cap.
        if rows > 0 {
            self.bytes = self.bytes.saturating_add(batch.get_array_memory_size());
        }
        self.full = self.rows >= self.row_limit || self.bytes > self.max_bytes;
        let flow = if self.full {
            Flow::Full
        } else {
            Flow::Continue
        };
        Ok(Some((Message::Batch(batch), flow)))
    }

    /// Why nothing more may be handed over.
    fn refusal(&self) -> Option<Stopped> {
        if self.failed {
            return Some(Stopped::ConsumerGone);
        }
        self.check()
    }

    async fn send(&self, message: Message) -> Result<(), Stopped> {
        // The reader usually has room (a producer that waits for it with `room` always does):
        // no timer, no token to register then.
        let message = match self.tx.try_send(message) {
            Ok(()) => return Ok(()),
            Err(TrySendError::Closed(_)) => return Err(Stopped::ConsumerGone),
            Err(TrySendError::Full(message)) => message,
        };
        tokio::select! {
            biased;
            sent = self.tx.send(message) => sent.map_err(|_| Stopped::ConsumerGone),
            stopped = self.signal.stopped() => Err(stopped),
        }
    }

    fn blocking_send(&self, message: Message) -> Result<(), Stopped> {
        self.tx
            .blocking_send(message)
            .map_err(|_| Stopped::ConsumerGone)
    }
}
