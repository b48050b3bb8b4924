//! sqlparser dialects extended with engine syntax that sqlparser 0.64 does not read, through
//! its public extension hooks (no copy of its code): each wraps the engine's own sqlparser
//! dialect, answers for it in every method it overrides (and in `dialect()`, so that the
//! parser's dialect checks still see the engine), and adds what is missing.
//!
//! - DuckDB ([`DuckDbExtended`]): the simplified `PIVOT` / `UNPIVOT` statements (also spelled
//!   `PIVOT_WIDER` / `PIVOT_LONGER`), read as a query over the SQL-standard `PIVOT` / `UNPIVOT`
//!   table factor with the same table, expressions and aggregates; `SUMMARIZE <table or
//!   query>`, read as `SELECT *, min(*)` over the dataset (every column read and computed
//!   over); `* RENAME (…)`, the capability sqlparser already has for Snowflake.
//! - ClickHouse ([`ClickHouseExtended`]): `WITH <expression> AS <name>` items, read as the CTE
//!   `<name> AS (SELECT <expression>)`.
//!
//! Since the guard never prints a tree (the row cap is spliced into the text as written), the
//! tree only has to read the same tables, functions and columns as the engine; the tests check
//! that every statement the engine's own sqlparser dialect reads is read the same here.

mod clickhouse;
mod clickhouse_with;
mod duckdb;
mod duckdb_pivot;
mod duckdb_summarize;
#[cfg(test)]
mod tests;

pub(crate) use clickhouse::ClickHouseExtended;
pub(crate) use duckdb::DuckDbExtended;
pub(crate) use duckdb_summarize::starts_summarize;
