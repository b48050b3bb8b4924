//! The checks every adapter must pass, run by each adapter's tests against its real engine.
//!
//! Before calling them, a test creates the fixture ([`FIXTURE_STATEMENTS`], portable SQL) through
//! a writable connection of its own, then opens the adapter read-only on the same database.
//! (Engines that serve files rather than take writes load the same table another way: the
//! `demo_parquet` example writes it as Parquet for Sail, Spark and roapi.) A [`Profile`] says
//! how to ask the engine for generated rows and which duties it cannot fulfil itself; the
//! default is portable SQL on an engine with a read-only mode. Each check panics with a message
//! naming the adapter and what failed.

use std::time::Duration;

use futures_util::StreamExt;
use nao_core::guard::{Policy, ReadOnlySql, check};
use nao_core::render::Truncation;
use nao_core::{
    Dialect, DialectError, DialectExt, ExecOptions, TableFilter, TableRef, TableSchema,
};
use tokio_util::sync::CancellationToken;

mod profile;

pub use profile::{DecimalForm, Profile};

/// The fixture table's name.
pub const FIXTURE_TABLE: &str = "nao_conformance";

/// Creates and fills the fixture table (portable SQL; run through a writable connection).
pub const FIXTURE_STATEMENTS: &[&str] = &[
    "CREATE TABLE nao_conformance (id INTEGER NOT NULL, name VARCHAR(40), amount DECIMAL(12, 2))",
    "INSERT INTO nao_conformance (id, name, amount) VALUES (1, 'alpha', 10.50), (2, 'beta', NULL), (3, NULL, -0.25)",
];

/// A described table's columns as `(name, declared type, nullable)`, for comparing with what a
/// test created.
pub fn declared_columns(schema: &TableSchema) -> Vec<(&str, &str, bool)> {
    schema
        .columns
        .iter()
        .map(|c| (c.name.as_str(), c.engine_type.as_str(), c.nullable))
        .collect()
}

/// A query yielding `n` rows (1..=n) in any engine with recursive CTEs.
pub fn series_sql(n: u64) -> String {
    format!(
        "WITH RECURSIVE series(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM series WHERE n < {n}) \
         SELECT n FROM series"
    )
}

/// A query yielding a million rows that engines can stream (a cross join of two 1 000-row
/// series; a million-step recursive CTE is computed whole before the first row by some
/// engines).
pub fn million_rows_sql() -> String {
    "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 1000) \
     SELECT a.n * 1000 + b.n AS n FROM s AS a, s AS b"
        .to_owned()
}

/// A query that runs for a long time and returns nothing until it is done: counting to
/// ten billion through a recursive CTE.
pub fn slow_sql() -> String {
    "WITH RECURSIVE series(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM series WHERE n < 10000000000) \
     SELECT count(*) FROM series"
        .to_owned()
}

fn checked(dialect: &dyn Dialect, sql: &str) -> ReadOnlySql {
    let policy = Policy::default();
    check(sql, dialect.sql_dialect(), &policy).unwrap_or_else(|e| {
        panic!(
            "{}: the guard refused conformance SQL {sql:?}: {e}",
            dialect.name()
        )
    })
}

/// Runs every check below on an engine of the [portable](Profile::portable) profile.
pub async fn run_all(dialect: &dyn Dialect) {
    run_all_with(dialect, &Profile::portable()).await;
}

/// Runs every check below on an engine of `profile`.
pub async fn run_all_with(dialect: &dyn Dialect, profile: &Profile) {
    reads_the_fixture(dialect, profile).await;
    row_cap_marks_truncation(dialect, profile).await;
    empty_result_keeps_its_schema(dialect).await;
    timeout_stops_a_slow_query(dialect, profile).await;
    cancellation_stops_a_slow_query(dialect, profile).await;
    writes_are_refused(dialect, profile).await;
    introspection_lists_and_describes(dialect, profile).await;
    errors_are_classified(dialect).await;
    dropping_the_stream_stops_the_query(dialect, profile).await;
}

/// The fixture reads back with the right row count, NULLs and exact values, its decimal column
/// in the form `profile` declares ([`DecimalForm`]).
pub async fn reads_the_fixture(dialect: &dyn Dialect, profile: &Profile) {
    let name = dialect.name();
    let sql = checked(
        dialect,
        "SELECT id, name, amount FROM nao_conformance ORDER BY id",
    );
    let result = dialect
        .query(&sql, &ExecOptions::default())
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(result.row_count, 3, "{name}: fixture rows");
    assert!(
        result.truncation.is_none(),
        "{name}: the fixture is not truncated"
    );
    let names: Vec<&str> = result
        .schema
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(names, ["id", "name", "amount"], "{name}: column names");
    let nulls: usize = result
        .batches
        .iter()
        .map(|b| b.column(1).null_count())
        .sum();
    assert_eq!(nulls, 1, "{name}: one NULL name");
    let form = profile.decimal_form();
    let amount_type = result.schema.field(2).data_type();
    let (expected_type, expected): (&str, [Option<&str>; 3]) = match form {
        DecimalForm::Float => ("Float64", [Some("10.5"), None, Some("-0.25")]),
        DecimalForm::ExactText => ("Utf8", [Some("10.50"), None, Some("-0.25")]),
        _ => ("Decimal128(12, 2)", [Some("10.50"), None, Some("-0.25")]),
    };
    assert_eq!(
        amount_type.to_string(),
        expected_type,
        "{name}: DECIMAL(12, 2) read as {form:?} must be {expected_type}"
    );
    let amounts: Vec<Option<String>> = result
        .batches
        .iter()
        .flat_map(|batch| {
            let column = batch.column(2);
            (0..column.len()).map(move |row| amount_text(column.as_ref(), row))
        })
        .collect();
    let expected: Vec<Option<String>> = expected.iter().map(|v| v.map(str::to_owned)).collect();
    assert_eq!(amounts, expected, "{name}: the amounts, exactly");
}

/// One value of the fixture's decimal column as text (`None` for NULL).
fn amount_text(column: &dyn arrow_array::Array, row: usize) -> Option<String> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Decimal128Type, Float64Type};
    if column.is_null(row) {
        return None;
    }
    Some(match column.data_type() {
        arrow_schema::DataType::Decimal128(..) => {
            column.as_primitive::<Decimal128Type>().value_as_string(row)
        }
        arrow_schema::DataType::Float64 => {
            column.as_primitive::<Float64Type>().value(row).to_string()
        }
        arrow_schema::DataType::Utf8 => column.as_string::<i32>().value(row).to_owned(),
        other => format!("a value of type {other}"),
    })
}

/// A cap below the result size keeps exactly the cap and says the result was cut; a cap equal
/// to the result size keeps it all and does not.
pub async fn row_cap_marks_truncation(dialect: &dyn Dialect, profile: &Profile) {
    let name = dialect.name();
    let sql = checked(dialect, &profile.series_sql(100));
    let capped = dialect
        .query(&sql, &ExecOptions::default().with_max_rows(10))
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(capped.row_count, 10, "{name}: capped rows");
    assert_eq!(
        capped.truncation,
        Some(Truncation::RowCap { cap: 10 }),
        "{name}: truncation"
    );
    let exact = dialect
        .query(&sql, &ExecOptions::default().with_max_rows(100))
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(exact.row_count, 100, "{name}: uncapped rows");
    assert_eq!(
        exact.truncation, None,
        "{name}: a result that fits is not truncated"
    );
}

/// A query with no rows still reports its columns.
pub async fn empty_result_keeps_its_schema(dialect: &dyn Dialect) {
    let name = dialect.name();
    let sql = checked(dialect, "SELECT id, name FROM nao_conformance WHERE id < 0");
    let result = dialect
        .query(&sql, &ExecOptions::default())
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(result.row_count, 0, "{name}: no rows");
    assert_eq!(
        result.schema.fields().len(),
        2,
        "{name}: an empty result keeps its columns"
    );
}

/// A slow query comes back as a timeout error soon after its time limit.
pub async fn timeout_stops_a_slow_query(dialect: &dyn Dialect, profile: &Profile) {
    let name = dialect.name();
    let sql = checked(dialect, profile.slow_sql());
    let options = ExecOptions::default().with_timeout(Duration::from_millis(300));
    // The outer bound only keeps a broken adapter from hanging the test run.
    let outcome =
        tokio::time::timeout(Duration::from_secs(60), dialect.query(&sql, &options)).await;
    match outcome {
        Ok(Err(DialectError::Timeout { .. })) => {}
        Ok(other) => panic!("{name}: a slow query must time out, got {other:?}"),
        Err(_) => panic!("{name}: the timeout did not stop the query within a minute"),
    }
}

/// Cancelling the token stops a slow query with a cancellation error.
pub async fn cancellation_stops_a_slow_query(dialect: &dyn Dialect, profile: &Profile) {
    let name = dialect.name();
    let sql = checked(dialect, profile.slow_sql());
    let cancel = CancellationToken::new();
    let options = ExecOptions::default()
        .with_timeout(Duration::from_secs(120))
        .with_cancel(cancel.clone());
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        cancel.cancel();
    });
    let outcome =
        tokio::time::timeout(Duration::from_secs(60), dialect.query(&sql, &options)).await;
    canceller.abort();
    match outcome {
        Ok(Err(DialectError::Cancelled { .. })) => {}
        Ok(other) => panic!("{name}: a cancelled query must fail as cancelled, got {other:?}"),
        Err(_) => panic!("{name}: cancellation did not stop the query within a minute"),
    }
}

/// Writes are refused, and nothing changes: by the engine, for writes handed over through the
/// guard's escape hatch; on an engine that refuses none ([`Profile::without_engine_write_refusal`]),
/// by the guard, before anything is sent.
pub async fn writes_are_refused(dialect: &dyn Dialect, profile: &Profile) {
    let name = dialect.name();
    for write in [
        "INSERT INTO nao_conformance (id, name) VALUES (99, 'written')",
        "UPDATE nao_conformance SET name = 'changed'",
        "DELETE FROM nao_conformance",
        "CREATE TABLE nao_conformance_created (x INTEGER)",
        "DROP TABLE nao_conformance",
    ] {
        if profile.engine_refuses_writes() {
            let sql = ReadOnlySql::new_unchecked_allowing_writes(write, dialect.sql_dialect());
            let outcome = dialect.query(&sql, &ExecOptions::default()).await;
            assert!(outcome.is_err(), "{name}: the engine must refuse {write:?}");
        } else {
            let verdict = check(write, dialect.sql_dialect(), &Policy::default());
            assert!(
                verdict.is_err(),
                "{name}: the engine refuses no writes, so the guard must refuse {write:?}"
            );
        }
    }
    let count = checked(
        dialect,
        "SELECT count(*) AS n FROM nao_conformance WHERE name IS NULL OR name <> 'changed'",
    );
    let result = dialect
        .query(&count, &ExecOptions::default())
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let value = arrow_cast_to_i64(&result.batches[0], 0);
    assert_eq!(value, 3, "{name}: the fixture must be unchanged");
}

fn arrow_cast_to_i64(batch: &arrow_array::RecordBatch, column: usize) -> i64 {
    use arrow_array::Array;
    let array = batch.column(column);
    if let Some(a) = array.as_any().downcast_ref::<arrow_array::Int64Array>() {
        return a.value(0);
    }
    if let Some(a) = array.as_any().downcast_ref::<arrow_array::Int32Array>() {
        return i64::from(a.value(0));
    }
    if let Some(a) = array.as_any().downcast_ref::<arrow_array::UInt64Array>() {
        return i64::try_from(a.value(0)).unwrap_or(i64::MAX);
    }
    panic!("expected an integer count, got {}", array.data_type())
}

/// The fixture table is listed (and filtered), and described with its columns.
pub async fn introspection_lists_and_describes(dialect: &dyn Dialect, profile: &Profile) {
    let name = dialect.name();
    let tables = dialect
        .list_tables(&TableFilter::default())
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        tables.iter().any(|t| t.name == FIXTURE_TABLE),
        "{name}: list_tables must list the fixture: {tables:?}"
    );
    let filtered = dialect
        .list_tables(&TableFilter::default().with_pattern("no_such_table_anywhere"))
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        filtered.is_empty(),
        "{name}: the pattern must filter: {filtered:?}"
    );
    let table = tables
        .iter()
        .find(|t| t.name == FIXTURE_TABLE)
        .map(|t| t.table_ref())
        .unwrap_or_else(|| TableRef::parse(FIXTURE_TABLE));
    let schema = dialect
        .describe_table(&table)
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let columns: Vec<&str> = schema.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        columns,
        ["id", "name", "amount"],
        "{name}: described columns"
    );
    if profile.reports_not_null() {
        assert!(!schema.columns[0].nullable, "{name}: id is NOT NULL");
    }
    assert!(schema.columns[1].nullable, "{name}: name is nullable");
    let missing = dialect
        .describe_table(&TableRef::parse("no_such_table"))
        .await;
    assert!(
        matches!(missing, Err(DialectError::UnknownObject { .. })),
        "{name}: describing a missing table: {missing:?}"
    );
}

/// Engine errors map to their kinds.
pub async fn errors_are_classified(dialect: &dyn Dialect) {
    let name = dialect.name();
    let unknown_table = checked(dialect, "SELECT * FROM no_such_table");
    let outcome = dialect.query(&unknown_table, &ExecOptions::default()).await;
    assert!(
        matches!(outcome, Err(DialectError::UnknownObject { .. })),
        "{name}: unknown table: {outcome:?}"
    );
    let unknown_column = checked(dialect, "SELECT no_such_column FROM nao_conformance");
    let outcome = dialect
        .query(&unknown_column, &ExecOptions::default())
        .await;
    assert!(
        matches!(outcome, Err(DialectError::UnknownObject { .. })),
        "{name}: unknown column: {outcome:?}"
    );
    let bad = ReadOnlySql::new_unchecked_allowing_writes("SELEC 1", dialect.sql_dialect());
    let outcome = dialect.query(&bad, &ExecOptions::default()).await;
    assert!(
        matches!(outcome, Err(DialectError::Syntax { .. })),
        "{name}: syntax error: {outcome:?}"
    );
}

/// Dropping a stream after its first batch frees the adapter for the next query.
pub async fn dropping_the_stream_stops_the_query(dialect: &dyn Dialect, profile: &Profile) {
    let name = dialect.name();
    let sql = checked(dialect, &profile.million_rows_sql());
    let options = ExecOptions::default().with_batch_size(1_000);
    let mut stream = dialect
        .execute(&sql, &options)
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let first = stream
        .next()
        .await
        .unwrap_or_else(|| panic!("{name}: no first batch"));
    assert!(first.is_ok(), "{name}: first batch: {first:?}");
    drop(stream);
    let again = checked(dialect, "SELECT count(*) AS n FROM nao_conformance");
    let outcome = tokio::time::timeout(
        Duration::from_secs(60),
        dialect.query(&again, &ExecOptions::default()),
    )
    .await;
    assert!(
        matches!(outcome, Ok(Ok(_))),
        "{name}: the adapter must serve the next query after a dropped stream"
    );
}

/// For adapters that load the demo shop ([`crate::demo`]): every table's comment and every
/// column comment of the generated data comes back from the catalogue.
pub async fn demo_is_described(dialect: &dyn Dialect) {
    let name = dialect.name().to_owned();
    let expected = crate::demo::generate(crate::demo::DemoScale::Small)
        .unwrap_or_else(|e| panic!("{name}: generating the demo data failed: {e}"));
    let listed = dialect
        .list_tables(&TableFilter::default())
        .await
        .unwrap_or_else(|e| panic!("{name}: list_tables failed: {e}"));
    for table in &expected {
        let info = listed
            .iter()
            .find(|t| t.name == table.name)
            .unwrap_or_else(|| panic!("{name}: the demo table {} is not listed", table.name));
        assert_eq!(
            info.comment.as_deref(),
            Some(table.comment),
            "{name}: list_tables' comment of {}",
            table.name
        );
        let schema = dialect
            .describe_table(&TableRef::parse(table.name))
            .await
            .unwrap_or_else(|e| panic!("{name}: describe_table({}) failed: {e}", table.name));
        assert_eq!(
            schema.comment.as_deref(),
            Some(table.comment),
            "{name}: {}",
            table.name
        );
        for column in &schema.columns {
            let wanted = table
                .column_comments
                .iter()
                .find(|(c, _)| *c == column.name)
                .map(|(_, comment)| *comment);
            assert_eq!(
                column.comment.as_deref(),
                wanted,
                "{name}: the comment of {}.{}",
                table.name,
                column.name
            );
        }
    }
}

/// Each `(sql, kind, code)`: the statement, run through the guard's escape hatch (so the
/// engine, not the guard, judges it), fails with that [`DialectError::kind_code`] and that
/// engine code (SQLSTATE, MySQL error number, …).
pub async fn errors_carry_kind_and_code(dialect: &dyn Dialect, cases: &[(&str, &str, &str)]) {
    for &(sql, kind, code) in cases {
        let statement = ReadOnlySql::new_unchecked_allowing_writes(sql, dialect.sql_dialect());
        let Err(error) = dialect.query(&statement, &ExecOptions::default()).await else {
            panic!("{}: {sql} should fail with {kind} {code}", dialect.name());
        };
        assert_eq!(
            (error.kind_code(), error.code()),
            (kind, Some(code)),
            "{}: {sql}: {error}",
            dialect.name()
        );
    }
}
