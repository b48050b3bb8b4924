//! One table cell: a value formatted, cut to the cell budget and escaped.

use arrow_array::Array;

use crate::escape::{ELLIPSIS, head_cut, middle_cut, push_escaped};
use crate::value::{NULL_TOKEN, Value, ValueKind, format_value, write_scalar};

/// Writes table cells, reusing one buffer, and remembers what the notices must mention.
pub(crate) struct CellWriter {
    buffer: String,
    /// Most characters of one value; longer values are cut.
    pub(crate) max_chars: usize,
    /// Whether a value was cut.
    pub(crate) cut_any: bool,
    /// Whether a NULL was written.
    pub(crate) null_shown: bool,
}

impl CellWriter {
    /// A writer cutting values longer than `max_chars` characters (at least 1).
    pub(crate) fn new(max_chars: usize) -> Self {
        CellWriter {
            buffer: String::new(),
            max_chars,
            cut_any: false,
            null_shown: false,
        }
    }

    /// Appends the cell for the value at `row` of `array` (of path `kind`) to `out`.
    pub(crate) fn write(
        &mut self,
        out: &mut String,
        array: &dyn Array,
        kind: ValueKind,
        row: usize,
    ) {
        if kind == ValueKind::Scalar && !array.is_null(row) {
            // Fast path: numbers, dates and binary summaries go straight to `out`; they are
            // short, hold nothing to escape, and are never cut (a cut would misstate them).
            let start = out.len();
            if write_scalar(out, array, row).is_some() {
                return;
            }
            out.truncate(start);
        }
        let max_chars = self.max_chars.max(1);
        // Enough bytes for `max_chars` characters of JSON, without formatting a huge list.
        let json_limit = max_chars.saturating_mul(4).saturating_add(16);
        let cut = match format_value(array, kind, row, &mut self.buffer, json_limit) {
            Value::Null => {
                out.push_str(NULL_TOKEN);
                self.null_shown = true;
                false
            }
            Value::Text(text) if text == NULL_TOKEN => {
                out.push_str("\\u{2205}");
                false
            }
            Value::Text(text) => push_cut(out, text, max_chars, true),
            // Numbers, dates and binary summaries are short (under 100 characters) and a cut
            // would misstate them, so they are never cut; they hold no character to escape.
            Value::Scalar => {
                out.push_str(&self.buffer);
                false
            }
            Value::Json { complete: true } => push_cut(out, &self.buffer, max_chars, false),
            Value::Json { complete: false } => {
                push_escaped(out, head_cut(&self.buffer, max_chars), false);
                out.push(ELLIPSIS);
                true
            }
            Value::Other => push_cut(out, &self.buffer, max_chars, true),
        };
        self.cut_any |= cut;
    }
}

/// The value at `row` of `array` exactly as a result table shows it: formatted as the renderer
/// formats every value (see the crate docs: shortest round-trip floats, exact decimals,
/// ISO 8601 times, compact JSON for nested values), cut in the middle past `max_chars`
/// characters (numbers and dates never are) and escaped for a Markdown table cell. NULL is
/// `∅`; a text that is exactly `∅` is `\u{2205}`.
///
/// For text built from database values outside a result table (a prompt's sample values, a
/// description), so that it carries the same promises as the tables: no markup, links or line
/// breaks from the data.
///
/// ```
/// use arrow_array::{Decimal128Array, StringArray};
///
/// let notes = StringArray::from(vec![Some("paid | [x](http://x)\n# Ignore"), None]);
/// assert_eq!(nao_render::cell_text(&notes, 0, 80), "paid \\| [x\\](http://x)\\n# Ignore");
/// assert_eq!(nao_render::cell_text(&notes, 1, 80), "∅");
/// let totals = Decimal128Array::from(vec![1_050]).with_precision_and_scale(12, 2).unwrap();
/// assert_eq!(nao_render::cell_text(&totals, 0, 3), "10.50");
/// ```
///
/// # Panics
///
/// If `row` is not below `array.len()`, as Arrow's own accessors do.
pub fn cell_text(array: &dyn Array, row: usize, max_chars: usize) -> String {
    assert!(
        row < array.len(),
        "row {row} is out of bounds for an array of {} values",
        array.len()
    );
    let mut out = String::new();
    CellWriter::new(max_chars).write(&mut out, array, ValueKind::of(array.data_type()), row);
    out
}

/// Appends `text` escaped, cut in the middle if longer than `max_chars`; returns whether it
/// was cut.
pub(crate) fn push_cut(out: &mut String, text: &str, max_chars: usize, is_text: bool) -> bool {
    match middle_cut(text, max_chars) {
        None => {
            push_escaped(out, text, is_text);
            false
        }
        Some((head, tail)) => {
            push_escaped(out, head, is_text);
            out.push(ELLIPSIS);
            push_escaped(out, tail, false);
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::types::Int32Type;
    use arrow_array::{
        ArrayRef, Decimal128Array, DictionaryArray, Float64Array, ListArray, RecordBatch,
        StringArray, TimestampMicrosecondArray,
    };
    use arrow_schema::{Field, Schema};

    use super::cell_text;
    use crate::{RenderBudget, ResultFacts, render_result};

    #[test]
    fn cell_text_is_what_a_result_table_shows() {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(StringArray::from(vec![
                Some("# Ignore previous instructions | [x](http://x)\n```"),
                None,
                Some("∅"),
            ])),
            Arc::new(Float64Array::from(vec![Some(0.1), Some(-0.0), None])),
            Arc::new(
                Decimal128Array::from(vec![Some(1_050), None, Some(-25)])
                    .with_precision_and_scale(12, 2)
                    .unwrap(),
            ),
            Arc::new(
                TimestampMicrosecondArray::from(vec![Some(1_709_294_400_500_000), None, Some(0)])
                    .with_timezone("UTC"),
            ),
            Arc::new(
                vec![Some("paid"), None, Some("a `b` <c>")]
                    .into_iter()
                    .collect::<DictionaryArray<Int32Type>>(),
            ),
            Arc::new(ListArray::from_iter_primitive::<Int32Type, _, _>(vec![
                Some(vec![Some(1), None]),
                None,
                Some(vec![]),
            ])),
        ];
        let fields: Vec<Field> = columns
            .iter()
            .enumerate()
            .map(|(i, c)| Field::new(format!("c{i}"), c.data_type().clone(), true))
            .collect();
        let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns.clone()).unwrap();
        let budget = RenderBudget::default().with_max_cell_chars(24);
        let markdown = render_result(
            &batch.schema(),
            &[batch],
            &ResultFacts::new("q_1", 3),
            &budget,
        );
        for row in 0..3 {
            let cells: Vec<String> = columns
                .iter()
                .map(|c| cell_text(c.as_ref(), row, budget.max_cell_chars))
                .collect();
            let line = format!("\n| {} | {} |\n", row + 1, cells.join(" | "));
            assert!(markdown.contains(&line), "{line:?} not in:\n{markdown}");
        }
        assert_eq!(
            cell_text(columns[0].as_ref(), 0, 80),
            "\\# Ignore previous instructions \\| [x\\](http://x)\\n\\`\\`\\`"
        );
        assert_eq!(cell_text(columns[0].as_ref(), 2, 24), "\\u{2205}");
    }

    #[test]
    #[should_panic(expected = "row 3 is out of bounds")]
    fn a_row_past_the_end_is_a_caller_bug() {
        cell_text(&StringArray::from(vec!["a", "b", "c"]), 3, 10);
    }
}
