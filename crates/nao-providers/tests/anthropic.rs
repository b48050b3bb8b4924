//! The Anthropic adapter against recorded responses served locally.

#![allow(clippy::unwrap_used)]

mod support;

use std::time::Duration;

use nao_core::{
    CompletionRequest, FinishReason, Message, ModelProvider, ProviderError, StreamEvent, ToolCall,
    ToolChoice,
};
use nao_providers::{Anthropic, AnthropicBuilder};
use serde_json::json;
use support::requests::{question, stream_all, tools};
use support::{Reply, TestServer};

const KEY: &str = "sk-ant-api03-test-key-0123456789";

fn builder(server: &TestServer) -> AnthropicBuilder {
    Anthropic::builder("claude-sonnet-4-5")
        .base_url(server.url(""))
        .api_key(KEY)
        .backoff(Duration::from_millis(1), Duration::from_millis(5))
        .no_proxy()
}

fn provider(server: &TestServer) -> Anthropic {
    builder(server).build().unwrap()
}

#[tokio::test]
async fn plain_text_message() {
    let server = TestServer::start(vec![Reply::fixture(200, "anthropic/message_text.json")]).await;
    let answer = provider(&server).complete(&question()).await.unwrap();
    assert_eq!(
        answer.content,
        "The `orders` table has 1,204 rows; 87 of them were placed in March 2025."
    );
    assert_eq!(answer.finish_reason, FinishReason::Stop);
    assert_eq!(answer.model, "claude-sonnet-4-5-20250929");
    // Anthropic counts cache reads apart from `input_tokens`; `Usage` includes them.
    assert_eq!(answer.usage.input_tokens, 318 + 1024);
    assert_eq!(answer.usage.cached_input_tokens, 1024);
    assert_eq!(answer.usage.output_tokens, 27);

    let sent = &server.requests()[0];
    assert_eq!(sent.path, "/v1/messages");
    assert_eq!(sent.header("x-api-key"), Some(KEY));
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(sent.header("authorization"), None);
    assert_eq!(
        sent.body,
        json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 4096,
            "system": "You answer questions about the shop database.",
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "How many orders are there?"}
                ]}
            ]
        })
    );
}

#[tokio::test]
async fn tool_use_blocks() {
    let server =
        TestServer::start(vec![Reply::fixture(200, "anthropic/message_tool_use.json")]).await;
    let mut request = question();
    request.tools = tools();
    let answer = provider(&server).complete(&request).await.unwrap();
    assert_eq!(
        answer.content,
        "I'll look at the table and count the customers."
    );
    assert_eq!(answer.finish_reason, FinishReason::ToolCalls);
    assert_eq!(
        answer.tool_calls,
        vec![
            ToolCall::new(
                "toolu_01A09q90qw90lq917835lq9",
                "describe_table",
                json!({"table": "orders"})
            ),
            ToolCall::new(
                "toolu_01B7z2mKc8pW3nXv5rT9yQ4e",
                "execute_sql",
                json!({"sql": "SELECT count(*) FROM customers", "database": "shop"})
            ),
        ]
    );
}

#[tokio::test]
async fn request_shapes() {
    let replies = (0..4)
        .map(|_| Reply::fixture(200, "anthropic/message_text.json"))
        .collect();
    let server = TestServer::start(replies).await;
    let mut request = CompletionRequest::new(
        vec![
            Message::system("Be brief."),
            Message::user("Count orders and customers."),
            Message::system("Use SQL."),
            Message::Assistant {
                content: "Running both.".into(),
                tool_calls: vec![
                    ToolCall::new("toolu_1", "execute_sql", json!({"sql": "SELECT 1"})),
                    ToolCall::new("toolu_2", "execute_sql", json!("{broken")),
                ],
            },
            Message::Tool {
                call_id: "toolu_1".into(),
                name: "execute_sql".into(),
                content: "| 1 |".into(),
                is_error: false,
            },
            Message::Tool {
                call_id: "toolu_2".into(),
                name: "execute_sql".into(),
                content: "invalid arguments".into(),
                is_error: true,
            },
            Message::user("And then?"),
        ],
        &[],
    );
    request.tools = tools();
    request.tool_choice = ToolChoice::Required;
    request.max_output_tokens = Some(512);
    let provider = provider(&server);
    provider.complete(&request).await.unwrap();

    let body = &server.requests()[0].body;
    assert_eq!(body["system"], json!("Be brief.\n\nUse SQL."));
    assert_eq!(body["max_tokens"], json!(512));
    assert_eq!(
        body["messages"],
        json!([
            {"role": "user", "content": [
                {"type": "text", "text": "Count orders and customers."}
            ]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Running both."},
                {"type": "tool_use", "id": "toolu_1", "name": "execute_sql",
                 "input": {"sql": "SELECT 1"}},
                {"type": "tool_use", "id": "toolu_2", "name": "execute_sql", "input": {}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "| 1 |"},
                {"type": "tool_result", "tool_use_id": "toolu_2",
                 "content": "invalid arguments", "is_error": true},
                {"type": "text", "text": "And then?"}
            ]}
        ])
    );
    assert_eq!(
        body["tools"],
        json!([{
            "name": "execute_sql",
            "description": "Runs one read-only SQL query.",
            "input_schema": {
                "type": "object",
                "properties": {"sql": {"type": "string"}},
                "required": ["sql"]
            }
        }])
    );
    assert_eq!(body["tool_choice"], json!({"type": "any"}));

    for (choice, expected) in [
        (
            ToolChoice::Tool("execute_sql".into()),
            json!({"type": "tool", "name": "execute_sql"}),
        ),
        (ToolChoice::None, json!({"type": "none"})),
        (ToolChoice::Auto, json!({"type": "auto"})),
    ] {
        request.tool_choice = choice;
        provider.complete(&request).await.unwrap();
        assert_eq!(
            server.requests().last().unwrap().body["tool_choice"],
            expected
        );
    }
}

#[tokio::test]
async fn streaming_text() {
    let server = TestServer::start(vec![Reply::sse_fixture("anthropic/stream_text.sse")]).await;
    let (events, answer) = stream_all(&provider(&server), &question()).await;
    let answer = answer.unwrap();
    let deltas: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, ["There are", " 1,204 orders."]);
    assert_eq!(answer.content, "There are 1,204 orders.");
    assert_eq!(answer.finish_reason, FinishReason::Stop);
    assert_eq!(answer.usage.input_tokens, 472);
    assert_eq!(answer.usage.output_tokens, 9);
    let sent = &server.requests()[0];
    assert_eq!(sent.body["stream"], json!(true));
}

#[tokio::test]
async fn streaming_tool_use_is_assembled_from_json_deltas() {
    let server = TestServer::start(vec![Reply::sse_fixture("anthropic/stream_tool_use.sse")]).await;
    let mut request = question();
    request.tools = tools();
    let (events, answer) = stream_all(&provider(&server), &request).await;
    let answer = answer.unwrap();
    assert_eq!(answer.content, "Let me count the customers.");
    assert_eq!(answer.finish_reason, FinishReason::ToolCalls);
    assert_eq!(
        answer.tool_calls,
        vec![
            ToolCall::new(
                "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
                "execute_sql",
                json!({"sql": "SELECT count(*) FROM customers", "database": "shop"})
            ),
            ToolCall::new("toolu_01VnQ8r4sKp2XcY7bLm3Wd9A", "list_tables", json!({})),
        ]
    );
    let starts: Vec<(usize, &str)> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallStart { index, id, .. } => Some((*index, id.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(
        starts,
        [
            (0, "toolu_01T1x1fJ34qAmk2tNTrN7Up6"),
            (1, "toolu_01VnQ8r4sKp2XcY7bLm3Wd9A")
        ]
    );
    assert_eq!(answer.usage.input_tokens, 472 + 256);
    assert_eq!(answer.usage.cached_input_tokens, 256);
    assert_eq!(answer.usage.output_tokens, 89);
}

#[tokio::test]
async fn error_event_in_a_stream() {
    let server = TestServer::start(vec![
        Reply::sse_fixture("anthropic/stream_overloaded.sse"),
        Reply::fixture(200, "anthropic/message_text.json"),
    ])
    .await;
    let (events, answer) = stream_all(&provider(&server), &question()).await;
    assert!(matches!(&events[..], [StreamEvent::TextDelta { text }] if text == "There"));
    let error = answer.unwrap_err();
    assert!(
        matches!(error, ProviderError::Transient { ref message, .. }
        if message == "Overloaded"),
        "{error:?}"
    );
    // The stream had begun: not retried.
    assert_eq!(server.count(), 1);
}

#[tokio::test]
async fn error_classes() {
    let server = TestServer::start(vec![
        Reply::fixture(400, "anthropic/error_prompt_too_long.json"),
        Reply::fixture(401, "anthropic/error_auth.json"),
        Reply::fixture(429, "anthropic/error_rate_limit.json").header("retry-after", "17"),
        Reply::fixture(529, "anthropic/error_overloaded.json"),
        Reply::fixture(500, "anthropic/error_api.json"),
    ])
    .await;
    let provider = builder(&server).max_retries(0).build().unwrap();
    let request = question();

    let error = provider.complete(&request).await.unwrap_err();
    assert!(
        matches!(error, ProviderError::ContextLength { ref message, .. }
        if message == "prompt is too long: 208424 tokens > 200000 maximum"),
        "{error:?}"
    );

    let error = provider.complete(&request).await.unwrap_err();
    assert!(
        matches!(error, ProviderError::Auth { ref message, .. }
        if message == "invalid x-api-key"),
        "{error:?}"
    );

    let error = provider.complete(&request).await.unwrap_err();
    assert!(
        matches!(error, ProviderError::RateLimited { .. }),
        "{error:?}"
    );
    assert_eq!(error.retry_after(), Some(Duration::from_secs(17)));

    let error = provider.complete(&request).await.unwrap_err();
    assert!(
        matches!(error, ProviderError::Transient { status: Some(529), ref message, .. }
        if message == "Overloaded"),
        "{error:?}"
    );

    let error = provider.complete(&request).await.unwrap_err();
    assert!(
        matches!(
            error,
            ProviderError::Transient {
                status: Some(500),
                ..
            }
        ),
        "{error:?}"
    );
}

#[tokio::test]
async fn retry_then_success_on_529() {
    let server = TestServer::start(vec![
        Reply::fixture(529, "anthropic/error_overloaded.json"),
        Reply::fixture(429, "anthropic/error_rate_limit.json").header("retry-after", "0"),
        Reply::sse_fixture("anthropic/stream_text.sse"),
    ])
    .await;
    let (_, answer) = stream_all(&provider(&server), &question()).await;
    assert_eq!(answer.unwrap().content, "There are 1,204 orders.");
    assert_eq!(server.count(), 3);
}

#[tokio::test]
async fn no_retry_on_400() {
    let server = TestServer::start(vec![
        Reply::fixture(400, "anthropic/error_prompt_too_long.json"),
        Reply::fixture(200, "anthropic/message_text.json"),
    ])
    .await;
    let error = provider(&server).complete(&question()).await.unwrap_err();
    assert!(matches!(error, ProviderError::ContextLength { .. }));
    assert_eq!(server.count(), 1);
}

#[tokio::test]
async fn streaming_idle_timeout() {
    let head = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n";
    let server = TestServer::start(vec![Reply::sse(head).then_hang(Duration::from_secs(10))]).await;
    let provider = builder(&server)
        .stream_idle_timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    let (_, answer) = stream_all(&provider, &question()).await;
    let error = answer.unwrap_err();
    assert!(
        matches!(error, ProviderError::Transient { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("timed out"), "{error}");
    assert_eq!(server.count(), 1);
}

#[tokio::test]
async fn base_url_with_version_and_the_key_stays_secret() {
    let server = TestServer::start(vec![Reply::fixture(401, "anthropic/error_auth.json")]).await;
    let provider = builder(&server)
        .base_url(server.url("/v1/"))
        .build()
        .unwrap();
    let debug = format!("{provider:?}");
    assert!(!debug.contains(KEY), "{debug}");
    let error = provider.complete(&question()).await.unwrap_err();
    assert!(!format!("{error:?}").contains(KEY));
    assert_eq!(server.requests()[0].path, "/v1/messages");
    assert_eq!(provider.name(), "anthropic");
    assert_eq!(provider.model(), "claude-sonnet-4-5");
}
