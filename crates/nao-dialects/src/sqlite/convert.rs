//! SQLite values into Arrow arrays, column by column, under the column's declared type.
//!
//! A declared column has its Arrow type before the first row. A column without one (an
//! expression, or a type name with no faithful Arrow type) keeps its first batch's values and
//! takes the type they fit: all INTEGER → Int64, INTEGER/REAL → Float64, any TEXT → Utf8, only
//! BLOB → Binary, all NULL → Utf8. Later values convert only when nothing is lost (an INTEGER
//! into Float64 when exactly representable, any value into Utf8 as its text); anything else is
//! an error that names the column and tells the model to CAST it.

use std::sync::Arc;

use arrow_array::ArrayRef;
use arrow_array::builder::{
    BinaryBuilder, BooleanBuilder, Date32Builder, Decimal128Builder, Float64Builder, Int64Builder,
    StringBuilder, TimestampMicrosecondBuilder,
};
use arrow_schema::DataType;
use rusqlite::types::{Value, ValueRef};

use super::decimal::{self, DecimalError};
use super::temporal;
use super::types::Declared;

/// Why a value does not fit its column: the part of the message after the column's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Misfit {
    /// What the value is and what the column needs.
    pub(crate) problem: String,
    /// A suggestion for the query (`CAST(x AS TEXT)`).
    pub(crate) advice: String,
}

/// One column of the batch being built.
#[derive(Debug)]
pub(crate) enum ColumnBuilder {
    /// Values of a column whose type waits for the first batch.
    Pending(Vec<Value>),
    /// Int64.
    Int64(Int64Builder),
    /// Float64.
    Float64(Float64Builder),
    /// Utf8.
    Utf8(StringBuilder),
    /// Binary.
    Binary(BinaryBuilder),
    /// Decimal128(p, s).
    Decimal(Decimal128Builder, u8, i8),
    /// Boolean.
    Boolean(BooleanBuilder),
    /// Date32.
    Date(Date32Builder),
    /// Timestamp(Microsecond, None).
    Timestamp(TimestampMicrosecondBuilder),
}

/// The storage class of a value, for messages.
fn class(value: ValueRef<'_>) -> &'static str {
    match value {
        ValueRef::Null => "NULL",
        ValueRef::Integer(_) => "INTEGER",
        ValueRef::Real(_) => "REAL",
        ValueRef::Text(_) => "TEXT",
        ValueRef::Blob(_) => "BLOB",
    }
}

/// A short, printable rendering of a value for messages.
fn preview(value: ValueRef<'_>) -> String {
    let text = match value {
        ValueRef::Null => return "NULL".into(),
        ValueRef::Integer(i) => return i.to_string(),
        ValueRef::Real(r) => return real_text(r),
        ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
        ValueRef::Blob(b) => return format!("a {}-byte BLOB", b.len()),
    };
    let short: String = text.chars().take(40).collect();
    let cut = if short.len() < text.len() { "…" } else { "" };
    format!("'{short}{cut}'")
}

/// A REAL as SQLite would print it: shortest round-trip digits, `.0` on whole numbers, an
/// exponent for very large or small magnitudes.
pub(crate) fn real_text(value: f64) -> String {
    if !value.is_finite() {
        return if value.is_nan() {
            "NaN".into()
        } else if value > 0.0 {
            "Inf".into()
        } else {
            "-Inf".into()
        };
    }
    let magnitude = value.abs();
    if magnitude != 0.0 && !(1e-5..1e16).contains(&magnitude) {
        return format!("{value:e}");
    }
    let text = value.to_string();
    if text.contains('.') {
        text
    } else {
        format!("{text}.0")
    }
}

/// An INTEGER as a Float64 when the float holds it exactly.
fn exact_float(value: i64) -> Option<f64> {
    let float = value as f64;
    // Compare in i128: `as i64` would saturate 2^63 back to i64::MAX.
    (float as i128 == i128::from(value)).then_some(float)
}

/// A value kept until its column's type is known. SQLite does not check that TEXT is UTF-8;
/// invalid bytes become U+FFFD, as they would in a Utf8 column.
fn owned(value: ValueRef<'_>) -> Value {
    match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Integer(i),
        ValueRef::Real(r) => Value::Real(r),
        ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => Value::Blob(b.to_vec()),
    }
}

/// A value as text, when that loses nothing: numbers print, text is text, a BLOB must be
/// UTF-8.
fn as_text(value: ValueRef<'_>) -> Option<String> {
    match value {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(i.to_string()),
        ValueRef::Real(r) => Some(real_text(r)),
        // SQLite does not check that TEXT is UTF-8; invalid bytes become U+FFFD.
        ValueRef::Text(t) => Some(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => std::str::from_utf8(b).ok().map(str::to_owned),
    }
}

impl ColumnBuilder {
    /// An empty builder for a column declared as `declared`, with room for `rows`.
    pub(crate) fn new(declared: Declared, rows: usize) -> Self {
        match declared {
            Declared::Dynamic => ColumnBuilder::Pending(Vec::with_capacity(rows)),
            Declared::Int64 => ColumnBuilder::Int64(Int64Builder::with_capacity(rows)),
            Declared::Float64 => ColumnBuilder::Float64(Float64Builder::with_capacity(rows)),
            Declared::Utf8 => ColumnBuilder::Utf8(StringBuilder::with_capacity(rows, rows * 8)),
            Declared::Binary => ColumnBuilder::Binary(BinaryBuilder::with_capacity(rows, rows)),
            Declared::Decimal(p, s) => ColumnBuilder::Decimal(
                Decimal128Builder::with_capacity(rows).with_data_type(DataType::Decimal128(p, s)),
                p,
                s,
            ),
            Declared::Boolean => ColumnBuilder::Boolean(BooleanBuilder::with_capacity(rows)),
            Declared::Date => ColumnBuilder::Date(Date32Builder::with_capacity(rows)),
            Declared::Timestamp => {
                ColumnBuilder::Timestamp(TimestampMicrosecondBuilder::with_capacity(rows))
            }
        }
    }

    /// Appends one value, or says why it does not fit.
    pub(crate) fn append(&mut self, value: ValueRef<'_>) -> Result<(), Misfit> {
        let misfit = |needs: &str, advice: &str| Misfit {
            problem: format!(
                "holds the {} value {}, which is not {needs}",
                class(value),
                preview(value)
            ),
            advice: advice.to_owned(),
        };
        const CAST_TEXT: &str = "CAST({col} AS TEXT)";
        match self {
            ColumnBuilder::Pending(values) => values.push(owned(value)),
            ColumnBuilder::Int64(b) => match value {
                ValueRef::Null => b.append_null(),
                ValueRef::Integer(i) => b.append_value(i),
                _ => return Err(misfit("an integer", CAST_TEXT)),
            },
            ColumnBuilder::Float64(b) => match value {
                ValueRef::Null => b.append_null(),
                ValueRef::Real(r) => b.append_value(r),
                ValueRef::Integer(i) => match exact_float(i) {
                    Some(f) => b.append_value(f),
                    None => return Err(misfit("exactly representable as REAL", CAST_TEXT)),
                },
                _ => return Err(misfit("a number", CAST_TEXT)),
            },
            ColumnBuilder::Utf8(b) => match value {
                ValueRef::Null => b.append_null(),
                _ => match as_text(value) {
                    Some(text) => b.append_value(text),
                    None => return Err(misfit("UTF-8 text", "hex({col})")),
                },
            },
            ColumnBuilder::Binary(b) => match value {
                ValueRef::Null => b.append_null(),
                ValueRef::Blob(bytes) | ValueRef::Text(bytes) => b.append_value(bytes),
                _ => return Err(misfit("a BLOB", CAST_TEXT)),
            },
            ColumnBuilder::Decimal(b, p, s) => {
                let parsed = match value {
                    ValueRef::Null => {
                        b.append_null();
                        return Ok(());
                    }
                    ValueRef::Integer(i) => decimal::from_i64(i, *p, *s),
                    ValueRef::Real(r) => decimal::from_f64(r, *p, *s),
                    ValueRef::Text(t) => std::str::from_utf8(t)
                        .map_err(|_| DecimalError::NotANumber)
                        .and_then(|t| decimal::parse(t, *p, *s)),
                    ValueRef::Blob(_) => Err(DecimalError::NotANumber),
                };
                match parsed {
                    Ok(v) => b.append_value(v),
                    Err(DecimalError::Overflow) => {
                        return Err(misfit(
                            &format!("within DECIMAL({p},{s})"),
                            "CAST({col} AS REAL)",
                        ));
                    }
                    Err(DecimalError::NotANumber) => {
                        return Err(misfit("a decimal number", CAST_TEXT));
                    }
                }
            }
            ColumnBuilder::Boolean(b) => match value {
                ValueRef::Null => b.append_null(),
                ValueRef::Integer(0) => b.append_value(false),
                ValueRef::Integer(1) => b.append_value(true),
                ValueRef::Text(t) if t.eq_ignore_ascii_case(b"true") => b.append_value(true),
                ValueRef::Text(t) if t.eq_ignore_ascii_case(b"false") => b.append_value(false),
                _ => return Err(misfit("a boolean (0, 1, 'true', 'false')", CAST_TEXT)),
            },
            ColumnBuilder::Date(b) => match value {
                ValueRef::Null => b.append_null(),
                ValueRef::Text(t) => {
                    match std::str::from_utf8(t).ok().and_then(temporal::parse_date) {
                        Some(days) => b.append_value(days),
                        None => {
                            return Err(misfit(
                                "a YYYY-MM-DD date",
                                "date({col}) or CAST({col} AS TEXT)",
                            ));
                        }
                    }
                }
                _ => {
                    return Err(misfit(
                        "a YYYY-MM-DD date",
                        "date({col}) or CAST({col} AS TEXT)",
                    ));
                }
            },
            ColumnBuilder::Timestamp(b) => match value {
                ValueRef::Null => b.append_null(),
                ValueRef::Text(t) => {
                    match std::str::from_utf8(t)
                        .ok()
                        .and_then(temporal::parse_timestamp)
                    {
                        Some(micros) => b.append_value(micros),
                        None => {
                            return Err(misfit(
                                "a YYYY-MM-DD HH:MM:SS timestamp",
                                "datetime({col}) or CAST({col} AS TEXT)",
                            ));
                        }
                    }
                }
                _ => {
                    return Err(misfit(
                        "a YYYY-MM-DD HH:MM:SS timestamp",
                        "datetime({col}, 'unixepoch') or CAST({col} AS TEXT)",
                    ));
                }
            },
        }
        Ok(())
    }

    /// Gives a pending column the type its values fit and moves them into that builder;
    /// typed columns are left as they are.
    pub(crate) fn resolve(&mut self) -> Result<(), (usize, Misfit)> {
        let ColumnBuilder::Pending(values) = self else {
            return Ok(());
        };
        let values = std::mem::take(values);
        let mut builder = ColumnBuilder::new(dynamic_type(&values), values.len());
        for (row, value) in values.iter().enumerate() {
            builder
                .append(ValueRef::from(value))
                .map_err(|m| (row, m))?;
        }
        *self = builder;
        Ok(())
    }

    /// The Arrow type, once resolved.
    pub(crate) fn data_type(&self) -> DataType {
        match self {
            // Resolved before any schema is made; Utf8 is what an all-NULL column becomes.
            ColumnBuilder::Pending(_) | ColumnBuilder::Utf8(_) => DataType::Utf8,
            ColumnBuilder::Int64(_) => DataType::Int64,
            ColumnBuilder::Float64(_) => DataType::Float64,
            ColumnBuilder::Binary(_) => DataType::Binary,
            ColumnBuilder::Decimal(_, p, s) => DataType::Decimal128(*p, *s),
            ColumnBuilder::Boolean(_) => DataType::Boolean,
            ColumnBuilder::Date(_) => DataType::Date32,
            ColumnBuilder::Timestamp(_) => {
                DataType::Timestamp(arrow_schema::TimeUnit::Microsecond, None)
            }
        }
    }

    /// The built array; the builder is left empty.
    pub(crate) fn finish(&mut self) -> ArrayRef {
        match self {
            ColumnBuilder::Pending(values) => {
                // An unresolved column only exists if resolve was skipped: treat it as text.
                let mut b = StringBuilder::new();
                for v in values.drain(..) {
                    b.append_option(as_text(ValueRef::from(&v)));
                }
                Arc::new(b.finish())
            }
            ColumnBuilder::Int64(b) => Arc::new(b.finish()),
            ColumnBuilder::Float64(b) => Arc::new(b.finish()),
            ColumnBuilder::Utf8(b) => Arc::new(b.finish()),
            ColumnBuilder::Binary(b) => Arc::new(b.finish()),
            ColumnBuilder::Decimal(b, _, _) => Arc::new(b.finish()),
            ColumnBuilder::Boolean(b) => Arc::new(b.finish()),
            ColumnBuilder::Date(b) => Arc::new(b.finish()),
            ColumnBuilder::Timestamp(b) => Arc::new(b.finish()),
        }
    }
}

/// The type a column without a declared type takes from its first batch.
fn dynamic_type(values: &[Value]) -> Declared {
    let (mut ints, mut reals, mut texts, mut blobs, mut inexact) = (0, 0, 0, 0, false);
    for value in values {
        match value {
            Value::Null => {}
            Value::Integer(i) => {
                ints += 1;
                inexact |= exact_float(*i).is_none();
            }
            Value::Real(_) => reals += 1,
            Value::Text(_) => texts += 1,
            Value::Blob(_) => blobs += 1,
        }
    }
    match (ints, reals, texts, blobs) {
        (_, 0, 0, 0) if ints > 0 => Declared::Int64,
        // An integer a REAL cannot hold makes the column text rather than lose it.
        (_, _, 0, 0) if reals > 0 && !inexact => Declared::Float64,
        (0, 0, 0, _) if blobs > 0 => Declared::Binary,
        _ => Declared::Utf8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Array, Float64Array, Int64Array, StringArray};

    fn resolved(values: &[ValueRef<'_>]) -> ColumnBuilder {
        let mut b = ColumnBuilder::new(Declared::Dynamic, values.len());
        for v in values {
            b.append(*v).expect("pending accepts anything");
        }
        b.resolve().expect("resolves");
        b
    }

    #[test]
    fn undeclared_columns_take_the_type_of_their_first_batch() {
        use ValueRef::*;
        let cases: [(&[ValueRef<'_>], DataType); 7] = [
            (&[Integer(1), Null], DataType::Int64),
            (&[Integer(1), Real(0.5)], DataType::Float64),
            (&[Integer(i64::MAX), Real(0.5)], DataType::Utf8),
            (&[Integer(1), Text(b"a")], DataType::Utf8),
            (&[Blob(b"\0"), Null], DataType::Binary),
            (&[Null, Null], DataType::Utf8),
            (&[], DataType::Utf8),
        ];
        for (values, want) in cases {
            assert_eq!(resolved(values).data_type(), want, "{values:?}");
        }
        let mut mixed = resolved(&[Integer(i64::MAX), Real(0.5)]);
        let array = mixed.finish();
        let text = array.as_any().downcast_ref::<StringArray>().expect("utf8");
        assert_eq!(text.value(0), "9223372036854775807");
        assert_eq!(text.value(1), "0.5");
    }

    #[test]
    fn later_values_convert_only_when_nothing_is_lost() {
        let mut floats = resolved(&[ValueRef::Real(0.5)]);
        floats
            .append(ValueRef::Integer(3))
            .expect("exact int into float");
        let err = floats
            .append(ValueRef::Integer(i64::MAX))
            .expect_err("inexact");
        assert!(err.problem.contains("9223372036854775807"), "{err:?}");
        let array = floats.finish();
        let floats = array.as_any().downcast_ref::<Float64Array>().expect("f64");
        assert_eq!(floats.value(1), 3.0);

        let mut ints = resolved(&[ValueRef::Integer(1)]);
        let err = ints.append(ValueRef::Real(1.5)).expect_err("real into int");
        assert!(err.problem.contains("REAL value 1.5"), "{err:?}");
        assert!(err.advice.contains("CAST"));
        ints.append(ValueRef::Null).expect("null");
        let array = ints.finish();
        let ints = array.as_any().downcast_ref::<Int64Array>().expect("i64");
        assert!(ints.is_null(1));
    }

    #[test]
    fn reals_print_like_sqlite() {
        assert_eq!(real_text(1.0), "1.0");
        assert_eq!(real_text(-0.25), "-0.25");
        assert_eq!(real_text(1e308), "1e308");
        assert_eq!(real_text(1.5e-7), "1.5e-7");
        assert_eq!(real_text(f64::INFINITY), "Inf");
    }
}
