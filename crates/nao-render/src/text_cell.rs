//! Escaping free text for a Markdown table cell or a line of prose, for tools that write their
//! own Markdown (titles, labels, comments) and must speak in the same voice as result tables.

use crate::cell::push_cut;

/// `text` escaped for one Markdown table cell (or a line of prose) and cut in the middle past
/// `max_chars` characters: pipes, line breaks, backticks, HTML-like tags, link syntax and a
/// leading `#`, `>` or `-` can neither break the table or line nor read as markup. Whole tables
/// are easier with [`MarkdownTable`](crate::MarkdownTable), names in sentences with
/// [`inline_code`](crate::inline_code).
///
/// ```
/// assert_eq!(nao_render::escape_cell("a|b\n<i>", 80), "a\\|b\\n&lt;i>");
/// assert_eq!(nao_render::escape_cell("abcdefghij", 5), "ab…ij");
/// ```
pub fn escape_cell(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars.saturating_mul(4)) + 8);
    push_cut(&mut out, text, max_chars.max(1), true);
    out
}
