//! [`StopSignal`]: what both halves of a statement share about stopping it, and what an
//! adapter's watcher or engine hook asks.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::{StopReason, Stopped};

/// How far away a deadline is when the time limit is too long to add to the clock.
const FAR_FUTURE: Duration = Duration::from_secs(100 * 365 * 24 * 60 * 60);

/// Nothing has stopped the statement.
const RUNNING: u8 = 0;
const CANCELLED: u8 = 1;
const TIMED_OUT: u8 = 2;

/// The state one statement's producer, consumer and watchers share.
#[derive(Debug)]
pub(super) struct Shared {
    /// The database's name, for errors.
    pub(super) database: Arc<str>,
    /// The caller's token.
    cancel: CancellationToken,
    /// When the time limit passes.
    deadline: Instant,
    /// The time limit, for [`StopReason::Timeout`].
    limit: Duration,
    /// Cancelled when the consumer is dropped (see [`Shared::leave`]).
    gone: CancellationToken,
    /// Set with `gone`, for synchronous checks (a token check takes a lock).
    left: AtomicBool,
    /// The first stop reason anyone saw ([`RUNNING`] until then): both halves report the same.
    reason: AtomicU8,
    /// The producer said the result is complete (or cut at a cap).
    pub(super) finished: AtomicBool,
}

impl Shared {
    pub(super) fn new(database: &str, cancel: CancellationToken, limit: Duration) -> Arc<Shared> {
        let now = Instant::now();
        let deadline = now.checked_add(limit).unwrap_or_else(|| now + FAR_FUTURE);
        Arc::new(Shared {
            database: database.into(),
            cancel,
            deadline,
            limit,
            gone: CancellationToken::new(),
            left: AtomicBool::new(false),
            reason: AtomicU8::new(RUNNING),
            finished: AtomicBool::new(false),
        })
    }

    /// Records `reason` unless another was recorded first; the one that counts.
    fn record(&self, reason: StopReason) -> StopReason {
        let code = match reason {
            StopReason::Cancelled => CANCELLED,
            StopReason::Timeout(_) => TIMED_OUT,
        };
        match self
            .reason
            .compare_exchange(RUNNING, code, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => reason,
            Err(first) => self.decode(first).unwrap_or(reason),
        }
    }

    fn decode(&self, code: u8) -> Option<StopReason> {
        match code {
            CANCELLED => Some(StopReason::Cancelled),
            TIMED_OUT => Some(StopReason::Timeout(self.limit)),
            _ => None,
        }
    }

    /// The consumer is dropped: nobody reads any more.
    pub(super) fn leave(&self) {
        self.left.store(true, Ordering::Release);
        self.gone.cancel();
    }

    /// Whether the consumer was dropped.
    pub(super) fn has_left(&self) -> bool {
        self.left.load(Ordering::Acquire)
    }

    /// The recorded reason.
    pub(super) fn reason(&self) -> Option<StopReason> {
        self.decode(self.reason.load(Ordering::Acquire))
    }

    /// The recorded reason, or the one that holds now (recorded), if any.
    pub(super) fn check_reason(&self) -> Option<StopReason> {
        if let Some(reason) = self.reason() {
            return Some(reason);
        }
        if self.cancel.is_cancelled() {
            return Some(self.record(StopReason::Cancelled));
        }
        if Instant::now() >= self.deadline {
            return Some(self.record(StopReason::Timeout(self.limit)));
        }
        None
    }

    /// Resolves with the reason once the token fires or the deadline passes.
    pub(super) async fn interrupted(&self) -> StopReason {
        if let Some(reason) = self.check_reason() {
            return reason;
        }
        let reason = tokio::select! {
            biased;
            () = self.cancel.cancelled() => StopReason::Cancelled,
            () = tokio::time::sleep_until(self.deadline) => StopReason::Timeout(self.limit),
        };
        self.record(reason)
    }
}

/// Why one statement must stop, for anything that watches it: the producer itself, a watcher
/// task that interrupts the engine when the statement must stop (DuckDB's interrupt handle,
/// PostgreSQL's cancel request, MySQL's `KILL QUERY`, Flight SQL's `CancelFlightInfo`), or a
/// hook the engine calls while it works (SQLite's progress handler). Cheap to clone; get one
/// from [`Producer::signal`](super::Producer::signal).
///
/// The statement must stop when the caller's cancellation token fires, when its time limit
/// (counted from [`channel`](fn@super::channel)) passes, or when the reader drops the stream.
/// The first [`StopReason`] anyone sees is recorded, so the producer's error and the reader's
/// agree.
#[derive(Debug, Clone)]
pub struct StopSignal {
    pub(super) shared: Arc<Shared>,
}

impl StopSignal {
    /// Why the statement must stop now, if it must; `None` while it may go on. Synchronous and
    /// cheap (atomic reads, one uncontended lock for the caller's token, a clock read), so an
    /// engine hook called every few thousand steps can afford it.
    pub fn check(&self) -> Option<Stopped> {
        if let Some(reason) = self.shared.check_reason() {
            return Some(Stopped::Reason(reason));
        }
        self.shared.has_left().then_some(Stopped::ConsumerGone)
    }

    /// The reason the statement was stopped, once someone has seen it (a
    /// [`check`](Self::check), [`stopped`](Self::stopped), or the reader): what an adapter's
    /// error mapping needs to turn the engine's "interrupted" into the right error.
    pub fn reason(&self) -> Option<StopReason> {
        self.shared.reason()
    }

    /// Resolves when the statement must stop: the caller cancels, the deadline passes, or the
    /// reader drops the stream. What a watcher awaits before it interrupts the engine.
    pub async fn stopped(&self) -> Stopped {
        if let Some(stopped) = self.check() {
            return stopped;
        }
        tokio::select! {
            biased;
            reason = self.shared.interrupted() => Stopped::Reason(reason),
            () = self.shared.gone.cancelled() => {
                // A reason that fired at the same time wins: the reader may still hear it.
                self.check().unwrap_or(Stopped::ConsumerGone)
            }
        }
    }

    /// Resolves when the caller cancels or the deadline passes, ignoring a reader that went
    /// away: for a watcher whose way of stopping the engine costs more than letting the
    /// producer notice the missing reader at its next batch (ending a worker process that
    /// could serve the next statement).
    pub async fn interrupted(&self) -> StopReason {
        self.shared.interrupted().await
    }

    /// When the statement's time limit passes: for waits the adapter bounds itself (a
    /// connection pool that says the wait was for a connection).
    pub fn deadline(&self) -> Instant {
        self.shared.deadline
    }

    /// The database's name, as given to [`channel`](fn@super::channel).
    pub fn database(&self) -> &str {
        &self.shared.database
    }
}
