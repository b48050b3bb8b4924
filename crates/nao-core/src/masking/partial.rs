//! [`MaskRule::Partial`](nao_guard::MaskRule::Partial): the end of a value, the rest hidden.

use std::fmt::Write as _;
use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{Array, ArrayRef, make_array};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::{ArrowError, DataType};

use super::MaskError;
use super::text::{is_text_type, text_at};

/// What stands for the hidden part of a partly masked value. Always the same four stars,
/// whatever the length hidden, so the length of the value is not revealed.
pub const PARTIAL_PREFIX: &str = "****";

/// Each non-NULL value as [`PARTIAL_PREFIX`] and at most its last `keep_last` characters
/// ([`partial_text`]); non-text values are first written as text by Arrow's display. NULL
/// stays NULL.
pub(crate) fn partial_array(array: &dyn Array, keep_last: u8) -> Result<ArrayRef, MaskError> {
    let len = array.len();
    let keep = usize::from(keep_last);
    let mut out = StringBuilder::with_capacity(len, len * (PARTIAL_PREFIX.len() + keep));
    let mut masked = String::new();
    if is_text_type(array.data_type()) {
        for row in 0..len {
            match text_at(array, row) {
                Some(value) => {
                    partial_text(value, keep_last, &mut masked);
                    out.append_value(&masked);
                }
                None => out.append_null(),
            }
        }
        return Ok(Arc::new(out.finish()));
    }
    let unsupported = |e: ArrowError| MaskError::Unsupported {
        data_type: array.data_type().clone(),
        rule: "partial",
        reason: format!("its values cannot be written as text: {e}"),
    };
    let utc = in_utc(array).map_err(unsupported)?;
    let array = utc.as_deref().unwrap_or(array);
    let options = FormatOptions::default();
    let formatter = ArrayFormatter::try_new(array, &options).map_err(unsupported)?;
    let nulls = array.logical_nulls();
    let mut value = String::new();
    for row in 0..len {
        if nulls.as_ref().is_some_and(|nulls| nulls.is_null(row)) {
            out.append_null();
            continue;
        }
        value.clear();
        if write!(value, "{}", formatter.value(row)).is_err() {
            // Hide the whole value rather than show part of a value that failed to print.
            value.clear();
        }
        partial_text(&value, keep_last, &mut masked);
        out.append_value(&masked);
    }
    Ok(Arc::new(out.finish()))
}

/// A timestamp array with a named time zone, as the same instants in UTC: Arrow's display
/// reads only fixed offsets without a time-zone database (which nao-core does not carry),
/// and the renderer too shows such instants in UTC. `None` for any other array.
fn in_utc(array: &dyn Array) -> Result<Option<ArrayRef>, ArrowError> {
    let DataType::Timestamp(unit, Some(zone)) = array.data_type() else {
        return Ok(None);
    };
    if zone.starts_with(['+', '-']) {
        return Ok(None);
    }
    let data = array
        .to_data()
        .into_builder()
        .data_type(DataType::Timestamp(*unit, Some("+00:00".into())))
        .build()?;
    Ok(Some(make_array(data)))
}

/// Writes into `out` the prefix and the last characters of `text`: `keep_last` of them, but
/// never more than half the characters of the text, so a value shorter than twice
/// `keep_last` is not shown almost whole (`"Bob"` with 4 kept is `"****b"`). Characters are
/// Unicode scalar values: a UTF-8 sequence is never split.
pub fn partial_text(text: &str, keep_last: u8, out: &mut String) {
    out.clear();
    out.push_str(PARTIAL_PREFIX);
    let wanted = usize::from(keep_last);
    if wanted == 0 {
        return;
    }
    // Count characters only as far as needed to know whether the text has 2 × wanted.
    let counted = text.chars().take(2 * wanted).count();
    let keep = wanted.min(counted / 2);
    if keep == 0 {
        return;
    }
    let start = text
        .char_indices()
        .rev()
        .nth(keep - 1)
        .map_or(0, |(index, _)| index);
    out.push_str(text.get(start..).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn partial(text: &str, keep: u8) -> String {
        let mut out = String::new();
        partial_text(text, keep, &mut out);
        out
    }

    #[test]
    fn keeps_the_last_characters_behind_a_fixed_prefix() {
        assert_eq!(partial("4242424242424242", 4), "****4242");
        assert_eq!(partial("+33 6 12 34 56 78", 2), "****78");
        assert_eq!(partial("anything", 0), "****");
        assert_eq!(partial("", 4), "****");
    }

    #[test]
    fn never_shows_more_than_half_of_a_short_value() {
        assert_eq!(partial("Bob", 4), "****b");
        assert_eq!(partial("12345678", 4), "****5678");
        assert_eq!(partial("1234567", 4), "****567");
        assert_eq!(partial("x", 4), "****");
    }

    #[test]
    fn counts_characters_not_bytes() {
        assert_eq!(partial("Zoë Ångström", 4), "****tröm");
        assert_eq!(partial("東京都港区六本木", 2), "****本木");
        assert_eq!(partial("🙂🙃🙂🙃🙂🙃", 1), "****🙃");
    }
}
