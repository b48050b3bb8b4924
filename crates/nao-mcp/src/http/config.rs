//! The limits and allowed origins of the HTTP transport.

use std::time::Duration;

use crate::auth::BearerToken;
use crate::options::{
    DEFAULT_DRAIN_TIMEOUT, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_REQUEST_BYTES,
    DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TIMEOUT,
};

/// Default for [`HttpConfig::with_header_read_timeout`]: a client on this machine sends its
/// headers at once; ten seconds leave room for a slow network without letting half-sent
/// requests pile up.
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Default for [`HttpConfig::with_body_read_timeout`]: a 4 MiB body at a slow 1 Mbit/s.
pub const DEFAULT_BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// `Host` names always accepted: this machine, on any port.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Browser origins always accepted: pages served from this machine, on any port.
const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "https://localhost:*",
    "http://127.0.0.1:*",
    "https://127.0.0.1:*",
    "http://[::1]:*",
    "https://[::1]:*",
];

/// How the HTTP transport bounds what clients can make it hold, and whom it serves.
///
/// ```
/// use std::time::Duration;
/// use nao_mcp::http::HttpConfig;
///
/// let config = HttpConfig::default()
///     .with_max_sessions(20)
///     .with_session_idle_timeout(Duration::from_secs(120))
///     .with_allowed_origins(["https://app.example.com:443"]);
/// assert_eq!(config.max_sessions(), 20);
/// ```
///
/// Requests are refused with 403 when their `Host` is not `localhost`, `127.0.0.1`, `::1` (any
/// port: a DNS-rebinding page names its own host) or one of
/// [`with_allowed_hosts`](Self::with_allowed_hosts), or when they carry an `Origin` that is
/// neither a loopback origin nor one of [`with_allowed_origins`](Self::with_allowed_origins).
/// Requests without `Origin` (clients that are not browsers) pass. With
/// [`with_bearer_token`](Self::with_bearer_token), a request without the token gets 401 first.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpConfig {
    max_request_bytes: usize,
    max_sessions: usize,
    session_idle_timeout: Duration,
    allowed_origins: Vec<String>,
    allowed_hosts: Vec<String>,
    bearer_token: Option<BearerToken>,
    max_connections: usize,
    header_read_timeout: Duration,
    body_read_timeout: Duration,
    drain_timeout: Duration,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            max_request_bytes: DEFAULT_MAX_REQUEST_BYTES,
            max_sessions: DEFAULT_MAX_SESSIONS,
            session_idle_timeout: DEFAULT_SESSION_IDLE_TIMEOUT,
            allowed_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            bearer_token: None,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            body_read_timeout: DEFAULT_BODY_READ_TIMEOUT,
            drain_timeout: DEFAULT_DRAIN_TIMEOUT,
        }
    }
}

impl HttpConfig {
    /// Bodies larger than this get 413 (default 4 MiB), before a byte is read when the
    /// request declares its `Content-Length`.
    #[must_use]
    pub fn with_max_request_bytes(mut self, bytes: usize) -> Self {
        self.max_request_bytes = bytes;
        self
    }

    /// At most this many live sessions (default 100; at least 1). When full, a new
    /// `initialize` gets 503 with a JSON-RPC error and `Retry-After`; live sessions are never
    /// evicted to make room, so a runaway client cannot end another client's session.
    #[must_use]
    pub fn with_max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions.max(1);
        self
    }

    /// A session with no request and no open response stream for this long is closed and its
    /// memory freed (default 10 minutes). A client that comes back gets 404 and, as the MCP
    /// specification asks, starts a new session.
    #[must_use]
    pub fn with_session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// Browser origins accepted besides the loopback ones, as `scheme://host:port` (`:*` for
    /// any port), e.g. `https://app.example.com:443`.
    #[must_use]
    pub fn with_allowed_origins(
        mut self,
        origins: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.allowed_origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// `Host` names accepted besides the loopback ones, with or without a port
    /// (`mcp.example.com`, `10.0.0.5:8080`): the names clients reach this server by when it
    /// listens beyond loopback. Any other `Host` gets 403.
    #[must_use]
    pub fn with_allowed_hosts(
        mut self,
        hosts: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.allowed_hosts = hosts.into_iter().map(Into::into).collect();
        self
    }

    /// Every request must carry `Authorization: Bearer <token>` (see [`crate::auth`]); one
    /// without it, or with another token, gets 401 before anything else is read.
    #[must_use]
    pub fn with_bearer_token(mut self, token: BearerToken) -> Self {
        self.bearer_token = Some(token);
        self
    }

    /// At most this many open connections (default 1024; at least 1). Beyond it the server
    /// accepts no more until one closes: new clients wait in the system's listen queue.
    #[must_use]
    pub fn with_max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections.max(1);
        self
    }

    /// A connection that has not sent a whole request head this long after it opened (or
    /// after its previous response, on a kept-alive connection) is closed (default 10 s).
    /// At least 1 ms.
    #[must_use]
    pub fn with_header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// A request whose body has not fully arrived this long after its head gets 408 and its
    /// connection is closed (default 30 s).
    #[must_use]
    pub fn with_body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }

    /// How long a shutdown lets running calls finish before cancelling them (default 10 s).
    #[must_use]
    pub fn with_drain_timeout(mut self, timeout: Duration) -> Self {
        self.drain_timeout = timeout;
        self
    }

    /// The most open connections.
    pub fn max_connections(&self) -> usize {
        self.max_connections
    }

    /// How long a connection may take to send a request head.
    pub fn header_read_timeout(&self) -> Duration {
        self.header_read_timeout
    }

    /// How long a request may take to send its body.
    pub fn body_read_timeout(&self) -> Duration {
        self.body_read_timeout
    }

    /// How long a shutdown waits for running calls.
    pub fn drain_timeout(&self) -> Duration {
        self.drain_timeout
    }

    /// The largest request body accepted.
    pub fn max_request_bytes(&self) -> usize {
        self.max_request_bytes
    }

    /// The most live sessions.
    pub fn max_sessions(&self) -> usize {
        self.max_sessions
    }

    /// How long a session may stay idle.
    pub fn session_idle_timeout(&self) -> Duration {
        self.session_idle_timeout
    }

    /// Every accepted `Host` name: the loopback ones, then the allowed ones.
    pub fn hosts(&self) -> Vec<String> {
        LOOPBACK_HOSTS
            .iter()
            .map(|host| (*host).to_owned())
            .chain(self.allowed_hosts.iter().cloned())
            .collect()
    }

    /// The token every request must present, if any.
    pub fn bearer_token(&self) -> Option<&BearerToken> {
        self.bearer_token.as_ref()
    }

    /// Every accepted origin: the loopback ones, then the allowed ones.
    pub fn origins(&self) -> Vec<String> {
        LOOPBACK_ORIGINS
            .iter()
            .map(|origin| (*origin).to_owned())
            .chain(self.allowed_origins.iter().cloned())
            .collect()
    }
}
