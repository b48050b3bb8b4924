//! Tables and columns from `AdbcConnectionGetObjects`: the nested listing of catalogs, schemas,
//! tables and columns, read here into [`TableInfo`]s and [`TableSchema`]s.
//!
//! The listing is asked for the connection's current catalog (when the driver names one) and
//! for the table's name when describing one (a `LIKE` pattern, so the exact name is picked
//! here); [`TableFilter`] is applied here, case-insensitively. Columns carry the driver's
//! `xdbc_type_name`, `xdbc_nullable` and `remarks` (the column comment: PostgreSQL's driver
//! fills it from `pg_description`) where it gives them; a column without a type name gets its
//! Arrow type from `AdbcConnectionGetTableSchema`; PostgreSQL's driver gives no nullability,
//! which the standard `information_schema.columns` then gives. ADBC has no table comments.
//! A driver or server without `GetObjects` (Sail behind the Flight SQL driver) is read through
//! SQL instead (`sql_catalog`).

use adbc_core::Optionable as _;
use adbc_core::error::{Error, Status};
use adbc_core::options::{ObjectDepth, OptionConnection};
use adbc_core::{Connection as _, Statement as _};
use adbc_driver_manager::ManagedConnection;
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch, StructArray};
use arrow_schema::DataType;
use nao_core::guard::SqlDialect;
use nao_core::{ColumnInfo, TableFilter, TableInfo, TableKind, TableRef, TableSchema};

use super::search_path::SearchPath;
use super::sql_catalog;

/// Schemas of the engines' own catalogues, never listed.
const SYSTEM_SCHEMAS: [&str; 4] = ["information_schema", "pg_catalog", "pg_toast", "sys"];

/// One table of a listing.
pub(super) struct Listed {
    pub(super) schema: Option<String>,
    pub(super) name: String,
    pub(super) kind: TableKind,
    pub(super) columns: Vec<Column>,
}

/// One column of a listing; what the driver left out is `None`.
#[derive(Clone)]
pub(super) struct Column {
    info: ColumnInfo,
    type_known: bool,
    nullable_known: bool,
}

/// The tables `filter` lets through, sorted by schema and name (blocking).
pub(super) fn list_tables(
    connection: &mut ManagedConnection,
    filter: &TableFilter,
    dialect: SqlDialect,
) -> Result<Vec<TableInfo>, Error> {
    let listed = match objects(connection, ObjectDepth::Tables, None) {
        Err(error) if falls_back(&error) => {
            sql_catalog::show_tables(connection).map_err(|_| error)?
        }
        other => other?,
    };
    let path = search_path(connection, dialect);
    let mut tables: Vec<TableInfo> = listed
        .into_iter()
        .filter(|t| path.as_ref().is_none_or(|p| p.usable(t.schema.as_deref())))
        .filter(|t| {
            t.schema.as_deref().is_none_or(|s| {
                !SYSTEM_SCHEMAS.iter().any(|sys| s.eq_ignore_ascii_case(sys))
                    && !s.starts_with("pg_temp")
            })
        })
        .filter(|t| filter.matches(t.schema.as_deref(), &t.name))
        .map(|t| TableInfo::new(t.schema, t.name, t.kind))
        .collect();
    tables.sort_by(|a, b| (&a.schema, &a.name).cmp(&(&b.schema, &b.name)));
    Ok(tables)
}

/// The columns of `table` (schema compared case-insensitively; the name exactly first, then
/// case-insensitively), or `None` when there is no such table (blocking).
pub(super) fn describe_table(
    connection: &mut ManagedConnection,
    table: &TableRef,
    dialect: SqlDialect,
) -> Result<Option<TableSchema>, Error> {
    let mut listed = match objects(connection, ObjectDepth::All, Some(&table.name)) {
        Err(error) if falls_back(&error) => {
            let mut listed = sql_catalog::show_tables(connection).map_err(|_| error)?;
            listed.retain(|t| t.name.eq_ignore_ascii_case(&table.name));
            for found in &mut listed {
                let found_ref = TableRef {
                    schema: found.schema.clone(),
                    name: found.name.clone(),
                };
                found.columns = sql_catalog::result_columns(connection, &found_ref, dialect)?
                    .into_iter()
                    .map(|info| Column {
                        info,
                        type_known: true,
                        nullable_known: true,
                    })
                    .collect();
            }
            listed
        }
        other => other?,
    };
    if let Some(path) = search_path(connection, dialect) {
        listed.retain(|t| path.usable(t.schema.as_deref()));
        if table.schema.is_none() {
            // Where the login's queries would find the unqualified name, first place first.
            listed.retain(|t| path.position(t.schema.as_deref()).is_some());
            listed.sort_by_key(|t| path.position(t.schema.as_deref()));
        }
    }
    let in_schema = |t: &&Listed| match (&table.schema, &t.schema) {
        (None, _) => true,
        (Some(want), Some(have)) => want.eq_ignore_ascii_case(have),
        (Some(_), None) => false,
    };
    let Some(found) = listed
        .iter()
        .filter(in_schema)
        .find(|t| t.name == table.name)
        .or_else(|| {
            listed
                .iter()
                .filter(in_schema)
                .find(|t| t.name.eq_ignore_ascii_case(&table.name))
        })
    else {
        return Ok(None);
    };
    let found_ref = TableRef {
        schema: found.schema.clone(),
        name: found.name.clone(),
    };
    let mut columns = found.columns.clone();
    if columns.iter().any(|c| !c.nullable_known) {
        // The driver left nullability out (PostgreSQL's does, in the listing and in the
        // table's Arrow schema): the standard information_schema says it, where there is one.
        if let Some(nullable) = standard_nullability(connection, found) {
            for column in &mut columns {
                if let Some(&is_nullable) = nullable
                    .iter()
                    .find(|(n, _)| *n == column.info.name)
                    .map(|(_, v)| v)
                {
                    column.info.nullable = is_nullable;
                    column.nullable_known = true;
                }
            }
        }
    }
    if columns.iter().any(|c| !c.type_known || !c.nullable_known) {
        // What is still missing, the table's Arrow schema says.
        let schema = connection.get_table_schema(None, found.schema.as_deref(), &found.name)?;
        for column in &mut columns {
            let Ok(field) = schema.field_with_name(&column.info.name) else {
                continue;
            };
            if !column.type_known {
                column.info.engine_type = engine_type(field);
            }
            if !column.nullable_known {
                column.info.nullable = field.is_nullable();
            }
        }
    }
    let columns = columns.into_iter().map(|c| c.info).collect();
    Ok(Some(TableSchema::new(found_ref, columns)))
}

/// Whether a failed `GetObjects` is worth reading through SQL instead: the server does not
/// implement it (Sail) or answers it malformed (roapi's `GetDbSchemas` schema); not when the
/// connection or the credentials failed.
fn falls_back(error: &Error) -> bool {
    !matches!(
        error.status,
        Status::IO
            | Status::Unauthenticated
            | Status::Unauthorized
            | Status::Cancelled
            | Status::Timeout
    )
}

/// The login's search path where the engine has one to read (PostgreSQL).
fn search_path(connection: &mut ManagedConnection, dialect: SqlDialect) -> Option<SearchPath> {
    (dialect == SqlDialect::Postgres)
        .then(|| SearchPath::read(connection))
        .flatten()
}

/// `(column, nullable)` of `table` from `information_schema.columns` (SQL standard: PostgreSQL,
/// Snowflake, MySQL, DuckDB, …), or `None` where the engine has no such view or refuses.
fn standard_nullability(
    connection: &mut ManagedConnection,
    table: &Listed,
) -> Option<Vec<(String, bool)>> {
    let literal = |text: &str| format!("'{}'", text.replace('\'', "''"));
    let mut sql = format!(
        "SELECT column_name, is_nullable FROM information_schema.columns WHERE table_name = {}",
        literal(&table.name)
    );
    if let Some(schema) = &table.schema {
        sql.push_str(&format!(" AND table_schema = {}", literal(schema)));
    }
    let mut statement = connection.new_statement().ok()?;
    statement.set_sql_query(&sql).ok()?;
    let reader = statement.execute().ok()?;
    let mut found = Vec::new();
    for batch in reader {
        let batch = batch.ok()?;
        for row in 0..batch.num_rows() {
            let name = text(Some(batch.column(0)), row)?;
            let nullable = text(Some(batch.column(1)), row)?;
            found.push((name, !nullable.eq_ignore_ascii_case("no")));
        }
    }
    (!found.is_empty()).then_some(found)
}

/// The driver's listing at `depth`, in the current catalog, of tables named like `name`.
fn objects(
    connection: &ManagedConnection,
    depth: ObjectDepth,
    name: Option<&str>,
) -> Result<Vec<Listed>, Error> {
    let catalog = connection
        .get_option_string(OptionConnection::CurrentCatalog)
        .ok();
    let reader = connection.get_objects(depth, catalog.as_deref(), None, name, None, None)?;
    let mut listed = Vec::new();
    for batch in reader {
        read_catalogs(&batch?, &mut listed);
    }
    Ok(listed)
}

fn read_catalogs(batch: &RecordBatch, out: &mut Vec<Listed>) {
    let Some(schemas) = batch
        .column_by_name("catalog_db_schemas")
        .and_then(|c| c.as_list_opt::<i32>())
    else {
        return;
    };
    for row in 0..batch.num_rows() {
        if schemas.is_null(row) {
            continue;
        }
        let schemas = schemas.value(row);
        let Some(schemas) = schemas.as_struct_opt() else {
            continue;
        };
        for s in 0..schemas.len() {
            let schema =
                text(schemas.column_by_name("db_schema_name"), s).filter(|n| !n.is_empty());
            let Some(tables) = list_at(schemas.column_by_name("db_schema_tables"), s) else {
                continue;
            };
            let Some(tables) = tables.as_struct_opt() else {
                continue;
            };
            for t in 0..tables.len() {
                let Some(name) = text(tables.column_by_name("table_name"), t) else {
                    continue;
                };
                let kind = text(tables.column_by_name("table_type"), t)
                    .as_deref()
                    .map_or(TableKind::Other, table_kind);
                let columns = list_at(tables.column_by_name("table_columns"), t)
                    .and_then(|c| c.as_struct_opt().map(read_columns))
                    .unwrap_or_default();
                out.push(Listed {
                    schema: schema.clone(),
                    name,
                    kind,
                    columns,
                });
            }
        }
    }
}

fn read_columns(columns: &StructArray) -> Vec<Column> {
    let mut read: Vec<(i64, Column)> = Vec::new();
    for c in 0..columns.len() {
        let Some(name) = text(columns.column_by_name("column_name"), c) else {
            continue;
        };
        let engine_type =
            text(columns.column_by_name("xdbc_type_name"), c).filter(|t| !t.is_empty());
        // xdbc_nullable: 0 no NULLs, 1 NULLs, 2 unknown; else xdbc_is_nullable "NO"/"YES".
        let nullable = match integer(columns.column_by_name("xdbc_nullable"), c) {
            Some(0) => Some(false),
            Some(1) => Some(true),
            _ => text(columns.column_by_name("xdbc_is_nullable"), c)
                .filter(|t| !t.is_empty())
                .map(|t| !t.eq_ignore_ascii_case("no")),
        };
        let position = integer(columns.column_by_name("ordinal_position"), c).unwrap_or(i64::MAX);
        let comment = text(columns.column_by_name("remarks"), c);
        let column = Column {
            type_known: engine_type.is_some(),
            nullable_known: nullable.is_some(),
            info: ColumnInfo::new(
                name,
                engine_type.unwrap_or_default(),
                nullable.unwrap_or(true),
            )
            .with_comment(comment),
        };
        read.push((position, column));
    }
    read.sort_by_key(|(position, _)| *position);
    read.into_iter().map(|(_, column)| column).collect()
}

/// A column's type from its Arrow field: the engine's type name when the driver puts it in
/// the field's metadata (PostgreSQL's `ADBC:postgresql:typname`), else the Arrow type.
fn engine_type(field: &arrow_schema::Field) -> String {
    field
        .metadata()
        .iter()
        .find(|(key, _)| key.ends_with(":typname") || key.ends_with("TYPE_NAME"))
        .map_or_else(|| field.data_type().to_string(), |(_, name)| name.clone())
}

/// The list value at `row` of a list column.
fn list_at(column: Option<&ArrayRef>, row: usize) -> Option<ArrayRef> {
    let list = column?.as_list_opt::<i32>()?;
    (!list.is_null(row)).then(|| list.value(row))
}

/// The text at `row` of a string column of any string type.
pub(super) fn text(column: Option<&ArrayRef>, row: usize) -> Option<String> {
    let column = column?;
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

/// The integer at `row` of an int16/int32/int64 column.
pub(super) fn integer(column: Option<&ArrayRef>, row: usize) -> Option<i64> {
    use arrow_array::types::{Int16Type, Int32Type, Int64Type};
    let column = column?;
    if column.is_null(row) {
        return None;
    }
    match column.data_type() {
        DataType::Int16 => Some(i64::from(column.as_primitive::<Int16Type>().value(row))),
        DataType::Int32 => Some(i64::from(column.as_primitive::<Int32Type>().value(row))),
        DataType::Int64 => Some(column.as_primitive::<Int64Type>().value(row)),
        _ => None,
    }
}

pub(super) fn table_kind(kind: &str) -> TableKind {
    let kind = kind.to_ascii_lowercase();
    if kind.contains("materialized") {
        TableKind::MaterializedView
    } else if kind.contains("view") {
        TableKind::View
    } else if kind.contains("table") && !kind.contains("system") && !kind.contains("foreign") {
        TableKind::Table
    } else {
        TableKind::Other
    }
}
