//! Exact decimals from the text servers send (`-12.50`, `3`, `.5`): MySQL/MariaDB's text
//! protocol and ClickHouse's TSV both write DECIMAL values this way.
//!
//! Hand-written rather than `arrow_cast::parse::parse_decimal`, which drops fraction digits
//! beyond the scale without a word: a value must never change on its way to the model, so a
//! significant digit past the scale is refused here (trailing zeros past it are not digits of
//! the value and are accepted).

/// `[+-]?digits[.digits]` (either side of the point may be empty, not both) as an integer of
/// `scale` fraction digits; `None` for other text, a significant fraction digit past `scale`, a
/// negative scale, or a value outside `i128`. Fewer fraction digits than the scale are padded
/// (ClickHouse drops trailing zeros).
pub(crate) fn exact_i128(bytes: &[u8], scale: i8) -> Option<i128> {
    let scale = usize::try_from(scale).ok()?;
    let (negative, unsigned) = match bytes.split_first()? {
        (b'-', rest) => (true, rest),
        (b'+', rest) => (false, rest),
        _ => (false, bytes),
    };
    let (whole, fraction) = match unsigned.iter().position(|&b| b == b'.') {
        Some(dot) => (&unsigned[..dot], &unsigned[dot + 1..]),
        None => (unsigned, &[][..]),
    };
    if (whole.is_empty() && fraction.is_empty())
        || !whole.iter().chain(fraction).all(u8::is_ascii_digit)
    {
        return None;
    }
    let kept = fraction.len().min(scale);
    if fraction[kept..].iter().any(|&b| b != b'0') {
        return None;
    }
    let mut magnitude: i128 = 0;
    for &digit in whole.iter().chain(&fraction[..kept]) {
        magnitude = magnitude
            .checked_mul(10)?
            .checked_add(i128::from(digit - b'0'))?;
    }
    let pad = u32::try_from(scale - kept).ok()?;
    magnitude = magnitude.checked_mul(10_i128.checked_pow(pad)?)?;
    Some(if negative { -magnitude } else { magnitude })
}

/// Whether an unscaled decimal has at most `precision` digits (ClickHouse's text does not say
/// when a value outgrows its column's precision; MySQL's server never sends such a value).
#[cfg(feature = "clickhouse")]
pub(crate) fn fits_precision(unscaled: i128, precision: u8) -> bool {
    10_i128
        .checked_pow(u32::from(precision))
        .is_none_or(|limit| unscaled.unsigned_abs() < limit.unsigned_abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_reads_exactly() {
        assert_eq!(exact_i128(b"-12.5", 2), Some(-1250));
        assert_eq!(exact_i128(b"1.50", 2), Some(150));
        assert_eq!(exact_i128(b"+3", 2), Some(300));
        assert_eq!(exact_i128(b".5", 1), Some(5));
        assert_eq!(exact_i128(b"7.", 0), Some(7));
        assert_eq!(exact_i128(b"-0.25", 2), Some(-25));
        assert_eq!(exact_i128(b"1.2300", 2), Some(123));
        assert_eq!(
            exact_i128(b"99999999999999999999999999999999999999", 0),
            Some(99_999_999_999_999_999_999_999_999_999_999_999_999)
        );
    }

    #[test]
    fn anything_that_would_change_or_is_not_a_number_is_refused() {
        for text in [
            &b"1.234"[..],
            b"",
            b"-",
            b".",
            b"1e5",
            b"1,5",
            b" 1",
            b"--1",
            b"0x10",
            b"1.2.3",
            b"999999999999999999999999999999999999999999",
        ] {
            assert_eq!(
                exact_i128(text, 2),
                None,
                "{:?}",
                String::from_utf8_lossy(text)
            );
        }
        assert_eq!(exact_i128(b"1", -1), None);
        assert_eq!(exact_i128(b"1", 40), None);
    }

    #[test]
    #[cfg(feature = "clickhouse")]
    fn precision_is_counted_in_digits() {
        assert!(fits_precision(99_999, 5));
        assert!(!fits_precision(100_000, 5));
        assert!(!fits_precision(-100_000, 5));
        assert!(fits_precision(i128::MAX, 39));
    }
}
