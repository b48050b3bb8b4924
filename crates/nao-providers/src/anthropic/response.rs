//! Messages API responses and stream events → `Completion` and `StreamEvent`s.

use std::collections::VecDeque;

use nao_core::{Completion, FinishReason, ProviderError, StreamEvent, ToolCall, Usage};
use serde::Deserialize;
use serde_json::Value;

use crate::classify;
use crate::sse::SseEvent;
use crate::streaming::EventParser;
use crate::tool_calls::ToolCallAssembler;

#[derive(Debug, Default, Deserialize)]
struct WireMessage {
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    content: Vec<Value>,
    #[serde(default)]
    stop_reason: Option<String>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Debug, Default, Clone, Copy, Deserialize)]
struct WireUsage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
}

impl WireUsage {
    /// Later reports (`message_delta`) override earlier ones field by field.
    fn merge(&mut self, newer: WireUsage) {
        self.input_tokens = newer.input_tokens.or(self.input_tokens);
        self.output_tokens = newer.output_tokens.or(self.output_tokens);
        self.cache_read_input_tokens = newer
            .cache_read_input_tokens
            .or(self.cache_read_input_tokens);
        self.cache_creation_input_tokens = newer
            .cache_creation_input_tokens
            .or(self.cache_creation_input_tokens);
    }

    /// Anthropic counts cached prompt tokens apart from `input_tokens`; `Usage` includes them.
    fn usage(&self) -> Usage {
        let cached = self.cache_read_input_tokens.unwrap_or(0);
        let written = self.cache_creation_input_tokens.unwrap_or(0);
        Usage {
            input_tokens: self.input_tokens.unwrap_or(0) + cached + written,
            output_tokens: self.output_tokens.unwrap_or(0),
            cached_input_tokens: cached,
        }
    }
}

fn finish_reason(reason: Option<&str>, has_tool_calls: bool) -> FinishReason {
    match reason {
        Some("tool_use") => FinishReason::ToolCalls,
        _ if has_tool_calls => FinishReason::ToolCalls,
        Some("end_turn" | "stop_sequence") | None => FinishReason::Stop,
        Some("max_tokens" | "model_context_window_exceeded") => FinishReason::Length,
        Some("refusal") => FinishReason::ContentFilter,
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

fn text_field<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// Parses a non-streaming response body.
pub(crate) fn parse_message(
    provider: &str,
    body: &[u8],
    fallback_model: &str,
) -> Result<Completion, ProviderError> {
    let value: Value =
        serde_json::from_slice(body).map_err(|e| classify::malformed(provider, e))?;
    if !value.is_object() {
        return Err(classify::malformed(
            provider,
            "the body is not a JSON object",
        ));
    }
    if text_field(&value, "type") == Some("error") {
        let error = value.get("error").unwrap_or(&Value::Null);
        return Err(classify::from_error_object(provider, error));
    }
    let message: WireMessage =
        serde_json::from_value(value).map_err(|e| classify::malformed(provider, e))?;
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    for block in &message.content {
        match text_field(block, "type") {
            Some("text") => text.push_str(text_field(block, "text").unwrap_or_default()),
            Some("tool_use") => {
                let id = text_field(block, "id")
                    .filter(|id| !id.is_empty())
                    .map_or_else(|| format!("call_{}", tool_calls.len()), str::to_owned);
                let name = text_field(block, "name").unwrap_or_default();
                let input = block
                    .get("input")
                    .cloned()
                    .unwrap_or_else(|| Value::Object(serde_json::Map::new()));
                tool_calls.push(ToolCall::new(id, name, input));
            }
            // Thinking and server-tool blocks are not part of the answer.
            _ => {}
        }
    }
    let usage = message.usage.unwrap_or_default().usage();
    let model = message.model.unwrap_or_else(|| fallback_model.to_owned());
    Ok(completion(
        text,
        tool_calls,
        message.stop_reason.as_deref(),
        usage,
        model,
    ))
}

/// Assembles a Messages stream.
#[derive(Debug)]
pub(crate) struct EventStreamParser {
    provider: &'static str,
    model: String,
    content: String,
    tools: ToolCallAssembler,
    stop_reason: Option<String>,
    usage: WireUsage,
}

impl EventStreamParser {
    pub(crate) fn new(provider: &'static str, model: &str) -> Self {
        EventStreamParser {
            provider,
            model: model.to_owned(),
            content: String::new(),
            tools: ToolCallAssembler::default(),
            stop_reason: None,
            usage: WireUsage::default(),
        }
    }

    fn done(&mut self, out: &mut VecDeque<StreamEvent>) {
        let usage = self.usage.usage();
        out.push_back(StreamEvent::Usage { usage });
        let completion = completion(
            std::mem::take(&mut self.content),
            self.tools.finish(),
            self.stop_reason.as_deref(),
            usage,
            std::mem::take(&mut self.model),
        );
        out.push_back(StreamEvent::Done { completion });
    }

    fn usage_of(value: Option<&Value>) -> Option<WireUsage> {
        value.and_then(|u| serde_json::from_value(u.clone()).ok())
    }
}

impl EventParser for EventStreamParser {
    fn on_event(
        &mut self,
        event: SseEvent,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<bool, ProviderError> {
        let data: Value =
            serde_json::from_str(&event.data).map_err(|e| classify::malformed(self.provider, e))?;
        // The `type` field repeats the event name; it is the one to trust when they differ.
        let kind = text_field(&data, "type").unwrap_or(event.event.as_str());
        let index = data.get("index").and_then(Value::as_u64).unwrap_or(0);
        match kind {
            "message_start" => {
                let message = data.get("message").unwrap_or(&Value::Null);
                if let Some(model) = text_field(message, "model") {
                    model.clone_into(&mut self.model);
                }
                if let Some(usage) = Self::usage_of(message.get("usage")) {
                    self.usage.merge(usage);
                }
            }
            "content_block_start" => {
                let block = data.get("content_block").unwrap_or(&Value::Null);
                match text_field(block, "type") {
                    Some("tool_use") => {
                        let id = text_field(block, "id");
                        let name = text_field(block, "name");
                        self.tools.update(index, id, name, None, out);
                    }
                    Some("text") => {
                        let text = text_field(block, "text").unwrap_or_default();
                        if !text.is_empty() {
                            self.content.push_str(text);
                            out.push_back(StreamEvent::TextDelta {
                                text: text.to_owned(),
                            });
                        }
                    }
                    _ => {}
                }
            }
            "content_block_delta" => {
                let delta = data.get("delta").unwrap_or(&Value::Null);
                match text_field(delta, "type") {
                    Some("text_delta") => {
                        let text = text_field(delta, "text").unwrap_or_default();
                        if !text.is_empty() {
                            self.content.push_str(text);
                            out.push_back(StreamEvent::TextDelta {
                                text: text.to_owned(),
                            });
                        }
                    }
                    Some("input_json_delta") => {
                        let piece = text_field(delta, "partial_json");
                        self.tools.update(index, None, None, piece, out);
                    }
                    // Thinking and signature deltas are not part of the answer.
                    _ => {}
                }
            }
            "message_delta" => {
                let delta = data.get("delta").unwrap_or(&Value::Null);
                if let Some(reason) = text_field(delta, "stop_reason") {
                    self.stop_reason = Some(reason.to_owned());
                }
                if let Some(usage) = Self::usage_of(data.get("usage")) {
                    self.usage.merge(usage);
                }
            }
            "message_stop" => {
                self.done(out);
                return Ok(true);
            }
            "error" => {
                let error = data.get("error").unwrap_or(&Value::Null);
                return Err(classify::from_error_object(self.provider, error));
            }
            // `ping`, `content_block_stop` and event types added later.
            _ => {}
        }
        Ok(false)
    }

    fn on_end(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError> {
        if self.stop_reason.is_some() {
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
        for body in [&b""[..], b"null", b"[]", b"{\"content\": 3}"] {
            assert!(parse_message("anthropic", body, "m").is_err(), "{body:?}");
        }
    }

    /// Every prefix and many byte flips of the recorded bodies: errors, never panics.
    #[test]
    fn truncated_and_mutated_bodies_never_panic() {
        crate::streaming::robustness::damaged_inputs_never_panic(
            |body| {
                let _ = parse_message("anthropic", body, "m");
            },
            || EventStreamParser::new("anthropic", "m"),
            include_bytes!("../../tests/fixtures/anthropic/message_tool_use.json"),
            include_bytes!("../../tests/fixtures/anthropic/stream_tool_use.sse"),
        );
    }

    #[test]
    fn cached_tokens_count_as_input() {
        let body = br#"{"content":[],"stop_reason":"end_turn","usage":
            {"input_tokens":10,"output_tokens":2,"cache_read_input_tokens":90}}"#;
        let completion = parse_message("anthropic", body, "m").expect("parses");
        assert_eq!(completion.usage.input_tokens, 100);
        assert_eq!(completion.usage.cached_input_tokens, 90);
    }
}
