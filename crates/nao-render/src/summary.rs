//! The first line of a rendering: which result, how many rows and columns, what is shown.

use std::fmt::Write as _;

use crate::facts::ResultFacts;
use crate::notice::{count, query_id};

/// What part of a result a table shows.
pub(crate) struct Shown {
    /// Index of the first row shown (0-based over the whole result).
    pub(crate) first_row: u64,
    /// Rows shown.
    pub(crate) rows: usize,
    /// Columns shown (the first ones).
    pub(crate) columns: usize,
    /// Columns in the result.
    pub(crate) total_columns: usize,
}

fn rows_of_result(facts: &ResultFacts) -> String {
    let mut rows = count(facts.total_rows, "row", "rows");
    if facts.truncation.is_some() {
        rows.push_str(" (incomplete)");
    }
    rows
}

fn columns_part(shown: &Shown) -> String {
    count(shown.total_columns as u64, "column", "columns")
}

fn hidden_columns_part(shown: &Shown) -> Option<String> {
    (shown.columns < shown.total_columns).then(|| match shown.columns {
        0 => "no columns".to_owned(),
        1 => "column 1".to_owned(),
        n => format!("columns 1–{n}"),
    })
}

/// `Query q_1: 509 rows, 3 columns.` (and `; showing columns 1–32` when some are hidden).
/// It does not depend on how many rows fit, so the byte budget can count it exactly.
pub(crate) fn result_line(facts: &ResultFacts, shown: &Shown) -> String {
    let mut line = format!(
        "Query {}: {}, {}",
        query_id(&facts.query_id),
        rows_of_result(facts),
        columns_part(shown)
    );
    if let Some(columns) = hidden_columns_part(shown) {
        let _ = write!(line, "; showing {columns}");
    }
    line.push('.');
    line
}

/// `Query q_1: rows 41–60 of 509, 3 columns.`
pub(crate) fn page_line(facts: &ResultFacts, shown: &Shown) -> String {
    let first = shown.first_row + 1;
    let last = shown.first_row + shown.rows as u64;
    let rows = match shown.rows {
        0 => format!("no rows at offset {}", shown.first_row),
        1 => format!("row {first}"),
        _ => format!("rows {first}–{last}"),
    };
    let mut line = format!(
        "Query {}: {rows} of {}, {}",
        query_id(&facts.query_id),
        rows_of_result(facts),
        columns_part(shown)
    );
    if let Some(columns) = hidden_columns_part(shown) {
        let _ = write!(line, "; showing {columns}");
    }
    line.push('.');
    line
}

/// The page starts past the last row.
pub(crate) fn past_end_line(facts: &ResultFacts, offset: u64) -> String {
    let id = query_id(&facts.query_id);
    match facts.total_rows {
        0 => format!("Query {id}: offset {offset} is past the end; the result has no rows."),
        1 => format!(
            "Query {id}: offset {offset} is past the end; the result has 1 row, at offset 0."
        ),
        total => format!(
            "Query {id}: offset {offset} is past the end; the result has {total} rows, at offsets \
             0–{}.",
            total - 1
        ),
    }
}
