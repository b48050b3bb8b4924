//! Numbers as a person reads them, for what people see (a story's tables, a chart's KPI card
//! and summaries): the digits of the model's result tables ([`cell_text`]), grouped by
//! thousands, without a float's binary noise.
//!
//! - Integers and decimals keep every digit they have (`1,869,876`; a `DECIMAL(12, 2)` keeps
//!   its two places: `12,500.50`).
//! - Floats are rounded to 15 significant digits, as many as a double holds, then written as
//!   the model reads them: `1869876.5999999999`, the binary sum of prices, reads `1,869,876.6`,
//!   `0.1 + 0.2` reads `0.3`, `52.370216` keeps its digits; scientific notation under 10⁻⁶ and
//!   from 10¹⁶, and `NaN`, `inf`, `-inf`, as nao-render writes them.
//!
//! [`cell_text`]: crate::cell_text

use arrow_array::Array;
use arrow_schema::DataType;

/// `value` as a person reads it: the digits the model reads ([`cell_text`](crate::cell_text)),
/// grouped by thousands, a float rounded to the 15 significant digits a double holds (its
/// binary noise gone), scientific notation under 10⁻⁶ and from 10¹⁶.
///
/// ```
/// use nao_render::human_number;
///
/// assert_eq!(human_number(1_869_876.599_999_999_9), "1,869,876.6");
/// assert_eq!(human_number(-42_000.0), "-42,000");
/// assert_eq!(human_number(0.1 + 0.2), "0.3");
/// ```
pub fn human_number(value: f64) -> String {
    if !value.is_finite() || value == 0.0 {
        let mut out = String::new();
        // `-0` reads `0`; NaN and the infinities as the model reads them.
        crate::value::write_display_float(&mut out, if value == 0.0 { 0.0 } else { value });
        return out;
    }
    // Fifteen significant digits: what a double holds, without the noise of its last bits.
    let rounded: f64 = format!("{value:.14e}").parse().unwrap_or(value);
    let mut out = String::new();
    crate::value::write_display_float(&mut out, rounded);
    group_thousands(&out)
}

/// The value at `row` of a numeric `array` as a person reads it: floats by [`human_number`],
/// integers and decimals with every digit, grouped by thousands. `None` for a NULL or an array
/// that is not numeric.
///
/// # Panics
///
/// If `row` is not below `array.len()`, as Arrow's own accessors do.
pub fn human_cell(array: &dyn Array, row: usize) -> Option<String> {
    if !array.data_type().is_numeric() || array.is_null(row) {
        return None;
    }
    // One Arrow-to-text path: the exact text of the model's table, regrouped.
    let exact = crate::cell_text(array, row, usize::MAX);
    match array.data_type() {
        DataType::Float16 | DataType::Float32 | DataType::Float64 => {
            exact.parse::<f64>().ok().map(human_number).or(Some(exact))
        }
        _ => Some(group_thousands(&exact)),
    }
}

/// `text` (an optional `-`, digits, an optional fraction) with its integer part grouped by
/// thousands; any other text as it is.
fn group_thousands(text: &str) -> String {
    let (sign, rest) = text.strip_prefix('-').map_or(("", text), |r| ("-", r));
    let (int, frac) = rest
        .split_once('.')
        .map_or((rest, None), |(i, f)| (i, Some(f)));
    if int.is_empty() || !int.bytes().all(|b| b.is_ascii_digit()) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + int.len() / 3);
    out.push_str(sign);
    for (i, digit) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    if let Some(frac) = frac {
        out.push('.');
        out.push_str(frac);
    }
    out
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, Decimal128Array, Float64Array, Int64Array, StringArray};

    use super::*;

    #[test]
    fn floats_lose_their_noise_not_their_digits() {
        for (value, text) in [
            (1_869_876.599_999_999_9, "1,869,876.6"),
            (0.1 + 0.2, "0.3"),
            (1_000_000.0, "1,000,000"),
            (52.370_216, "52.370216"),
            (-1234.5, "-1,234.5"),
            (0.001_234_56, "0.00123456"),
            (123_456_789.123_456_79, "123,456,789.123457"),
            (0.000_000_5, "5e-7"),
            (1e22, "1e22"),
            (0.0, "0"),
            (-0.0, "0"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-inf"),
        ] {
            assert_eq!(human_number(value), text, "{value}");
        }
    }

    #[test]
    fn integers_and_decimals_keep_their_digits_grouped() {
        let ints: ArrayRef = Arc::new(Int64Array::from(vec![
            Some(0),
            Some(999),
            Some(-1_000),
            Some(i64::MIN),
            None,
        ]));
        let cells: Vec<Option<String>> = (0..ints.len()).map(|r| human_cell(&ints, r)).collect();
        assert_eq!(
            cells,
            [
                Some("0".to_owned()),
                Some("999".to_owned()),
                Some("-1,000".to_owned()),
                Some("-9,223,372,036,854,775,808".to_owned()),
                None
            ]
        );
        let money: ArrayRef = Arc::new(
            Decimal128Array::from(vec![1_250_050, -5])
                .with_precision_and_scale(12, 2)
                .unwrap(),
        );
        assert_eq!(human_cell(&money, 0).as_deref(), Some("12,500.50"));
        assert_eq!(human_cell(&money, 1).as_deref(), Some("-0.05"));
        let floats: ArrayRef = Arc::new(Float64Array::from(vec![1_869_876.599_999_999_9]));
        assert_eq!(human_cell(&floats, 0).as_deref(), Some("1,869,876.6"));
        let text: ArrayRef = Arc::new(StringArray::from(vec!["1234"]));
        assert_eq!(human_cell(&text, 0), None);
    }
}
