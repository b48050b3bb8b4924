//! The canonical bytes of a value, which [`MaskRule::Hash`](nao_guard::MaskRule::Hash) hashes.
//!
//! The encoding is by value, not by Arrow layout, so that values SQL calls equal hash equal
//! whatever type the engine chose for them:
//! - text (`Utf8`, `LargeUtf8`, `Utf8View`, and dictionaries or run-end encodings of them) by
//!   its UTF-8 bytes;
//! - integers of every width and signedness by their value (an `Int32` 5 and a `UInt64` 5
//!   hash the same), and decimals by their value with trailing zeros dropped (`5.00` and
//!   `5.0` hash the same, and a whole decimal hashes as the integer, so a `NUMERIC(38,0)` id
//!   joins an `Int64` one);
//! - floats as `f64` (a `Float32` widens exactly), with `-0.0` as `0.0` and every NaN as one
//!   NaN, as SQL groups them;
//! - dates as days, timestamps as nanoseconds (zoned ones as the UTC instant: the same instant
//!   in two zones is equal), times, durations and intervals as nanoseconds (intervals as
//!   months, days and nanoseconds);
//! - binary by its bytes; lists (every kind), structs (by position: field names are not
//!   hashed) and maps element by element, with a NULL marker and the element count.
//!
//! Every value starts with a one-byte tag of its family and every variable-length part is
//! length-prefixed, so the encoding is injective: different values never give the same bytes
//! (so they collide only if the 64-bit hash does). It is written by hand rather than taken
//! from Arrow's display text (not injective: a list of the one text `"a, b"` and a list of
//! `"a"` and `"b"` both display as `[a, b]`, and the display may change between Arrow
//! versions) or from arrow-row (width-dependent: an `Int32` and an `Int64` encode
//! differently; no promise of stability across versions; builds a row buffer per column).
//! Feeding the hasher directly needs no allocation per value.

use std::hash::Hasher;

use arrow_array::cast::AsArray;
use arrow_array::types::Decimal256Type;
use arrow_array::types::{
    ArrowDictionaryKeyType, Int8Type, Int16Type, Int32Type, Int64Type, RunEndIndexType, UInt8Type,
    UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrowNativeTypeOp, ArrowPrimitiveType, OffsetSizeTrait};
use arrow_schema::{DataType, IntervalUnit, TimeUnit};
use siphasher::sip::SipHasher24;

/// The deepest nesting of types the encoding follows.
pub(crate) const MAX_TYPE_DEPTH: usize = 64;

/// Arrow's 256-bit integer (the native type of `Decimal256`).
type I256 = <Decimal256Type as ArrowPrimitiveType>::Native;

const NULL: u8 = 0;
const PRESENT: u8 = 1;
const BOOLEAN: u8 = b'b';
const INTEGER: u8 = b'i';
const FLOAT: u8 = b'f';
const DECIMAL: u8 = b'n';
const BIG_NUMBER: u8 = b'N';
const DATE: u8 = b'D';
const LOCAL_TIMESTAMP: u8 = b't';
const INSTANT: u8 = b'T';
const TIME_OF_DAY: u8 = b'h';
const DURATION: u8 = b'u';
const INTERVAL: u8 = b'I';
const TEXT: u8 = b's';
const BYTES: u8 = b'x';
const LIST: u8 = b'L';
const STRUCT: u8 = b'S';
const MAP: u8 = b'M';
/// Marks a value whose array does not have the concrete type its data type promises, which
/// Arrow's constructors rule out.
const UNREADABLE: u8 = b'?';

const MILLIS_PER_DAY: i64 = 86_400_000;

/// Checks that every value of `data_type` can be encoded: types nested deeper than
/// [`MAX_TYPE_DEPTH`] cannot.
pub(crate) fn check_type(data_type: &DataType) -> Result<(), String> {
    if type_depth(data_type) > MAX_TYPE_DEPTH {
        return Err(format!(
            "its type nests deeper than {MAX_TYPE_DEPTH} levels"
        ));
    }
    Ok(())
}

/// How deep a type nests (a flat type is 1). Stops counting past the limit.
fn type_depth(data_type: &DataType) -> usize {
    fn depth(data_type: &DataType, level: usize) -> usize {
        if level > MAX_TYPE_DEPTH {
            return level;
        }
        let children: Vec<&DataType> = match data_type {
            DataType::List(f)
            | DataType::LargeList(f)
            | DataType::ListView(f)
            | DataType::LargeListView(f)
            | DataType::FixedSizeList(f, _)
            | DataType::Map(f, _) => vec![f.data_type()],
            DataType::Struct(fields) => fields.iter().map(|f| f.data_type()).collect(),
            DataType::Union(fields, _) => fields.iter().map(|(_, f)| f.data_type()).collect(),
            DataType::Dictionary(_, values) => vec![values.as_ref()],
            DataType::RunEndEncoded(_, values) => vec![values.data_type()],
            _ => Vec::new(),
        };
        children
            .into_iter()
            .map(|child| depth(child, level + 1))
            .max()
            .unwrap_or(level)
    }
    depth(data_type, 1)
}

/// The array and row that hold the value at `row`, looking through dictionaries, run-end
/// encodings and unions; `None` when the value is NULL (an invalid dictionary key reads as
/// NULL).
pub(crate) fn resolve(array: &dyn Array, row: usize) -> Option<(&dyn Array, usize)> {
    match array.data_type() {
        DataType::Null => None,
        DataType::Dictionary(key, _) => {
            let (values, index) = dictionary_entry(array, key, row)?;
            resolve(values, index)
        }
        DataType::RunEndEncoded(run_ends, _) => {
            let (values, index) = run_entry(array, run_ends.data_type(), row)?;
            resolve(values, index)
        }
        DataType::Union(fields, _) => {
            let union = array.as_union_opt()?;
            let type_id = union.type_id(row);
            // `child` panics on an id the type does not declare; a valid array has none.
            fields.iter().any(|(id, _)| id == type_id).then_some(())?;
            resolve(union.child(type_id).as_ref(), union.value_offset(row))
        }
        _ => array.is_valid(row).then_some((array, row)),
    }
}

/// The values array and index a dictionary's key at `row` points to.
fn dictionary_entry<'a>(
    array: &'a dyn Array,
    key: &DataType,
    row: usize,
) -> Option<(&'a dyn Array, usize)> {
    fn entry<K: ArrowDictionaryKeyType>(
        array: &dyn Array,
        row: usize,
    ) -> Option<(&dyn Array, usize)> {
        let dictionary = array.as_dictionary_opt::<K>()?;
        let keys = dictionary.keys();
        if keys.is_null(row) {
            return None;
        }
        let index = num_to_usize(keys.value(row))?;
        let values = dictionary.values().as_ref();
        (index < values.len()).then_some((values, index))
    }
    match key {
        DataType::Int8 => entry::<Int8Type>(array, row),
        DataType::Int16 => entry::<Int16Type>(array, row),
        DataType::Int32 => entry::<Int32Type>(array, row),
        DataType::Int64 => entry::<Int64Type>(array, row),
        DataType::UInt8 => entry::<UInt8Type>(array, row),
        DataType::UInt16 => entry::<UInt16Type>(array, row),
        DataType::UInt32 => entry::<UInt32Type>(array, row),
        DataType::UInt64 => entry::<UInt64Type>(array, row),
        _ => None,
    }
}

/// The values array and index of the run that covers `row`.
fn run_entry<'a>(
    array: &'a dyn Array,
    run_end: &DataType,
    row: usize,
) -> Option<(&'a dyn Array, usize)> {
    fn entry<R: RunEndIndexType>(array: &dyn Array, row: usize) -> Option<(&dyn Array, usize)> {
        let runs = array.as_run_opt::<R>()?;
        if row >= runs.len() {
            return None;
        }
        let index = runs.get_physical_index(row);
        let values = runs.values().as_ref();
        (index < values.len()).then_some((values, index))
    }
    match run_end {
        DataType::Int16 => entry::<Int16Type>(array, row),
        DataType::Int32 => entry::<Int32Type>(array, row),
        DataType::Int64 => entry::<Int64Type>(array, row),
        _ => None,
    }
}

/// A key or offset as an index; `None` for a negative one.
fn num_to_usize<T: ArrowNativeTypeOp>(value: T) -> Option<usize> {
    value.to_usize()
}

/// Feeds the canonical bytes of the value at `row` to `hasher`. The value must be non-NULL
/// and `array` must not be a dictionary, run-end encoding or union: [`resolve`] first.
pub(crate) fn write_value(hasher: &mut SipHasher24, array: &dyn Array, row: usize) {
    if write(hasher, array, row).is_none() {
        hasher.write_u8(UNREADABLE);
    }
}

/// Feeds an element of a nested value: a NULL marker, or a presence marker and the value.
fn write_element(hasher: &mut SipHasher24, array: &dyn Array, row: usize) {
    match resolve(array, row) {
        None => hasher.write_u8(NULL),
        Some((array, row)) => {
            hasher.write_u8(PRESENT);
            write_value(hasher, array, row);
        }
    }
}

fn write(hasher: &mut SipHasher24, array: &dyn Array, row: usize) -> Option<()> {
    match array.data_type() {
        DataType::Boolean => {
            hasher.write_u8(BOOLEAN);
            hasher.write_u8(u8::from(array.as_boolean_opt()?.value(row)));
        }
        DataType::Int8 => integer(hasher, primitive::<Int8Type>(array, row)?.into()),
        DataType::Int16 => integer(hasher, primitive::<Int16Type>(array, row)?.into()),
        DataType::Int32 => integer(hasher, primitive::<Int32Type>(array, row)?.into()),
        DataType::Int64 => integer(hasher, primitive::<Int64Type>(array, row)?.into()),
        DataType::UInt8 => integer(hasher, primitive::<UInt8Type>(array, row)?.into()),
        DataType::UInt16 => integer(hasher, primitive::<UInt16Type>(array, row)?.into()),
        DataType::UInt32 => integer(hasher, primitive::<UInt32Type>(array, row)?.into()),
        DataType::UInt64 => integer(hasher, primitive::<UInt64Type>(array, row)?.into()),
        DataType::Float16 => {
            let value = primitive::<arrow_array::types::Float16Type>(array, row)?;
            float(hasher, value.to_f64());
        }
        DataType::Float32 => float(
            hasher,
            primitive::<arrow_array::types::Float32Type>(array, row)?.into(),
        ),
        DataType::Float64 => float(
            hasher,
            primitive::<arrow_array::types::Float64Type>(array, row)?,
        ),
        DataType::Decimal32(_, scale) => {
            let value = primitive::<arrow_array::types::Decimal32Type>(array, row)?;
            decimal(hasher, value.into(), i32::from(*scale));
        }
        DataType::Decimal64(_, scale) => {
            let value = primitive::<arrow_array::types::Decimal64Type>(array, row)?;
            decimal(hasher, value.into(), i32::from(*scale));
        }
        DataType::Decimal128(_, scale) => {
            let value = primitive::<arrow_array::types::Decimal128Type>(array, row)?;
            decimal(hasher, value, i32::from(*scale));
        }
        DataType::Decimal256(_, scale) => {
            let value = primitive::<arrow_array::types::Decimal256Type>(array, row)?;
            big_decimal(hasher, value, i32::from(*scale));
        }
        DataType::Date32 => {
            let days = primitive::<arrow_array::types::Date32Type>(array, row)?;
            date(hasher, days.into());
        }
        DataType::Date64 => {
            let millis = primitive::<arrow_array::types::Date64Type>(array, row)?;
            if millis % MILLIS_PER_DAY == 0 {
                date(hasher, millis / MILLIS_PER_DAY);
            } else {
                hasher.write_u8(LOCAL_TIMESTAMP);
                write_i128(hasher, i128::from(millis) * 1_000_000);
            }
        }
        DataType::Timestamp(unit, zone) => {
            let ticks = temporal_ticks(array, row, *unit, TemporalFamily::Timestamp)?;
            hasher.write_u8(if zone.is_some() {
                INSTANT
            } else {
                LOCAL_TIMESTAMP
            });
            write_i128(hasher, i128::from(ticks) * nanos_per_tick(*unit));
        }
        DataType::Time32(unit) | DataType::Time64(unit) => {
            let ticks = temporal_ticks(array, row, *unit, TemporalFamily::Time)?;
            hasher.write_u8(TIME_OF_DAY);
            write_i128(hasher, i128::from(ticks) * nanos_per_tick(*unit));
        }
        DataType::Duration(unit) => {
            let ticks = temporal_ticks(array, row, *unit, TemporalFamily::Duration)?;
            hasher.write_u8(DURATION);
            write_i128(hasher, i128::from(ticks) * nanos_per_tick(*unit));
        }
        DataType::Interval(unit) => {
            let (months, days, nanos) = match unit {
                IntervalUnit::YearMonth => {
                    let months =
                        primitive::<arrow_array::types::IntervalYearMonthType>(array, row)?;
                    (months, 0, 0)
                }
                IntervalUnit::DayTime => {
                    let value = primitive::<arrow_array::types::IntervalDayTimeType>(array, row)?;
                    (0, value.days, i64::from(value.milliseconds) * 1_000_000)
                }
                IntervalUnit::MonthDayNano => {
                    let value =
                        primitive::<arrow_array::types::IntervalMonthDayNanoType>(array, row)?;
                    (value.months, value.days, value.nanoseconds)
                }
            };
            hasher.write_u8(INTERVAL);
            hasher.write(&months.to_le_bytes());
            hasher.write(&days.to_le_bytes());
            hasher.write(&nanos.to_le_bytes());
        }
        DataType::Utf8 => text(hasher, array.as_string_opt::<i32>()?.value(row)),
        DataType::LargeUtf8 => text(hasher, array.as_string_opt::<i64>()?.value(row)),
        DataType::Utf8View => text(hasher, array.as_string_view_opt()?.value(row)),
        DataType::Binary => bytes(hasher, array.as_binary_opt::<i32>()?.value(row)),
        DataType::LargeBinary => bytes(hasher, array.as_binary_opt::<i64>()?.value(row)),
        DataType::BinaryView => bytes(hasher, array.as_binary_view_opt()?.value(row)),
        DataType::FixedSizeBinary(_) => bytes(hasher, array.as_fixed_size_binary_opt()?.value(row)),
        DataType::List(_) => list::<i32>(hasher, array, row)?,
        DataType::LargeList(_) => list::<i64>(hasher, array, row)?,
        DataType::ListView(_) => list_view::<i32>(hasher, array, row)?,
        DataType::LargeListView(_) => list_view::<i64>(hasher, array, row)?,
        DataType::FixedSizeList(_, _) => {
            let list = array.as_fixed_size_list_opt()?;
            let start = num_to_usize(list.value_offset(row))?;
            let len = num_to_usize(list.value_length())?;
            elements(hasher, list.values().as_ref(), start, start + len);
        }
        DataType::Struct(_) => {
            let fields = array.as_struct_opt()?.columns();
            hasher.write_u8(STRUCT);
            hasher.write_u64(fields.len() as u64);
            for field in fields {
                write_element(hasher, field.as_ref(), row);
            }
        }
        DataType::Map(_, _) => {
            let map = array.as_map_opt()?;
            let offsets = map.value_offsets();
            let start = num_to_usize(*offsets.get(row)?)?;
            let end = num_to_usize(*offsets.get(row + 1)?)?;
            hasher.write_u8(MAP);
            hasher.write_u64(end.saturating_sub(start) as u64);
            for entry in start..end {
                write_element(hasher, map.keys().as_ref(), entry);
                write_element(hasher, map.values().as_ref(), entry);
            }
        }
        // Resolved before: a value never lives in these.
        DataType::Null
        | DataType::Dictionary(..)
        | DataType::RunEndEncoded(..)
        | DataType::Union(..) => return None,
        // A type this Arrow version added after this code was written.
        #[allow(unreachable_patterns)]
        _ => return None,
    }
    Some(())
}

/// The value at `row` of a primitive array of type `T`.
fn primitive<T: ArrowPrimitiveType>(array: &dyn Array, row: usize) -> Option<T::Native> {
    Some(array.as_primitive_opt::<T>()?.value(row))
}

/// Which family of temporal types a tick count belongs to.
#[derive(Clone, Copy)]
enum TemporalFamily {
    Timestamp,
    Time,
    Duration,
}

/// The tick count at `row` of a timestamp, time or duration array of `unit`.
fn temporal_ticks(
    array: &dyn Array,
    row: usize,
    unit: TimeUnit,
    family: TemporalFamily,
) -> Option<i64> {
    use arrow_array::types::*;
    Some(match (family, unit) {
        (TemporalFamily::Timestamp, TimeUnit::Second) => {
            primitive::<TimestampSecondType>(array, row)?
        }
        (TemporalFamily::Timestamp, TimeUnit::Millisecond) => {
            primitive::<TimestampMillisecondType>(array, row)?
        }
        (TemporalFamily::Timestamp, TimeUnit::Microsecond) => {
            primitive::<TimestampMicrosecondType>(array, row)?
        }
        (TemporalFamily::Timestamp, TimeUnit::Nanosecond) => {
            primitive::<TimestampNanosecondType>(array, row)?
        }
        (TemporalFamily::Time, TimeUnit::Second) => {
            primitive::<Time32SecondType>(array, row)?.into()
        }
        (TemporalFamily::Time, TimeUnit::Millisecond) => {
            primitive::<Time32MillisecondType>(array, row)?.into()
        }
        (TemporalFamily::Time, TimeUnit::Microsecond) => {
            primitive::<Time64MicrosecondType>(array, row)?
        }
        (TemporalFamily::Time, TimeUnit::Nanosecond) => {
            primitive::<Time64NanosecondType>(array, row)?
        }
        (TemporalFamily::Duration, TimeUnit::Second) => {
            primitive::<DurationSecondType>(array, row)?
        }
        (TemporalFamily::Duration, TimeUnit::Millisecond) => {
            primitive::<DurationMillisecondType>(array, row)?
        }
        (TemporalFamily::Duration, TimeUnit::Microsecond) => {
            primitive::<DurationMicrosecondType>(array, row)?
        }
        (TemporalFamily::Duration, TimeUnit::Nanosecond) => {
            primitive::<DurationNanosecondType>(array, row)?
        }
    })
}

fn nanos_per_tick(unit: TimeUnit) -> i128 {
    match unit {
        TimeUnit::Second => 1_000_000_000,
        TimeUnit::Millisecond => 1_000_000,
        TimeUnit::Microsecond => 1_000,
        TimeUnit::Nanosecond => 1,
    }
}

fn write_i128(hasher: &mut SipHasher24, value: i128) {
    // SipHasher's integer writes feed little-endian bytes on every platform.
    hasher.write_u64(value as u64);
    hasher.write_u64((value >> 64) as u64);
}

/// Text: the tag, the byte length and the UTF-8 bytes.
pub(crate) fn text(hasher: &mut SipHasher24, value: &str) {
    hasher.write_u8(TEXT);
    hasher.write_u64(value.len() as u64);
    hasher.write(value.as_bytes());
}

fn bytes(hasher: &mut SipHasher24, value: &[u8]) {
    hasher.write_u8(BYTES);
    hasher.write_u64(value.len() as u64);
    hasher.write(value);
}

/// An integer of any width.
pub(crate) fn integer(hasher: &mut SipHasher24, value: i128) {
    hasher.write_u8(INTEGER);
    write_i128(hasher, value);
}

fn float(hasher: &mut SipHasher24, value: f64) {
    let value = if value == 0.0 {
        0.0
    } else if value.is_nan() {
        f64::NAN
    } else {
        value
    };
    hasher.write_u8(FLOAT);
    hasher.write_u64(value.to_bits());
}

fn date(hasher: &mut SipHasher24, days: i64) {
    hasher.write_u8(DATE);
    write_i128(hasher, i128::from(days));
}

/// A decimal `mantissa × 10^-scale`, normalised: trailing zeros dropped, a negative scale
/// multiplied out while it fits, a whole number written as an integer.
fn decimal(hasher: &mut SipHasher24, mut mantissa: i128, mut scale: i32) {
    if mantissa == 0 {
        scale = 0;
    }
    while scale > 0 && mantissa % 10 == 0 {
        mantissa /= 10;
        scale -= 1;
    }
    while scale < 0 {
        match mantissa.checked_mul(10) {
            Some(value) => {
                mantissa = value;
                scale += 1;
            }
            None => break,
        }
    }
    if scale == 0 {
        integer(hasher, mantissa);
    } else {
        hasher.write_u8(DECIMAL);
        write_i128(hasher, mantissa);
        hasher.write(&scale.to_le_bytes());
    }
}

/// A 256-bit decimal: as [`decimal`] when its normalised mantissa fits 128 bits.
fn big_decimal(hasher: &mut SipHasher24, mut mantissa: I256, mut scale: i32) {
    let ten = I256::from_i128(10);
    if mantissa == I256::ZERO {
        scale = 0;
    }
    while scale > 0 && mantissa.wrapping_rem(ten) == I256::ZERO {
        mantissa = mantissa.wrapping_div(ten);
        scale -= 1;
    }
    while scale < 0 {
        match mantissa.checked_mul(ten) {
            Some(value) => {
                mantissa = value;
                scale += 1;
            }
            None => break,
        }
    }
    match mantissa.to_i128() {
        Some(small) => decimal(hasher, small, scale),
        None => {
            hasher.write_u8(BIG_NUMBER);
            hasher.write(&mantissa.to_le_bytes());
            hasher.write(&scale.to_le_bytes());
        }
    }
}

fn list<O: OffsetSizeTrait>(hasher: &mut SipHasher24, array: &dyn Array, row: usize) -> Option<()> {
    let list = array.as_list_opt::<O>()?;
    let offsets = list.value_offsets();
    let start = offsets.get(row)?.as_usize();
    let end = offsets.get(row + 1)?.as_usize();
    elements(hasher, list.values().as_ref(), start, end);
    Some(())
}

fn list_view<O: OffsetSizeTrait>(
    hasher: &mut SipHasher24,
    array: &dyn Array,
    row: usize,
) -> Option<()> {
    let list = array.as_list_view_opt::<O>()?;
    let start = list.value_offsets().get(row)?.as_usize();
    let len = list.value_sizes().get(row)?.as_usize();
    elements(hasher, list.values().as_ref(), start, start + len);
    Some(())
}

/// A list's elements `start..end` of `values`.
fn elements(hasher: &mut SipHasher24, values: &dyn Array, start: usize, end: usize) {
    let end = end.min(values.len());
    hasher.write_u8(LIST);
    hasher.write_u64(end.saturating_sub(start) as u64);
    for element in start..end {
        write_element(hasher, values, element);
    }
}
