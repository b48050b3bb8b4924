//! Writing Arrow batches into a writable SQLite connection: `CREATE TABLE` from the schema with
//! declared types the adapter reads back as the same Arrow types, then one transaction of
//! inserts through a prepared statement. Used by tests, demos and
//! [`SqliteDialect::from_batches`](super::SqliteDialect::from_batches).
//!
//! | Arrow | declared | stored as |
//! |---|---|---|
//! | Int8/16/32/64, UInt8/16/32 | `INTEGER` | INTEGER |
//! | UInt64 | `INTEGER` | INTEGER (values above `i64::MAX` fail) |
//! | Float32/64 | `REAL` | REAL (NaN becomes NULL: SQLite has no NaN) |
//! | Utf8, LargeUtf8, Utf8View | `TEXT` | TEXT |
//! | Binary, LargeBinary, BinaryView, FixedSizeBinary | `BLOB` | BLOB |
//! | Decimal128(p,s) | `DECIMAL(p,s)` | the exact decimal text; SQLite's NUMERIC affinity keeps it as INTEGER or REAL when that is exact within 15 significant digits, else rounds to REAL |
//! | Date32 | `DATE` | `YYYY-MM-DD` |
//! | Timestamp(any unit, any zone) | `TIMESTAMP` | `YYYY-MM-DD HH:MM:SS[.ffffff]` (UTC when zoned; below µs truncated) |
//! | Boolean | `BOOLEAN` | 0 / 1 |

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, Schema, TimeUnit};
use rusqlite::Connection;
use rusqlite::types::Value;

use super::{comments, decimal, temporal};
use crate::demo::DemoTable;

/// A failure to load, as a rusqlite error (the loader's error type).
fn load_error(message: String) -> rusqlite::Error {
    rusqlite::Error::ToSqlConversionFailure(message.into())
}

/// Quotes an identifier for SQLite, doubling embedded quotes.
pub(crate) fn quote_identifier(name: &str) -> String {
    nao_core::guard::SqlDialect::Sqlite.quote_identifier(name)
}

/// The declared type that reads back as `data_type`, or `None` for types the loader does not
/// write.
fn declared_type(data_type: &DataType) -> Option<String> {
    Some(match data_type {
        DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32
        | DataType::UInt64 => "INTEGER".into(),
        DataType::Float32 | DataType::Float64 => "REAL".into(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => "TEXT".into(),
        DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView
        | DataType::FixedSizeBinary(_) => "BLOB".into(),
        DataType::Decimal128(p, s) if *s >= 0 => format!("DECIMAL({p},{s})"),
        DataType::Date32 => "DATE".into(),
        DataType::Timestamp(..) => "TIMESTAMP".into(),
        DataType::Boolean => "BOOLEAN".into(),
        _ => return None,
    })
}

/// Creates `table` with one column per field of `schema` (`NOT NULL` where the field is not
/// nullable).
pub fn create_table(conn: &Connection, table: &str, schema: &Schema) -> rusqlite::Result<()> {
    create_commented_table(conn, table, schema, None, &[])
}

/// [`create_table`], with a table comment and column comments (by column name) written into
/// the `CREATE TABLE` text, where the adapter's catalogue reads them (see
/// [`describe_table`](nao_core::Dialect::describe_table)).
fn create_commented_table(
    conn: &Connection,
    table: &str,
    schema: &Schema,
    table_comment: Option<&str>,
    column_comments: &[(&str, &str)],
) -> rusqlite::Result<()> {
    let mut columns = Vec::with_capacity(schema.fields().len());
    for field in schema.fields() {
        let declared = declared_type(field.data_type()).ok_or_else(|| {
            load_error(format!(
                "column {:?} has Arrow type {}, which the SQLite loader does not write",
                field.name(),
                field.data_type()
            ))
        })?;
        let not_null = if field.is_nullable() { "" } else { " NOT NULL" };
        let definition = format!("{} {declared}{not_null}", quote_identifier(field.name()));
        columns.push((field.name().as_str(), definition));
    }
    let sql = comments::create_table_sql(
        &quote_identifier(table),
        &columns,
        table_comment,
        column_comments,
    );
    conn.execute(&sql, []).map(|_| ())
}

/// Creates `table` from the first batch's schema and inserts every row of `batches` in one
/// transaction. All batches must share that schema; an empty slice has no schema and fails.
pub fn load_batches(
    conn: &Connection,
    table: &str,
    batches: &[RecordBatch],
) -> rusqlite::Result<()> {
    load(conn, table, batches, None, &[])
}

/// Loads a demo table ([`crate::demo`]) with its table and column comments.
pub(crate) fn load_demo_table(conn: &Connection, table: &DemoTable) -> rusqlite::Result<()> {
    load(
        conn,
        table.name,
        &table.batches,
        Some(table.comment),
        table.column_comments,
    )
}

fn load(
    conn: &Connection,
    table: &str,
    batches: &[RecordBatch],
    table_comment: Option<&str>,
    column_comments: &[(&str, &str)],
) -> rusqlite::Result<()> {
    let Some(first) = batches.first() else {
        return Err(load_error(format!(
            "no batches for table {table:?}: its columns are unknown"
        )));
    };
    let schema = first.schema();
    let transaction = conn.unchecked_transaction()?;
    create_commented_table(&transaction, table, &schema, table_comment, column_comments)?;
    let names: Vec<String> = schema
        .fields()
        .iter()
        .map(|f| quote_identifier(f.name()))
        .collect();
    let slots: Vec<String> = (1..=names.len()).map(|i| format!("?{i}")).collect();
    let sql = format!(
        "INSERT INTO {} ({}) VALUES ({})",
        quote_identifier(table),
        names.join(", "),
        slots.join(", ")
    );
    {
        let mut insert = transaction.prepare(&sql)?;
        let mut row = Vec::with_capacity(names.len());
        for batch in batches {
            if batch.schema().fields() != schema.fields() {
                return Err(load_error(format!(
                    "the batches for {table:?} differ in schema"
                )));
            }
            for index in 0..batch.num_rows() {
                row.clear();
                for column in batch.columns() {
                    row.push(cell(column.as_ref(), index)?);
                }
                insert.execute(rusqlite::params_from_iter(row.iter()))?;
            }
        }
    }
    transaction.commit()
}

/// One Arrow cell as the SQLite value that reads back to it.
fn cell(array: &dyn Array, index: usize) -> rusqlite::Result<Value> {
    if array.is_null(index) {
        return Ok(Value::Null);
    }
    let int = |v: i64| Ok(Value::Integer(v));
    match array.data_type() {
        DataType::Int8 => int(array.as_primitive::<Int8Type>().value(index).into()),
        DataType::Int16 => int(array.as_primitive::<Int16Type>().value(index).into()),
        DataType::Int32 => int(array.as_primitive::<Int32Type>().value(index).into()),
        DataType::Int64 => int(array.as_primitive::<Int64Type>().value(index)),
        DataType::UInt8 => int(array.as_primitive::<UInt8Type>().value(index).into()),
        DataType::UInt16 => int(array.as_primitive::<UInt16Type>().value(index).into()),
        DataType::UInt32 => int(array.as_primitive::<UInt32Type>().value(index).into()),
        DataType::UInt64 => {
            let v = array.as_primitive::<UInt64Type>().value(index);
            i64::try_from(v)
                .map(Value::Integer)
                .map_err(|_| load_error(format!("{v} does not fit SQLite's 64-bit INTEGER")))
        }
        DataType::Float32 => Ok(Value::Real(
            array.as_primitive::<Float32Type>().value(index).into(),
        )),
        DataType::Float64 => Ok(Value::Real(
            array.as_primitive::<Float64Type>().value(index),
        )),
        DataType::Utf8 => Ok(Value::Text(
            array.as_string::<i32>().value(index).to_owned(),
        )),
        DataType::LargeUtf8 => Ok(Value::Text(
            array.as_string::<i64>().value(index).to_owned(),
        )),
        DataType::Utf8View => Ok(Value::Text(array.as_string_view().value(index).to_owned())),
        DataType::Binary => Ok(Value::Blob(array.as_binary::<i32>().value(index).to_vec())),
        DataType::LargeBinary => Ok(Value::Blob(array.as_binary::<i64>().value(index).to_vec())),
        DataType::BinaryView => Ok(Value::Blob(array.as_binary_view().value(index).to_vec())),
        DataType::FixedSizeBinary(_) => Ok(Value::Blob(
            array.as_fixed_size_binary().value(index).to_vec(),
        )),
        DataType::Decimal128(_, scale) => {
            let v = array.as_primitive::<Decimal128Type>().value(index);
            Ok(Value::Text(decimal::to_text(v, *scale)))
        }
        DataType::Date32 => {
            let days = array.as_primitive::<Date32Type>().value(index);
            Ok(Value::Text(temporal::date_text(days)))
        }
        DataType::Timestamp(unit, _) => {
            let micros = match unit {
                TimeUnit::Second => array
                    .as_primitive::<TimestampSecondType>()
                    .value(index)
                    .checked_mul(1_000_000),
                TimeUnit::Millisecond => array
                    .as_primitive::<TimestampMillisecondType>()
                    .value(index)
                    .checked_mul(1_000),
                TimeUnit::Microsecond => Some(
                    array
                        .as_primitive::<TimestampMicrosecondType>()
                        .value(index),
                ),
                TimeUnit::Nanosecond => Some(
                    array
                        .as_primitive::<TimestampNanosecondType>()
                        .value(index)
                        .div_euclid(1_000),
                ),
            };
            let micros = micros.ok_or_else(|| load_error("timestamp out of range".into()))?;
            Ok(Value::Text(temporal::timestamp_text(micros)))
        }
        DataType::Boolean => int(i64::from(array.as_boolean().value(index))),
        other => Err(load_error(format!(
            "the SQLite loader does not write Arrow type {other}"
        ))),
    }
}
