//! The catalogue through SQL, for servers whose driver cannot list objects (Sail answers the
//! Flight SQL driver's `GetObjects` with Unimplemented): `SHOW TABLES` for the listing (Spark's
//! `namespace`/`tableName`/`isTemporary` or DataFusion's `table_schema`/`table_name`/
//! `table_type`), and the result schema of `SELECT * FROM t LIMIT 0` (or `LIMIT 1`) for a table's columns
//! (with the engine's type name and comment where the field metadata carries them).

use adbc_core::error::Error;
use adbc_core::{Connection as _, Statement as _};
use adbc_driver_manager::ManagedConnection;
use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use nao_core::guard::SqlDialect;
use nao_core::{ColumnInfo, TableKind, TableRef, quote_table};

use super::catalog::{Listed, table_kind};

/// Field metadata keys where servers put the engine's type name and a column's comment.
const TYPE_NAME: &str = "ARROW:FLIGHT:SQL:TYPE_NAME";
const COMMENT: &str = "comment";

/// The tables `SHOW TABLES` lists (blocking).
pub(super) fn show_tables(connection: &mut ManagedConnection) -> Result<Vec<Listed>, Error> {
    let mut statement = connection.new_statement()?;
    statement.set_sql_query("SHOW TABLES")?;
    let mut listed = Vec::new();
    for batch in statement.execute()? {
        read_show_tables(&batch?, &mut listed);
    }
    Ok(listed)
}

/// The columns of `table` from the schema of a query that reads no row (blocking).
pub(super) fn result_columns(
    connection: &mut ManagedConnection,
    table: &TableRef,
    dialect: SqlDialect,
) -> Result<Vec<ColumnInfo>, Error> {
    let table = quote_table(table, dialect);
    // A server that sends a result's schema only with its rows (roapi) describes no columns
    // for `LIMIT 0`: one row then says them (none, for an empty table).
    for limit in [0, 1] {
        let mut statement = connection.new_statement()?;
        statement.set_sql_query(format!("SELECT * FROM {table} LIMIT {limit}"))?;
        let reader = statement.execute()?;
        let schema: Schema = reader.schema().as_ref().clone();
        drop(reader);
        if !schema.fields().is_empty() {
            return Ok(schema.fields().iter().map(|f| column(f)).collect());
        }
    }
    Ok(Vec::new())
}

fn column(field: &Field) -> ColumnInfo {
    let engine_type = field
        .metadata()
        .get(TYPE_NAME)
        .cloned()
        .unwrap_or_else(|| field.data_type().to_string());
    ColumnInfo::new(field.name(), engine_type, field.is_nullable())
        .with_comment(field.metadata().get(COMMENT).cloned())
}

fn read_show_tables(batch: &RecordBatch, out: &mut Vec<Listed>) {
    let first = |names: &[&str]| names.iter().find_map(|n| batch.column_by_name(n));
    let Some(names) = first(&["tableName", "table_name"]) else {
        return;
    };
    let schemas = first(&["namespace", "database", "table_schema"]);
    let kinds = first(&["table_type"]);
    let temporary = batch
        .column_by_name("isTemporary")
        .and_then(|c| c.as_boolean_opt());
    for row in 0..batch.num_rows() {
        let Some(name) = text(names, row) else {
            continue;
        };
        let kind = match (kinds, temporary) {
            (Some(kinds), _) => text(kinds, row)
                .as_deref()
                .map_or(TableKind::Other, table_kind),
            (None, Some(t)) if t.is_valid(row) && t.value(row) => TableKind::View,
            _ => TableKind::Table,
        };
        out.push(Listed {
            schema: schemas.and_then(|s| text(s, row)).filter(|s| !s.is_empty()),
            name,
            kind,
            columns: Vec::new(),
        });
    }
}

fn text(column: &dyn Array, row: usize) -> Option<String> {
    if column.is_null(row) {
        return None;
    }
    match column.data_type() {
        DataType::Utf8 => Some(column.as_string::<i32>().value(row).to_owned()),
        DataType::LargeUtf8 => Some(column.as_string::<i64>().value(row).to_owned()),
        DataType::Utf8View => Some(column.as_string_view().value(row).to_owned()),
        _ => None,
    }
}
