//! The proleptic Gregorian calendar on day counts since 1970-01-01, the one place the
//! workspace turns days into dates and back (the renderer, the chart values, the SQLite and
//! MySQL adapters' value conversions).
//!
//! Hand-written (Howard Hinnant's `days_from_civil` and `civil_from_days`, in integers)
//! rather than taken from `chrono`, because it must cover every value Arrow can hold: a
//! `Date32` reaches about ±5.8 million years and a `Date64` or timestamp further, where
//! chrono's dates stop at ±262,143 years. It never panics and never overflows (checked
//! arithmetic where a day count or a year could leave `i64`).
//!
//! ```
//! use nao_render::calendar::{CivilDate, civil_from_days, days_from_civil};
//!
//! assert_eq!(days_from_civil(2024, 2, 29), Some(19_782));
//! assert_eq!(days_from_civil(2023, 2, 29), None);
//! assert_eq!(civil_from_days(19_782), CivilDate { year: 2024, month: 2, day: 29 });
//! ```

/// Days in a 400-year era of the Gregorian calendar.
const DAYS_PER_ERA: i64 = 146_097;
/// Days from 0000-03-01 (the start of the algorithm's era 0) to 1970-01-01.
const EPOCH_SHIFT: i64 = 719_468;

/// A date of the proleptic Gregorian calendar (year 0 is 1 BC, as in ISO 8601).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CivilDate {
    /// The year, astronomical numbering.
    pub year: i64,
    /// The month, 1 to 12.
    pub month: u8,
    /// The day of the month, 1 to 31.
    pub day: u8,
}

/// Whether `year` has a 29 February.
pub fn is_leap_year(year: i64) -> bool {
    year.rem_euclid(4) == 0 && (year.rem_euclid(100) != 0 || year.rem_euclid(400) == 0)
}

/// The days of `month` (1 to 12) in `year`, `None` for a month outside 1 to 12.
pub fn days_in_month(year: i64, month: u8) -> Option<u8> {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => Some(31),
        4 | 6 | 9 | 11 => Some(30),
        2 if is_leap_year(year) => Some(29),
        2 => Some(28),
        _ => None,
    }
}

/// Days since 1970-01-01 of a date, `None` for a date that does not exist (month 13,
/// 30 February) or whose day count does not fit an `i64`.
pub fn days_from_civil(year: i64, month: u8, day: u8) -> Option<i64> {
    if day == 0 || day > days_in_month(year, month)? {
        return None;
    }
    let (month, day) = (i64::from(month), i64::from(day));
    // The year counted from March, so that the leap day ends it.
    let year = year.checked_sub(i64::from(month <= 2))?;
    let era = year.div_euclid(400);
    let year_of_era = year.rem_euclid(400);
    let march_month = (month + 9) % 12;
    let day_of_year = (153 * march_month + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era.checked_mul(DAYS_PER_ERA)?
        .checked_add(day_of_era - EPOCH_SHIFT)
}

/// The date `days` days after 1970-01-01 (before it, for negative `days`). Every `i64` has
/// one.
pub fn civil_from_days(days: i64) -> CivilDate {
    // The era and day of era of `days + EPOCH_SHIFT`, without forming that sum (it overflows
    // near i64::MAX): split `days` first, then carry the shift into the era.
    let shifted = days.rem_euclid(DAYS_PER_ERA) + EPOCH_SHIFT;
    let era = days.div_euclid(DAYS_PER_ERA) + shifted.div_euclid(DAYS_PER_ERA);
    let day_of_era = shifted.rem_euclid(DAYS_PER_ERA);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let march_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * march_month + 2) / 5 + 1;
    let month = if march_month < 10 {
        march_month + 3
    } else {
        march_month - 9
    };
    // |era| is at most i64::MAX / 146,097 + 5, so `era * 400` and the year fit.
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    CivilDate {
        year,
        // Month and day are 1..=12 and 1..=31 by construction.
        month: u8::try_from(month).unwrap_or(1),
        day: u8::try_from(day).unwrap_or(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates() {
        assert_eq!(days_from_civil(1970, 1, 1), Some(0));
        assert_eq!(days_from_civil(1969, 12, 31), Some(-1));
        assert_eq!(days_from_civil(2000, 3, 1), Some(11_017));
        assert_eq!(days_from_civil(1000, 1, 1), Some(-354_285));
        assert_eq!(days_from_civil(9999, 12, 31), Some(2_932_896));
        assert_eq!(days_from_civil(0, 3, 1), Some(-719_468));
        assert_eq!(
            civil_from_days(-719_468),
            CivilDate {
                year: 0,
                month: 3,
                day: 1
            }
        );
    }

    #[test]
    fn impossible_dates_have_no_day_count() {
        for (year, month, day) in [(2023, 2, 29), (1900, 2, 29), (2024, 13, 1), (2024, 0, 1)] {
            assert_eq!(
                days_from_civil(year, month, day),
                None,
                "{year}-{month}-{day}"
            );
        }
        assert_eq!(days_from_civil(2024, 4, 31), None);
        assert_eq!(days_from_civil(2024, 4, 0), None);
        assert_eq!(days_from_civil(2000, 2, 29), Some(11_016));
        assert_eq!(days_from_civil(i64::MAX, 12, 31), None);
    }

    #[test]
    fn every_day_of_eight_centuries_goes_there_and_back() {
        let first = days_from_civil(1600, 1, 1).unwrap();
        let last = days_from_civil(2400, 12, 31).unwrap();
        let mut expected = CivilDate {
            year: 1600,
            month: 1,
            day: 1,
        };
        for days in first..=last {
            let date = civil_from_days(days);
            assert_eq!(date, expected, "day {days}");
            assert_eq!(days_from_civil(date.year, date.month, date.day), Some(days));
            // The next day, counted by hand.
            expected = if date.day < days_in_month(date.year, date.month).unwrap() {
                CivilDate {
                    day: date.day + 1,
                    ..date
                }
            } else if date.month < 12 {
                CivilDate {
                    month: date.month + 1,
                    day: 1,
                    ..date
                }
            } else {
                CivilDate {
                    year: date.year + 1,
                    month: 1,
                    day: 1,
                }
            };
        }
    }

    #[test]
    fn the_extremes_do_not_panic() {
        for days in [i64::MIN, i64::MIN + 1, -1, 0, i64::MAX - 1, i64::MAX] {
            let date = civil_from_days(days);
            assert!((1..=12).contains(&date.month) && (1..=31).contains(&date.day));
        }
        let far = civil_from_days(i64::from(i32::MAX));
        assert_eq!(
            days_from_civil(far.year, far.month, far.day),
            Some(i64::from(i32::MAX))
        );
        let far_back = civil_from_days(i64::from(i32::MIN));
        assert_eq!(
            days_from_civil(far_back.year, far_back.month, far_back.day),
            Some(i64::from(i32::MIN))
        );
    }
}
