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

    /// `value` as a string literal of this dialect that the engine reads back as exactly
    /// `value`, or `None` when no plain literal of the dialect can hold it. For values that
    /// come from outside (a model's tool arguments) put into SQL an operator wrote.
    ///
    /// Each engine's own rules, chosen so that a literal can never end early whatever the
    /// engine's settings:
    /// - **Standard strings** (SQLite, DuckDB, Trino, ANSI): `'…'`, a quote doubled; a
    ///   backslash is an ordinary character.
    /// - **PostgreSQL**: the same while the value holds no backslash; with one, an escape string
    ///   `E'…'` with the backslashes doubled, which reads the same whether
    ///   `standard_conforming_strings` is on or off (a plain literal would not).
    /// - **Backslash escapes** (MySQL, MariaDB, ClickHouse, Snowflake, Redshift): a backslash
    ///   doubled and a quote doubled (`''`, not `\'`, so the literal still closes where it
    ///   should under MySQL's `NO_BACKSLASH_ESCAPES`, where the value would only read with its
    ///   backslashes doubled); NUL as `\0` where the engine has that escape.
    /// - **BigQuery, Databricks, Spark, Hive**: backslash escapes only (a doubled quote is two
    ///   adjacent literals there, concatenated); BigQuery's single-quoted strings cannot span
    ///   lines, so line breaks are written `\n` and `\r`.
    /// - **SQL Server**: a Unicode literal `N'…'` (a plain one is converted to the database's
    ///   code page), a quote doubled.
    ///
    /// `None` for: a NUL character, except in MySQL, MariaDB, ClickHouse and Snowflake, which
    /// have an escape for it (PostgreSQL and Redshift cannot store one in text at all, SQLite
    /// may read it as the end of the SQL, the others have no plain literal for it); any
    /// backslash in [`SqlDialect::Generic`], whose engine, and so whether a backslash escapes,
    /// is unknown; a backslash before a line break in SQL Server, which reads that pair as a
    /// line continuation and drops both.
    ///
    /// ```
    /// use nao_guard::SqlDialect;
    ///
    /// assert_eq!(SqlDialect::Sqlite.quote_string_literal("it's").as_deref(), Some("'it''s'"));
    /// assert_eq!(SqlDialect::Postgres.quote_string_literal("a\\b").as_deref(), Some("E'a\\\\b'"));
    /// assert_eq!(SqlDialect::MySql.quote_string_literal("a\\'b").as_deref(), Some("'a\\\\''b'"));
    /// assert_eq!(SqlDialect::MsSql.quote_string_literal("é").as_deref(), Some("N'é'"));
    /// assert_eq!(SqlDialect::Postgres.quote_string_literal("a\0b"), None);
    /// ```
    pub fn quote_string_literal(self, value: &str) -> Option<String> {
        /// How a dialect escapes a quote inside its literal.
        enum Quote {
            Doubled,
            Backslashed,
        }
        let has_backslash = value.contains('\\');
        let (prefix, backslash_escapes, quote, nul, escape_line_breaks) = match self {
            SqlDialect::Generic if has_backslash => return None,
            SqlDialect::Generic
            | SqlDialect::Ansi
            | SqlDialect::Sqlite
            | SqlDialect::DuckDb
            | SqlDialect::Trino => ("", false, Quote::Doubled, None, false),
            SqlDialect::Postgres if has_backslash => ("E", true, Quote::Doubled, None, false),
            SqlDialect::Postgres => ("", false, Quote::Doubled, None, false),
            SqlDialect::Redshift => ("", true, Quote::Doubled, None, false),
            SqlDialect::MySql
            | SqlDialect::MariaDb
            | SqlDialect::ClickHouse
            | SqlDialect::Snowflake => ("", true, Quote::Doubled, Some("\\0"), false),
            SqlDialect::BigQuery => ("", true, Quote::Backslashed, None, true),
            SqlDialect::Databricks | SqlDialect::Spark | SqlDialect::Hive => {
                ("", true, Quote::Backslashed, None, false)
            }
            SqlDialect::MsSql => {
                let continuation = value
                    .as_bytes()
                    .windows(2)
                    .any(|w| w[0] == b'\\' && matches!(w[1], b'\n' | b'\r'));
                if continuation {
                    return None;
                }
                ("N", false, Quote::Doubled, None, false)
            }
        };
        let mut out = String::with_capacity(value.len() + prefix.len() + 2);
        out.push_str(prefix);
        out.push('\'');
        for c in value.chars() {
            match c {
                '\'' => out.push_str(match quote {
                    Quote::Doubled => "''",
                    Quote::Backslashed => "\\'",
                }),
                '\\' if backslash_escapes => out.push_str("\\\\"),
                '\0' => out.push_str(nul?),
                '\n' if escape_line_breaks => out.push_str("\\n"),
                '\r' if escape_line_breaks => out.push_str("\\r"),
                c => out.push(c),
            }
        }
        out.push('\'');
        Some(out)
    }

    /// The literal for a boolean: `TRUE` or `FALSE`, and `1` or `0` in SQL Server, which has
    /// no boolean literals (its `bit` columns compare with numbers).
    ///
    /// ```
    /// use nao_guard::SqlDialect;
    ///
    /// assert_eq!(SqlDialect::DuckDb.boolean_literal(true), "TRUE");
    /// assert_eq!(SqlDialect::MsSql.boolean_literal(false), "0");
    /// ```
    pub fn boolean_literal(self, value: bool) -> &'static str {
        match (self, value) {
            (SqlDialect::MsSql, true) => "1",
            (SqlDialect::MsSql, false) => "0",
            (_, true) => "TRUE",
            (_, false) => "FALSE",
        }
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

    /// Values a model might send to break out of a literal, and ordinary awkward ones.
    const NASTY: [&str; 16] = [
        "",
        "plain",
        "it's",
        "''",
        "'; DROP TABLE t; --",
        "\\",
        "\\'",
        "x\\' OR 1=1 -- ",
        "\\\\'' /*",
        "line\none\r\ntwo",
        "tab\there",
        "unicode: é ü 中文 🦀",
        "look-alikes: \u{2019} \u{02BC} \u{FF07} \u{201C}",
        "-- comment start",
        "/* block */ ; select 1",
        "%_\\%\\_",
    ];

    /// The one token sqlparser reads from `literal` in `dialect`, as (its value, whether it
    /// is an escape string).
    fn read_back(dialect: SqlDialect, literal: &str) -> (String, &'static str) {
        use sqlparser::tokenizer::{Token, Tokenizer};
        let tokens = Tokenizer::new(dialect.parser_dialect(), literal)
            .tokenize()
            .unwrap_or_else(|e| panic!("{dialect}: {literal:?} does not tokenize: {e}"));
        match tokens.as_slice() {
            [Token::SingleQuotedString(s)] => (s.clone(), "plain"),
            [Token::EscapedStringLiteral(s)] => (s.clone(), "escaped"),
            [Token::NationalStringLiteral(s)] => (s.clone(), "national"),
            other => panic!("{dialect}: {literal:?} reads as {other:?}"),
        }
    }

    #[test]
    fn string_literals_read_back_as_the_value_in_every_dialect() {
        for dialect in SqlDialect::ALL {
            for value in NASTY {
                let Some(literal) = dialect.quote_string_literal(value) else {
                    assert!(
                        dialect == SqlDialect::Generic && value.contains('\\'),
                        "{dialect}: {value:?} refused"
                    );
                    continue;
                };
                // sqlparser's Spark and Hive dialects read no backslash escapes, the engines
                // do: only values without backslashes or quotes read the same there.
                let parser_agrees = !matches!(dialect, SqlDialect::Spark | SqlDialect::Hive)
                    || !value.contains(['\\', '\'']);
                if parser_agrees {
                    assert_eq!(
                        read_back(dialect, &literal).0,
                        value,
                        "{dialect}: {literal}"
                    );
                }
            }
        }
    }

    #[test]
    fn backslash_literals_still_close_where_backslashes_are_ordinary() {
        // MySQL under NO_BACKSLASH_ESCAPES, PostgreSQL with standard_conforming_strings off
        // and on: read with the other rule, the literal is still one literal.
        for dialect in [
            SqlDialect::MySql,
            SqlDialect::MariaDb,
            SqlDialect::ClickHouse,
            SqlDialect::Snowflake,
            SqlDialect::Redshift,
        ] {
            for value in NASTY {
                let literal = dialect.quote_string_literal(value).unwrap_or_default();
                let (read, _) = read_back(SqlDialect::Ansi, &literal);
                assert_eq!(read.replace("\\\\", "\\"), value, "{dialect}: {literal}");
            }
        }
        for value in NASTY {
            let literal = SqlDialect::Postgres
                .quote_string_literal(value)
                .unwrap_or_default();
            let (read, kind) = read_back(SqlDialect::Postgres, &literal);
            assert_eq!(read, value);
            assert_eq!(kind == "escaped", value.contains('\\'), "{literal}");
            if kind == "plain" {
                // No backslash: MySQL's rules (backslash escapes) read it the same.
                assert_eq!(read_back(SqlDialect::MySql, &literal).0, value);
            }
        }
    }

    #[test]
    fn string_literal_forms_per_dialect() {
        let quote = |d: SqlDialect, v: &str| d.quote_string_literal(v);
        assert_eq!(
            quote(SqlDialect::DuckDb, "a'\\b").as_deref(),
            Some("'a''\\b'")
        );
        assert_eq!(quote(SqlDialect::Sqlite, "a\nb").as_deref(), Some("'a\nb'"));
        assert_eq!(
            quote(SqlDialect::Postgres, "a'b").as_deref(),
            Some("'a''b'")
        );
        assert_eq!(
            quote(SqlDialect::Postgres, "a\\'b").as_deref(),
            Some("E'a\\\\''b'")
        );
        assert_eq!(
            quote(SqlDialect::MySql, "\\'\0").as_deref(),
            Some("'\\\\''\\0'")
        );
        assert_eq!(
            quote(SqlDialect::ClickHouse, "\0").as_deref(),
            Some("'\\0'")
        );
        assert_eq!(
            quote(SqlDialect::BigQuery, "it's\n\\").as_deref(),
            Some("'it\\'s\\n\\\\'")
        );
        assert_eq!(
            quote(SqlDialect::Spark, "it's").as_deref(),
            Some("'it\\'s'")
        );
        assert_eq!(
            quote(SqlDialect::MsSql, "it's").as_deref(),
            Some("N'it''s'")
        );
        assert_eq!(quote(SqlDialect::MsSql, "a\\b").as_deref(), Some("N'a\\b'"));
        assert_eq!(quote(SqlDialect::MsSql, "a\\\nb"), None);
        assert_eq!(quote(SqlDialect::Generic, "a\\b"), None);
        assert_eq!(quote(SqlDialect::Ansi, "a\\b").as_deref(), Some("'a\\b'"));
        for dialect in SqlDialect::ALL {
            let nul = quote(dialect, "a\0b");
            let has_escape = matches!(
                dialect,
                SqlDialect::MySql
                    | SqlDialect::MariaDb
                    | SqlDialect::ClickHouse
                    | SqlDialect::Snowflake
            );
            assert_eq!(nul.is_some(), has_escape, "{dialect}: {nul:?}");
            assert_eq!(quote(dialect, "🦀").map(|l| l.contains('🦀')), Some(true));
        }
    }

    #[test]
    fn boolean_literals() {
        for dialect in SqlDialect::ALL {
            let (t, f) = (
                dialect.boolean_literal(true),
                dialect.boolean_literal(false),
            );
            if dialect == SqlDialect::MsSql {
                assert_eq!((t, f), ("1", "0"));
            } else {
                assert_eq!((t, f), ("TRUE", "FALSE"));
            }
        }
    }

    #[test]
    fn unknown_name_lists_the_known_ones() {
        let err = "oracle9".parse::<SqlDialect>().unwrap_err();
        assert!(err.to_string().contains("\"oracle9\""));
        assert!(err.to_string().contains("duckdb"));
    }
}
