//! The rendering of a fresh query result (the output of `execute_sql`).

use arrow_array::RecordBatch;
use arrow_schema::Schema;

use crate::budget::RenderBudget;
use crate::facts::ResultFacts;
use crate::masked::MASKED_FIELD_METADATA;
use crate::notice::{self, MoreRowsReason, Notices};
use crate::summary::{Shown, result_line};
use crate::table::{Table, TableRequest, available_rows, render_table};

/// Renders a query result as Markdown for the model: a summary line (query id, row count,
/// column count), a table of the first rows with a row-number column and each column's Arrow
/// type, then notices: an incomplete result, a query `LIMIT` that was reached, rows not shown
/// and the exact `read_query_result` call that shows them, hidden columns, cut values, masked
/// columns (fields whose metadata has [`MASKED_FIELD_METADATA`](crate::MASKED_FIELD_METADATA):
/// one line each, quoting the reason, saying the values are not the stored ones).
///
/// `batches` are the rows of the result from its first row on (they may be the whole stored
/// result: only the rows shown are read). `facts.total_rows` is the row count reported.
/// The output is deterministic and bounded by `budget`; no value makes it panic.
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Int64Array, RecordBatch};
/// use arrow_schema::{DataType, Field, Schema};
/// use nao_render::{render_result, RenderBudget, ResultFacts};
///
/// let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, false)]));
/// let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(Int64Array::from(vec![7, 8]))])?;
/// let text = render_result(&schema, &[batch], &ResultFacts::new("q_1", 2), &RenderBudget::default());
/// assert_eq!(text, "Query q_1: 2 rows, 1 column.\n\n| # | n: Int64 |\n|---|---|\n| 1 | 7 |\n| 2 | 8 |\n");
/// # Ok::<(), arrow_schema::ArrowError>(())
/// ```
pub fn render_result(
    schema: &Schema,
    batches: &[RecordBatch],
    facts: &ResultFacts,
    budget: &RenderBudget,
) -> String {
    let total_columns = schema.fields().len();
    let shown_columns = total_columns.min(budget.max_columns);
    let wanted = available_rows(batches, facts.total_rows.min(budget.max_rows as u64)) as usize;
    let mut shown = Shown {
        first_row: 0,
        rows: wanted,
        columns: shown_columns,
        total_columns,
    };
    let mut out = result_line(facts, &shown);
    out.push_str("\n\n");
    let table = render_table(&TableRequest {
        schema,
        batches,
        first_row: 0,
        max_rows: wanted,
        shown_columns,
        max_cell_chars: budget.max_cell_chars,
        max_bytes: budget.max_bytes.saturating_sub(out.len()),
    });
    shown.rows = table.rows_shown;
    out.push_str(&table.text);

    let mut notices = Notices::default();
    if let Some(truncation) = facts.truncation {
        notices.push(notice::truncation(truncation, facts.total_rows));
    }
    if let Some(limit) = facts.detected_limit
        && limit > 0
        && limit == facts.total_rows
    {
        notices.push(notice::limit_reached(limit));
    }
    if facts.total_rows == 0 && facts.truncation.is_none() {
        notices.push(notice::empty());
    }
    let next_offset = table.rows_shown as u64;
    if next_offset < facts.total_rows {
        let reason = more_rows_reason(&table, wanted, budget);
        notices.push(notice::more_rows(
            &facts.query_id,
            next_offset,
            facts.total_rows,
            reason,
        ));
    }
    push_table_notices(&mut notices, &table, &shown, schema, budget);
    notices.write_to(&mut out);
    out
}

/// Why a table stopped before the rows it wanted.
pub(crate) fn more_rows_reason(
    table: &Table,
    wanted: usize,
    budget: &RenderBudget,
) -> MoreRowsReason {
    if table.rows_shown < wanted {
        MoreRowsReason::ByteBudget(budget.max_bytes)
    } else {
        MoreRowsReason::RowLimit
    }
}

/// The notices about the table itself: a shortened row, hidden columns, cut values, masked
/// columns (one per shown column marked with [`MASKED_FIELD_METADATA`]), NULL.
pub(crate) fn push_table_notices(
    notices: &mut Notices,
    table: &Table,
    shown: &Shown,
    schema: &Schema,
    budget: &RenderBudget,
) {
    if let Some(chars) = table.shortened_to {
        notices.push(notice::shortened_row(
            shown.first_row + 1,
            budget.max_bytes,
            chars,
        ));
    }
    if shown.columns < shown.total_columns {
        notices.push(notice::hidden_columns(schema, shown.columns));
    }
    if table.cells_cut && table.shortened_to.is_none() {
        notices.push(notice::cut_values(budget.max_cell_chars.max(1)));
    }
    for field in schema.fields().iter().take(shown.columns) {
        if let Some(reason) = field.metadata().get(MASKED_FIELD_METADATA) {
            notices.push(notice::masked_column(field.name(), reason));
        }
    }
    if table.null_shown {
        notices.push(notice::null_legend());
    }
}
