//! Writing Arrow record batches into a table of a writable DuckDB connection: how a host fills
//! an in-memory database (see [`DuckDbDialect::from_batches`](super::DuckDbDialect::from_batches))
//! and how tests build fixtures.
//!
//! The table is created from the batches' schema, then filled row by row through DuckDB's
//! appender. Flat types are supported: booleans, signed and unsigned integers, floats, strings,
//! binary, dates, times, timestamps (with or without time zone) and decimals up to 38 digits.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type,
    Int32Type, Int64Type, Time32MillisecondType, Time32SecondType, Time64MicrosecondType,
    Time64NanosecondType, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, Schema, TimeUnit};
use duckdb::types::{Decimal, TimeUnit as DuckTimeUnit, Value};
use duckdb::{Connection, appender_params_from_iter};

use crate::demo::DemoTable;

/// Creates table `table` (in the default schema) with the columns of `batches` and appends
/// their rows. At least one batch is needed for the columns; an empty batch creates an empty
/// table.
///
/// # Errors
/// DuckDB's error when the table cannot be created or a row cannot be appended, or a
/// conversion error for a column type this function does not support.
pub fn load_batches(
    connection: &Connection,
    table: &str,
    batches: &[RecordBatch],
) -> duckdb::Result<()> {
    let Some(first) = batches.first() else {
        return Err(unsupported(format!(
            "load_batches({table:?}) needs at least one batch, possibly empty, for the columns"
        )));
    };
    connection.execute_batch(&create_table_sql(table, &first.schema())?)?;
    let mut appender = connection.appender(table)?;
    for batch in batches {
        for row in 0..batch.num_rows() {
            let values = batch
                .columns()
                .iter()
                .map(|column| value_at(column.as_ref(), row))
                .collect::<duckdb::Result<Vec<Value>>>()?;
            appender.append_row(appender_params_from_iter(values))?;
        }
    }
    appender.flush()
}

/// Loads a demo table ([`crate::demo`]) and sets its table and column comments
/// (`COMMENT ON`), which the catalogue reports.
pub(crate) fn load_demo_table(connection: &Connection, table: &DemoTable) -> duckdb::Result<()> {
    load_batches(connection, table.name, &table.batches)?;
    let mut sql = format!(
        "COMMENT ON TABLE {} IS {};",
        quote(table.name),
        string_literal(table.comment)
    );
    for (column, comment) in table.column_comments {
        sql.push_str(&format!(
            "COMMENT ON COLUMN {}.{} IS {};",
            quote(table.name),
            quote(column),
            string_literal(comment)
        ));
    }
    connection.execute_batch(&sql)
}

/// A SQL string literal.
fn string_literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// `CREATE TABLE "table" ("column" TYPE, …)` for an Arrow schema.
fn create_table_sql(table: &str, schema: &Schema) -> duckdb::Result<String> {
    let columns = schema
        .fields()
        .iter()
        .map(|field| {
            let not_null = if field.is_nullable() { "" } else { " NOT NULL" };
            Ok(format!(
                "{} {}{not_null}",
                quote(field.name()),
                duckdb_type(field.data_type())?
            ))
        })
        .collect::<duckdb::Result<Vec<_>>>()?;
    Ok(format!(
        "CREATE TABLE {} ({})",
        quote(table),
        columns.join(", ")
    ))
}

fn quote(identifier: &str) -> String {
    format!("\"{}\"", identifier.replace('"', "\"\""))
}

/// The DuckDB column type for an Arrow type.
fn duckdb_type(data_type: &DataType) -> duckdb::Result<String> {
    Ok(match data_type {
        DataType::Boolean => "BOOLEAN".into(),
        DataType::Int8 => "TINYINT".into(),
        DataType::Int16 => "SMALLINT".into(),
        DataType::Int32 => "INTEGER".into(),
        DataType::Int64 => "BIGINT".into(),
        DataType::UInt8 => "UTINYINT".into(),
        DataType::UInt16 => "USMALLINT".into(),
        DataType::UInt32 => "UINTEGER".into(),
        DataType::UInt64 => "UBIGINT".into(),
        DataType::Float32 => "FLOAT".into(),
        DataType::Float64 => "DOUBLE".into(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => "VARCHAR".into(),
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => "BLOB".into(),
        DataType::Date32 | DataType::Date64 => "DATE".into(),
        DataType::Time32(_) | DataType::Time64(_) => "TIME".into(),
        DataType::Timestamp(_, Some(_)) => "TIMESTAMPTZ".into(),
        DataType::Timestamp(TimeUnit::Second, None) => "TIMESTAMP_S".into(),
        DataType::Timestamp(TimeUnit::Millisecond, None) => "TIMESTAMP_MS".into(),
        DataType::Timestamp(TimeUnit::Microsecond, None) => "TIMESTAMP".into(),
        DataType::Timestamp(TimeUnit::Nanosecond, None) => "TIMESTAMP_NS".into(),
        DataType::Decimal128(precision, scale) if *precision <= 38 && *scale >= 0 => {
            format!("DECIMAL({precision}, {scale})")
        }
        other => {
            return Err(unsupported(format!(
                "load_batches: unsupported Arrow type {other}"
            )));
        }
    })
}

/// The value at `row` of `array`, as the appender takes it.
fn value_at(array: &dyn Array, row: usize) -> duckdb::Result<Value> {
    if array.is_null(row) {
        return Ok(Value::Null);
    }
    Ok(match array.data_type() {
        DataType::Boolean => Value::Boolean(array.as_boolean().value(row)),
        DataType::Int8 => Value::TinyInt(array.as_primitive::<Int8Type>().value(row)),
        DataType::Int16 => Value::SmallInt(array.as_primitive::<Int16Type>().value(row)),
        DataType::Int32 => Value::Int(array.as_primitive::<Int32Type>().value(row)),
        DataType::Int64 => Value::BigInt(array.as_primitive::<Int64Type>().value(row)),
        DataType::UInt8 => Value::UTinyInt(array.as_primitive::<UInt8Type>().value(row)),
        DataType::UInt16 => Value::USmallInt(array.as_primitive::<UInt16Type>().value(row)),
        DataType::UInt32 => Value::UInt(array.as_primitive::<UInt32Type>().value(row)),
        DataType::UInt64 => Value::UBigInt(array.as_primitive::<UInt64Type>().value(row)),
        DataType::Float32 => Value::Float(array.as_primitive::<Float32Type>().value(row)),
        DataType::Float64 => Value::Double(array.as_primitive::<Float64Type>().value(row)),
        DataType::Utf8 => Value::Text(array.as_string::<i32>().value(row).to_owned()),
        DataType::LargeUtf8 => Value::Text(array.as_string::<i64>().value(row).to_owned()),
        DataType::Utf8View => Value::Text(array.as_string_view().value(row).to_owned()),
        DataType::Binary => Value::Blob(array.as_binary::<i32>().value(row).to_vec()),
        DataType::LargeBinary => Value::Blob(array.as_binary::<i64>().value(row).to_vec()),
        DataType::BinaryView => Value::Blob(array.as_binary_view().value(row).to_vec()),
        DataType::Date32 => Value::Date32(array.as_primitive::<Date32Type>().value(row)),
        DataType::Date64 => {
            let millis = array.as_primitive::<Date64Type>().value(row);
            let days = millis.div_euclid(86_400_000);
            Value::Date32(i32::try_from(days).map_err(|e| unsupported(e.to_string()))?)
        }
        DataType::Time32(TimeUnit::Second) => {
            let seconds = array.as_primitive::<Time32SecondType>().value(row);
            Value::Time64(DuckTimeUnit::Microsecond, i64::from(seconds) * 1_000_000)
        }
        DataType::Time32(_) => {
            let millis = array.as_primitive::<Time32MillisecondType>().value(row);
            Value::Time64(DuckTimeUnit::Microsecond, i64::from(millis) * 1_000)
        }
        DataType::Time64(TimeUnit::Nanosecond) => Value::Time64(
            DuckTimeUnit::Nanosecond,
            array.as_primitive::<Time64NanosecondType>().value(row),
        ),
        DataType::Time64(_) => Value::Time64(
            DuckTimeUnit::Microsecond,
            array.as_primitive::<Time64MicrosecondType>().value(row),
        ),
        DataType::Timestamp(unit, _) => match unit {
            TimeUnit::Second => Value::Timestamp(
                DuckTimeUnit::Second,
                array.as_primitive::<TimestampSecondType>().value(row),
            ),
            TimeUnit::Millisecond => Value::Timestamp(
                DuckTimeUnit::Millisecond,
                array.as_primitive::<TimestampMillisecondType>().value(row),
            ),
            TimeUnit::Microsecond => Value::Timestamp(
                DuckTimeUnit::Microsecond,
                array.as_primitive::<TimestampMicrosecondType>().value(row),
            ),
            TimeUnit::Nanosecond => Value::Timestamp(
                DuckTimeUnit::Nanosecond,
                array.as_primitive::<TimestampNanosecondType>().value(row),
            ),
        },
        DataType::Decimal128(precision, scale) => {
            let raw = array.as_primitive::<Decimal128Type>().value(row);
            let scale = u8::try_from(*scale).map_err(|e| unsupported(e.to_string()))?;
            let decimal =
                Decimal::new(*precision, scale, raw).map_err(|e| unsupported(e.to_string()))?;
            Value::Decimal(decimal)
        }
        other => {
            return Err(unsupported(format!(
                "load_batches: unsupported Arrow type {other}"
            )));
        }
    })
}

fn unsupported(message: String) -> duckdb::Error {
    duckdb::Error::ToSqlConversionFailure(message.into())
}
