//! `list_tables` and `describe_table` over DataFusion's catalogues, with the comments the
//! builder registered.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::catalog::{SchemaProvider, TableProvider};
use datafusion::datasource::TableType;
use datafusion::prelude::SessionContext;
use nao_dialects::core::{
    ColumnInfo, DialectError, TableFilter, TableInfo, TableKind, TableRef, TableSchema,
};

use crate::builder::TableComments;
use crate::classify;

/// The schema DataFusion keeps its own views in, which `list_tables` leaves out.
const INFORMATION_SCHEMA: &str = "information_schema";

/// Every table of every schema of every catalogue but `information_schema`, filtered. A
/// table outside the default catalogue is listed with the schema `catalogue.schema`.
pub(crate) async fn list_tables(
    database: &str,
    ctx: &SessionContext,
    comments: &HashMap<String, TableComments>,
    filter: &TableFilter,
) -> Result<Vec<TableInfo>, DialectError> {
    let (default_catalog, _) = defaults(ctx);
    let mut tables = Vec::new();
    for catalog_name in ctx.catalog_names() {
        let Some(catalog) = ctx.catalog(&catalog_name) else {
            continue;
        };
        for schema_name in catalog.schema_names() {
            if schema_name == INFORMATION_SCHEMA {
                continue;
            }
            let Some(schema) = catalog.schema(&schema_name) else {
                continue;
            };
            let shown_schema = if catalog_name == default_catalog {
                schema_name.clone()
            } else {
                format!("{catalog_name}.{schema_name}")
            };
            let mut names = schema.table_names();
            names.sort_unstable();
            for name in names {
                if !filter.matches(Some(&shown_schema), &name) {
                    continue;
                }
                let Some(provider) = table(database, schema.as_ref(), &name).await? else {
                    continue;
                };
                let comment = comments.get(&name).and_then(|c| c.table.clone());
                let rows = provider
                    .statistics()
                    .and_then(|s| s.num_rows.get_value().copied())
                    .map(|rows| rows as u64);
                tables.push(
                    TableInfo::new(
                        Some(shown_schema.clone()),
                        name,
                        kind(provider.table_type()),
                    )
                    .with_comment(comment)
                    .with_estimated_rows(rows),
                );
            }
        }
    }
    Ok(tables)
}

/// The columns of `table` (in the default schema when it names none), with their Arrow types
/// as the declared types, their nullability and the registered comments.
pub(crate) async fn describe_table(
    database: &str,
    ctx: &SessionContext,
    comments: &HashMap<String, TableComments>,
    table_ref: &TableRef,
) -> Result<TableSchema, DialectError> {
    let (default_catalog, default_schema) = defaults(ctx);
    let (catalog_name, schema_name) = match table_ref.schema.as_deref() {
        None => (default_catalog, default_schema),
        Some(qualified) => match qualified.split_once('.') {
            Some((catalog, schema)) => (catalog.to_owned(), schema.to_owned()),
            None => (default_catalog, qualified.to_owned()),
        },
    };
    let missing = || DialectError::UnknownObject {
        database: database.to_owned(),
        message: format!("no table named {table_ref}"),
        code: None,
    };
    let schema = ctx
        .catalog(&catalog_name)
        .and_then(|catalog| catalog.schema(&schema_name))
        .ok_or_else(missing)?;
    let provider = table(database, schema.as_ref(), &table_ref.name)
        .await?
        .ok_or_else(missing)?;
    let table_comments = comments.get(&table_ref.name);
    let columns = provider
        .schema()
        .fields()
        .iter()
        .map(|field| {
            let comment = table_comments.and_then(|c| c.columns.get(field.name()).cloned());
            ColumnInfo::new(
                field.name(),
                field.data_type().to_string(),
                field.is_nullable(),
            )
            .with_comment(comment)
        })
        .collect();
    Ok(TableSchema::new(table_ref.clone(), columns)
        .with_comment(table_comments.and_then(|c| c.table.clone())))
}

async fn table(
    database: &str,
    schema: &dyn SchemaProvider,
    name: &str,
) -> Result<Option<Arc<dyn TableProvider>>, DialectError> {
    schema
        .table(name)
        .await
        .map_err(|error| classify(database, &error))
}

/// The session's default catalogue and schema (`datafusion`, `public`).
fn defaults(ctx: &SessionContext) -> (String, String) {
    let state = ctx.state();
    let options = &state.config().options().catalog;
    (
        options.default_catalog.clone(),
        options.default_schema.clone(),
    )
}

fn kind(table_type: TableType) -> TableKind {
    match table_type {
        TableType::Base | TableType::Temporary => TableKind::Table,
        TableType::View => TableKind::View,
    }
}
