//! Tables and columns: from Flight SQL's `CommandGetTables`, or, on servers that do not
//! implement it (Sail 0.7), from `SHOW TABLES` and the schema of `SELECT * … LIMIT 0`.
//!
//! The server is asked for every table (`GetTables` patterns are `LIKE` patterns, case-sensitive
//! on some servers, with `_` a wildcard), and [`TableFilter`] is applied here. Columns come
//! with `include_schema`: each table's Arrow schema, whose field metadata may carry the
//! engine's type name (`ARROW:FLIGHT:SQL:TYPE_NAME`) and a `comment`.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch};
use arrow_flight::sql::CommandGetTables;
use arrow_schema::{DataType, Schema};
use nao_core::guard::SqlDialect;
use nao_core::{
    ColumnInfo, DialectError, TableFilter, TableInfo, TableKind, TableRef, TableSchema, quote_table,
};

use super::connect::Connection;
use super::fetch;

/// The field metadata key where Flight SQL servers put the engine's type name.
const TYPE_NAME: &str = "ARROW:FLIGHT:SQL:TYPE_NAME";

/// The field metadata key of a column's comment (Sail, Spark).
const COMMENT: &str = "comment";

/// Where the adapter reads the catalogue and how it addresses tables.
pub(super) struct Catalog<'a> {
    pub(super) connection: &'a Connection,
    pub(super) database: &'a str,
    pub(super) dialect: SqlDialect,
}

/// One table of the listing.
struct Listed {
    schema: Option<String>,
    name: String,
    kind: TableKind,
    columns: Option<Schema>,
}

impl Catalog<'_> {
    /// The tables `filter` lets through, sorted by schema and name.
    pub(super) async fn list_tables(
        &self,
        filter: &TableFilter,
    ) -> Result<Vec<TableInfo>, DialectError> {
        let listed = self.tables(None, false).await?;
        let mut tables: Vec<TableInfo> = listed
            .into_iter()
            .filter(|t| !is_system_schema(t.schema.as_deref()))
            .filter(|t| filter.matches(t.schema.as_deref(), &t.name))
            .map(|t| TableInfo::new(t.schema, t.name, t.kind))
            .collect();
        tables.sort_by(|a, b| (&a.schema, &a.name).cmp(&(&b.schema, &b.name)));
        Ok(tables)
    }

    /// The columns of `table` (its schema compared case-insensitively; its name exactly
    /// first, then case-insensitively).
    pub(super) async fn describe_table(
        &self,
        table: &TableRef,
    ) -> Result<TableSchema, DialectError> {
        let listed = self.tables(Some(&table.name), true).await?;
        let in_schema = |t: &&Listed| match (&table.schema, &t.schema) {
            (None, _) => true,
            (Some(want), Some(have)) => want.eq_ignore_ascii_case(have),
            (Some(_), None) => false,
        };
        let found = listed
            .iter()
            .filter(in_schema)
            .find(|t| t.name == table.name)
            .or_else(|| {
                listed
                    .iter()
                    .filter(in_schema)
                    .find(|t| t.name.eq_ignore_ascii_case(&table.name))
            })
            .ok_or_else(|| DialectError::UnknownObject {
                database: self.database.to_owned(),
                message: format!("no table {table} (see list_tables)"),
                code: None,
            })?;
        let found_ref = TableRef {
            schema: found.schema.clone(),
            name: found.name.clone(),
        };
        let columns = match &found.columns {
            Some(columns) => columns.clone(),
            None => self.result_schema(&found_ref).await?,
        };
        let columns = columns.fields().iter().map(|f| column(f)).collect();
        Ok(TableSchema::new(found_ref, columns))
    }

    /// The tables (named like `name`, when given): `GetTables`, else `SHOW TABLES`.
    async fn tables(
        &self,
        name: Option<&str>,
        include_schema: bool,
    ) -> Result<Vec<Listed>, DialectError> {
        let command = CommandGetTables {
            catalog: None,
            db_schema_filter_pattern: None,
            table_name_filter_pattern: name.map(str::to_owned),
            table_types: Vec::new(),
            include_schema,
        };
        let mut listed = Vec::new();
        match fetch::command(self.connection, self.database, command).await {
            Ok((_, batches)) => {
                for batch in &batches {
                    self.read_get_tables(batch, &mut listed)?;
                }
            }
            Err(DialectError::Unsupported { .. }) => {
                let (_, batches) =
                    fetch::query(self.connection, self.database, "SHOW TABLES").await?;
                for batch in &batches {
                    self.read_show_tables(batch, &mut listed)?;
                }
            }
            Err(error) => return Err(error),
        }
        Ok(listed)
    }

    /// The schema of `SELECT * FROM table LIMIT 0`, for servers without `GetTables`.
    async fn result_schema(&self, table: &TableRef) -> Result<Schema, DialectError> {
        let sql = format!("SELECT * FROM {} LIMIT 0", self.table_sql(table));
        let (declared, batches) = fetch::query(self.connection, self.database, &sql).await?;
        let schema = declared
            .or_else(|| batches.first().map(RecordBatch::schema))
            .filter(|schema| !schema.fields().is_empty())
            .ok_or_else(|| DialectError::Unsupported {
                database: self.database.to_owned(),
                what: format!("the server describes no columns of {table}"),
            })?;
        Ok(schema.as_ref().clone())
    }

    /// `table` in SQL: as written when its parts are plain identifiers (which every engine
    /// reads the same, whatever the dialect it was opened with), else quoted in the dialect.
    fn table_sql(&self, table: &TableRef) -> String {
        let plain = |part: &str| {
            let mut chars = part.chars();
            chars
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        if table.schema.as_deref().is_none_or(plain) && plain(&table.name) {
            match &table.schema {
                Some(schema) => format!("{schema}.{}", table.name),
                None => table.name.clone(),
            }
        } else {
            quote_table(table, self.dialect)
        }
    }

    /// The rows of a `CommandGetTables` batch.
    fn read_get_tables(
        &self,
        batch: &RecordBatch,
        out: &mut Vec<Listed>,
    ) -> Result<(), DialectError> {
        let schemas = self.text(batch, &["db_schema_name"])?;
        let names = self
            .text(batch, &["table_name"])?
            .ok_or_else(|| self.malformed("no table_name column"))?;
        let kinds = self.text(batch, &["table_type"])?;
        let table_schemas = batch.column_by_name("table_schema");
        for row in 0..batch.num_rows() {
            let Some(name) = string_at(&names, row) else {
                continue;
            };
            let columns = match table_schemas {
                Some(column) if column.is_valid(row) => Some(self.schema_at(column.as_ref(), row)?),
                _ => None,
            };
            let kind = kinds.as_ref().and_then(|k| string_at(k, row));
            out.push(Listed {
                schema: schemas.as_ref().and_then(|s| string_at(s, row)),
                name,
                kind: kind.as_deref().map_or(TableKind::Other, table_kind),
                columns,
            });
        }
        Ok(())
    }

    /// The rows of a `SHOW TABLES` batch: Spark's (`namespace` or `database`, `tableName`,
    /// `isTemporary`) or DataFusion's (`table_schema`, `table_name`, `table_type`).
    fn read_show_tables(
        &self,
        batch: &RecordBatch,
        out: &mut Vec<Listed>,
    ) -> Result<(), DialectError> {
        let schemas = self.text(batch, &["namespace", "database", "table_schema"])?;
        let names = self
            .text(batch, &["tableName", "table_name"])?
            .ok_or_else(|| self.malformed("SHOW TABLES has no table name column"))?;
        let kinds = self.text(batch, &["table_type"])?;
        let temporary = batch
            .column_by_name("isTemporary")
            .and_then(|c| c.as_boolean_opt().cloned());
        for row in 0..batch.num_rows() {
            let Some(name) = string_at(&names, row) else {
                continue;
            };
            let kind = match (&kinds, &temporary) {
                (Some(kinds), _) => string_at(kinds, row)
                    .as_deref()
                    .map_or(TableKind::Other, table_kind),
                (None, Some(temporary)) if temporary.is_valid(row) && temporary.value(row) => {
                    TableKind::View
                }
                _ => TableKind::Table,
            };
            out.push(Listed {
                schema: schemas.as_ref().and_then(|s| string_at(s, row)),
                name,
                kind,
                columns: None,
            });
        }
        Ok(())
    }

    /// The first of `names` that is a column of `batch`, if it is text.
    fn text(
        &self,
        batch: &RecordBatch,
        names: &[&str],
    ) -> Result<Option<Arc<dyn Array>>, DialectError> {
        let Some((name, column)) = names
            .iter()
            .find_map(|name| batch.column_by_name(name).map(|c| (name, c)))
        else {
            return Ok(None);
        };
        match column.data_type() {
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => Ok(Some(column.clone())),
            other => Err(self.malformed(&format!("{name} is {other}, not text"))),
        }
    }

    /// The IPC-encoded schema at `row` of `table_schema`.
    fn schema_at(&self, column: &dyn Array, row: usize) -> Result<Schema, DialectError> {
        let bytes = match column.data_type() {
            DataType::Binary => column.as_binary::<i32>().value(row),
            DataType::LargeBinary => column.as_binary::<i64>().value(row),
            DataType::BinaryView => column.as_binary_view().value(row),
            other => return Err(self.malformed(&format!("table_schema is {other}, not binary"))),
        };
        arrow_ipc::convert::try_schema_from_ipc_buffer(bytes)
            .map_err(|e| self.malformed(&format!("a table's schema does not decode: {e}")))
    }

    fn malformed(&self, what: &str) -> DialectError {
        DialectError::Engine {
            database: self.database.to_owned(),
            message: format!("the server's table list is malformed: {what}"),
            code: None,
            source: None,
        }
    }
}

/// A column as the model sees it: the engine's type name when the server gives one, else the
/// Arrow type; its comment when the field carries one.
fn column(field: &arrow_schema::Field) -> ColumnInfo {
    let engine_type = field
        .metadata()
        .get(TYPE_NAME)
        .cloned()
        .unwrap_or_else(|| field.data_type().to_string());
    let mut info = ColumnInfo::new(field.name(), engine_type, field.is_nullable());
    info.comment = field
        .metadata()
        .get(COMMENT)
        .filter(|c| !c.is_empty())
        .cloned();
    info
}

/// The text at `row` of a string column (any of Arrow's three layouts), `None` when null.
fn string_at(column: &Arc<dyn Array>, row: usize) -> Option<String> {
    if column.is_null(row) {
        return None;
    }
    let value = match column.data_type() {
        DataType::Utf8 => column.as_string::<i32>().value(row),
        DataType::LargeUtf8 => column.as_string::<i64>().value(row),
        DataType::Utf8View => column.as_string_view().value(row),
        _ => return None,
    };
    Some(value.to_owned())
}

/// Whether tables in `schema` describe the engine rather than the data (left out of listings;
/// still described when asked for by name).
fn is_system_schema(schema: Option<&str>) -> bool {
    schema.is_some_and(|s| {
        s.eq_ignore_ascii_case("information_schema") || s.eq_ignore_ascii_case("pg_catalog")
    })
}

fn table_kind(table_type: &str) -> TableKind {
    match table_type.to_ascii_uppercase().as_str() {
        "TABLE" | "BASE TABLE" | "MANAGED" | "EXTERNAL" => TableKind::Table,
        "VIEW" | "TEMPORARY VIEW" | "TEMPORARY" => TableKind::View,
        "MATERIALIZED VIEW" => TableKind::MaterializedView,
        _ => TableKind::Other,
    }
}
