//! Building Arrow arrays from the values of the binary protocol, column by column.
//!
//! Integers, floats, dates and times arrive as binary values; DECIMAL arrives as its exact text,
//! parsed here into Decimal128/Decimal256 without passing through a float. Zero and otherwise
//! impossible dates (`0000-00-00`, `2024-02-30` under a permissive `sql_mode`) become NULL.

use std::borrow::Cow;
use std::sync::Arc;

use arrow_array::builder::{
    BinaryBuilder, Date32Builder, Decimal128Builder, Decimal256Builder, DurationMicrosecondBuilder,
    Float32Builder, Float64Builder, Int8Builder, Int16Builder, Int32Builder, Int64Builder,
    StringBuilder, TimestampMicrosecondBuilder, UInt8Builder, UInt16Builder, UInt32Builder,
    UInt64Builder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_buffer::i256;
use arrow_schema::SchemaRef;
use mysql_async::{Row, Value};
use nao_core::render::calendar;

use crate::decimal_text;

use super::types::Kind;

/// Why one value could not be converted (the caller adds the column and row).
pub(super) type ValueError = String;

/// The builder of one column.
enum Builder {
    Int8(Int8Builder),
    Int16(Int16Builder),
    Int32(Int32Builder),
    Int64(Int64Builder),
    UInt8(UInt8Builder),
    UInt16(UInt16Builder),
    UInt32(UInt32Builder),
    UInt64(UInt64Builder),
    Float32(Float32Builder),
    Float64(Float64Builder),
    Decimal128(Decimal128Builder, i8),
    Decimal256(Decimal256Builder, i8),
    Date(Date32Builder),
    Timestamp(TimestampMicrosecondBuilder),
    Time(DurationMicrosecondBuilder),
    Utf8(StringBuilder),
    Binary(BinaryBuilder),
}

impl Builder {
    /// A builder with room for `rows` values (and `rows * TEXT_BYTES_PER_ROW` bytes of text).
    fn new(kind: Kind, rows: usize) -> Self {
        let bytes = rows.saturating_mul(TEXT_BYTES_PER_ROW);
        match kind {
            Kind::Int8 => Builder::Int8(Int8Builder::with_capacity(rows)),
            Kind::Int16 | Kind::Year => Builder::Int16(Int16Builder::with_capacity(rows)),
            Kind::Int32 => Builder::Int32(Int32Builder::with_capacity(rows)),
            Kind::Int64 => Builder::Int64(Int64Builder::with_capacity(rows)),
            Kind::UInt8 => Builder::UInt8(UInt8Builder::with_capacity(rows)),
            Kind::UInt16 => Builder::UInt16(UInt16Builder::with_capacity(rows)),
            Kind::UInt32 => Builder::UInt32(UInt32Builder::with_capacity(rows)),
            Kind::UInt64 | Kind::Bit => Builder::UInt64(UInt64Builder::with_capacity(rows)),
            Kind::Float32 => Builder::Float32(Float32Builder::with_capacity(rows)),
            Kind::Float64 => Builder::Float64(Float64Builder::with_capacity(rows)),
            Kind::Decimal128(p, s) => Builder::Decimal128(
                Decimal128Builder::with_capacity(rows)
                    .with_data_type(Kind::Decimal128(p, s).data_type()),
                s,
            ),
            Kind::Decimal256(p, s) => Builder::Decimal256(
                Decimal256Builder::with_capacity(rows)
                    .with_data_type(Kind::Decimal256(p, s).data_type()),
                s,
            ),
            Kind::Date => Builder::Date(Date32Builder::with_capacity(rows)),
            Kind::Timestamp { utc } => Builder::Timestamp(
                TimestampMicrosecondBuilder::with_capacity(rows)
                    .with_timezone_opt(utc.then_some("UTC")),
            ),
            Kind::Time => Builder::Time(DurationMicrosecondBuilder::with_capacity(rows)),
            Kind::Utf8 => Builder::Utf8(StringBuilder::with_capacity(rows, bytes)),
            Kind::Binary => Builder::Binary(BinaryBuilder::with_capacity(rows, bytes)),
        }
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            Builder::Int8(b) => Arc::new(b.finish()),
            Builder::Int16(b) => Arc::new(b.finish()),
            Builder::Int32(b) => Arc::new(b.finish()),
            Builder::Int64(b) => Arc::new(b.finish()),
            Builder::UInt8(b) => Arc::new(b.finish()),
            Builder::UInt16(b) => Arc::new(b.finish()),
            Builder::UInt32(b) => Arc::new(b.finish()),
            Builder::UInt64(b) => Arc::new(b.finish()),
            Builder::Float32(b) => Arc::new(b.finish()),
            Builder::Float64(b) => Arc::new(b.finish()),
            Builder::Decimal128(b, _) => Arc::new(b.finish()),
            Builder::Decimal256(b, _) => Arc::new(b.finish()),
            Builder::Date(b) => Arc::new(b.finish()),
            Builder::Timestamp(b) => Arc::new(b.finish()),
            Builder::Time(b) => Arc::new(b.finish()),
            Builder::Utf8(b) => Arc::new(b.finish()),
            Builder::Binary(b) => Arc::new(b.finish()),
        }
    }

    /// Appends `value`; returns the bytes it added (roughly), for the byte budget of a batch.
    fn append(&mut self, kind: Kind, value: &Value) -> Result<usize, ValueError> {
        if *value == Value::NULL {
            self.append_null();
            return Ok(1);
        }
        match self {
            Builder::Int8(b) => b.append_value(integer(value)?),
            Builder::Int16(b) => b.append_value(integer(value)?),
            Builder::Int32(b) => b.append_value(integer(value)?),
            Builder::Int64(b) => b.append_value(integer(value)?),
            Builder::UInt8(b) => b.append_value(integer(value)?),
            Builder::UInt16(b) => b.append_value(integer(value)?),
            Builder::UInt32(b) => b.append_value(integer(value)?),
            Builder::UInt64(b) if kind == Kind::Bit => b.append_value(bits(value)?),
            Builder::UInt64(b) => b.append_value(integer(value)?),
            Builder::Float32(b) => b.append_value(float32(value)?),
            Builder::Float64(b) => b.append_value(float64(value)?),
            Builder::Decimal128(b, scale) => b.append_value(decimal128(value, *scale)?),
            Builder::Decimal256(b, scale) => {
                let digits = decimal_digits(&text(value)?, *scale)?;
                let parsed = i256::from_string(&digits)
                    .ok_or_else(|| format!("{digits} does not fit a 256-bit decimal"))?;
                b.append_value(parsed);
            }
            Builder::Date(b) => b.append_option(date(value)?),
            Builder::Timestamp(b) => b.append_option(timestamp(value)?),
            Builder::Time(b) => b.append_value(time(value)?),
            Builder::Utf8(b) => {
                let text = text(value)?;
                let len = text.len();
                b.append_value(text);
                return Ok(len + 4);
            }
            Builder::Binary(b) => {
                let Value::Bytes(bytes) = value else {
                    return Err(format!("expected bytes, got {value:?}"));
                };
                b.append_value(bytes);
                return Ok(bytes.len() + 4);
            }
        }
        Ok(16)
    }

    fn append_null(&mut self) {
        match self {
            Builder::Int8(b) => b.append_null(),
            Builder::Int16(b) => b.append_null(),
            Builder::Int32(b) => b.append_null(),
            Builder::Int64(b) => b.append_null(),
            Builder::UInt8(b) => b.append_null(),
            Builder::UInt16(b) => b.append_null(),
            Builder::UInt32(b) => b.append_null(),
            Builder::UInt64(b) => b.append_null(),
            Builder::Float32(b) => b.append_null(),
            Builder::Float64(b) => b.append_null(),
            Builder::Decimal128(b, _) => b.append_null(),
            Builder::Decimal256(b, _) => b.append_null(),
            Builder::Date(b) => b.append_null(),
            Builder::Timestamp(b) => b.append_null(),
            Builder::Time(b) => b.append_null(),
            Builder::Utf8(b) => b.append_null(),
            Builder::Binary(b) => b.append_null(),
        }
    }
}

/// Rows reserved up front in each column's builder (at most: batches are often smaller).
const MAX_RESERVED_ROWS: usize = 8_192;
/// Text bytes reserved per row in a string or binary column's builder.
const TEXT_BYTES_PER_ROW: usize = 16;

/// Accumulates rows into record batches of one schema.
pub(super) struct BatchBuilder {
    schema: SchemaRef,
    kinds: Vec<Kind>,
    builders: Vec<Builder>,
    /// Rows reserved in each new builder.
    reserve: usize,
    rows: usize,
    bytes: usize,
}

impl BatchBuilder {
    /// A builder for batches of about `batch_size` rows.
    pub(super) fn new(schema: SchemaRef, kinds: Vec<Kind>, batch_size: usize) -> Self {
        let reserve = batch_size.clamp(1, MAX_RESERVED_ROWS);
        let builders = kinds.iter().map(|k| Builder::new(*k, reserve)).collect();
        BatchBuilder {
            schema,
            kinds,
            builders,
            reserve,
            rows: 0,
            bytes: 0,
        }
    }

    /// Rows appended since the last batch.
    pub(super) fn rows(&self) -> usize {
        self.rows
    }

    /// Approximate bytes appended since the last batch.
    pub(super) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Appends one row. On error, names the column; the batch under construction is then
    /// unusable (the caller stops).
    pub(super) fn append_row(&mut self, row: &Row) -> Result<(), String> {
        if row.len() != self.builders.len() {
            return Err(format!(
                "a row had {} values for {} columns",
                row.len(),
                self.builders.len()
            ));
        }
        for (index, (builder, kind)) in self.builders.iter_mut().zip(&self.kinds).enumerate() {
            let value = row.as_ref(index).ok_or_else(|| {
                format!(
                    "column {:?}: the value is missing",
                    self.schema.field(index).name()
                )
            })?;
            let added = builder
                .append(*kind, value)
                .map_err(|e| format!("column {:?}: {e}", self.schema.field(index).name()))?;
            self.bytes = self.bytes.saturating_add(added);
        }
        self.rows += 1;
        Ok(())
    }

    /// The rows appended so far as a batch; the builder starts over.
    pub(super) fn finish(&mut self) -> Result<RecordBatch, String> {
        let columns: Vec<ArrayRef> = self.builders.iter_mut().map(Builder::finish).collect();
        // Finishing leaves empty builders: make room for the next batch at once.
        for (builder, kind) in self.builders.iter_mut().zip(&self.kinds) {
            *builder = Builder::new(*kind, self.reserve);
        }
        let rows = std::mem::take(&mut self.rows);
        self.bytes = 0;
        let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(rows));
        RecordBatch::try_new_with_options(self.schema.clone(), columns, &options)
            .map_err(|e| e.to_string())
    }
}

/// An integer of any width from a binary (or text) value, refusing values that do not fit.
fn integer<T: TryFrom<i64> + TryFrom<u64> + std::str::FromStr>(
    value: &Value,
) -> Result<T, ValueError> {
    let out_of_range = |v: &dyn std::fmt::Display| {
        format!(
            "{v} is out of range for the column's {}",
            std::any::type_name::<T>()
        )
    };
    match value {
        &Value::Int(v) => T::try_from(v).map_err(|_| out_of_range(&v)),
        &Value::UInt(v) => T::try_from(v).map_err(|_| out_of_range(&v)),
        Value::Bytes(bytes) => {
            let text = String::from_utf8_lossy(bytes);
            text.trim()
                .parse::<T>()
                .map_err(|_| format!("{text:?} is not an integer"))
        }
        other => Err(format!("expected an integer, got {other:?}")),
    }
}

fn float64(value: &Value) -> Result<f64, ValueError> {
    match value {
        Value::Double(v) => Ok(*v),
        Value::Float(v) => Ok(f64::from(*v)),
        Value::Int(v) => Ok(*v as f64),
        Value::UInt(v) => Ok(*v as f64),
        Value::Bytes(bytes) => {
            let text = String::from_utf8_lossy(bytes);
            text.trim()
                .parse()
                .map_err(|_| format!("{text:?} is not a number"))
        }
        other => Err(format!("expected a number, got {other:?}")),
    }
}

fn float32(value: &Value) -> Result<f32, ValueError> {
    match value {
        Value::Float(v) => Ok(*v),
        other => {
            let wide = float64(other)?;
            let narrow = wide as f32;
            if f64::from(narrow) == wide || wide.is_nan() {
                Ok(narrow)
            } else {
                Err(format!("{wide} is not exact as a 32-bit float"))
            }
        }
    }
}

/// BIT(n) arrives as n/8 big-endian bytes.
fn bits(value: &Value) -> Result<u64, ValueError> {
    match value {
        Value::Bytes(bytes) if bytes.len() <= 8 => {
            Ok(bytes.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b)))
        }
        Value::Bytes(bytes) => Err(format!("a BIT value of {} bytes", bytes.len())),
        Value::Int(v) => u64::try_from(*v).map_err(|e| e.to_string()),
        Value::UInt(v) => Ok(*v),
        other => Err(format!("expected a BIT value, got {other:?}")),
    }
}

/// A value as text: strings must be UTF-8 (the session's character set is utf8mb4).
/// Borrows the bytes of strings (no copy); other values are formatted.
fn text(value: &Value) -> Result<Cow<'_, str>, ValueError> {
    match value {
        Value::Bytes(bytes) => std::str::from_utf8(bytes).map(Cow::Borrowed).map_err(|_| {
            "the value is not valid UTF-8; select it with HEX(…) or CAST(… AS BINARY)".to_owned()
        }),
        Value::Int(v) => Ok(Cow::Owned(v.to_string())),
        Value::UInt(v) => Ok(Cow::Owned(v.to_string())),
        Value::Float(v) => Ok(Cow::Owned(v.to_string())),
        Value::Double(v) => Ok(Cow::Owned(v.to_string())),
        Value::Date(..) | Value::Time(..) => {
            Ok(Cow::Owned(value.as_sql(true).trim_matches('\'').to_owned()))
        }
        Value::NULL => Err("unexpected NULL".to_owned()),
    }
}

/// A DECIMAL(p ≤ 38) value, unscaled at `scale`. The server's plain text (`-?digits[.digits]`)
/// is read straight into an `i128`; anything else (or an overflow) takes the general path of
/// [`decimal_digits`], for its errors.
fn decimal128(value: &Value, scale: i8) -> Result<i128, ValueError> {
    if let Value::Bytes(bytes) = value
        && let Some(unscaled) = decimal_text::exact_i128(bytes, scale)
    {
        return Ok(unscaled);
    }
    let digits = decimal_digits(&text(value)?, scale)?;
    digits.parse::<i128>().map_err(|e| e.to_string())
}

/// The unscaled digits of the decimal `text` at `scale` (`"-1.50"` at scale 3 → `"-1500"`).
/// Refuses text with more fractional digits than the scale, rather than rounding.
pub(super) fn decimal_digits(text: &str, scale: i8) -> Result<String, ValueError> {
    let scale = usize::try_from(scale).map_err(|_| format!("negative decimal scale {scale}"))?;
    let trimmed = text.trim();
    let (negative, unsigned) = match trimmed.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, trimmed.strip_prefix('+').unwrap_or(trimmed)),
    };
    let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let valid = !(whole.is_empty() && fraction.is_empty())
        && whole.bytes().all(|b| b.is_ascii_digit())
        && fraction.bytes().all(|b| b.is_ascii_digit());
    if !valid {
        return Err(format!("{text:?} is not a decimal number"));
    }
    let significant = fraction.trim_end_matches('0');
    if significant.len() > scale {
        return Err(format!("{text:?} has more than {scale} decimal places"));
    }
    let mut digits = String::with_capacity(whole.len() + scale + 1);
    if negative {
        digits.push('-');
    }
    digits.push_str(if whole.is_empty() { "0" } else { whole });
    digits.push_str(&fraction[..fraction.len().min(scale)]);
    for _ in fraction.len()..scale {
        digits.push('0');
    }
    Ok(digits)
}

/// Days from 1970-01-01 to a valid proleptic Gregorian date, `None` for impossible dates
/// (MySQL's zero date `0000-00-00`, 30 February).
pub(super) fn days_from_civil(year: u16, month: u8, day: u8) -> Option<i32> {
    calendar::days_from_civil(i64::from(year), month, day).and_then(|days| i32::try_from(days).ok())
}

/// DATE: days since the epoch; zero and impossible dates are NULL.
fn date(value: &Value) -> Result<Option<i32>, ValueError> {
    match value {
        Value::Date(y, m, d, ..) => Ok(days_from_civil(*y, *m, *d)),
        other => Err(format!("expected a date, got {other:?}")),
    }
}

/// DATETIME and TIMESTAMP: microseconds since the epoch (the session's time zone is UTC).
fn timestamp(value: &Value) -> Result<Option<i64>, ValueError> {
    match value {
        &Value::Date(y, mo, d, h, mi, s, us) => Ok(days_from_civil(y, mo, d).map(|days| {
            let seconds =
                i64::from(days) * 86_400 + i64::from(h) * 3_600 + i64::from(mi) * 60 + i64::from(s);
            seconds * 1_000_000 + i64::from(us)
        })),
        other => Err(format!("expected a date and time, got {other:?}")),
    }
}

/// TIME: a signed duration in microseconds (MySQL's TIME spans ±838:59:59).
fn time(value: &Value) -> Result<i64, ValueError> {
    match value {
        &Value::Time(negative, days, h, m, s, us) => {
            let seconds =
                i64::from(days) * 86_400 + i64::from(h) * 3_600 + i64::from(m) * 60 + i64::from(s);
            let micros = seconds * 1_000_000 + i64::from(us);
            Ok(if negative { -micros } else { micros })
        }
        other => Err(format!("expected a time, got {other:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_text_becomes_unscaled_digits() {
        assert_eq!(decimal_digits("10.50", 2).as_deref(), Ok("1050"));
        assert_eq!(decimal_digits("-0.25", 2).as_deref(), Ok("-025"));
        assert_eq!(decimal_digits("-1.5", 3).as_deref(), Ok("-1500"));
        assert_eq!(decimal_digits("42", 0).as_deref(), Ok("42"));
        assert_eq!(decimal_digits(".5", 1).as_deref(), Ok("05"));
        assert_eq!(decimal_digits("1.2300", 2).as_deref(), Ok("123"));
        assert!(decimal_digits("1.234", 2).is_err());
        assert!(decimal_digits("1e5", 2).is_err());
        assert!(decimal_digits("-", 2).is_err());
        assert_eq!("-025".parse::<i128>(), Ok(-25));
    }

    #[test]
    fn decimals_parse_straight_from_the_bytes_like_the_general_path() {
        let bytes = |t: &str| Value::Bytes(t.as_bytes().to_vec());
        for (t, scale) in [
            ("10.50", 2),
            ("-0.25", 2),
            ("-1.5", 3),
            ("42", 0),
            ("0.00", 2),
            ("-0.00", 2),
            ("9999999999.99", 2),
            (".5", 1),
            ("+1.5", 1),
            (" 1.5 ", 1),
            ("1.2300", 2),
            ("99999999999999999999999999999999999999", 0),
            ("-170141183460469231731687303715884105728", 0),
            ("170141183460469231731687303715884105728", 0),
            ("1.234", 2),
            ("1e5", 2),
            ("-", 2),
            ("1.", 2),
        ] {
            let general =
                decimal_digits(t, scale).and_then(|d| d.parse::<i128>().map_err(|e| e.to_string()));
            assert_eq!(
                decimal128(&bytes(t), scale),
                general,
                "{t:?} at scale {scale}"
            );
        }
        assert_eq!(decimal_text::exact_i128(b"-12.5", 2), Some(-1250));
        assert_eq!(decimal_text::exact_i128(b"1.234", 2), None);
        assert_eq!(decimal128(&Value::Int(7), 2), Ok(700));
    }

    #[test]
    fn civil_dates_count_days_from_the_epoch() {
        assert_eq!(days_from_civil(1970, 1, 1), Some(0));
        assert_eq!(days_from_civil(2000, 3, 1), Some(11_017));
        assert_eq!(days_from_civil(1969, 12, 31), Some(-1));
        assert_eq!(days_from_civil(1000, 1, 1), Some(-354_285));
        assert_eq!(days_from_civil(9999, 12, 31), Some(2_932_896));
        assert_eq!(days_from_civil(0, 0, 0), None);
        assert_eq!(days_from_civil(2023, 2, 29), None);
        assert_eq!(days_from_civil(2024, 2, 29), Some(19_782));
    }

    #[test]
    fn times_are_signed_durations() {
        assert_eq!(
            time(&Value::Time(true, 34, 22, 59, 59, 0)),
            Ok(-3_020_399_000_000)
        );
        assert_eq!(time(&Value::Time(false, 0, 0, 0, 1, 5)), Ok(1_000_005));
    }

    #[test]
    fn bits_are_big_endian() {
        assert_eq!(bits(&Value::Bytes(vec![1, 0])), Ok(256));
        assert_eq!(bits(&Value::Bytes(vec![0xff; 8])), Ok(u64::MAX));
    }
}
