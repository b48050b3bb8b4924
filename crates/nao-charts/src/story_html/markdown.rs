//! A story's Markdown (the text between its tags) as HTML, through pulldown-cmark: CommonMark
//! with tables and strikethrough, raw HTML shown as text, links kept only to safe URLs, images
//! shown as links (never loaded), headings one level below the story title.

use std::collections::VecDeque;
use std::iter::Peekable;

use pulldown_cmark::{CodeBlockKind, CowStr, Event, HeadingLevel, LinkType, Options, Parser};
use pulldown_cmark::{Tag, TagEnd};

/// Appends the HTML of `text`, a piece of story Markdown between two tags.
pub(super) fn push_markdown(out: &mut String, text: &str) {
    if text.trim().is_empty() {
        return;
    }
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    pulldown_cmark::html::push_html(out, SafeEvents::new(Parser::new_ext(text, options)));
}

/// What closes when an image's end comes.
enum ImageEnd {
    /// The `]` of its text, then the link made of it.
    Link,
    /// The `]` of its text only.
    Text,
}

/// The parser's events made safe for the page: no `Html` or `InlineHtml` event comes out (raw
/// HTML becomes text), no link to an unsafe URL, no image.
struct SafeEvents<'a, I: Iterator<Item = Event<'a>>> {
    events: Peekable<I>,
    /// Events to give before reading the next one (an image becomes two or three).
    queued: VecDeque<Event<'a>>,
    /// For each open link, whether its start was given (the start and end of a link to an
    /// unsafe URL, or of one inside another, are dropped, its text kept).
    links: Vec<bool>,
    /// For each open image, what its end gives.
    images: Vec<ImageEnd>,
    /// Links given and not yet closed; an image inside one is not made a link (no `<a>` in
    /// an `<a>`).
    open_anchors: usize,
}

impl<'a, I: Iterator<Item = Event<'a>>> SafeEvents<'a, I> {
    fn new(events: I) -> Self {
        SafeEvents {
            events: events.peekable(),
            queued: VecDeque::new(),
            links: Vec::new(),
            images: Vec::new(),
            open_anchors: 0,
        }
    }

    /// The safe form of `event`, if any (else the caller reads on).
    fn convert(&mut self, event: Event<'a>) -> Option<Event<'a>> {
        match event {
            Event::Html(html) | Event::InlineHtml(html) => Some(Event::Text(html)),
            // A raw HTML block reads as preformatted text, its lines kept.
            Event::Start(Tag::HtmlBlock) => Some(Event::Start(Tag::CodeBlock(
                CodeBlockKind::Fenced(CowStr::Borrowed("")),
            ))),
            Event::End(TagEnd::HtmlBlock) => Some(Event::End(TagEnd::CodeBlock)),
            Event::Start(Tag::Heading {
                level,
                id,
                classes,
                attrs,
            }) => Some(Event::Start(Tag::Heading {
                level: below_title(level),
                id,
                classes,
                attrs,
            })),
            Event::End(TagEnd::Heading(level)) => {
                Some(Event::End(TagEnd::Heading(below_title(level))))
            }
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => {
                // Inside an image's link (an image's text may hold a link), the link is text.
                let safe = self.open_anchors == 0 && is_safe_url(&dest_url);
                self.links.push(safe);
                safe.then(|| {
                    self.open_anchors += 1;
                    Event::Start(Tag::Link {
                        link_type,
                        dest_url,
                        title,
                        id,
                    })
                })
            }
            Event::End(TagEnd::Link) => {
                let given = self.links.pop().unwrap_or(false);
                given.then(|| {
                    self.open_anchors = self.open_anchors.saturating_sub(1);
                    Event::End(TagEnd::Link)
                })
            }
            Event::Start(Tag::Image {
                dest_url,
                title,
                id,
                ..
            }) => {
                let label = if matches!(self.events.peek(), Some(Event::End(TagEnd::Image))) {
                    "[image"
                } else {
                    "[image: "
                };
                if self.open_anchors == 0 && is_safe_url(&dest_url) {
                    self.images.push(ImageEnd::Link);
                    self.open_anchors += 1;
                    self.queued.push_back(Event::Text(CowStr::Borrowed(label)));
                    Some(Event::Start(Tag::Link {
                        link_type: LinkType::Inline,
                        dest_url,
                        title,
                        id,
                    }))
                } else {
                    self.images.push(ImageEnd::Text);
                    Some(Event::Text(CowStr::Borrowed(label)))
                }
            }
            Event::End(TagEnd::Image) => {
                let end = Event::Text(CowStr::Borrowed("]"));
                if let Some(ImageEnd::Link) = self.images.pop() {
                    self.open_anchors = self.open_anchors.saturating_sub(1);
                    self.queued.push_back(Event::End(TagEnd::Link));
                }
                Some(end)
            }
            other => Some(other),
        }
    }
}

impl<'a, I: Iterator<Item = Event<'a>>> Iterator for SafeEvents<'a, I> {
    type Item = Event<'a>;

    fn next(&mut self) -> Option<Event<'a>> {
        loop {
            if let Some(event) = self.queued.pop_front() {
                return Some(event);
            }
            let event = self.events.next()?;
            if let Some(safe) = self.convert(event) {
                return Some(safe);
            }
        }
    }
}

/// A Markdown heading one level down: the story's title is the page's only `<h1>`.
fn below_title(level: HeadingLevel) -> HeadingLevel {
    match level {
        HeadingLevel::H1 => HeadingLevel::H2,
        HeadingLevel::H2 => HeadingLevel::H3,
        HeadingLevel::H3 => HeadingLevel::H4,
        HeadingLevel::H4 => HeadingLevel::H5,
        HeadingLevel::H5 | HeadingLevel::H6 => HeadingLevel::H6,
    }
}

/// Whether a link may point at `url` (as pulldown-cmark gives it: escapes and entities
/// already decoded): `http:`, `https:` and `mailto:` URLs, and references without a scheme
/// (relative paths, `#fragments`, `?queries`, `//host` and email autolinks, which the writer
/// prefixes with `mailto:`). Any other scheme is refused, `javascript:`, `data:` and
/// `vbscript:` among them.
///
/// Read as a browser reads it (WHATWG URL): leading C0 controls and spaces are skipped and
/// tabs and line breaks anywhere are ignored, so `" \u{1}java\tscript:"` is `javascript:`.
/// Anything before a `:` that comes before the first `/`, `?` or `#` counts as a scheme,
/// even text a browser would read as a relative path (`a b:c`), so no oddity slips by.
fn is_safe_url(url: &str) -> bool {
    let mut scheme = String::new();
    let chars = url
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'));
    for c in chars {
        match c {
            ':' => {
                return ["http", "https", "mailto"]
                    .iter()
                    .any(|safe| scheme.eq_ignore_ascii_case(safe));
            }
            '/' | '?' | '#' => return true,
            _ => scheme.push(c),
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::is_safe_url;

    #[test]
    fn only_web_and_mail_schemes_and_references_are_safe() {
        for url in [
            "https://example.com/a?b=1",
            "HTTP://example.com",
            "mailto:someone@example.com",
            "#section",
            "other.html",
            "./a:b",
            "/path?q=x:y",
            "//example.com/x",
            "someone@example.com",
            "",
        ] {
            assert!(is_safe_url(url), "{url:?} is refused");
        }
        for url in [
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            " \u{1}\u{1f}javascript:alert(1)",
            "java\tscr\nipt:alert(1)",
            "data:text/html;base64,PHNjcmlwdD4=",
            "vbscript:msgbox(1)",
            "file:///etc/passwd",
            "a b:c",
            "\u{a0}javascript:alert(1)",
        ] {
            assert!(!is_safe_url(url), "{url:?} is allowed");
        }
    }
}
