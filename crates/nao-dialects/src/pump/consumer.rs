//! [`Consumer`]: the caller's half of a statement, which `execute` turns into a
//! [`BatchStream`].

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};
use std::time::Duration;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use futures_core::Stream;
use nao_core::{BatchStream, DialectError};
use tokio::sync::mpsc;

use super::channel::Message;
use super::{StopReason, StopSignal};

/// The caller's half of one statement (see the [module docs](super)): waits for the schema
/// and the first batch, then streams the rest, racing the caller's token and deadline all the
/// way. Dropping it (or the stream it became) tells the producer nobody reads any more.
#[derive(Debug)]
pub struct Consumer {
    inbox: Inbox,
    grace: Duration,
}

/// The receiving end; dropping it is what the producer sees as the reader going away.
#[derive(Debug)]
struct Inbox {
    rx: mpsc::Receiver<Message>,
    signal: StopSignal,
}

impl Drop for Inbox {
    fn drop(&mut self) {
        self.signal.shared.leave();
    }
}

impl Consumer {
    pub(super) fn new(rx: mpsc::Receiver<Message>, signal: StopSignal) -> Self {
        Consumer {
            inbox: Inbox { rx, signal },
            grace: Duration::ZERO,
        }
    }

    /// After the caller cancels or the deadline passes, waits up to `grace` more for the
    /// producer's own last word (a batch already on its way, the engine's error, the end)
    /// before the reader gets the stop's error; with the default, none, the reader gets it at
    /// once while the producer stops in the background. For an engine that may not honour an
    /// interrupt at once and whose statement should be over when the caller hears of it
    /// (DuckDB waits 2 s); a producer that outlives the grace is left running, and logged.
    #[must_use]
    pub fn with_grace(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }

    /// Runs `work` (waiting for a connection, a slot, a worker) unless the caller cancels or
    /// the deadline passes first, which gives the stop's error instead. A token cancelled
    /// before the call wins over work that is ready at once.
    pub async fn unless_stopped<F: Future>(&self, work: F) -> Result<F::Output, DialectError> {
        let signal = &self.inbox.signal;
        tokio::select! {
            biased;
            reason = signal.interrupted() => Err(reason.error(signal.database())),
            output = work => Ok(output),
        }
    }

    /// Waits for the schema and the first batch (or the end of an empty result, or the
    /// producer's error), so that errors of preparation and of the first rows come back from
    /// `execute` itself, racing the caller's token and deadline; then the rest as a
    /// [`BatchStream`] that keeps racing them. A batch already handed over is read before a
    /// stop; after an error (the producer's or the stop's) the stream ends.
    pub async fn stream(self) -> Result<BatchStream, DialectError> {
        let Consumer { inbox, grace } = self;
        let database = inbox.signal.shared.database.clone();
        let stop = Box::pin(interrupted(inbox.signal.clone(), grace));
        let mut reader = Reader {
            database: database.clone(),
            inbox: Some(inbox),
            stop,
            head: None,
        };
        let (schema, head) = match std::future::poll_fn(|cx| reader.poll_event(cx)).await {
            Event::Schema(schema) => {
                let head = match std::future::poll_fn(|cx| reader.poll_event(cx)).await {
                    Event::Batch(batch) => Some(batch),
                    Event::End => None,
                    Event::Failed(error) => return Err(error),
                    Event::Schema(_) => return Err(protocol_error(&database, "a second schema")),
                };
                (schema, head)
            }
            Event::Failed(error) => return Err(error),
            Event::End => return Err(protocol_error(&database, "no schema")),
            // The producer announces the schema itself; this stays total all the same.
            Event::Batch(batch) => (batch.schema(), Some(batch)),
        };
        reader.head = head;
        Ok(BatchStream::new(schema, reader))
    }
}

/// Resolves `grace` after the caller cancels or the deadline passes, with the reason.
async fn interrupted(signal: StopSignal, grace: Duration) -> StopReason {
    let reason = signal.interrupted().await;
    if !grace.is_zero() {
        tokio::time::sleep(grace).await;
        tracing::warn!(
            database = signal.database(),
            %reason,
            "the statement's producer did not stop within {grace:?}; the reader stops \
             waiting for it"
        );
    }
    reason
}

/// An error for a producer that broke the pump's order (a bug in the adapter, not the data).
fn protocol_error(database: &str, what: &str) -> DialectError {
    DialectError::Engine {
        database: database.to_owned(),
        message: format!("the statement's worker sent {what} where a result was expected"),
        code: None,
        source: None,
    }
}

/// What the reader sees next.
enum Event {
    Schema(SchemaRef),
    Batch(RecordBatch),
    Failed(DialectError),
    End,
}

/// The stream `execute` returns: the first batch (read by [`Consumer::stream`]), then the
/// channel's batches, each raced against the stop.
struct Reader {
    database: std::sync::Arc<str>,
    /// `None` once the stream has ended.
    inbox: Option<Inbox>,
    stop: Pin<Box<dyn Future<Output = StopReason> + Send>>,
    head: Option<RecordBatch>,
}

impl Reader {
    /// The next event; a message already sent comes before a stop.
    fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<Event> {
        let Some(inbox) = self.inbox.as_mut() else {
            return Poll::Ready(Event::End);
        };
        let event = match inbox.rx.poll_recv(cx) {
            Poll::Ready(Some(Message::Schema(schema))) => {
                return Poll::Ready(Event::Schema(schema));
            }
            Poll::Ready(Some(Message::Batch(batch))) => return Poll::Ready(Event::Batch(batch)),
            Poll::Ready(Some(Message::Failed(error))) => Event::Failed(error),
            Poll::Ready(None) => ending(&inbox.signal),
            Poll::Pending => match self.stop.as_mut().poll(cx) {
                Poll::Ready(reason) => Event::Failed(reason.error(inbox.signal.database())),
                Poll::Pending => return Poll::Pending,
            },
        };
        // The stream ends here: dropping the inbox tells the producer nobody reads any more.
        self.inbox = None;
        Poll::Ready(event)
    }
}

/// How the stream ends once the producer is gone: cleanly if it said it finished, with the
/// stop's error if the statement was stopped, else with an error (it panicked or forgot).
fn ending(signal: &StopSignal) -> Event {
    if signal.shared.finished.load(Ordering::Acquire) {
        return Event::End;
    }
    let database = signal.database();
    match signal.shared.check_reason() {
        Some(reason) => Event::Failed(reason.error(database)),
        None => Event::Failed(DialectError::Engine {
            database: database.to_owned(),
            message: "the statement's worker stopped before the end of the result (it may have \
                      panicked)"
                .into(),
            code: None,
            source: None,
        }),
    }
}

impl Stream for Reader {
    type Item = Result<RecordBatch, DialectError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if let Some(head) = this.head.take() {
            return Poll::Ready(Some(Ok(head)));
        }
        let item = match std::task::ready!(this.poll_event(cx)) {
            Event::Batch(batch) => Some(Ok(batch)),
            Event::Failed(error) => Some(Err(error)),
            Event::End => None,
            Event::Schema(_) => {
                this.inbox = None;
                Some(Err(protocol_error(&this.database, "a second schema")))
            }
        };
        Poll::Ready(item)
    }
}
