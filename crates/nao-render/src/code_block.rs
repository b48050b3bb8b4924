//! Quoting text verbatim in a fenced code block that nothing inside it can close.

use std::fmt::Write as _;

use crate::escape::{ELLIPSIS, is_invisible, middle_cut};

/// `text` quoted verbatim in a fenced code block (info string `text`), for text that is data
/// and whose layout matters: a database's error message pointing at a position, a message that
/// quotes values.
///
/// The fence is longer than any backtick run in the text, so no line of it can close the block,
/// and inside a code block nothing reads as markup. Line breaks are kept (a lone `\r` counts as
/// one), tabs become four spaces, other control and invisible characters (NUL, escape, bidi
/// overrides, byte order mark) become `\u{..}`, trailing line breaks are dropped, and text
/// longer than `max_chars` characters is cut in the middle with `…`. The result ends with a
/// line break.
///
/// ```
/// let block = nao_render::code_block("no such column: \"x\"\n```\n# not a heading", 1_000);
/// assert_eq!(block, "````text\nno such column: \"x\"\n```\n# not a heading\n````\n");
/// assert_eq!(nao_render::code_block("a\u{202e}b\tc", 80), "```text\na\\u{202e}b    c\n```\n");
/// ```
pub fn code_block(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    push_code_block(&mut out, text, max_chars);
    out
}

/// Appends [`code_block`]`(text, max_chars)` to `out`.
pub(crate) fn push_code_block(out: &mut String, text: &str, max_chars: usize) {
    let text = text.trim_end_matches(['\n', '\r']);
    let mut visible = String::with_capacity(text.len().min(max_chars.saturating_mul(4)) + 8);
    match middle_cut(text, max_chars) {
        None => push_visible_lines(&mut visible, text),
        Some((head, tail)) => {
            push_visible_lines(&mut visible, head);
            visible.push(ELLIPSIS);
            push_visible_lines(&mut visible, tail);
        }
    }
    let fence = "`".repeat((longest_backtick_run(&visible) + 1).max(3));
    let _ = write!(out, "{fence}text\n{visible}\n{fence}\n");
}

/// The length of the longest run of backticks in `text`.
pub(crate) fn longest_backtick_run(text: &str) -> usize {
    text.split(|ch| ch != '`').map(str::len).max().unwrap_or(0)
}

/// Copies text keeping line breaks and escaping every other control or invisible character.
fn push_visible_lines(out: &mut String, text: &str) {
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        match ch {
            '\n' => out.push('\n'),
            '\r' if chars.peek() == Some(&'\n') => {}
            '\r' => out.push('\n'),
            '\t' => out.push_str("    "),
            _ if is_invisible(ch) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(ch));
            }
            _ => out.push(ch),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fence_outruns_every_backtick_run() {
        assert_eq!(code_block("a", 10), "```text\na\n```\n");
        assert_eq!(code_block("``````", 10), "```````text\n``````\n```````\n");
        assert_eq!(code_block("", 10), "```text\n\n```\n");
        assert_eq!(longest_backtick_run("a`b```c``"), 3);
    }

    #[test]
    fn line_breaks_survive_and_the_rest_is_visible() {
        assert_eq!(
            code_block("one\r\ntwo\rthree\n\n\n", 100),
            "```text\none\ntwo\nthree\n```\n"
        );
        assert_eq!(
            code_block("\0\u{1b}[2J\u{2066}\u{feff}", 100),
            "```text\n\\u{0}\\u{1b}[2J\\u{2066}\\u{feff}\n```\n"
        );
    }

    #[test]
    fn long_text_is_cut_in_the_middle() {
        let text = format!("{}{}", "a".repeat(5_000), "b".repeat(5_000));
        let block = code_block(&text, 11);
        assert_eq!(block, "```text\naaaaa…bbbbb\n```\n");
    }
}
