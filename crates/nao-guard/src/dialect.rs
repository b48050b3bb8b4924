//! The SQL dialects the guard understands, and the sqlparser dialect that parses each.

use std::fmt;
use std::str::FromStr;

use sqlparser::dialect::{
    AnsiDialect, BigQueryDialect, DatabricksDialect, Dialect, GenericDialect, HiveDialect,
    MsSqlDialect, MySqlDialect, PostgreSqlDialect, RedshiftSqlDialect, SQLiteDialect,
    SnowflakeDialect, SparkSqlDialect,
};

use crate::extended::{ClickHouseExtended, DuckDbExtended};

/// An engine family whose SQL the guard parses, checks and rewrites.
///
/// Each variant maps to the sqlparser dialect that parses it (see [`SqlDialect::parser_dialect`])
/// and to its own catalogue of allowed and denied functions. Wire-compatible engines share a
/// variant: say `MySql` for StarRocks, Doris and TiDB, `Postgres` for CockroachDB or YugabyteDB,
/// `Trino` for Presto and Athena, `MsSql` for Fabric and Synapse.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SqlDialect {
    /// Permissive SQL that no particular engine owns (parses the union of common syntax).
    Generic,
    /// Strict ANSI SQL (row caps are written as `FETCH FIRST n ROWS ONLY`).
    Ansi,
    /// PostgreSQL and wire-compatible engines.
    Postgres,
    /// Amazon Redshift.
    Redshift,
    /// MySQL, and the MySQL-compatible StarRocks, Doris and TiDB.
    MySql,
    /// MariaDB.
    MariaDb,
    /// SQLite.
    Sqlite,
    /// DuckDB.
    DuckDb,
    /// Snowflake.
    Snowflake,
    /// Google BigQuery (GoogleSQL).
    BigQuery,
    /// Databricks SQL.
    Databricks,
    /// Apache Spark SQL.
    Spark,
    /// Apache Hive.
    Hive,
    /// Microsoft SQL Server, Azure SQL, Fabric and Synapse (T-SQL; row caps are written as `TOP`).
    MsSql,
    /// ClickHouse.
    ClickHouse,
    /// Trino, Presto and Amazon Athena.
    Trino,
}

impl SqlDialect {
    /// Every dialect, in declaration order.
    pub const ALL: [SqlDialect; 16] = [
        SqlDialect::Generic,
        SqlDialect::Ansi,
        SqlDialect::Postgres,
        SqlDialect::Redshift,
        SqlDialect::MySql,
        SqlDialect::MariaDb,
        SqlDialect::Sqlite,
        SqlDialect::DuckDb,
        SqlDialect::Snowflake,
        SqlDialect::BigQuery,
        SqlDialect::Databricks,
        SqlDialect::Spark,
        SqlDialect::Hive,
        SqlDialect::MsSql,
        SqlDialect::ClickHouse,
        SqlDialect::Trino,
    ];

    /// The canonical lower-case name (`"postgres"`, `"duckdb"`, …), accepted by [`FromStr`].
    pub fn name(self) -> &'static str {
        match self {
            SqlDialect::Generic => "generic",
            SqlDialect::Ansi => "ansi",
            SqlDialect::Postgres => "postgres",
            SqlDialect::Redshift => "redshift",
            SqlDialect::MySql => "mysql",
            SqlDialect::MariaDb => "mariadb",
            SqlDialect::Sqlite => "sqlite",
            SqlDialect::DuckDb => "duckdb",
            SqlDialect::Snowflake => "snowflake",
            SqlDialect::BigQuery => "bigquery",
            SqlDialect::Databricks => "databricks",
            SqlDialect::Spark => "spark",
            SqlDialect::Hive => "hive",
            SqlDialect::MsSql => "mssql",
            SqlDialect::ClickHouse => "clickhouse",
            SqlDialect::Trino => "trino",
        }
    }

    /// The engine's name as people write it (`"PostgreSQL"`, `"DuckDB"`, `"SQL Server
    /// (T-SQL)"`), for prompts, messages and logs; [`SqlDialect::name`] is the one to parse.
    ///
    /// ```
    /// use nao_guard::SqlDialect;
    ///
    /// assert_eq!(SqlDialect::Postgres.display_name(), "PostgreSQL");
    /// assert_eq!(SqlDialect::DuckDb.display_name(), "DuckDB");
    /// ```
    pub fn display_name(self) -> &'static str {
        match self {
            SqlDialect::Generic => "generic SQL",
            SqlDialect::Ansi => "ANSI SQL",
            SqlDialect::Postgres => "PostgreSQL",
            SqlDialect::Redshift => "Amazon Redshift",
            SqlDialect::MySql => "MySQL",
            SqlDialect::MariaDb => "MariaDB",
            SqlDialect::Sqlite => "SQLite",
            SqlDialect::DuckDb => "DuckDB",
            SqlDialect::Snowflake => "Snowflake",
            SqlDialect::BigQuery => "BigQuery (GoogleSQL)",
            SqlDialect::Databricks => "Databricks SQL",
            SqlDialect::Spark => "Spark SQL",
            SqlDialect::Hive => "Hive",
            SqlDialect::MsSql => "SQL Server (T-SQL)",
            SqlDialect::ClickHouse => "ClickHouse",
            SqlDialect::Trino => "Trino/Presto",
        }
    }

    /// The sqlparser dialect that parses this engine's SQL.
    pub fn parser_dialect(self) -> &'static dyn Dialect {
        match self {
            SqlDialect::Generic | SqlDialect::Trino => &GenericDialect,
            SqlDialect::Ansi => &AnsiDialect {},
            SqlDialect::Postgres => &PostgreSqlDialect {},
            SqlDialect::Redshift => &RedshiftSqlDialect {},
            SqlDialect::MySql | SqlDialect::MariaDb => &MySqlDialect {},
            SqlDialect::Sqlite => &SQLiteDialect {},
            SqlDialect::DuckDb => &DuckDbExtended,
            SqlDialect::Snowflake => &SnowflakeDialect,
            SqlDialect::BigQuery => &BigQueryDialect,
            SqlDialect::Databricks => &DatabricksDialect,
            SqlDialect::Spark => &SparkSqlDialect,
            SqlDialect::Hive => &HiveDialect {},
            SqlDialect::MsSql => &MsSqlDialect {},
            SqlDialect::ClickHouse => &ClickHouseExtended,
        }
    }

    /// Whether the engine reads `x.f` as the function call `f(x)` when `x` has no column or
    /// field `f` (PostgreSQL's attribute notation, which Redshift inherits). The generic
    /// dialects say yes, since their text may run on such an engine.
    pub fn calls_functions_through_attributes(self) -> bool {
        matches!(
            self,
            SqlDialect::Postgres | SqlDialect::Redshift | SqlDialect::Generic | SqlDialect::Ansi
        )
    }

    /// Whether operators and casts may run user-defined functions: PostgreSQL runs the
    /// function behind an operator and a type's input function, cast function and domain
    /// checks on a cast, and lets users define all of them. The generic dialects say yes.
    pub fn runs_functions_behind_operators_and_casts(self) -> bool {
        self.calls_functions_through_attributes()
    }

    /// Whether the engine parses a `.f()` method call only after some expressions where
    /// sqlparser takes it after any: DuckDB reads it after a name, a parenthesized expression, a
    /// call, a cast, `CASE` and a list, struct or map literal, but not after a literal
    /// (`'abc'.upper()`), a typed literal or interval, a subquery, `COLUMNS(…)` or a column's
    /// subscript (`l[1].abs()`), which it refuses as a syntax error.
    pub fn restricts_method_call_receivers(self) -> bool {
        matches!(self, SqlDialect::DuckDb)
    }

    /// Whether the engine reads `0x1F` as one hex literal, as sqlparser does (a binary string in
    /// MySQL and T-SQL; the integer 31 in SQLite, ClickHouse, BigQuery, Trino and PostgreSQL 16).
    /// DuckDB reads the number 0 followed by the alias `x1F`, so `0x1F + 1` does not parse there
    /// and `SELECT 0x1F` is 0: the guard refuses the form in DuckDB.
    pub fn reads_hex_numbers(self) -> bool {
        !matches!(self, SqlDialect::DuckDb)
    }

    /// Whether `LIMIT` may follow a query that is, or ends with, a `VALUES` list (`VALUES (1),
    /// (2) LIMIT 5`). SQLite's grammar gives `LIMIT` to `SELECT` only, so the row cap wraps such a
    /// query there.
    pub fn takes_limit_after_values(self) -> bool {
        !matches!(self, SqlDialect::Sqlite)
    }

    /// Whether the engine has DuckDB's `SUMMARIZE <table or query>` statement, which the guard
    /// reads as a query over its dataset and runs as written (DuckDB takes no `LIMIT` after it).
    pub fn reads_summarize(self) -> bool {
        matches!(self, SqlDialect::DuckDb)
    }

    /// Whether every CTE may refer to itself without the `RECURSIVE` keyword (T-SQL,
    /// Snowflake), so a CTE's own name inside its body is the CTE, not a table.
    pub fn ctes_are_implicitly_recursive(self) -> bool {
        matches!(self, SqlDialect::MsSql | SqlDialect::Snowflake)
    }

    /// The characters that open and close a quoted identifier: backticks for the MySQL family,
    /// BigQuery, Spark/Databricks/Hive and ClickHouse, square brackets for SQL Server, double
    /// quotes elsewhere.
    pub fn identifier_quotes(self) -> (char, char) {
        match self {
            SqlDialect::MySql
            | SqlDialect::MariaDb
            | SqlDialect::BigQuery
            | SqlDialect::Databricks
            | SqlDialect::Spark
            | SqlDialect::Hive
            | SqlDialect::ClickHouse => ('`', '`'),
            SqlDialect::MsSql => ('[', ']'),
            _ => ('"', '"'),
        }
    }

    /// `name` as a quoted identifier of this dialect, the closing quote doubled inside.
    ///
    /// ```
    /// use nao_guard::SqlDialect;
    ///
    /// assert_eq!(SqlDialect::Postgres.quote_identifier("a\"b"), "\"a\"\"b\"");
    /// assert_eq!(SqlDialect::MySql.quote_identifier("order"), "`order`");
    /// assert_eq!(SqlDialect::MsSql.quote_identifier("x]y"), "[x]]y]");
    /// ```
    pub fn quote_identifier(self, name: &str) -> String {
        let (open, close) = self.identifier_quotes();
        let escaped = name.replace(close, &format!("{close}{close}"));
        format!("{open}{escaped}{close}")
    }

    /// How this engine caps the rows of a query.
    pub fn row_cap_syntax(self) -> RowCapSyntax {
        match self {
            SqlDialect::MsSql => RowCapSyntax::Top,
            SqlDialect::Ansi => RowCapSyntax::FetchFirst,
            _ => RowCapSyntax::Limit,
        }
    }
}

/// The clause an engine uses to cap the rows of a query; the guard writes its row cap in it.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RowCapSyntax {
    /// `LIMIT n` (most engines).
    Limit,
    /// `SELECT TOP n …` (T-SQL).
    Top,
    /// `FETCH FIRST n ROWS ONLY` (ANSI SQL:2008).
    FetchFirst,
}

impl fmt::Display for SqlDialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing a [`SqlDialect`] from an unknown name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown SQL dialect {name:?}; expected one of: generic, ansi, postgres, redshift, mysql, \
     mariadb, sqlite, duckdb, snowflake, bigquery, databricks, spark, hive, mssql, clickhouse, trino"
)]
pub struct UnknownDialect {
    /// The name that was given.
    pub name: String,
}

impl FromStr for SqlDialect {
    type Err = UnknownDialect;

    /// Parses a dialect name, case-insensitively, including the names of compatible engines
    /// (`"postgresql"`, `"tidb"`, `"presto"`, `"athena"`, `"tsql"`, `"sqlserver"`, …).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        let dialect = match lower.as_str() {
            "generic" => SqlDialect::Generic,
            "ansi" => SqlDialect::Ansi,
            "postgres" | "postgresql" | "pg" | "cockroachdb" | "yugabytedb" | "greenplum"
            | "materialize" | "risingwave" => SqlDialect::Postgres,
            "redshift" => SqlDialect::Redshift,
            "mysql" | "starrocks" | "doris" | "tidb" | "singlestore" => SqlDialect::MySql,
            "mariadb" => SqlDialect::MariaDb,
            "sqlite" | "sqlite3" => SqlDialect::Sqlite,
            "duckdb" => SqlDialect::DuckDb,
            "snowflake" => SqlDialect::Snowflake,
            "bigquery" | "googlesql" => SqlDialect::BigQuery,
            "databricks" => SqlDialect::Databricks,
            "spark" | "sparksql" => SqlDialect::Spark,
            "hive" => SqlDialect::Hive,
            "mssql" | "tsql" | "sqlserver" | "fabric" | "synapse" | "azuresql" => SqlDialect::MsSql,
            "clickhouse" => SqlDialect::ClickHouse,
            "trino" | "presto" | "athena" => SqlDialect::Trino,
            _ => return Err(UnknownDialect { name: s.to_owned() }),
        };
        Ok(dialect)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_round_trips() {
        for dialect in SqlDialect::ALL {
            assert_eq!(dialect.name().parse::<SqlDialect>(), Ok(dialect));
            assert_eq!(
                dialect.to_string().to_uppercase().parse::<SqlDialect>(),
                Ok(dialect)
            );
        }
    }

    #[test]
    fn unknown_name_lists_the_known_ones() {
        let err = "oracle9".parse::<SqlDialect>().unwrap_err();
        assert!(err.to_string().contains("\"oracle9\""));
        assert!(err.to_string().contains("duckdb"));
    }
}
