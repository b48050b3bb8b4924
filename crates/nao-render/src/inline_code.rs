//! Names and short texts in an inline code span that nothing inside it can close.

use crate::code_block::longest_backtick_run;
use crate::escape::push_escaped_cut;

/// What an empty text is written as (an empty code span does not exist in Markdown).
const EMPTY: &str = "(empty)";

/// `text` as an inline code span, for a name in a sentence: a column, a table, a key.
///
/// The span is delimited by a backtick run longer than any inside the text (padded with a
/// space where the text starts or ends with a backtick or a space), so the text cannot close it,
/// and inside a code span nothing reads as a link, tag, heading or emphasis. What a code span
/// cannot hold is escaped as in table cells: `\` and `|` get a backslash (so the span is safe in
/// a table cell too), line breaks and tabs become `\n` `\r` `\t`, other control and invisible
/// characters (bidi overrides, byte order mark) become `\u{..}`. Text longer than `max_chars`
/// characters is cut in the middle with `…`; an empty text is written `(empty)`, without
/// backticks.
///
/// ```
/// use nao_render::inline_code;
///
/// assert_eq!(inline_code("revenue", 64), "`revenue`");
/// assert_eq!(inline_code("a`b", 64), "``a`b``");
/// assert_eq!(inline_code("`x`", 64), "`` `x` ``");
/// assert_eq!(inline_code("[x](http://evil) | <b>\n", 64), "`[x](http://evil) \\| <b>\\n`");
/// assert_eq!(inline_code("abcdefghij", 5), "`ab…ij`");
/// assert_eq!(inline_code("", 64), "(empty)");
/// ```
pub fn inline_code(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    push_inline_code(&mut out, text, max_chars);
    out
}

/// Appends [`inline_code`]`(text, max_chars)` to `out`.
pub(crate) fn push_inline_code(out: &mut String, text: &str, max_chars: usize) {
    if text.is_empty() {
        out.push_str(EMPTY);
        return;
    }
    let mut body = String::with_capacity(text.len().min(max_chars.saturating_mul(4)) + 8);
    // Backticks stay (the fence outruns them); what a span cannot hold or would hide is
    // escaped.
    push_escaped_cut(&mut body, text, max_chars, |ch| match ch {
        '\\' => Some("\\\\"),
        '|' => Some("\\|"),
        '\n' => Some("\\n"),
        '\r' => Some("\\r"),
        '\t' => Some("\\t"),
        _ => None,
    });
    let fence = "`".repeat(longest_backtick_run(&body) + 1);
    // CommonMark strips one space from each side of a span that has one on both, and a
    // backtick next to the fence would lengthen it: pad with a space in both cases.
    let all_spaces = body.bytes().all(|b| b == b' ');
    let pad = body.starts_with('`')
        || body.ends_with('`')
        || (body.starts_with(' ') && body.ends_with(' ') && !all_spaces);
    out.push_str(&fence);
    if pad {
        out.push(' ');
    }
    out.push_str(&body);
    if pad {
        out.push(' ');
    }
    out.push_str(&fence);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backtick_runs_never_close_the_span() {
        assert_eq!(inline_code("a``b", 64), "```a``b```");
        assert_eq!(inline_code("`", 64), "`` ` ``");
        assert_eq!(inline_code("x```", 64), "```` x``` ````");
    }

    #[test]
    fn spaces_at_both_ends_survive_commonmark_stripping() {
        assert_eq!(inline_code(" a ", 64), "`  a  `");
        assert_eq!(inline_code(" a", 64), "` a`");
        assert_eq!(inline_code("  ", 64), "`  `");
    }

    #[test]
    fn structure_and_invisible_characters_are_escaped() {
        assert_eq!(
            inline_code("a\\b|c\r\n\t\0\u{202e}\u{2028}", 64),
            "`a\\\\b\\|c\\r\\n\\t\\u{0}\\u{202e}\\u{2028}`"
        );
        assert_eq!(inline_code("# h", 64), "`# h`");
        assert_eq!(inline_code("日本語", 2), "`日…`");
    }
}
