//! Escaping text for the HTML and SVG nao-charts writes.

/// `text` for HTML or SVG element content and quoted attribute values: the five markup
/// characters as entities, control characters (never meant to show) as spaces.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use nao_core::story::decode_entities;

    #[test]
    fn what_escape_writes_decodes_back() {
        for text in [
            "plain",
            "B & C",
            "<script>'x'\"y\"</script>",
            "&amp; written",
            "a&b;&",
            "é&#39;",
        ] {
            assert_eq!(decode_entities(&escape(text)), text);
        }
    }
}
