//! PostgreSQL `numeric` values from the binary protocol: exact Arrow decimals at a column's
//! scale, or PostgreSQL's own text form for columns without a declared precision.
//!
//! The wire form is a header (digit count, weight, sign, display scale) and base-10 000 digits:
//! the value is `Σ digit[i] × 10000^(weight − i)`.

use arrow_buffer::i256;

/// Sign word of a finite positive value.
const POSITIVE: u16 = 0x0000;
/// Sign word of a finite negative value.
const NEGATIVE: u16 = 0x4000;
/// Sign word of NaN.
const NAN: u16 = 0xC000;
/// Sign word of +Infinity (PostgreSQL 14+).
const POSITIVE_INFINITY: u16 = 0xD000;
/// Sign word of −Infinity (PostgreSQL 14+).
const NEGATIVE_INFINITY: u16 = 0xF000;

/// A decoded `numeric` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Numeric {
    /// Not a number.
    NaN,
    /// +Infinity or −Infinity (`true` when negative).
    Infinity(bool),
    /// A finite value.
    Finite {
        /// Whether the value is below zero.
        negative: bool,
        /// The base-10 000 exponent of the first digit.
        weight: i16,
        /// Digits after the decimal point PostgreSQL displays.
        dscale: u16,
        /// Base-10 000 digits, most significant first.
        digits: Vec<u16>,
    },
}

fn read_u16(raw: &[u8], at: usize) -> Result<u16, String> {
    raw.get(at..at + 2)
        .map(|b| u16::from_be_bytes([b[0], b[1]]))
        .ok_or_else(|| "a malformed numeric value".to_owned())
}

/// Powers of ten that fit an `i128` (10^0 … 10^38).
const POW10: [i128; 39] = {
    let mut table = [1i128; 39];
    let mut i = 1;
    while i < table.len() {
        table[i] = table[i - 1] * 10;
        i += 1;
    }
    table
};

/// The unscaled `i128` of a finite wire value at `scale`, read in place (no allocation) by
/// Horner's rule: the fast path for `Decimal128` columns. `None` when the value needs the
/// general path of [`Numeric::to_unscaled`]: NaN or infinite, malformed, inexact at `scale`,
/// beyond `precision` digits, or an intermediate beyond `i128`; that path then gives the
/// precise error.
pub(super) fn unscaled_i128(raw: &[u8], precision: u8, scale: i8) -> Option<i128> {
    let count = usize::from(read_u16(raw, 0).ok()?);
    let weight = i32::from(read_u16(raw, 2).ok()? as i16);
    let negative = match read_u16(raw, 4).ok()? {
        POSITIVE => false,
        NEGATIVE => true,
        _ => return None,
    };
    let digits = raw.get(8..)?;
    if digits.len() != 2 * count || precision > 38 {
        return None;
    }
    let mut total: i128 = 0;
    for pair in digits.chunks_exact(2) {
        let digit = u16::from_be_bytes([pair[0], pair[1]]);
        if digit >= 10_000 {
            return None;
        }
        total = total.checked_mul(10_000)?.checked_add(i128::from(digit))?;
    }
    // total × 10000^(weight − count + 1) × 10^scale.
    let count = i32::try_from(count).ok()?;
    let exponent = 4 * (weight - count + 1) + i32::from(scale);
    let total = if total == 0 {
        0
    } else if exponent >= 0 {
        total.checked_mul(*POW10.get(usize::try_from(exponent).ok()?)?)?
    } else {
        let divisor = *POW10.get(usize::try_from(-exponent).ok()?)?;
        if total % divisor != 0 {
            return None;
        }
        total / divisor
    };
    if total >= POW10[usize::from(precision)] {
        return None;
    }
    Some(if negative { -total } else { total })
}

impl Numeric {
    /// Parses the binary form.
    pub(super) fn parse(raw: &[u8]) -> Result<Self, String> {
        let count = usize::from(read_u16(raw, 0)?);
        let weight = read_u16(raw, 2)? as i16;
        let sign = read_u16(raw, 4)?;
        let dscale = read_u16(raw, 6)?;
        if raw.len() != 8 + 2 * count {
            return Err("a malformed numeric value".to_owned());
        }
        let negative = match sign {
            POSITIVE => false,
            NEGATIVE => true,
            NAN => return Ok(Numeric::NaN),
            POSITIVE_INFINITY => return Ok(Numeric::Infinity(false)),
            NEGATIVE_INFINITY => return Ok(Numeric::Infinity(true)),
            _ => return Err("a numeric value with an unknown sign".to_owned()),
        };
        let digits = (0..count)
            .map(|i| read_u16(raw, 8 + 2 * i))
            .collect::<Result<Vec<u16>, String>>()?;
        if digits.iter().any(|&d| d >= 10_000) {
            return Err("a malformed numeric value".to_owned());
        }
        Ok(Numeric::Finite {
            negative,
            weight,
            dscale,
            digits,
        })
    }

    /// The unscaled integer of this value at `scale` (value × 10^scale), when it is exact and
    /// has at most `precision` digits.
    pub(super) fn to_unscaled(&self, precision: u8, scale: i8) -> Result<i256, String> {
        let (negative, weight, digits) = match self {
            Numeric::NaN => return Err("NaN".to_owned()),
            Numeric::Infinity(false) => return Err("Infinity".to_owned()),
            Numeric::Infinity(true) => return Err("-Infinity".to_owned()),
            Numeric::Finite {
                negative,
                weight,
                digits,
                ..
            } => (*negative, *weight, digits),
        };
        let too_big = || format!("{} does not fit {precision} digits", self.to_text());
        let ten = i256::from_i128(10);
        let mut total = i256::ZERO;
        for (i, &digit) in digits.iter().enumerate() {
            if digit == 0 {
                continue;
            }
            let index = i32::try_from(i).map_err(|_| too_big())?;
            let exponent = 4 * (i32::from(weight) - index) + i32::from(scale);
            let digit = i256::from_i128(i128::from(digit));
            let term = if exponent >= 0 {
                let factor = ten
                    .checked_pow(exponent.unsigned_abs())
                    .ok_or_else(too_big)?;
                digit.checked_mul(factor).ok_or_else(too_big)?
            } else {
                // Digits below the scale must be zero, or the value would be rounded.
                let divisor = ten.checked_pow(exponent.unsigned_abs());
                match divisor {
                    Some(d) if digit.checked_rem(d) == Some(i256::ZERO) => {
                        digit.checked_div(d).ok_or_else(too_big)?
                    }
                    _ => {
                        return Err(format!(
                            "{} has more than {scale} digits after the point",
                            self.to_text()
                        ));
                    }
                }
            };
            total = total.checked_add(term).ok_or_else(too_big)?;
        }
        let limit = ten.checked_pow(u32::from(precision)).ok_or_else(too_big)?;
        if total >= limit {
            return Err(too_big());
        }
        Ok(if negative {
            total.wrapping_neg()
        } else {
            total
        })
    }

    /// The value as PostgreSQL prints it: every digit of the display scale (`1050.50`,
    /// `0.33333333333333333333`), `NaN`, `Infinity`, `-Infinity`.
    pub(super) fn to_text(&self) -> String {
        let (negative, weight, dscale, digits) = match self {
            Numeric::NaN => return "NaN".to_owned(),
            Numeric::Infinity(false) => return "Infinity".to_owned(),
            Numeric::Infinity(true) => return "-Infinity".to_owned(),
            Numeric::Finite {
                negative,
                weight,
                dscale,
                digits,
            } => (*negative, i32::from(*weight), usize::from(*dscale), digits),
        };
        // The base-10 000 digit whose exponent is `e`.
        let group = |e: i32| -> u16 {
            usize::try_from(weight - e)
                .ok()
                .and_then(|i| digits.get(i))
                .copied()
                .unwrap_or(0)
        };
        let mut out = String::new();
        if negative && digits.iter().any(|&d| d != 0) {
            out.push('-');
        }
        if weight < 0 {
            out.push('0');
        } else {
            out.push_str(&group(weight).to_string());
            for e in (0..weight).rev() {
                out.push_str(&format!("{:04}", group(e)));
            }
        }
        if dscale > 0 {
            out.push('.');
            let mut fraction = String::with_capacity(dscale + 4);
            let mut e = -1;
            while fraction.len() < dscale {
                fraction.push_str(&format!("{:04}", group(e)));
                e -= 1;
            }
            fraction.truncate(dscale);
            out.push_str(&fraction);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The binary form of a numeric from its parts.
    fn wire(sign: u16, weight: i16, dscale: u16, digits: &[u16]) -> Vec<u8> {
        let mut raw = Vec::new();
        raw.extend_from_slice(&(digits.len() as u16).to_be_bytes());
        raw.extend_from_slice(&weight.to_be_bytes());
        raw.extend_from_slice(&sign.to_be_bytes());
        raw.extend_from_slice(&dscale.to_be_bytes());
        for d in digits {
            raw.extend_from_slice(&d.to_be_bytes());
        }
        raw
    }

    fn parse(sign: u16, weight: i16, dscale: u16, digits: &[u16]) -> Numeric {
        Numeric::parse(&wire(sign, weight, dscale, digits)).expect("valid numeric")
    }

    #[test]
    fn values_print_like_postgres() {
        assert_eq!(parse(POSITIVE, 0, 2, &[1050, 5000]).to_text(), "1050.50");
        assert_eq!(parse(NEGATIVE, -1, 2, &[2500]).to_text(), "-0.25");
        assert_eq!(parse(POSITIVE, 0, 0, &[]).to_text(), "0");
        assert_eq!(parse(POSITIVE, 0, 3, &[]).to_text(), "0.000");
        assert_eq!(parse(POSITIVE, 2, 0, &[1]).to_text(), "100000000");
        assert_eq!(parse(POSITIVE, -2, 6, &[1200]).to_text(), "0.000012");
        assert_eq!(
            parse(POSITIVE, -1, 20, &[3333, 3333, 3333, 3333, 3333]).to_text(),
            "0.33333333333333333333"
        );
        assert_eq!(parse(NAN, 0, 0, &[]).to_text(), "NaN");
        assert_eq!(parse(NEGATIVE_INFINITY, 0, 0, &[]).to_text(), "-Infinity");
    }

    #[test]
    fn values_become_exact_unscaled_integers() {
        let v = parse(POSITIVE, 0, 2, &[1050, 5000]);
        assert_eq!(v.to_unscaled(12, 2), Ok(i256::from_i128(105_050)));
        assert_eq!(v.to_unscaled(12, 4), Ok(i256::from_i128(10_505_000)));
        assert!(v.to_unscaled(12, 0).is_err(), "would round");
        assert!(v.to_unscaled(3, 0).is_err());
        assert!(v.to_unscaled(4, 1).is_err(), "5 digits needed");
        let negative = parse(NEGATIVE, -1, 2, &[2500]);
        assert_eq!(negative.to_unscaled(12, 2), Ok(i256::from_i128(-25)));
        assert_eq!(
            parse(POSITIVE, 1, 0, &[12, 3400]).to_unscaled(10, -2),
            Ok(i256::from_i128(1234))
        );
        assert!(parse(NAN, 0, 0, &[]).to_unscaled(10, 2).is_err());
        assert!(Numeric::parse(&[0, 1]).is_err());
        assert!(Numeric::parse(&wire(POSITIVE, 0, 0, &[10_000])).is_err());
    }

    /// The fast path agrees with the general one wherever it answers, and answers for the
    /// ordinary values.
    #[test]
    fn the_in_place_path_matches_the_general_one() {
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move |bound: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % bound
        };
        let mut answered = 0;
        for _ in 0..20_000 {
            let count = next(12) as usize;
            let digits: Vec<u16> = (0..count).map(|_| next(10_000) as u16).collect();
            let weight = next(16) as i16 - 8;
            let sign = [POSITIVE, NEGATIVE, NAN][next(3) as usize];
            let raw = wire(sign, weight, 0, &digits);
            let precision = 1 + next(38) as u8;
            let scale = next(u64::from(precision) + 1) as i8;
            let general = Numeric::parse(&raw)
                .and_then(|n| n.to_unscaled(precision, scale))
                .ok()
                .and_then(|v| v.to_i128());
            let fast = unscaled_i128(&raw, precision, scale);
            if let Some(value) = fast {
                answered += 1;
                assert_eq!(
                    Some(value),
                    general,
                    "{digits:?} w{weight} p{precision} s{scale}"
                );
            }
        }
        assert!(
            answered > 1_000,
            "the fast path answered only {answered} times"
        );
        assert_eq!(
            unscaled_i128(&wire(POSITIVE, 0, 2, &[1050, 5000]), 12, 2),
            Some(105_050)
        );
        assert_eq!(
            unscaled_i128(&wire(NEGATIVE, -1, 2, &[2500]), 12, 2),
            Some(-25)
        );
        assert_eq!(
            unscaled_i128(&wire(POSITIVE, 0, 2, &[1050, 5000]), 12, 0),
            None
        );
        assert_eq!(unscaled_i128(&[0, 1], 12, 0), None);
        assert_eq!(
            unscaled_i128(&wire(POSITIVE, 1, 0, &[12, 3400]), 10, -2),
            Some(1234)
        );
    }
}
