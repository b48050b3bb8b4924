//! The statement task's watcher: races each round trip against the pump's stop (the
//! cancellation token, the deadline, a dropped stream), and sends the cancel request when it
//! fires while the server is working.
//!
//! The caller never waits for this: the pump gives the stream its timeout or cancellation at
//! the deadline itself, while the task sends the cancel request, waits for the server and
//! drops the connection in the background.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures_util::pin_mut;
use nao_core::DialectError;

use super::errors;
use super::oversize;
use super::pool::Canceller;
use super::stream::Job;
use super::wire::WireLimit;
use crate::pump::{StopReason, StopSignal, Stopped};

/// How long to wait for the cancel request to be sent, and then for the server to answer,
/// before giving the connection up.
pub(super) const CANCEL_GRACE: Duration = Duration::from_secs(5);

/// Races the server's work against the stop signals, and sends the cancel request.
pub(super) struct Watch<'a> {
    pub(super) job: &'a Job,
    /// The statement's stop, from its pump.
    pub(super) signal: StopSignal,
    /// Sends the cancel request over a connection of its own (with the statement's TLS).
    pub(super) canceller: Canceller,
    /// The connection's wire guard: the statement's row limit, and what it refused.
    pub(super) wire: Arc<WireLimit>,
    /// Why the statement was stopped, once it was.
    pub(super) stop: Option<Stopped>,
    /// A cancel request was sent: the connection must not be reused.
    pub(super) cancel_sent: bool,
}

impl Watch<'_> {
    /// Runs `work`; if the statement must stop first, sends a cancel request and waits a
    /// little for the server to answer. `None` when the server did not answer in time.
    pub(super) async fn run<F: Future>(&mut self, work: F) -> Option<F::Output> {
        pin_mut!(work);
        let stop = tokio::select! {
            biased;
            out = &mut work => return Some(out),
            stop = self.signal.stopped() => stop,
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

    /// Records why the statement stops (the first reason counts), and gives it back.
    pub(super) fn stopping(&mut self, stop: Stopped) -> Stopped {
        *self.stop.get_or_insert(stop)
    }

    pub(super) fn reason(&self) -> Option<StopReason> {
        self.stop.and_then(Stopped::reason)
    }

    /// Whether the statement must stop now, between two round trips.
    pub(super) fn check_between(&mut self) -> Option<Stopped> {
        if self.stop.is_none() {
            self.stop = self.signal.check();
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
            Some(reason) => reason.error(&self.job.database),
            None => DialectError::Connection {
                database: self.job.database.to_string(),
                message: "the server did not answer after the statement was cancelled".into(),
                source: None,
            },
        }
    }
}
