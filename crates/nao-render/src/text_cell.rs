//! Escaping free text for a Markdown table cell, for tools that build their own tables
//! (table lists, column descriptions) and must speak in the same voice as result tables.

use crate::cell::push_cut;

/// `text` escaped for one Markdown table cell and cut in the middle past `max_chars`
/// characters: pipes, line breaks, backticks, HTML-like tags and link syntax can neither break
/// the table nor read as markup.
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
