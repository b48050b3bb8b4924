//! The state of a conversation, which a host can persist (serde) and resume.

use nao_core::{Message, Usage};
use serde::{Deserialize, Serialize};

/// A conversation: its system prompt, its messages, the query ids its results were stored
/// under, and the tokens it used.
///
/// Serialize it between turns and hand it back to any [`Agent`](crate::Agent) sharing the same
/// [`ResultStore`](nao_core::ResultStore) to continue; read_query_result then still pages the
/// results of earlier turns.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Conversation {
    /// The system prompt, built on the first run and kept so later turns see the same one.
    #[serde(default)]
    pub system_prompt: Option<String>,
    /// The messages after the system prompt.
    #[serde(default)]
    pub messages: Vec<Message>,
    /// The query ids execute_sql returned, oldest first.
    #[serde(default)]
    pub query_ids: Vec<String>,
    /// Tokens used over all runs.
    #[serde(default)]
    pub usage: Usage,
    /// How many runs (questions) it has had.
    #[serde(default)]
    pub runs: u32,
}

impl Conversation {
    /// An empty conversation.
    pub fn new() -> Self {
        Conversation::default()
    }

    /// The messages the model is sent: the system prompt, then the conversation.
    pub fn request_messages(&self) -> Vec<Message> {
        let mut messages = Vec::with_capacity(self.messages.len() + 1);
        if let Some(system) = &self.system_prompt {
            messages.push(Message::system(system.clone()));
        }
        messages.extend(self.messages.iter().cloned());
        messages
    }

    /// The last query id execute_sql returned, if any.
    pub fn last_query_id(&self) -> Option<&str> {
        self.query_ids.last().map(String::as_str)
    }
}
