//! The model side: messages, requests, completions, streaming events, and the
//! [`ModelProvider`] trait that provider adapters (crate `nao-providers`) implement.

mod error;
mod message;
mod stream;

pub use error::ProviderError;
pub use message::{
    Completion, CompletionRequest, FinishReason, Message, ToolChoice, ToolSpecLite, Usage,
};
pub use stream::{CompletionStream, StreamEvent, collect_stream};

use async_trait::async_trait;

/// A language model behind some API. Object-safe: agents hold `Arc<dyn ModelProvider>`.
#[async_trait]
pub trait ModelProvider: std::fmt::Debug + Send + Sync + 'static {
    /// A short name for logs and errors (`"openai"`, `"anthropic"`, `"scripted"`).
    fn name(&self) -> &str;

    /// The model it calls (`"gpt-4.1"`, `"claude-sonnet-4"`).
    fn model(&self) -> &str;

    /// Sends one request and waits for the whole answer.
    async fn complete(&self, request: &CompletionRequest) -> Result<Completion, ProviderError>;

    /// Sends one request and streams the answer as it is generated. Adapters without
    /// streaming may answer with [`CompletionStream::from_completion`].
    async fn stream(&self, request: &CompletionRequest) -> Result<CompletionStream, ProviderError>;
}
