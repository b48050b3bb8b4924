//! Listing and describing tables through `information_schema` (`TABLES`, `COLUMNS`), with
//! their comments. The server only shows what the connection's user may read.

use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Row};
use nao_core::{
    ColumnInfo, DialectError, TableFilter, TableInfo, TableKind, TableRef, TableSchema,
};

use super::errors;

/// Relations of one schema: the filter's, else the default database; with neither, every
/// schema but the system ones.
const RELATIONS: &str = "\
    SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE, TABLE_COMMENT, TABLE_ROWS \
    FROM information_schema.TABLES \
    WHERE (? IS NOT NULL AND LOWER(TABLE_SCHEMA) = LOWER(?)) \
       OR (? IS NULL AND TABLE_SCHEMA = DATABASE()) \
       OR (? IS NULL AND DATABASE() IS NULL AND TABLE_SCHEMA NOT IN \
           ('mysql', 'information_schema', 'performance_schema', 'sys')) \
    ORDER BY TABLE_SCHEMA, TABLE_NAME";

/// The columns of one relation, in order.
const COLUMNS: &str = "\
    SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_COMMENT \
    FROM information_schema.COLUMNS \
    WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? \
    ORDER BY ORDINAL_POSITION";

/// One row of [`RELATIONS`].
struct Relation {
    schema: String,
    name: String,
    kind: TableKind,
    comment: Option<String>,
    estimated_rows: Option<u64>,
}

/// A text cell (information_schema columns are utf8 text; NULL and bytes that are not text
/// become `None`).
fn text(row: &Row, index: usize) -> Option<String> {
    match row.as_ref(index)? {
        mysql_async::Value::Bytes(bytes) => String::from_utf8(bytes.clone()).ok(),
        mysql_async::Value::NULL => None,
        other => Some(other.as_sql(true)),
    }
}

fn unsigned(row: &Row, index: usize) -> Option<u64> {
    match row.as_ref(index)? {
        mysql_async::Value::UInt(v) => Some(*v),
        mysql_async::Value::Int(v) => u64::try_from(*v).ok(),
        mysql_async::Value::Bytes(bytes) => std::str::from_utf8(bytes).ok()?.parse().ok(),
        _ => None,
    }
}

/// MySQL puts `VIEW` in a view's comment; an empty comment is no comment.
fn comment(text: Option<String>, kind: TableKind) -> Option<String> {
    text.filter(|c| !(c.trim().is_empty() || (kind == TableKind::View && c == "VIEW")))
}

async fn relations(
    database: &str,
    conn: &mut Conn,
    schema: Option<&str>,
) -> Result<Vec<Relation>, DialectError> {
    let rows: Vec<Row> = conn
        .exec(RELATIONS, (schema, schema, schema, schema))
        .await
        .map_err(|e| errors::from_mysql(database, e, std::time::Duration::ZERO, None))?;
    Ok(rows
        .iter()
        .filter_map(|row| {
            let kind = match text(row, 2).as_deref() {
                Some("BASE TABLE" | "SYSTEM VERSIONED") => TableKind::Table,
                Some("VIEW") => TableKind::View,
                _ => TableKind::Other,
            };
            Some(Relation {
                schema: text(row, 0)?,
                name: text(row, 1)?,
                kind,
                comment: comment(text(row, 3), kind),
                estimated_rows: (kind == TableKind::Table)
                    .then(|| unsigned(row, 4))
                    .flatten(),
            })
        })
        .collect())
}

/// The tables and views that pass `filter`.
pub(super) async fn list_tables(
    database: &str,
    conn: &mut Conn,
    filter: &TableFilter,
) -> Result<Vec<TableInfo>, DialectError> {
    let all = relations(database, conn, filter.schema.as_deref()).await?;
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

/// The columns and comment of `table` (in its schema, else the default database). An exact
/// name wins over one that differs only in case.
pub(super) async fn describe_table(
    database: &str,
    conn: &mut Conn,
    table: &TableRef,
) -> Result<TableSchema, DialectError> {
    let mut candidates: Vec<Relation> = relations(database, conn, table.schema.as_deref())
        .await?
        .into_iter()
        .filter(|r| r.name.eq_ignore_ascii_case(&table.name))
        .collect();
    candidates.sort_by_key(|r| r.name != table.name);
    let Some(found) = candidates.into_iter().next() else {
        return Err(DialectError::UnknownObject {
            database: database.to_owned(),
            message: format!("no table or view named {table}"),
            code: None,
        });
    };
    let rows: Vec<Row> = conn
        .exec(COLUMNS, (&found.schema, &found.name))
        .await
        .map_err(|e| errors::from_mysql(database, e, std::time::Duration::ZERO, None))?;
    let columns = rows
        .iter()
        .filter_map(|row| {
            let nullable = text(row, 2).is_none_or(|n| n.eq_ignore_ascii_case("YES"));
            Some(ColumnInfo::new(text(row, 0)?, text(row, 1)?, nullable).with_comment(text(row, 3)))
        })
        .collect();
    let table = TableRef {
        schema: Some(found.schema),
        name: found.name,
    };
    Ok(TableSchema::new(table, columns).with_comment(found.comment))
}
