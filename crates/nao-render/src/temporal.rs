//! Dates, times, timestamps, durations and intervals in ISO 8601, computed from the raw Arrow
//! integers (no time-zone database, no float).

use std::fmt::Write as _;

use arrow_schema::TimeUnit;

use crate::calendar::{CivilDate, civil_from_days};

const SECONDS_PER_DAY: i64 = 86_400;
const NANOS_PER_SECOND: i64 = 1_000_000_000;

/// Nanoseconds in one tick of `unit`.
pub(crate) fn nanos_per_tick(unit: TimeUnit) -> i64 {
    match unit {
        TimeUnit::Second => NANOS_PER_SECOND,
        TimeUnit::Millisecond => 1_000_000,
        TimeUnit::Microsecond => 1_000,
        TimeUnit::Nanosecond => 1,
    }
}

/// Splits a count of `unit` ticks into whole seconds (floored) and the nanoseconds past them.
fn split_seconds(value: i64, unit: TimeUnit) -> (i64, i64) {
    let ticks_per_second = NANOS_PER_SECOND / nanos_per_tick(unit);
    let seconds = value.div_euclid(ticks_per_second);
    let nanos = value.rem_euclid(ticks_per_second) * nanos_per_tick(unit);
    (seconds, nanos)
}

/// Writes `YYYY-MM-DD` (years outside 0–9999 with a sign, as ISO 8601 expanded years).
pub(crate) fn write_date(out: &mut String, days_since_epoch: i64) {
    let CivilDate { year, month, day } = civil_from_days(days_since_epoch);
    match year {
        0..=9999 => {
            push_two_digits(out, year / 100);
            push_two_digits(out, year % 100);
        }
        10_000.. => {
            let _ = write!(out, "+{year}");
        }
        _ => {
            let _ = write!(out, "-{:04}", year.unsigned_abs());
        }
    }
    out.push('-');
    push_two_digits(out, i64::from(month));
    out.push('-');
    push_two_digits(out, i64::from(day));
}

/// Appends `value` (0–99) as two digits.
fn push_two_digits(out: &mut String, value: i64) {
    let value = value.clamp(0, 99) as u8;
    out.push(char::from(b'0' + value / 10));
    out.push(char::from(b'0' + value % 10));
}

/// Writes `.fffffffff` with trailing zeros trimmed, or nothing for a whole second.
fn write_fraction(out: &mut String, nanos: i64) {
    if nanos == 0 {
        return;
    }
    let mut digits = [b'0'; 9];
    let mut rest = nanos.clamp(0, 999_999_999);
    for digit in digits.iter_mut().rev() {
        *digit = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    let used = digits
        .iter()
        .rposition(|digit| *digit != b'0')
        .map_or(0, |last| last + 1);
    out.push('.');
    out.extend(digits[..used].iter().map(|digit| char::from(*digit)));
}

/// Writes `HH:MM:SS[.f]` for a time of day.
fn write_clock(out: &mut String, seconds_of_day: i64, nanos: i64) {
    let (hours, minutes, seconds) = (
        seconds_of_day / 3_600,
        seconds_of_day / 60 % 60,
        seconds_of_day % 60,
    );
    push_two_digits(out, hours);
    out.push(':');
    push_two_digits(out, minutes);
    out.push(':');
    push_two_digits(out, seconds);
    write_fraction(out, nanos);
}

/// Writes a `Time32`/`Time64` value; values outside one day are shown raw and flagged.
pub(crate) fn write_time(out: &mut String, value: i64, unit: TimeUnit) {
    let (seconds, nanos) = split_seconds(value, unit);
    if (0..SECONDS_PER_DAY).contains(&seconds) {
        write_clock(out, seconds, nanos);
    } else {
        let _ = write!(out, "{value} {} (out of range)", unit_symbol(unit));
    }
}

/// Writes a `Date64` value: a date when it falls on midnight, else the full date and time.
pub(crate) fn write_date64(out: &mut String, millis: i64) {
    let (seconds, nanos) = split_seconds(millis, TimeUnit::Millisecond);
    write_date(out, seconds.div_euclid(SECONDS_PER_DAY));
    let seconds_of_day = seconds.rem_euclid(SECONDS_PER_DAY);
    if seconds_of_day != 0 || nanos != 0 {
        out.push('T');
        write_clock(out, seconds_of_day, nanos);
    }
}

/// How a timestamp's time zone is shown.
enum ZoneOffset {
    /// No zone: a local date-time, no suffix.
    Local,
    /// UTC, or a named zone (no zone database here): the instant in UTC, suffix `Z`.
    Utc,
    /// A fixed offset in seconds east of UTC, suffix `+HH:MM`.
    Fixed(i64),
}

fn parse_zone(zone: Option<&str>) -> ZoneOffset {
    let Some(zone) = zone else {
        return ZoneOffset::Local;
    };
    let zone = zone.trim();
    let Some(sign) = zone
        .strip_prefix('+')
        .map(|_| 1)
        .or(zone.strip_prefix('-').map(|_| -1))
    else {
        return ZoneOffset::Utc;
    };
    let digits: String = zone[1..].chars().filter(|ch| *ch != ':').collect();
    let parsed = match digits.len() {
        2 => digits.parse::<i64>().ok().map(|hours| hours * 3_600),
        4 => match (digits[..2].parse::<i64>(), digits[2..].parse::<i64>()) {
            (Ok(hours), Ok(minutes)) if minutes < 60 => Some(hours * 3_600 + minutes * 60),
            _ => None,
        },
        _ => None,
    };
    match parsed {
        Some(0) | None => ZoneOffset::Utc,
        Some(seconds) => ZoneOffset::Fixed(sign * seconds),
    }
}

/// Writes a timestamp in ISO 8601: `2024-03-01T12:00:00.5` without a zone, with `Z` for UTC
/// (and for named zones, shown as the UTC instant), with `+05:30` for a fixed offset.
pub(crate) fn write_timestamp(out: &mut String, value: i64, unit: TimeUnit, zone: Option<&str>) {
    let (seconds, nanos) = split_seconds(value, unit);
    let offset = parse_zone(zone);
    let shift = match offset {
        ZoneOffset::Fixed(seconds) => seconds,
        ZoneOffset::Local | ZoneOffset::Utc => 0,
    };
    // i64 arithmetic for every real instant; i128 only where the shift would overflow.
    let (days, seconds_of_day) = match seconds.checked_add(shift) {
        Some(local) => (
            local.div_euclid(SECONDS_PER_DAY),
            local.rem_euclid(SECONDS_PER_DAY),
        ),
        None => {
            let local = i128::from(seconds) + i128::from(shift);
            let per_day = i128::from(SECONDS_PER_DAY);
            let days = i64::try_from(local.div_euclid(per_day)).unwrap_or_default();
            (
                days,
                i64::try_from(local.rem_euclid(per_day)).unwrap_or_default(),
            )
        }
    };
    write_date(out, days);
    out.push('T');
    write_clock(out, seconds_of_day, nanos);
    match offset {
        ZoneOffset::Local => {}
        ZoneOffset::Utc => out.push('Z'),
        ZoneOffset::Fixed(seconds) => {
            let sign = if seconds < 0 { '-' } else { '+' };
            let minutes = seconds.unsigned_abs() / 60;
            let _ = write!(out, "{sign}{:02}:{:02}", minutes / 60, minutes % 60);
        }
    }
}

/// Writes a `Duration` as an ISO 8601 duration (`P1DT2H3M4.5S`; days of 24 hours; a negative
/// duration has each part negative, `P-1DT-2H`).
pub(crate) fn write_duration(out: &mut String, value: i64, unit: TimeUnit) {
    let nanos = i128::from(value) * i128::from(nanos_per_tick(unit));
    let nanos_per_day = i128::from(SECONDS_PER_DAY * NANOS_PER_SECOND);
    write_interval(out, 0, nanos / nanos_per_day, nanos % nanos_per_day);
}

/// Writes an interval as an ISO 8601 duration with a sign on each negative part (the
/// PostgreSQL `iso_8601` style): `P1Y2M-3DT4H5M6.000000007S`; all zero is `PT0S`.
pub(crate) fn write_interval(out: &mut String, months: i64, days: i128, nanos: i128) {
    out.push('P');
    let (years, months) = (months / 12, months % 12);
    for (amount, designator) in [
        (i128::from(years), 'Y'),
        (i128::from(months), 'M'),
        (days, 'D'),
    ] {
        if amount != 0 {
            let _ = write!(out, "{amount}{designator}");
        }
    }
    if nanos == 0 {
        if months == 0 && years == 0 && days == 0 {
            out.push_str("T0S");
        }
        return;
    }
    out.push('T');
    let sign = if nanos < 0 { "-" } else { "" };
    let magnitude = nanos.unsigned_abs();
    let nanos_per_second = NANOS_PER_SECOND.unsigned_abs() as u128;
    let whole_seconds = magnitude / nanos_per_second;
    let (hours, minutes, seconds) = (
        whole_seconds / 3_600,
        whole_seconds / 60 % 60,
        whole_seconds % 60,
    );
    let fraction = i64::try_from(magnitude % nanos_per_second).unwrap_or_default();
    if hours != 0 {
        let _ = write!(out, "{sign}{hours}H");
    }
    if minutes != 0 {
        let _ = write!(out, "{sign}{minutes}M");
    }
    if seconds != 0 || fraction != 0 {
        let _ = write!(out, "{sign}{seconds}");
        write_fraction(out, fraction);
        out.push('S');
    }
}

/// The short symbol of a time unit, as used in type names: `s`, `ms`, `µs`, `ns`.
pub(crate) fn unit_symbol(unit: TimeUnit) -> &'static str {
    match unit {
        TimeUnit::Second => "s",
        TimeUnit::Millisecond => "ms",
        TimeUnit::Microsecond => "µs",
        TimeUnit::Nanosecond => "ns",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(write: impl FnOnce(&mut String)) -> String {
        let mut out = String::new();
        write(&mut out);
        out
    }

    #[test]
    fn dates_cover_the_calendar() {
        assert_eq!(text(|o| write_date(o, 0)), "1970-01-01");
        assert_eq!(text(|o| write_date(o, 19_783)), "2024-03-01");
        assert_eq!(text(|o| write_date(o, 19_782)), "2024-02-29");
        assert_eq!(text(|o| write_date(o, -1)), "1969-12-31");
        assert_eq!(text(|o| write_date(o, -719_529)), "-0001-12-31");
        assert_eq!(text(|o| write_date(o, 2_932_897)), "+10000-01-01");
        assert_eq!(
            text(|o| write_date(o, i64::from(i32::MIN))),
            "-5877641-06-23"
        );
    }

    #[test]
    fn times_and_timestamps() {
        assert_eq!(
            text(|o| write_time(o, 45_296_500, TimeUnit::Millisecond)),
            "12:34:56.5"
        );
        assert_eq!(
            text(|o| write_time(o, 86_400, TimeUnit::Second)),
            "86400 s (out of range)"
        );
        assert_eq!(
            text(|o| write_timestamp(o, -1, TimeUnit::Nanosecond, None)),
            "1969-12-31T23:59:59.999999999"
        );
        assert_eq!(
            text(|o| write_timestamp(o, 1_709_294_400, TimeUnit::Second, Some("+05:30"))),
            "2024-03-01T17:30:00+05:30"
        );
        assert_eq!(
            text(|o| write_timestamp(o, 1_709_294_400, TimeUnit::Second, Some("-0800"))),
            "2024-03-01T04:00:00-08:00"
        );
        assert_eq!(
            text(|o| write_timestamp(o, 1_709_294_400, TimeUnit::Second, Some("+00:00"))),
            "2024-03-01T12:00:00Z"
        );
        assert_eq!(
            text(|o| write_timestamp(o, i64::MAX, TimeUnit::Second, Some("+14:00"))),
            "+292277026596-12-05T05:30:07+14:00"
        );
        assert_eq!(
            text(|o| write_timestamp(o, i64::MIN, TimeUnit::Millisecond, None)),
            "-292275055-05-16T16:47:04.192"
        );
    }

    #[test]
    fn durations_and_intervals() {
        assert_eq!(text(|o| write_duration(o, 0, TimeUnit::Second)), "PT0S");
        assert_eq!(
            text(|o| write_duration(o, 93_784_500, TimeUnit::Millisecond)),
            "P1DT2H3M4.5S"
        );
        assert_eq!(
            text(|o| write_duration(o, -7_200, TimeUnit::Second)),
            "PT-2H"
        );
        assert_eq!(
            text(|o| write_duration(o, i64::MIN, TimeUnit::Second)),
            "P-106751991167300DT-15H-30M-8S"
        );
        assert_eq!(text(|o| write_interval(o, 14, -3, 0)), "P1Y2M-3D");
        assert_eq!(text(|o| write_interval(o, 0, 0, -1_500_000_000)), "PT-1.5S");
        assert_eq!(text(|o| write_interval(o, 0, 0, 0)), "PT0S");
    }
}
