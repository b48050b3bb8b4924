//! DuckDB's own reading of a statement that reached the adapter without the guard's (the escape
//! hatch, [`ReadOnlySql::new_unchecked_allowing_writes`]): DuckDB's parser, asked through
//! `json_serialize_sql`, must read the text as exactly one query, or the statement is refused
//! as a [`DialectError::Permission`] that [`refused_as_writing`](super::errors) counts as the
//! readings disagreeing.
//!
//! Why this shape:
//! - duckdb-rs keeps the prepared statement's type (`duckdb_prepared_statement_type`) private,
//!   and this crate runs no unsafe code; `json_serialize_sql` is DuckDB's public way to see its
//!   parser's reading. It serializes SELECT statements only (DESCRIBE, SHOW, SUMMARIZE and
//!   `FROM`-first queries are SELECTs to DuckDB), so anything else, a `CREATE TEMP TABLE`,
//!   `SET VARIABLE`, `PREPARE`, `EXPLAIN`, a `PIVOT` statement, is refused. A text DuckDB cannot
//!   parse passes on to the statement itself, which fails with DuckDB's own syntax error.
//! - Checked statements do not pay for it (about 0.13 ms a call, measured against `SELECT 1`
//!   through the same crate): the guard read them, and what DuckDB might read otherwise meets
//!   its read-only layers (a read-only database, external access off, the configuration locked,
//!   refused and audited) or lives in the statement's own connection, which ends with it.
//! - Should DuckDB not give its reading (the json extension missing from a custom build), the
//!   statement is refused too: a second verdict that passes when it cannot be had is none.
//!
//! [`ReadOnlySql::new_unchecked_allowing_writes`]: nao_core::guard::ReadOnlySql::new_unchecked_allowing_writes

use duckdb::Connection;
use nao_core::DialectError;

/// The code of this layer's refusals.
pub(super) const NOT_ONE_QUERY_CODE: &str = "json_serialize_sql";

/// DuckDB's reading, reduced to what decides: the error type when it gives none back, and
/// how many statements it read.
const READING: &str = "\
    SELECT json_extract_string(j, '$.error_type'), json_array_length(j, '$.statements') \
    FROM (SELECT json_serialize_sql(?::VARCHAR) AS j)";

/// `Err` with a permission refusal unless DuckDB reads `sql` as exactly one query.
pub(super) fn refuse_non_queries(
    connection: &Connection,
    sql: &str,
    database: &str,
) -> Result<(), DialectError> {
    let reading = connection.query_row(READING, [sql], |row| {
        Ok((
            row.get::<_, Option<String>>(0)?,
            row.get::<_, Option<u64>>(1)?,
        ))
    });
    let refusal = match reading {
        Ok((None, Some(1))) => return Ok(()),
        // DuckDB's syntax error is the statement's own to report.
        Ok((Some(error), _)) if error == "parser" => return Ok(()),
        Ok((Some(_), _)) => "DuckDB reads this text as a statement other than a query".to_owned(),
        Ok((None, count)) => format!(
            "DuckDB reads this text as {} statements, and a call runs exactly one",
            count.unwrap_or(0)
        ),
        Err(e) => format!("DuckDB could not be asked how it reads this text ({e})"),
    };
    tracing::warn!(
        database,
        "a statement handed to DuckDB without the guard's reading is not one query to DuckDB's \
         parser; refused"
    );
    Err(DialectError::Permission {
        database: database.to_owned(),
        message: format!("refused: {refusal}; a data agent's connection runs one query only"),
        code: Some(NOT_ONE_QUERY_CODE.to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(sql: &str) -> Result<(), DialectError> {
        let connection = Connection::open_in_memory().unwrap();
        connection
            .execute_batch("CREATE TABLE t (a INTEGER, b VARCHAR)")
            .unwrap();
        refuse_non_queries(&connection, sql, "db")
    }

    #[test]
    fn one_query_passes_and_anything_else_is_refused() {
        for query in [
            "SELECT * FROM t",
            "FROM t",
            "DESCRIBE t",
            "SHOW TABLES",
            "SUMMARIZE t",
            "WITH c AS (SELECT 1 AS x) SELECT * FROM c",
            "SELECT 1;",
            // Not DuckDB SQL: its own syntax error comes from running it.
            "SELEC 1",
        ] {
            assert!(verdict(query).is_ok(), "{query}: {:?}", verdict(query));
        }
        for other in [
            "CREATE TEMP TABLE x AS SELECT 1",
            "CREATE TEMP MACRO m(x) AS x + 1",
            "SET VARIABLE v = 1",
            "PREPARE p AS SELECT 1",
            "BEGIN TRANSACTION",
            "INSERT INTO t VALUES (1, 'x')",
            "CALL pragma_version()",
            "EXPLAIN SELECT 1",
            "SELECT 1; SELECT 2",
            "SELECT 1; DROP TABLE t",
        ] {
            match verdict(other) {
                Err(DialectError::Permission { code, message, .. }) => {
                    assert_eq!(code.as_deref(), Some(NOT_ONE_QUERY_CODE), "{other}");
                    assert!(
                        message.starts_with("refused: DuckDB reads"),
                        "{other}: {message}"
                    );
                }
                outcome => panic!("{other}: {outcome:?}"),
            }
        }
    }
}
