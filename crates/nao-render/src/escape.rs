//! Escaping untrusted text so it stays inside its table cell and never reads as markup, and
//! cutting long text in the middle without splitting a character.

use std::fmt::Write as _;

/// The mark that replaces the middle of a cut value.
pub(crate) const ELLIPSIS: char = '…';

/// Appends `text` to `out` escaped for a Markdown table cell (or a line of prose).
///
/// Every escape is visible and reversible: `\` `|` and `` ` `` get a backslash, line breaks and
/// tabs become `\n` `\r` `\t`, other control and invisible formatting characters become
/// `\u{..}`, `<` becomes `&lt;` (so no tag or autolink forms), `&` becomes `&amp;` only where it
/// would otherwise read as an entity, and `](` becomes `\](` (so no link or image forms). When
/// `starts_cell` is true, a leading `#`, `>` or `-` gets a backslash as well.
pub(crate) fn push_escaped(out: &mut String, text: &str, starts_cell: bool) {
    let bytes = text.as_bytes();
    let mut safe_from = 0;
    let mut index = 0;
    while index < bytes.len() {
        let byte = bytes[index];
        // Most text is plain ASCII: skip it a byte at a time without decoding.
        if byte >= 0x80 {
            let ch = text[index..]
                .chars()
                .next()
                .unwrap_or(char::REPLACEMENT_CHARACTER);
            if is_invisible(ch) {
                out.push_str(&text[safe_from..index]);
                let _ = write!(out, "\\u{{{:x}}}", u32::from(ch));
                safe_from = index + ch.len_utf8();
            }
            index += ch.len_utf8();
            continue;
        }
        let replacement: &str = match byte {
            b'\\' => "\\\\",
            b'|' => "\\|",
            b'`' => "\\`",
            b'<' => "&lt;",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            b'#' if index == 0 && starts_cell => "\\#",
            b'>' if index == 0 && starts_cell => "\\>",
            b'-' if index == 0 && starts_cell => "\\-",
            b'&' if reads_as_entity(&text[index + 1..]) => "&amp;",
            b']' if bytes.get(index + 1) == Some(&b'(') => "\\]",
            0..=0x1f | 0x7f => "",
            _ => {
                index += 1;
                continue;
            }
        };
        out.push_str(&text[safe_from..index]);
        if replacement.is_empty() {
            let _ = write!(out, "\\u{{{byte:x}}}");
        } else {
            out.push_str(replacement);
        }
        index += 1;
        safe_from = index;
    }
    out.push_str(&text[safe_from..]);
}

/// Appends `text` to `out`, cut in the middle to `max_chars` characters (with `…`), each
/// character written as `special` escapes it (`Some`), else as `\u{..}` when invisible, else
/// as is: the one loop behind quotations and code spans.
pub(crate) fn push_escaped_cut(
    out: &mut String,
    text: &str,
    max_chars: usize,
    special: impl Fn(char) -> Option<&'static str>,
) {
    let push = |out: &mut String, part: &str| {
        for ch in part.chars() {
            match special(ch) {
                Some(escaped) => out.push_str(escaped),
                None if is_invisible(ch) => {
                    let _ = write!(out, "\\u{{{:x}}}", u32::from(ch));
                }
                None => out.push(ch),
            }
        }
    };
    match middle_cut(text, max_chars) {
        None => push(out, text),
        Some((head, tail)) => {
            push(out, head);
            out.push(ELLIPSIS);
            push(out, tail);
        }
    }
}

/// Control characters, and formatting characters that are invisible or reorder text (bidi
/// overrides, line separators, byte order mark): shown as `\u{..}` so nothing hides.
pub(crate) fn is_invisible(ch: char) -> bool {
    ch.is_control()
        || matches!(
            ch,
            '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}' | '\u{feff}'
        )
}

/// Whether the text after an `&` would make it an HTML entity (`&lt;`, `&#60;`, `&#x3c;`).
fn reads_as_entity(after_ampersand: &str) -> bool {
    let bytes = after_ampersand.as_bytes();
    let mut index = 0;
    if bytes.first() == Some(&b'#') {
        index = 1;
        if matches!(bytes.get(1), Some(b'x' | b'X')) {
            index = 2;
        }
    }
    let name_start = index;
    while index < bytes.len() && index - name_start < 32 && bytes[index].is_ascii_alphanumeric() {
        index += 1;
    }
    index > name_start && bytes.get(index) == Some(&b';')
}

/// Splits `text` around the part a cut in the middle removes, if it has more than `max_chars`
/// characters: the head and tail kept, which with an [`ELLIPSIS`] between them make
/// `max_chars` characters. Works in characters, so a UTF-8 sequence is never split, and touches
/// only about `max_chars` characters of the text however long it is.
pub(crate) fn middle_cut(text: &str, max_chars: usize) -> Option<(&str, &str)> {
    let max_chars = max_chars.max(1);
    // A text of at most `max_chars` bytes has at most that many characters.
    if text.len() <= max_chars {
        return None;
    }
    text.char_indices().nth(max_chars)?;
    let kept = max_chars - 1;
    let head_chars = kept.div_ceil(2);
    let tail_chars = kept / 2;
    let head_end = text
        .char_indices()
        .nth(head_chars)
        .map_or(text.len(), |(index, _)| index);
    let tail_start = match tail_chars {
        0 => text.len(),
        n => text
            .char_indices()
            .rev()
            .nth(n - 1)
            .map_or(head_end, |(index, _)| index),
    };
    Some((&text[..head_end], &text[tail_start.max(head_end)..]))
}

/// Keeps the first `max_chars - 1` characters of `text` (for values whose end was never
/// produced, like a nested value cut while it was written).
pub(crate) fn head_cut(text: &str, max_chars: usize) -> &str {
    let kept = max_chars.max(1) - 1;
    let end = text
        .char_indices()
        .nth(kept)
        .map_or(text.len(), |(index, _)| index);
    &text[..end]
}

/// Appends `text` to `out` as a JSON string literal (quotes included), stopping once `out` is
/// `limit` bytes long; returns false if it stopped early.
pub(crate) fn push_json_string(out: &mut String, text: &str, limit: usize) -> bool {
    out.push('"');
    for ch in text.chars() {
        if out.len() >= limit {
            return false;
        }
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            _ if ch.is_control() => {
                let _ = write!(out, "\\u{:04x}", u32::from(ch));
            }
            _ => out.push(ch),
        }
    }
    out.push('"');
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn escaped(text: &str, starts_cell: bool) -> String {
        let mut out = String::new();
        push_escaped(&mut out, text, starts_cell);
        out
    }

    #[test]
    fn escapes_structure_and_markup() {
        assert_eq!(escaped("a|b\\c`d", true), "a\\|b\\\\c\\`d");
        assert_eq!(escaped("x\ny\r\tz", true), "x\\ny\\r\\tz");
        assert_eq!(escaped("<b>hi</b>", true), "&lt;b>hi&lt;/b>");
        assert_eq!(escaped("[a](http://x) [b]", true), "[a\\](http://x) [b]");
        assert_eq!(
            escaped("AT&T &lt; &#60; &#x3c; & ;", true),
            "AT&T &amp;lt; &amp;#60; &amp;#x3c; & ;"
        );
        assert_eq!(escaped("# h", true), "\\# h");
        assert_eq!(escaped("> q", true), "\\> q");
        assert_eq!(escaped("- l", true), "\\- l");
        assert_eq!(escaped("- l", false), "- l");
        assert_eq!(escaped("a#>-", true), "a#>-");
        assert_eq!(
            escaped("\0\u{1b}\u{7f}\u{85}", true),
            "\\u{0}\\u{1b}\\u{7f}\\u{85}"
        );
        assert_eq!(escaped("a\u{202e}b\u{feff}", true), "a\\u{202e}b\\u{feff}");
        assert_eq!(escaped("日本語 👩‍👩‍👧 é", true), "日本語 👩‍👩‍👧 é");
    }

    #[test]
    fn cuts_in_the_middle_by_characters() {
        assert_eq!(middle_cut("abcdef", 6), None);
        assert_eq!(middle_cut("abcdefg", 6), Some(("abc", "fg")));
        assert_eq!(middle_cut("abcdefg", 5), Some(("ab", "fg")));
        assert_eq!(middle_cut("日本語日本語", 4), Some(("日本", "語")));
        assert_eq!(middle_cut("abc", 1), Some(("", "")));
        assert_eq!(middle_cut("abc", 0), Some(("", "")));
        assert_eq!(middle_cut("ab", 2), None);
        assert_eq!(head_cut("abcdef", 4), "abc");
        assert_eq!(head_cut("日本語", 2), "日");
    }

    #[test]
    fn writes_json_strings() {
        let mut out = String::new();
        assert!(push_json_string(&mut out, "a\"b\\c\nd\u{1}", 100));
        assert_eq!(out, "\"a\\\"b\\\\c\\nd\\u0001\"");
        out.clear();
        assert!(!push_json_string(&mut out, "abcdef", 3));
        assert_eq!(out, "\"ab");
    }
}
