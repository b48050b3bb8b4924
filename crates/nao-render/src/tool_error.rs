//! Tool failures told to the model in the same voice as results: what went wrong, what to do,
//! and whether retrying can help.

use std::fmt::Write as _;

use crate::cell::push_cut;
use crate::escape::middle_cut;

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
///     "Error (unknown_query_id): No stored result has query_id \"q_9\".\n\
///      What to do: Use a query_id returned by execute_sql in this conversation.\n\
///      Retrying the same call unchanged will fail the same way.\n"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ToolErrorReport {
    /// A short machine-readable kind, like `invalid_sql` or `timeout`.
    pub kind: String,
    /// What went wrong, for the model (a database's message may span several lines).
    pub message: String,
    /// What to do about it, if known.
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

/// Renders a tool failure: `Error (kind): message`, `What to do: hint`, and a line on whether
/// retrying helps. A message of several lines (a database error pointing at a position)
/// goes in a code block so its layout survives and nothing in it reads as markup; texts are
/// bounded (message 4000 characters, hint 1000, kind 64) and control characters are escaped.
pub fn render_tool_error(report: &ToolErrorReport) -> String {
    let mut out = String::from("Error (");
    push_cut(&mut out, &report.kind, MAX_KIND_CHARS, false);
    out.push_str("):");
    if report.message.contains('\n') {
        out.push('\n');
        push_code_block(&mut out, &report.message);
    } else {
        out.push(' ');
        push_cut(&mut out, &report.message, MAX_MESSAGE_CHARS, false);
        out.push('\n');
    }
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

/// A fenced code block longer than any backtick run inside, so the text cannot close it.
fn push_code_block(out: &mut String, text: &str) {
    let text = text.trim_end_matches(['\n', '\r']);
    let mut visible = String::new();
    match middle_cut(text, MAX_MESSAGE_CHARS) {
        None => push_visible_lines(&mut visible, text),
        Some((head, tail)) => {
            push_visible_lines(&mut visible, head);
            visible.push('…');
            push_visible_lines(&mut visible, tail);
        }
    }
    let longest_run = visible
        .split(|ch| ch != '`')
        .map(str::len)
        .max()
        .unwrap_or(0);
    let fence = "`".repeat((longest_run + 1).max(3));
    let _ = write!(out, "{fence}text\n{visible}\n{fence}\n");
}

/// Copies text keeping line breaks and escaping every other control character.
fn push_visible_lines(out: &mut String, text: &str) {
    for ch in text.chars() {
        match ch {
            '\n' => out.push('\n'),
            '\r' => {}
            '\t' => out.push_str("    "),
            _ if ch.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(ch));
            }
            _ => out.push(ch),
        }
    }
}
