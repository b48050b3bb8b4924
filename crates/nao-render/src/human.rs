//! Numbers as a person reads them, for what people see (a story's tables, a chart's KPI card
//! and summaries), while the model's result tables keep the exact text ([`cell_text`]).
//!
//! - Integers and decimals keep every digit they have, grouped by thousands (`1,869,876`,
//!   `12,500.50`: a `DECIMAL(12, 2)` keeps its two places).
//! - Floats are rounded as money and measures are read: two decimals from 1 up (`1869876.5999999999`,
//!   the binary sum of prices, reads `1,869,876.60`; a whole number has none), three significant
//!   digits below 1 (`0.00123`), scientific notation from 10¹⁵ (past which a float holds no more
//!   exact digits) or under 10⁻⁶; `NaN`, `inf`
//!   and `-inf` as nao-render writes them.
//!
//! [`cell_text`]: crate::cell_text

use arrow_array::Array;
use arrow_schema::DataType;

/// `value` as a person reads it (see the [module docs](self)).
///
/// ```
/// use nao_render::human_number;
///
/// assert_eq!(human_number(1_869_876.599_999_999_9), "1,869,876.60");
/// assert_eq!(human_number(-42_000.0), "-42,000");
/// assert_eq!(human_number(0.001_234_56), "0.00123");
/// ```
pub fn human_number(value: f64) -> String {
    if value.is_nan() {
        return "NaN".to_owned();
    }
    if value.is_infinite() {
        return if value > 0.0 { "inf" } else { "-inf" }.to_owned();
    }
    let magnitude = value.abs();
    if magnitude == 0.0 {
        return "0".to_owned();
    }
    if !(1e-6..1e15).contains(&magnitude) {
        return format!("{value:.2e}");
    }
    if magnitude < 1.0 {
        // Three significant digits: as many places as leading zeros, plus three.
        let zeros = (-magnitude.log10()).floor();
        let places = if zeros.is_finite() && zeros >= 0.0 {
            // Below 1e-6 is handled above, so at most 6 leading zeros.
            usize::try_from(zeros as i64).unwrap_or(6) + 3
        } else {
            3
        };
        let text = format!("{value:.places$}");
        let text = text.trim_end_matches('0').trim_end_matches('.');
        return if text == "-0" || text == "0" {
            "0".to_owned()
        } else {
            text.to_owned()
        };
    }
    let text = format!("{value:.2}");
    let text = text.strip_suffix(".00").unwrap_or(&text);
    group_thousands(text)
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
    fn floats_read_as_money_and_measures() {
        for (value, text) in [
            (1_869_876.599_999_999_9, "1,869,876.60"),
            (1_000_000.0, "1,000,000"),
            (999.994, "999.99"),
            (999.995_1, "1,000"),
            (1.5, "1.50"),
            (-1234.5, "-1,234.50"),
            (0.5, "0.5"),
            (0.123_456, "0.123"),
            (0.001_234_56, "0.00123"),
            (-0.000_01, "-0.00001"),
            (0.000_000_5, "5.00e-7"),
            (1e22, "1.00e22"),
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
        assert_eq!(human_cell(&floats, 0).as_deref(), Some("1,869,876.60"));
        let text: ArrayRef = Arc::new(StringArray::from(vec!["1234"]));
        assert_eq!(human_cell(&text, 0), None);
    }
}
