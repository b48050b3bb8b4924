//! Exact decimals to and from text: SQLite has no decimal storage class, so DECIMAL(p,s) values
//! arrive as INTEGER, REAL or TEXT and become Decimal128 without passing through a float sum.

/// Why a value does not fit a `DECIMAL(p,s)` column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DecimalError {
    /// The text is not a decimal number.
    NotANumber,
    /// The number needs more than `p` digits at scale `s`.
    Overflow,
}

/// The largest magnitude plus one with `precision` digits: 10^precision.
fn limit(precision: u8) -> i128 {
    10_i128.pow(u32::from(precision.min(38)))
}

/// An integer as a `DECIMAL(precision, scale)` value.
pub(crate) fn from_i64(value: i64, precision: u8, scale: i8) -> Result<i128, DecimalError> {
    let factor = 10_i128
        .checked_pow(u32::from(scale.unsigned_abs()))
        .ok_or(DecimalError::Overflow)?;
    let scaled = i128::from(value)
        .checked_mul(factor)
        .ok_or(DecimalError::Overflow)?;
    if scaled.unsigned_abs() >= limit(precision).unsigned_abs() {
        return Err(DecimalError::Overflow);
    }
    Ok(scaled)
}

/// A REAL as a `DECIMAL(precision, scale)` value, through its shortest round-trip text (so the
/// REAL 10.5 is exactly 10.50, not 10.4999…), rounded half away from zero to the scale.
pub(crate) fn from_f64(value: f64, precision: u8, scale: i8) -> Result<i128, DecimalError> {
    if !value.is_finite() {
        return Err(DecimalError::NotANumber);
    }
    parse(&format!("{value:e}"), precision, scale)
}

/// Decimal text (`-12.50`, `1e3`, ` 7 `) as a `DECIMAL(precision, scale)` value, rounded half
/// away from zero to the scale.
pub(crate) fn parse(text: &str, precision: u8, scale: i8) -> Result<i128, DecimalError> {
    let text = text.trim();
    let (negative, unsigned) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => {
            let exponent: i64 = unsigned[at + 1..]
                .parse()
                .map_err(|_| DecimalError::NotANumber)?;
            (&unsigned[..at], exponent)
        }
        None => (unsigned, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.len() + fraction.len() == 0 || !all_digits(whole) || !all_digits(fraction) {
        return Err(DecimalError::NotANumber);
    }
    let digits: Vec<u8> = whole
        .bytes()
        .chain(fraction.bytes())
        .map(|b| b - b'0')
        .skip_while(|&d| d == 0)
        .collect();
    if digits.is_empty() {
        return Ok(0);
    }
    // The value is int(digits) × 10^(exponent − fraction digits); at scale s the stored integer
    // is int(digits) × 10^shift.
    let fraction_len = i64::try_from(fraction.len()).map_err(|_| DecimalError::Overflow)?;
    let shift = exponent
        .checked_sub(fraction_len)
        .and_then(|e| e.checked_add(i64::from(scale)))
        .ok_or(DecimalError::Overflow)?;
    let len = i64::try_from(digits.len()).map_err(|_| DecimalError::Overflow)?;
    let (kept, round_up) = if shift >= 0 {
        if len.saturating_add(shift) > i64::from(precision) {
            return Err(DecimalError::Overflow);
        }
        (digits.as_slice(), false)
    } else {
        let keep = len.saturating_add(shift);
        if keep < 0 {
            return Ok(0);
        }
        let keep = usize::try_from(keep).map_err(|_| DecimalError::Overflow)?;
        (&digits[..keep], digits[keep] >= 5)
    };
    let mut magnitude: i128 = 0;
    for &d in kept {
        magnitude = magnitude
            .checked_mul(10)
            .and_then(|m| m.checked_add(i128::from(d)))
            .ok_or(DecimalError::Overflow)?;
    }
    if shift > 0 {
        let factor = 10_i128
            .checked_pow(u32::try_from(shift).map_err(|_| DecimalError::Overflow)?)
            .ok_or(DecimalError::Overflow)?;
        magnitude = magnitude
            .checked_mul(factor)
            .ok_or(DecimalError::Overflow)?;
    }
    if round_up {
        magnitude += 1;
    }
    if magnitude >= limit(precision) {
        return Err(DecimalError::Overflow);
    }
    Ok(if negative { -magnitude } else { magnitude })
}

/// The exact text of a decimal with `scale` fraction digits (`-0.25`, `10.50`).
pub(crate) fn to_text(value: i128, scale: i8) -> String {
    let digits = value.unsigned_abs().to_string();
    let sign = if value < 0 { "-" } else { "" };
    if scale <= 0 {
        let zeros = "0".repeat(usize::from(scale.unsigned_abs()));
        let zeros = if value == 0 { "" } else { zeros.as_str() };
        return format!("{sign}{digits}{zeros}");
    }
    let scale = usize::from(scale.unsigned_abs());
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (whole, fraction) = padded.split_at(padded.len() - scale);
    format!("{sign}{whole}.{fraction}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_parses_exactly_and_rounds_half_away_from_zero() {
        assert_eq!(parse("10.50", 12, 2), Ok(1050));
        assert_eq!(parse("-0.25", 12, 2), Ok(-25));
        assert_eq!(parse(" 7 ", 5, 2), Ok(700));
        assert_eq!(parse("0.005", 5, 2), Ok(1));
        assert_eq!(parse("-0.005", 5, 2), Ok(-1));
        assert_eq!(parse("0.004", 5, 2), Ok(0));
        assert_eq!(parse("1e3", 6, 2), Ok(100_000));
        assert_eq!(parse("1.5E-1", 6, 2), Ok(15));
        assert_eq!(parse("0000.10", 3, 2), Ok(10));
        assert_eq!(parse(".5", 3, 1), Ok(5));
        assert_eq!(parse("0", 1, 0), Ok(0));
        assert_eq!(
            parse("1234567890123456789012345678.1234567890", 38, 10),
            Ok(12_345_678_901_234_567_890_123_456_781_234_567_890)
        );
        assert_eq!(parse("9.995", 3, 2), Err(DecimalError::Overflow));
        assert_eq!(parse("1000", 3, 0), Err(DecimalError::Overflow));
        assert_eq!(parse("1e99999999999", 38, 0), Err(DecimalError::Overflow));
        assert_eq!(parse("1e-99999", 38, 0), Ok(0));
        for bad in ["", "-", ".", "abc", "1.2.3", "1e", "1_000", "--1", "0x10"] {
            assert_eq!(parse(bad, 10, 2), Err(DecimalError::NotANumber), "{bad:?}");
        }
    }

    #[test]
    fn reals_convert_through_their_shortest_text() {
        assert_eq!(from_f64(10.5, 12, 2), Ok(1050));
        assert_eq!(from_f64(0.1 + 0.2, 12, 2), Ok(30));
        assert_eq!(from_f64(-0.0, 12, 2), Ok(0));
        assert_eq!(from_f64(1e308, 38, 0), Err(DecimalError::Overflow));
        assert_eq!(
            from_f64(f64::INFINITY, 38, 0),
            Err(DecimalError::NotANumber)
        );
        assert_eq!(
            from_i64(i64::MAX, 38, 10).map(|v| v / 10_i128.pow(10)),
            Ok(i128::from(i64::MAX))
        );
        assert_eq!(from_i64(100, 3, 1), Err(DecimalError::Overflow));
    }

    #[test]
    fn decimals_print_exactly() {
        assert_eq!(to_text(1050, 2), "10.50");
        assert_eq!(to_text(-25, 2), "-0.25");
        assert_eq!(to_text(5, 0), "5");
        assert_eq!(to_text(0, 3), "0.000");
        assert_eq!(to_text(i128::MIN + 1, 10).len(), 41);
    }
}
