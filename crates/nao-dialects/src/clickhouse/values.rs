//! One value of a TabSeparated result, appended to the Arrow builder of its column: scalars
//! from their unescaped text, nested values from their quoted literal text.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::builder::{
    ArrayBuilder, BooleanBuilder, Date32Builder, Decimal128Builder, FixedSizeBinaryBuilder,
    Float32Builder, Float64Builder, Int8Builder, Int16Builder, Int32Builder, Int64Builder,
    ListBuilder, MapBuilder, NullBuilder, StringBuilder, StructBuilder,
    TimestampMicrosecondBuilder, TimestampMillisecondBuilder, TimestampNanosecondBuilder,
    TimestampSecondBuilder, UInt8Builder, UInt16Builder, UInt32Builder, UInt64Builder,
};
use chrono::{NaiveDate, NaiveDateTime, TimeZone};
use chrono_tz::Tz;

use super::escape;
use super::literal::{self, Literal};
use super::types::ChType;
use crate::decimal_text;

type Dyn = Box<dyn ArrayBuilder>;

/// Why a value could not be read (the caller adds the column and the row).
pub(crate) type ValueError = String;

/// The time zones of a result's `DateTime` columns, resolved once each.
#[derive(Debug)]
pub(crate) struct Zones {
    server: Arc<str>,
    resolved: HashMap<Arc<str>, Tz>,
}

impl Zones {
    /// Zones for a server whose own zone is `server` (what `DateTime` without one means).
    pub(crate) fn new(server: Arc<str>) -> Self {
        Zones {
            server,
            resolved: HashMap::new(),
        }
    }

    /// The server's zone name.
    pub(crate) fn server(&self) -> &str {
        &self.server
    }

    fn get(&mut self, zone: Option<&Arc<str>>) -> Result<Tz, ValueError> {
        let name = zone.unwrap_or(&self.server);
        if let Some(tz) = self.resolved.get(name) {
            return Ok(*tz);
        }
        let tz: Tz = name
            .parse()
            .map_err(|_| format!("unknown time zone {name:?}"))?;
        self.resolved.insert(Arc::clone(name), tz);
        Ok(tz)
    }
}

/// Appends the TabSeparated field `raw` (escapes not yet undone) of type `ty`.
pub(crate) fn append_field(
    ty: &ChType,
    builder: &mut dyn ArrayBuilder,
    raw: &[u8],
    zones: &mut Zones,
) -> Result<(), ValueError> {
    if raw == b"\\N" {
        return append_null(ty, builder);
    }
    match ty.base() {
        nested @ (ChType::Array(_) | ChType::Tuple(_) | ChType::Map(..)) => {
            let value = literal::parse(raw).ok_or_else(|| "malformed nested value".to_owned())?;
            append_literal(nested, builder, &value, zones)
        }
        scalar => append_scalar(scalar, builder, &escape::unescape(raw), zones),
    }
}

fn append_literal(
    ty: &ChType,
    builder: &mut dyn ArrayBuilder,
    value: &Literal<'_>,
    zones: &mut Zones,
) -> Result<(), ValueError> {
    match (ty.base(), value) {
        (_, Literal::Null) => append_null(ty, builder),
        (ChType::Array(item), Literal::List(items)) => {
            let list = downcast::<ListBuilder<Dyn>>(builder)?;
            for element in items {
                append_literal(item, list.values().as_mut(), element, zones)?;
            }
            list.append(true);
            Ok(())
        }
        (ChType::Tuple(elements), Literal::Tuple(items)) => {
            if elements.len() != items.len() {
                return Err(format!(
                    "a tuple of {} elements where {} were declared",
                    items.len(),
                    elements.len()
                ));
            }
            let tuple = downcast::<StructBuilder>(builder)?;
            for (index, ((_, element), item)) in elements.iter().zip(items).enumerate() {
                append_literal(
                    element,
                    tuple.field_builders_mut()[index].as_mut(),
                    item,
                    zones,
                )?;
            }
            tuple.append(true);
            Ok(())
        }
        (ChType::Map(key, value_type), Literal::Map(entries)) => {
            let map = downcast::<MapBuilder<Dyn, Dyn>>(builder)?;
            for (k, v) in entries {
                append_literal(key, map.keys().as_mut(), k, zones)?;
                append_literal(value_type, map.values().as_mut(), v, zones)?;
            }
            map.append(true).map_err(|e| e.to_string())
        }
        (scalar, Literal::Text(text)) if !is_nested(scalar) => {
            append_scalar(scalar, builder, text, zones)
        }
        _ => Err("a value of another shape than its type".to_owned()),
    }
}

fn is_nested(ty: &ChType) -> bool {
    matches!(ty, ChType::Array(_) | ChType::Tuple(_) | ChType::Map(..))
}

fn downcast<T: ArrayBuilder>(builder: &mut dyn ArrayBuilder) -> Result<&mut T, ValueError> {
    builder
        .as_any_mut()
        .downcast_mut::<T>()
        .ok_or_else(|| "internal: a builder of another type".to_owned())
}

/// Appends NULL; refused for a type that cannot hold one (the server never sends that).
fn append_null(ty: &ChType, builder: &mut dyn ArrayBuilder) -> Result<(), ValueError> {
    if !ty.nullable() {
        return Err("NULL in a column that is not Nullable".to_owned());
    }
    null_into(builder)
}

/// NULL into any builder this module makes (a struct's children get NULLs too, so they keep
/// its length).
fn null_into(builder: &mut dyn ArrayBuilder) -> Result<(), ValueError> {
    macro_rules! try_null {
        ($($t:ty),*) => {$(
            if let Some(b) = builder.as_any_mut().downcast_mut::<$t>() {
                b.append_null();
                return Ok(());
            }
        )*};
    }
    try_null!(
        Int8Builder,
        Int16Builder,
        Int32Builder,
        Int64Builder,
        UInt8Builder,
        UInt16Builder,
        UInt32Builder,
        UInt64Builder,
        Float32Builder,
        Float64Builder,
        BooleanBuilder,
        Decimal128Builder,
        StringBuilder,
        FixedSizeBinaryBuilder,
        Date32Builder,
        TimestampSecondBuilder,
        TimestampMillisecondBuilder,
        TimestampMicrosecondBuilder,
        TimestampNanosecondBuilder,
        NullBuilder,
        ListBuilder<Dyn>
    );
    if let Some(b) = builder.as_any_mut().downcast_mut::<StructBuilder>() {
        for child in b.field_builders_mut() {
            null_into(child.as_mut())?;
        }
        b.append_null();
        return Ok(());
    }
    if let Some(b) = builder.as_any_mut().downcast_mut::<MapBuilder<Dyn, Dyn>>() {
        return b.append(false).map_err(|e| e.to_string());
    }
    Err("internal: NULL into an unknown builder".to_owned())
}

fn text(bytes: &[u8]) -> Result<&str, ValueError> {
    std::str::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_owned())
}

fn number<T: std::str::FromStr>(bytes: &[u8], what: &str) -> Result<T, ValueError> {
    text(bytes)?
        .parse()
        .map_err(|_| format!("{:?} is not a valid {what}", shown(bytes)))
}

/// A value for an error message: at most 40 bytes of it.
fn shown(bytes: &[u8]) -> String {
    let cut = &bytes[..bytes.len().min(40)];
    let mut text = String::from_utf8_lossy(cut).into_owned();
    if bytes.len() > cut.len() {
        text.push('…');
    }
    text
}

fn append_scalar(
    ty: &ChType,
    builder: &mut dyn ArrayBuilder,
    bytes: &[u8],
    zones: &mut Zones,
) -> Result<(), ValueError> {
    macro_rules! primitive {
        ($builder:ty, $what:literal) => {
            downcast::<$builder>(builder)?.append_value(number(bytes, $what)?)
        };
    }
    match ty {
        ChType::Int8 => primitive!(Int8Builder, "Int8"),
        ChType::Int16 => primitive!(Int16Builder, "Int16"),
        ChType::Int32 => primitive!(Int32Builder, "Int32"),
        ChType::Int64 => primitive!(Int64Builder, "Int64"),
        ChType::UInt8 => primitive!(UInt8Builder, "UInt8"),
        ChType::UInt16 => primitive!(UInt16Builder, "UInt16"),
        ChType::UInt32 => primitive!(UInt32Builder, "UInt32"),
        ChType::UInt64 => primitive!(UInt64Builder, "UInt64"),
        // Rust reads ClickHouse's `inf`, `-inf` and `nan` as they are.
        ChType::Float32 => primitive!(Float32Builder, "Float32"),
        ChType::Float64 => primitive!(Float64Builder, "Float64"),
        ChType::Bool => {
            let value = match bytes {
                b"true" | b"1" => true,
                b"false" | b"0" => false,
                _ => return Err(format!("{:?} is not a Bool", shown(bytes))),
            };
            downcast::<BooleanBuilder>(builder)?.append_value(value);
        }
        ChType::Decimal(precision, scale) => {
            let value = decimal(bytes, *precision, *scale).ok_or_else(|| {
                format!("{:?} is not a Decimal({precision}, {scale})", shown(bytes))
            })?;
            downcast::<Decimal128Builder>(builder)?.append_value(value);
        }
        // ClickHouse strings are bytes; text that is not UTF-8 keeps its valid parts.
        ChType::Text(_) => {
            downcast::<StringBuilder>(builder)?.append_value(String::from_utf8_lossy(bytes))
        }
        ChType::FixedString(n) => {
            let n = usize::try_from(*n).unwrap_or(0);
            if bytes.len() > n {
                return Err(format!("{} bytes in a FixedString({n})", bytes.len()));
            }
            let mut padded = bytes.to_vec();
            padded.resize(n, 0);
            downcast::<FixedSizeBinaryBuilder>(builder)?
                .append_value(&padded)
                .map_err(|e| e.to_string())?;
        }
        ChType::Date => {
            let days = date(bytes).ok_or_else(|| format!("{:?} is not a Date", shown(bytes)))?;
            downcast::<Date32Builder>(builder)?.append_value(days);
        }
        ChType::DateTime(zone) => {
            let tz = zones.get(zone.as_ref())?;
            let (seconds, _) = date_time(bytes, tz, 0)
                .ok_or_else(|| format!("{:?} is not a DateTime", shown(bytes)))?;
            downcast::<TimestampSecondBuilder>(builder)?.append_value(seconds);
        }
        ChType::DateTime64(precision, zone) => {
            let tz = zones.get(zone.as_ref())?;
            let value = date_time(bytes, tz, *precision)
                .and_then(|(seconds, fraction)| {
                    let digits = match super::types::unit_of(*precision) {
                        arrow_schema::TimeUnit::Second => 0,
                        arrow_schema::TimeUnit::Millisecond => 3,
                        arrow_schema::TimeUnit::Microsecond => 6,
                        arrow_schema::TimeUnit::Nanosecond => 9,
                    };
                    let per_second = 10_i64.pow(digits);
                    let fraction = fraction * 10_i64.pow(digits - u32::from(*precision));
                    seconds.checked_mul(per_second)?.checked_add(fraction)
                })
                .ok_or_else(|| format!("{:?} is not a DateTime64({precision})", shown(bytes)))?;
            match super::types::unit_of(*precision) {
                arrow_schema::TimeUnit::Second => {
                    downcast::<TimestampSecondBuilder>(builder)?.append_value(value)
                }
                arrow_schema::TimeUnit::Millisecond => {
                    downcast::<TimestampMillisecondBuilder>(builder)?.append_value(value)
                }
                arrow_schema::TimeUnit::Microsecond => {
                    downcast::<TimestampMicrosecondBuilder>(builder)?.append_value(value)
                }
                arrow_schema::TimeUnit::Nanosecond => {
                    downcast::<TimestampNanosecondBuilder>(builder)?.append_value(value)
                }
            }
        }
        ChType::Nothing => return Err("a value in a column of type Nothing".to_owned()),
        ChType::Nullable(_) | ChType::Array(_) | ChType::Tuple(_) | ChType::Map(..) => {
            return Err("internal: a nested type read as a scalar".to_owned());
        }
    }
    Ok(())
}

/// An exact decimal (`-12.50`, `3`, `.5`) as an integer of `scale` fraction digits, within
/// `precision` digits; `None` otherwise.
pub(crate) fn decimal(bytes: &[u8], precision: u8, scale: i8) -> Option<i128> {
    decimal_text::exact_i128(bytes, scale)
        .filter(|&unscaled| decimal_text::fits_precision(unscaled, precision))
}

/// `YYYY-MM-DD` as days since 1970; old servers write day 0 as `0000-00-00`.
pub(crate) fn date(bytes: &[u8]) -> Option<i32> {
    if bytes == b"0000-00-00" {
        return Some(0);
    }
    let day = NaiveDate::parse_from_str(text(bytes).ok()?, "%Y-%m-%d").ok()?;
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1)?;
    i32::try_from(day.signed_duration_since(epoch).num_days()).ok()
}

/// `YYYY-MM-DD hh:mm:ss[.f…]`, a local time in `tz`, as seconds since 1970 and the fraction
/// in units of 10^-precision s; also bare Unix seconds. An ambiguous local time (the hour
/// repeated when clocks go back) is read as the earlier instant.
pub(crate) fn date_time(bytes: &[u8], tz: Tz, precision: u8) -> Option<(i64, i64)> {
    let text = text(bytes).ok()?;
    let (whole, fraction) = match text.split_once('.') {
        Some((whole, fraction)) => (whole, fraction),
        None => (text, ""),
    };
    if fraction.len() > usize::from(precision) || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let fraction_value = if fraction.is_empty() {
        0
    } else {
        fraction.parse::<i64>().ok()? * 10_i64.pow(u32::from(precision) - fraction.len() as u32)
    };
    let seconds = if !whole.is_empty() && whole.bytes().all(|b| b.is_ascii_digit()) {
        whole.parse::<i64>().ok()?
    } else if whole == "0000-00-00 00:00:00" {
        0
    } else {
        let naive = NaiveDateTime::parse_from_str(whole, "%Y-%m-%d %H:%M:%S").ok()?;
        tz.from_local_datetime(&naive).earliest()?.timestamp()
    };
    // Before 1970 the fraction counts towards the earlier second's start: the server writes
    // the instant's floor second and a positive fraction, so the sum is right as it is.
    Some((seconds, fraction_value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_exact() {
        assert_eq!(decimal(b"1.50", 18, 2), Some(150));
        assert_eq!(decimal(b"1.5", 18, 2), Some(150));
        assert_eq!(decimal(b"-0.25", 12, 2), Some(-25));
        assert_eq!(decimal(b"42", 5, 0), Some(42));
        assert_eq!(decimal(b"1.234", 18, 2), None);
        assert_eq!(decimal(b"1000", 3, 0), None);
        assert_eq!(decimal(b"", 3, 0), None);
        assert_eq!(decimal(b"-", 3, 0), None);
        assert_eq!(decimal(b"1e5", 9, 0), None);
        assert_eq!(
            decimal(b"99999999999999999999999999999999999999", 38, 0),
            Some(99_999_999_999_999_999_999_999_999_999_999_999_999)
        );
        assert_eq!(decimal(&[b'9'; 60], 38, 0), None);
    }

    #[test]
    fn dates_and_times() {
        assert_eq!(date(b"1970-01-02"), Some(1));
        assert_eq!(date(b"0000-00-00"), Some(0));
        assert_eq!(date(b"2020-13-01"), None);
        let tokyo: Tz = "Asia/Tokyo".parse().unwrap();
        assert_eq!(date_time(b"1970-01-01 09:00:00", tokyo, 0), Some((0, 0)));
        assert_eq!(date_time(b"0000-00-00 00:00:00", tokyo, 0), Some((0, 0)));
        assert_eq!(
            date_time(b"2020-01-01 00:00:00.123", Tz::UTC, 3),
            Some((1_577_836_800, 123))
        );
        assert_eq!(
            date_time(b"2020-01-01 00:00:00.1", Tz::UTC, 3),
            Some((1_577_836_800, 100))
        );
        assert_eq!(
            date_time(b"1577836800", Tz::UTC, 0),
            Some((1_577_836_800, 0))
        );
        assert_eq!(date_time(b"2020-01-01 00:00:00.1234", Tz::UTC, 3), None);
        assert_eq!(date_time(b"garbage", Tz::UTC, 0), None);
    }
}
