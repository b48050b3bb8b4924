//! The rendering of one page of a stored result (the output of `read_query_result`).

use arrow_array::RecordBatch;
use arrow_schema::Schema;

use crate::budget::RenderBudget;
use crate::facts::ResultFacts;
use crate::notice::{self, Notices};
use crate::result::{more_rows_reason, push_table_notices, render_result};
use crate::summary::{Shown, page_line, past_end_line};
use crate::table::{TableRequest, available_rows, render_table};

/// Renders the rows from `offset` (0-based) of a stored result, at most `limit` of them and at
/// most the budget's rows and bytes: `Query q_1: rows 41–60 of 509 rows, 3 columns.`, a table
/// whose row numbers continue from the offset, then where the next page starts (or that this
/// was the last row, with the result's truncation and `LIMIT` warnings), and the notices on the
/// table as [`render_result`] writes them (hidden columns, cut values, masked columns). An
/// offset past the end gives a one-line message with the valid offsets instead of a table.
///
/// `batches` are the stored result from its first row; the page is read from them in place.
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Int64Array, RecordBatch};
/// use arrow_schema::{DataType, Field, Schema};
/// use nao_render::{render_page, RenderBudget, ResultFacts};
///
/// let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, false)]));
/// let numbers = Int64Array::from_iter_values(0..100);
/// let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(numbers)])?;
/// let facts = ResultFacts::new("q_1", 100);
/// let text = render_page(&schema, &[batch], &facts, 97, 20, &RenderBudget::default());
/// assert_eq!(
///     text,
///     "Query q_1: rows 98–100 of 100 rows, 1 column.\n\n\
///      | # | n: Int64 |\n|---|---|\n| 98 | 97 |\n| 99 | 98 |\n| 100 | 99 |\n\n\
///      - Row 100 is the last row of the result.\n"
/// );
/// # Ok::<(), arrow_schema::ArrowError>(())
/// ```
pub fn render_page(
    schema: &Schema,
    batches: &[RecordBatch],
    facts: &ResultFacts,
    offset: u64,
    limit: usize,
    budget: &RenderBudget,
) -> String {
    if facts.total_rows == 0 && offset == 0 {
        // The first page of an empty result reads like the result itself.
        return render_result(schema, batches, facts, budget);
    }
    if offset >= facts.total_rows {
        let mut out = past_end_line(facts, offset);
        out.push('\n');
        return out;
    }
    let total_columns = schema.fields().len();
    let shown_columns = total_columns.min(budget.max_columns);
    let page_end = facts
        .total_rows
        .min(offset.saturating_add(limit.min(budget.max_rows) as u64));
    let wanted = available_rows(batches, page_end).saturating_sub(offset) as usize;
    let mut shown = Shown {
        first_row: offset,
        rows: wanted,
        columns: shown_columns,
        total_columns,
    };
    // The line for all wanted rows is at least as long as the final one (fewer rows never
    // need more digits), so reserving its length keeps the budget.
    let reserved = page_line(facts, &shown).len() + 2;
    let table = render_table(&TableRequest {
        schema,
        batches,
        first_row: offset,
        max_rows: wanted,
        shown_columns,
        max_cell_chars: budget.max_cell_chars,
        max_bytes: budget.max_bytes.saturating_sub(reserved),
    });
    shown.rows = table.rows_shown;
    let mut out = page_line(facts, &shown);
    out.push_str("\n\n");
    out.push_str(&table.text);

    let mut notices = Notices::default();
    let next_offset = offset + table.rows_shown as u64;
    if next_offset < facts.total_rows {
        let reason = more_rows_reason(&table, wanted, budget);
        notices.push(notice::more_rows(
            &facts.query_id,
            next_offset,
            facts.total_rows,
            reason,
        ));
    } else {
        notices.push(notice::last_row(facts.total_rows));
        if let Some(truncation) = facts.truncation {
            notices.push(notice::truncation(truncation, facts.total_rows));
        }
        if let Some(limit) = facts.detected_limit
            && limit > 0
            && limit == facts.total_rows
        {
            notices.push(notice::limit_reached(limit));
        }
    }
    push_table_notices(&mut notices, &table, &shown, schema, budget);
    notices.write_to(&mut out);
    out
}
