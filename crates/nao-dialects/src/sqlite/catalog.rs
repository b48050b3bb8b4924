//! Tables and columns from `sqlite_schema` and `pragma_table_xinfo`, read on a pooled
//! read-only connection (the authorizer allows both); comments from the `CREATE TABLE` texts
//! (see [`comments`]).

use nao_core::{
    ColumnInfo, DialectError, TableFilter, TableInfo, TableKind, TableRef, TableSchema,
};
use rusqlite::{Connection, OptionalExtension};

use super::comments;

/// The one schema a SQLite connection here has (ATTACH is denied).
const MAIN: &str = "main";

/// Whether a filter's schema (none, or `main`) admits the tables of this database.
fn schema_matches(filter: &TableFilter, name: &str) -> bool {
    filter.matches(None, name) || filter.matches(Some(MAIN), name)
}

/// The tables and views of `main`, without SQLite's internal `sqlite_*` tables, by name.
pub(crate) fn list_tables(
    conn: &Connection,
    filter: &TableFilter,
) -> rusqlite::Result<Vec<TableInfo>> {
    let mut statement = conn.prepare(
        "SELECT name, type, sql FROM main.sqlite_schema \
         WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' \
         ORDER BY name",
    )?;
    let rows = statement.query_map([], |row| {
        let name: String = row.get(0)?;
        let kind: String = row.get(1)?;
        let sql: Option<String> = row.get(2)?;
        Ok((name, kind, sql))
    })?;
    let mut tables = Vec::new();
    for row in rows {
        let (name, kind, sql) = row?;
        if !schema_matches(filter, &name) {
            continue;
        }
        let kind = if kind == "view" {
            TableKind::View
        } else {
            TableKind::Table
        };
        let comment = sql.and_then(|sql| comments::parse(&sql).table);
        tables.push(TableInfo::new(None, name, kind).with_comment(comment));
    }
    Ok(tables)
}

/// Why a table could not be described.
pub(crate) enum DescribeError {
    /// No such table or view in `main`.
    Unknown(String),
    /// SQLite failed.
    Engine(rusqlite::Error),
}

impl From<rusqlite::Error> for DescribeError {
    fn from(error: rusqlite::Error) -> Self {
        DescribeError::Engine(error)
    }
}

impl DescribeError {
    /// As the adapter's error.
    pub(crate) fn into_dialect_error(self, database: &str) -> DialectError {
        match self {
            DescribeError::Unknown(message) => DialectError::UnknownObject {
                database: database.to_owned(),
                message,
                code: None,
            },
            DescribeError::Engine(e) => super::errors::dialect_error(database, e),
        }
    }
}

/// A table's columns: name, declared type, and whether it may hold NULL (`NOT NULL`, or an
/// `INTEGER PRIMARY KEY`, which is the rowid, may not). Hidden columns of virtual tables are
/// left out; generated columns are listed.
pub(crate) fn describe_table(
    conn: &Connection,
    table: &TableRef,
) -> Result<TableSchema, DescribeError> {
    if let Some(schema) = &table.schema
        && !schema.eq_ignore_ascii_case(MAIN)
    {
        return Err(DescribeError::Unknown(format!(
            "no such schema: {schema} (this SQLite database has only `main`)"
        )));
    }
    let mut statement = conn.prepare(
        "SELECT name, type, \"notnull\", pk, hidden FROM pragma_table_xinfo(?1, 'main') \
         ORDER BY cid",
    )?;
    let rows = statement.query_map([&table.name], |row| {
        let name: String = row.get(0)?;
        let engine_type: String = row.get(1)?;
        let not_null: bool = row.get(2)?;
        let pk: i64 = row.get(3)?;
        let hidden: i64 = row.get(4)?;
        Ok((name, engine_type, not_null, pk, hidden))
    })?;
    let rows = rows.collect::<rusqlite::Result<Vec<_>>>()?;
    if rows.is_empty() {
        return Err(DescribeError::Unknown(format!("no such table: {table}")));
    }
    // A lone INTEGER primary key is the rowid alias; composite keys may hold NULL in SQLite.
    let single_key = rows.iter().filter(|r| r.3 > 0).count() == 1;
    let comments = table_sql(conn, &table.name)?
        .map(|sql| comments::parse(&sql))
        .unwrap_or_default();
    let columns = rows
        .into_iter()
        .filter(|(.., hidden)| *hidden != 1)
        .map(|(name, engine_type, not_null, pk, _)| {
            let rowid = single_key && pk > 0 && engine_type.eq_ignore_ascii_case("INTEGER");
            let comment = comments.column(&name).map(str::to_owned);
            ColumnInfo::new(name, engine_type, !(not_null || rowid)).with_comment(comment)
        })
        .collect();
    Ok(TableSchema::new(table.clone(), columns).with_comment(comments.table))
}

/// The `CREATE` text of a table or view of `main` (where its comments are).
fn table_sql(conn: &Connection, name: &str) -> rusqlite::Result<Option<String>> {
    conn.query_row(
        "SELECT sql FROM main.sqlite_schema WHERE type IN ('table', 'view') AND name = ?1 \
         COLLATE NOCASE",
        [name],
        |row| row.get(0),
    )
    .optional()
    .map(Option::flatten)
}
