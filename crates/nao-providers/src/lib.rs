//! Model-provider adapters for nao-rs: any OpenAI-compatible Chat Completions API
//! ([`OpenAiCompatible`]) and Anthropic's Messages API ([`Anthropic`]), both implementing
//! [`nao_core::ModelProvider`] with streaming, tool calls, classified errors, retries and
//! timeouts.
//!
//! ```
//! use nao_core::{CompletionRequest, Message, ModelProvider};
//! use nao_providers::OpenAiCompatible;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let base_url = serve_one(r#"{"id":"chatcmpl-1","object":"chat.completion","model":"qwen3:8b",
//! #   "choices":[{"index":0,"message":{"role":"assistant","content":"There are 42 orders."},
//! #   "finish_reason":"stop"}],"usage":{"prompt_tokens":20,"completion_tokens":6}}"#).await?;
//! // `base_url` is a local OpenAI-compatible server (here a stand-in started by the
//! // example; in real use Ollama at http://localhost:11434/v1, vLLM, OpenAI, …).
//! let model = OpenAiCompatible::builder("qwen3:8b")
//!     .base_url(base_url)
//!     .no_proxy()
//!     .build()?;
//!
//! let request = CompletionRequest::new(
//!     vec![
//!         Message::system("You answer questions about the shop's database."),
//!         Message::user("How many orders are there?"),
//!     ],
//!     &[],
//! );
//! let answer = model.complete(&request).await?;
//! assert_eq!(answer.content, "There are 42 orders.");
//! assert_eq!(answer.usage.output_tokens, 6);
//! # Ok(())
//! # }
//! # async fn serve_one(body: &'static str) -> std::io::Result<String> {
//! #     use tokio::io::{AsyncReadExt, AsyncWriteExt};
//! #     let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! #     let address = listener.local_addr()?;
//! #     tokio::spawn(async move {
//! #         let Ok((mut socket, _)) = listener.accept().await else { return };
//! #         let mut seen = Vec::new();
//! #         let mut buf = [0u8; 4096];
//! #         loop {
//! #             let Ok(n) = socket.read(&mut buf).await else { return };
//! #             if n == 0 { return }
//! #             seen.extend_from_slice(&buf[..n]);
//! #             let text = String::from_utf8_lossy(&seen).to_string();
//! #             if let Some(end) = text.find("\r\n\r\n") {
//! #                 let length = text[..end].lines()
//! #                     .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:")
//! #                         .and_then(|v| v.trim().parse::<usize>().ok()))
//! #                     .unwrap_or(0);
//! #                 if seen.len() >= end + 4 + length { break }
//! #             }
//! #         }
//! #         let reply = format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\
//! #             content-length: {}\r\nconnection: close\r\n\r\n{body}", body.len());
//! #         let _ = socket.write_all(reply.as_bytes()).await;
//! #     });
//! #     Ok(format!("http://{address}/v1"))
//! # }
//! ```
//!
//! # Usage
//!
//! Build an adapter with its builder ([`OpenAiCompatible::builder`], [`Anthropic::builder`]) or
//! from the environment ([`OpenAiCompatibleBuilder::from_env`] reads `OPENAI_API_KEY` and
//! `OPENAI_BASE_URL`; [`AnthropicBuilder::from_env`] reads `ANTHROPIC_API_KEY` and
//! `ANTHROPIC_BASE_URL`), then hand it to an agent as an `Arc<dyn ModelProvider>`.
//! [`ModelProvider::complete`](nao_core::ModelProvider::complete) waits for the whole answer;
//! [`ModelProvider::stream`](nao_core::ModelProvider::stream) yields text deltas and tool-call
//! pieces as they arrive and ends with the assembled answer
//! ([`StreamEvent::Done`](nao_core::StreamEvent::Done)). Tool calls (several per answer, too)
//! come back as [`ToolCall`](nao_core::ToolCall)s whose `arguments` is the parsed JSON, or the
//! model's text as a JSON string when it is not valid JSON, for the tool registry to report.
//!
//! # Providers
//!
//! | service | adapter | base URL | key |
//! |---|---|---|---|
//! | OpenAI | [`OpenAiCompatible`] | `https://api.openai.com/v1` (default) | `OPENAI_API_KEY` |
//! | DeepSeek | [`OpenAiCompatible`] | `https://api.deepseek.com/v1` | yes |
//! | OpenRouter | [`OpenAiCompatible`] | `https://openrouter.ai/api/v1` | yes |
//! | vLLM | [`OpenAiCompatible`] | `http://localhost:8000/v1` | none (or `--api-key`) |
//! | Ollama | [`OpenAiCompatible`] | `http://localhost:11434/v1` | none |
//! | llama.cpp server | [`OpenAiCompatible`] | `http://localhost:8080/v1` | none (or `--api-key`) |
//! | Anthropic | [`Anthropic`] | `https://api.anthropic.com` (default) | `ANTHROPIC_API_KEY` |
//!
//! The output token limit goes in `max_completion_tokens` for OpenAI's own API and in
//! `max_tokens` elsewhere ([`MaxTokensField`] overrides it). Anthropic requires a limit: the
//! request's, or the builder's default (4096). Streams ask OpenAI-compatible servers for a
//! final usage chunk (`stream_options.include_usage`).
//!
//! # Errors and retries
//!
//! Failures are [`ProviderError`](nao_core::ProviderError)s, classified from the HTTP status
//! and the provider's error body, keeping the provider's message (cut to 2000 bytes):
//!
//! | cause | error | retried |
//! |---|---|---|
//! | 400/413 saying the prompt is too long (`context_length_exceeded`, "prompt is too long", …) | `ContextLength` | no |
//! | 400, 404, 422 | `InvalidRequest` | no |
//! | 401, 403 | `Auth` | no |
//! | 429 | `RateLimited` (with `retry-after` / `retry-after-ms`) | yes |
//! | 408, 409, 500, 502, 503, 504, 529 (overloaded) | `Transient` | yes |
//! | connection failures, timeouts, a stream cut short | `Transient` | yes, before the stream starts |
//! | anything else | `Permanent` | no |
//!
//! Retryable failures are retried [`RetryPolicy::max_retries`] times (default 2) with
//! exponential backoff and jitter; a provider's `retry-after` is honoured up to
//! [`RetryPolicy::max_retry_after`] (default 30 s) — a longer one is returned at once, with its
//! delay, for the host to decide. A stream is never retried once its successful response has
//! begun: an error after that ends the stream. Timeouts: connecting (default 10 s), one attempt
//! of a request (default 600 s: the whole answer, or a stream's response headers), and the
//! silence between two chunks of a stream (default 120 s). API keys never appear in `Debug`
//! output or in errors (a key echoed by the provider is replaced by `<redacted>`).
//!
//! # Untrusted input
//!
//! Responses come from the network and are parsed defensively: no input makes the adapters
//! panic. A response body, or a whole stream, is capped at 32 MiB and one stream line or event
//! at 4 MiB (builders' `max_response_bytes`, `max_sse_line_bytes`); error bodies are read up to
//! 64 KiB. JSON nesting is bounded by serde_json's recursion limit. Unknown fields, event types
//! and content blocks are ignored; missing fields take defaults; invalid UTF-8 is replaced.
//! Tool-call arguments that are not valid JSON are kept as a string, never an error.
//!
//! # Features
//!
//! None: both adapters are always compiled; they share one HTTP client stack.
//!
//! # Tracing
//!
//! Each request records the API's host and port (`server.address`, `server.port`) on the
//! current span when that span declares them, as the `chat` span of `nao-agent` does (see
//! [`nao_core::telemetry`]): never the path, the query string, a header or the key. Retries are
//! `WARN` events naming the provider, the attempt, the delay and the classified error (keys
//! redacted).
//!
//! # TLS and proxies
//!
//! HTTPS uses rustls with the *ring* crypto provider, installed as the process default when
//! the first adapter is built unless the host installed one before; certificates are checked
//! against the platform's trust store. HTTP/1.1 only. The `HTTPS_PROXY`, `HTTP_PROXY`,
//! `ALL_PROXY` and `NO_PROXY` environment variables are honoured unless the builder's
//! `no_proxy()` is called.

#![forbid(unsafe_code)]

mod anthropic;
mod classify;
mod error;
mod openai;
mod retry;
mod sse;
mod streaming;
mod tool_calls;
mod transport;

pub use anthropic::{
    ANTHROPIC_BASE_URL, ANTHROPIC_VERSION, Anthropic, AnthropicBuilder, DEFAULT_MAX_TOKENS,
};
pub use error::ConfigError;
pub use openai::{MaxTokensField, OPENAI_BASE_URL, OpenAiCompatible, OpenAiCompatibleBuilder};
pub use retry::RetryPolicy;
