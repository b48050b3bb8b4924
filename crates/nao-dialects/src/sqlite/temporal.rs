//! Dates and timestamps as SQLite's date functions write them: `YYYY-MM-DD` and
//! `YYYY-MM-DD HH:MM[:SS[.fff…]]` (a `T` may replace the space; a trailing `Z` is accepted).

use nao_core::render::calendar::{CivilDate, civil_from_days, days_from_civil};

const MICROS_PER_SECOND: i64 = 1_000_000;
const SECONDS_PER_DAY: i64 = 86_400;

/// A fixed-width run of ASCII digits as a number.
fn number(text: &str) -> Option<i64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// `YYYY-MM-DD` as days since 1970-01-01.
pub(crate) fn parse_date(text: &str) -> Option<i32> {
    let text = text.trim();
    if text.len() != 10 || text.as_bytes()[4] != b'-' || text.as_bytes()[7] != b'-' {
        return None;
    }
    let year = number(text.get(0..4)?)?;
    let month = u8::try_from(number(text.get(5..7)?)?).ok()?;
    let day = u8::try_from(number(text.get(8..10)?)?).ok()?;
    i32::try_from(days_from_civil(year, month, day)?).ok()
}

/// `YYYY-MM-DD[( |T)HH:MM[:SS[.f…]]][Z]` as microseconds since 1970-01-01 00:00:00. Digits
/// past the microsecond must be zero: dropping them would change the value.
pub(crate) fn parse_timestamp(text: &str) -> Option<i64> {
    let text = text.trim();
    let text = text.strip_suffix('Z').unwrap_or(text);
    let days = i64::from(parse_date(text.get(0..10)?)?);
    let time = text.get(10..)?;
    let seconds_of_day = if time.is_empty() {
        (0, 0)
    } else {
        parse_time(time.strip_prefix([' ', 'T'])?)?
    };
    let (seconds, micros) = seconds_of_day;
    (days * SECONDS_PER_DAY + seconds)
        .checked_mul(MICROS_PER_SECOND)?
        .checked_add(micros)
}

/// `HH:MM[:SS[.f…]]` as (seconds, microseconds).
fn parse_time(time: &str) -> Option<(i64, i64)> {
    let (clock, fraction) = match time.split_once('.') {
        Some((clock, fraction)) => (clock, Some(fraction)),
        None => (time, None),
    };
    let mut parts = clock.split(':');
    let mut field = |max: i64| {
        parts
            .next()
            .filter(|p| p.len() == 2)
            .and_then(number)
            .filter(|v| *v <= max)
    };
    let hours = field(23)?;
    let minutes = field(59)?;
    let seconds = match parts.next() {
        Some(s) if s.len() == 2 => number(s).filter(|v| *v <= 59)?,
        Some(_) => return None,
        None if fraction.is_some() => return None,
        None => 0,
    };
    if parts.next().is_some() {
        return None;
    }
    let micros = match fraction {
        None => 0,
        Some(f) if f.is_empty() || f.len() > 9 || !f.bytes().all(|b| b.is_ascii_digit()) => {
            return None;
        }
        Some(f) => {
            let (kept, rest) = f.split_at(f.len().min(6));
            if rest.bytes().any(|b| b != b'0') {
                return None;
            }
            number(&format!("{kept:0<6}"))?
        }
    };
    Some((hours * 3600 + minutes * 60 + seconds, micros))
}

/// Days since 1970-01-01 as `YYYY-MM-DD`.
pub(crate) fn date_text(days: i32) -> String {
    let CivilDate { year, month, day } = civil_from_days(i64::from(days));
    format!("{year:04}-{month:02}-{day:02}")
}

/// Microseconds since 1970-01-01 as `YYYY-MM-DD HH:MM:SS[.ffffff]`.
pub(crate) fn timestamp_text(micros: i64) -> String {
    let seconds = micros.div_euclid(MICROS_PER_SECOND);
    let fraction = micros.rem_euclid(MICROS_PER_SECOND);
    let days = seconds.div_euclid(SECONDS_PER_DAY);
    let in_day = seconds.rem_euclid(SECONDS_PER_DAY);
    let CivilDate { year, month, day } = civil_from_days(days);
    let (h, m, s) = (in_day / 3600, in_day % 3600 / 60, in_day % 60);
    let date = format!("{year:04}-{month:02}-{day:02} {h:02}:{m:02}:{s:02}");
    if fraction == 0 {
        date
    } else {
        format!("{date}.{fraction:06}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_parse_and_print() {
        assert_eq!(parse_date("1970-01-01"), Some(0));
        assert_eq!(parse_date("2024-02-29"), Some(19_782));
        assert_eq!(parse_date("1969-12-31"), Some(-1));
        assert_eq!(parse_date("0001-01-01"), Some(-719_162));
        for bad in [
            "2023-02-29",
            "2024-13-01",
            "2024-1-01",
            "24-01-01",
            "2024/01/01",
            "",
            "x",
        ] {
            assert_eq!(parse_date(bad), None, "{bad:?}");
        }
        for days in [-719_162, -1, 0, 19_782, 2_932_896] {
            assert_eq!(parse_date(&date_text(days)), Some(days));
        }
    }

    #[test]
    fn timestamps_parse_in_both_forms_and_print() {
        let base = 19_782 * 86_400 * 1_000_000_i64;
        assert_eq!(parse_timestamp("2024-02-29 00:00:00"), Some(base));
        assert_eq!(parse_timestamp("2024-02-29"), Some(base));
        assert_eq!(
            parse_timestamp("2024-02-29T01:02"),
            Some(base + 3_720_000_000)
        );
        assert_eq!(
            parse_timestamp("2024-02-29 00:00:01.5"),
            Some(base + 1_500_000)
        );
        assert_eq!(
            parse_timestamp("2024-02-29 00:00:01.123456Z"),
            Some(base + 1_123_456)
        );
        assert_eq!(
            parse_timestamp("2024-02-29 00:00:01.123456000"),
            Some(base + 1_123_456)
        );
        for bad in [
            "2024-02-29 24:00:00",
            "2024-02-29 00:00:01.1234567",
            "2024-02-29 00:00.5",
            "2024-02-29 0:00:00",
            "2024-02-29X00:00:00",
            "2024-02-29 00:00:00+02:00",
            "1700000000",
        ] {
            assert_eq!(parse_timestamp(bad), None, "{bad:?}");
        }
        for micros in [0, -1, base + 1_123_456, -62_135_596_800_000_000] {
            assert_eq!(
                parse_timestamp(&timestamp_text(micros)),
                Some(micros),
                "{micros}"
            );
        }
        assert_eq!(timestamp_text(-1), "1969-12-31 23:59:59.999999");
    }
}
