//! Chat Completions responses and stream chunks → `Completion` and `StreamEvent`s.

use std::collections::VecDeque;

use nao_core::{Completion, FinishReason, ProviderError, StreamEvent, ToolCall, Usage};
use serde::Deserialize;
use serde_json::Value;

use crate::classify;
use crate::sse::SseEvent;
use crate::streaming::EventParser;
use crate::tool_calls::{ToolCallAssembler, parse_arguments};

#[derive(Debug, Deserialize)]
struct ChatCompletion {
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Debug, Deserialize)]
struct Choice {
    #[serde(default)]
    message: Option<ChoiceMessage>,
    #[serde(default)]
    delta: Option<ChoiceMessage>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct ChoiceMessage {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    refusal: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<WireToolCall>>,
}

#[derive(Debug, Deserialize)]
struct WireToolCall {
    #[serde(default)]
    index: Option<u64>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<WireFunction>,
}

#[derive(Debug, Deserialize)]
struct WireFunction {
    #[serde(default)]
    name: Option<String>,
    /// A JSON string by the spec; some servers send an object.
    #[serde(default)]
    arguments: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
    /// DeepSeek's name for cached prompt tokens.
    #[serde(default)]
    prompt_cache_hit_tokens: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

impl WireUsage {
    fn usage(&self) -> Usage {
        let cached = self
            .prompt_tokens_details
            .as_ref()
            .and_then(|d| d.cached_tokens)
            .or(self.prompt_cache_hit_tokens)
            .unwrap_or(0);
        Usage {
            input_tokens: self.prompt_tokens.unwrap_or(0),
            output_tokens: self.completion_tokens.unwrap_or(0),
            cached_input_tokens: cached,
        }
    }
}

/// Maps `finish_reason`; a stop with tool calls counts as a tool-call stop (some compatible
/// servers say `stop` there).
fn finish_reason(reason: Option<&str>, has_tool_calls: bool) -> FinishReason {
    match reason {
        Some("tool_calls" | "function_call") => FinishReason::ToolCalls,
        _ if has_tool_calls => FinishReason::ToolCalls,
        Some("stop") | None => FinishReason::Stop,
        Some("length") => FinishReason::Length,
        Some("content_filter") => FinishReason::ContentFilter,
        Some(other) => FinishReason::Other(other.to_owned()),
    }
}

fn completion(
    content: String,
    tool_calls: Vec<ToolCall>,
    reason: Option<&str>,
    usage: Usage,
    model: String,
) -> Completion {
    let finish = finish_reason(reason, !tool_calls.is_empty());
    let mut completion = Completion::new(content, tool_calls, finish);
    completion.usage = usage;
    completion.model = model;
    completion
}

/// Parses a non-streaming response body.
pub(crate) fn parse_completion(
    provider: &str,
    body: &[u8],
    fallback_model: &str,
) -> Result<Completion, ProviderError> {
    let response: ChatCompletion =
        serde_json::from_slice(body).map_err(|e| classify::malformed(provider, e))?;
    if let Some(error) = &response.error {
        return Err(classify::from_error_object(provider, error));
    }
    let Some(choice) = response.choices.into_iter().next() else {
        return Err(classify::malformed(provider, "no choices in the response"));
    };
    let message = choice.message.unwrap_or_default();
    let tool_calls = message
        .tool_calls
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(position, call)| {
            let function = call.function;
            let name = function
                .as_ref()
                .and_then(|f| f.name.clone())
                .unwrap_or_default();
            let arguments = match function.and_then(|f| f.arguments) {
                Some(Value::String(text)) => parse_arguments(&text),
                Some(Value::Null) | None => parse_arguments(""),
                Some(other) => other,
            };
            let id = call
                .id
                .filter(|id| !id.is_empty())
                .unwrap_or_else(|| format!("call_{position}"));
            ToolCall::new(id, name, arguments)
        })
        .collect();
    let content = message.content.or(message.refusal).unwrap_or_default();
    let usage = response.usage.map(|u| u.usage()).unwrap_or_default();
    let model = response.model.unwrap_or_else(|| fallback_model.to_owned());
    Ok(completion(
        content,
        tool_calls,
        choice.finish_reason.as_deref(),
        usage,
        model,
    ))
}

/// Assembles a `chat.completion.chunk` stream.
#[derive(Debug)]
pub(crate) struct ChunkParser {
    provider: &'static str,
    model: String,
    content: String,
    tools: ToolCallAssembler,
    finish_reason: Option<String>,
    usage: Option<Usage>,
}

impl ChunkParser {
    pub(crate) fn new(provider: &'static str, model: &str) -> Self {
        ChunkParser {
            provider,
            model: model.to_owned(),
            content: String::new(),
            tools: ToolCallAssembler::default(),
            finish_reason: None,
            usage: None,
        }
    }

    fn done(&mut self, out: &mut VecDeque<StreamEvent>) {
        let usage = self.usage.unwrap_or_default();
        out.push_back(StreamEvent::Usage { usage });
        let completion = completion(
            std::mem::take(&mut self.content),
            self.tools.finish(),
            self.finish_reason.as_deref(),
            usage,
            std::mem::take(&mut self.model),
        );
        out.push_back(StreamEvent::Done { completion });
    }
}

impl EventParser for ChunkParser {
    fn on_event(
        &mut self,
        event: SseEvent,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<bool, ProviderError> {
        let data = event.data.trim();
        if data == "[DONE]" {
            self.done(out);
            return Ok(true);
        }
        if data.is_empty() {
            return Ok(false);
        }
        let chunk: ChatCompletion =
            serde_json::from_str(data).map_err(|e| classify::malformed(self.provider, e))?;
        if let Some(error) = &chunk.error {
            return Err(classify::from_error_object(self.provider, error));
        }
        if let Some(model) = chunk.model.filter(|m| !m.is_empty()) {
            self.model = model;
        }
        if let Some(usage) = &chunk.usage {
            self.usage = Some(usage.usage());
        }
        // Only the first choice is followed: requests never ask for more than one.
        if let Some(choice) = chunk.choices.into_iter().next() {
            if let Some(delta) = choice.delta.or(choice.message) {
                if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
                    self.content.push_str(&text);
                    out.push_back(StreamEvent::TextDelta { text });
                }
                for (position, call) in delta.tool_calls.unwrap_or_default().into_iter().enumerate()
                {
                    let key = call.index.unwrap_or(position as u64);
                    let (name, arguments) = match call.function {
                        Some(function) => (function.name, function.arguments),
                        None => (None, None),
                    };
                    let arguments = match arguments {
                        Some(Value::String(text)) => Some(text),
                        Some(Value::Null) | None => None,
                        Some(other) => Some(other.to_string()),
                    };
                    self.tools.update(
                        key,
                        call.id.as_deref(),
                        name.as_deref(),
                        arguments.as_deref(),
                        out,
                    );
                }
            }
            if let Some(reason) = choice.finish_reason {
                self.finish_reason = Some(reason);
            }
        }
        Ok(false)
    }

    fn on_end(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError> {
        // Some servers close without `[DONE]`; a finish reason means the answer is whole.
        if self.finish_reason.is_some() {
            self.done(out);
            return Ok(());
        }
        Err(classify::cut_short(self.provider))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        for body in [
            &b""[..],
            b"null",
            b"[]",
            b"{\"choices\": 3}",
            b"{\"choices\": []}",
        ] {
            assert!(parse_completion("openai", body, "m").is_err());
        }
    }

    /// Every prefix and many byte flips of the recorded bodies: errors, never panics.
    #[test]
    fn truncated_and_mutated_bodies_never_panic() {
        crate::streaming::robustness::damaged_inputs_never_panic(
            |body| {
                let _ = parse_completion("openai", body, "m");
            },
            || ChunkParser::new("openai", "m"),
            include_bytes!("../../tests/fixtures/openai/chat_tool_calls.json"),
            include_bytes!("../../tests/fixtures/openai/stream_tool_calls.sse"),
        );
    }

    #[test]
    fn object_arguments_are_accepted() {
        let body = br#"{"choices":[{"message":{"tool_calls":[
            {"function":{"name":"f","arguments":{"a":1}}}]},"finish_reason":"stop"}]}"#;
        let completion = parse_completion("openai", body, "m").expect("parses");
        assert_eq!(
            completion.tool_calls[0].arguments,
            serde_json::json!({"a": 1})
        );
        assert_eq!(completion.tool_calls[0].id, "call_0");
        assert_eq!(completion.finish_reason, FinishReason::ToolCalls);
        assert_eq!(completion.model, "m");
    }
}
