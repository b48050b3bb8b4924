//! A story as one standalone HTML document: its Markdown as conservative HTML (every text
//! escaped), `<chart …/>` tags as inline SVG, `<table …/>` tags as HTML tables and
//! `<grid cols=N>` as a CSS grid, so a host can show it or export it without a browser
//! runtime or network.

use std::fmt::{self, Write as _};

use arrow_cast::display::{ArrayFormatter, FormatOptions};
use nao_core::arrow::array::Array;
use nao_core::chart::{AxisType, ChartSpec};
use nao_core::story::{ChartTag, StoryVersion, TableTag, TagError, TagKind, scan_tags};
use nao_core::{QueryId, QueryResult, ResultStore};

use crate::render_svg;

/// The most rows a `<table …/>` tag shows; a note says how many more the result holds.
pub const MAX_HTML_TABLE_ROWS: usize = 200;

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:72rem;margin:2rem auto;\
padding:0 1rem;color:#1f2328;line-height:1.5}\
table{border-collapse:collapse;margin:1rem 0;font-size:.9rem}\
th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left}\
th{background:#f6f8fa}caption{font-weight:600;text-align:left;padding:.25rem 0}\
code,pre{background:#f6f8fa;border-radius:4px}code{padding:0 .2rem}pre{padding:.5rem;\
overflow:auto}figure{margin:1rem 0}figure svg{max-width:100%;height:auto}\
.grid{display:grid;gap:1rem}.grid figure,.grid table{margin:0}\
.missing{border:1px dashed #cf222e;color:#cf222e;padding:.5rem}\
.more{color:#59636e;font-size:.85rem}";

/// Why a story could not be turned into HTML.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum StoryHtmlError {
    /// The story's tags do not scan (only a story that was never validated can get here).
    #[error("the story's tags cannot be read:{}", ListErrors(.errors))]
    Tags {
        /// Every problem, in order, with its `line:column`.
        errors: Vec<TagError>,
    },
}

struct ListErrors<'a>(&'a [TagError]);

impl fmt::Display for ListErrors<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for error in self.0 {
            write!(f, "\n- {error}")?;
        }
        Ok(())
    }
}

/// Renders `story` as a standalone HTML5 document: its title as `<h1>`, its Markdown as
/// paragraphs, headings (`#` to `###`, shown one level below the title), `-` lists,
/// fenced code, `**bold**` and `` `code` ``, with every text HTML-escaped (no raw HTML from
/// the story passes through); each `<chart …/>` as the inline SVG of [`render_svg`], each
/// `<table …/>` as an HTML table of at most [`MAX_HTML_TABLE_ROWS`] rows, and each
/// `<grid cols=N>` as a CSS grid. A chart or table whose result is not in `results`, or a
/// chart that cannot be drawn, becomes a visible `<figure class="missing">` note naming the
/// query id.
///
/// Fails only when the story's tags do not scan ([`scan_tags`]).
pub async fn render_story_html(
    story: &StoryVersion,
    results: &ResultStore,
) -> Result<String, StoryHtmlError> {
    let tags = scan_tags(&story.code).map_err(|errors| StoryHtmlError::Tags { errors })?;
    let mut out = String::with_capacity(story.code.len() * 2 + 1024);
    out.push_str("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\" />\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\" />\n");
    let _ = writeln!(out, "<title>{}</title>", escape(&story.title));
    let _ = writeln!(out, "<style>{STYLE}</style>\n</head>\n<body>");
    let _ = writeln!(out, "<h1>{}</h1>", escape(&story.title));
    let mut at = 0;
    for tag in &tags {
        markdown(&mut out, story.code.get(at..tag.start).unwrap_or_default());
        match &tag.kind {
            TagKind::Chart(chart) => chart_html(&mut out, chart, results).await,
            TagKind::Table(table) => table_html(&mut out, table, results).await,
            TagKind::GridOpen { cols } => {
                let _ = writeln!(
                    out,
                    "<div class=\"grid\" style=\"grid-template-columns: repeat({cols}, 1fr)\">"
                );
            }
            TagKind::GridClose => out.push_str("</div>\n"),
            // A tag kind this renderer does not know yet shows as nothing.
            _ => {}
        }
        at = tag.end;
    }
    markdown(&mut out, story.code.get(at..).unwrap_or_default());
    out.push_str("</body>\n</html>\n");
    Ok(out)
}

/// Escapes text for HTML element content and quoted attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

fn missing(out: &mut String, query_id: &str, why: &str) {
    let _ = writeln!(
        out,
        "<figure class=\"missing\"><figcaption>Query {}: {}</figcaption></figure>",
        escape(query_id),
        escape(why)
    );
}

async fn chart_html(out: &mut String, chart: &ChartTag, results: &ResultStore) {
    let Some(result) = results
        .get(&QueryId::from_model(chart.query_id.as_str()))
        .await
    else {
        missing(
            out,
            &chart.query_id,
            "the result is no longer available, so this chart cannot be drawn",
        );
        return;
    };
    let spec = ChartSpec::new(
        result.id.as_str(),
        chart.chart_type,
        chart.x_axis_key.clone(),
        chart.x_axis_type.unwrap_or(AxisType::Category),
        chart.series.clone(),
        chart.title.clone(),
    );
    match render_svg(&spec, &result) {
        Ok(svg) => {
            let _ = writeln!(out, "<figure class=\"chart\">{svg}</figure>");
        }
        Err(e) => missing(
            out,
            &chart.query_id,
            &format!("the chart cannot be drawn: {e}"),
        ),
    }
}

async fn table_html(out: &mut String, table: &TableTag, results: &ResultStore) {
    let Some(result) = results
        .get(&QueryId::from_model(table.query_id.as_str()))
        .await
    else {
        missing(
            out,
            &table.query_id,
            "the result is no longer available, so this table cannot be shown",
        );
        return;
    };
    write_table(out, table.title.as_deref(), &result);
}

fn write_table(out: &mut String, title: Option<&str>, result: &QueryResult) {
    out.push_str("<table>\n");
    if let Some(title) = title {
        let _ = writeln!(out, "<caption>{}</caption>", escape(title));
    }
    out.push_str("<thead><tr>");
    for field in result.schema.fields() {
        let _ = write!(out, "<th>{}</th>", escape(field.name()));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    let options = FormatOptions::default().with_null("");
    let mut shown = 0;
    let mut total = 0;
    for batch in &result.batches {
        total += batch.num_rows();
        let take = batch.num_rows().min(MAX_HTML_TABLE_ROWS - shown);
        if take == 0 {
            continue;
        }
        let formatters: Vec<_> = batch
            .columns()
            .iter()
            .map(|column| ArrayFormatter::try_new(column.as_ref() as &dyn Array, &options).ok())
            .collect();
        for row in 0..take {
            out.push_str("<tr>");
            for formatter in &formatters {
                let text = formatter
                    .as_ref()
                    .map_or_else(|| "(no text form)".to_owned(), |f| f.value(row).to_string());
                let _ = write!(out, "<td>{}</td>", escape(&text));
            }
            out.push_str("</tr>\n");
        }
        shown += take;
    }
    out.push_str("</tbody>\n</table>\n");
    if total > shown {
        let more = total - shown;
        let _ = writeln!(
            out,
            "<p class=\"more\">{more} more row{} not shown.</p>",
            if more == 1 { "" } else { "s" }
        );
    }
}

/// Block state of the Markdown converter.
#[derive(PartialEq)]
enum Block {
    None,
    Paragraph,
    List,
    Code,
}

fn close(out: &mut String, block: &mut Block) {
    match block {
        Block::Paragraph => out.push_str("</p>\n"),
        Block::List => out.push_str("</ul>\n"),
        Block::Code => out.push_str("</code></pre>\n"),
        Block::None => {}
    }
    *block = Block::None;
}

/// Converts a piece of story Markdown (between tags) into HTML, conservatively.
fn markdown(out: &mut String, text: &str) {
    let mut block = Block::None;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            if block == Block::Code {
                close(out, &mut block);
            } else {
                close(out, &mut block);
                out.push_str("<pre><code>");
                block = Block::Code;
            }
            continue;
        }
        if block == Block::Code {
            out.push_str(&escape(line));
            out.push('\n');
            continue;
        }
        if trimmed.is_empty() {
            close(out, &mut block);
            continue;
        }
        if let Some((level, heading)) = heading(trimmed) {
            close(out, &mut block);
            let _ = writeln!(out, "<h{level}>{}</h{level}>", inline(heading));
            continue;
        }
        if let Some(item) = trimmed
            .strip_prefix("- ")
            .or_else(|| trimmed.strip_prefix("* "))
        {
            if block != Block::List {
                close(out, &mut block);
                out.push_str("<ul>\n");
                block = Block::List;
            }
            let _ = writeln!(out, "<li>{}</li>", inline(item.trim()));
            continue;
        }
        if block == Block::Paragraph {
            out.push('\n');
        } else {
            close(out, &mut block);
            out.push_str("<p>");
            block = Block::Paragraph;
        }
        out.push_str(&inline(trimmed));
    }
    close(out, &mut block);
}

/// `#`, `##` and `###` headings, shown as `<h2>` to `<h4>` under the title's `<h1>`.
fn heading(line: &str) -> Option<(usize, &str)> {
    let hashes = line.bytes().take_while(|b| *b == b'#').count();
    if !(1..=3).contains(&hashes) {
        return None;
    }
    let rest = line.get(hashes..)?;
    rest.starts_with(' ')
        .then(|| (hashes + 1, rest.trim().trim_end_matches('#').trim_end()))
}

/// Inline Markdown: `` `code` `` spans first (their text is literal), then `**bold**` pairs
/// in the rest; everything escaped.
fn inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let after = rest.get(open + 1..).unwrap_or_default();
        let Some(len) = after.find('`') else { break };
        bold(&mut out, rest.get(..open).unwrap_or_default());
        let _ = write!(
            out,
            "<code>{}</code>",
            escape(after.get(..len).unwrap_or_default())
        );
        rest = after.get(len + 1..).unwrap_or_default();
    }
    bold(&mut out, rest);
    out
}

fn bold(out: &mut String, text: &str) {
    let mut rest = text;
    while let Some(open) = rest.find("**") {
        let after = rest.get(open + 2..).unwrap_or_default();
        let Some(len) = after.find("**").filter(|len| *len > 0) else {
            break;
        };
        out.push_str(&escape(rest.get(..open).unwrap_or_default()));
        let _ = write!(
            out,
            "<strong>{}</strong>",
            escape(after.get(..len).unwrap_or_default())
        );
        rest = after.get(len + 2..).unwrap_or_default();
    }
    out.push_str(&escape(rest));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_is_escaped_and_structured() {
        let mut out = String::new();
        markdown(
            &mut out,
            "## Sub <b>\n\nA **bold** and `<i>` line\nnext\n\n- one\n- two & three\n\n```\n<x>\n```\n",
        );
        assert_eq!(
            out,
            "<h3>Sub &lt;b&gt;</h3>\n<p>A <strong>bold</strong> and <code>&lt;i&gt;</code> \
             line\nnext</p>\n<ul>\n<li>one</li>\n<li>two &amp; three</li>\n</ul>\n\
             <pre><code>&lt;x&gt;\n</code></pre>\n"
        );
    }

    #[test]
    fn unpaired_markers_stay_text() {
        assert_eq!(inline("a ** b ` c"), "a ** b ` c");
        assert_eq!(inline("****"), "****");
    }
}
