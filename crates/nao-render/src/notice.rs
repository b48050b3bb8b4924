//! The sentences that follow a table: what is missing, why, and exactly what to call next.
//! Every notice is one bounded line, so notices never blow the budget.

use std::fmt::Write as _;

use arrow_schema::Schema;

use crate::cell::push_cut;
use crate::facts::Truncation;
use crate::inline_code::push_inline_code;

/// Longest query id quoted, in characters (ids are short; this only bounds a bad one).
const MAX_QUERY_ID_CHARS: usize = 128;
/// Bytes of hidden column names listed before the rest are only counted.
const HIDDEN_NAMES_BYTES: usize = 1024;
/// Longest hidden column name listed, in characters.
const MAX_HIDDEN_NAME_CHARS: usize = 64;
/// Longest reason for a mask quoted, in characters.
const MAX_MASK_REASON_CHARS: usize = 200;

/// `1 row` / `2 rows`.
pub(crate) fn count(amount: u64, singular: &str, plural: &str) -> String {
    format!("{amount} {}", if amount == 1 { singular } else { plural })
}

/// `row 41` / `rows 41–509` for 1-based row numbers.
pub(crate) fn row_range(first: u64, last: u64) -> String {
    if first == last {
        format!("row {first}")
    } else {
        format!("rows {first}–{last}")
    }
}

/// The query id, escaped and bounded.
pub(crate) fn query_id(id: &str) -> String {
    let mut out = String::new();
    push_cut(&mut out, id, MAX_QUERY_ID_CHARS, false);
    out
}

/// Collects notices and writes them as a list after a blank line.
#[derive(Default)]
pub(crate) struct Notices {
    lines: Vec<String>,
}

impl Notices {
    pub(crate) fn push(&mut self, line: String) {
        self.lines.push(line);
    }

    /// Appends the notices (if any) to `out`.
    pub(crate) fn write_to(&self, out: &mut String) {
        if self.lines.is_empty() {
            return;
        }
        out.push('\n');
        for line in &self.lines {
            out.push_str("- ");
            out.push_str(line);
            out.push('\n');
        }
    }
}

/// The engine stopped early: the rows held are not all the rows.
pub(crate) fn truncation(truncation: Truncation, rows: u64) -> String {
    let aggregate = "To count or summarise all rows, use COUNT(*) or GROUP BY in SQL.";
    match truncation {
        Truncation::RowCap { cap } => format!(
            "Incomplete result: the engine stopped at its row cap of {} and more rows exist, \
             so {rows} is not the total. {aggregate}",
            count(cap, "row", "rows"),
        ),
        Truncation::ByteCap { cap } => format!(
            "Incomplete result: the engine stopped at its size cap of {} after {} and more \
             rows exist, so {rows} is not the total. {aggregate}",
            count(cap, "byte", "bytes"),
            count(rows, "row", "rows"),
        ),
        Truncation::Timeout { limit } => format!(
            "Incomplete result: the query reached its time limit of {limit:?} after {}; more \
             rows may exist, so {rows} is not the total. Filter or aggregate in SQL to make \
             the query cheaper.",
            count(rows, "row", "rows"),
        ),
    }
}

/// The row count equals the query's own LIMIT, so it says nothing about how many rows match.
pub(crate) fn limit_reached(limit: u64) -> String {
    format!(
        "LIMIT reached: the query's own LIMIT {limit} returned exactly {}, so more rows may \
         match; {limit} is not a total. To count them, run SELECT COUNT(*) with the same FROM \
         and WHERE.",
        count(limit, "row", "rows"),
    )
}

/// Why rows after the shown ones are missing from the table.
pub(crate) enum MoreRowsReason {
    /// The row budget or the requested page size.
    RowLimit,
    /// The next row would have passed the byte budget.
    ByteBudget(usize),
}

/// Rows not shown and the exact call that shows them.
pub(crate) fn more_rows(id: &str, next_offset: u64, total: u64, reason: MoreRowsReason) -> String {
    let remaining = total.saturating_sub(next_offset);
    let mut line = format!(
        "{} ({}) not shown",
        count(remaining, "more row", "more rows"),
        row_range(next_offset + 1, total),
    );
    if let MoreRowsReason::ByteBudget(bytes) = reason {
        let _ = write!(line, " (the output budget of {bytes} bytes is used)");
    }
    let _ = write!(
        line,
        ": call read_query_result with query_id \"{}\" and offset {next_offset}.",
        query_id(id)
    );
    line
}

/// A first row wider than the whole budget was shortened.
pub(crate) fn shortened_row(row_number: u64, max_bytes: usize, chars: usize) -> String {
    format!(
        "Row {row_number} is wider than the output budget of {max_bytes} bytes, so each of its \
         values is cut to {chars} characters. Select fewer columns, or shorter expressions such \
         as substr(column, 1, 100), to see more."
    )
}

/// Values were cut in the middle.
pub(crate) fn cut_values(max_chars: usize) -> String {
    format!(
        "Values longer than {max_chars} characters are cut in the middle, marked with …. Select \
         substr(column, start, length) to read a part in full."
    )
}

/// Columns past the column budget, named (up to about 1 KiB of names).
pub(crate) fn hidden_columns(schema: &Schema, shown_columns: usize) -> String {
    let hidden = &schema.fields()[shown_columns.min(schema.fields().len())..];
    let mut line = format!(
        "{} not shown: ",
        count(hidden.len() as u64, "more column", "more columns")
    );
    let names_start = line.len();
    for (index, field) in hidden.iter().enumerate() {
        if line.len() - names_start >= HIDDEN_NAMES_BYTES {
            let _ = write!(line, "and {} more", hidden.len() - index);
            break;
        }
        push_cut(&mut line, field.name(), MAX_HIDDEN_NAME_CHARS, false);
        if index + 1 < hidden.len() {
            line.push_str(", ");
        }
    }
    line.push_str(". Select the columns you need by name to see them.");
    line
}

/// A column whose values the host's policy masked, and what that means for reading them.
pub(crate) fn masked_column(name: &str, reason: &str) -> String {
    let mut line = String::from("Column ");
    push_inline_code(&mut line, name, MAX_HIDDEN_NAME_CHARS);
    line.push_str(": values masked");
    let reason = reason.trim();
    if reason.is_empty() {
        line.push_str(" by the host's policy");
    } else {
        line.push_str(" (");
        push_cut(&mut line, reason, MAX_MASK_REASON_CHARS, false);
        line.push(')');
    }
    line.push_str(
        "; they are not the stored values and cannot be turned back into them. A hash keeps \
         equal values equal, so GROUP BY, joins and COUNT(DISTINCT) on a hashed column count as \
         on the stored values; other masks (redacted, partial, null) do not. Never present \
         masked values as real ones.",
    );
    line
}

/// The legend for the NULL token.
pub(crate) fn null_legend() -> String {
    "∅ is NULL (a text value that is exactly ∅ shows as \\u{2205}).".to_owned()
}

/// The result holds no rows.
pub(crate) fn empty() -> String {
    "The query returned no rows.".to_owned()
}

/// A page ends at the last row.
pub(crate) fn last_row(total: u64) -> String {
    format!("Row {total} is the last row of the result.")
}
