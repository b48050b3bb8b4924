//! The HTTP side shared by the adapters: headers, timeouts, size caps and retries.

use std::fmt;
use std::time::Duration;

use nao_core::ProviderError;
use nao_core::telemetry;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;

use crate::classify;
use crate::{ConfigError, RetryPolicy};

/// Timeouts, size caps and the retry policy of one adapter.
#[derive(Debug, Clone)]
pub(crate) struct HttpSettings {
    pub(crate) connect_timeout: Duration,
    pub(crate) request_timeout: Duration,
    pub(crate) stream_idle_timeout: Duration,
    pub(crate) max_response_bytes: usize,
    pub(crate) max_sse_line_bytes: usize,
    pub(crate) retry: RetryPolicy,
    pub(crate) use_env_proxy: bool,
}

impl Default for HttpSettings {
    fn default() -> Self {
        HttpSettings {
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(600),
            stream_idle_timeout: Duration::from_secs(120),
            max_response_bytes: 32 * 1024 * 1024,
            max_sse_line_bytes: 4 * 1024 * 1024,
            retry: RetryPolicy::default(),
            use_env_proxy: true,
        }
    }
}

/// The most bytes of an error body read to find its message.
const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;

/// An API key; never printed.
#[derive(Clone, Default)]
pub(crate) struct Secret(Option<String>);

impl Secret {
    pub(crate) fn new(key: Option<String>) -> Self {
        Secret(key.filter(|k| !k.trim().is_empty()))
    }

    pub(crate) fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(_) => f.write_str("Some(<redacted>)"),
            None => f.write_str("None"),
        }
    }
}

/// What a successful attempt yields.
pub(crate) enum Reply {
    /// The whole body of a non-streaming request.
    Body(Vec<u8>),
    /// A streaming response whose status was a success; its body is still unread.
    Stream(reqwest::Response),
}

/// One endpoint of one provider, with its client, headers and settings.
#[derive(Clone)]
pub(crate) struct Transport {
    pub(crate) provider: &'static str,
    client: reqwest::Client,
    url: String,
    /// The host and port of `url`, for the `chat` span (never its path, query or user info).
    server: Option<(String, u16)>,
    headers: HeaderMap,
    secret: Secret,
    pub(crate) settings: HttpSettings,
}

impl fmt::Debug for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let extra: Vec<&str> = self.headers.keys().map(HeaderName::as_str).collect();
        f.debug_struct("Transport")
            .field("url", &self.url)
            .field("api_key", &self.secret)
            .field("headers", &extra)
            .field("settings", &self.settings)
            .finish()
    }
}

impl Transport {
    /// A transport posting JSON to `url` with `headers` (the auth header is marked sensitive).
    pub(crate) fn new(
        provider: &'static str,
        url: String,
        headers: HeaderMap,
        secret: Secret,
        settings: HttpSettings,
    ) -> Result<Self, ConfigError> {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(ConfigError::InvalidBaseUrl { url });
        }
        install_crypto_provider();
        let mut client = reqwest::Client::builder().connect_timeout(settings.connect_timeout);
        if !settings.use_env_proxy {
            client = client.no_proxy();
        }
        let client = client.build().map_err(|e| ConfigError::Client {
            message: e.to_string(),
        })?;
        let server = reqwest::Url::parse(&url).ok().and_then(|parsed| {
            let host = parsed.host_str()?.to_owned();
            Some((host, parsed.port_or_known_default()?))
        });
        Ok(Transport {
            provider,
            client,
            server,
            url,
            headers,
            secret,
            settings,
        })
    }

    /// Posts `body`, retrying retryable failures; for a stream, retries stop at the first
    /// successful status, so no streamed byte is ever sent twice.
    pub(crate) async fn post(&self, body: &Value, stream: bool) -> Result<Reply, ProviderError> {
        let body = serde_json::to_vec(body).map_err(|e| ProviderError::Permanent {
            provider: self.provider.to_owned(),
            message: format!("could not encode the request: {e}"),
            source: Some(Box::new(e)),
        })?;
        self.record_server();
        let mut retry = 0;
        loop {
            let outcome = self.attempt(&body, stream).await;
            match outcome {
                Ok(reply) => return Ok(reply),
                Err(error) => {
                    let error = self.scrub(error);
                    let delay = error
                        .is_retryable()
                        .then(|| self.settings.retry.delay(retry, error.retry_after()))
                        .flatten();
                    let Some(delay) = delay else {
                        return Err(error);
                    };
                    tracing::warn!(
                        provider = self.provider,
                        retry = retry + 1,
                        ?delay,
                        %error,
                        "retrying model request"
                    );
                    tokio::time::sleep(delay).await;
                    retry += 1;
                }
            }
        }
    }

    /// Records the API's host and port on the current span, when it declares them (the
    /// agent's `chat` span does; see `nao_core::telemetry`).
    fn record_server(&self) {
        let span = tracing::Span::current();
        if let Some((host, port)) = &self.server
            && !span.is_disabled()
        {
            span.record(telemetry::SERVER_ADDRESS, host.as_str());
            span.record(telemetry::SERVER_PORT, *port);
        }
    }

    async fn attempt(&self, body: &[u8], stream: bool) -> Result<Reply, ProviderError> {
        let timeout = self.settings.request_timeout;
        let work = async {
            let response = self
                .client
                .post(&self.url)
                .headers(self.headers.clone())
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .header(
                    reqwest::header::ACCEPT,
                    if stream {
                        "text/event-stream"
                    } else {
                        "application/json"
                    },
                )
                .body(body.to_vec())
                .send()
                .await
                .map_err(|e| classify::from_transport(self.provider, &e))?;
            let status = response.status();
            if !status.is_success() {
                let headers = response.headers().clone();
                let body = read_capped(self.provider, response, MAX_ERROR_BODY_BYTES, false)
                    .await
                    .unwrap_or_default();
                return Err(classify::from_status(
                    self.provider,
                    status.as_u16(),
                    &headers,
                    &body,
                ));
            }
            if stream {
                Ok(Reply::Stream(response))
            } else {
                let max = self.settings.max_response_bytes;
                read_capped(self.provider, response, max, true)
                    .await
                    .map(Reply::Body)
            }
        };
        match tokio::time::timeout(timeout, work).await {
            Ok(outcome) => outcome,
            Err(_) => Err(classify::timeout(self.provider, "the request", timeout)),
        }
    }

    /// Removes the API key from an error's message, should a provider echo it.
    pub(crate) fn scrub(&self, mut error: ProviderError) -> ProviderError {
        let Some(key) = self.secret.get() else {
            return error;
        };
        match &mut error {
            ProviderError::ContextLength { message, .. }
            | ProviderError::RateLimited { message, .. }
            | ProviderError::Transient { message, .. }
            | ProviderError::Auth { message, .. }
            | ProviderError::InvalidRequest { message, .. }
            | ProviderError::Permanent { message, .. }
                if message.contains(key) =>
            {
                *message = message.replace(key, "<redacted>");
            }
            _ => {}
        }
        error
    }
}

/// Reads at most `max` bytes of a body; past that, an error when `strict`, else the prefix.
async fn read_capped(
    provider: &str,
    mut response: reqwest::Response,
    max: usize,
    strict: bool,
) -> Result<Vec<u8>, ProviderError> {
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| classify::from_transport(provider, &e))?
    {
        if body.len() + chunk.len() > max {
            if strict {
                return Err(classify::malformed(
                    provider,
                    format!("the body is larger than {max} bytes"),
                ));
            }
            body.extend_from_slice(&chunk[..max - body.len()]);
            break;
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// reqwest is built without a default crypto provider (to avoid aws-lc); install ring's as the
/// process default unless the host installed one already.
fn install_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Losing a race to another installer is fine: some provider is installed either way.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

/// Builds a header map from the caller's extra headers plus the adapter's own.
pub(crate) fn header_map(
    pairs: impl IntoIterator<Item = (String, String, bool)>,
) -> Result<HeaderMap, ConfigError> {
    let mut headers = HeaderMap::new();
    for (name, value, sensitive) in pairs {
        let header = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| ConfigError::InvalidHeader { name: name.clone() })?;
        let mut value = HeaderValue::from_str(&value)
            .map_err(|_| ConfigError::InvalidHeader { name: name.clone() })?;
        value.set_sensitive(sensitive);
        headers.insert(header, value);
    }
    Ok(headers)
}

/// The setters every provider builder shares, over its `settings: HttpSettings` field.
macro_rules! http_setters {
    () => {
        /// The time allowed to connect (default 10 s).
        pub fn connect_timeout(mut self, timeout: std::time::Duration) -> Self {
            self.settings.connect_timeout = timeout;
            self
        }

        /// The time allowed for one attempt of a request: the whole answer when not streaming,
        /// the response headers when streaming (default 600 s).
        pub fn timeout(mut self, timeout: std::time::Duration) -> Self {
            self.settings.request_timeout = timeout;
            self
        }

        /// The longest silence allowed between two chunks of a stream (default 120 s).
        pub fn stream_idle_timeout(mut self, timeout: std::time::Duration) -> Self {
            self.settings.stream_idle_timeout = timeout;
            self
        }

        /// Retries after a retryable failure (default 2).
        pub fn max_retries(mut self, retries: u32) -> Self {
            self.settings.retry.max_retries = retries;
            self
        }

        /// The base and the largest backoff delay between retries (default 500 ms, 8 s).
        pub fn backoff(mut self, initial: std::time::Duration, max: std::time::Duration) -> Self {
            self.settings.retry = self.settings.retry.with_backoff(initial, max);
            self
        }

        /// The whole retry policy.
        pub fn retry_policy(mut self, policy: crate::RetryPolicy) -> Self {
            self.settings.retry = policy;
            self
        }

        /// The largest response body, or total streamed bytes, accepted (default 32 MiB).
        pub fn max_response_bytes(mut self, max: usize) -> Self {
            self.settings.max_response_bytes = max;
            self
        }

        /// The longest line, or event, of a stream accepted (default 4 MiB).
        pub fn max_sse_line_bytes(mut self, max: usize) -> Self {
            self.settings.max_sse_line_bytes = max;
            self
        }

        /// Connects directly, ignoring the `HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY` environment
        /// variables (honoured by default), e.g. for a model server on localhost.
        pub fn no_proxy(mut self) -> Self {
            self.settings.use_env_proxy = false;
            self
        }
    };
}

pub(crate) use http_setters;
