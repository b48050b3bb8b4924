//! Tool calls assembled from streamed pieces, and model-written arguments parsed defensively.

use std::collections::{HashMap, VecDeque};

use nao_core::{StreamEvent, ToolCall};
use serde_json::Value;

/// Parses the arguments text a model wrote. Empty text is an empty object; text that is not
/// valid JSON is kept as a string, for the tool registry to report to the model.
pub(crate) fn parse_arguments(text: &str) -> Value {
    if text.trim().is_empty() {
        return Value::Object(serde_json::Map::new());
    }
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

/// The arguments as a provider receives them back: JSON text.
pub(crate) fn arguments_text(arguments: &Value) -> String {
    match arguments {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

#[derive(Debug, Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
    started: bool,
}

/// Collects tool calls whose id, name and arguments arrive in pieces, keyed by the provider's
/// index, and numbers them in order of appearance.
#[derive(Debug, Default)]
pub(crate) struct ToolCallAssembler {
    calls: Vec<PartialCall>,
    by_key: HashMap<u64, usize>,
}

impl ToolCallAssembler {
    /// Adds pieces of the call with key `key`, queueing the events they make.
    pub(crate) fn update(
        &mut self,
        key: u64,
        id: Option<&str>,
        name: Option<&str>,
        arguments: Option<&str>,
        out: &mut VecDeque<StreamEvent>,
    ) {
        let position = *self.by_key.entry(key).or_insert_with(|| {
            self.calls.push(PartialCall::default());
            self.calls.len() - 1
        });
        let call = &mut self.calls[position];
        if let Some(id) = id.filter(|id| !id.is_empty())
            && call.id.is_empty()
            && !call.started
        {
            id.clone_into(&mut call.id);
        }
        if let Some(name) = name.filter(|n| !n.is_empty())
            && call.name.is_empty()
        {
            name.clone_into(&mut call.name);
        }
        let piece = arguments.unwrap_or_default();
        if !call.started && !call.name.is_empty() {
            call.started = true;
            if call.id.is_empty() {
                call.id = format!("call_{position}");
            }
            out.push_back(StreamEvent::ToolCallStart {
                index: position,
                id: call.id.clone(),
                name: call.name.clone(),
            });
            if !call.arguments.is_empty() {
                out.push_back(StreamEvent::ToolCallDelta {
                    index: position,
                    arguments: call.arguments.clone(),
                });
            }
        }
        if !piece.is_empty() {
            call.arguments.push_str(piece);
            if call.started {
                out.push_back(StreamEvent::ToolCallDelta {
                    index: position,
                    arguments: piece.to_owned(),
                });
            }
        }
    }

    /// The calls, with their arguments parsed.
    pub(crate) fn finish(&mut self) -> Vec<ToolCall> {
        self.by_key.clear();
        std::mem::take(&mut self.calls)
            .into_iter()
            .enumerate()
            .map(|(position, call)| {
                let id = if call.id.is_empty() {
                    format!("call_{position}")
                } else {
                    call.id
                };
                ToolCall::new(id, call.name, parse_arguments(&call.arguments))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_are_parsed_or_kept() {
        assert_eq!(parse_arguments(r#"{"a": 1}"#), json!({"a": 1}));
        assert_eq!(parse_arguments("  "), json!({}));
        assert_eq!(parse_arguments(r#"{"a": "#), json!(r#"{"a": "#));
        let deep = "[".repeat(10_000);
        assert_eq!(parse_arguments(&deep), Value::String(deep.clone()));
    }

    #[test]
    fn pieces_assemble_per_key() {
        let mut assembler = ToolCallAssembler::default();
        let mut out = VecDeque::new();
        assembler.update(0, Some("a"), Some("f"), Some(""), &mut out);
        assembler.update(1, Some("b"), Some("g"), Some("{\"x\""), &mut out);
        assembler.update(0, None, None, Some("{}"), &mut out);
        assembler.update(1, None, None, Some(":1}"), &mut out);
        // A call whose name arrives after its first arguments piece.
        assembler.update(7, None, None, Some("{"), &mut out);
        assembler.update(7, None, Some("h"), Some("}"), &mut out);
        let calls = assembler.finish();
        assert_eq!(calls.len(), 3);
        assert_eq!(calls[1], ToolCall::new("b", "g", json!({"x": 1})));
        assert_eq!(calls[2], ToolCall::new("call_2", "h", json!({})));
        let starts = out
            .iter()
            .filter(|e| matches!(e, StreamEvent::ToolCallStart { .. }))
            .count();
        assert_eq!(starts, 3);
    }
}
