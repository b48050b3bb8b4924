//! Tables and columns through Spark Connect's Catalog relations (`listTables`,
//! `listColumns`, what pyspark's `spark.catalog` calls), which carry types, nullability and
//! comments.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use futures_util::StreamExt;
use nao_core::{
    ColumnInfo, DialectError, ExecOptions, TableFilter, TableInfo, TableKind, TableRef, TableSchema,
};

use super::connect::Connection;
use super::proto::{Catalog as CatalogCall, ListColumns, ListTables, Relation, catalog, relation};
use super::stream;

/// The most rows of a catalogue answer read; a database with more tables than this lists the
/// first ones (the model narrows with a pattern).
const MAX_CATALOG_ROWS: u64 = 100_000;

/// Where the adapter reads the catalogue.
pub(super) struct Catalog<'a> {
    pub(super) connection: &'a Arc<Connection>,
    pub(super) database: &'a Arc<str>,
}

/// One table of `listTables`.
struct Listed {
    schema: Option<String>,
    name: String,
    kind: TableKind,
    comment: Option<String>,
}

impl Catalog<'_> {
    /// The tables of the filter's schema (the session's current database when it names
    /// none) that the filter lets through, sorted by schema and name.
    pub(super) async fn list_tables(
        &self,
        filter: &TableFilter,
    ) -> Result<Vec<TableInfo>, DialectError> {
        let listed = self.tables(filter.schema.clone()).await?;
        let mut tables: Vec<TableInfo> = listed
            .into_iter()
            .filter(|t| filter.matches(t.schema.as_deref(), &t.name))
            .map(|t| {
                let mut info = TableInfo::new(t.schema, t.name, t.kind);
                info.comment = t.comment;
                info
            })
            .collect();
        tables.sort_by(|a, b| (&a.schema, &a.name).cmp(&(&b.schema, &b.name)));
        Ok(tables)
    }

    /// The columns of `table`, with their Spark types, nullability and comments, and the
    /// table's comment.
    pub(super) async fn describe_table(
        &self,
        table: &TableRef,
    ) -> Result<TableSchema, DialectError> {
        let list_columns = ListColumns {
            table_name: match &table.schema {
                Some(_) => table.name.clone(),
                // Without a database, Spark parses the name as a (qualified) identifier.
                None => identifier(&table.name),
            },
            db_name: table.schema.clone(),
        };
        let (batches, tables) = tokio::try_join!(
            self.call(catalog::CatType::ListColumns(list_columns)),
            self.tables(table.schema.clone()),
        )?;
        let mut columns = Vec::new();
        for batch in &batches {
            let names = self.text(batch, "name")?;
            let types = self.text(batch, "dataType")?;
            let descriptions = self.text(batch, "description")?;
            let nullable = batch
                .column_by_name("nullable")
                .and_then(|c| c.as_boolean_opt().cloned());
            for row in 0..batch.num_rows() {
                let Some(name) = string_at(&names, row) else {
                    continue;
                };
                let engine_type = string_at(&types, row).unwrap_or_default();
                let nullable = nullable
                    .as_ref()
                    .is_none_or(|n| n.is_null(row) || n.value(row));
                let mut column = ColumnInfo::new(name, engine_type, nullable);
                column.comment = string_at(&descriptions, row).filter(|c| !c.is_empty());
                columns.push(column);
            }
        }
        let found = tables.iter().find(|t| t.name == table.name).or_else(|| {
            tables
                .iter()
                .find(|t| t.name.eq_ignore_ascii_case(&table.name))
        });
        let table_ref = TableRef {
            schema: table
                .schema
                .clone()
                .or_else(|| found.and_then(|t| t.schema.clone())),
            name: found.map_or_else(|| table.name.clone(), |t| t.name.clone()),
        };
        let comment = found.and_then(|t| t.comment.clone());
        Ok(TableSchema::new(table_ref, columns).with_comment(comment))
    }

    /// `listTables` of `schema` (the current database when `None`).
    async fn tables(&self, schema: Option<String>) -> Result<Vec<Listed>, DialectError> {
        let batches = self
            .call(catalog::CatType::ListTables(ListTables {
                db_name: schema,
                pattern: None,
            }))
            .await?;
        let mut listed = Vec::new();
        for batch in &batches {
            // Apache Spark calls the column `name`, Sail `tableName`.
            let names = match self.text(batch, "name")? {
                Some(names) => Some(names),
                None => self.text(batch, "tableName")?,
            };
            let descriptions = self.text(batch, "description")?;
            let kinds = self.text(batch, "tableType")?;
            let namespaces = batch.column_by_name("namespace");
            let temporary = batch
                .column_by_name("isTemporary")
                .and_then(|c| c.as_boolean_opt().cloned());
            for row in 0..batch.num_rows() {
                let Some(name) = string_at(&names, row) else {
                    continue;
                };
                let is_temporary = temporary
                    .as_ref()
                    .is_some_and(|t| t.is_valid(row) && t.value(row));
                let kind = match string_at(&kinds, row) {
                    Some(kind) => table_kind(&kind),
                    None if is_temporary => TableKind::View,
                    None => TableKind::Table,
                };
                listed.push(Listed {
                    schema: namespaces.and_then(|n| namespace_at(n.as_ref(), row)),
                    name,
                    kind,
                    comment: string_at(&descriptions, row).filter(|c| !c.is_empty()),
                });
            }
        }
        Ok(listed)
    }

    /// The batches of one catalogue call, read whole (within [`MAX_CATALOG_ROWS`]).
    async fn call(&self, call: catalog::CatType) -> Result<Vec<RecordBatch>, DialectError> {
        let relation = Relation {
            rel_type: Some(relation::RelType::Catalog(CatalogCall {
                cat_type: Some(call),
            })),
        };
        let options = ExecOptions::default().with_max_rows(MAX_CATALOG_ROWS);
        let mut batches = Vec::new();
        let mut stream = stream::execute(
            Arc::clone(self.connection),
            Arc::clone(self.database),
            relation,
            &options,
        )
        .await?;
        while let Some(batch) = stream.next().await {
            batches.push(batch?);
        }
        Ok(batches)
    }

    /// The text column `name` of `batch` (`None` when it has none); an error when it is not
    /// text.
    fn text(
        &self,
        batch: &RecordBatch,
        name: &str,
    ) -> Result<Option<Arc<dyn Array>>, DialectError> {
        let Some(column) = batch.column_by_name(name) else {
            return Ok(None);
        };
        match column.data_type() {
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => Ok(Some(column.clone())),
            other => Err(DialectError::Engine {
                database: self.database.to_string(),
                message: format!(
                    "the server's catalogue is malformed: {name} is {other}, not text"
                ),
                code: None,
                source: None,
            }),
        }
    }
}

/// `name` as a Spark identifier: as it is when plain, else in backticks (doubled inside).
fn identifier(name: &str) -> String {
    let mut chars = name.chars();
    let plain = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        name.to_owned()
    } else {
        format!("`{}`", name.replace('`', "``"))
    }
}

/// The text at `row` of a string column (any of Arrow's three layouts), `None` when null or
/// when there is no such column.
fn string_at(column: &Option<Arc<dyn Array>>, row: usize) -> Option<String> {
    let column = column.as_ref()?;
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

/// The namespace at `row` (a list of names, `["default"]`) joined with dots; `None` when null
/// or empty.
fn namespace_at(column: &dyn Array, row: usize) -> Option<String> {
    if column.is_null(row) {
        return None;
    }
    let parts = match column.data_type() {
        DataType::List(_) => column.as_list::<i32>().value(row),
        DataType::LargeList(_) => column.as_list::<i64>().value(row),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            return string_at(&Some(column.slice(row, 1)), 0).filter(|s| !s.is_empty());
        }
        _ => return None,
    };
    let len = parts.len();
    let parts = Some(parts);
    let names: Vec<String> = (0..len).filter_map(|i| string_at(&parts, i)).collect();
    (!names.is_empty()).then(|| names.join("."))
}

fn table_kind(table_type: &str) -> TableKind {
    match table_type.to_ascii_uppercase().as_str() {
        "TABLE" | "MANAGED" | "EXTERNAL" => TableKind::Table,
        "VIEW" | "TEMPORARY" | "TEMPORARY VIEW" => TableKind::View,
        "MATERIALIZED_VIEW" | "MATERIALIZED VIEW" => TableKind::MaterializedView,
        _ => TableKind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_names_are_quoted_as_spark_identifiers() {
        assert_eq!(identifier("orders"), "orders");
        assert_eq!(identifier("order items"), "`order items`");
        assert_eq!(identifier("a`b"), "`a``b`");
        assert_eq!(identifier("1st"), "`1st`");
    }

    #[test]
    fn namespaces_join_their_parts() {
        use arrow_array::builder::{ListBuilder, StringBuilder};
        let mut builder = ListBuilder::new(StringBuilder::new());
        builder.values().append_value("spark_catalog");
        builder.values().append_value("default");
        builder.append(true);
        builder.append(false);
        builder.append(true);
        let list = builder.finish();
        assert_eq!(
            namespace_at(&list, 0).as_deref(),
            Some("spark_catalog.default")
        );
        assert_eq!(namespace_at(&list, 1), None);
        assert_eq!(namespace_at(&list, 2), None);
        assert_eq!(table_kind("MANAGED"), TableKind::Table);
        assert_eq!(table_kind("TEMPORARY"), TableKind::View);
    }
}
