//! The HTTP side: one reqwest client per dialect, a POST per statement with the adapter's
//! settings in the query string, and `KILL QUERY` on a request of its own.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use nao_core::DialectError;
use reqwest::{Client, Response};

use super::config::ClickHouseConfig;
use super::errors::ServerError;

/// How a statement's result comes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    /// `TabSeparatedWithNamesAndTypes` (what 18.16 has that streams, with types).
    Text,
    /// `ArrowStream` in blocks of at most this many rows, strings as Utf8, no dictionaries,
    /// no compression.
    Arrow(usize),
}

/// The most of an error body read.
const MAX_ERROR_BODY: usize = 64 << 10;

/// How long `KILL QUERY` may take.
pub(crate) const KILL_GRACE: Duration = Duration::from_secs(5);

/// What the user's profile lets a statement set (its `readonly` setting).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UserProfile {
    /// `readonly=0`: the user may write, so every statement is sent with `readonly=2`.
    Writable,
    /// `readonly=2`: read-only, settings allowed; sending `readonly` itself is refused.
    ReadOnly,
    /// `readonly=1`: read-only, and no setting may be sent at all (the pump's caps, the
    /// timeout and `KILL QUERY`, if the server allows it, stop statements then).
    Fixed,
}

impl UserProfile {
    /// From the `readonly` setting's value.
    pub(crate) fn from_readonly(value: &str) -> Self {
        match value {
            "0" => UserProfile::Writable,
            "2" => UserProfile::ReadOnly,
            _ => UserProfile::Fixed,
        }
    }
}

/// Per-statement settings the adapter sends.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// `max_execution_time`, whole seconds.
    pub(crate) seconds: u64,
    /// `max_result_rows` (the row cap plus one).
    pub(crate) rows: u64,
    /// `max_result_bytes`.
    pub(crate) bytes: u64,
}

/// The HTTP client and what every request of this dialect carries.
pub(crate) struct HttpClient {
    client: Client,
    base_url: String,
    user: String,
    password: String,
    database: String,
    /// What each statement may set, by the user's profile.
    pub(crate) profile: UserProfile,
    /// A per-client prefix of query ids, and a counter.
    id_prefix: String,
    next_id: AtomicU64,
}

impl std::fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpClient")
            .field("base_url", &self.base_url)
            .field("user", &self.user)
            .field("database", &self.database)
            .finish_non_exhaustive()
    }
}

impl HttpClient {
    /// A client for the server of `config` (no request is sent yet).
    pub(crate) fn new(database: &str, config: &ClickHouseConfig) -> Result<Self, DialectError> {
        install_crypto_provider();
        let mut builder = Client::builder()
            .connect_timeout(config.connect_timeout)
            .no_proxy();
        if let Some(path) = &config.tls_ca {
            builder = builder.tls_certs_only(private_ca(database, path)?);
        }
        let client = builder.build().map_err(|e| DialectError::Connection {
            database: database.to_owned(),
            message: format!("could not build the HTTP client: {e}"),
            source: None,
        })?;
        let mut random = [0_u8; 6];
        getrandom::fill(&mut random).map_err(|e| DialectError::Connection {
            database: database.to_owned(),
            message: format!("no randomness for query ids: {e}"),
            source: None,
        })?;
        let id_prefix = random
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>();
        Ok(HttpClient {
            client,
            base_url: config.base_url(),
            user: config.user.clone(),
            password: config.password.clone(),
            database: config.database.clone(),
            profile: UserProfile::Fixed,
            id_prefix: format!("nao-{id_prefix}-"),
            next_id: AtomicU64::new(1),
        })
    }

    /// A fresh query id, unique to this client (`nao-<random>-<n>`).
    pub(crate) fn query_id(&self) -> String {
        format!(
            "{}{}",
            self.id_prefix,
            self.next_id.fetch_add(1, Ordering::Relaxed)
        )
    }

    /// The database names resolve in.
    pub(crate) fn database(&self) -> &str {
        &self.database
    }

    /// Posts `sql` with the adapter's settings; the response's status is checked, its body
    /// is the caller's to stream. An error status becomes the server's error.
    pub(crate) async fn post(
        &self,
        sql: &str,
        query_id: &str,
        limits: Option<Limits>,
        output: Output,
    ) -> Result<Response, RequestError> {
        let format = match output {
            Output::Text => "TabSeparatedWithNamesAndTypes",
            Output::Arrow(_) => "ArrowStream",
        };
        let mut params: Vec<(&str, String)> = vec![
            ("database", self.database.clone()),
            ("query_id", query_id.to_owned()),
            ("default_format", format.to_owned()),
        ];
        if let Output::Arrow(block_rows) = output {
            params.push(("max_block_size", block_rows.to_string()));
            params.push(("output_format_arrow_string_as_string", "1".to_owned()));
            params.push((
                "output_format_arrow_low_cardinality_as_dictionary",
                "0".to_owned(),
            ));
            params.push((
                "output_format_arrow_fixed_string_as_fixed_byte_array",
                "1".to_owned(),
            ));
            params.push(("output_format_arrow_compression_method", "none".to_owned()));
        }
        if self.profile == UserProfile::Writable {
            params.push(("readonly", "2".to_owned()));
        }
        if let Some(limits) = limits.filter(|_| self.profile != UserProfile::Fixed) {
            params.push(("max_execution_time", limits.seconds.to_string()));
            params.push(("max_result_rows", limits.rows.to_string()));
            params.push(("max_result_bytes", limits.bytes.to_string()));
            params.push(("result_overflow_mode", "break".to_owned()));
        }
        // Only our own settings go in the query string (no secret): `url` encodes them.
        let url = url::Url::parse_with_params(&self.base_url, &params).map_err(|e| {
            RequestError::Server(ServerError {
                code: None,
                message: format!("bad server URL: {e}"),
            })
        })?;
        let request = self
            .client
            .post(url)
            .basic_auth(&self.user, Some(&self.password))
            .body(sql.to_owned());
        let response = request.send().await.map_err(RequestError::Transport)?;
        if response.status().is_success() {
            return Ok(response);
        }
        let header = response
            .headers()
            .get("X-ClickHouse-Exception-Code")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let status = response.status();
        let body = read_capped(response, MAX_ERROR_BODY)
            .await
            .unwrap_or_default();
        let mut error = ServerError::parse(header.as_deref(), &body);
        if error.code.is_none() {
            error.message = format!("HTTP {status}: {}", error.message);
        }
        Err(RequestError::Server(error))
    }

    /// Runs a small statement (the catalogue, the probe) and returns its whole body, at most
    /// `max` bytes.
    pub(crate) async fn fetch(&self, sql: &str, max: usize) -> Result<Vec<u8>, RequestError> {
        let id = self.query_id();
        let response = self.post(sql, &id, None, Output::Text).await?;
        let body = read_capped(response, max + 1)
            .await
            .map_err(RequestError::Transport)?;
        if body.len() > max {
            return Err(RequestError::TooLarge(max));
        }
        Ok(body)
    }

    /// Asks the server to stop `query_id` (best effort, on a request of its own), and waits
    /// until it has (`SYNC`).
    pub(crate) async fn kill(&self, query_id: &str) {
        // The id is ours (hex and digits): nothing to escape.
        let sql = format!("KILL QUERY WHERE query_id = '{query_id}' SYNC");
        let id = self.query_id();
        let outcome = tokio::time::timeout(KILL_GRACE, async {
            let response = self.post(&sql, &id, None, Output::Text).await?;
            read_capped(response, MAX_ERROR_BODY)
                .await
                .map_err(RequestError::Transport)
        })
        .await;
        match outcome {
            Ok(Ok(_)) => tracing::debug!(query_id, "killed a ClickHouse query"),
            Ok(Err(error)) => tracing::debug!(query_id, ?error, "KILL QUERY failed"),
            Err(_) => tracing::debug!(query_id, "KILL QUERY did not answer in time"),
        }
    }
}

/// Why a request failed.
#[derive(Debug)]
pub(crate) enum RequestError {
    /// The server answered with an error.
    Server(ServerError),
    /// No answer (connection refused, reset, TLS).
    Transport(reqwest::Error),
    /// A catalogue answer past its bound.
    TooLarge(usize),
}

impl RequestError {
    /// As a [`DialectError`] of `database` (no stop, the default limits).
    pub(crate) fn into_dialect(self, database: &str, limit: Duration) -> DialectError {
        match self {
            RequestError::Server(error) => error.into_dialect(database, limit, None),
            RequestError::Transport(error) => transport(database, error),
            RequestError::TooLarge(max) => DialectError::ResourceLimit {
                database: database.to_owned(),
                limit: format!("catalogue answer of {}", crate::sizes::human(max)),
                message: "the server's answer was larger".to_owned(),
                code: None,
            },
        }
    }
}

/// A transport failure as a connection error. reqwest's message names the URL, which holds
/// no credentials (they go in the Authorization header).
pub(crate) fn transport(database: &str, error: reqwest::Error) -> DialectError {
    let error = error.without_url();
    DialectError::Connection {
        database: database.to_owned(),
        message: error.to_string(),
        source: Some(Box::new(error)),
    }
}

/// Reads at most `max` bytes of a body.
async fn read_capped(mut response: Response, max: usize) -> Result<Vec<u8>, reqwest::Error> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        let room = max.saturating_sub(body.len());
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.len() >= max {
            break;
        }
    }
    Ok(body)
}

/// The certificates of the PEM file at `path` (read once, when the adapter connects).
fn private_ca(
    database: &str,
    path: &std::path::Path,
) -> Result<Vec<reqwest::Certificate>, DialectError> {
    let failed = |message: String| DialectError::Connection {
        database: database.to_owned(),
        message,
        source: None,
    };
    let pem = std::fs::read(path)
        .map_err(|e| failed(format!("cannot read the CA file {}: {e}", path.display())))?;
    let certificates = reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| {
        failed(format!(
            "the CA file {} holds no PEM certificate: {e}",
            path.display()
        ))
    })?;
    if certificates.is_empty() {
        return Err(failed(format!(
            "the CA file {} holds no PEM certificate",
            path.display()
        )));
    }
    Ok(certificates)
}

/// reqwest is built without a default crypto provider (to avoid aws-lc); install ring's as
/// the process default unless the host installed one already.
fn install_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Losing a race to another installer is fine: some provider is installed either way.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}
