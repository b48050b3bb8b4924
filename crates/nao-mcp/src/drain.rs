//! Graceful shutdown: the calls in flight, how to let them finish, and how to cut the rest.
//!
//! Every `tools/call` and `resources/read` holds a [`CallSlot`] while it runs, and a transport
//! may hold one for each request until its answer is sent (the HTTP transport does, so that an
//! answer still in its stream is not lost). A shutdown ([`Drain::shut_down`]) waits up to its
//! deadline for the slots, then cancels what is left through the token every call's statements
//! listen to, waits a little more for those calls to send their error, and from then on refuses
//! new calls. Transports refuse new requests once the shutdown has begun where they can (HTTP
//! stops accepting and answers requests on open connections with 503).

use std::sync::Arc;
use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::ErrorCode;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tokio_util::task::task_tracker::TaskTrackerToken;

/// JSON-RPC's code for a server error that is not a protocol fault.
const SERVER_ERROR: ErrorCode = ErrorCode(-32000);

/// How long cancelled calls get to send their error before the transport closes: a cancelled
/// statement stops within milliseconds, so this only bounds an engine that ignores the cancel.
const CUT_GRACE: Duration = Duration::from_secs(2);

/// The calls of one server and their shutdown. Clones share the same calls.
#[derive(Debug, Clone, Default)]
pub struct Drain {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Tracks running calls; closed when the shutdown begins.
    calls: TaskTracker,
    /// Cancelled when the drain deadline passes: every call's statements stop.
    cut: CancellationToken,
}

/// Held by a running call; the shutdown waits until every slot is dropped.
#[derive(Debug)]
pub struct CallSlot {
    _token: TaskTrackerToken,
    cut: CancellationToken,
}

impl CallSlot {
    /// A token cancelled when the shutdown cuts running calls (a child token: cancelling it
    /// stops this call only).
    pub fn cancel_token(&self) -> CancellationToken {
        self.cut.child_token()
    }
}

/// How a shutdown went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct DrainReport {
    /// Calls running when the shutdown began.
    pub running: usize,
    /// Of those, the calls still running at the deadline, which were cancelled.
    pub cut: usize,
}

impl Drain {
    /// No calls yet, not shutting down.
    pub fn new() -> Self {
        Drain::default()
    }

    /// A slot for a new call or request, or `None` once the shutdown has cut running calls.
    /// (Until then a call that arrives is let run: it may belong to a request taken in before
    /// the shutdown began.)
    pub fn enter(&self) -> Option<CallSlot> {
        if self.is_cut() {
            return None;
        }
        Some(CallSlot {
            _token: self.inner.calls.token(),
            cut: self.inner.cut.clone(),
        })
    }

    /// Whether the shutdown has begun.
    pub fn is_shutting_down(&self) -> bool {
        self.inner.calls.is_closed()
    }

    /// Whether running calls have been cancelled by the shutdown.
    pub fn is_cut(&self) -> bool {
        self.inner.cut.is_cancelled()
    }

    /// Calls running now.
    pub fn running(&self) -> usize {
        self.inner.calls.len()
    }

    /// Lets the running calls finish for up to `deadline`, then cancels the rest, gives them a
    /// moment to answer with their error, and refuses new calls.
    pub async fn shut_down(&self, deadline: Duration) -> DrainReport {
        self.inner.calls.close();
        let running = self.running();
        if running > 0 {
            tracing::info!(running, ?deadline, "letting running calls finish");
        }
        let finished = tokio::time::timeout(deadline, self.inner.calls.wait())
            .await
            .is_ok();
        let cut = if finished { 0 } else { self.running() };
        self.inner.cut.cancel();
        if cut > 0 {
            tracing::warn!(cut, "cancelled calls still running at the drain deadline");
            if tokio::time::timeout(CUT_GRACE, self.inner.calls.wait())
                .await
                .is_err()
            {
                tracing::warn!(
                    left = self.running(),
                    "calls did not stop after being cancelled"
                );
            }
        }
        DrainReport { running, cut }
    }
}

/// What a call refused because the server is shutting down is told.
pub(crate) const REFUSED: &str =
    "the server is shutting down and takes no new calls; retry on a running server";

/// The JSON-RPC error of a call refused because the server is shutting down.
pub(crate) fn refused_error() -> ErrorData {
    ErrorData::new(SERVER_ERROR, REFUSED, None)
}

/// The JSON-RPC error of a call cancelled at the drain deadline.
pub(crate) fn cut_error() -> ErrorData {
    ErrorData::new(
        SERVER_ERROR,
        "the server shut down before this call finished (it ran past --drain-timeout); retry \
         on a running server",
        None,
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn finished_calls_are_waited_for_and_late_ones_cut() {
        let drain = Drain::new();
        let quick = drain.enter().unwrap();
        let slow = drain.enter().unwrap();
        let slow_token = slow.cancel_token();
        assert_eq!(drain.running(), 2);
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(1)).await;
            drop(quick);
        });
        // The slow call stops only when cancelled, as a statement does.
        tokio::spawn(async move {
            slow_token.cancelled().await;
            drop(slow);
        });
        let report = drain.shut_down(Duration::from_secs(5)).await;
        assert_eq!(report, DrainReport { running: 2, cut: 1 });
        assert!(drain.is_cut());
        assert!(drain.enter().is_none(), "no new calls once cut");
        assert_eq!(drain.running(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn a_drain_without_late_calls_cuts_nothing() {
        let drain = Drain::new();
        let call = drain.enter().unwrap();
        let token = call.cancel_token();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(10)).await;
            drop(call);
        });
        let report = drain.shut_down(Duration::from_secs(5)).await;
        assert_eq!(report, DrainReport { running: 1, cut: 0 });
        assert!(drain.is_shutting_down());
        // Cancelling after everything finished harms nothing.
        assert!(token.is_cancelled());
    }
}
