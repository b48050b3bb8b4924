//! Dates on a continuous x axis: the x values of a chart whose x is a date, as seconds since
//! the Unix epoch (what charts-rs's time axis reads), so that uneven dates keep their real
//! spacing instead of standing one row apart.

use chrono::{NaiveDate, NaiveDateTime};
use nao_core::chart::XValue;

/// Every x value as seconds since 1970-01-01 (UTC), or `None` when one is not a date: NULL,
/// a number, or text that is not ISO-8601 (`2024`, `2024-03`, `2024-03-01`,
/// `2024-03-01T10:00:00` or with a space, fractional seconds allowed; the first of the month
/// or year where the day or month is left out).
pub(crate) fn epoch_seconds(x: &[XValue]) -> Option<Vec<f64>> {
    x.iter()
        .map(|value| match value {
            XValue::Text(text) => parse(text.trim()),
            _ => None,
        })
        .collect()
}

#[allow(clippy::cast_precision_loss)]
fn parse(text: &str) -> Option<f64> {
    let datetime = [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
    ]
    .iter()
    .find_map(|format| NaiveDateTime::parse_from_str(text, format).ok())
    .or_else(|| {
        let date = match text.len() {
            4 => NaiveDate::parse_from_str(&format!("{text}-01-01"), "%Y-%m-%d"),
            7 => NaiveDate::parse_from_str(&format!("{text}-01"), "%Y-%m-%d"),
            _ => NaiveDate::parse_from_str(text, "%Y-%m-%d"),
        };
        date.ok()?.and_hms_opt(0, 0, 0)
    })?;
    let utc = datetime.and_utc();
    Some(utc.timestamp() as f64 + f64::from(utc.timestamp_subsec_millis()) / 1_000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> XValue {
        XValue::Text(s.to_owned())
    }

    #[test]
    fn iso_forms_become_epoch_seconds() {
        let x = [
            text("1970-01-02"),
            text("2024-03"),
            text("2024"),
            text("2024-03-01T10:00:00"),
            text("2024-03-01 10:00:00.5"),
        ];
        assert_eq!(
            epoch_seconds(&x).unwrap(),
            vec![
                86_400.0,
                1_709_251_200.0,
                1_704_067_200.0,
                1_709_287_200.0,
                1_709_287_200.5
            ]
        );
    }

    #[test]
    fn anything_else_is_no_time_axis() {
        for x in [
            vec![text("2024-03-01"), XValue::Null],
            vec![text("March")],
            vec![XValue::Number(3.0)],
            vec![text("2024-13-01")],
        ] {
            assert_eq!(epoch_seconds(&x), None, "{x:?}");
        }
    }
}
