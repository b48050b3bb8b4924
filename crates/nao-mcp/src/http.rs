//! The streamable HTTP transport: rmcp's tower service, served by hyper on `/mcp`.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::McpServer;
use crate::app::ServeError;

/// The path of the MCP endpoint.
pub const ENDPOINT: &str = "/mcp";

/// Binds `addr` and serves streamable HTTP until `shutdown` is cancelled. Every session shares
/// the server's databases and stored results. Only `localhost`/`127.0.0.1`/`::1` Host headers
/// are accepted (DNS-rebinding protection); bodies above `max_request_bytes` get 413.
pub async fn serve_http(
    server: McpServer,
    addr: SocketAddr,
    max_request_bytes: usize,
    shutdown: CancellationToken,
) -> Result<(), ServeError> {
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|e| ServeError::Transport(format!("could not bind {addr}: {e}")))?;
    let local = listener
        .local_addr()
        .map_err(|e| ServeError::Transport(e.to_string()))?;
    tracing::info!("serving streamable HTTP on http://{local}{ENDPOINT}");
    serve_listener(server, listener, max_request_bytes, shutdown).await
}

/// Serves streamable HTTP on an already bound listener (tests bind port 0).
pub async fn serve_listener(
    server: McpServer,
    listener: TcpListener,
    max_request_bytes: usize,
    shutdown: CancellationToken,
) -> Result<(), ServeError> {
    let config = StreamableHttpServerConfig::default()
        .with_cancellation_token(shutdown.child_token())
        .with_max_request_body_bytes(max_request_bytes);
    let service: McpService = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
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
        let service = service.clone();
        let shutdown = shutdown.clone();
        tokio::spawn(async move {
            let hyper_service = service_fn(move |request| route(service.clone(), request));
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

type McpService = StreamableHttpService<McpServer, LocalSessionManager>;

/// Sends `/mcp` to the MCP service and answers 404 elsewhere.
async fn route(
    mut service: McpService,
    request: Request<Incoming>,
) -> Result<Response<BoxBody<Bytes, Infallible>>, Infallible> {
    if request.uri().path() != ENDPOINT {
        let mut response = Response::new(
            Full::new(Bytes::from_static(b"not found: the MCP endpoint is /mcp\n")).boxed(),
        );
        *response.status_mut() = StatusCode::NOT_FOUND;
        return Ok(response);
    }
    tower_service::Service::call(&mut service, request).await
}
