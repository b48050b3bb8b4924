//! `CompletionRequest` → Messages API request JSON.

use nao_core::{CompletionRequest, Message, ToolChoice};
use serde_json::{Map, Value, json};

/// The request body.
pub(crate) fn body(
    model: &str,
    request: &CompletionRequest,
    default_max_tokens: u32,
    stream: bool,
) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    let max_tokens = request.max_output_tokens.unwrap_or(default_max_tokens);
    body.insert("max_tokens".into(), json!(max_tokens));
    let system: Vec<&str> = request
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::System { content } => Some(content.as_str()),
            _ => None,
        })
        .collect();
    if !system.is_empty() {
        body.insert("system".into(), json!(system.join("\n\n")));
    }
    body.insert("messages".into(), Value::Array(messages(&request.messages)));
    if !request.tools.is_empty() {
        let tools = request
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "name": tool.name,
                    "description": tool.description,
                    "input_schema": tool.parameters,
                })
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        body.insert("tool_choice".into(), tool_choice(&request.tool_choice));
    }
    if let Some(temperature) = request.temperature {
        body.insert("temperature".into(), json!(temperature));
    }
    if stream {
        body.insert("stream".into(), Value::Bool(true));
    }
    Value::Object(body)
}

/// The conversation as alternating turns of content blocks: tool results become `tool_result`
/// blocks of a user turn, and consecutive turns of one role are merged (so the results of
/// parallel calls share one user message).
fn messages(conversation: &[Message]) -> Vec<Value> {
    let mut turns: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for message in conversation {
        let (role, blocks) = match message {
            Message::System { .. } => continue,
            Message::User { content } => ("user", vec![text_block(content)]),
            Message::Assistant {
                content,
                tool_calls,
            } => {
                let mut blocks = Vec::new();
                if !content.is_empty() {
                    blocks.push(text_block(content));
                }
                for call in tool_calls {
                    blocks.push(json!({
                        "type": "tool_use",
                        "id": call.id,
                        "name": call.name,
                        "input": tool_input(&call.arguments),
                    }));
                }
                ("assistant", blocks)
            }
            Message::Tool {
                call_id,
                content,
                is_error,
                ..
            } => {
                let mut block = json!({
                    "type": "tool_result",
                    "tool_use_id": call_id,
                    "content": content,
                });
                if *is_error {
                    block["is_error"] = Value::Bool(true);
                }
                ("user", vec![block])
            }
            // A message kind added to nao-core later: skipped rather than sent wrongly.
            _ => continue,
        };
        // The API refuses empty content (an assistant turn with neither text nor calls).
        if blocks.is_empty() {
            continue;
        }
        match turns.last_mut() {
            Some((last, existing)) if *last == role => existing.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    }
    turns
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect()
}

fn text_block(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

/// `input` must be an object; arguments the model wrote as invalid JSON (kept as a string)
/// are sent back parsed when possible, else as an empty object.
fn tool_input(arguments: &Value) -> Value {
    match arguments {
        Value::Object(_) => arguments.clone(),
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(value @ Value::Object(_)) => value,
            _ => json!({}),
        },
        _ => json!({}),
    }
}

fn tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::None => json!({"type": "none"}),
        ToolChoice::Required => json!({"type": "any"}),
        ToolChoice::Tool(name) => json!({"type": "tool", "name": name}),
        _ => json!({"type": "auto"}),
    }
}
