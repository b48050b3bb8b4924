//! Helpers shared by the integration tests of nao-charts.

/// Checks that elements balance (every opened element is closed in order; `<?…>`, `<!…>` and
/// self-closed elements stand alone), that quotes in tags balance, and that no text holds a raw
/// `&` that is not an entity; returns the element names in order.
pub(crate) fn elements(svg: &str) -> Vec<String> {
    let mut stack: Vec<String> = Vec::new();
    let mut names = Vec::new();
    let mut rest = svg;
    while let Some(start) = rest.find('<') {
        let end = rest[start..].find('>').expect("unclosed tag") + start;
        let tag = &rest[start + 1..end];
        assert!(!tag.contains('<'), "'<' inside a tag: {tag}");
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(
                stack.pop().as_deref(),
                Some(name.trim()),
                "mismatched </{name}>"
            );
        } else if !tag.starts_with('?') && !tag.starts_with('!') {
            let name: String = tag
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != '/')
                .collect();
            assert_eq!(tag.matches('"').count() % 2, 0, "unbalanced quotes: {tag}");
            names.push(name.clone());
            if !tag.ends_with('/') {
                stack.push(name);
            }
        }
        // Text between tags must not hold a raw '&' that is not an entity.
        let text_end = rest[end + 1..]
            .find('<')
            .map_or(rest.len(), |i| i + end + 1);
        let text = &rest[end + 1..text_end];
        for (i, _) in text.match_indices('&') {
            let entity = &text[i..];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;", "&#"]
                    .iter()
                    .any(|e| entity.starts_with(e)),
                "raw & in text: {text}"
            );
        }
        rest = &rest[end + 1..];
    }
    assert!(stack.is_empty(), "unclosed elements: {stack:?}");
    names
}
