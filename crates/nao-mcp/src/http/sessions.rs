//! Bounded HTTP sessions: rmcp's [`LocalSessionManager`] behind a cap on live sessions and
//! an idle timeout that knows a running call is not idleness.
//!
//! rmcp's own `keep_alive` closes a session after a quiet spell of its worker, which is also
//! what a long statement looks like, so it is turned off here; instead every request and
//! every open response stream marks the session busy, and [`BoundedSessions::evict_idle`]
//! closes only sessions with no stream open and no request for the whole timeout.
//!
//! A call's response stream that is dropped before it carried the call's answer (the client
//! closed the connection) cancels the call, as a `notifications/cancelled` would, unless the
//! client reconnects to the session (resuming with `Last-Event-ID`) within a grace period of
//! the SSE retry interval plus a second. The MCP specification asks servers not to treat a
//! disconnection alone as a cancellation, since a client may resume; a client that does not
//! come back would otherwise keep its statement running until the statement timeout.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use futures_core::Stream;
use rmcp::model::{
    CancelledNotification, CancelledNotificationParam, ClientJsonRpcMessage, ClientNotification,
    RequestId, ServerJsonRpcMessage,
};
use rmcp::transport::streamable_http_server::session::ServerSseMessage;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionHandle, LocalSessionManager,
};
use rmcp::transport::streamable_http_server::{SessionId, SessionManager};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// Why a session operation failed.
#[derive(Debug)]
#[non_exhaustive]
pub(crate) enum SessionError {
    /// The cap is reached: no new session until one ends.
    Full {
        /// The cap.
        max_sessions: usize,
    },
    /// rmcp's session manager failed (an unknown or ended session, a closed worker).
    Session(Box<dyn std::error::Error + Send + Sync>),
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionError::Full { max_sessions } => write!(
                f,
                "the server already serves {max_sessions} MCP sessions (--max-sessions); \
                 close one (HTTP DELETE) or wait until an idle one times out"
            ),
            SessionError::Session(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for SessionError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SessionError::Full { .. } => None,
            SessionError::Session(error) => Some(error.as_ref()),
        }
    }
}

fn session_error(error: impl std::error::Error + Send + Sync + 'static) -> SessionError {
    SessionError::Session(Box::new(error))
}

/// What is known of one live session.
#[derive(Debug)]
struct Activity {
    /// The last request, or the end of the last response stream.
    last_used: Instant,
    /// Response streams (a running call, a standalone GET stream) still open.
    open_streams: usize,
    /// Streams resumed so far: a client that comes back after a disconnect keeps its calls.
    resumes: u64,
}

/// The live sessions and the ones being created, under one lock so the cap is exact.
#[derive(Debug, Default)]
struct Book {
    sessions: HashMap<SessionId, Activity>,
    creating: usize,
}

type SharedBook = Arc<Mutex<Book>>;

fn lock(book: &Mutex<Book>) -> MutexGuard<'_, Book> {
    // The book stays consistent under a panic elsewhere: every update is a single step.
    book.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A [`SessionManager`] holding at most `max_sessions` sessions and closing those idle for
/// `idle_timeout`. Everything else is rmcp's [`LocalSessionManager`].
#[derive(Debug)]
pub(crate) struct BoundedSessions {
    inner: LocalSessionManager,
    book: SharedBook,
    max_sessions: usize,
    idle_timeout: Duration,
    disconnect_grace: Duration,
}

impl BoundedSessions {
    /// At most `max_sessions` live sessions (at least one), each closed once it has been idle
    /// for `idle_timeout`. Response streams tell clients to reconnect after `sse_retry`; a call
    /// whose client went away is cancelled a second after that unless the client came back.
    pub(crate) fn new(max_sessions: usize, idle_timeout: Duration, sse_retry: Duration) -> Self {
        let disconnect_grace = sse_retry + Duration::from_secs(1);
        let mut inner = LocalSessionManager::default();
        // Idleness is judged here, where a running call counts as activity.
        inner.session_config.keep_alive = None;
        inner.session_config.sse_retry = Some(sse_retry);
        // rmcp keeps each finished response for late resumes (60 s by default) and clears old
        // ones only on the session's next request, so a quiet session held a minute of
        // answers until it idled out: keep them only as long as a resume is waited for.
        inner.session_config.completed_cache_ttl = disconnect_grace;
        BoundedSessions {
            inner,
            book: SharedBook::default(),
            max_sessions: max_sessions.max(1),
            idle_timeout,
            disconnect_grace,
        }
    }

    /// The cap.
    pub(crate) fn max_sessions(&self) -> usize {
        self.max_sessions
    }

    /// The idle timeout.
    pub(crate) fn idle_timeout(&self) -> Duration {
        self.idle_timeout
    }

    /// Whether a new session would be refused now.
    pub(crate) fn is_full(&self) -> bool {
        let book = lock(&self.book);
        book.sessions.len() + book.creating >= self.max_sessions
    }

    /// Marks `id` used now; false when it is not a live session.
    fn touch(&self, id: &SessionId) -> bool {
        match lock(&self.book).sessions.get_mut(id) {
            Some(activity) => {
                activity.last_used = Instant::now();
                true
            }
            None => false,
        }
    }

    /// Closes every session with no open stream and no request for the idle timeout; returns
    /// how many.
    pub(crate) async fn evict_idle(&self) -> usize {
        let now = Instant::now();
        // Decided and removed under one lock: a request that touched a session first keeps
        // it, one that comes after finds it gone (404, and the client starts a new session).
        let idle: Vec<SessionId> = {
            let mut book = lock(&self.book);
            let idle: Vec<SessionId> = book
                .sessions
                .iter()
                .filter(|(_, a)| {
                    a.open_streams == 0 && now.duration_since(a.last_used) >= self.idle_timeout
                })
                .map(|(id, _)| id.clone())
                .collect();
            for id in &idle {
                book.sessions.remove(id);
            }
            idle
        };
        for id in &idle {
            tracing::debug!(session = %id, "closing an idle session");
            if let Err(error) = self.inner.close_session(id).await {
                tracing::debug!(session = %id, %error, "closing an idle session failed");
            }
        }
        idle.len()
    }

    /// Closes every session, as a DELETE would: at shutdown, once the running calls are
    /// drained, so each session's worker ends on its own (rather than being cancelled, which
    /// rmcp logs as an error) and its results are dropped. Returns how many were closed.
    pub(crate) async fn close_all(&self) -> usize {
        let live: Vec<SessionId> = lock(&self.book)
            .sessions
            .drain()
            .map(|(id, _)| id)
            .collect();
        // All at once: each close waits for its worker to end.
        let closing = live.iter().map(|id| async move {
            if let Err(error) = self.inner.close_session(id).await {
                tracing::debug!(session = %id, %error, "closing a session at shutdown failed");
            }
        });
        futures_util::future::join_all(closing).await;
        live.len()
    }

    /// Runs [`evict_idle`](Self::evict_idle) a few times per idle timeout until `shutdown`.
    /// A session goes within 1.5 timeouts of its last use (30 s past it at most).
    pub(crate) async fn evict_idle_until(self: Arc<Self>, shutdown: CancellationToken) {
        let period =
            (self.idle_timeout / 2).clamp(Duration::from_millis(10), Duration::from_secs(30));
        let mut ticks = tokio::time::interval(period);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = shutdown.cancelled() => return,
                _ = ticks.tick() => {
                    let evicted = self.evict_idle().await;
                    if evicted > 0 {
                        tracing::info!(evicted, live = lock(&self.book).sessions.len(), "closed idle sessions");
                    }
                }
            }
        }
    }

    /// `stream`, counted as activity of `id` until it ends or is dropped.
    fn watch<S>(&self, id: &SessionId, stream: S) -> WatchedStream<S> {
        if let Some(activity) = lock(&self.book).sessions.get_mut(id) {
            activity.open_streams += 1;
            activity.last_used = Instant::now();
        }
        WatchedStream {
            inner: Box::pin(stream),
            book: self.book.clone(),
            id: id.clone(),
            call: None,
        }
    }

    /// The rmcp handle of session `id`, to send it messages later.
    async fn handle(&self, id: &SessionId) -> Option<LocalSessionHandle> {
        self.inner.sessions.read().await.get(id).cloned()
    }
}

/// A call whose answer has not gone out yet on its response stream.
struct PendingCall {
    request: RequestId,
    session: LocalSessionHandle,
    grace: Duration,
}

impl PendingCall {
    /// Whether `message` answers this call.
    fn is_answered_by(&self, message: &ServerSseMessage) -> bool {
        match message.message.as_deref() {
            Some(ServerJsonRpcMessage::Response(response)) => response.id == self.request,
            Some(ServerJsonRpcMessage::Error(error)) => error.id.as_ref() == Some(&self.request),
            _ => false,
        }
    }

    /// Cancels the call after the grace period unless the client resumed a stream of the
    /// session meanwhile (`resumes_then` is the session's count at the disconnect).
    fn cancel_unless_resumed(self, book: SharedBook, id: SessionId, resumes_then: u64) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            tokio::time::sleep(self.grace).await;
            let resumed = lock(&book)
                .sessions
                .get(&id)
                .is_none_or(|activity| activity.resumes != resumes_then);
            if resumed {
                return;
            }
            tracing::debug!(session = %id, request = %self.request, "the client went away mid-call: cancelling it");
            let cancel = CancelledNotification::new(CancelledNotificationParam::new(
                Some(self.request),
                Some("the HTTP client closed the connection".to_owned()),
            ));
            let message =
                ClientJsonRpcMessage::notification(ClientNotification::CancelledNotification(cancel));
            if let Err(error) = self.session.push_message(message, None).await {
                tracing::debug!(session = %id, %error, "could not cancel the call of a vanished client");
            }
        });
    }
}

/// Gives a creation slot back however `create_session` ends, even when its future is
/// dropped (a client that hangs up mid-request).
struct CreatingSlot<'a>(&'a Mutex<Book>);

impl Drop for CreatingSlot<'_> {
    fn drop(&mut self) {
        let mut book = lock(self.0);
        book.creating = book.creating.saturating_sub(1);
    }
}

impl SessionManager for BoundedSessions {
    type Error = SessionError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let slot = {
            let mut book = lock(&self.book);
            if book.sessions.len() + book.creating >= self.max_sessions {
                return Err(SessionError::Full {
                    max_sessions: self.max_sessions,
                });
            }
            book.creating += 1;
            CreatingSlot(&self.book)
        };
        let (id, transport) = self.inner.create_session().await.map_err(session_error)?;
        let live = {
            let mut book = lock(&self.book);
            book.sessions.insert(
                id.clone(),
                Activity {
                    last_used: Instant::now(),
                    open_streams: 0,
                    resumes: 0,
                },
            );
            book.sessions.len()
        };
        drop(slot);
        tracing::debug!(session = %id, live, max = self.max_sessions, "session opened");
        if live == self.max_sessions {
            tracing::warn!(
                max_sessions = self.max_sessions,
                "the server is full: new sessions get 503 until one ends or idles out"
            );
        }
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.touch(id);
        self.inner
            .initialize_session(id, message)
            .await
            .map_err(session_error)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        // Answered from the book, which eviction updates atomically, and counted as use.
        Ok(self.touch(id))
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        // Called on DELETE and again by rmcp when the session's worker ends: idempotent.
        let removed = lock(&self.book).sessions.remove(id).is_some();
        if removed {
            tracing::debug!(session = %id, "session closed");
        }
        self.inner.close_session(id).await.map_err(session_error)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let request = match &message {
            ClientJsonRpcMessage::Request(request) => Some(request.id.clone()),
            _ => None,
        };
        let session = match request {
            Some(_) => self.handle(id).await,
            None => None,
        };
        let stream = self
            .inner
            .create_stream(id, message)
            .await
            .map_err(session_error)?;
        let mut watched = self.watch(id, stream);
        if let (Some(request), Some(session)) = (request, session) {
            watched.call = Some(PendingCall {
                request,
                session,
                grace: self.disconnect_grace,
            });
        }
        Ok(watched)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.touch(id);
        self.inner
            .accept_message(id, message)
            .await
            .map_err(session_error)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let stream = self
            .inner
            .create_standalone_stream(id)
            .await
            .map_err(session_error)?;
        Ok(self.watch(id, stream))
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        if let Some(activity) = lock(&self.book).sessions.get_mut(id) {
            activity.resumes += 1;
        }
        let stream = self
            .inner
            .resume(id, last_event_id)
            .await
            .map_err(session_error)?;
        Ok(self.watch(id, stream))
    }
}

/// A response stream that keeps its session busy while it is open, and cancels its call when
/// dropped before the answer went out.
struct WatchedStream<S> {
    inner: Pin<Box<S>>,
    book: SharedBook,
    id: SessionId,
    /// The call this stream answers, until its answer passes.
    call: Option<PendingCall>,
}

impl<S: Stream<Item = ServerSseMessage>> Stream for WatchedStream<S> {
    type Item = S::Item;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let polled = self.inner.as_mut().poll_next(cx);
        match &polled {
            Poll::Ready(Some(message)) => {
                if self
                    .call
                    .as_ref()
                    .is_some_and(|c| c.is_answered_by(message))
                {
                    self.call = None;
                }
            }
            // The server ended the stream (the call was cancelled, the session closed).
            Poll::Ready(None) => self.call = None,
            Poll::Pending => {}
        }
        polled
    }
}

impl<S> Drop for WatchedStream<S> {
    fn drop(&mut self) {
        // The idle clock starts when the last stream closes, not when its request came in.
        let resumes = {
            let mut book = lock(&self.book);
            let Some(activity) = book.sessions.get_mut(&self.id) else {
                return;
            };
            activity.open_streams = activity.open_streams.saturating_sub(1);
            activity.last_used = Instant::now();
            activity.resumes
        };
        if let Some(call) = self.call.take() {
            call.cancel_unless_resumed(self.book.clone(), self.id.clone(), resumes);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn the_cap_holds_and_closing_frees_a_slot() {
        let sessions = BoundedSessions::new(2, Duration::from_secs(60), Duration::from_secs(1));
        let (first, _t1) = sessions.create_session().await.unwrap();
        let (_second, _t2) = sessions.create_session().await.unwrap();
        assert!(sessions.is_full());
        let refused = sessions.create_session().await.err().unwrap();
        assert!(matches!(refused, SessionError::Full { max_sessions: 2 }));
        assert!(refused.to_string().contains("--max-sessions"), "{refused}");
        sessions.close_session(&first).await.unwrap();
        // Closing twice (DELETE, then the worker's end) is harmless.
        sessions.close_session(&first).await.unwrap();
        assert!(!sessions.has_session(&first).await.unwrap());
        assert!(!sessions.is_full());
        sessions.create_session().await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn only_sessions_idle_for_the_whole_timeout_are_evicted() {
        let timeout = Duration::from_secs(60);
        let sessions = BoundedSessions::new(10, timeout, Duration::from_secs(1));
        let (idle, _t1) = sessions.create_session().await.unwrap();
        let (used, _t2) = sessions.create_session().await.unwrap();
        let (streaming, _t3) = sessions.create_session().await.unwrap();
        let open = sessions.watch(&streaming, tokio_stream_of_nothing());

        tokio::time::advance(timeout / 2).await;
        assert!(sessions.has_session(&used).await.unwrap());
        assert_eq!(sessions.evict_idle().await, 0);

        tokio::time::advance(timeout / 2).await;
        assert_eq!(sessions.evict_idle().await, 1);
        assert!(!sessions.has_session(&idle).await.unwrap());
        assert!(sessions.has_session(&used).await.unwrap());

        // A stream open for hours keeps its session; its end starts the idle clock.
        tokio::time::advance(timeout * 100).await;
        assert_eq!(sessions.evict_idle().await, 1, "only `used` goes");
        assert!(sessions.has_session(&streaming).await.unwrap());
        drop(open);
        tokio::time::advance(timeout - Duration::from_secs(1)).await;
        assert_eq!(sessions.evict_idle().await, 0);
        tokio::time::advance(Duration::from_secs(1)).await;
        assert_eq!(sessions.evict_idle().await, 1);
        assert!(!sessions.is_full());
        assert!(lock(&sessions.book).sessions.is_empty());
    }

    /// A stream that never yields.
    fn tokio_stream_of_nothing() -> impl Stream<Item = ServerSseMessage> + Send + Sync {
        struct Pending;
        impl Stream for Pending {
            type Item = ServerSseMessage;
            fn poll_next(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Self::Item>> {
                Poll::Pending
            }
        }
        Pending
    }
}
