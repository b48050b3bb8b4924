//! The statement task's watcher: races each round trip against the cancellation token, the
//! deadline and a dropped receiver, and sends the cancel request when one of them fires while
//! the server is working.
//!
//! The caller never waits for this: the stream returns its timeout or cancellation at the
//! deadline itself (see `stream::execute`), while the task sends the cancel request, waits for
//! the server and drops the connection in the background.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures_util::pin_mut;
use nao_core::DialectError;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::errors::{self, StopReason};
use super::oversize;
use super::pool::Canceller;
use super::stream::{Job, Message};
use super::wire::WireLimit;

/// How long to wait for the cancel request to be sent, and then for the server to answer,
/// before giving the connection up.
pub(super) const CANCEL_GRACE: Duration = Duration::from_secs(5);

/// Races the server's work against the stop signals, and sends the cancel request.
pub(super) struct Watch<'a> {
    pub(super) job: &'a Job,
    pub(super) tx: &'a mpsc::Sender<Message>,
    /// Sends the cancel request over a connection of its own (with the statement's TLS).
    pub(super) canceller: Canceller,
    /// The connection's wire guard: the statement's row limit, and what it refused.
    pub(super) wire: Arc<WireLimit>,
    /// Why the statement was stopped, once it was.
    pub(super) stop: Option<Stop>,
    /// A cancel request was sent: the connection must not be reused.
    pub(super) cancel_sent: bool,
}

/// Why the watcher stopped the statement.
#[derive(Debug, Clone, Copy)]
pub(super) enum Stop {
    /// Cancelled or timed out: the stream gets the error.
    Reason(StopReason),
    /// The stream was dropped: nobody is listening.
    ReceiverGone,
}

impl Watch<'_> {
    /// Runs `work`; if a stop signal fires first, sends a cancel request and waits a little for
    /// the server to answer. `None` when the server did not answer in time.
    pub(super) async fn run<F: Future>(&mut self, work: F) -> Option<F::Output> {
        pin_mut!(work);
        let stop = tokio::select! {
            biased;
            out = &mut work => return Some(out),
            () = self.job.cancel.cancelled() => Stop::Reason(StopReason::Cancelled),
            () = tokio::time::sleep_until(self.job.deadline) => {
                Stop::Reason(StopReason::Timeout(self.job.timeout))
            }
            () = self.tx.closed() => Stop::ReceiverGone,
        };
        self.stop.get_or_insert(stop);
        if !self.cancel_sent {
            self.cancel_sent = true;
            match tokio::time::timeout(CANCEL_GRACE, self.canceller.cancel()).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::warn!(error = %e, "the PostgreSQL cancel request failed"),
                Err(_) => tracing::warn!("the PostgreSQL cancel request timed out"),
            }
        }
        tokio::time::timeout(CANCEL_GRACE, work).await.ok()
    }

    /// Waits until the reader has taken the last batch (nothing runs on the server meanwhile:
    /// the portal is suspended between fetches); the stop signal otherwise.
    pub(super) async fn room(&mut self) -> Result<(), Stop> {
        let stop = tokio::select! {
            biased;
            () = self.job.cancel.cancelled() => Stop::Reason(StopReason::Cancelled),
            () = tokio::time::sleep_until(self.job.deadline) => {
                Stop::Reason(StopReason::Timeout(self.job.timeout))
            }
            permit = self.tx.reserve() => match permit {
                Ok(_) => return Ok(()),
                Err(_) => Stop::ReceiverGone,
            },
        };
        Err(*self.stop.get_or_insert(stop))
    }

    pub(super) fn reason(&self) -> Option<StopReason> {
        match self.stop {
            Some(Stop::Reason(reason)) => Some(reason),
            _ => None,
        }
    }

    /// Whether the statement must stop now, between two round trips.
    pub(super) fn check_between(&mut self) -> Option<Stop> {
        if self.stop.is_none() {
            if self.job.cancel.is_cancelled() {
                self.stop = Some(Stop::Reason(StopReason::Cancelled));
            } else if Instant::now() >= self.job.deadline {
                self.stop = Some(Stop::Reason(StopReason::Timeout(self.job.timeout)));
            } else if self.tx.is_closed() {
                self.stop = Some(Stop::ReceiverGone);
            }
        }
        self.stop
    }

    /// The error for `e`; a message the wire guard refused is reported as such (the driver
    /// only saw its connection fail).
    pub(super) fn pg_error(&self, e: tokio_postgres::Error) -> DialectError {
        if let Some(refused) = self.wire.refused() {
            return oversize::message_too_large(
                &self.job.database,
                refused.size,
                self.job.max_bytes,
            );
        }
        errors::from_postgres(&self.job.database, e, self.reason(), self.job.timeout)
    }

    /// The error to report when a round trip was abandoned.
    pub(super) fn abandoned(&self) -> DialectError {
        match self.reason() {
            Some(reason) => errors::stopped(&self.job.database, reason),
            None => DialectError::Connection {
                database: self.job.database.to_string(),
                message: "the server did not answer after the statement was cancelled".into(),
                source: None,
            },
        }
    }
}
