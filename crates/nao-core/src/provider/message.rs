//! The conversation a model sees: messages, tool specs, and what it answers.

use serde::{Deserialize, Serialize};

use crate::{ToolCall, ToolSpec};

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Message {
    /// Instructions from the host.
    System {
        /// The text.
        content: String,
    },
    /// What the person asked.
    User {
        /// The text.
        content: String,
    },
    /// What the model answered: text, tool calls, or both.
    Assistant {
        /// The text, possibly empty when the model only calls tools.
        content: String,
        /// The tools it called, in order.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    /// The result of one tool call, sent back to the model.
    Tool {
        /// The id of the call it answers.
        call_id: String,
        /// The tool's name.
        name: String,
        /// The result, as Markdown.
        content: String,
        /// Whether the call failed.
        #[serde(default)]
        is_error: bool,
    },
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Message::System {
            content: content.into(),
        }
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Message::User {
            content: content.into(),
        }
    }

    /// An assistant message with text only.
    pub fn assistant(content: impl Into<String>) -> Self {
        Message::Assistant {
            content: content.into(),
            tool_calls: Vec::new(),
        }
    }
}

/// Whether and which tools the model may call.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolChoice {
    /// The model decides.
    #[default]
    Auto,
    /// No tool calls: answer in text.
    None,
    /// At least one tool call.
    Required,
    /// This tool.
    Tool(String),
}

/// One request to a model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompletionRequest {
    /// The conversation so far.
    pub messages: Vec<Message>,
    /// The tools the model may call.
    #[serde(default)]
    pub tools: Vec<ToolSpecLite>,
    /// Whether and which tools it may call.
    #[serde(default)]
    pub tool_choice: ToolChoice,
    /// The most tokens to generate.
    pub max_output_tokens: Option<u32>,
    /// Sampling temperature, when the host sets one.
    pub temperature: Option<f32>,
}

impl CompletionRequest {
    /// A request with these messages and tools, the model choosing freely.
    pub fn new(messages: Vec<Message>, tools: &[ToolSpec]) -> Self {
        CompletionRequest {
            messages,
            tools: tools.iter().map(ToolSpecLite::from).collect(),
            ..CompletionRequest::default()
        }
    }
}

/// A tool as providers send it to a model: name, description, JSON Schema of the arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpecLite {
    /// The name.
    pub name: String,
    /// The description.
    pub description: String,
    /// The JSON Schema of the arguments object.
    pub parameters: serde_json::Value,
}

impl From<&ToolSpec> for ToolSpecLite {
    fn from(spec: &ToolSpec) -> Self {
        ToolSpecLite {
            name: spec.name.clone(),
            description: spec.description.clone(),
            parameters: spec.parameters.clone(),
        }
    }
}

/// Tokens a request used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens, including cached ones.
    pub input_tokens: u64,
    /// Generated tokens.
    pub output_tokens: u64,
    /// Prompt tokens served from the provider's cache.
    pub cached_input_tokens: u64,
}

impl Usage {
    /// Adds another request's usage.
    pub fn add(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cached_input_tokens += other.cached_input_tokens;
    }
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.add(other);
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FinishReason {
    /// It finished its answer.
    Stop,
    /// It called tools and waits for their results.
    ToolCalls,
    /// It hit the output token limit.
    Length,
    /// The provider filtered the content.
    ContentFilter,
    /// Anything else, as the provider said it.
    Other(String),
}

/// A model's answer to one request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Completion {
    /// The text (possibly empty).
    pub content: String,
    /// The tool calls, in order.
    pub tool_calls: Vec<ToolCall>,
    /// Why it stopped.
    pub finish_reason: FinishReason,
    /// Tokens used.
    pub usage: Usage,
    /// The model that answered, as the provider names it.
    pub model: String,
}

impl Completion {
    /// A completion.
    pub fn new(
        content: impl Into<String>,
        tool_calls: Vec<ToolCall>,
        finish_reason: FinishReason,
    ) -> Self {
        Completion {
            content: content.into(),
            tool_calls,
            finish_reason,
            usage: Usage::default(),
            model: String::new(),
        }
    }

    /// The assistant message to append to the conversation.
    pub fn to_message(&self) -> Message {
        Message::Assistant {
            content: self.content.clone(),
            tool_calls: self.tool_calls.clone(),
        }
    }
}
