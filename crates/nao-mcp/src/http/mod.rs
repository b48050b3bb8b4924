//! The streamable HTTP transport: rmcp's tower service, served by hyper on `/mcp`.
//!
//! Sessions are bounded ([`HttpConfig::with_max_sessions`]: a full server answers a new
//! `initialize` with 503 and never evicts a session to make room) and closed when idle
//! ([`HttpConfig::with_session_idle_timeout`]; a session with a call running is not idle), so
//! a client looping on `initialize` cannot grow the server without bound. Requests whose
//! `Host` is not a loopback name (DNS rebinding) or whose `Origin` is present and not allowed
//! (a web page in the user's browser) get 403.

mod config;
mod full;
mod sessions;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

pub use config::HttpConfig;
use sessions::BoundedSessions;

use crate::McpServer;
use crate::app::ServeError;

/// The path of the MCP endpoint.
pub const ENDPOINT: &str = "/mcp";

/// The header naming a request's session.
const SESSION_HEADER: &str = "mcp-session-id";

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

/// Serves streamable HTTP on an already bound listener (tests bind port 0).
pub async fn serve_listener(
    server: McpServer,
    listener: TcpListener,
    config: &HttpConfig,
    shutdown: CancellationToken,
) -> Result<(), ServeError> {
    let sessions = Arc::new(BoundedSessions::new(
        config.max_sessions(),
        config.session_idle_timeout(),
    ));
    tokio::spawn(sessions.clone().evict_idle_until(shutdown.clone()));
    let rmcp_config = StreamableHttpServerConfig::default()
        .with_cancellation_token(shutdown.child_token())
        .with_max_request_body_bytes(config.max_request_bytes())
        .with_allowed_origins(config.origins());
    let endpoint = Arc::new(Endpoint {
        service: StreamableHttpService::new(
            move || Ok(server.clone()),
            sessions.clone(),
            rmcp_config,
        ),
        sessions,
        max_request_bytes: config.max_request_bytes(),
    });
    loop {
        let (stream, peer) = tokio::select! {
            () = shutdown.cancelled() => return Ok(()),
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(error) => {
                    // Running out of file descriptors and the like: log and keep serving.
                    tracing::warn!(%error, "accept failed");
                    continue;
                }
            },
        };
        // Small responses go out at once: with Nagle's algorithm each call waited ~40 ms for
        // the client's delayed ACK.
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%peer, %error, "could not set TCP_NODELAY");
        }
        let endpoint = endpoint.clone();
        let shutdown = shutdown.clone();
        tokio::spawn(async move {
            let hyper_service = service_fn(move |request| endpoint.clone().route(request));
            let connection = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), hyper_service)
                .with_upgrades();
            tokio::pin!(connection);
            tokio::select! {
                result = connection.as_mut() => {
                    if let Err(error) = result {
                        tracing::debug!(%peer, %error, "HTTP connection ended with an error");
                    }
                }
                () = shutdown.cancelled() => connection.as_mut().graceful_shutdown(),
            }
        });
    }
}

type McpService = StreamableHttpService<McpServer, BoundedSessions>;

/// What every connection serves: rmcp's service and the sessions it keeps.
struct Endpoint {
    service: McpService,
    sessions: Arc<BoundedSessions>,
    max_request_bytes: usize,
}

/// The responses of this transport.
type HttpResponse = Response<BoxBody<Bytes, Infallible>>;

impl Endpoint {
    /// Sends `/mcp` to the MCP service and answers 404 elsewhere.
    async fn route(
        self: Arc<Self>,
        request: Request<Incoming>,
    ) -> Result<HttpResponse, Infallible> {
        if request.uri().path() != ENDPOINT {
            return Ok(text_response(
                StatusCode::NOT_FOUND,
                "not found: the MCP endpoint is /mcp\n",
            ));
        }
        // A POST without a session may be an `initialize`: when the server is full, look.
        // (The session manager enforces the cap anyway; this turns rmcp's 500 into a 503.)
        let may_open_a_session =
            request.method() == Method::POST && !request.headers().contains_key(SESSION_HEADER);
        if may_open_a_session && self.sessions.is_full() {
            return Ok(self.when_full(request).await);
        }
        let deleting = request.method() == Method::DELETE;
        let mut response = self.service.handle(request).await;
        // rmcp answers a DELETE with 202, but the session is closed by then; clients (the
        // Python SDK) expect 200 or 204 and log a failure otherwise.
        if deleting && response.status() == StatusCode::ACCEPTED {
            *response.status_mut() = StatusCode::NO_CONTENT;
        }
        Ok(response)
    }
}

/// A plain-text response.
fn text_response(status: StatusCode, text: &'static str) -> HttpResponse {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed());
    *response.status_mut() = status;
    response
}
