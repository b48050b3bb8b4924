//! Provider errors, classified so the agent knows whether to retry, shorten, or stop.

use std::time::Duration;

use crate::BoxError;

/// Why a model request failed.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    /// The conversation is longer than the model's context window.
    #[error("{provider}: the conversation is too long for the model: {message}")]
    ContextLength {
        /// The provider.
        provider: String,
        /// The provider's message.
        message: String,
    },
    /// Too many requests; retry after the given delay, if the provider said one.
    #[error("{provider}: rate limited: {message}")]
    RateLimited {
        /// The provider.
        provider: String,
        /// The provider's message.
        message: String,
        /// How long to wait before retrying.
        retry_after: Option<Duration>,
    },
    /// A failure that may pass: overload, a 5xx, a dropped connection, a timeout.
    #[error("{provider}: temporary failure: {message}")]
    Transient {
        /// The provider.
        provider: String,
        /// What failed.
        message: String,
        /// The HTTP status, if any.
        status: Option<u16>,
        /// How long to wait before retrying, if the provider said.
        retry_after: Option<Duration>,
    },
    /// The key is missing, wrong or not allowed to use the model.
    #[error("{provider}: authentication failed: {message}")]
    Auth {
        /// The provider.
        provider: String,
        /// The provider's message.
        message: String,
    },
    /// The request is malformed for this provider (a bug in the host or adapter).
    #[error("{provider}: invalid request: {message}")]
    InvalidRequest {
        /// The provider.
        provider: String,
        /// The provider's message.
        message: String,
    },
    /// Any other failure that retrying will not fix.
    #[error("{provider}: {message}")]
    Permanent {
        /// The provider.
        provider: String,
        /// What failed.
        message: String,
        /// The underlying error.
        #[source]
        source: Option<BoxError>,
    },
}

impl ProviderError {
    /// Whether the same request may succeed later.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            ProviderError::RateLimited { .. } | ProviderError::Transient { .. }
        )
    }

    /// How long the provider asked to wait, if it did.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ProviderError::RateLimited { retry_after, .. }
            | ProviderError::Transient { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}
