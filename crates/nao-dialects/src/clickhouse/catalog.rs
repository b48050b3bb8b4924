//! Tables and columns from `system.tables` and `system.columns` (with column comments, and
//! table comments on servers whose `system.tables` has them).

use nao_core::{
    ColumnInfo, DialectError, TableFilter, TableInfo, TableKind, TableRef, TableSchema,
};

use super::client::HttpClient;
use super::escape;
use super::types::ChType;

/// The most of a catalogue answer read.
const MAX_CATALOGUE_BYTES: usize = 32 << 20;

/// The catalogue of one server, for one call.
pub(super) struct Catalog<'a> {
    pub(super) client: &'a HttpClient,
    pub(super) database: &'a str,
    /// Whether `system.tables` has a `comment` column (servers since 21.x).
    pub(super) table_comments: bool,
}

/// A string literal of ClickHouse SQL.
pub(super) fn literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    for c in text.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\0' => out.push_str("\\0"),
            other => out.push(other),
        }
    }
    out.push('\'');
    out
}

impl Catalog<'_> {
    /// The rows of a small TabSeparated answer, fields unescaped.
    async fn rows(&self, sql: &str) -> Result<Vec<Vec<String>>, DialectError> {
        let body = self
            .client
            .fetch(sql, MAX_CATALOGUE_BYTES)
            .await
            .map_err(|e| e.into_dialect(self.database, nao_core::DEFAULT_TIMEOUT))?;
        // Every row ends in a newline; a row of one empty field is an empty line.
        if body.is_empty() {
            return Ok(Vec::new());
        }
        let body = body.strip_suffix(b"\n").unwrap_or(&body);
        Ok(body
            .split(|b| *b == b'\n')
            .map(|line| {
                line.split(|b| *b == b'\t')
                    .map(|f| String::from_utf8_lossy(&escape::unescape(f)).into_owned())
                    .collect()
            })
            .collect())
    }

    fn comment_column(&self) -> &'static str {
        if self.table_comments { "comment" } else { "''" }
    }

    /// Tables of the filter's database (else the configured one), passing the filter.
    pub(super) async fn list_tables(
        &self,
        filter: &TableFilter,
    ) -> Result<Vec<TableInfo>, DialectError> {
        let schema = filter.schema.as_deref().unwrap_or(self.client.database());
        let sql = format!(
            "SELECT database, name, engine, {} FROM system.tables \
             WHERE lower(database) = lower({}) AND NOT is_temporary ORDER BY name \
             FORMAT TabSeparated",
            self.comment_column(),
            literal(schema)
        );
        let mut tables = Vec::new();
        for row in self.rows(&sql).await? {
            let [database, name, engine, comment] =
                <[String; 4]>::try_from(row).map_err(|_| self.malformed("system.tables"))?;
            if !filter.matches(Some(&database), &name) {
                continue;
            }
            tables.push(
                TableInfo::new(Some(database), name, kind(&engine))
                    .with_comment(Some(comment).filter(|c| !c.is_empty())),
            );
        }
        Ok(tables)
    }

    /// The columns of `table` with their ClickHouse types, nullability (`Nullable(…)`) and
    /// comments.
    pub(super) async fn describe_table(
        &self,
        table: &TableRef,
    ) -> Result<TableSchema, DialectError> {
        let schema = table.schema.as_deref().unwrap_or(self.client.database());
        let tables = format!(
            "SELECT {} FROM system.tables WHERE database = {} AND name = {} FORMAT TabSeparated",
            self.comment_column(),
            literal(schema),
            literal(&table.name)
        );
        let Some(found) = self.rows(&tables).await?.into_iter().next() else {
            return Err(DialectError::UnknownObject {
                database: self.database.to_owned(),
                message: format!("no table {schema}.{} in system.tables", table.name),
                code: None,
            });
        };
        let comment = found.into_iter().next().filter(|c| !c.is_empty());
        let columns = format!(
            "SELECT name, type, comment FROM system.columns WHERE database = {} AND table = {} \
             FORMAT TabSeparated",
            literal(schema),
            literal(&table.name)
        );
        let mut described = Vec::new();
        for row in self.rows(&columns).await? {
            let [name, engine_type, comment] =
                <[String; 3]>::try_from(row).map_err(|_| self.malformed("system.columns"))?;
            let nullable = ChType::parse(&engine_type).is_some_and(|t| t.nullable());
            described.push(
                ColumnInfo::new(name, engine_type, nullable)
                    .with_comment(Some(comment).filter(|c| !c.is_empty())),
            );
        }
        let reference = TableRef {
            schema: Some(schema.to_owned()),
            name: table.name.clone(),
        };
        Ok(TableSchema::new(reference, described).with_comment(comment))
    }

    fn malformed(&self, what: &str) -> DialectError {
        DialectError::Engine {
            database: self.database.to_owned(),
            message: format!("unreadable answer from {what}"),
            code: None,
            source: None,
        }
    }
}

/// The kind of table an engine name stands for.
fn kind(engine: &str) -> TableKind {
    match engine {
        "View" | "LiveView" => TableKind::View,
        "MaterializedView" => TableKind::MaterializedView,
        "Dictionary" | "Distributed" | "Merge" | "URL" | "File" | "MySQL" | "PostgreSQL"
        | "ODBC" | "JDBC" | "S3" | "HDFS" | "Kafka" => TableKind::Other,
        _ => TableKind::Table,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_escape_quotes_and_backslashes() {
        assert_eq!(literal("a'b\\c"), "'a\\'b\\\\c'");
    }

    #[test]
    fn kinds() {
        assert_eq!(kind("MergeTree"), TableKind::Table);
        assert_eq!(kind("View"), TableKind::View);
        assert_eq!(kind("Distributed"), TableKind::Other);
    }
}
