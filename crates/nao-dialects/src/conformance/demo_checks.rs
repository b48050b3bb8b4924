//! The checks on the demo shop: every value of every table reads back exactly, and the
//! catalogue gives the comments.

use std::collections::HashMap;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Decimal128Type, Decimal256Type, Float64Type, Int8Type, Int16Type,
    Int32Type, Int64Type, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, TimeUnit};
use nao_core::{Dialect, DialectExt, ExecOptions, TableFilter, TableRef, quote_table};

use super::check::Pass;
use super::core_checks::checked;
use super::{Check, DecimalForm, Profile};
use crate::demo::{DemoScale, DemoTable};

type Found = Result<Pass, String>;

pub(super) async fn run(
    check: Check,
    dialect: &dyn Dialect,
    profile: &Profile,
    scale: DemoScale,
) -> Found {
    let tables = crate::demo::generate(scale)
        .map_err(|e| format!("generating the demo shop failed (a bug in nao-dialects): {e}"))?;
    match check {
        Check::DemoShopRoundTrips => {
            for table in &tables {
                round_trips(dialect, profile, table).await?;
            }
            Ok(Pass::Plain)
        }
        Check::DemoShopIsDescribed => is_described(dialect, profile, &tables).await,
        other => Err(format!("{} is not a check of the demo shop", other.name())),
    }
}

/// `SELECT *` of one table gives its columns in types that hold them, and every row exactly.
async fn round_trips(
    dialect: &dyn Dialect,
    profile: &Profile,
    table: &DemoTable,
) -> Result<(), String> {
    let name = table.name;
    let expected_rows = table.row_count();
    let sql = format!(
        "SELECT * FROM {}",
        quote_table(&TableRef::parse(name), dialect.sql_dialect())
    );
    let sql = checked(dialect, &sql)?;
    let options = ExecOptions::default()
        .with_max_rows(expected_rows as u64)
        .with_max_bytes(usize::MAX);
    let result = dialect
        .query(&sql, &options)
        .await
        .map_err(|e| format!("reading {name} failed: {e}"))?;
    if result.row_count != expected_rows as u64 || result.truncation.is_some() {
        return Err(format!(
            "{name} holds {expected_rows} rows, the adapter returned {} ({:?})",
            result.row_count, result.truncation
        ));
    }
    let Some(first) = table.batches.first() else {
        return Ok(());
    };
    let expected_schema = first.schema();
    let names: Vec<&str> = result
        .schema
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    let expected_names: Vec<&str> = expected_schema
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    if names != expected_names {
        return Err(format!(
            "{name}: SELECT * must give the columns {expected_names:?} in order, got {names:?}"
        ));
    }
    for (want, got) in expected_schema.fields().iter().zip(result.schema.fields()) {
        if !holds_exactly(want.data_type(), got.data_type(), profile) {
            let declared = match want.data_type() {
                DataType::Decimal128(..) => format!(
                    " (the profile declares decimals as {:?})",
                    profile.decimal_form()
                ),
                _ => String::new(),
            };
            return Err(format!(
                "{name}.{}: a column of {} came back as {}, which does not hold its values \
                 exactly{declared}",
                want.name(),
                want.data_type(),
                got.data_type()
            ));
        }
    }
    let expected = rows_by_key(&table.batches, name)?;
    let actual = rows_by_key(&result.batches, name)?;
    for (key, want) in &expected {
        let Some(got) = actual.get(key) else {
            return Err(format!("{name}: the row keyed {key:?} is missing"));
        };
        for ((column, w), g) in expected_names.iter().zip(want).zip(got) {
            let w = w
                .as_deref()
                .map(|w| expected_text(w, profile, column, &expected_schema));
            if w.as_deref() != g.as_deref() {
                return Err(format!(
                    "{name}.{column} of the row keyed {key:?}: expected {w:?}, read back {g:?}"
                ));
            }
        }
    }
    Ok(())
}

/// The expected text of a value, in the form the profile declares for decimals.
fn expected_text(
    text: &str,
    profile: &Profile,
    column: &str,
    schema: &arrow_schema::SchemaRef,
) -> String {
    let is_decimal = schema
        .field_with_name(column)
        .is_ok_and(|f| matches!(f.data_type(), DataType::Decimal128(..)));
    if is_decimal
        && profile.decimal_form() == DecimalForm::Float
        && let Ok(value) = text.parse::<f64>()
    {
        return value.to_string();
    }
    text.to_owned()
}

/// Whether a column read as `actual` holds every value of `expected` exactly.
fn holds_exactly(expected: &DataType, actual: &DataType, profile: &Profile) -> bool {
    use DataType as T;
    let integer = |t: &DataType| t.is_integer();
    match expected {
        T::Int32 | T::Int64 => integer(actual),
        T::Utf8 => matches!(actual, T::Utf8 | T::LargeUtf8 | T::Utf8View),
        T::Boolean => matches!(actual, T::Boolean),
        T::Date32 => matches!(actual, T::Date32 | T::Date64),
        T::Timestamp(_, None) => matches!(actual, T::Timestamp(_, None)),
        T::Decimal128(_, scale) => match profile.decimal_form() {
            DecimalForm::Float => matches!(actual, T::Float64),
            DecimalForm::ExactText => matches!(actual, T::Utf8 | T::LargeUtf8 | T::Utf8View),
            _ => match actual {
                T::Decimal128(_, s) | T::Decimal256(_, s) => s == scale,
                _ => false,
            },
        },
        other => other == actual,
    }
}

/// One row's values as text (`None` for NULL).
type Row = Vec<Option<String>>;

/// A row's first two values, which identify it.
type RowKey = (Option<String>, Option<String>);

/// Every row as text, keyed by its first two values (unique in every demo table).
fn rows_by_key(batches: &[RecordBatch], table: &str) -> Result<HashMap<RowKey, Row>, String> {
    let mut rows = HashMap::new();
    for batch in batches {
        for row in 0..batch.num_rows() {
            let values = batch
                .columns()
                .iter()
                .map(|column| cell_text(column.as_ref(), row))
                .collect::<Result<Row, String>>()
                .map_err(|e| format!("{table}: {e}"))?;
            let key = (values[0].clone(), values.get(1).cloned().flatten());
            if rows.insert(key.clone(), values).is_some() {
                return Err(format!("{table}: the row keyed {key:?} came back twice"));
            }
        }
    }
    Ok(rows)
}

/// One value as text in a form that is the same whatever exact type holds it: integers in
/// decimal, decimals at their scale, dates as days and timestamps as microseconds since the
/// epoch, text as it is. `None` for NULL.
fn cell_text(column: &dyn Array, row: usize) -> Result<Option<String>, String> {
    if column.is_null(row) {
        return Ok(None);
    }
    let text = match column.data_type() {
        DataType::Int8 => column.as_primitive::<Int8Type>().value(row).to_string(),
        DataType::Int16 => column.as_primitive::<Int16Type>().value(row).to_string(),
        DataType::Int32 => column.as_primitive::<Int32Type>().value(row).to_string(),
        DataType::Int64 => column.as_primitive::<Int64Type>().value(row).to_string(),
        DataType::UInt8 => column.as_primitive::<UInt8Type>().value(row).to_string(),
        DataType::UInt16 => column.as_primitive::<UInt16Type>().value(row).to_string(),
        DataType::UInt32 => column.as_primitive::<UInt32Type>().value(row).to_string(),
        DataType::UInt64 => column.as_primitive::<UInt64Type>().value(row).to_string(),
        DataType::Float64 => column.as_primitive::<Float64Type>().value(row).to_string(),
        DataType::Utf8 => column.as_string::<i32>().value(row).to_owned(),
        DataType::LargeUtf8 => column.as_string::<i64>().value(row).to_owned(),
        DataType::Utf8View => column.as_string_view().value(row).to_owned(),
        DataType::Boolean => column.as_boolean().value(row).to_string(),
        DataType::Decimal128(..) => column.as_primitive::<Decimal128Type>().value_as_string(row),
        DataType::Decimal256(..) => column.as_primitive::<Decimal256Type>().value_as_string(row),
        DataType::Date32 => column.as_primitive::<Date32Type>().value(row).to_string(),
        DataType::Date64 => {
            let millis = column.as_primitive::<Date64Type>().value(row);
            (millis.div_euclid(86_400_000)).to_string()
        }
        DataType::Timestamp(unit, _) => {
            let micros = match unit {
                TimeUnit::Second => {
                    i128::from(column.as_primitive::<TimestampSecondType>().value(row)) * 1_000_000
                }
                TimeUnit::Millisecond => {
                    i128::from(column.as_primitive::<TimestampMillisecondType>().value(row)) * 1_000
                }
                TimeUnit::Microsecond => {
                    i128::from(column.as_primitive::<TimestampMicrosecondType>().value(row))
                }
                TimeUnit::Nanosecond => {
                    let nanos = column.as_primitive::<TimestampNanosecondType>().value(row);
                    if nanos % 1_000 != 0 {
                        return Ok(Some(format!("{nanos} ns (not a whole microsecond)")));
                    }
                    i128::from(nanos / 1_000)
                }
            };
            format!("{micros} µs")
        }
        other => return Err(format!("no check reads a column of {other}")),
    };
    Ok(Some(text))
}

/// `list_tables` and `describe_table` give each table's comment and every column comment of
/// the demo shop, and no others; an engine declared without comments gives none at all.
async fn is_described(dialect: &dyn Dialect, profile: &Profile, expected: &[DemoTable]) -> Found {
    let with_comments = profile.reports_comments();
    let listed = dialect
        .list_tables(&TableFilter::default())
        .await
        .map_err(|e| format!("list_tables failed: {e}"))?;
    for table in expected {
        let Some(info) = listed.iter().find(|t| t.name == table.name) else {
            return Err(format!("the demo table {} is not listed", table.name));
        };
        let want = with_comments.then_some(table.comment);
        if info.comment.as_deref() != want {
            return Err(format!(
                "list_tables gives {} the comment {:?}, expected {want:?}",
                table.name, info.comment
            ));
        }
        let schema = dialect
            .describe_table(&info.table_ref())
            .await
            .map_err(|e| format!("describe_table({}) failed: {e}", table.name))?;
        if schema.comment.as_deref() != want {
            return Err(format!(
                "describe_table gives {} the comment {:?}, expected {want:?}",
                table.name, schema.comment
            ));
        }
        let expected_columns: Vec<String> = table
            .batches
            .first()
            .map(|b| {
                b.schema()
                    .fields()
                    .iter()
                    .map(|f| f.name().clone())
                    .collect()
            })
            .unwrap_or_default();
        let columns: Vec<&String> = schema.columns.iter().map(|c| &c.name).collect();
        if columns
            .iter()
            .map(|c| c.as_str())
            .ne(expected_columns.iter().map(String::as_str))
        {
            return Err(format!(
                "describe_table({}) must give the columns {expected_columns:?}, got {columns:?}",
                table.name
            ));
        }
        for column in &schema.columns {
            let wanted = table
                .column_comments
                .iter()
                .find(|(c, _)| *c == column.name)
                .map(|(_, comment)| *comment)
                .filter(|_| with_comments);
            if column.comment.as_deref() != wanted {
                return Err(format!(
                    "describe_table gives {}.{} the comment {:?}, expected {wanted:?}",
                    table.name, column.name, column.comment
                ));
            }
        }
    }
    if with_comments {
        Ok(Pass::Plain)
    } else {
        Ok(Pass::Fallback(
            "the catalogue holds no comments; the adapter invents none".into(),
        ))
    }
}
