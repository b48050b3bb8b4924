//! The Arrow type of each result column, read from the column's type, flags and character set
//! in the result-set metadata (see the table in the [module docs](super)).

use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use mysql_async::Column;
use mysql_async::consts::{ColumnFlags, ColumnType};

/// The character set number MySQL uses for binary strings (`BINARY`, `VARBINARY`, `BLOB`, …).
const BINARY_CHARSET: u16 = 63;

/// Arrow's largest decimal precision (Decimal256).
const MAX_DECIMAL256_PRECISION: u8 = 76;
/// Arrow's largest Decimal128 precision.
const MAX_DECIMAL128_PRECISION: u8 = 38;

/// How the values of one column are converted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Int8,
    Int16,
    Int32,
    Int64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Float32,
    Float64,
    /// DECIMAL(p, s) with p ≤ 38.
    Decimal128(u8, i8),
    /// DECIMAL(p, s) with p > 38 (MySQL allows 65).
    Decimal256(u8, i8),
    /// DATE.
    Date,
    /// DATETIME (`utc == false`) or TIMESTAMP (`utc == true`).
    Timestamp {
        utc: bool,
    },
    /// TIME: a signed duration that may exceed 24 hours.
    Time,
    /// YEAR.
    Year,
    /// BIT(n), n ≤ 64.
    Bit,
    /// Text in the connection's character set (utf8mb4).
    Utf8,
    /// Bytes.
    Binary,
}

impl Kind {
    /// The Arrow type of the column.
    pub(super) fn data_type(self) -> DataType {
        match self {
            Kind::Int8 => DataType::Int8,
            Kind::Int16 | Kind::Year => DataType::Int16,
            Kind::Int32 => DataType::Int32,
            Kind::Int64 => DataType::Int64,
            Kind::UInt8 => DataType::UInt8,
            Kind::UInt16 => DataType::UInt16,
            Kind::UInt32 => DataType::UInt32,
            Kind::UInt64 | Kind::Bit => DataType::UInt64,
            Kind::Float32 => DataType::Float32,
            Kind::Float64 => DataType::Float64,
            Kind::Decimal128(p, s) => DataType::Decimal128(p, s),
            Kind::Decimal256(p, s) => DataType::Decimal256(p, s),
            Kind::Date => DataType::Date32,
            Kind::Timestamp { utc: false } => DataType::Timestamp(TimeUnit::Microsecond, None),
            Kind::Timestamp { utc: true } => {
                DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
            }
            Kind::Time => DataType::Duration(TimeUnit::Microsecond),
            Kind::Utf8 => DataType::Utf8,
            Kind::Binary => DataType::Binary,
        }
    }
}

/// The conversion kind of a column.
pub(super) fn kind_of(column: &Column) -> Kind {
    use ColumnType::*;
    let flags = column.flags();
    let unsigned = flags.contains(ColumnFlags::UNSIGNED_FLAG);
    let binary = column.character_set() == BINARY_CHARSET;
    match column.column_type() {
        MYSQL_TYPE_TINY if unsigned => Kind::UInt8,
        MYSQL_TYPE_TINY => Kind::Int8,
        MYSQL_TYPE_SHORT if unsigned => Kind::UInt16,
        MYSQL_TYPE_SHORT => Kind::Int16,
        MYSQL_TYPE_INT24 | MYSQL_TYPE_LONG if unsigned => Kind::UInt32,
        MYSQL_TYPE_INT24 | MYSQL_TYPE_LONG => Kind::Int32,
        MYSQL_TYPE_LONGLONG if unsigned => Kind::UInt64,
        MYSQL_TYPE_LONGLONG => Kind::Int64,
        MYSQL_TYPE_FLOAT => Kind::Float32,
        MYSQL_TYPE_DOUBLE => Kind::Float64,
        MYSQL_TYPE_DECIMAL | MYSQL_TYPE_NEWDECIMAL => decimal_kind(column, unsigned),
        MYSQL_TYPE_DATE | MYSQL_TYPE_NEWDATE => Kind::Date,
        MYSQL_TYPE_DATETIME | MYSQL_TYPE_DATETIME2 => Kind::Timestamp { utc: false },
        MYSQL_TYPE_TIMESTAMP | MYSQL_TYPE_TIMESTAMP2 => Kind::Timestamp { utc: true },
        MYSQL_TYPE_TIME | MYSQL_TYPE_TIME2 => Kind::Time,
        MYSQL_TYPE_YEAR => Kind::Year,
        MYSQL_TYPE_BIT if column.column_length() <= 64 => Kind::Bit,
        MYSQL_TYPE_BIT => Kind::Binary,
        // MySQL sends JSON with the binary character set, but its text is always utf8mb4.
        MYSQL_TYPE_JSON => Kind::Utf8,
        MYSQL_TYPE_GEOMETRY | MYSQL_TYPE_VECTOR => Kind::Binary,
        MYSQL_TYPE_NULL => Kind::Utf8,
        MYSQL_TYPE_VARCHAR
        | MYSQL_TYPE_VAR_STRING
        | MYSQL_TYPE_STRING
        | MYSQL_TYPE_ENUM
        | MYSQL_TYPE_SET
        | MYSQL_TYPE_TINY_BLOB
        | MYSQL_TYPE_MEDIUM_BLOB
        | MYSQL_TYPE_LONG_BLOB
        | MYSQL_TYPE_BLOB
            if binary =>
        {
            Kind::Binary
        }
        _ => Kind::Utf8,
    }
}

/// DECIMAL(p, s): the precision is the display length less the sign and the decimal point.
fn decimal_kind(column: &Column, unsigned: bool) -> Kind {
    let scale = column.decimals().min(MAX_DECIMAL256_PRECISION);
    let length = column.column_length();
    let overhead = u32::from(scale > 0) + u32::from(!unsigned);
    let precision = length.saturating_sub(overhead).clamp(1, 255);
    let precision = u8::try_from(precision)
        .unwrap_or(MAX_DECIMAL256_PRECISION)
        .max(scale)
        .clamp(1, MAX_DECIMAL256_PRECISION);
    let scale = i8::try_from(scale).unwrap_or(i8::MAX);
    if precision <= MAX_DECIMAL128_PRECISION {
        Kind::Decimal128(precision, scale)
    } else {
        Kind::Decimal256(precision, scale)
    }
}

/// The name of a result column (its alias when it has one).
pub(super) fn column_name(column: &Column) -> String {
    column.name_str().into_owned()
}

/// The Arrow schema of a result, and each column's conversion kind. Every field is nullable:
/// zero dates read as NULL even in NOT NULL columns.
pub(super) fn plan(columns: &[Column]) -> (SchemaRef, Vec<Kind>) {
    let kinds: Vec<Kind> = columns.iter().map(kind_of).collect();
    let fields: Vec<Field> = columns
        .iter()
        .zip(&kinds)
        .map(|(column, kind)| Field::new(column_name(column), kind.data_type(), true))
        .collect();
    (Arc::new(Schema::new(fields)), kinds)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(
        t: ColumnType,
        flags: ColumnFlags,
        length: u32,
        decimals: u8,
        charset: u16,
    ) -> Column {
        Column::new(t)
            .with_flags(flags)
            .with_column_length(length)
            .with_decimals(decimals)
            .with_character_set(charset)
    }

    #[test]
    fn integers_follow_the_unsigned_flag() {
        let signed = column(ColumnType::MYSQL_TYPE_TINY, ColumnFlags::empty(), 4, 0, 63);
        let unsigned = column(
            ColumnType::MYSQL_TYPE_LONGLONG,
            ColumnFlags::UNSIGNED_FLAG,
            20,
            0,
            63,
        );
        assert_eq!(kind_of(&signed), Kind::Int8);
        assert_eq!(kind_of(&unsigned), Kind::UInt64);
    }

    #[test]
    fn decimal_precision_comes_from_the_display_length() {
        let d = |length, decimals, flags| {
            kind_of(&column(
                ColumnType::MYSQL_TYPE_NEWDECIMAL,
                flags,
                length,
                decimals,
                63,
            ))
        };
        assert_eq!(d(14, 2, ColumnFlags::empty()), Kind::Decimal128(12, 2));
        assert_eq!(
            d(12, 2, ColumnFlags::UNSIGNED_FLAG),
            Kind::Decimal128(11, 2)
        );
        assert_eq!(d(11, 0, ColumnFlags::empty()), Kind::Decimal128(10, 0));
        assert_eq!(d(40, 10, ColumnFlags::empty()), Kind::Decimal128(38, 10));
        assert_eq!(d(67, 30, ColumnFlags::empty()), Kind::Decimal256(65, 30));
    }

    #[test]
    fn strings_are_text_unless_binary() {
        let text = column(
            ColumnType::MYSQL_TYPE_VAR_STRING,
            ColumnFlags::empty(),
            40,
            0,
            45,
        );
        let bytes = column(
            ColumnType::MYSQL_TYPE_BLOB,
            ColumnFlags::BLOB_FLAG,
            65535,
            0,
            63,
        );
        let json = column(
            ColumnType::MYSQL_TYPE_JSON,
            ColumnFlags::BLOB_FLAG,
            0,
            0,
            63,
        );
        assert_eq!(kind_of(&text), Kind::Utf8);
        assert_eq!(kind_of(&bytes), Kind::Binary);
        assert_eq!(kind_of(&json), Kind::Utf8);
    }
}
