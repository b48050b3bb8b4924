//! Reading chart values out of a stored result's Arrow columns.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Decimal32Type, Decimal64Type, Decimal128Type, Float16Type, Float32Type,
    Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType, UInt8Type, UInt16Type,
    UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrowPrimitiveType};
use arrow_schema::{DataType, TimeUnit};
use nao_render::calendar::{CivilDate, civil_from_days};

/// One x value of a chart, as read from the result.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum XValue {
    /// NULL in the result.
    Null,
    /// A number.
    Number(f64),
    /// Text, or a date/timestamp as ISO-8601 text (`2024-03-01`, `2024-03-01T10:00:00`).
    Text(String),
    /// A boolean.
    Bool(bool),
}

impl XValue {
    /// The value as a label.
    pub fn label(&self) -> String {
        match self {
            XValue::Null => "(null)".to_owned(),
            XValue::Number(n) => format_number(*n),
            XValue::Text(t) => t.clone(),
            XValue::Bool(b) => b.to_string(),
        }
    }

    /// The value as JSON, for Vega-Lite data.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            XValue::Null => serde_json::Value::Null,
            XValue::Number(n) => number_json(*n),
            XValue::Text(t) => serde_json::Value::String(t.clone()),
            XValue::Bool(b) => serde_json::Value::Bool(*b),
        }
    }
}

/// A number as JSON (non-finite numbers become null).
pub(crate) fn number_json(n: f64) -> serde_json::Value {
    serde_json::Number::from_f64(n).map_or(serde_json::Value::Null, serde_json::Value::Number)
}

/// A number on the x axis as a short label: integers without `.0` and without grouping (a
/// year reads `2024`), others with up to 2 decimals. Amounts people read (summaries, KPI
/// cards) use [`human_number`](crate::render::human_number) instead.
pub fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{n:.0}")
    } else {
        let s = format!("{n:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

/// Whether a column of this type can be plotted as numbers.
pub fn is_numeric(data_type: &DataType) -> bool {
    data_type.is_numeric()
}

/// Whether a column of this type holds dates or timestamps.
pub fn is_temporal(data_type: &DataType) -> bool {
    matches!(
        data_type,
        DataType::Date32 | DataType::Date64 | DataType::Timestamp(_, _)
    )
}

/// Whether a column of this type holds text.
pub(crate) fn is_text(data_type: &DataType) -> bool {
    matches!(
        data_type,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    )
}

fn prim<T: ArrowPrimitiveType>(array: &dyn Array, row: usize) -> Option<T::Native> {
    array
        .as_primitive_opt::<T>()
        .filter(|a| a.is_valid(row))
        .map(|a| a.value(row))
}

fn decimal(v: i128, scale: i8) -> f64 {
    // Charts need floats; the exact decimal stays in the result for tables.
    #[allow(clippy::cast_precision_loss)]
    let v = v as f64;
    v / 10f64.powi(i32::from(scale))
}

/// The value at `row` as a float, when the column is numeric and the value not NULL.
pub fn number_at(array: &dyn Array, row: usize) -> Option<f64> {
    if row >= array.len() || array.is_null(row) {
        return None;
    }
    #[allow(clippy::cast_precision_loss)]
    let value = match array.data_type() {
        DataType::Int8 => prim::<Int8Type>(array, row).map(f64::from),
        DataType::Int16 => prim::<Int16Type>(array, row).map(f64::from),
        DataType::Int32 => prim::<Int32Type>(array, row).map(f64::from),
        DataType::Int64 => prim::<Int64Type>(array, row).map(|v| v as f64),
        DataType::UInt8 => prim::<UInt8Type>(array, row).map(f64::from),
        DataType::UInt16 => prim::<UInt16Type>(array, row).map(f64::from),
        DataType::UInt32 => prim::<UInt32Type>(array, row).map(f64::from),
        DataType::UInt64 => prim::<UInt64Type>(array, row).map(|v| v as f64),
        DataType::Float16 => prim::<Float16Type>(array, row).map(f64::from),
        DataType::Float32 => prim::<Float32Type>(array, row).map(f64::from),
        DataType::Float64 => prim::<Float64Type>(array, row),
        DataType::Decimal32(_, s) => {
            prim::<Decimal32Type>(array, row).map(|v| decimal(i128::from(v), *s))
        }
        DataType::Decimal64(_, s) => {
            prim::<Decimal64Type>(array, row).map(|v| decimal(i128::from(v), *s))
        }
        DataType::Decimal128(_, s) => prim::<Decimal128Type>(array, row).map(|v| decimal(v, *s)),
        _ => None,
    };
    value.filter(|v| v.is_finite())
}

/// The value at `row` as an x value.
pub fn x_value_at(array: &dyn Array, row: usize) -> XValue {
    if row >= array.len() || array.is_null(row) {
        return XValue::Null;
    }
    let data_type = array.data_type();
    if data_type.is_numeric() {
        return number_at(array, row).map_or(XValue::Null, XValue::Number);
    }
    let text = match data_type {
        DataType::Utf8 => array
            .as_string_opt::<i32>()
            .map(|a| a.value(row).to_owned()),
        DataType::LargeUtf8 => array
            .as_string_opt::<i64>()
            .map(|a| a.value(row).to_owned()),
        DataType::Utf8View => array.as_string_view_opt().map(|a| a.value(row).to_owned()),
        DataType::Boolean => {
            return array
                .as_boolean_opt()
                .map_or(XValue::Null, |a| XValue::Bool(a.value(row)));
        }
        DataType::Date32 => prim::<Date32Type>(array, row).map(|d| iso_date(i64::from(d))),
        DataType::Date64 => prim::<Date64Type>(array, row).map(|ms| iso_datetime(ms, 1_000, true)),
        DataType::Timestamp(unit, _) => {
            let (v, per_second) = match unit {
                TimeUnit::Second => (prim::<TimestampSecondType>(array, row), 1),
                TimeUnit::Millisecond => (prim::<TimestampMillisecondType>(array, row), 1_000),
                TimeUnit::Microsecond => (prim::<TimestampMicrosecondType>(array, row), 1_000_000),
                TimeUnit::Nanosecond => {
                    (prim::<TimestampNanosecondType>(array, row), 1_000_000_000)
                }
            };
            v.map(|v| iso_datetime(v, per_second, false))
        }
        _ => None,
    };
    text.map_or(XValue::Null, XValue::Text)
}

/// `YYYY-MM-DD` of a day count since 1970-01-01 (proleptic Gregorian).
fn iso_date(days: i64) -> String {
    let CivilDate { year, month, day } = civil_from_days(days);
    format!("{year:04}-{month:02}-{day:02}")
}

/// ISO-8601 of `value` units since the epoch; midnight is shown as a bare date when
/// `date_if_midnight`.
fn iso_datetime(value: i64, per_second: i64, date_if_midnight: bool) -> String {
    let seconds = value.div_euclid(per_second);
    let days = seconds.div_euclid(86_400);
    let secs = seconds.rem_euclid(86_400);
    let date = iso_date(days);
    if secs == 0 && (date_if_midnight || value.rem_euclid(per_second) == 0) {
        if date_if_midnight {
            return date;
        }
        return format!("{date}T00:00:00");
    }
    format!(
        "{date}T{:02}:{:02}:{:02}",
        secs / 3_600,
        (secs / 60) % 60,
        secs % 60
    )
}

/// Whether text reads as an ISO-8601 date or date-time: `YYYY`, `YYYY-MM`, `YYYY-MM-DD`,
/// optionally followed by `T` or a space and a time.
pub fn looks_like_iso_date(text: &str) -> bool {
    let b = text.trim().as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|s| s.iter().all(u8::is_ascii_digit));
    if !digits(0..4) {
        return false;
    }
    match b.len() {
        4 => true,
        7 => b[4] == b'-' && digits(5..7),
        n if n >= 10 => {
            b[4] == b'-'
                && digits(5..7)
                && b[7] == b'-'
                && digits(8..10)
                && (n == 10 || matches!(b[10], b'T' | b' '))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(iso_date(0), "1970-01-01");
        assert_eq!(iso_date(19_782), "2024-02-29");
        assert_eq!(iso_datetime(90_061, 1, false), "1970-01-02T01:01:01");
        assert!(looks_like_iso_date("2024-03"));
        assert!(looks_like_iso_date("2024-03-01 10:00:00"));
        assert!(!looks_like_iso_date("March"));
        assert_eq!(format_number(1234.5), "1234.5");
        assert_eq!(format_number(3.0), "3");
    }
}
