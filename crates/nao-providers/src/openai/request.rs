//! `CompletionRequest` → Chat Completions request JSON.

use nao_core::{CompletionRequest, Message, ToolChoice};
use serde_json::{Map, Value, json};

use crate::tool_calls::arguments_text;

/// Which field carries the output token limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum MaxTokensField {
    /// `max_tokens`: understood by nearly every compatible server.
    MaxTokens,
    /// `max_completion_tokens`: what OpenAI's current models (reasoning ones) require.
    MaxCompletionTokens,
}

/// The request body.
pub(crate) fn body(
    model: &str,
    request: &CompletionRequest,
    max_tokens_field: MaxTokensField,
    stream: bool,
) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), Value::String(model.to_owned()));
    body.insert(
        "messages".into(),
        Value::Array(request.messages.iter().filter_map(message).collect()),
    );
    if !request.tools.is_empty() {
        let tools = request
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "type": "function",
                    "function": {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": tool.parameters,
                    }
                })
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        body.insert("tool_choice".into(), tool_choice(&request.tool_choice));
    }
    if let Some(max) = request.max_output_tokens {
        let field = match max_tokens_field {
            MaxTokensField::MaxTokens => "max_tokens",
            MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
        };
        body.insert(field.into(), json!(max));
    }
    if let Some(temperature) = request.temperature {
        body.insert("temperature".into(), json!(temperature));
    }
    if stream {
        body.insert("stream".into(), Value::Bool(true));
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    Value::Object(body)
}

fn message(message: &Message) -> Option<Value> {
    Some(match message {
        Message::System { content } => json!({"role": "system", "content": content}),
        Message::User { content } => json!({"role": "user", "content": content}),
        Message::Assistant {
            content,
            tool_calls,
        } => {
            let mut out = Map::new();
            out.insert("role".into(), json!("assistant"));
            let text = if content.is_empty() && !tool_calls.is_empty() {
                Value::Null
            } else {
                Value::String(content.clone())
            };
            out.insert("content".into(), text);
            if !tool_calls.is_empty() {
                let calls = tool_calls
                    .iter()
                    .map(|call| {
                        json!({
                            "id": call.id,
                            "type": "function",
                            "function": {
                                "name": call.name,
                                "arguments": arguments_text(&call.arguments),
                            }
                        })
                    })
                    .collect();
                out.insert("tool_calls".into(), Value::Array(calls));
            }
            Value::Object(out)
        }
        Message::Tool {
            call_id, content, ..
        } => json!({"role": "tool", "tool_call_id": call_id, "content": content}),
        // A message kind added to nao-core later: skipped rather than sent wrongly.
        _ => return None,
    })
}

fn tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::None => json!("none"),
        ToolChoice::Required => json!("required"),
        ToolChoice::Tool(name) => json!({"type": "function", "function": {"name": name}}),
        _ => json!("auto"),
    }
}
