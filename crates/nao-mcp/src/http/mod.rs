//! The streamable HTTP transport: rmcp's tower service, served by hyper on `/mcp`.
//!
//! Sessions are bounded ([`HttpConfig::with_max_sessions`]: a full server answers a new
//! `initialize` with 503 and never evicts a session to make room) and closed when idle
//! ([`HttpConfig::with_session_idle_timeout`]; a session with a call running is not idle), so
//! a client looping on `initialize` cannot grow the server without bound. With a bearer token
//! ([`HttpConfig::with_bearer_token`]) a request without it gets 401 before anything else;
//! requests whose `Host` is neither a loopback name nor an allowed one (DNS rebinding) or whose
//! `Origin` is present and not allowed (a web page in the user's browser) get 403.
//!
//! Connections are bounded too: at most [`HttpConfig::with_max_connections`] are open (the
//! rest wait in the listen queue), each must send its request head within
//! [`HttpConfig::with_header_read_timeout`] and its body within
//! [`HttpConfig::with_body_read_timeout`], and a declared `Content-Length` above the request
//! limit gets 413 before the body is read. Failing `accept` calls (out of file descriptors)
//! back off up to a second instead of spinning, and repeated faults are logged once a second
//! with a count. A client that drops its connection while a call runs has its call cancelled
//! (see `sessions`). A shutdown stops accepting, lets running calls finish within
//! [`HttpConfig::with_drain_timeout`], answers the rest with a JSON-RPC error, then closes the
//! sessions.

mod body;
mod config;
mod full;
mod sessions;
mod throttle;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use config::{DEFAULT_BODY_READ_TIMEOUT, DEFAULT_HEADER_READ_TIMEOUT, HttpConfig};
use sessions::BoundedSessions;
use throttle::ThrottledLog;

use crate::McpServer;
use crate::app::ServeError;
use crate::auth::BearerToken;
use crate::drain::Drain;

/// The path of the MCP endpoint.
pub const ENDPOINT: &str = "/mcp";

/// The header naming a request's session.
const SESSION_HEADER: &str = "mcp-session-id";

/// How long clients are told to wait before reconnecting a dropped response stream (the SSE
/// `retry` field); a dropped call is cancelled if its client has not come back soon after.
const SSE_RETRY: Duration = Duration::from_secs(1);

/// The first pause after a failed `accept`; it doubles up to [`MAX_ACCEPT_BACKOFF`].
const MIN_ACCEPT_BACKOFF: Duration = Duration::from_millis(5);

/// The longest pause after failed `accept`s.
const MAX_ACCEPT_BACKOFF: Duration = Duration::from_secs(1);

/// How long open connections get to close once the sessions have ended.
const CLOSE_GRACE: Duration = Duration::from_secs(2);

/// Binds `addr` and serves streamable HTTP until `shutdown` is cancelled. Every session shares
/// the server's databases and stored results. See [`HttpConfig`] for the limits and the
/// `Host`/`Origin` checks.
pub async fn serve_http(
    server: McpServer,
    addr: SocketAddr,
    config: &HttpConfig,
    shutdown: CancellationToken,
) -> Result<(), ServeError> {
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|e| ServeError::Transport(format!("could not bind {addr}: {e}")))?;
    let local = listener
        .local_addr()
        .map_err(|e| ServeError::Transport(e.to_string()))?;
    tracing::info!("serving streamable HTTP on http://{local}{ENDPOINT}");
    serve_listener(server, listener, config, shutdown).await
}

/// Serves streamable HTTP on an already bound listener (tests bind port 0). Returns once
/// `shutdown` is cancelled and the running calls are drained.
pub async fn serve_listener(
    server: McpServer,
    listener: TcpListener,
    config: &HttpConfig,
    shutdown: CancellationToken,
) -> Result<(), ServeError> {
    let drain = server.drain().clone();
    let sessions = Arc::new(BoundedSessions::new(
        config.max_sessions(),
        config.session_idle_timeout(),
        SSE_RETRY,
    ));
    // Sessions and their response streams outlive the signal until the drain is over, so that
    // running calls can still answer.
    let sessions_end = CancellationToken::new();
    tokio::spawn(sessions.clone().evict_idle_until(sessions_end.clone()));
    let rmcp_config = StreamableHttpServerConfig::default()
        .with_cancellation_token(sessions_end.clone())
        .with_sse_retry(Some(SSE_RETRY))
        .with_max_request_body_bytes(config.max_request_bytes())
        .with_allowed_origins(config.origins())
        .with_allowed_hosts(config.hosts());
    let endpoint = Arc::new(Endpoint {
        service: StreamableHttpService::new(
            move || Ok(server.for_session()),
            sessions.clone(),
            rmcp_config,
        ),
        sessions,
        bearer_token: config.bearer_token().cloned(),
        max_request_bytes: config.max_request_bytes(),
        body_read_timeout: config.body_read_timeout(),
        drain: drain.clone(),
    });
    let connections = TaskTracker::new();
    let accepting = Acceptor {
        listener,
        permits: Arc::new(Semaphore::new(config.max_connections())),
        max_connections: config.max_connections(),
        log: ThrottledLog::default(),
    };
    accepting
        .run(&shutdown, |stream, permit| {
            let endpoint = endpoint.clone();
            let shutdown = shutdown.clone();
            let header_read_timeout = config.header_read_timeout();
            connections.spawn(async move {
                serve_connection(stream, endpoint, header_read_timeout, shutdown).await;
                drop(permit);
            });
        })
        .await;
    // The listener is closed: new clients are refused by the system from here on.
    let report = drain.shut_down(config.drain_timeout()).await;
    tracing::info!(
        running = report.running,
        cut = report.cut,
        "drained running calls"
    );
    let closed = endpoint.sessions.close_all().await;
    tracing::debug!(closed, "closed the sessions");
    sessions_end.cancel();
    connections.close();
    if tokio::time::timeout(CLOSE_GRACE, connections.wait())
        .await
        .is_err()
    {
        tracing::debug!(open = connections.len(), "connections still open at exit");
    }
    Ok(())
}

/// The accept loop: a permit per connection, backoff on errors.
struct Acceptor {
    listener: TcpListener,
    permits: Arc<Semaphore>,
    max_connections: usize,
    log: ThrottledLog,
}

impl Acceptor {
    /// Accepts connections and hands each to `serve` with its permit until `shutdown`; the
    /// listener is closed on return.
    async fn run(
        self,
        shutdown: &CancellationToken,
        mut serve: impl FnMut(TcpStream, OwnedSemaphorePermit),
    ) {
        let mut backoff = MIN_ACCEPT_BACKOFF;
        loop {
            let permit = match self.permits.clone().try_acquire_owned() {
                Ok(permit) => permit,
                Err(_) => {
                    self.log.warn(
                        "max-connections",
                        format_args!(
                            "{} connections are open (--max-connections): new ones wait \
                             until one closes",
                            self.max_connections
                        ),
                    );
                    tokio::select! {
                        () = shutdown.cancelled() => return,
                        permit = self.permits.clone().acquire_owned() => match permit {
                            Ok(permit) => permit,
                            // Never closed; if it were, no connection could be served.
                            Err(_) => return,
                        },
                    }
                }
            };
            let accepted = tokio::select! {
                () = shutdown.cancelled() => return,
                accepted = self.listener.accept() => accepted,
            };
            match accepted {
                Ok((stream, peer)) => {
                    backoff = MIN_ACCEPT_BACKOFF;
                    // Small responses go out at once: with Nagle's algorithm each call waited
                    // ~40 ms for the client's delayed ACK.
                    if let Err(error) = stream.set_nodelay(true) {
                        tracing::debug!(%peer, %error, "could not set TCP_NODELAY");
                    }
                    serve(stream, permit);
                }
                Err(error) => {
                    // Out of file descriptors and the like: the same error comes back at once,
                    // so wait (longer each time) instead of spinning, and log sparingly.
                    drop(permit);
                    self.log.warn(
                        "accept",
                        format_args!(
                            "accepting a connection failed: {error}; retrying in {backoff:?}"
                        ),
                    );
                    tokio::select! {
                        () = shutdown.cancelled() => return,
                        () = tokio::time::sleep(backoff) => {}
                    }
                    backoff = (backoff * 2).min(MAX_ACCEPT_BACKOFF);
                }
            }
        }
    }
}

/// Serves one connection until it closes; on `shutdown` it finishes the request in flight
/// (its response included) and closes.
async fn serve_connection(
    stream: TcpStream,
    endpoint: Arc<Endpoint>,
    header_read_timeout: Duration,
    shutdown: CancellationToken,
) {
    let peer = stream.peer_addr().ok();
    let hyper_service = service_fn(move |request| endpoint.clone().route(request));
    let connection = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout)
        .serve_connection(TokioIo::new(stream), hyper_service)
        .with_upgrades();
    tokio::pin!(connection);
    let result = tokio::select! {
        result = connection.as_mut() => result,
        () = shutdown.cancelled() => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(error) = result {
        tracing::debug!(?peer, %error, "HTTP connection ended with an error");
    }
}

type McpService = StreamableHttpService<McpServer, BoundedSessions>;

/// What every connection serves: rmcp's service and the sessions it keeps.
struct Endpoint {
    service: McpService,
    sessions: Arc<BoundedSessions>,
    bearer_token: Option<BearerToken>,
    max_request_bytes: usize,
    body_read_timeout: Duration,
    drain: Drain,
}

/// The responses of this transport.
type HttpResponse = Response<BoxBody<Bytes, Infallible>>;

impl Endpoint {
    /// Sends `/mcp` to the MCP service and answers 404 elsewhere.
    async fn route(
        self: Arc<Self>,
        request: Request<Incoming>,
    ) -> Result<HttpResponse, Infallible> {
        if let Some(token) = &self.bearer_token {
            let presented = request
                .headers()
                .get(hyper::header::AUTHORIZATION)
                .map(|value| value.as_bytes());
            if !token.authorizes(presented) {
                return Ok(unauthorized());
            }
        }
        if request.uri().path() != ENDPOINT {
            return Ok(text_response(
                StatusCode::NOT_FOUND,
                "not found: the MCP endpoint is /mcp\n",
            ));
        }
        if request.method() != Method::POST {
            return Ok(self.to_rmcp(request).await);
        }
        // Held until the answer has gone out, so a shutdown waits for it.
        let Some(slot) = self.drain.enter() else {
            return Ok(body::shutting_down(b""));
        };
        let (parts, bytes) =
            match body::read_body(request, self.max_request_bytes, self.body_read_timeout).await {
                Ok(read) => read,
                Err(refusal) => return Ok(refusal),
            };
        if self.drain.is_shutting_down() {
            return Ok(body::shutting_down(&bytes));
        }
        if body::declares_json(&parts)
            && let Some(refusal) = body::json_rpc_refusal(&bytes)
        {
            return Ok(refusal);
        }
        // A POST without a session may be an `initialize`: when the server is full, look.
        // (The session manager enforces the cap anyway; this turns rmcp's 500 into a 503.)
        let response = if !parts.headers.contains_key(SESSION_HEADER) && self.sessions.is_full() {
            self.when_full(parts, bytes).await
        } else {
            self.service
                .handle(Request::from_parts(parts, Full::new(bytes)))
                .await
        };
        Ok(response.map(|body| SlotBody { body, _slot: slot }.boxed()))
    }

    /// A GET (the notification stream) or DELETE (closing a session), handed to rmcp.
    async fn to_rmcp(&self, request: Request<Incoming>) -> HttpResponse {
        let deleting = request.method() == Method::DELETE;
        let mut response = self.service.handle(request).await;
        // rmcp answers a DELETE with 202, but the session is closed by then; clients (the
        // Python SDK) expect 200 or 204 and log a failure otherwise.
        if deleting && response.status() == StatusCode::ACCEPTED {
            *response.status_mut() = StatusCode::NO_CONTENT;
        }
        response
    }
}

/// A response body that holds a drain slot until it has been sent (or dropped).
struct SlotBody {
    body: BoxBody<Bytes, Infallible>,
    _slot: crate::drain::CallSlot,
}

impl hyper::body::Body for SlotBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, Infallible>>> {
        std::pin::Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}

/// The answer to a request without the server's bearer token.
fn unauthorized() -> HttpResponse {
    let mut response = text_response(
        StatusCode::UNAUTHORIZED,
        "unauthorized: this server wants `Authorization: Bearer <token>` with the token it was \
         started with\n",
    );
    response.headers_mut().insert(
        hyper::header::WWW_AUTHENTICATE,
        hyper::header::HeaderValue::from_static("Bearer realm=\"nao-mcp\""),
    );
    response
}

/// A plain-text response.
fn text_response(status: StatusCode, text: &'static str) -> HttpResponse {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed());
    *response.status_mut() = status;
    response
}
