//! What a run reports as it goes, and how it ended.

use nao_core::Usage;
use serde::{Deserialize, Serialize};

/// One event of a run, in the order it happened. Serializes as JSON with a `type` tag, ready to
/// forward over SSE or a websocket.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum AgentEvent {
    /// More of the model's text, as it is generated.
    TextDelta {
        /// The new text.
        text: String,
    },
    /// A tool call started.
    ToolStarted {
        /// The call's id.
        call_id: String,
        /// The tool.
        tool: String,
        /// The arguments the model sent.
        arguments: serde_json::Value,
    },
    /// A high-risk tool call waits for the host's approver.
    ApprovalNeeded {
        /// The call's id.
        call_id: String,
        /// The tool.
        tool: String,
    },
    /// A tool call finished (successfully or not).
    ToolFinished {
        /// The call's id.
        call_id: String,
        /// The tool.
        tool: String,
        /// Milliseconds it took.
        latency_ms: u64,
        /// Rows it produced, when the tool reports them.
        row_count: Option<u64>,
        /// Whether it failed.
        is_error: bool,
        /// The error's kind code (`database_unknown_object`, `rejected_not_a_query`…).
        error_kind: Option<String>,
    },
    /// The model's final answer.
    Answer {
        /// The answer, as Markdown.
        text: String,
    },
    /// The model asks the person a question; the turn ends.
    Clarification {
        /// The question.
        question: String,
        /// The options offered (may be empty).
        options: Vec<String>,
    },
    /// The model suggests next questions; the turn ends.
    FollowUps {
        /// The suggestions.
        suggestions: Vec<String>,
    },
    /// Tokens used by one model call, and so far in the run.
    Usage {
        /// The call's usage.
        turn: Usage,
        /// The run's usage so far.
        total: Usage,
        /// The estimated cost of the run so far in US dollars, when prices are configured.
        cost_usd: Option<f64>,
    },
    /// The step limit was reached; the agent asks for a best-effort answer.
    StepLimit {
        /// The steps taken.
        steps: usize,
    },
    /// The token budget was spent; the agent asks for a best-effort answer.
    BudgetExhausted {
        /// The tokens used.
        used: u64,
        /// The budget.
        budget: u64,
    },
    /// execute_sql failed too often in a row; the agent asks the model to explain.
    SqlRetriesExhausted {
        /// The consecutive failures.
        failures: usize,
    },
    /// Something failed that the model cannot fix (the provider, for instance).
    Error {
        /// What failed.
        message: String,
    },
    /// The run ended; always the last event.
    Finished {
        /// Why.
        stop: StopReason,
        /// Tokens used by the run.
        usage: Usage,
    },
}

/// Why a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum StopReason {
    /// The model answered.
    Answer,
    /// The model asked a clarifying question.
    Clarification,
    /// The model suggested follow-up questions (after its answer).
    FollowUps,
    /// The step limit was reached (a best-effort answer was asked for).
    StepLimit,
    /// The token budget was spent (a best-effort answer was asked for).
    BudgetExhausted,
    /// execute_sql failed too often in a row (an explanation was asked for).
    SqlRetriesExhausted,
    /// The provider failed.
    ProviderError,
    /// The run was cancelled.
    Cancelled,
}

impl StopReason {
    /// The reason in snake_case, as it serializes (`answer`, `follow_ups`, `provider_error`, …):
    /// for logs, metrics and the `invoke_agent` span.
    pub fn code(self) -> &'static str {
        match self {
            StopReason::Answer => "answer",
            StopReason::Clarification => "clarification",
            StopReason::FollowUps => "follow_ups",
            StopReason::StepLimit => "step_limit",
            StopReason::BudgetExhausted => "budget_exhausted",
            StopReason::SqlRetriesExhausted => "sql_retries_exhausted",
            StopReason::ProviderError => "provider_error",
            StopReason::Cancelled => "cancelled",
        }
    }
}

/// Everything a run produced, for hosts that do not stream.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct AgentOutcome {
    /// The final answer, if the model gave one.
    pub answer: Option<String>,
    /// Why the run ended.
    pub stop: StopReason,
    /// Tokens used by the run.
    pub usage: Usage,
    /// Every event, in order.
    pub events: Vec<AgentEvent>,
}

impl AgentOutcome {
    /// Builds the outcome from a run's events.
    pub fn from_events(events: Vec<AgentEvent>) -> Self {
        let mut answer = None;
        let mut stop = StopReason::Cancelled;
        let mut usage = Usage::default();
        for event in &events {
            match event {
                AgentEvent::Answer { text } => answer = Some(text.clone()),
                AgentEvent::Usage { total, .. } => usage = *total,
                AgentEvent::Finished {
                    stop: reason,
                    usage: total,
                } => {
                    stop = *reason;
                    usage = *total;
                }
                _ => {}
            }
        }
        AgentOutcome {
            answer,
            stop,
            usage,
            events,
        }
    }

    /// The clarifying question and its options, if the model asked one.
    pub fn clarification(&self) -> Option<(&str, &[String])> {
        self.events.iter().find_map(|e| match e {
            AgentEvent::Clarification { question, options } => {
                Some((question.as_str(), options.as_slice()))
            }
            _ => None,
        })
    }

    /// The follow-up suggestions, if the model made some.
    pub fn follow_ups(&self) -> Option<&[String]> {
        self.events.iter().find_map(|e| match e {
            AgentEvent::FollowUps { suggestions } => Some(suggestions.as_slice()),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::StopReason;

    #[test]
    fn stop_reason_codes_are_their_serialized_names() {
        let all = [
            StopReason::Answer,
            StopReason::Clarification,
            StopReason::FollowUps,
            StopReason::StepLimit,
            StopReason::BudgetExhausted,
            StopReason::SqlRetriesExhausted,
            StopReason::ProviderError,
            StopReason::Cancelled,
        ];
        for stop in all {
            let json = serde_json::to_value(stop).ok();
            assert_eq!(json.as_ref().and_then(|j| j.as_str()), Some(stop.code()));
        }
    }
}
