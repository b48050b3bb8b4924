//! A small, bounded scanner for the tags of a story: `<chart … />`, `<table … />` and
//! `<grid cols=N>…</grid>`. Everything else is Markdown and passes through untouched; tags in
//! fenced code blocks are text.

use std::fmt;

use nao_render::quoted;
use serde::Serialize;

use crate::chart::{AxisType, ChartSpec, ChartType, Series};

/// The largest story the scanner reads, in bytes (256 KiB).
pub const MAX_STORY_BYTES: usize = 256 * 1024;
/// The scanner stops after this many errors.
pub const MAX_TAG_ERRORS: usize = 20;
/// The most attributes one tag may have.
const MAX_ATTRIBUTES: usize = 16;

const CHART_EXAMPLE: &str = "<chart query_id=\"…\" chart_type=\"bar\" x_axis_key=\"…\" \
series='[{\"data_key\": \"…\"}]' title=\"…\" />";
const TABLE_EXAMPLE: &str = "<table query_id=\"…\" title=\"…\" />";
const GRID_EXAMPLE: &str = "<grid cols=\"2\">…</grid>";

/// A problem in a story's tags, at a 1-based line and column (columns count characters).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct TagError {
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1, in characters.
    pub column: usize,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl fmt::Display for TagError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for TagError {}

/// A tag of a story, where it is, and what it says.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct StoryTag {
    /// What the tag is.
    pub kind: TagKind,
    /// Its first byte (the `<`) in the story.
    pub start: usize,
    /// One past its last byte (the `>`).
    pub end: usize,
    /// The line of its `<`, from 1.
    pub line: usize,
    /// The column of its `<`, from 1.
    pub column: usize,
}

/// The kinds of story tags.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "tag")]
#[non_exhaustive]
pub enum TagKind {
    /// `<chart … />`.
    Chart(ChartTag),
    /// `<table … />`.
    Table(TableTag),
    /// `<grid cols=N>`.
    GridOpen {
        /// Columns, 1 to 4.
        cols: u8,
    },
    /// `</grid>`.
    GridClose,
}

/// A `<chart … />` tag.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ChartTag {
    /// The query id of the plotted result.
    pub query_id: String,
    /// The kind of chart.
    pub chart_type: ChartType,
    /// The column of the x axis.
    pub x_axis_key: String,
    /// What the x column holds, when the tag says.
    pub x_axis_type: Option<AxisType>,
    /// The plotted columns.
    pub series: Vec<Series>,
    /// The chart's title.
    pub title: String,
}

impl ChartTag {
    /// The chart spec the tag asks for, over the stored result with id `result_id` (the
    /// result's own id, which may differ in spelling from the tag's `query_id`); an x axis of
    /// unstated type is read as categories.
    pub fn spec(&self, result_id: &str) -> ChartSpec {
        ChartSpec::new(
            result_id,
            self.chart_type,
            self.x_axis_key.clone(),
            self.x_axis_type.unwrap_or(AxisType::Category),
            self.series.clone(),
            self.title.clone(),
        )
    }
}

/// A `<table … />` tag.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct TableTag {
    /// The query id of the shown result.
    pub query_id: String,
    /// The table's title.
    pub title: Option<String>,
}

/// Reads the tags of `code`, in order. On failure, returns every error found (at most
/// [`MAX_TAG_ERRORS`]), in order. Never panics; time and memory are linear in the input,
/// which may be at most [`MAX_STORY_BYTES`].
pub fn scan_tags(code: &str) -> Result<Vec<StoryTag>, Vec<TagError>> {
    if code.len() > MAX_STORY_BYTES {
        return Err(vec![TagError {
            line: 1,
            column: 1,
            message: format!(
                "the story is {} bytes; the limit is {MAX_STORY_BYTES} bytes. Split it into \
                 several stories or shorten it",
                code.len()
            ),
        }]);
    }
    let mut scanner = Scanner::new(code);
    scanner.run();
    if scanner.errors.is_empty() {
        Ok(scanner.tags)
    } else {
        Err(scanner.errors)
    }
}

struct Attribute<'a> {
    name: &'a str,
    value: String,
    at: usize,
    value_at: usize,
}

struct Parsed<'a> {
    attributes: Vec<Attribute<'a>>,
    self_closing: bool,
    end: usize,
}

struct Scanner<'a> {
    src: &'a str,
    bytes: &'a [u8],
    line_starts: Vec<usize>,
    fences: Vec<(usize, usize)>,
    tags: Vec<StoryTag>,
    errors: Vec<TagError>,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

impl<'a> Scanner<'a> {
    fn new(src: &'a str) -> Self {
        let bytes = src.as_bytes();
        let mut line_starts = vec![0];
        line_starts.extend(
            bytes
                .iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i + 1),
        );
        let fences = fences(src, &line_starts);
        Scanner {
            src,
            bytes,
            line_starts,
            fences,
            tags: Vec::new(),
            errors: Vec::new(),
        }
    }

    fn position(&self, offset: usize) -> (usize, usize) {
        let line = self.line_starts.partition_point(|s| *s <= offset).max(1);
        let start = self.line_starts.get(line - 1).copied().unwrap_or(0);
        let column = self
            .src
            .get(start..offset)
            .map_or(1, |s| s.chars().count() + 1);
        (line, column)
    }

    fn error(&mut self, offset: usize, message: impl Into<String>) {
        if self.errors.len() < MAX_TAG_ERRORS {
            let (line, column) = self.position(offset);
            self.errors.push(TagError {
                line,
                column,
                message: message.into(),
            });
        }
    }

    fn full(&self) -> bool {
        self.errors.len() >= MAX_TAG_ERRORS
    }

    fn in_fence(&self, offset: usize) -> bool {
        self.fences.iter().any(|(s, e)| *s <= offset && offset < *e)
    }

    fn skip_space(&self, mut p: usize) -> usize {
        while p < self.bytes.len() && is_space(self.bytes[p]) {
            p += 1;
        }
        p
    }

    fn name_end(&self, mut p: usize) -> usize {
        while p < self.bytes.len() && is_name_byte(self.bytes[p]) {
            p += 1;
        }
        p
    }

    fn run(&mut self) {
        let mut open_grid: Option<usize> = None;
        let mut i = 0;
        while i < self.bytes.len() && !self.full() {
            let Some(found) = self.bytes[i..].iter().position(|b| *b == b'<') else {
                break;
            };
            let at = i + found;
            i = at + 1;
            if self.in_fence(at) {
                continue;
            }
            let closing = self.bytes.get(at + 1) == Some(&b'/');
            let name_start = if closing { at + 2 } else { at + 1 };
            let name_end = self.name_end(name_start);
            let name = self.src.get(name_start..name_end).unwrap_or("");
            if !matches!(name, "chart" | "table" | "grid") {
                continue;
            }
            i = name_end;
            if closing {
                let p = self.skip_space(name_end);
                if self.bytes.get(p) != Some(&b'>') {
                    self.error(at, format!("`</{name}` is not closed: write `</{name}>`"));
                    continue;
                }
                i = p + 1;
                if name != "grid" {
                    self.error(
                        at,
                        format!(
                            "`</{name}>`: {name} tags are self-closing; remove `</{name}>` and \
                             end the tag with `/>`"
                        ),
                    );
                    continue;
                }
                if open_grid.take().is_none() {
                    self.error(at, "`</grid>` closes no open `<grid>`: remove it or open a grid before it with `<grid cols=\"2\">`");
                    continue;
                }
                self.push(TagKind::GridClose, at, p + 1);
                continue;
            }
            let parsed = match self.attributes(name, at, name_end) {
                Ok(parsed) => parsed,
                Err((offset, message)) => {
                    self.error(offset, message);
                    continue;
                }
            };
            i = parsed.end;
            let kind = match name {
                "chart" => self.chart(at, &parsed).map(TagKind::Chart),
                "table" => self.table(at, &parsed).map(TagKind::Table),
                _ => {
                    let cols = self.grid(at, &parsed);
                    if let Some(opened) = open_grid {
                        let (line, column) = self.position(opened);
                        self.error(
                            at,
                            format!(
                                "grids cannot be nested: close the `<grid>` opened at \
                                 {line}:{column} with `</grid>` first"
                            ),
                        );
                        continue;
                    }
                    if cols.is_some() || !parsed.self_closing {
                        open_grid = Some(at);
                    }
                    cols.map(|cols| TagKind::GridOpen { cols })
                }
            };
            if let Some(kind) = kind {
                self.push(kind, at, parsed.end);
            }
        }
        if let Some(opened) = open_grid {
            self.error(
                opened,
                "this `<grid>` is never closed: add `</grid>` after its last chart or table",
            );
        }
    }

    fn push(&mut self, kind: TagKind, start: usize, end: usize) {
        let (line, column) = self.position(start);
        self.tags.push(StoryTag {
            kind,
            start,
            end,
            line,
            column,
        });
    }

    /// Reads the attributes of the tag at `start` up to its `>` or `/>`.
    fn attributes(
        &self,
        tag: &str,
        start: usize,
        mut p: usize,
    ) -> Result<Parsed<'a>, (usize, String)> {
        let unclosed = || {
            (
                start,
                format!(
                    "`<{tag}` is never closed: end the tag with `{}`",
                    if tag == "grid" { ">" } else { "/>" }
                ),
            )
        };
        let mut attributes: Vec<Attribute<'a>> = Vec::new();
        loop {
            p = self.skip_space(p);
            let Some(&b) = self.bytes.get(p) else {
                return Err(unclosed());
            };
            match b {
                b'/' if self.bytes.get(p + 1) == Some(&b'>') => {
                    return Ok(Parsed {
                        attributes,
                        self_closing: true,
                        end: p + 2,
                    });
                }
                b'>' => {
                    return Ok(Parsed {
                        attributes,
                        self_closing: false,
                        end: p + 1,
                    });
                }
                b'<' => return Err(unclosed()),
                _ => {}
            }
            if !(b.is_ascii_alphabetic() || b == b'_') {
                let c = self
                    .src
                    .get(p..)
                    .and_then(|s| s.chars().next())
                    .unwrap_or('?');
                return Err((
                    p,
                    format!(
                        "unexpected {} in `<{tag}`: write attributes as name=\"value\" and \
                         end the tag with `{}`",
                        quoted(c.encode_utf8(&mut [0; 4]), 1),
                        if tag == "grid" { ">" } else { "/>" }
                    ),
                ));
            }
            let name_at = p;
            p = self.name_end(p);
            let name = self.src.get(name_at..p).unwrap_or("");
            p = self.skip_space(p);
            if self.bytes.get(p) != Some(&b'=') {
                return Err((
                    name_at,
                    format!("attribute `{name}` of `<{tag}>` has no value: write {name}=\"…\""),
                ));
            }
            p = self.skip_space(p + 1);
            let Some(&quote) = self.bytes.get(p) else {
                return Err(unclosed());
            };
            let (raw, value_at) = if quote == b'"' || quote == b'\'' {
                let Some(len) = self.bytes[p + 1..].iter().position(|b| *b == quote) else {
                    return Err((
                        p,
                        format!(
                            "the value of `{name}` opens with {} but never closes: add the \
                             closing quote",
                            quote as char
                        ),
                    ));
                };
                let raw = self.src.get(p + 1..p + 1 + len).unwrap_or("");
                let value_at = p + 1;
                p += len + 2;
                (raw, value_at)
            } else {
                let value_at = p;
                while p < self.bytes.len() {
                    let c = self.bytes[p];
                    if is_space(c)
                        || c == b'>'
                        || c == b'<'
                        || (c == b'/' && self.bytes.get(p + 1) == Some(&b'>'))
                    {
                        break;
                    }
                    p += 1;
                }
                if p == value_at {
                    return Err((
                        name_at,
                        format!("attribute `{name}` of `<{tag}>` has no value: write {name}=\"…\""),
                    ));
                }
                (self.src.get(value_at..p).unwrap_or(""), value_at)
            };
            if attributes.iter().any(|a| a.name == name) {
                return Err((name_at, format!("`<{tag}>` has `{name}` twice: keep one")));
            }
            if attributes.len() >= MAX_ATTRIBUTES {
                return Err((name_at, format!("`<{tag}>` has too many attributes")));
            }
            attributes.push(Attribute {
                name,
                value: decode_entities(raw).into_owned(),
                at: name_at,
                value_at,
            });
        }
    }

    /// Reports unknown and missing attributes; returns whether all is well.
    fn check_names(
        &mut self,
        tag: &str,
        at: usize,
        parsed: &Parsed<'_>,
        required: &[&str],
        optional: &[&str],
        example: &str,
    ) -> bool {
        let mut ok = true;
        for attribute in &parsed.attributes {
            if !required.contains(&attribute.name) && !optional.contains(&attribute.name) {
                let known: Vec<&str> = required.iter().chain(optional).copied().collect();
                self.error(
                    attribute.at,
                    format!(
                        "`<{tag}>` has no attribute `{}`; its attributes are {}",
                        attribute.name,
                        known.join(", ")
                    ),
                );
                ok = false;
            }
        }
        let missing: Vec<&str> = required
            .iter()
            .filter(|r| !parsed.attributes.iter().any(|a| a.name == **r))
            .copied()
            .collect();
        if !missing.is_empty() {
            self.error(
                at,
                format!(
                    "`<{tag}>` is missing {}: write {example}",
                    missing
                        .iter()
                        .map(|m| format!("`{m}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
            ok = false;
        }
        ok
    }

    fn self_closing(&mut self, tag: &str, at: usize, parsed: &Parsed<'_>, example: &str) -> bool {
        if !parsed.self_closing {
            self.error(
                at,
                format!("`<{tag}>` must be self-closing: end it with `/>`, as in {example}"),
            );
        }
        parsed.self_closing
    }

    fn chart(&mut self, at: usize, parsed: &Parsed<'_>) -> Option<ChartTag> {
        let closed = self.self_closing("chart", at, parsed, CHART_EXAMPLE);
        let named = self.check_names(
            "chart",
            at,
            parsed,
            &["query_id", "chart_type", "x_axis_key", "series", "title"],
            &["x_axis_type"],
            CHART_EXAMPLE,
        );
        let get = |name: &str| parsed.attributes.iter().find(|a| a.name == name);
        let chart_type = get("chart_type").and_then(|a| {
            let found = ChartType::ALL
                .iter()
                .copied()
                .find(|t| t.name() == a.value.trim());
            if found.is_none() {
                let names: Vec<&str> = ChartType::ALL.iter().map(|t| t.name()).collect();
                self.error(
                    a.value_at,
                    format!(
                        "unknown chart_type {}; use one of {}",
                        quoted(&a.value, 40),
                        names.join(", ")
                    ),
                );
            }
            found
        });
        let mut x_ok = true;
        let x_axis_type = get("x_axis_type").and_then(|a| {
            let found = match a.value.trim() {
                "date" => Some(AxisType::Date),
                "number" => Some(AxisType::Number),
                "category" => Some(AxisType::Category),
                _ => None,
            };
            if found.is_none() {
                x_ok = false;
                self.error(
                    a.value_at,
                    format!(
                        "unknown x_axis_type {}; use date, number or category",
                        quoted(&a.value, 40)
                    ),
                );
            }
            found
        });
        let series = get("series").and_then(|a| self.series(a));
        let tag = ChartTag {
            query_id: get("query_id")?.value.trim().to_owned(),
            chart_type: chart_type?,
            x_axis_key: get("x_axis_key")?.value.clone(),
            x_axis_type,
            series: series?,
            title: get("title")?.value.clone(),
        };
        (closed && named && x_ok).then_some(tag)
    }

    fn series(&mut self, attribute: &Attribute<'_>) -> Option<Vec<Series>> {
        const FIX: &str = "write series='[{\"data_key\": \"revenue\", \"label\": \"Revenue\"}]' \
                           (single quotes around the JSON)";
        let at = attribute.value_at;
        let value: serde_json::Value = match serde_json::from_str(&attribute.value) {
            Ok(value) => value,
            Err(e) => {
                self.error(at, format!("series is not valid JSON ({e}): {FIX}"));
                return None;
            }
        };
        let Some(items) = value.as_array() else {
            self.error(at, format!("series must be a JSON array of objects: {FIX}"));
            return None;
        };
        if items.is_empty() {
            self.error(at, format!("series is empty: {FIX}"));
            return None;
        }
        let mut series = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let has_key = item
                .get("data_key")
                .and_then(|k| k.as_str())
                .is_some_and(|k| !k.trim().is_empty());
            if !item.is_object() || !has_key {
                self.error(
                    at,
                    format!("series[{i}] must be an object with a non-empty \"data_key\": {FIX}"),
                );
                return None;
            }
            match serde_json::from_value::<Series>(item.clone()) {
                Ok(s) => series.push(s),
                Err(e) => {
                    self.error(
                        at,
                        format!("series[{i}]: {e}; its fields are data_key, label and color"),
                    );
                    return None;
                }
            }
        }
        Some(series)
    }

    fn table(&mut self, at: usize, parsed: &Parsed<'_>) -> Option<TableTag> {
        let closed = self.self_closing("table", at, parsed, TABLE_EXAMPLE);
        let named = self.check_names(
            "table",
            at,
            parsed,
            &["query_id"],
            &["title"],
            TABLE_EXAMPLE,
        );
        let get = |name: &str| parsed.attributes.iter().find(|a| a.name == name);
        let tag = TableTag {
            query_id: get("query_id")?.value.trim().to_owned(),
            title: get("title").map(|a| a.value.clone()),
        };
        (closed && named).then_some(tag)
    }

    fn grid(&mut self, at: usize, parsed: &Parsed<'_>) -> Option<u8> {
        if parsed.self_closing {
            self.error(
                at,
                format!("`<grid />` cannot be self-closing: a grid wraps charts and tables, as in {GRID_EXAMPLE}"),
            );
        }
        if !self.check_names("grid", at, parsed, &["cols"], &[], GRID_EXAMPLE) {
            return None;
        }
        let attribute = parsed.attributes.iter().find(|a| a.name == "cols")?;
        match attribute.value.trim().parse::<u8>() {
            Ok(cols @ 1..=4) if !parsed.self_closing => Some(cols),
            Ok(1..=4) => None,
            _ => {
                self.error(
                    attribute.value_at,
                    format!(
                        "grid cols must be 1, 2, 3 or 4, not {}",
                        quoted(&attribute.value, 20)
                    ),
                );
                None
            }
        }
    }
}

/// The byte ranges of fenced code blocks (``` or ~~~), whose tags are text.
fn fences(src: &str, line_starts: &[usize]) -> Vec<(usize, usize)> {
    let mut fences = Vec::new();
    let mut open: Option<(usize, &str)> = None;
    for (n, start) in line_starts.iter().enumerate() {
        let end = line_starts.get(n + 1).copied().unwrap_or(src.len());
        let line = src.get(*start..end).unwrap_or("").trim_start();
        let marker = if line.starts_with("```") {
            "```"
        } else if line.starts_with("~~~") {
            "~~~"
        } else {
            continue;
        };
        match open {
            None => open = Some((*start, marker)),
            Some((from, m)) if m == marker => {
                fences.push((from, end));
                open = None;
            }
            Some(_) => {}
        }
    }
    if let Some((from, _)) = open {
        fences.push((from, src.len()));
    }
    fences
}

/// Decodes the few HTML entities markup text may hold: `&quot;`, `&#39;`, `&apos;`, `&lt;`,
/// `&gt;` and `&amp;` (what story attributes need, and what nao's own escaping and charts-rs's
/// write); any other `&` stays as written.
///
/// ```
/// use nao_core::story::decode_entities;
///
/// assert_eq!(decode_entities("B &amp; C &lt;3 &nbsp;"), "B & C <3 &nbsp;");
/// ```
pub fn decode_entities(raw: &str) -> std::borrow::Cow<'_, str> {
    if !raw.contains('&') {
        return std::borrow::Cow::Borrowed(raw);
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let entity = [
            ("&quot;", '"'),
            ("&#39;", '\''),
            ("&apos;", '\''),
            ("&lt;", '<'),
            ("&gt;", '>'),
            ("&amp;", '&'),
        ]
        .into_iter()
        .find(|(e, _)| rest.starts_with(e));
        match entity {
            Some((e, c)) => {
                out.push(c);
                rest = &rest[e.len()..];
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
