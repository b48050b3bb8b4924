//! Listing and describing tables through DuckDB's catalog functions (`duckdb_tables()`,
//! `duckdb_views()`, `duckdb_columns()`), with their comments.
//!
//! These are plain reads run on a connection of their own, on the blocking pool.

use duckdb::{Connection, params};
use nao_core::{
    ColumnInfo, DialectError, TableFilter, TableInfo, TableKind, TableRef, TableSchema,
};

use super::errors;

/// User tables and views of the open database (no internal or temporary ones).
const RELATIONS: &str = "\
    SELECT schema_name, table_name, 'table' AS kind, comment, estimated_size \
    FROM duckdb_tables() \
    WHERE database_name = current_database() AND NOT internal AND NOT temporary \
    UNION ALL \
    SELECT schema_name, view_name, 'view', comment, NULL \
    FROM duckdb_views() \
    WHERE database_name = current_database() AND NOT internal AND NOT temporary \
    ORDER BY 1, 2";

/// The columns of one relation, in order.
const COLUMNS: &str = "\
    SELECT column_name, data_type, is_nullable, comment \
    FROM duckdb_columns() \
    WHERE database_name = current_database() AND schema_name = ? AND table_name = ? \
    ORDER BY column_index";

/// One row of [`RELATIONS`].
struct Relation {
    schema: String,
    name: String,
    kind: TableKind,
    comment: Option<String>,
    estimated_rows: Option<u64>,
}

fn relations(connection: &Connection) -> duckdb::Result<Vec<Relation>> {
    let mut statement = connection.prepare(RELATIONS)?;
    let rows = statement.query_map([], |row| {
        let kind: String = row.get(2)?;
        let estimated: Option<i64> = row.get(4)?;
        Ok(Relation {
            schema: row.get(0)?,
            name: row.get(1)?,
            kind: if kind == "view" {
                TableKind::View
            } else {
                TableKind::Table
            },
            comment: row.get(3)?,
            estimated_rows: estimated.and_then(|n| u64::try_from(n).ok()),
        })
    })?;
    rows.collect()
}

/// The tables and views that pass `filter`.
pub(super) fn list_tables(
    database: &str,
    connection: &Connection,
    filter: &TableFilter,
) -> Result<Vec<TableInfo>, DialectError> {
    let all = relations(connection).map_err(|e| errors::from_duckdb(database, e, None))?;
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

/// The columns and comment of `table`. Names match case-insensitively, as DuckDB's own
/// identifiers do; an exact match, then the `main` schema, win over other candidates.
pub(super) fn describe_table(
    database: &str,
    connection: &Connection,
    table: &TableRef,
) -> Result<TableSchema, DialectError> {
    let fail = |e| errors::from_duckdb(database, e, None);
    let mut candidates: Vec<Relation> = relations(connection)
        .map_err(fail)?
        .into_iter()
        .filter(|r| {
            r.name.eq_ignore_ascii_case(&table.name)
                && table
                    .schema
                    .as_deref()
                    .is_none_or(|s| s.eq_ignore_ascii_case(&r.schema))
        })
        .collect();
    candidates.sort_by_key(|r| (r.name != table.name, r.schema != "main"));
    let Some(found) = candidates.into_iter().next() else {
        return Err(DialectError::UnknownObject {
            database: database.to_owned(),
            message: format!("no table or view named {table}"),
            code: None,
        });
    };
    let mut statement = connection.prepare(COLUMNS).map_err(fail)?;
    let columns = statement
        .query_map(params![found.schema, found.name], |row| {
            let nullable: bool = row.get(2)?;
            let column =
                ColumnInfo::new(row.get::<_, String>(0)?, row.get::<_, String>(1)?, nullable);
            Ok(column.with_comment(row.get(3)?))
        })
        .map_err(fail)?
        .collect::<duckdb::Result<Vec<_>>>()
        .map_err(fail)?;
    let table = TableRef {
        schema: Some(found.schema),
        name: found.name,
    };
    Ok(TableSchema::new(table, columns).with_comment(found.comment))
}
