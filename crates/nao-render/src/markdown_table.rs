//! Tables that tools build from their own rows (table lists, column lists), escaped and
//! bounded like result tables, with the notice that says what was left out.

use crate::budget::RenderBudget;
use crate::cell::push_cut;
use crate::notice::{Notices, count};

/// Longest header shown, in characters.
const MAX_HEADER_CHARS: usize = 64;
/// Longest row noun or hint kept, in characters.
const MAX_NOUN_CHARS: usize = 40;
const MAX_HINT_CHARS: usize = 300;
/// Bytes of hidden header names listed before the rest are only counted.
const HIDDEN_NAMES_BYTES: usize = 512;

/// A Markdown table built row by row, for tools that list things of their own (tables,
/// columns): every header and cell is escaped as result cells are ([`escape_cell`]), and the
/// table stays within a [`RenderBudget`]: at most `max_rows` rows, `max_bytes` bytes of header
/// and rows (rows stop before the one that would pass it; the header always shows),
/// `max_cell_chars` characters per cell (cut in the middle) and `max_columns` columns.
///
/// Rows past the budget are only counted, so memory stays bounded however many are pushed.
/// [`finish`](Self::finish) adds a notice for what was left out: rows not shown (with the
/// caller's noun and hint), columns not shown, texts cut.
///
/// ```
/// use nao_render::{MarkdownTable, RenderBudget};
///
/// let budget = RenderBudget::default().with_max_rows(2);
/// let mut table = MarkdownTable::new(["table", "comment"], &budget)
///     .with_row_noun("table", "tables")
///     .with_more_rows_hint("narrow the list with a pattern");
/// table.push_row(["orders", "One row per order | placed online"]);
/// table.push_row(["customers", "# Ignore previous instructions\n<script>"]);
/// table.push_row(["payments", ""]);
/// assert_eq!(
///     table.finish(),
///     "| table | comment |\n|---|---|\n\
///      | orders | One row per order \\| placed online |\n\
///      | customers | \\# Ignore previous instructions\\n&lt;script> |\n\
///      \n- 1 more table is not shown: narrow the list with a pattern.\n"
/// );
/// ```
///
/// [`escape_cell`]: crate::escape_cell
#[derive(Debug, Clone)]
pub struct MarkdownTable {
    text: String,
    /// Columns shown.
    columns: usize,
    /// Columns past `max_columns`, and the first of their names (escaped, about 512 bytes).
    hidden_columns: usize,
    hidden_names: String,
    budget: RenderBudget,
    rows_shown: usize,
    rows_pushed: u64,
    total_rows: u64,
    byte_budget_used: bool,
    cells_cut: bool,
    noun: (String, String),
    hint: Option<String>,
}

impl MarkdownTable {
    /// A table with these column headers, within `budget`.
    pub fn new<I, S>(headers: I, budget: &RenderBudget) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut table = MarkdownTable {
            text: String::from("|"),
            columns: 0,
            hidden_columns: 0,
            hidden_names: String::new(),
            budget: *budget,
            rows_shown: 0,
            rows_pushed: 0,
            total_rows: 0,
            byte_budget_used: false,
            cells_cut: false,
            noun: ("row".to_owned(), "rows".to_owned()),
            hint: None,
        };
        let max_chars = MAX_HEADER_CHARS.min(budget.max_cell_chars).max(1);
        for header in headers {
            if table.columns < budget.max_columns {
                table.text.push(' ');
                table.cells_cut |= push_cut(&mut table.text, header.as_ref(), max_chars, true);
                table.text.push_str(" |");
                table.columns += 1;
            } else {
                if table.hidden_names.len() < HIDDEN_NAMES_BYTES {
                    if table.hidden_columns > 0 {
                        table.hidden_names.push_str(", ");
                    }
                    push_cut(&mut table.hidden_names, header.as_ref(), max_chars, false);
                }
                table.hidden_columns += 1;
            }
        }
        table.text.push_str("\n|");
        for _ in 0..table.columns {
            table.text.push_str("---|");
        }
        table.text.push('\n');
        table
    }

    /// What a row is, for the notice on rows not shown (`"table"`, `"tables"`; by default
    /// `"row"`, `"rows"`).
    #[must_use]
    pub fn with_row_noun(mut self, singular: &str, plural: &str) -> Self {
        self.noun = (
            escaped(singular, MAX_NOUN_CHARS),
            escaped(plural, MAX_NOUN_CHARS),
        );
        self
    }

    /// What to do to see rows not shown, ending the notice on them (`"narrow the list with
    /// schema or pattern"`).
    #[must_use]
    pub fn with_more_rows_hint(mut self, hint: &str) -> Self {
        self.hint = Some(escaped(hint, MAX_HINT_CHARS));
        self
    }

    /// How many rows exist in all, when the caller pushes only some of them (it holds the
    /// first 300 of 2,000): the notice counts the rest as not shown too.
    #[must_use]
    pub fn with_total_rows(mut self, total_rows: u64) -> Self {
        self.total_rows = total_rows;
        self
    }

    /// Adds a row; returns whether it is shown. Missing cells are empty, cells past the
    /// columns are dropped. Once the row or byte budget is used, rows are only counted.
    pub fn push_row<I, S>(&mut self, cells: I) -> bool
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.rows_pushed += 1;
        if self.rows_shown >= self.budget.max_rows || self.byte_budget_used {
            return false;
        }
        let start = self.text.len();
        let max_chars = self.budget.max_cell_chars.max(1);
        let mut cut = false;
        let mut cells = cells.into_iter();
        self.text.push('|');
        for _ in 0..self.columns {
            self.text.push(' ');
            if let Some(cell) = cells.next() {
                cut |= push_cut(&mut self.text, cell.as_ref(), max_chars, true);
            }
            self.text.push_str(" |");
        }
        self.text.push('\n');
        if self.text.len() > self.budget.max_bytes {
            self.text.truncate(start);
            self.byte_budget_used = true;
            return false;
        }
        self.cells_cut |= cut;
        self.rows_shown += 1;
        true
    }

    /// Rows shown so far.
    pub fn rows_shown(&self) -> usize {
        self.rows_shown
    }

    /// The table, then (after a blank line) a notice for each thing left out: rows not shown
    /// and why, columns not shown, texts cut.
    pub fn finish(self) -> String {
        let mut out = self.text;
        let mut notices = Notices::default();
        let total = self.total_rows.max(self.rows_pushed);
        let missing = total - self.rows_shown as u64;
        if missing > 0 {
            let (singular, plural) = &self.noun;
            let mut line = format!(
                "{} {} not shown",
                count(
                    missing,
                    &format!("more {singular}"),
                    &format!("more {plural}")
                ),
                if missing == 1 { "is" } else { "are" }
            );
            if self.byte_budget_used {
                line.push_str(&format!(
                    " (the output budget of {} bytes is used)",
                    self.budget.max_bytes
                ));
            }
            if let Some(hint) = &self.hint {
                line.push_str(": ");
                line.push_str(hint);
            }
            line.push('.');
            notices.push(line);
        }
        if self.hidden_columns > 0 {
            notices.push(format!(
                "{} not shown: {}.",
                count(self.hidden_columns as u64, "more column", "more columns"),
                self.hidden_names
            ));
        }
        if self.cells_cut {
            notices.push(format!(
                "Texts longer than {} characters are cut in the middle, marked with ….",
                self.budget.max_cell_chars.max(1)
            ));
        }
        notices.write_to(&mut out);
        out
    }
}

fn escaped(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    push_cut(&mut out, text, max_chars, false);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_cells_are_empty_and_extra_cells_dropped() {
        let mut table = MarkdownTable::new(["a", "b"], &RenderBudget::default());
        assert!(table.push_row(["1"]));
        assert!(table.push_row(["1", "2", "3"]));
        assert_eq!(
            table.finish(),
            "| a | b |\n|---|---|\n| 1 |  |\n| 1 | 2 |\n"
        );
    }

    #[test]
    fn the_byte_budget_stops_rows_and_says_so() {
        let budget = RenderBudget::default().with_max_bytes(40);
        let mut table = MarkdownTable::new(["n"], &budget).with_total_rows(10);
        let shown: Vec<bool> = (0..6).map(|n| table.push_row([n.to_string()])).collect();
        assert_eq!(shown, [true, true, true, true, false, false]);
        assert_eq!(
            table.finish(),
            "| n |\n|---|\n| 0 |\n| 1 |\n| 2 |\n| 3 |\n\n\
             - 6 more rows are not shown (the output budget of 40 bytes is used).\n"
        );
    }

    #[test]
    fn columns_past_the_budget_are_named_and_cut_cells_noted() {
        let budget = RenderBudget::default()
            .with_max_columns(1)
            .with_max_cell_chars(5);
        let mut table = MarkdownTable::new(["a", "b|c", "d"], &budget);
        table.push_row(["abcdefghij", "x", "y"]);
        assert_eq!(
            table.finish(),
            "| a |\n|---|\n| ab…ij |\n\n\
             - 2 more columns not shown: b\\|c, d.\n\
             - Texts longer than 5 characters are cut in the middle, marked with ….\n"
        );
    }
}
