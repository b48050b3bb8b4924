//! Who the server is (`CommandGetSqlInfo`: its name and version), and the SQL dialect that
//! follows from the name.

use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch};
use arrow_flight::sql::{CommandGetSqlInfo, SqlInfo};
use arrow_schema::DataType;
use nao_core::DialectError;
use nao_core::guard::SqlDialect;

use super::connect::Connection;
use super::fetch;

/// The server's name and version, as it reports them (either may be missing).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct ServerInfo {
    pub(super) name: Option<String>,
    pub(super) version: Option<String>,
}

impl ServerInfo {
    /// Asks the server. A server that does not implement `GetSqlInfo` (Sail 0.7) is one with
    /// no name.
    pub(super) async fn fetch(
        connection: &Connection,
        database: &str,
    ) -> Result<ServerInfo, DialectError> {
        let command = CommandGetSqlInfo {
            info: vec![
                SqlInfo::FlightSqlServerName as u32,
                SqlInfo::FlightSqlServerVersion as u32,
            ],
        };
        let batches = match fetch::command(connection, database, command).await {
            Ok((_, batches)) => batches,
            Err(DialectError::Unsupported { .. }) => return Ok(ServerInfo::default()),
            Err(error) => return Err(error),
        };
        let mut found = ServerInfo::default();
        for batch in &batches {
            found.read(batch);
        }
        Ok(found)
    }

    /// Takes the name and version from one answer batch (`info_name`, `value` as a dense
    /// union whose text member holds them); anything else is ignored.
    fn read(&mut self, batch: &RecordBatch) {
        let (Some(names), Some(values)) = (
            batch.column_by_name("info_name"),
            batch.column_by_name("value"),
        ) else {
            return;
        };
        let (Some(names), Some(values)) = (
            names.as_primitive_opt::<arrow_array::types::UInt32Type>(),
            values.as_union_opt(),
        ) else {
            return;
        };
        for row in 0..batch.num_rows() {
            if names.is_null(row) {
                continue;
            }
            let value = values.value(row);
            let text = match value.data_type() {
                DataType::Utf8 if value.is_valid(0) => value.as_string::<i32>().value(0).to_owned(),
                _ => continue,
            };
            match names.value(row) {
                n if n == SqlInfo::FlightSqlServerName as u32 => self.name = Some(text),
                n if n == SqlInfo::FlightSqlServerVersion as u32 => self.version = Some(text),
                _ => {}
            }
        }
    }

    /// The SQL dialect of a server by its name: Spark SQL for Sail and Spark, Databricks,
    /// DuckDB, Trino, PostgreSQL, ClickHouse and Snowflake by their names; generic SQL
    /// otherwise (DataFusion-based servers such as roapi, Dremio, …).
    pub(super) fn sql_dialect(&self) -> SqlDialect {
        let name = self
            .name
            .as_deref()
            .unwrap_or_default()
            .to_ascii_lowercase();
        let has = |word: &str| name.contains(word);
        if has("databricks") {
            SqlDialect::Databricks
        } else if has("sail") || has("spark") {
            SqlDialect::Spark
        } else if has("duckdb") {
            SqlDialect::DuckDb
        } else if has("trino") {
            SqlDialect::Trino
        } else if has("postgres") {
            SqlDialect::Postgres
        } else if has("clickhouse") {
            SqlDialect::ClickHouse
        } else if has("snowflake") {
            SqlDialect::Snowflake
        } else {
            SqlDialect::Generic
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_names_pick_dialects() {
        let of = |name: &str| {
            ServerInfo {
                name: Some(name.into()),
                version: None,
            }
            .sql_dialect()
        };
        assert_eq!(of("Sail"), SqlDialect::Spark);
        assert_eq!(of("DuckDB Flight"), SqlDialect::DuckDb);
        assert_eq!(of("datafusion"), SqlDialect::Generic);
        assert_eq!(ServerInfo::default().sql_dialect(), SqlDialect::Generic);
    }
}
