//! The requests both adapters' tests send, and reading a streamed answer whole.

use nao_core::provider::{ToolSpecLite, collect_stream};
use nao_core::{Completion, CompletionRequest, Message, ModelProvider, ProviderError, StreamEvent};
use serde_json::json;

/// A system prompt and one user question, without tools.
pub fn question() -> CompletionRequest {
    CompletionRequest::new(
        vec![
            Message::system("You answer questions about the shop database."),
            Message::user("How many orders are there?"),
        ],
        &[],
    )
}

/// One tool, `execute_sql(sql)`.
pub fn tools() -> Vec<ToolSpecLite> {
    vec![ToolSpecLite {
        name: "execute_sql".into(),
        description: "Runs one read-only SQL query.".into(),
        parameters: json!({
            "type": "object",
            "properties": {"sql": {"type": "string"}},
            "required": ["sql"]
        }),
    }]
}

/// Streams `request` through `provider`: every event, and the completion (or the error).
pub async fn stream_all(
    provider: &dyn ModelProvider,
    request: &CompletionRequest,
) -> (Vec<StreamEvent>, Result<Completion, ProviderError>) {
    let stream = provider
        .stream(request)
        .await
        .unwrap_or_else(|e| panic!("the stream did not start: {e}"));
    let mut events = Vec::new();
    let result = collect_stream(stream, provider.name(), |e| events.push(e.clone())).await;
    (events, result)
}
