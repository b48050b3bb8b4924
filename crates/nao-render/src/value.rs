//! One value of an Arrow array as text: exact numbers, ISO temporal values, hex binary, and
//! the dispatch that sends nested values to JSON.

use std::fmt::Write as _;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Decimal32Type, Decimal64Type, Decimal128Type, Decimal256Type,
    DurationMicrosecondType, DurationMillisecondType, DurationNanosecondType, DurationSecondType,
    Float16Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type,
    IntervalDayTimeType, IntervalMonthDayNanoType, IntervalYearMonthType, Time32MillisecondType,
    Time32SecondType, Time64MicrosecondType, Time64NanosecondType, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType, UInt8Type, UInt16Type,
    UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::{DataType, IntervalUnit, TimeUnit};

use crate::nested::JsonWriter;
use crate::temporal::{
    write_date, write_date64, write_duration, write_interval, write_time, write_timestamp,
};

/// Bytes of a binary value shown in hex before the `…`.
const BINARY_PREFIX_BYTES: usize = 16;
/// How many dictionaries inside dictionaries are followed before giving up.
const MAX_DICTIONARY_DEPTH: usize = 4;
/// The token for NULL. Text that is exactly this character is escaped, so the two never meet.
pub(crate) const NULL_TOKEN: &str = "∅";

/// What [`format_value`] produced for one value.
pub(crate) enum Value<'a> {
    /// SQL NULL.
    Null,
    /// Text borrowed from the array, not yet escaped or cut.
    Text(&'a str),
    /// A number, date, binary… written to the buffer: short, with no markup characters.
    Scalar,
    /// Nested value written to the buffer as compact JSON; `complete` is false when it was cut
    /// at the end because it reached the size limit.
    Json {
        /// Whether the JSON was written to its end.
        complete: bool,
    },
    /// Text of a type without a dedicated format (union, run-end encoded…) in the buffer.
    Other,
}

/// How a scalar is written inside JSON.
pub(crate) enum JsonShape {
    /// As is (numbers, booleans).
    Bare,
    /// Between quotes (dates, binary, NaN…).
    Quoted,
}

/// The formatting path for values of one type, decided once per column rather than per value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ValueKind {
    /// The `Null` type: every value is NULL.
    Null,
    /// Strings, borrowed.
    Text,
    /// Dictionary-encoded: the value is looked up first.
    Dictionary,
    /// Lists, structs, maps: compact JSON.
    Nested,
    /// Everything else: a scalar this crate formats, or Arrow's display.
    Scalar,
}

impl ValueKind {
    /// The path for values of `data_type`.
    pub(crate) fn of(data_type: &DataType) -> Self {
        match data_type {
            DataType::Null => ValueKind::Null,
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => ValueKind::Text,
            DataType::Dictionary(..) => ValueKind::Dictionary,
            data_type if is_nested(data_type) => ValueKind::Nested,
            _ => ValueKind::Scalar,
        }
    }
}

/// Formats the value at `row` of `array`, whose type takes the path `kind`: text is borrowed,
/// everything else goes to `buffer` (cleared first); nested values stop once `buffer` reaches
/// `json_limit` bytes.
pub(crate) fn format_value<'a>(
    array: &'a dyn Array,
    kind: ValueKind,
    row: usize,
    buffer: &mut String,
    json_limit: usize,
) -> Value<'a> {
    buffer.clear();
    if kind == ValueKind::Dictionary {
        let Some((values, index)) = resolve_dictionary(array, row) else {
            return Value::Null;
        };
        let kind = ValueKind::of(values.data_type());
        return format_resolved(values, kind, index, buffer, json_limit);
    }
    format_resolved(array, kind, row, buffer, json_limit)
}

fn format_resolved<'a>(
    array: &'a dyn Array,
    kind: ValueKind,
    row: usize,
    buffer: &mut String,
    json_limit: usize,
) -> Value<'a> {
    if array.is_null(row) {
        return Value::Null;
    }
    match kind {
        ValueKind::Null | ValueKind::Dictionary => Value::Null,
        ValueKind::Text => match text_at(array, row) {
            Some(text) => Value::Text(text),
            None => {
                write_other(buffer, array, row);
                Value::Other
            }
        },
        ValueKind::Nested => {
            let mut writer = JsonWriter::new(buffer, json_limit);
            writer.value(array, row, 0);
            Value::Json {
                complete: writer.complete(),
            }
        }
        ValueKind::Scalar => {
            if write_scalar(buffer, array, row).is_some() {
                Value::Scalar
            } else {
                write_other(buffer, array, row);
                Value::Other
            }
        }
    }
}

/// Follows dictionary keys to the array and row holding the value; `None` for a null key or a
/// key outside the dictionary.
pub(crate) fn resolve_dictionary(array: &dyn Array, row: usize) -> Option<(&dyn Array, usize)> {
    let (mut array, mut row) = (array, row);
    for _ in 0..MAX_DICTIONARY_DEPTH {
        let Some(dictionary) = array.as_any_dictionary_opt() else {
            return Some((array, row));
        };
        let keys = dictionary.keys();
        if keys.is_null(row) {
            return None;
        }
        let key = match keys.data_type() {
            DataType::Int8 => keys
                .as_primitive_opt::<Int8Type>()
                .map(|k| i64::from(k.value(row))),
            DataType::Int16 => keys
                .as_primitive_opt::<Int16Type>()
                .map(|k| i64::from(k.value(row))),
            DataType::Int32 => keys
                .as_primitive_opt::<Int32Type>()
                .map(|k| i64::from(k.value(row))),
            DataType::Int64 => keys.as_primitive_opt::<Int64Type>().map(|k| k.value(row)),
            DataType::UInt8 => keys
                .as_primitive_opt::<UInt8Type>()
                .map(|k| i64::from(k.value(row))),
            DataType::UInt16 => keys
                .as_primitive_opt::<UInt16Type>()
                .map(|k| i64::from(k.value(row))),
            DataType::UInt32 => keys
                .as_primitive_opt::<UInt32Type>()
                .map(|k| i64::from(k.value(row))),
            DataType::UInt64 => keys
                .as_primitive_opt::<UInt64Type>()
                .and_then(|k| i64::try_from(k.value(row)).ok()),
            _ => None,
        };
        let values: &ArrayRef = dictionary.values();
        row = usize::try_from(key?)
            .ok()
            .filter(|index| *index < values.len())?;
        array = values.as_ref();
    }
    None
}

/// The text at `row` if `array` holds strings.
pub(crate) fn text_at(array: &dyn Array, row: usize) -> Option<&str> {
    match array.data_type() {
        DataType::Utf8 => array
            .as_string_opt::<i32>()
            .map(|strings| strings.value(row)),
        DataType::LargeUtf8 => array
            .as_string_opt::<i64>()
            .map(|strings| strings.value(row)),
        DataType::Utf8View => array.as_string_view_opt().map(|strings| strings.value(row)),
        _ => None,
    }
}

/// Whether values of this type are written as JSON.
pub(crate) fn is_nested(data_type: &DataType) -> bool {
    matches!(
        data_type,
        DataType::List(_)
            | DataType::LargeList(_)
            | DataType::FixedSizeList(..)
            | DataType::Struct(_)
            | DataType::Map(..)
    )
}

/// Writes a value of a type without a dedicated format with Arrow's own display.
pub(crate) fn write_other(out: &mut String, array: &dyn Array, row: usize) {
    let options = FormatOptions::default().with_null(NULL_TOKEN);
    match ArrayFormatter::try_new(array, &options) {
        Ok(formatter) => {
            if write!(out, "{}", formatter.value(row)).is_err() {
                out.push_str("(unprintable)");
            }
        }
        Err(_) => {
            let _ = write!(out, "(no text form for {})", array.data_type());
        }
    }
}

macro_rules! primitive {
    ($array:expr, $type:ty, $row:expr) => {
        $array
            .as_primitive_opt::<$type>()
            .map(|values| values.value($row))
    };
}

/// Writes a scalar (number, boolean, temporal, binary) and says how it sits in JSON; `None`
/// if the type is not a scalar this module formats.
pub(crate) fn write_scalar(out: &mut String, array: &dyn Array, row: usize) -> Option<JsonShape> {
    let bare = |written: Option<()>| written.map(|()| JsonShape::Bare);
    let quoted = |written: Option<()>| written.map(|()| JsonShape::Quoted);
    match array.data_type() {
        DataType::Boolean => bare(
            array
                .as_boolean_opt()
                .map(|b| push_display(out, b.value(row))),
        ),
        DataType::Int8 => {
            bare(primitive!(array, Int8Type, row).map(|v| push_i64(out, i64::from(v))))
        }
        DataType::Int16 => {
            bare(primitive!(array, Int16Type, row).map(|v| push_i64(out, i64::from(v))))
        }
        DataType::Int32 => {
            bare(primitive!(array, Int32Type, row).map(|v| push_i64(out, i64::from(v))))
        }
        DataType::Int64 => bare(primitive!(array, Int64Type, row).map(|v| push_i64(out, v))),
        DataType::UInt8 => {
            bare(primitive!(array, UInt8Type, row).map(|v| push_u64(out, u64::from(v))))
        }
        DataType::UInt16 => {
            bare(primitive!(array, UInt16Type, row).map(|v| push_u64(out, u64::from(v))))
        }
        DataType::UInt32 => {
            bare(primitive!(array, UInt32Type, row).map(|v| push_u64(out, u64::from(v))))
        }
        DataType::UInt64 => bare(primitive!(array, UInt64Type, row).map(|v| push_u64(out, v))),
        DataType::Float16 => {
            primitive!(array, Float16Type, row).map(|v| write_float(out, f64::from(v.to_f32())))
        }
        DataType::Float32 => primitive!(array, Float32Type, row).map(|v| write_f32(out, v)),
        DataType::Float64 => primitive!(array, Float64Type, row).map(|v| write_float(out, v)),
        DataType::Decimal32(_, scale) => bare(
            primitive!(array, Decimal32Type, row).map(|v| write_decimal(out, i64::from(v), *scale)),
        ),
        DataType::Decimal64(_, scale) => {
            bare(primitive!(array, Decimal64Type, row).map(|v| write_decimal(out, v, *scale)))
        }
        DataType::Decimal128(_, scale) => {
            bare(
                primitive!(array, Decimal128Type, row).map(|v| match i64::try_from(v) {
                    Ok(small) => write_decimal(out, small, *scale),
                    Err(_) => write_decimal(out, v, *scale),
                }),
            )
        }
        DataType::Decimal256(_, scale) => {
            bare(primitive!(array, Decimal256Type, row).map(
                |v| match v.to_i128().map(i64::try_from) {
                    Some(Ok(small)) => write_decimal(out, small, *scale),
                    _ => write_decimal(out, v, *scale),
                },
            ))
        }
        DataType::Binary => quoted(
            array
                .as_binary_opt::<i32>()
                .map(|b| write_binary(out, b.value(row))),
        ),
        DataType::LargeBinary => quoted(
            array
                .as_binary_opt::<i64>()
                .map(|b| write_binary(out, b.value(row))),
        ),
        DataType::BinaryView => quoted(
            array
                .as_binary_view_opt()
                .map(|b| write_binary(out, b.value(row))),
        ),
        DataType::FixedSizeBinary(_) => quoted(
            array
                .as_fixed_size_binary_opt()
                .map(|b| write_binary(out, b.value(row))),
        ),
        DataType::Date32 => {
            quoted(primitive!(array, Date32Type, row).map(|v| write_date(out, i64::from(v))))
        }
        DataType::Date64 => {
            quoted(primitive!(array, Date64Type, row).map(|v| write_date64(out, v)))
        }
        DataType::Time32(unit) => quoted(
            match unit {
                TimeUnit::Second => primitive!(array, Time32SecondType, row),
                _ => primitive!(array, Time32MillisecondType, row),
            }
            .map(|v| write_time(out, i64::from(v), *unit)),
        ),
        DataType::Time64(unit) => quoted(
            match unit {
                TimeUnit::Microsecond => primitive!(array, Time64MicrosecondType, row),
                _ => primitive!(array, Time64NanosecondType, row),
            }
            .map(|v| write_time(out, v, *unit)),
        ),
        DataType::Timestamp(unit, zone) => quoted(
            match unit {
                TimeUnit::Second => primitive!(array, TimestampSecondType, row),
                TimeUnit::Millisecond => primitive!(array, TimestampMillisecondType, row),
                TimeUnit::Microsecond => primitive!(array, TimestampMicrosecondType, row),
                TimeUnit::Nanosecond => primitive!(array, TimestampNanosecondType, row),
            }
            .map(|v| write_timestamp(out, v, *unit, zone.as_deref())),
        ),
        DataType::Duration(unit) => quoted(
            match unit {
                TimeUnit::Second => primitive!(array, DurationSecondType, row),
                TimeUnit::Millisecond => primitive!(array, DurationMillisecondType, row),
                TimeUnit::Microsecond => primitive!(array, DurationMicrosecondType, row),
                TimeUnit::Nanosecond => primitive!(array, DurationNanosecondType, row),
            }
            .map(|v| write_duration(out, v, *unit)),
        ),
        DataType::Interval(IntervalUnit::YearMonth) => quoted(
            primitive!(array, IntervalYearMonthType, row)
                .map(|months| write_interval(out, i64::from(months), 0, 0)),
        ),
        DataType::Interval(IntervalUnit::DayTime) => {
            quoted(primitive!(array, IntervalDayTimeType, row).map(|v| {
                let nanos = i128::from(v.milliseconds) * 1_000_000;
                write_interval(out, 0, i128::from(v.days), nanos);
            }))
        }
        DataType::Interval(IntervalUnit::MonthDayNano) => {
            quoted(primitive!(array, IntervalMonthDayNanoType, row).map(|v| {
                let (months, days) = (i64::from(v.months), i128::from(v.days));
                write_interval(out, months, days, i128::from(v.nanoseconds));
            }))
        }
        _ => None,
    }
}

fn push_display(out: &mut String, value: impl std::fmt::Display) {
    let _ = write!(out, "{value}");
}

/// Appends the decimal digits of `value` (faster than `Display`, which pads and dispatches).
pub(crate) fn push_u64(out: &mut String, mut value: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    out.push_str(std::str::from_utf8(&digits[start..]).unwrap_or_default());
}

/// Appends `value` with a `-` if negative.
pub(crate) fn push_i64(out: &mut String, value: i64) {
    if value < 0 {
        out.push('-');
    }
    push_u64(out, value.unsigned_abs());
}

/// Writes an `f32` with the shortest text that reads back to the same `f32`.
fn write_f32(out: &mut String, value: f32) -> JsonShape {
    if !value.is_finite() {
        return write_float(out, f64::from(value));
    }
    let magnitude = value.abs();
    if magnitude != 0.0 && !(1e-6..1e16).contains(&magnitude) {
        let _ = write!(out, "{value:e}");
    } else {
        let _ = write!(out, "{value}");
    }
    JsonShape::Bare
}

/// Writes an `f64` as [`write_float`] does, for text that is not JSON (NaN and the infinities
/// unquoted).
pub(crate) fn write_display_float(out: &mut String, value: f64) {
    let _shape = write_float(out, value);
}

/// Writes an `f64` with the shortest text that reads back to the same value: plain notation
/// for magnitudes from 1e-6 to 1e16, else scientific (`1e300`, `1.5e-7`); keeps `-0`, and
/// writes `NaN`, `inf`, `-inf` (quoted in JSON, which has no such numbers).
fn write_float(out: &mut String, value: f64) -> JsonShape {
    let magnitude = value.abs();
    if value.is_nan() {
        out.push_str("NaN");
    } else if value.is_infinite() {
        out.push_str(if value > 0.0 { "inf" } else { "-inf" });
    } else if magnitude != 0.0 && !(1e-6..1e16).contains(&magnitude) {
        let _ = write!(out, "{value:e}");
        return JsonShape::Bare;
    } else {
        let _ = write!(out, "{value}");
        return JsonShape::Bare;
    }
    JsonShape::Quoted
}

/// Writes the unscaled integer `value` with the decimal point `scale` digits from the right,
/// exactly (no float): `1250` at scale 2 is `12.50`, `-5` at scale 3 is `-0.005`, `12` at
/// scale -2 is `1200`.
fn write_decimal(out: &mut String, value: impl DecimalDigits, scale: i8) {
    let start = out.len();
    value.push_digits(out);
    let digits_start = if out[start..].starts_with('-') {
        start + 1
    } else {
        start
    };
    let scale_digits = usize::from(scale.unsigned_abs());
    if scale > 0 {
        let digit_count = out.len() - digits_start;
        if digit_count <= scale_digits {
            let zeros = "0".repeat(scale_digits - digit_count);
            out.insert_str(digits_start, &format!("0.{zeros}"));
        } else {
            out.insert(out.len() - scale_digits, '.');
        }
    } else if scale < 0 && &out[digits_start..] != "0" {
        out.extend(std::iter::repeat_n('0', scale_digits));
    }
}

/// An unscaled decimal integer that can write its digits.
trait DecimalDigits {
    fn push_digits(self, out: &mut String);
}

impl DecimalDigits for i64 {
    fn push_digits(self, out: &mut String) {
        push_i64(out, self);
    }
}

impl DecimalDigits for i128 {
    fn push_digits(self, out: &mut String) {
        push_display(out, self);
    }
}

impl DecimalDigits for arrow_buffer::i256 {
    fn push_digits(self, out: &mut String) {
        push_display(out, self);
    }
}

/// Writes binary as `0x` + the hex of at most the first 16 bytes (`…` if there are more) +
/// the length: `0x48656c6c6f (5 bytes)`.
fn write_binary(out: &mut String, bytes: &[u8]) {
    out.push_str("0x");
    for byte in bytes.iter().take(BINARY_PREFIX_BYTES) {
        let _ = write!(out, "{byte:02x}");
    }
    if bytes.len() > BINARY_PREFIX_BYTES {
        out.push('…');
    }
    let unit = if bytes.len() == 1 { "byte" } else { "bytes" };
    let _ = write!(out, " ({} {unit})", bytes.len());
}

#[cfg(test)]
mod tests {
    use arrow_buffer::i256;

    use super::*;

    fn decimal(value: impl DecimalDigits, scale: i8) -> String {
        let mut out = String::new();
        write_decimal(&mut out, value, scale);
        out
    }

    #[test]
    fn decimals_are_exact() {
        assert_eq!(decimal(1250i64, 2), "12.50");
        assert_eq!(decimal(-5i64, 3), "-0.005");
        assert_eq!(decimal(0i64, 2), "0.00");
        assert_eq!(decimal(12i64, -2), "1200");
        assert_eq!(decimal(0i64, -2), "0");
        assert_eq!(
            decimal(i128::MIN, 38),
            "-1.70141183460469231731687303715884105728"
        );
        assert_eq!(decimal(i256::MAX, 0).len(), 77);
    }

    #[test]
    fn floats_round_trip() {
        let float = |value: f64| {
            let mut out = String::new();
            write_float(&mut out, value);
            out
        };
        assert_eq!(float(0.1), "0.1");
        assert_eq!(float(-0.0), "-0");
        assert_eq!(float(1e300), "1e300");
        assert_eq!(float(1.5e-7), "1.5e-7");
        assert_eq!(float(123_456.789), "123456.789");
        assert_eq!(float(f64::NAN), "NaN");
        assert_eq!(float(f64::NEG_INFINITY), "-inf");
    }
}
