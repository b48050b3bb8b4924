//! The Markdown table: a row-number column, the column header with types, and the rows that
//! fit the budget, formatted straight from the batches (no copy, no rows beyond those shown).

use arrow_array::{Array, RecordBatch};
use arrow_schema::Schema;

use crate::cell::{CellWriter, push_cut};
use crate::data_type::push_type_name;
use crate::value::{ValueKind, push_u64};

/// Longest column name shown, in characters.
const MAX_NAME_CHARS: usize = 64;
/// Fewest characters a value of an over-wide first row is cut to.
const MIN_SHORTENED_CHARS: usize = 4;

/// Which rows and columns to put in a table, and the limits.
pub(crate) struct TableRequest<'a> {
    pub(crate) schema: &'a Schema,
    pub(crate) batches: &'a [RecordBatch],
    /// Index of the first row to show, counted over all batches from 0.
    pub(crate) first_row: u64,
    /// Most rows to show.
    pub(crate) max_rows: usize,
    /// How many of the schema's columns to show, from the first (at most all of them).
    pub(crate) shown_columns: usize,
    /// Most characters of one value.
    pub(crate) max_cell_chars: usize,
    /// Most bytes for the whole table.
    pub(crate) max_bytes: usize,
}

/// A table and what its notices must say.
pub(crate) struct Table {
    pub(crate) text: String,
    pub(crate) rows_shown: usize,
    /// Set when the first row alone was wider than the budget: values were cut to this many
    /// characters.
    pub(crate) shortened_to: Option<usize>,
    pub(crate) cells_cut: bool,
    pub(crate) null_shown: bool,
}

/// Renders the table for `request`.
pub(crate) fn render_table(request: &TableRequest<'_>) -> Table {
    let mut text = String::new();
    write_header(&mut text, request);
    let mut cells = CellWriter::new(request.max_cell_chars);
    let mut table = Table {
        text: String::new(),
        rows_shown: 0,
        shortened_to: None,
        cells_cut: false,
        null_shown: false,
    };
    let mut skip = request.first_row;
    'batches: for batch in request.batches {
        let batch_rows = batch.num_rows() as u64;
        if skip >= batch_rows {
            skip -= batch_rows;
            continue;
        }
        let columns = BatchColumns::new(batch, request.shown_columns);
        for row in skip as usize..batch.num_rows() {
            if table.rows_shown == request.max_rows {
                break 'batches;
            }
            let number = request.first_row + table.rows_shown as u64 + 1;
            let row_start = text.len();
            write_row(&mut text, &mut cells, &columns, row, number);
            if text.len() > request.max_bytes {
                text.truncate(row_start);
                if table.rows_shown > 0 {
                    break 'batches;
                }
                table.shortened_to =
                    shorten_row(&mut text, &mut cells, &columns, row, number, request);
            }
            table.rows_shown += 1;
            if table.shortened_to.is_some() {
                break 'batches;
            }
        }
        skip = 0;
    }
    table.text = text;
    table.cells_cut = cells.cut_any;
    table.null_shown = cells.null_shown;
    table
}

/// Re-renders a first row that is wider than the budget with shorter values, halving the
/// value length until it fits or reaches the minimum; returns the length used.
fn shorten_row(
    text: &mut String,
    cells: &mut CellWriter,
    columns: &BatchColumns<'_>,
    row: usize,
    number: u64,
    request: &TableRequest<'_>,
) -> Option<usize> {
    let row_start = text.len();
    let available = request.max_bytes.saturating_sub(row_start);
    // Escapes and multi-byte characters: allow about 2 bytes per character.
    let per_value = available / request.shown_columns.max(1) / 2;
    let mut chars = per_value.clamp(
        MIN_SHORTENED_CHARS,
        request.max_cell_chars.max(MIN_SHORTENED_CHARS),
    );
    let original = cells.max_chars;
    loop {
        text.truncate(row_start);
        cells.max_chars = chars;
        write_row(text, cells, columns, row, number);
        if text.len() <= request.max_bytes || chars == MIN_SHORTENED_CHARS {
            break;
        }
        chars = (chars / 2).max(MIN_SHORTENED_CHARS);
    }
    cells.max_chars = original;
    (chars < original).then_some(chars)
}

fn write_header(text: &mut String, request: &TableRequest<'_>) {
    text.push_str("| # |");
    for field in request.schema.fields().iter().take(request.shown_columns) {
        text.push(' ');
        push_cut(text, field.name(), MAX_NAME_CHARS, true);
        text.push_str(": ");
        push_type_name(text, field.data_type());
        text.push_str(" |");
    }
    text.push_str("\n|---|");
    for _ in 0..request.shown_columns.min(request.schema.fields().len()) {
        text.push_str("---|");
    }
    text.push('\n');
}

/// The shown columns of one batch, each with its formatting path decided once.
struct BatchColumns<'a> {
    columns: Vec<Option<(&'a dyn Array, ValueKind)>>,
}

impl<'a> BatchColumns<'a> {
    fn new(batch: &'a RecordBatch, shown_columns: usize) -> Self {
        let columns = (0..shown_columns)
            .map(|column| {
                let array = batch.columns().get(column)?.as_ref();
                Some((array, ValueKind::of(array.data_type())))
            })
            .collect();
        BatchColumns { columns }
    }
}

/// Appends one row to `out`.
fn write_row(
    out: &mut String,
    cells: &mut CellWriter,
    columns: &BatchColumns<'_>,
    row: usize,
    number: u64,
) {
    out.push_str("| ");
    push_u64(out, number);
    out.push_str(" |");
    for column in &columns.columns {
        out.push(' ');
        match column {
            Some((array, kind)) => cells.write(out, *array, *kind, row),
            // A batch with fewer columns than its schema: say so rather than fail.
            None => out.push_str("(missing)"),
        }
        out.push_str(" |");
    }
    out.push('\n');
}

/// Rows held by `batches`, counted only up to `needed` (reads the lengths of the batches up
/// to the one holding row `needed`, so a result of many batches costs no more than a short
/// one).
pub(crate) fn available_rows(batches: &[RecordBatch], needed: u64) -> u64 {
    let mut available = 0u64;
    for batch in batches {
        if available >= needed {
            break;
        }
        available += batch.num_rows() as u64;
    }
    available.min(needed)
}
