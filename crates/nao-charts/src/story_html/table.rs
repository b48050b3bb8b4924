//! A stored result as an HTML table whose cells read as the model read them.
//!
//! Each cell is nao-render's [`cell_text`], the very text of the model's result table, with
//! the Markdown escapes undone as a Markdown viewer undoes them, then HTML-escaped: one
//! Arrow-to-text path, so a story's table never shows a value the model did not see. Numbers
//! are the same values written for people ([`human_cell`]: thousands grouped, a float's binary
//! noise rounded away, `1,869,876.6` for `1869876.5999999999`).

use std::fmt::Write as _;

use nao_core::QueryResult;
use nao_core::render::{RenderBudget, cell_text, human_cell};

use crate::escape::escape;

/// The most rows a `<table …/>` tag shows; a note says how many more the result holds.
pub const MAX_HTML_TABLE_ROWS: usize = 200;

/// How nao-render writes NULL in a cell (a text that is exactly `∅` is written `\u{2205}`).
const NULL_CELL: &str = "∅";

/// Appends `result` as a `<table>` (captioned with `title`) of at most
/// [`MAX_HTML_TABLE_ROWS`] rows, then a note for the rows left out and one for NULLs shown.
pub(super) fn push_table(out: &mut String, title: Option<&str>, result: &QueryResult) {
    let numeric: Vec<bool> = result
        .schema
        .fields()
        .iter()
        .map(|field| field.data_type().is_numeric())
        .collect();
    out.push_str("<table>\n");
    if let Some(title) = title {
        let _ = writeln!(out, "<caption>{}</caption>", escape(title));
    }
    out.push_str("<thead><tr>");
    for (field, numeric) in result.schema.fields().iter().zip(&numeric) {
        let _ = write!(
            out,
            "<th{}>{}</th>",
            num_class(*numeric),
            escape(field.name())
        );
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    // The model's cells are cut to the same length (numbers and dates never are).
    let max_chars = RenderBudget::default().max_cell_chars;
    let mut shown = 0;
    let mut total = 0;
    let mut null_shown = false;
    for batch in &result.batches {
        total += batch.num_rows();
        let take = batch
            .num_rows()
            .min(MAX_HTML_TABLE_ROWS.saturating_sub(shown));
        for row in 0..take {
            out.push_str("<tr>");
            for (index, column) in batch.columns().iter().enumerate() {
                let numeric = numeric.get(index).copied().unwrap_or(false);
                // `row` is below the batch's row count, which every column of it has.
                let text = match human_cell(column.as_ref(), row) {
                    Some(number) => number,
                    None => cell_text(column.as_ref(), row, max_chars),
                };
                null_shown |= text == NULL_CELL;
                let _ = write!(
                    out,
                    "<td{}>{}</td>",
                    num_class(numeric),
                    escape(&unescape_markdown(&text))
                );
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
    if null_shown {
        out.push_str("<p class=\"more\">∅ is NULL (no value).</p>\n");
    }
}

fn num_class(numeric: bool) -> &'static str {
    if numeric { " class=\"num\"" } else { "" }
}

/// A Markdown table cell's text as a Markdown viewer shows it: a backslash before ASCII
/// punctuation is dropped (nao-render writes `\|`, `\\`, `` \` ``, `\](` and a leading `\#`,
/// `\>`, `\-`) and `&lt;` and `&amp;` are `<` and `&` (nao-render writes no other entity).
/// The escapes for invisible characters (`\n`, `\t`, `\u{202e}`) stay, as they stay on the
/// model's page: they are how the value shows what it holds.
fn unescape_markdown(cell: &str) -> String {
    let mut out = String::with_capacity(cell.len());
    let mut rest = cell;
    while let Some(at) = rest.find(['\\', '&']) {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let mut chars = from.chars();
        let first = chars.next().unwrap_or('\\');
        let after = chars.as_str();
        rest = if first == '&' {
            if let Some(tail) = after.strip_prefix("lt;") {
                out.push('<');
                tail
            } else if let Some(tail) = after.strip_prefix("amp;") {
                out.push('&');
                tail
            } else {
                out.push('&');
                after
            }
        } else {
            let mut escaped = after.chars();
            match escaped.next() {
                Some(c) if c.is_ascii_punctuation() => {
                    out.push(c);
                    escaped.as_str()
                }
                _ => {
                    out.push('\\');
                    after
                }
            }
        };
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::unescape_markdown;
    use nao_core::render::escape_cell;

    #[test]
    fn markdown_escapes_are_undone_and_visible_escapes_stay() {
        for (text, shown) in [
            ("Acme | Co", "Acme | Co"),
            ("# head", "# head"),
            ("- dash", "- dash"),
            ("> quote", "> quote"),
            ("a `b` [c](d)", "a `b` [c](d)"),
            ("<b>&amp; &lt; AT&T", "<b>&amp; &lt; AT&T"),
            ("back\\slash \\| \\n", "back\\slash \\| \\n"),
            ("line\nbreak\ttab", "line\\nbreak\\ttab"),
            ("∅ x", "∅ x"),
            ("bidi\u{202e}flip", "bidi\\u{202e}flip"),
        ] {
            assert_eq!(unescape_markdown(&escape_cell(text, 80)), shown, "{text:?}");
        }
    }

    #[test]
    fn stray_markers_stay() {
        assert_eq!(unescape_markdown("a\\"), "a\\");
        assert_eq!(unescape_markdown("&"), "&");
        assert_eq!(unescape_markdown("&lt"), "&lt");
        assert_eq!(unescape_markdown("\\é"), "\\é");
    }
}
