//! Who is behind the driver (`AdbcConnectionGetInfo`: vendor and driver names and versions),
//! the SQL dialect that follows from the vendor's name, and the statements that make a
//! session read-only on that vendor.

use std::collections::HashSet;

use adbc_core::Connection as _;
use adbc_core::error::Error;
use adbc_core::options::InfoCode;
use adbc_driver_manager::ManagedConnection;
use arrow_array::cast::AsArray;
use arrow_array::types::UInt32Type;
use arrow_array::{Array, RecordBatch};
use nao_core::guard::SqlDialect;

/// What the driver says about itself and its database (any part may be missing).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DriverInfo {
    /// The database's product name (`PostgreSQL`, `SQLite`, `Snowflake`, …).
    pub vendor_name: Option<String>,
    /// The database's version.
    pub vendor_version: Option<String>,
    /// The driver's name (`ADBC PostgreSQL Driver`).
    pub driver_name: Option<String>,
    /// The driver's version.
    pub driver_version: Option<String>,
}

impl DriverInfo {
    /// Asks the driver through `connection`.
    pub(super) fn fetch(connection: &ManagedConnection) -> Result<DriverInfo, Error> {
        let codes = HashSet::from([
            InfoCode::VendorName,
            InfoCode::VendorVersion,
            InfoCode::DriverName,
            InfoCode::DriverVersion,
        ]);
        let mut info = DriverInfo::default();
        for batch in connection.get_info(Some(codes))? {
            info.read(&batch?);
        }
        Ok(info)
    }

    /// Takes the four strings from one `get_info` batch (`info_name`, `info_value` as a
    /// dense union whose member 0 is `string_value`); anything else is ignored.
    fn read(&mut self, batch: &RecordBatch) {
        let (Some(names), Some(values)) = (
            batch.column_by_name("info_name"),
            batch.column_by_name("info_value"),
        ) else {
            return;
        };
        let (Some(names), Some(values)) = (
            names.as_primitive_opt::<UInt32Type>(),
            values.as_union_opt(),
        ) else {
            return;
        };
        for row in 0..batch.num_rows() {
            if names.is_null(row) || values.type_id(row) != 0 {
                continue;
            }
            let Some(strings) = values.child(0).as_string_opt::<i32>() else {
                continue;
            };
            let at = values.value_offset(row);
            if at >= strings.len() || strings.is_null(at) {
                continue;
            }
            let text = Some(strings.value(at).to_owned());
            match InfoCode::from(names.value(row)) {
                InfoCode::VendorName => self.vendor_name = text,
                InfoCode::VendorVersion => self.vendor_version = text,
                InfoCode::DriverName => self.driver_name = text,
                InfoCode::DriverVersion => self.driver_version = text,
                _ => {}
            }
        }
    }

    /// The SQL dialect the vendor's name implies (generic when it names none nao-rs knows).
    pub fn sql_dialect(&self) -> SqlDialect {
        let name = self
            .vendor_name
            .as_deref()
            .unwrap_or_default()
            .to_ascii_lowercase();
        if let Ok(dialect) = name.trim().parse::<SqlDialect>() {
            return dialect;
        }
        let has = |word: &str| name.contains(word);
        if has("postgres") {
            SqlDialect::Postgres
        } else if has("sqlite") {
            SqlDialect::Sqlite
        } else if has("snowflake") {
            SqlDialect::Snowflake
        } else if has("bigquery") {
            SqlDialect::BigQuery
        } else if has("duckdb") {
            SqlDialect::DuckDb
        } else if has("databricks") {
            SqlDialect::Databricks
        } else if has("sail") || has("spark") {
            SqlDialect::Spark
        } else if has("trino") {
            SqlDialect::Trino
        } else if has("clickhouse") {
            SqlDialect::ClickHouse
        } else if has("mysql") {
            SqlDialect::MySql
        } else if has("mariadb") {
            SqlDialect::MariaDb
        } else {
            SqlDialect::Generic
        }
    }

    /// The statements that make a new session read-only on this vendor: PostgreSQL's
    /// `SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY` (every later transaction is
    /// read-only), SQLite's `PRAGMA query_only = ON` (beside the `mode=ro` URI the URL
    /// mapping writes). Other vendors have no such statement (Snowflake, BigQuery and Flight
    /// SQL servers): the guard and the credentials' own rights are the fences there.
    pub fn read_only_session_sql(&self) -> Vec<String> {
        match self.sql_dialect() {
            SqlDialect::Postgres => {
                vec!["SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY".to_owned()]
            }
            SqlDialect::Sqlite => vec!["PRAGMA query_only = ON".to_owned()],
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vendor(name: &str) -> DriverInfo {
        DriverInfo {
            vendor_name: Some(name.to_owned()),
            ..DriverInfo::default()
        }
    }

    #[test]
    fn vendor_names_pick_dialects_and_sessions() {
        assert_eq!(vendor("PostgreSQL").sql_dialect(), SqlDialect::Postgres);
        assert_eq!(vendor("SQLite").sql_dialect(), SqlDialect::Sqlite);
        assert_eq!(vendor("Snowflake").sql_dialect(), SqlDialect::Snowflake);
        assert_eq!(
            vendor("Google BigQuery").sql_dialect(),
            SqlDialect::BigQuery
        );
        assert_eq!(
            vendor("Apache Arrow Flight SQL").sql_dialect(),
            SqlDialect::Generic
        );
        assert_eq!(DriverInfo::default().sql_dialect(), SqlDialect::Generic);
        assert_eq!(vendor("PostgreSQL").read_only_session_sql().len(), 1);
        assert!(vendor("Snowflake").read_only_session_sql().is_empty());
    }
}
