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

/// Element content as written by [`escape`] or charts-rs, back to the text it stands for (the
/// five entities those write; anything else stays as it is).
pub(crate) fn unescape(content: &str) -> std::borrow::Cow<'_, str> {
    if !content.contains('&') {
        return std::borrow::Cow::Borrowed(content);
    }
    let mut out = String::with_capacity(content.len());
    let mut rest = content;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let entity = [
            ("&amp;", '&'),
            ("&lt;", '<'),
            ("&gt;", '>'),
            ("&quot;", '"'),
            ("&#39;", '\''),
        ]
        .into_iter()
        .find(|(entity, _)| rest.starts_with(entity));
        match entity {
            Some((entity, c)) => {
                out.push(c);
                rest = &rest[entity.len()..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescape_reverses_escape() {
        for text in [
            "plain",
            "B & C",
            "<script>'x'\"y\"</script>",
            "&amp; written",
            "a&b;&",
            "é&#39;",
        ] {
            assert_eq!(unescape(&escape(text)), text);
        }
        assert_eq!(unescape("&nbsp;&amp"), "&nbsp;&amp");
    }
}
