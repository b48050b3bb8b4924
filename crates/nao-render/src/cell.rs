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
