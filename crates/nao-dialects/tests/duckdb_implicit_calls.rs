//! DuckDB's own forms of calls that are not written as calls, checked against the engine: its
//! dot operator chains functions only with parentheses (`x.upper()`), which the guard walks as a
//! call, while `x.f` without them is a column or struct field, never a call (unlike
//! PostgreSQL's attribute notation, see `postgres_attribute_calls.rs`).
#![cfg(feature = "duckdb")]
#![allow(clippy::unwrap_used)] // Tests: a failed unwrap is a failed test.

use arrow_array::cast::AsArray;
use arrow_schema::DataType;
use nao_core::guard::{Policy, ReadOnlySql, RejectKind, SqlDialect, check};
use nao_core::{DialectExt, ExecOptions};
use nao_dialects::duckdb::DuckDbDialect;

fn database() -> DuckDbDialect {
    DuckDbDialect::in_memory("duck", |connection| {
        connection.execute_batch(
            "CREATE TABLE t (id INTEGER, s STRUCT(upper VARCHAR, getenv VARCHAR));
             INSERT INTO t VALUES (1, {'upper': 'field', 'getenv': 'field'});",
        )
    })
    .unwrap()
}

/// What the engine makes of a statement the guard never sees (so the engine's own reading is
/// what is tested).
async fn engine_reads(db: &DuckDbDialect, sql: &str) -> Result<String, String> {
    let unchecked = ReadOnlySql::new_unchecked_allowing_writes(sql, SqlDialect::DuckDb);
    let result = db
        .query(&unchecked, &ExecOptions::default())
        .await
        .map_err(|e| e.to_string())?;
    let batch = result.batches.first().ok_or("no rows")?;
    let column = batch.column(0);
    let value = match column.data_type() {
        DataType::Utf8View => column.as_string_view().value(0).to_owned(),
        _ => column.as_string::<i32>().value(0).to_owned(),
    };
    Ok(value)
}

#[tokio::test]
async fn a_dot_without_parentheses_is_never_a_call() {
    let db = database();
    // A function name after a dot, on a value: the engine refuses it rather than calling it.
    let on_value = engine_reads(&db, "SELECT ('abc').upper").await;
    assert!(
        on_value.is_err(),
        "DuckDB called upper through a dot: {on_value:?}"
    );
    // On a struct column, it is the field, even when a function has that name.
    assert_eq!(
        engine_reads(&db, "SELECT t.s.upper FROM t").await.unwrap(),
        "field"
    );
    assert_eq!(
        engine_reads(&db, "SELECT t.s.getenv FROM t").await.unwrap(),
        "field"
    );
    // With parentheses it is a call, and the guard sees it as one.
    assert_eq!(
        engine_reads(&db, "SELECT ('abc').upper()").await.unwrap(),
        "ABC"
    );
    for sql in [
        "SELECT ('HOME').getenv()",
        "SELECT t.s.getenv.getenv() FROM t",
    ] {
        let refused = check(sql, SqlDialect::DuckDb, &Policy::default()).unwrap_err();
        assert!(
            matches!(refused.kind(), RejectKind::Function { .. }),
            "{sql}: {refused:?}"
        );
    }
}
