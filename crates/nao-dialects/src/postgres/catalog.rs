//! Listing and describing tables from `pg_catalog`, with their comments, limited to what the
//! connection's role may read.

use nao_core::{
    ColumnInfo, DialectError, TableFilter, TableInfo, TableKind, TableRef, TableSchema,
};
use tokio_postgres::Transaction;

/// Tables, views, materialized views, foreign and partitioned tables the role can read,
/// outside the system schemas; `$1` is an optional schema (compared case-insensitively).
const RELATIONS: &str = "\
    SELECT c.oid, n.nspname::text, c.relname::text, c.relkind::text, \
           pg_catalog.obj_description(c.oid, 'pg_class'), c.reltuples::float8, \
           pg_catalog.pg_table_is_visible(c.oid) \
    FROM pg_catalog.pg_class c \
    JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
    WHERE c.relkind IN ('r', 'v', 'm', 'f', 'p') \
      AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\\_%' \
      AND pg_catalog.has_schema_privilege(n.oid, 'USAGE') \
      AND pg_catalog.has_any_column_privilege(c.oid, 'SELECT') \
      AND ($1::text IS NULL OR lower(n.nspname) = lower($1::text)) \
      AND ($2::text IS NULL OR lower(c.relname) = lower($2::text)) \
    ORDER BY 2, 3";

/// The columns of one relation, in order: name, declared type, nullability, comment.
const COLUMNS: &str = "\
    SELECT a.attname::text, pg_catalog.format_type(a.atttypid, a.atttypmod), \
           NOT a.attnotnull, pg_catalog.col_description(a.attrelid, a.attnum) \
    FROM pg_catalog.pg_attribute a \
    WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped \
    ORDER BY a.attnum";

/// One row of [`RELATIONS`].
struct Relation {
    oid: u32,
    schema: String,
    name: String,
    kind: TableKind,
    comment: Option<String>,
    estimated_rows: Option<u64>,
    visible: bool,
}

async fn relations(
    txn: &Transaction<'_>,
    schema: Option<&str>,
    name: Option<&str>,
) -> Result<Vec<Relation>, tokio_postgres::Error> {
    let rows = txn.query(RELATIONS, &[&schema, &name]).await?;
    rows.iter()
        .map(|row| {
            let kind: String = row.try_get(3)?;
            let kind = match kind.as_str() {
                "r" | "p" => TableKind::Table,
                "v" => TableKind::View,
                "m" => TableKind::MaterializedView,
                _ => TableKind::Other,
            };
            let reltuples: Option<f64> = row.try_get(5)?;
            // -1 means never analysed; views and foreign tables have no count.
            let estimated_rows = reltuples
                .filter(|n| {
                    *n >= 0.0 && matches!(kind, TableKind::Table | TableKind::MaterializedView)
                })
                .map(|n| n as u64);
            Ok(Relation {
                oid: row.try_get(0)?,
                schema: row.try_get(1)?,
                name: row.try_get(2)?,
                kind,
                comment: row.try_get(4)?,
                estimated_rows,
                visible: row.try_get(6)?,
            })
        })
        .collect()
}

/// The tables and views that pass `filter` (the schema is filtered by the server).
pub(super) async fn list_tables(
    txn: &Transaction<'_>,
    filter: &TableFilter,
) -> Result<Vec<TableInfo>, tokio_postgres::Error> {
    let all = relations(txn, filter.schema.as_deref(), None).await?;
    Ok(all
        .into_iter()
        .filter(|r| filter.matches(Some(&r.schema), &r.name))
        .map(|r| {
            TableInfo::new(Some(r.schema), r.name, r.kind)
                .with_comment(r.comment)
                .with_estimated_rows(r.estimated_rows)
        })
        .collect())
}

/// The columns and comment of `table`. An exact name beats a case-insensitive one; without a
/// schema, the relation the search path finds wins, then `public`.
pub(super) async fn describe_table(
    database: &str,
    txn: &Transaction<'_>,
    table: &TableRef,
) -> Result<Result<TableSchema, DialectError>, tokio_postgres::Error> {
    let mut candidates = relations(txn, table.schema.as_deref(), Some(&table.name)).await?;
    candidates.sort_by_key(|r| {
        (
            r.name != table.name,
            table.schema.as_deref().is_some_and(|s| s != r.schema),
            !r.visible,
            r.schema != "public",
        )
    });
    let Some(found) = candidates.into_iter().next() else {
        return Ok(Err(DialectError::UnknownObject {
            database: database.to_owned(),
            message: format!("no table or view named {table} that this connection can read"),
            code: None,
        }));
    };
    let rows = txn.query(COLUMNS, &[&found.oid]).await?;
    let columns = rows
        .iter()
        .map(|row| {
            let column = ColumnInfo::new(
                row.try_get::<_, String>(0)?,
                row.try_get::<_, String>(1)?,
                row.try_get::<_, bool>(2)?,
            );
            Ok(column.with_comment(row.try_get(3)?))
        })
        .collect::<Result<Vec<_>, tokio_postgres::Error>>()?;
    let table = TableRef {
        schema: Some(found.schema),
        name: found.name,
    };
    Ok(Ok(
        TableSchema::new(table, columns).with_comment(found.comment)
    ))
}
