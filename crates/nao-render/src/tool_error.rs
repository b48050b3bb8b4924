//! Tool failures told to the model in the same voice as results: what went wrong, what to do,
//! and whether retrying can help.

use crate::cell::push_cut;
use crate::code_block::push_code_block;

/// Longest error kind shown, in characters.
const MAX_KIND_CHARS: usize = 64;
/// Longest message shown, in characters (cut in the middle beyond).
const MAX_MESSAGE_CHARS: usize = 4_000;
/// Longest hint shown, in characters.
const MAX_HINT_CHARS: usize = 1_000;

/// A failed tool call as the model should read it.
///
/// ```
/// use nao_render::{render_tool_error, ToolErrorReport};
///
/// let report = ToolErrorReport::new("unknown_query_id", "No stored result has query_id \"q_9\".")
///     .with_hint("Use a query_id returned by execute_sql in this conversation.");
/// assert_eq!(
///     render_tool_error(&report),
///     "Error (unknown_query_id):\n\
///      ```text\n\
///      No stored result has query_id \"q_9\".\n\
///      ```\n\
///      What to do: Use a query_id returned by execute_sql in this conversation.\n\
///      Retrying the same call unchanged will fail the same way.\n"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ToolErrorReport {
    /// A short machine-readable kind, like `invalid_sql` or `timeout`.
    pub kind: String,
    /// What went wrong, for the model. It may quote anything (a database's message with the
    /// values it names, a comment, the model's own arguments) and span several lines: it is
    /// always shown verbatim in a code block.
    pub message: String,
    /// What to do about it, if known (the caller's own advice: shown as a line of prose,
    /// escaped).
    pub hint: Option<String>,
    /// Whether the same call may succeed if made again (a timeout, a lost connection), as
    /// opposed to failing until it is changed.
    pub retryable: bool,
}

impl ToolErrorReport {
    /// A report of a failure that retrying the same call will not fix.
    pub fn new(kind: impl Into<String>, message: impl Into<String>) -> Self {
        ToolErrorReport {
            kind: kind.into(),
            message: message.into(),
            hint: None,
            retryable: false,
        }
    }

    /// Adds what to do about it.
    #[must_use]
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Sets whether the same call may succeed if made again.
    #[must_use]
    pub fn with_retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self
    }
}

/// Renders a tool failure: `Error (kind):`, the message in a fenced code block, `What to do:
/// hint`, and a line on whether retrying helps.
///
/// The message always goes in a [`code_block`](crate::code_block), even when it is one line:
/// tool errors carry text from outside (an engine's message quoting a value, a table or column
/// name, a comment, the model's own arguments), and fenced it reads as quoted data, never as an
/// instruction or markup; a database error pointing at a position keeps its layout. Texts are
/// bounded (message 4000 characters, hint 1000, kind 64) and control characters are escaped.
pub fn render_tool_error(report: &ToolErrorReport) -> String {
    let mut out = String::from("Error (");
    push_cut(&mut out, &report.kind, MAX_KIND_CHARS, false);
    out.push_str("):\n");
    push_code_block(&mut out, &report.message, MAX_MESSAGE_CHARS);
    if let Some(hint) = &report.hint {
        out.push_str("What to do: ");
        push_cut(&mut out, hint, MAX_HINT_CHARS, false);
        out.push('\n');
    }
    out.push_str(if report.retryable {
        "This may be temporary: the same call can be retried.\n"
    } else {
        "Retrying the same call unchanged will fail the same way.\n"
    });
    out
}
