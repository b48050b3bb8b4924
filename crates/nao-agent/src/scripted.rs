//! A model that replays a script: for tests and the offline demo.

use std::collections::VecDeque;
use std::fmt;
use std::sync::Mutex;

use async_trait::async_trait;
use nao_core::{
    Completion, CompletionRequest, CompletionStream, FinishReason, Message, ModelProvider,
    ProviderError, ToolCall, Usage,
};
use serde_json::Value;

type DynamicTurn = Box<dyn Fn(&CompletionRequest) -> Completion + Send + Sync>;

enum Turn {
    Fixed {
        text: String,
        calls: Vec<(String, Value)>,
    },
    Dynamic(DynamicTurn),
}

/// Deterministic replay of a script of assistant turns (text and tool calls), for tests and
/// the offline demo. It records the requests it receives so tests can assert what the model
/// was shown, and counts usage roughly (characters / 4) so budgets can be tested.
///
/// Each request consumes the next turn; when the script runs out, the request fails with
/// [`ProviderError::Permanent`]. Call ids are `call_1`, `call_2`, … in script order.
///
/// ```
/// use nao_agent::ScriptedProvider;
/// use serde_json::json;
///
/// let model = ScriptedProvider::new()
///     .call("list_tables", json!({}))
///     .calls([
///         ("describe_table", json!({"table": "orders"})),
///         ("describe_table", json!({"table": "customers"})),
///     ])
///     .say("There are 600 orders.");
/// assert_eq!(model.remaining(), 3);
/// ```
pub struct ScriptedProvider {
    model: String,
    turns: Mutex<VecDeque<Turn>>,
    requests: Mutex<Vec<CompletionRequest>>,
    next_call: Mutex<usize>,
}

impl Default for ScriptedProvider {
    fn default() -> Self {
        ScriptedProvider::new()
    }
}

impl fmt::Debug for ScriptedProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScriptedProvider")
            .field("model", &self.model)
            .field("remaining", &self.remaining())
            .finish_non_exhaustive()
    }
}

impl ScriptedProvider {
    /// An empty script.
    pub fn new() -> Self {
        ScriptedProvider {
            model: "scripted".into(),
            turns: Mutex::default(),
            requests: Mutex::default(),
            next_call: Mutex::new(0),
        }
    }

    /// Names the model it pretends to be.
    #[must_use]
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = model.into();
        self
    }

    fn push(self, turn: Turn) -> Self {
        lock(&self.turns).push_back(turn);
        self
    }

    /// A turn that answers with text and calls no tool.
    #[must_use]
    pub fn say(self, text: impl Into<String>) -> Self {
        self.push(Turn::Fixed {
            text: text.into(),
            calls: Vec::new(),
        })
    }

    /// A turn that calls one tool.
    #[must_use]
    pub fn call(self, tool: impl Into<String>, arguments: Value) -> Self {
        self.push(Turn::Fixed {
            text: String::new(),
            calls: vec![(tool.into(), arguments)],
        })
    }

    /// A turn that calls several tools at once (parallel tool calls).
    #[must_use]
    pub fn calls<S: Into<String>>(self, calls: impl IntoIterator<Item = (S, Value)>) -> Self {
        self.push(Turn::Fixed {
            text: String::new(),
            calls: calls.into_iter().map(|(t, a)| (t.into(), a)).collect(),
        })
    }

    /// A turn with text and tool calls (the text says what the model is about to do).
    #[must_use]
    pub fn say_and_call<S: Into<String>>(
        self,
        text: impl Into<String>,
        calls: impl IntoIterator<Item = (S, Value)>,
    ) -> Self {
        self.push(Turn::Fixed {
            text: text.into(),
            calls: calls.into_iter().map(|(t, a)| (t.into(), a)).collect(),
        })
    }

    /// A turn computed from the request, so an answer can quote the tool results it was shown.
    /// Its usage is counted like any other turn's.
    #[must_use]
    pub fn then(
        self,
        turn: impl Fn(&CompletionRequest) -> Completion + Send + Sync + 'static,
    ) -> Self {
        self.push(Turn::Dynamic(Box::new(turn)))
    }

    /// The requests received so far, in order.
    pub fn requests(&self) -> Vec<CompletionRequest> {
        lock(&self.requests).clone()
    }

    /// Turns not yet played.
    pub fn remaining(&self) -> usize {
        lock(&self.turns).len()
    }

    fn next(&self, request: &CompletionRequest) -> Result<Completion, ProviderError> {
        lock(&self.requests).push(request.clone());
        let turn = lock(&self.turns).pop_front();
        let mut completion = match turn {
            None => {
                return Err(ProviderError::Permanent {
                    provider: "scripted".into(),
                    message: format!(
                        "the script has no turn left for request {}",
                        lock(&self.requests).len()
                    ),
                    source: None,
                });
            }
            Some(Turn::Dynamic(turn)) => turn(request),
            Some(Turn::Fixed { text, calls }) => {
                let mut next_call = lock(&self.next_call);
                let calls: Vec<ToolCall> = calls
                    .into_iter()
                    .map(|(tool, arguments)| {
                        *next_call += 1;
                        ToolCall::new(format!("call_{next_call}"), tool, arguments)
                    })
                    .collect();
                let finish = if calls.is_empty() {
                    FinishReason::Stop
                } else {
                    FinishReason::ToolCalls
                };
                Completion::new(text, calls, finish)
            }
        };
        completion.usage = Usage {
            input_tokens: request_tokens(request),
            output_tokens: completion_tokens(&completion),
            cached_input_tokens: 0,
        };
        completion.model = self.model.clone();
        Ok(completion)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn tokens(chars: usize) -> u64 {
    u64::try_from(chars.div_ceil(4)).unwrap_or(u64::MAX)
}

/// Input tokens of a request: characters of the messages and tool specs, / 4.
fn request_tokens(request: &CompletionRequest) -> u64 {
    let mut chars = 0;
    for message in &request.messages {
        chars += match message {
            Message::System { content } | Message::User { content } => content.len(),
            Message::Assistant {
                content,
                tool_calls,
            } => {
                content.len()
                    + tool_calls
                        .iter()
                        .map(|c| c.name.len() + c.arguments.to_string().len())
                        .sum::<usize>()
            }
            Message::Tool { content, .. } => content.len(),
            // A kind of message added to nao-core later: its JSON, a fair upper bound.
            other => serde_json::to_string(other).map_or(0, |json| json.len()),
        };
    }
    for tool in &request.tools {
        chars += tool.name.len() + tool.description.len() + tool.parameters.to_string().len();
    }
    tokens(chars)
}

fn completion_tokens(completion: &Completion) -> u64 {
    let calls: usize = completion
        .tool_calls
        .iter()
        .map(|c| c.name.len() + c.arguments.to_string().len())
        .sum();
    tokens(completion.content.len() + calls).max(1)
}

#[async_trait]
impl ModelProvider for ScriptedProvider {
    fn name(&self) -> &str {
        "scripted"
    }

    fn model(&self) -> &str {
        &self.model
    }

    async fn complete(&self, request: &CompletionRequest) -> Result<Completion, ProviderError> {
        self.next(request)
    }

    /// Streams the text word by word, then each tool call, the usage and the answer.
    async fn stream(&self, request: &CompletionRequest) -> Result<CompletionStream, ProviderError> {
        Ok(CompletionStream::from_completion(self.next(request)?))
    }
}
