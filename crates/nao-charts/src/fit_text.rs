//! Chart text drawn at the width it was laid out for, whatever font the browser has.
//!
//! charts-rs lays text out with Roboto's metrics (it embeds Roboto to measure labels, cut them
//! to their slots and place them), but a browser draws the first font of
//! [`FONT_STACK`](crate::render::FONT_STACK) it has: where Roboto is missing, a fallback of
//! other widths (Liberation Sans, Arial's stand-in, is a few percent wider; DejaVu Sans,
//! Debian's default sans-serif, about a tenth) would push labels past their slots and into
//! each other. Each `<text>` therefore gets the width Roboto gives it as `textLength`, with
//! `lengthAdjust="spacingAndGlyphs"`: the browser fits whichever font it picked into exactly
//! that width, so the layout holds.
//!
//! The SVG is charts-rs's output (or the KPI card's), whose text elements hold escaped text
//! only; one that holds markup (a `<tspan>`) or no `font-size` is left as it is.

use nao_core::story::decode_entities;

/// The family charts-rs measures with (its embedded font).
const MEASURED_FAMILY: &str = "Roboto";

/// `svg` with `textLength` on every plain `<text>` element.
pub(crate) fn fit_text(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len() + svg.len() / 8);
    let mut rest = svg;
    while let Some(start) = rest.find("<text") {
        let (before, from_tag) = rest.split_at(start);
        out.push_str(before);
        let Some(element) = TextElement::at(from_tag) else {
            // Not a text element after all (`<textPath`), or not a plain one: as written.
            let skip = "<text".len();
            out.push_str(&from_tag[..skip]);
            rest = &from_tag[skip..];
            continue;
        };
        match element.fitted_tag() {
            Some(tag) => out.push_str(&tag),
            None => out.push_str(element.tag),
        }
        out.push_str(element.body);
        rest = &from_tag[element.tag.len() + element.body.len()..];
    }
    out.push_str(rest);
    out
}

/// One `<text …>content</text>` element of the SVG.
struct TextElement<'a> {
    /// The start tag, `<text` to `>`.
    tag: &'a str,
    /// The content and the end tag.
    body: &'a str,
    /// The content, still escaped.
    content: &'a str,
}

impl<'a> TextElement<'a> {
    /// The plain text element `svg` starts with, if it starts with one.
    fn at(svg: &'a str) -> Option<Self> {
        let after_name = svg.strip_prefix("<text")?;
        if !after_name.starts_with([' ', '>', '\n', '\t']) {
            return None;
        }
        let tag_end = svg.find('>')? + 1;
        let (tag, after_tag) = svg.split_at(tag_end);
        let content_end = after_tag.find("</text>")?;
        let content = &after_tag[..content_end];
        if content.contains('<') {
            return None;
        }
        let body = &after_tag[..content_end + "</text>".len()];
        Some(TextElement { tag, body, content })
    }

    /// The start tag with the text's measured width, unless it has one already or cannot be
    /// measured.
    fn fitted_tag(&self) -> Option<String> {
        if self.tag.contains("textLength=") {
            return None;
        }
        let font_size: f32 = attribute(self.tag, "font-size")?.parse().ok()?;
        // Leading and trailing white space is not drawn (charts-rs puts the text on its own
        // line).
        let text = decode_entities(self.content.trim());
        if text.is_empty() || !font_size.is_finite() || font_size <= 0.0 {
            return None;
        }
        let measured = charts_rs::measure_text_width_family(MEASURED_FAMILY, font_size, &text)
            .ok()?
            .width();
        if !measured.is_finite() || measured <= 0.0 {
            return None;
        }
        let open = self.tag.strip_suffix('>')?;
        let open = open.strip_suffix('/').unwrap_or(open).trim_end();
        Some(format!(
            "{open} textLength=\"{measured:.1}\" lengthAdjust=\"spacingAndGlyphs\">"
        ))
    }
}

/// The value of `name="…"` in a start tag.
fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let mut search = tag;
    loop {
        let at = search.find(name)?;
        let before = search[..at].chars().next_back();
        let after = &search[at + name.len()..];
        if before.is_some_and(char::is_whitespace)
            && let Some(value) = after.strip_prefix("=\"")
        {
            return value.split('"').next();
        }
        search = after;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_length(svg: &str) -> Vec<f32> {
        svg.match_indices("textLength=\"")
            .map(|(i, m)| {
                let value = &svg[i + m.len()..];
                value[..value.find('"').unwrap()].parse().unwrap()
            })
            .collect()
    }

    #[test]
    fn each_text_gets_the_width_roboto_gives_it() {
        let svg = "<svg><text font-size=\"14\" x=\"2\" y=\"6\" font-family=\"Roboto\">\nB &amp; C\n</text>\
                   <text x=\"1\" font-size=\"28\">Revenue</text></svg>";
        let fitted = fit_text(svg);
        let expected = |size: f32, text: &str| {
            charts_rs::measure_text_width_family("Roboto", size, text)
                .unwrap()
                .width()
        };
        let lengths = text_length(&fitted);
        assert_eq!(lengths.len(), 2, "{fitted}");
        assert!(
            (lengths[0] - expected(14.0, "B & C")).abs() < 0.06,
            "{fitted}"
        );
        assert!(
            (lengths[1] - expected(28.0, "Revenue")).abs() < 0.06,
            "{fitted}"
        );
        // Twice the size, about twice the width: the size is read from each element.
        assert!(lengths[1] > lengths[0] * 1.5);
        assert!(fitted.contains("lengthAdjust=\"spacingAndGlyphs\">\nB &amp; C\n</text>"));
    }

    #[test]
    fn everything_else_is_left_as_written() {
        let untouched = [
            "<svg><text x=\"1\">no size</text></svg>",
            "<svg><text font-size=\"14\"><tspan>markup</tspan></text></svg>",
            "<svg><text font-size=\"14\" textLength=\"10\">sized</text></svg>",
            "<svg><text font-size=\"14\">   </text></svg>",
            "<svg><textPath font-size=\"14\">path</textPath></svg>",
            "<svg><text font-size=\"14\">never closed</svg>",
            "<svg><text font-size=\"-3\">negative</text><text font-size=\"x\">odd</text></svg>",
            "<text",
            "",
        ];
        for svg in untouched {
            assert_eq!(fit_text(svg), svg);
        }
    }

    #[test]
    fn attributes_are_found_by_their_whole_name() {
        let tag = "<text data-font-size=\"99\" font-size=\"12\">";
        assert_eq!(attribute(tag, "font-size"), Some("12"));
        assert_eq!(attribute("<text size=\"3\">", "font-size"), None);
    }
}
