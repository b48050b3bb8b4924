//! The OpenAI-compatible Chat Completions adapter.

mod request;
mod response;

use std::fmt;

use async_trait::async_trait;
use nao_core::{Completion, CompletionRequest, CompletionStream, ModelProvider, ProviderError};

pub use request::MaxTokensField;

use crate::ConfigError;
use crate::streaming::{StreamLimits, event_stream};
use crate::transport::{HttpSettings, Reply, Secret, Transport, header_map};

/// OpenAI's API, the default base URL.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

/// A model behind an OpenAI-compatible Chat Completions API: OpenAI, DeepSeek, vLLM, Ollama,
/// llama.cpp server, OpenRouter, LM Studio and others.
///
/// Built with [`OpenAiCompatible::builder`] or [`OpenAiCompatibleBuilder::from_env`]. Cheap to
/// clone (the HTTP connection pool is shared). Its `Debug` output never shows the API key.
#[derive(Clone)]
pub struct OpenAiCompatible {
    model: String,
    base_url: String,
    max_tokens_field: MaxTokensField,
    transport: Transport,
}

impl fmt::Debug for OpenAiCompatible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiCompatible")
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("max_tokens_field", &self.max_tokens_field)
            .field("transport", &self.transport)
            .finish()
    }
}

impl OpenAiCompatible {
    /// A builder for `model` at OpenAI's base URL, without a key.
    pub fn builder(model: impl Into<String>) -> OpenAiCompatibleBuilder {
        OpenAiCompatibleBuilder::new(model)
    }

    /// The base URL requests go to (`…/chat/completions` is appended).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }
}

#[async_trait]
impl ModelProvider for OpenAiCompatible {
    fn name(&self) -> &str {
        self.transport.provider
    }

    fn model(&self) -> &str {
        &self.model
    }

    async fn complete(&self, request: &CompletionRequest) -> Result<Completion, ProviderError> {
        let body = request::body(&self.model, request, self.max_tokens_field, false);
        let provider = self.transport.provider;
        match self.transport.post(&body, false).await? {
            Reply::Body(bytes) => response::parse_completion(provider, &bytes, &self.model)
                .map_err(|e| self.transport.scrub(e)),
            Reply::Stream(_) => Err(crate::classify::malformed(provider, "unexpected stream")),
        }
    }

    async fn stream(&self, request: &CompletionRequest) -> Result<CompletionStream, ProviderError> {
        let body = request::body(&self.model, request, self.max_tokens_field, true);
        let provider = self.transport.provider;
        let settings = &self.transport.settings;
        let limits = StreamLimits {
            idle_timeout: settings.stream_idle_timeout,
            max_bytes: settings.max_response_bytes,
            max_line_bytes: settings.max_sse_line_bytes,
        };
        match self.transport.post(&body, true).await? {
            Reply::Stream(response) => {
                let parser = response::ChunkParser::new(provider, &self.model);
                Ok(event_stream(provider, response, parser, limits))
            }
            Reply::Body(_) => Err(crate::classify::malformed(provider, "expected a stream")),
        }
    }
}

/// Configures an [`OpenAiCompatible`].
///
/// ```
/// use std::time::Duration;
/// use nao_providers::OpenAiCompatible;
///
/// let ollama = OpenAiCompatible::builder("qwen3:8b")
///     .base_url("http://localhost:11434/v1")
///     .timeout(Duration::from_secs(120))
///     .max_retries(1)
///     .build()?;
/// # Ok::<(), nao_providers::ConfigError>(())
/// ```
#[derive(Clone)]
pub struct OpenAiCompatibleBuilder {
    model: String,
    base_url: String,
    api_key: Secret,
    headers: Vec<(String, String)>,
    max_tokens_field: Option<MaxTokensField>,
    name: &'static str,
    settings: HttpSettings,
}

impl fmt::Debug for OpenAiCompatibleBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let headers: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("OpenAiCompatibleBuilder")
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key)
            .field("headers", &headers)
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl OpenAiCompatibleBuilder {
    /// A builder for `model` at OpenAI's base URL, without a key.
    pub fn new(model: impl Into<String>) -> Self {
        OpenAiCompatibleBuilder {
            model: model.into(),
            base_url: OPENAI_BASE_URL.to_owned(),
            api_key: Secret::default(),
            headers: Vec::new(),
            max_tokens_field: None,
            name: "openai",
            settings: HttpSettings::default(),
        }
    }

    /// A builder for `model` with the key from `OPENAI_API_KEY` and the base URL from
    /// `OPENAI_BASE_URL`, when they are set.
    pub fn from_env(model: impl Into<String>) -> Self {
        let mut builder = OpenAiCompatibleBuilder::new(model);
        if let Ok(key) = std::env::var("OPENAI_API_KEY") {
            builder = builder.api_key(key);
        }
        if let Ok(url) = std::env::var("OPENAI_BASE_URL")
            && !url.trim().is_empty()
        {
            builder = builder.base_url(url);
        }
        builder
    }

    /// The base URL, up to and including the version (`https://api.deepseek.com/v1`,
    /// `http://localhost:8000/v1`); `/chat/completions` is appended.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = url.into().trim().trim_end_matches('/').to_owned();
        self
    }

    /// The API key, sent as `Authorization: Bearer …`. Local servers (Ollama, vLLM,
    /// llama.cpp) need none.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Secret::new(Some(key.into()));
        self
    }

    /// Adds a header to every request (OpenRouter's `HTTP-Referer`, a gateway's key, …).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The name used in logs and errors (default `"openai"`), e.g. `"deepseek"`, `"ollama"`.
    pub fn name(mut self, name: &'static str) -> Self {
        self.name = name;
        self
    }

    /// Which field carries the output token limit. By default `max_completion_tokens` for
    /// OpenAI's own API and `max_tokens` for everything else.
    pub fn max_tokens_field(mut self, field: MaxTokensField) -> Self {
        self.max_tokens_field = Some(field);
        self
    }

    crate::transport::http_setters!();

    /// Builds the adapter.
    pub fn build(self) -> Result<OpenAiCompatible, ConfigError> {
        let max_tokens_field = self.max_tokens_field.unwrap_or_else(|| {
            if self.base_url.starts_with(OPENAI_BASE_URL) {
                MaxTokensField::MaxCompletionTokens
            } else {
                MaxTokensField::MaxTokens
            }
        });
        let mut pairs: Vec<(String, String, bool)> = self
            .headers
            .into_iter()
            .map(|(name, value)| (name, value, true))
            .collect();
        if let Some(key) = self.api_key.get() {
            pairs.push(("authorization".into(), format!("Bearer {key}"), true));
        }
        let headers = header_map(pairs)?;
        let url = format!("{}/chat/completions", self.base_url);
        let transport = Transport::new(self.name, url, headers, self.api_key, self.settings)?;
        Ok(OpenAiCompatible {
            model: self.model,
            base_url: self.base_url,
            max_tokens_field,
            transport,
        })
    }
}
