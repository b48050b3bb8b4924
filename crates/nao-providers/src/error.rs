//! Errors of configuring an adapter (errors of calling a model are `nao_core::ProviderError`).

/// Why an adapter could not be built.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The base URL is not an `http://` or `https://` URL.
    #[error("invalid base URL {url:?}: it must start with http:// or https://")]
    InvalidBaseUrl {
        /// The URL given.
        url: String,
    },
    /// A header name or value is not valid in HTTP (the value is not shown: it may be secret).
    #[error("invalid header {name:?}: the name or the value is not valid in HTTP")]
    InvalidHeader {
        /// The header's name.
        name: String,
    },
    /// The HTTP client could not be created.
    #[error("could not create the HTTP client: {message}")]
    Client {
        /// What failed.
        message: String,
    },
}
