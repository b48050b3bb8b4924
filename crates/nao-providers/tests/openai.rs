//! The OpenAI-compatible adapter against recorded responses served locally.

#![allow(clippy::unwrap_used)]

mod support;

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use nao_core::{
    CompletionRequest, FinishReason, Message, ModelProvider, ProviderError, StreamEvent, ToolCall,
    ToolChoice,
};
use nao_providers::{MaxTokensField, OpenAiCompatible, OpenAiCompatibleBuilder};
use serde_json::{Value, json};
use support::requests::{question, stream_all, tools};
use support::{Reply, TestServer, fixture};

const KEY: &str = "sk-test-0123456789abcdef";

fn builder(server: &TestServer) -> OpenAiCompatibleBuilder {
    OpenAiCompatible::builder("gpt-4.1")
        .base_url(server.url("/v1"))
        .api_key(KEY)
        .backoff(Duration::from_millis(1), Duration::from_millis(5))
        .no_proxy()
}

fn provider(server: &TestServer) -> OpenAiCompatible {
    builder(server).build().unwrap()
}

#[tokio::test]
async fn plain_text_completion() {
    let server = TestServer::start(vec![Reply::fixture(200, "openai/chat_text.json")]).await;
    let answer = provider(&server).complete(&question()).await.unwrap();
    assert_eq!(
        answer.content,
        "The `orders` table has 1,204 rows; 87 of them were placed in March 2025."
    );
    assert!(answer.tool_calls.is_empty());
    assert_eq!(answer.finish_reason, FinishReason::Stop);
    assert_eq!(answer.model, "gpt-4.1-2025-04-14");
    assert_eq!(answer.usage.input_tokens, 1342);
    assert_eq!(answer.usage.output_tokens, 24);
    assert_eq!(answer.usage.cached_input_tokens, 1024);

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let sent = &requests[0];
    assert_eq!(sent.method, "POST");
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(
        sent.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(sent.header("content-type"), Some("application/json"));
    assert_eq!(
        sent.body,
        json!({
            "model": "gpt-4.1",
            "messages": [
                {"role": "system", "content": "You answer questions about the shop database."},
                {"role": "user", "content": "How many orders are there?"}
            ]
        })
    );
}

#[tokio::test]
async fn no_key_sends_no_authorization() {
    let server = TestServer::start(vec![Reply::fixture(200, "openai/chat_text.json")]).await;
    let ollama = OpenAiCompatible::builder("qwen3:8b")
        .base_url(server.url("/v1/"))
        .header("X-Title", "nao tests")
        .no_proxy()
        .build()
        .unwrap();
    ollama.complete(&question()).await.unwrap();
    let sent = &server.requests()[0];
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(sent.header("authorization"), None);
    assert_eq!(sent.header("x-title"), Some("nao tests"));
}

#[tokio::test]
async fn parallel_tool_calls() {
    let server = TestServer::start(vec![Reply::fixture(200, "openai/chat_tool_calls.json")]).await;
    let mut request = question();
    request.tools = tools();
    let answer = provider(&server).complete(&request).await.unwrap();
    assert_eq!(answer.content, "");
    assert_eq!(answer.finish_reason, FinishReason::ToolCalls);
    assert_eq!(
        answer.tool_calls,
        vec![
            ToolCall::new(
                "call_7dUMbXkb0yVAOlYbEgh4MvMa",
                "describe_table",
                json!({"table": "orders"})
            ),
            ToolCall::new(
                "call_Y2eW0WgC1mJx9DxPZ3lQ6r8s",
                "execute_sql",
                json!({"sql": "SELECT count(*) FROM customers", "database": "shop"})
            ),
        ]
    );
}

#[tokio::test]
async fn invalid_arguments_json_is_kept_as_a_string() {
    let server = TestServer::start(vec![Reply::fixture(
        200,
        "openai/chat_invalid_arguments.json",
    )])
    .await;
    let answer = provider(&server).complete(&question()).await.unwrap();
    assert_eq!(answer.tool_calls.len(), 1);
    assert_eq!(
        answer.tool_calls[0].arguments,
        Value::String(r#"{"sql": "SELECT * FROM orders WHERE note = 'it's late'", "#.into())
    );
}

#[tokio::test]
async fn request_shapes() {
    let server = TestServer::start(vec![
        Reply::fixture(200, "openai/chat_text.json"),
        Reply::fixture(200, "openai/chat_text.json"),
        Reply::fixture(200, "openai/chat_text.json"),
    ])
    .await;
    let mut request = CompletionRequest::new(
        vec![
            Message::system("Be brief."),
            Message::user("Count orders and customers."),
            Message::Assistant {
                content: String::new(),
                tool_calls: vec![
                    ToolCall::new("call_1", "execute_sql", json!({"sql": "SELECT 1"})),
                    ToolCall::new("call_2", "execute_sql", Value::String("{not json".into())),
                ],
            },
            Message::Tool {
                call_id: "call_1".into(),
                name: "execute_sql".into(),
                content: "| 1 |".into(),
                is_error: false,
            },
            Message::Tool {
                call_id: "call_2".into(),
                name: "execute_sql".into(),
                content: "invalid arguments".into(),
                is_error: true,
            },
        ],
        &[],
    );
    request.tools = tools();
    request.tool_choice = ToolChoice::Tool("execute_sql".into());
    request.max_output_tokens = Some(100);
    request.temperature = Some(0.5);
    let provider = provider(&server);
    provider.complete(&request).await.unwrap();

    let body = &server.requests()[0].body;
    assert_eq!(
        body["messages"],
        json!([
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Count orders and customers."},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "execute_sql", "arguments": "{\"sql\":\"SELECT 1\"}"}},
                {"id": "call_2", "type": "function",
                 "function": {"name": "execute_sql", "arguments": "{not json"}}
            ]},
            {"role": "tool", "tool_call_id": "call_1", "content": "| 1 |"},
            {"role": "tool", "tool_call_id": "call_2", "content": "invalid arguments"}
        ])
    );
    assert_eq!(
        body["tools"],
        json!([{"type": "function", "function": {
            "name": "execute_sql",
            "description": "Runs one read-only SQL query.",
            "parameters": {"type": "object", "properties": {"sql": {"type": "string"}},
                           "required": ["sql"]}
        }}])
    );
    assert_eq!(
        body["tool_choice"],
        json!({"type": "function", "function": {"name": "execute_sql"}})
    );
    // Not OpenAI's own URL: the widely understood field.
    assert_eq!(body["max_tokens"], json!(100));
    assert!(body.get("max_completion_tokens").is_none());
    assert_eq!(body["temperature"], json!(0.5));
    assert!(body.get("stream").is_none());

    request.tool_choice = ToolChoice::Required;
    provider.complete(&request).await.unwrap();
    assert_eq!(server.requests()[1].body["tool_choice"], json!("required"));

    request.tool_choice = ToolChoice::None;
    let reasoning = builder(&server)
        .max_tokens_field(MaxTokensField::MaxCompletionTokens)
        .build()
        .unwrap();
    reasoning.complete(&request).await.unwrap();
    let body = &server.requests()[2].body;
    assert_eq!(body["tool_choice"], json!("none"));
    assert_eq!(body["max_completion_tokens"], json!(100));
    assert!(body.get("max_tokens").is_none());
}

#[tokio::test]
async fn streaming_text() {
    let server = TestServer::start(vec![Reply::sse_fixture("openai/stream_text.sse")]).await;
    let (events, answer) = stream_all(&provider(&server), &question()).await;
    let answer = answer.unwrap();
    let deltas: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, ["There are", " 1,204", " orders."]);
    assert_eq!(answer.content, "There are 1,204 orders.");
    assert_eq!(answer.finish_reason, FinishReason::Stop);
    assert_eq!(answer.usage.input_tokens, 1342);
    assert_eq!(answer.usage.output_tokens, 5);
    assert_eq!(answer.usage.cached_input_tokens, 1280);
    assert!(matches!(events.last(), Some(StreamEvent::Done { .. })));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, StreamEvent::Usage { usage } if usage.output_tokens == 5))
    );

    let sent = &server.requests()[0];
    assert_eq!(sent.body["stream"], json!(true));
    assert_eq!(sent.body["stream_options"], json!({"include_usage": true}));
    assert_eq!(sent.header("accept"), Some("text/event-stream"));
}

#[tokio::test]
async fn streaming_tool_calls_are_assembled_from_deltas() {
    let server = TestServer::start(vec![Reply::sse_fixture("openai/stream_tool_calls.sse")]).await;
    let mut request = question();
    request.tools = tools();
    let (events, answer) = stream_all(&provider(&server), &request).await;
    let answer = answer.unwrap();
    assert_eq!(answer.finish_reason, FinishReason::ToolCalls);
    assert_eq!(
        answer.tool_calls,
        vec![
            ToolCall::new(
                "call_3hQyZ7fLkXr0m1BvN2sTq8Wd",
                "describe_table",
                json!({"table": "orders"})
            ),
            ToolCall::new(
                "call_Mv8pRj2cTn5wXy4Lq0aBd7Ke",
                "execute_sql",
                json!({"sql": "SELECT count(*) FROM customers"})
            ),
        ]
    );
    let starts: Vec<(usize, &str)> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallStart { index, name, .. } => Some((*index, name.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(starts, [(0, "describe_table"), (1, "execute_sql")]);
    let second: String = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallDelta {
                index: 1,
                arguments,
            } => Some(arguments.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(second, r#"{"sql": "SELECT count(*) FROM customers"}"#);
    assert_eq!(answer.usage.output_tokens, 58);
}

#[tokio::test]
async fn stream_cut_short_is_transient() {
    let text = fixture("openai/stream_text.sse");
    let cut = text
        .split("data: {")
        .take(3)
        .collect::<Vec<_>>()
        .join("data: {");
    let server = TestServer::start(vec![Reply::sse(cut)]).await;
    let (events, answer) = stream_all(&provider(&server), &question()).await;
    assert!(
        events
            .iter()
            .any(|e| matches!(e, StreamEvent::TextDelta { .. }))
    );
    let error = answer.unwrap_err();
    assert!(
        matches!(error, ProviderError::Transient { .. }),
        "{error:?}"
    );
    assert_eq!(server.count(), 1);
}

#[tokio::test]
async fn streaming_idle_timeout() {
    let text = fixture("openai/stream_text.sse");
    let start: String = text.split("\n\n").take(2).collect::<Vec<_>>().join("\n\n") + "\n\n";
    let server =
        TestServer::start(vec![Reply::sse(start).then_hang(Duration::from_secs(10))]).await;
    let provider = builder(&server)
        .stream_idle_timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    let mut stream = provider.stream(&question()).await.unwrap();
    let mut saw_text = false;
    let error = loop {
        match stream.next().await {
            Some(Ok(StreamEvent::TextDelta { .. })) => saw_text = true,
            Some(Ok(_)) => {}
            Some(Err(error)) => break error,
            None => panic!("the stream ended without an error"),
        }
    };
    assert!(saw_text);
    assert!(
        matches!(error, ProviderError::Transient { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("timed out"), "{error}");
    assert!(stream.next().await.is_none());
    // Never retried once the stream began.
    assert_eq!(server.count(), 1);
}

#[tokio::test]
async fn request_timeout_is_transient() {
    let server = TestServer::start(vec![
        Reply::json(200, "{\"choices\":").then_hang(Duration::from_secs(10)),
    ])
    .await;
    let provider = builder(&server)
        .timeout(Duration::from_millis(200))
        .max_retries(0)
        .build()
        .unwrap();
    let error = provider.complete(&question()).await.unwrap_err();
    assert!(
        matches!(error, ProviderError::Transient { .. }),
        "{error:?}"
    );
}

#[tokio::test]
async fn error_classes() {
    let server = TestServer::start(vec![
        Reply::fixture(400, "openai/error_context_length.json"),
        Reply::fixture(400, "openai/error_invalid_request.json"),
        Reply::fixture(401, "openai/error_auth.json"),
        Reply::fixture(429, "openai/error_rate_limit.json").header("retry-after-ms", "1680"),
        Reply::fixture(500, "openai/error_server.json"),
        Reply::json(418, "I'm a teapot"),
    ])
    .await;
    let provider = builder(&server).max_retries(0).build().unwrap();
    let request = question();

    let error = provider.complete(&request).await.unwrap_err();
    match &error {
        ProviderError::ContextLength { provider, message } => {
            assert_eq!(provider, "openai");
            assert!(message.starts_with("This model's maximum context length is 128000"));
        }
        other => panic!("{other:?}"),
    }
    assert!(!error.is_retryable());

    let error = provider.complete(&request).await.unwrap_err();
    assert!(
        matches!(error, ProviderError::InvalidRequest { ref message, .. }
        if message.contains("max_completion_tokens")),
        "{error:?}"
    );

    let error = provider.complete(&request).await.unwrap_err();
    assert!(
        matches!(error, ProviderError::Auth { ref message, .. }
        if message.starts_with("Incorrect API key provided")),
        "{error:?}"
    );

    let error = provider.complete(&request).await.unwrap_err();
    assert!(
        matches!(error, ProviderError::RateLimited { .. }),
        "{error:?}"
    );
    assert_eq!(error.retry_after(), Some(Duration::from_millis(1680)));

    let error = provider.complete(&request).await.unwrap_err();
    assert!(
        matches!(error, ProviderError::Transient { status: Some(500), ref message, .. }
        if message.starts_with("The server had an error")),
        "{error:?}"
    );

    let error = provider.complete(&request).await.unwrap_err();
    assert!(
        matches!(error, ProviderError::Permanent { ref message, .. }
        if message.contains("418") && message.contains("teapot")),
        "{error:?}"
    );
    assert_eq!(server.count(), 6);
}

#[tokio::test]
async fn retry_then_success_on_503() {
    let server = TestServer::start(vec![
        Reply::json(
            503,
            "upstream connect error or disconnect/reset before headers",
        ),
        Reply::fixture(500, "openai/error_server.json"),
        Reply::fixture(200, "openai/chat_text.json"),
    ])
    .await;
    let answer = provider(&server).complete(&question()).await.unwrap();
    assert_eq!(answer.finish_reason, FinishReason::Stop);
    assert_eq!(server.count(), 3);
}

#[tokio::test]
async fn retries_are_bounded() {
    let server = TestServer::start(vec![
        Reply::json(503, "busy"),
        Reply::json(503, "busy"),
        Reply::json(503, "still busy"),
        Reply::fixture(200, "openai/chat_text.json"),
    ])
    .await;
    let error = provider(&server).complete(&question()).await.unwrap_err();
    assert!(
        matches!(error, ProviderError::Transient { status: Some(503), ref message, .. }
        if message == "still busy"),
        "{error:?}"
    );
    assert_eq!(server.count(), 3);
}

#[tokio::test]
async fn streams_retry_before_they_begin() {
    let server = TestServer::start(vec![
        Reply::json(503, "busy"),
        Reply::sse_fixture("openai/stream_text.sse"),
    ])
    .await;
    let (_, answer) = stream_all(&provider(&server), &question()).await;
    assert_eq!(answer.unwrap().content, "There are 1,204 orders.");
    assert_eq!(server.count(), 2);
}

#[tokio::test]
async fn rate_limit_honours_retry_after() {
    let server = TestServer::start(vec![
        Reply::fixture(429, "openai/error_rate_limit.json").header("retry-after-ms", "60"),
        Reply::fixture(200, "openai/chat_text.json"),
    ])
    .await;
    // A backoff far longer than the test: only `retry-after` can explain a quick retry.
    let provider = builder(&server)
        .backoff(Duration::from_secs(60), Duration::from_secs(60))
        .build()
        .unwrap();
    let started = Instant::now();
    provider.complete(&question()).await.unwrap();
    assert!(started.elapsed() >= Duration::from_millis(60));
    assert_eq!(server.count(), 2);
}

#[tokio::test]
async fn retry_after_beyond_the_cap_is_returned() {
    let server = TestServer::start(vec![
        Reply::fixture(429, "openai/error_rate_limit.json").header("retry-after", "3600"),
        Reply::fixture(200, "openai/chat_text.json"),
    ])
    .await;
    let error = provider(&server).complete(&question()).await.unwrap_err();
    assert_eq!(error.retry_after(), Some(Duration::from_secs(3600)));
    assert_eq!(server.count(), 1);
}

#[tokio::test]
async fn no_retry_on_400() {
    let server = TestServer::start(vec![
        Reply::fixture(400, "openai/error_invalid_request.json"),
        Reply::fixture(200, "openai/chat_text.json"),
    ])
    .await;
    let error = provider(&server).complete(&question()).await.unwrap_err();
    assert!(matches!(error, ProviderError::InvalidRequest { .. }));
    assert_eq!(server.count(), 1);
}

#[tokio::test]
async fn connection_refused_is_transient() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    let provider = OpenAiCompatible::builder("m")
        .base_url(format!("http://{address}/v1"))
        .max_retries(0)
        .no_proxy()
        .build()
        .unwrap();
    let error = provider.complete(&question()).await.unwrap_err();
    assert!(
        matches!(error, ProviderError::Transient { status: None, .. }),
        "{error:?}"
    );
}

#[tokio::test]
async fn malformed_bodies_are_errors() {
    let server = TestServer::start(vec![
        Reply::json(200, "<html>gateway</html>"),
        Reply::json(
            200,
            r#"{"error": {"message": "upstream overloaded", "code": 503}}"#,
        ),
        Reply::sse("data: {not json\n\n"),
    ])
    .await;
    let provider = provider(&server);
    let error = provider.complete(&question()).await.unwrap_err();
    assert!(
        matches!(error, ProviderError::Permanent { .. }),
        "{error:?}"
    );
    let error = provider.complete(&question()).await.unwrap_err();
    assert!(
        matches!(error, ProviderError::Transient { .. }),
        "{error:?}"
    );
    let (_, answer) = stream_all(&provider, &question()).await;
    assert!(
        matches!(answer, Err(ProviderError::Permanent { .. })),
        "{answer:?}"
    );
}

#[tokio::test]
async fn oversized_bodies_are_refused() {
    let server = TestServer::start(vec![Reply::fixture(200, "openai/chat_text.json")]).await;
    let provider = builder(&server).max_response_bytes(100).build().unwrap();
    let error = provider.complete(&question()).await.unwrap_err();
    assert!(
        error.to_string().contains("larger than 100 bytes"),
        "{error}"
    );
}

#[tokio::test]
async fn the_key_stays_secret() {
    let body = format!(r#"{{"error": {{"message": "Incorrect API key provided: {KEY}."}}}}"#);
    let server = TestServer::start(vec![Reply::json(401, body)]).await;
    let builder = builder(&server);
    assert!(!format!("{builder:?}").contains(KEY));
    let provider = builder.build().unwrap();
    let debug = format!("{provider:?}");
    assert!(!debug.contains(KEY), "{debug}");
    assert!(debug.contains("redacted"), "{debug}");
    let error = provider.complete(&question()).await.unwrap_err();
    assert!(!format!("{error} {error:?}").contains(KEY), "{error:?}");
    assert!(error.to_string().contains("<redacted>"));
}

#[test]
fn invalid_configuration_is_refused() {
    assert!(
        OpenAiCompatible::builder("m")
            .base_url("localhost:1234")
            .build()
            .is_err()
    );
    assert!(
        OpenAiCompatible::builder("m")
            .header("bad header", "x")
            .build()
            .is_err()
    );
    let openai = OpenAiCompatible::builder("gpt-4.1").build().unwrap();
    assert_eq!(openai.base_url(), "https://api.openai.com/v1");
    assert_eq!(openai.name(), "openai");
    assert_eq!(openai.model(), "gpt-4.1");
}
