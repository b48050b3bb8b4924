//! The Anthropic Messages adapter.

mod request;
mod response;

use std::fmt;

use async_trait::async_trait;
use nao_core::{Completion, CompletionRequest, CompletionStream, ModelProvider, ProviderError};

use crate::ConfigError;
use crate::streaming::{StreamLimits, event_stream};
use crate::transport::{HttpSettings, Reply, Secret, Transport, header_map};

/// Anthropic's API, the default base URL.
pub const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";

/// The `anthropic-version` header sent by default.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// The output token limit sent when the request sets none (the API requires one).
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// A Claude model behind Anthropic's Messages API (or a compatible gateway).
///
/// Built with [`Anthropic::builder`] or [`AnthropicBuilder::from_env`]. Cheap to clone. Its
/// `Debug` output never shows the API key.
#[derive(Clone)]
pub struct Anthropic {
    model: String,
    base_url: String,
    max_tokens: u32,
    transport: Transport,
}

impl fmt::Debug for Anthropic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Anthropic")
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("max_tokens", &self.max_tokens)
            .field("transport", &self.transport)
            .finish()
    }
}

impl Anthropic {
    /// A builder for `model` at Anthropic's base URL, without a key.
    pub fn builder(model: impl Into<String>) -> AnthropicBuilder {
        AnthropicBuilder::new(model)
    }

    /// The base URL requests go to (`/v1/messages` is appended).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    fn limits(&self) -> StreamLimits {
        let settings = &self.transport.settings;
        StreamLimits {
            idle_timeout: settings.stream_idle_timeout,
            max_bytes: settings.max_response_bytes,
            max_line_bytes: settings.max_sse_line_bytes,
        }
    }
}

#[async_trait]
impl ModelProvider for Anthropic {
    fn name(&self) -> &str {
        self.transport.provider
    }

    fn model(&self) -> &str {
        &self.model
    }

    async fn complete(&self, request: &CompletionRequest) -> Result<Completion, ProviderError> {
        let body = request::body(&self.model, request, self.max_tokens, false);
        let provider = self.transport.provider;
        match self.transport.post(&body, false).await? {
            Reply::Body(bytes) => response::parse_message(provider, &bytes, &self.model)
                .map_err(|e| self.transport.scrub(e)),
            Reply::Stream(_) => Err(crate::classify::malformed(provider, "unexpected stream")),
        }
    }

    async fn stream(&self, request: &CompletionRequest) -> Result<CompletionStream, ProviderError> {
        let body = request::body(&self.model, request, self.max_tokens, true);
        let provider = self.transport.provider;
        match self.transport.post(&body, true).await? {
            Reply::Stream(response) => {
                let parser = response::EventStreamParser::new(provider, &self.model);
                Ok(event_stream(provider, response, parser, self.limits()))
            }
            Reply::Body(_) => Err(crate::classify::malformed(provider, "expected a stream")),
        }
    }
}

/// Configures an [`Anthropic`].
///
/// ```
/// use nao_providers::Anthropic;
///
/// let claude = Anthropic::builder("claude-sonnet-4-5")
///     .api_key("sk-ant-…")
///     .max_tokens(8192)
///     .build()?;
/// assert!(!format!("{claude:?}").contains("sk-ant"));
/// # Ok::<(), nao_providers::ConfigError>(())
/// ```
#[derive(Clone)]
pub struct AnthropicBuilder {
    model: String,
    base_url: String,
    api_key: Secret,
    version: String,
    headers: Vec<(String, String)>,
    max_tokens: u32,
    name: &'static str,
    settings: HttpSettings,
}

impl fmt::Debug for AnthropicBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let headers: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("AnthropicBuilder")
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key)
            .field("version", &self.version)
            .field("headers", &headers)
            .field("max_tokens", &self.max_tokens)
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl AnthropicBuilder {
    /// A builder for `model` at Anthropic's base URL, without a key.
    pub fn new(model: impl Into<String>) -> Self {
        AnthropicBuilder {
            model: model.into(),
            base_url: ANTHROPIC_BASE_URL.to_owned(),
            api_key: Secret::default(),
            version: ANTHROPIC_VERSION.to_owned(),
            headers: Vec::new(),
            max_tokens: DEFAULT_MAX_TOKENS,
            name: "anthropic",
            settings: HttpSettings::default(),
        }
    }

    /// A builder for `model` with the key from `ANTHROPIC_API_KEY` and the base URL from
    /// `ANTHROPIC_BASE_URL`, when they are set.
    pub fn from_env(model: impl Into<String>) -> Self {
        let mut builder = AnthropicBuilder::new(model);
        if let Ok(key) = std::env::var("ANTHROPIC_API_KEY") {
            builder = builder.api_key(key);
        }
        if let Ok(url) = std::env::var("ANTHROPIC_BASE_URL")
            && !url.trim().is_empty()
        {
            builder = builder.base_url(url);
        }
        builder
    }

    /// The base URL, without the version (`https://api.anthropic.com`); `/v1/messages` is
    /// appended (only `/messages` when the URL already ends in `/v1`).
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = url.into().trim().trim_end_matches('/').to_owned();
        self
    }

    /// The API key, sent as `x-api-key`.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Secret::new(Some(key.into()));
        self
    }

    /// The `anthropic-version` header (default `2023-06-01`).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = version.into();
        self
    }

    /// Adds a header to every request (`anthropic-beta`, a gateway's key, …).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The name used in logs and errors (default `"anthropic"`).
    pub fn name(mut self, name: &'static str) -> Self {
        self.name = name;
        self
    }

    /// The output token limit when the request sets none (default 4096).
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = max_tokens;
        self
    }

    crate::transport::http_setters!();

    /// Builds the adapter.
    pub fn build(self) -> Result<Anthropic, ConfigError> {
        let mut pairs: Vec<(String, String, bool)> = self
            .headers
            .into_iter()
            .map(|(name, value)| (name, value, true))
            .collect();
        pairs.push(("anthropic-version".into(), self.version, false));
        if let Some(key) = self.api_key.get() {
            pairs.push(("x-api-key".into(), key.to_owned(), true));
        }
        let headers = header_map(pairs)?;
        let url = if self.base_url.ends_with("/v1") {
            format!("{}/messages", self.base_url)
        } else {
            format!("{}/v1/messages", self.base_url)
        };
        let transport = Transport::new(self.name, url, headers, self.api_key, self.settings)?;
        Ok(Anthropic {
            model: self.model,
            base_url: self.base_url,
            max_tokens: self.max_tokens,
            transport,
        })
    }
}
