//! A story as one standalone HTML document: its Markdown through a CommonMark renderer with
//! raw HTML shown as text and unsafe link schemes dropped ([`markdown`]), `<chart …/>` tags as
//! inline SVG, `<table …/>` tags as HTML tables whose cells read as the model read them
//! ([`table`]) and `<grid cols=N>` as a CSS grid, so a host can show it or export it without a
//! browser runtime or network.

mod markdown;
mod table;

use std::fmt::{self, Write as _};

use nao_core::story::{ChartTag, StoryVersion, TableTag, TagError, TagKind, scan_tags};
use nao_core::{QueryId, ResultStore};

use crate::escape::escape;
use crate::render_svg;

pub use table::MAX_HTML_TABLE_ROWS;

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:72rem;margin:2rem auto;\
padding:0 1rem;color:#1f2328;line-height:1.5}\
table{border-collapse:collapse;margin:1rem 0;font-size:.9rem}\
th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left}\
th.num,td.num{text-align:right;font-variant-numeric:tabular-nums}\
th{background:#f6f8fa}caption{font-weight:600;text-align:left;padding:.25rem 0}\
code,pre{background:#f6f8fa;border-radius:4px}code{padding:0 .2rem}pre{padding:.5rem;\
overflow:auto}pre code{padding:0}blockquote{margin:1rem 0;padding:0 1rem;color:#59636e;\
border-left:.25rem solid #d0d7de}figure{margin:1rem 0}figure svg{max-width:100%;height:auto}\
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
/// CommonMark with tables and `~~strikethrough~~` (headings shown one level below the
/// title), each `<chart …/>` as the inline SVG of [`render_svg`], each `<table …/>` as an
/// HTML table of at most [`MAX_HTML_TABLE_ROWS`] rows, and each `<grid cols=N>` as a CSS grid.
/// A chart or table whose result is not in `results`, or a chart that cannot be drawn,
/// becomes a visible `<figure class="missing">` note naming the query id.
///
/// Table cells read as the model read them in the query's result table (nao-render's
/// formatting: shortest round-trip floats, exact decimals, ISO 8601 times, `∅` for NULL), with
/// the Markdown escapes a Markdown viewer would undo undone; numeric columns carry
/// `class="num"` and are right-aligned.
///
/// Fails only when the story's tags do not scan ([`scan_tags`]).
///
/// # Untrusted input
///
/// The story is written by a model, the cells come from a database: nothing from either can
/// add markup, script or a network fetch to the page.
///
/// - Raw HTML in the Markdown, block or inline (`<script>`, `<img onerror=…>`, `<iframe>`),
///   is shown as escaped text: a block as preformatted text, inline HTML in place.
/// - Links keep their target only for `http:`, `https:` and `mailto:` URLs and for relative
///   and fragment references; any other scheme (`javascript:`, `data:`, `vbscript:`, in any
///   case, after entity decoding and with leading control characters, spaces, tabs and line
///   breaks ignored as browsers ignore them) drops the link and keeps its text.
/// - Images are never loaded (a standalone page fetches nothing): `![alt](url)` becomes a
///   link to `url` reading `[image: alt]` (`[image]` without alt text), or that text alone
///   when the URL is not allowed or the image sits inside another link.
/// - Every text, attribute, title and cell is HTML-escaped.
/// - Never panics. Time and memory are linear in the story (at most
///   [`MAX_STORY_BYTES`](nao_core::story::MAX_STORY_BYTES), checked by [`scan_tags`]) plus the
///   shown rows of each table.
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
        markdown::push_markdown(&mut out, story.code.get(at..tag.start).unwrap_or_default());
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
    markdown::push_markdown(&mut out, story.code.get(at..).unwrap_or_default());
    out.push_str("</body>\n</html>\n");
    Ok(out)
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
    let spec = chart.spec(result.id.as_str());
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
    table::push_table(out, table.title.as_deref(), &result);
}
