//! The opt-in value detector: finds personal values (email addresses, phone and card
//! numbers, IBANs, national ids) in text columns nobody declared masked, and replaces each
//! with a label.

mod checks;
mod detection;
mod kind;

use std::borrow::Cow;
use std::sync::{Arc, LazyLock};

use arrow_array::builder::{LargeStringBuilder, StringBuilder, StringViewBuilder};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::DataType;
use nao_render::MASKED_FIELD_METADATA;
use regex::{Regex, RegexSet};

pub use detection::{Detection, Detections};
pub use kind::ValueKind;

use super::MaskError;
use super::text::plain_text;

/// Values found in one cell, per kind (indexed by [`ValueKind::position`]).
type KindCounts = [usize; ValueKind::ALL.len()];

/// The compiled pattern of each kind, in [`ValueKind::ALL`] order, compiled once per process.
static PATTERNS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    ValueKind::ALL
        .iter()
        .map(|&kind| Regex::new(checks::pattern(kind)).expect("a built-in pattern compiles"))
        .collect()
});

/// All the patterns at once, to learn in one pass which kinds have a candidate in a cell.
static PATTERN_SET: LazyLock<RegexSet> = LazyLock::new(|| {
    RegexSet::new(ValueKind::ALL.iter().map(|&kind| checks::pattern(kind)))
        .expect("the built-in patterns compile")
});

/// Finds personal values in text and replaces each with its kind's label (`[email]`),
/// keeping the rest of the text readable: `"call me at +33 6 12 34 56 78"` becomes
/// `"call me at [phone]"`.
///
/// What counts as each kind, and the checks that keep look-alikes out (dates, order ids,
/// version numbers, 16-digit numbers failing the Luhn check, IBANs with wrong check digits),
/// are in the docs of [`ValueKind`]. Where two kinds find overlapping text, the union is
/// replaced, labelled by the kind first in [`ValueKind::ALL`].
///
/// ```
/// use nao_core::masking::{ValueDetector, ValueKind};
///
/// let detector = ValueDetector::all();
/// assert_eq!(
///     detector.mask_text("Ada (ada@example.com, +44 20 7946 0958) paid with 4111 1111 1111 1111."),
///     "Ada ([email], [phone]) paid with [card number].",
/// );
/// // Look-alikes stay: a date, an order id, a version, a number failing the Luhn check.
/// let plain = "Order 2024-000123 of 2024-03-01, v10.0.19041.1, ref 4111 1111 1111 1112";
/// assert_eq!(detector.mask_text(plain), plain);
///
/// let emails_only = ValueDetector::new([ValueKind::Email]);
/// assert_eq!(emails_only.mask_text("ada@example.com 06 12 34 56 78"), "[email] 06 12 34 56 78");
/// ```
///
/// # Cost
/// A cell without an ASCII digit or an `@` is skipped after one pass over its bytes; other
/// cells take one linear pass of all the patterns at once (the regex crate never
/// backtracks), then one pass per kind that has a candidate in the cell, and the
/// checks look at most a few dozen bytes per candidate. Columns where nothing is found are
/// passed on as the same arrays, not copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueDetector {
    /// In [`ValueKind::ALL`] order, without repeats.
    kinds: Vec<ValueKind>,
}

impl ValueDetector {
    /// A detector for `kinds`.
    pub fn new(kinds: impl IntoIterator<Item = ValueKind>) -> ValueDetector {
        let mut kinds: Vec<ValueKind> = kinds.into_iter().collect();
        kinds.sort_by_key(ValueKind::position);
        kinds.dedup();
        ValueDetector { kinds }
    }

    /// A detector for every kind.
    pub fn all() -> ValueDetector {
        ValueDetector::new(ValueKind::ALL)
    }

    /// The kinds it looks for.
    pub fn kinds(&self) -> &[ValueKind] {
        &self.kinds
    }

    /// `text` with every value found replaced by its label; borrowed when nothing was found.
    pub fn mask_text<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let mut counts = KindCounts::default();
        match self.rewrite(text, &mut counts) {
            Some(masked) => Cow::Owned(masked),
            None => Cow::Borrowed(text),
        }
    }

    /// `batch` with the values found in its text columns (`Utf8`, `LargeUtf8`, `Utf8View`
    /// and dictionaries of them) replaced, and what was found.
    ///
    /// Columns that already carry [`MASKED_FIELD_METADATA`] are left alone (the policy
    /// masked them). The returned batch has the same schema as `batch`, so that every batch
    /// of a stream keeps the stream's schema and column types; mark the result's schema with
    /// [`Detections::mark_schema`] once the stream is read. Columns where nothing was found
    /// are the same arrays.
    pub fn scan_batch(&self, batch: &RecordBatch) -> Result<(RecordBatch, Detections), MaskError> {
        let schema = batch.schema();
        let mut detections = Detections::default();
        let mut columns: Option<Vec<ArrayRef>> = None;
        for (index, field) in schema.fields().iter().enumerate() {
            if field.metadata().contains_key(MASKED_FIELD_METADATA) {
                continue;
            }
            let mut counts = KindCounts::default();
            let Some(masked) = self.scan_array(batch.column(index), &mut counts) else {
                continue;
            };
            columns.get_or_insert_with(|| batch.columns().to_vec())[index] = masked;
            for (position, &values) in counts.iter().enumerate() {
                detections.add(index, field.name(), ValueKind::ALL[position], values);
            }
        }
        let Some(columns) = columns else {
            return Ok((batch.clone(), detections));
        };
        let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
        let masked = RecordBatch::try_new_with_options(schema, columns, &options)?;
        Ok((masked, detections))
    }

    /// The column with the values found replaced, or `None` when nothing was found (or the
    /// column is not text).
    fn scan_array(&self, array: &ArrayRef, counts: &mut KindCounts) -> Option<ArrayRef> {
        match array.data_type() {
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
                let changes = self.scan_plain(array.as_ref());
                if changes.is_empty() {
                    return None;
                }
                for (_, _, found) in &changes {
                    add_counts(counts, found, 1);
                }
                Some(rebuild(array.as_ref(), &changes))
            }
            DataType::Dictionary(_, values)
                if matches!(
                    values.as_ref(),
                    DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
                ) =>
            {
                let dictionary = array.as_any_dictionary_opt()?;
                let values = dictionary.values();
                let changes = self.scan_plain(values.as_ref());
                if changes.is_empty() {
                    return None;
                }
                // A dictionary value counts once per row that uses it.
                let mut uses = vec![0usize; values.len()];
                let keys = dictionary.keys();
                for (row, index) in dictionary.normalized_keys().into_iter().enumerate() {
                    if keys.is_valid(row) && index < uses.len() {
                        uses[index] += 1;
                    }
                }
                for (index, _, found) in &changes {
                    add_counts(counts, found, uses[*index]);
                }
                Some(dictionary.with_values(rebuild(values.as_ref(), &changes)))
            }
            _ => None,
        }
    }

    /// The rows of a plain string array whose text changes: row, new text, values found.
    fn scan_plain(&self, array: &dyn Array) -> Vec<(usize, String, KindCounts)> {
        let mut changes = Vec::new();
        for row in 0..array.len() {
            if array.is_null(row) {
                continue;
            }
            let Some(text) = plain_text(array, row) else {
                continue;
            };
            let mut found = KindCounts::default();
            if let Some(masked) = self.rewrite(text, &mut found) {
                changes.push((row, masked, found));
            }
        }
        changes
    }

    /// `text` with the values found replaced, counting them into `counts`; `None` when
    /// nothing was found.
    fn rewrite(&self, text: &str, counts: &mut KindCounts) -> Option<String> {
        let bytes = text.as_bytes();
        let has_digit = bytes.iter().any(u8::is_ascii_digit);
        let has_at = bytes.contains(&b'@');
        if !has_digit && !has_at {
            return None;
        }
        let candidates = PATTERN_SET.matches(text);
        if !candidates.matched_any() {
            return None;
        }
        let mut spans: Vec<(usize, usize, usize)> = Vec::new();
        for kind in &self.kinds {
            let position = kind.position();
            if !candidates.matched(position) {
                continue;
            }
            let Some(regex) = PATTERNS.get(position) else {
                continue;
            };
            let mut at = 0;
            while let Some(found) = regex.find_at(text, at) {
                match checks::accept(*kind, text, found.start(), found.end()) {
                    Some(end) => {
                        spans.push((found.start(), end, position));
                        at = end;
                    }
                    None => at = found.end(),
                }
                if at >= text.len() {
                    break;
                }
            }
        }
        if spans.is_empty() {
            return None;
        }
        // Overlapping finds of different kinds are replaced as one, by the first kind.
        spans.sort_unstable();
        let mut merged: Vec<(usize, usize, usize)> = Vec::with_capacity(spans.len());
        for (start, end, position) in spans {
            match merged.last_mut() {
                Some(last) if start < last.1 => {
                    last.1 = last.1.max(end);
                    last.2 = last.2.min(position);
                }
                _ => merged.push((start, end, position)),
            }
        }
        let mut out = String::with_capacity(text.len());
        let mut copied = 0;
        for (start, end, position) in merged {
            out.push_str(text.get(copied..start).unwrap_or_default());
            out.push_str(ValueKind::ALL[position].replacement());
            counts[position] += 1;
            copied = end;
        }
        out.push_str(text.get(copied..).unwrap_or_default());
        Some(out)
    }
}

fn add_counts(counts: &mut KindCounts, found: &KindCounts, times: usize) {
    for (total, &n) in counts.iter_mut().zip(found) {
        *total += n * times;
    }
}

/// A plain string array like `array` (same type, nulls and length) with the changed rows'
/// new text. `changes` is ordered by row.
fn rebuild(array: &dyn Array, changes: &[(usize, String, KindCounts)]) -> ArrayRef {
    let len = array.len();
    let mut changes = changes.iter().peekable();
    let mut value = |row: usize| -> Option<&str> {
        if array.is_null(row) {
            return None;
        }
        match changes.next_if(|(changed, _, _)| *changed == row) {
            Some((_, text, _)) => Some(text.as_str()),
            None => plain_text(array, row),
        }
    };
    match array.data_type() {
        DataType::LargeUtf8 => {
            let mut out = LargeStringBuilder::with_capacity(len, 0);
            (0..len).for_each(|row| out.append_option(value(row)));
            Arc::new(out.finish())
        }
        DataType::Utf8View => {
            let mut out = StringViewBuilder::with_capacity(len);
            (0..len).for_each(|row| out.append_option(value(row)));
            Arc::new(out.finish())
        }
        _ => {
            let mut out = StringBuilder::with_capacity(len, 0);
            (0..len).for_each(|row| out.append_option(value(row)));
            Arc::new(out.finish())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles() {
        assert_eq!(PATTERNS.len(), ValueKind::ALL.len());
        assert_eq!(PATTERN_SET.len(), ValueKind::ALL.len());
    }

    #[test]
    fn positions_follow_the_list() {
        for (i, kind) in ValueKind::ALL.iter().enumerate() {
            assert_eq!(kind.position(), i);
        }
    }
}
