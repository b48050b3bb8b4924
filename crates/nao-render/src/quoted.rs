//! A short, one-line quotation of untrusted text inside a message.

use crate::escape::push_escaped_cut;

/// `text` as a one-line quotation for an error or status message: in double quotes, with `"`
/// and `\` escaped by a backslash, line breaks and tabs as `\n` `\r` `\t`, other control and
/// invisible characters (bidi overrides, byte order mark) as `\u{..}`, and cut in the middle
/// with `…` past `max_chars` characters. The quotation always ends where it seems to: nothing in
/// the text can close it early or start a new line.
///
/// It is for messages that reach the model through [`render_tool_error`](crate::render_tool_error),
/// which quotes the whole message in a code block; in Markdown prose or tables use
/// [`escape_cell`](crate::escape_cell) or [`inline_code`](crate::inline_code), which also keep
/// markup inert.
///
/// ```
/// use nao_render::quoted;
///
/// assert_eq!(quoted("it's \"fine\"\nreally", 80), "\"it's \\\"fine\\\"\\nreally\"");
/// assert_eq!(quoted("abcdefghij", 5), "\"ab…ij\"");
/// ```
pub fn quoted(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars.saturating_mul(4)) + 8);
    out.push('"');
    push_escaped_cut(&mut out, text, max_chars, |ch| match ch {
        '"' => Some("\\\""),
        '\\' => Some("\\\\"),
        '\n' => Some("\\n"),
        '\r' => Some("\\r"),
        '\t' => Some("\\t"),
        _ => None,
    });
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::quoted;

    #[test]
    fn nothing_inside_ends_the_quotation_or_the_line() {
        assert_eq!(quoted("", 10), "\"\"");
        assert_eq!(quoted("a\\\"b", 10), "\"a\\\\\\\"b\"");
        assert_eq!(
            quoted("x\u{202e}y\u{1b}z\u{2029}", 10),
            "\"x\\u{202e}y\\u{1b}z\\u{2029}\""
        );
        let long = "é".repeat(10_000);
        assert_eq!(quoted(&long, 4), "\"éé…é\"");
    }
}
