//! Binary-protocol values into Arrow arrays, one builder per column, decoded by hand from the
//! raw bytes (the adapter enables none of the driver's optional type features).

use std::sync::Arc;

use arrow_array::builder::{
    BinaryBuilder, BooleanBuilder, Date32Builder, Decimal128Builder, Decimal256Builder,
    Float32Builder, Float64Builder, Int16Builder, Int32Builder, Int64Builder,
    IntervalMonthDayNanoBuilder, StringBuilder, Time64MicrosecondBuilder,
    TimestampMicrosecondBuilder, UInt32Builder,
};
use arrow_array::types::IntervalMonthDayNano;
use arrow_array::{ArrayRef, ListArray};
use arrow_buffer::{NullBufferBuilder, OffsetBuffer, ScalarBuffer};
use arrow_schema::FieldRef;
use tokio_postgres::types::{FromSql, Type};

use super::numeric::{self, Numeric};
use super::types::PgType;

/// Days from 1970-01-01 (Arrow's epoch) to 2000-01-01 (PostgreSQL's).
const EPOCH_DAYS: i32 = 10_957;
/// Microseconds from 1970-01-01 to 2000-01-01.
const EPOCH_MICROS: i64 = 946_684_800_000_000;

/// A column value's raw binary bytes, whatever its type: every decoding happens here.
#[derive(Debug, Clone, Copy)]
pub(super) struct RawValue<'a>(pub(super) &'a [u8]);

impl<'a> FromSql<'a> for RawValue<'a> {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(RawValue(raw))
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

/// What kind of text a Utf8 column holds on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TextKind {
    /// UTF-8 text as is.
    Plain,
    /// jsonb: a version byte (1), then the JSON text.
    Jsonb,
    /// 16 bytes, printed in the canonical hyphenated form.
    Uuid,
    /// numeric, printed exactly as PostgreSQL does.
    Numeric,
}

/// Appends decoded values of one column (or of an array's elements) and finishes them into an
/// Arrow array.
#[derive(Debug)]
pub(super) enum ColumnBuilder {
    Int16(Int16Builder),
    Int32(Int32Builder),
    Int64(Int64Builder),
    UInt32(UInt32Builder),
    Float32(Float32Builder),
    Float64(Float64Builder),
    Boolean(BooleanBuilder),
    Utf8(StringBuilder, TextKind),
    Binary(BinaryBuilder),
    Date32(Date32Builder),
    Time64(Time64MicrosecondBuilder),
    Timestamp(TimestampMicrosecondBuilder, Option<Arc<str>>),
    Interval(IntervalMonthDayNanoBuilder),
    Decimal128(Decimal128Builder, u8, i8),
    Decimal256(Decimal256Builder, u8, i8),
    List {
        field: FieldRef,
        offsets: Vec<i32>,
        nulls: NullBufferBuilder,
        child: Box<ColumnBuilder>,
    },
}

/// `raw` as a fixed-size big-endian array.
fn fixed<const N: usize>(raw: &[u8]) -> Result<[u8; N], String> {
    raw.try_into().map_err(|_| {
        format!(
            "a malformed value ({} bytes where {N} were expected)",
            raw.len()
        )
    })
}

fn utf8(raw: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(raw).map_err(|_| "text that is not valid UTF-8".to_owned())
}

/// The canonical text of a UUID sent as 16 bytes.
fn uuid_text(raw: &[u8]) -> Result<String, String> {
    Ok(crate::uuid_text::uuid_text(&fixed(raw)?))
}

impl ColumnBuilder {
    /// An empty builder for values of `ty`.
    pub(super) fn new(ty: &PgType, capacity: usize) -> Self {
        match ty {
            PgType::Int2 => ColumnBuilder::Int16(Int16Builder::with_capacity(capacity)),
            PgType::Int4 => ColumnBuilder::Int32(Int32Builder::with_capacity(capacity)),
            PgType::Int8 => ColumnBuilder::Int64(Int64Builder::with_capacity(capacity)),
            PgType::Oid => ColumnBuilder::UInt32(UInt32Builder::with_capacity(capacity)),
            PgType::Float4 => ColumnBuilder::Float32(Float32Builder::with_capacity(capacity)),
            PgType::Float8 => ColumnBuilder::Float64(Float64Builder::with_capacity(capacity)),
            PgType::Bool => ColumnBuilder::Boolean(BooleanBuilder::with_capacity(capacity)),
            PgType::Text | PgType::Json => {
                ColumnBuilder::Utf8(StringBuilder::new(), TextKind::Plain)
            }
            PgType::Jsonb => ColumnBuilder::Utf8(StringBuilder::new(), TextKind::Jsonb),
            PgType::Uuid => ColumnBuilder::Utf8(StringBuilder::new(), TextKind::Uuid),
            PgType::NumericText => ColumnBuilder::Utf8(StringBuilder::new(), TextKind::Numeric),
            PgType::Bytea => ColumnBuilder::Binary(BinaryBuilder::new()),
            PgType::Date => ColumnBuilder::Date32(Date32Builder::with_capacity(capacity)),
            PgType::Time => {
                ColumnBuilder::Time64(Time64MicrosecondBuilder::with_capacity(capacity))
            }
            PgType::Timestamp => {
                ColumnBuilder::Timestamp(TimestampMicrosecondBuilder::with_capacity(capacity), None)
            }
            PgType::TimestampTz => ColumnBuilder::Timestamp(
                TimestampMicrosecondBuilder::with_capacity(capacity),
                Some("UTC".into()),
            ),
            PgType::Interval => {
                ColumnBuilder::Interval(IntervalMonthDayNanoBuilder::with_capacity(capacity))
            }
            PgType::Decimal { precision, scale } if *precision <= 38 => ColumnBuilder::Decimal128(
                Decimal128Builder::with_capacity(capacity).with_data_type(ty.data_type()),
                *precision,
                *scale,
            ),
            PgType::Decimal { precision, scale } => ColumnBuilder::Decimal256(
                Decimal256Builder::with_capacity(capacity).with_data_type(ty.data_type()),
                *precision,
                *scale,
            ),
            PgType::List(element) => ColumnBuilder::List {
                field: Arc::new(element.field("item")),
                offsets: vec![0],
                nulls: NullBufferBuilder::new(capacity),
                child: Box::new(ColumnBuilder::new(element, capacity)),
            },
        }
    }

    /// Appends one value (`None` is SQL NULL). On error the message says what the value was,
    /// and the builder is not used again (the statement fails).
    pub(super) fn append(&mut self, raw: Option<&[u8]>) -> Result<(), String> {
        let Some(raw) = raw else {
            self.append_null();
            return Ok(());
        };
        match self {
            ColumnBuilder::Int16(b) => b.append_value(i16::from_be_bytes(fixed(raw)?)),
            ColumnBuilder::Int32(b) => b.append_value(i32::from_be_bytes(fixed(raw)?)),
            ColumnBuilder::Int64(b) => b.append_value(i64::from_be_bytes(fixed(raw)?)),
            ColumnBuilder::UInt32(b) => b.append_value(u32::from_be_bytes(fixed(raw)?)),
            ColumnBuilder::Float32(b) => b.append_value(f32::from_be_bytes(fixed(raw)?)),
            ColumnBuilder::Float64(b) => b.append_value(f64::from_be_bytes(fixed(raw)?)),
            ColumnBuilder::Boolean(b) => {
                let [byte] = fixed::<1>(raw)?;
                b.append_value(byte != 0);
            }
            ColumnBuilder::Utf8(b, TextKind::Plain) => b.append_value(utf8(raw)?),
            ColumnBuilder::Utf8(b, TextKind::Jsonb) => match raw.split_first() {
                Some((1, text)) => b.append_value(utf8(text)?),
                _ => return Err("a jsonb value in an unknown binary version".to_owned()),
            },
            ColumnBuilder::Utf8(b, TextKind::Uuid) => b.append_value(uuid_text(raw)?),
            ColumnBuilder::Utf8(b, TextKind::Numeric) => {
                b.append_value(Numeric::parse(raw)?.to_text());
            }
            ColumnBuilder::Binary(b) => b.append_value(raw),
            ColumnBuilder::Date32(b) => {
                let days = i32::from_be_bytes(fixed(raw)?);
                if days == i32::MAX || days == i32::MIN {
                    return Err("an infinite date, which Arrow's Date32 cannot hold".to_owned());
                }
                let days = days
                    .checked_add(EPOCH_DAYS)
                    .ok_or("a date beyond Arrow's Date32 range")?;
                b.append_value(days);
            }
            ColumnBuilder::Time64(b) => b.append_value(i64::from_be_bytes(fixed(raw)?)),
            ColumnBuilder::Timestamp(b, _) => {
                let micros = i64::from_be_bytes(fixed(raw)?);
                if micros == i64::MAX || micros == i64::MIN {
                    return Err(
                        "an infinite timestamp, which Arrow's Timestamp cannot hold".to_owned()
                    );
                }
                let micros = micros
                    .checked_add(EPOCH_MICROS)
                    .ok_or("a timestamp beyond Arrow's range")?;
                b.append_value(micros);
            }
            ColumnBuilder::Interval(b) => {
                let bytes: [u8; 16] = fixed(raw)?;
                let (micros, rest) = bytes.split_at(8);
                let (days, months) = rest.split_at(4);
                let micros = i64::from_be_bytes(fixed(micros)?);
                let days = i32::from_be_bytes(fixed(days)?);
                let months = i32::from_be_bytes(fixed(months)?);
                if months == i32::MAX || months == i32::MIN {
                    return Err("an infinite interval, which Arrow cannot hold".to_owned());
                }
                let nanoseconds = micros
                    .checked_mul(1_000)
                    .ok_or("an interval whose time part exceeds Arrow's nanosecond range")?;
                b.append_value(IntervalMonthDayNano::new(months, days, nanoseconds));
            }
            ColumnBuilder::Decimal128(b, precision, scale) => {
                let value = match numeric::unscaled_i128(raw, *precision, *scale) {
                    Some(value) => value,
                    None => Numeric::parse(raw)?
                        .to_unscaled(*precision, *scale)?
                        .to_i128()
                        .ok_or("a decimal beyond Decimal128's range")?,
                };
                b.append_value(value);
            }
            ColumnBuilder::Decimal256(b, precision, scale) => {
                b.append_value(Numeric::parse(raw)?.to_unscaled(*precision, *scale)?);
            }
            ColumnBuilder::List {
                offsets,
                nulls,
                child,
                ..
            } => {
                append_array(child, raw)?;
                let end = i32::try_from(child.len()).map_err(|_| "a list column too long")?;
                offsets.push(end);
                nulls.append_non_null();
            }
        }
        Ok(())
    }

    fn append_null(&mut self) {
        match self {
            ColumnBuilder::Int16(b) => b.append_null(),
            ColumnBuilder::Int32(b) => b.append_null(),
            ColumnBuilder::Int64(b) => b.append_null(),
            ColumnBuilder::UInt32(b) => b.append_null(),
            ColumnBuilder::Float32(b) => b.append_null(),
            ColumnBuilder::Float64(b) => b.append_null(),
            ColumnBuilder::Boolean(b) => b.append_null(),
            ColumnBuilder::Utf8(b, _) => b.append_null(),
            ColumnBuilder::Binary(b) => b.append_null(),
            ColumnBuilder::Date32(b) => b.append_null(),
            ColumnBuilder::Time64(b) => b.append_null(),
            ColumnBuilder::Timestamp(b, _) => b.append_null(),
            ColumnBuilder::Interval(b) => b.append_null(),
            ColumnBuilder::Decimal128(b, ..) => b.append_null(),
            ColumnBuilder::Decimal256(b, ..) => b.append_null(),
            ColumnBuilder::List { offsets, nulls, .. } => {
                let last = offsets.last().copied().unwrap_or(0);
                offsets.push(last);
                nulls.append_null();
            }
        }
    }

    /// Values appended since the last [`finish`](Self::finish).
    fn len(&self) -> usize {
        use arrow_array::builder::ArrayBuilder;
        match self {
            ColumnBuilder::Int16(b) => b.len(),
            ColumnBuilder::Int32(b) => b.len(),
            ColumnBuilder::Int64(b) => b.len(),
            ColumnBuilder::UInt32(b) => b.len(),
            ColumnBuilder::Float32(b) => b.len(),
            ColumnBuilder::Float64(b) => b.len(),
            ColumnBuilder::Boolean(b) => b.len(),
            ColumnBuilder::Utf8(b, _) => b.len(),
            ColumnBuilder::Binary(b) => b.len(),
            ColumnBuilder::Date32(b) => b.len(),
            ColumnBuilder::Time64(b) => b.len(),
            ColumnBuilder::Timestamp(b, _) => b.len(),
            ColumnBuilder::Interval(b) => b.len(),
            ColumnBuilder::Decimal128(b, ..) => b.len(),
            ColumnBuilder::Decimal256(b, ..) => b.len(),
            ColumnBuilder::List { offsets, .. } => offsets.len() - 1,
        }
    }

    /// The values appended so far as an array; the builder starts over empty.
    pub(super) fn finish(&mut self) -> Result<ArrayRef, String> {
        Ok(match self {
            ColumnBuilder::Int16(b) => Arc::new(b.finish()),
            ColumnBuilder::Int32(b) => Arc::new(b.finish()),
            ColumnBuilder::Int64(b) => Arc::new(b.finish()),
            ColumnBuilder::UInt32(b) => Arc::new(b.finish()),
            ColumnBuilder::Float32(b) => Arc::new(b.finish()),
            ColumnBuilder::Float64(b) => Arc::new(b.finish()),
            ColumnBuilder::Boolean(b) => Arc::new(b.finish()),
            ColumnBuilder::Utf8(b, _) => Arc::new(b.finish()),
            ColumnBuilder::Binary(b) => Arc::new(b.finish()),
            ColumnBuilder::Date32(b) => Arc::new(b.finish()),
            ColumnBuilder::Time64(b) => Arc::new(b.finish()),
            ColumnBuilder::Timestamp(b, tz) => Arc::new(b.finish().with_timezone_opt(tz.clone())),
            ColumnBuilder::Interval(b) => Arc::new(b.finish()),
            ColumnBuilder::Decimal128(b, ..) => Arc::new(b.finish()),
            ColumnBuilder::Decimal256(b, ..) => Arc::new(b.finish()),
            ColumnBuilder::List {
                field,
                offsets,
                nulls,
                child,
            } => {
                let offsets =
                    OffsetBuffer::new(ScalarBuffer::from(std::mem::replace(offsets, vec![0])));
                let list =
                    ListArray::try_new(Arc::clone(field), offsets, child.finish()?, nulls.finish())
                        .map_err(|e| format!("could not build a list: {e}"))?;
                Arc::new(list)
            }
        })
    }
}

/// Appends the elements of a binary array value (`ndim`, flags, element OID, one
/// `(length, lower bound)` per dimension, then `(length, bytes)` per element, −1 for NULL).
fn append_array(child: &mut ColumnBuilder, raw: &[u8]) -> Result<(), String> {
    let word = |at: usize| -> Result<i32, String> {
        raw.get(at..at + 4)
            .map(|b| i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or_else(|| "a malformed array value".to_owned())
    };
    let dimensions = word(0)?;
    match dimensions {
        0 => return Ok(()),
        1 => {}
        _ => {
            return Err(format!(
                "a {dimensions}-dimensional array (only one dimension maps to an Arrow list)"
            ));
        }
    }
    let count = usize::try_from(word(12)?).map_err(|_| "a malformed array value")?;
    let mut at = 20;
    for _ in 0..count {
        let length = word(at)?;
        at += 4;
        let value = if length < 0 {
            None
        } else {
            let length = usize::try_from(length).map_err(|_| "a malformed array value")?;
            let value = raw.get(at..at + length).ok_or("a malformed array value")?;
            at += length;
            Some(value)
        };
        child
            .append(value)
            .map_err(|e| format!("an array element: {e}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use arrow_array::Array;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int32Type, TimestampMicrosecondType};

    use super::*;

    fn array_wire(elements: &[Option<i32>]) -> Vec<u8> {
        let mut raw = Vec::new();
        for word in [1, 1, 23, elements.len() as i32, 1] {
            raw.extend_from_slice(&word.to_be_bytes());
        }
        for element in elements {
            match element {
                Some(v) => {
                    raw.extend_from_slice(&4_i32.to_be_bytes());
                    raw.extend_from_slice(&v.to_be_bytes());
                }
                None => raw.extend_from_slice(&(-1_i32).to_be_bytes()),
            }
        }
        raw
    }

    #[test]
    fn arrays_become_lists_with_nulls() {
        let mut b = ColumnBuilder::new(&PgType::List(Box::new(PgType::Int4)), 4);
        b.append(Some(&array_wire(&[Some(1), None, Some(3)])))
            .expect("array");
        b.append(None).expect("null");
        b.append(Some(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 23]))
            .expect("empty array");
        let array = b.finish().expect("finish");
        let list = array.as_list::<i32>();
        assert_eq!(list.len(), 3);
        assert!(list.is_null(1));
        assert_eq!(list.value(2).len(), 0);
        let first = list.value(0);
        let first = first.as_primitive::<Int32Type>();
        assert_eq!(first.value(0), 1);
        assert!(first.is_null(1));
        assert_eq!(first.value(2), 3);
    }

    #[test]
    fn timestamps_shift_to_the_unix_epoch_and_refuse_infinity() {
        let mut b = ColumnBuilder::new(&PgType::TimestampTz, 2);
        b.append(Some(&0_i64.to_be_bytes())).expect("epoch");
        assert!(b.append(Some(&i64::MAX.to_be_bytes())).is_err());
        let array = b.finish().expect("finish");
        let ts = array.as_primitive::<TimestampMicrosecondType>();
        assert_eq!(ts.len(), 1);
        assert_eq!(ts.value(0), EPOCH_MICROS);
        assert_eq!(ts.timezone(), Some("UTC"));
    }

    #[test]
    fn uuids_print_canonically() {
        let raw: Vec<u8> = (0..16).collect();
        assert_eq!(
            uuid_text(&raw).expect("uuid"),
            "00010203-0405-0607-0809-0a0b0c0d0e0f"
        );
        assert!(uuid_text(&raw[..15]).is_err());
    }
}
