//! The checks on the conformance table: reading, caps, stopping, writes, the catalogue and
//! errors. Each returns what the adapter did wrong as text, never panics on its behaviour.

use std::time::Duration;

use futures_util::StreamExt;
use nao_core::guard::{Policy, ReadOnlySql, check};
use nao_core::render::Truncation;
use nao_core::{Dialect, DialectError, DialectExt, ExecOptions, TableFilter, TableRef};
use tokio_util::sync::CancellationToken;

use super::check::Pass;
use super::{Check, DecimalForm, FIXTURE_TABLE, Profile};

/// What a check found wrong.
type Found = Result<Pass, String>;

/// Returns the failure `why` unless `condition` holds.
macro_rules! ensure {
    ($condition:expr, $($why:tt)+) => {
        if !$condition {
            return Err(format!($($why)+));
        }
    };
}

/// How long a check waits for an adapter before it calls it hung: a bound that keeps a broken
/// adapter from hanging the test run, not a timing threshold.
const HUNG: Duration = Duration::from_secs(60);

pub(super) async fn run(check: Check, dialect: &dyn Dialect, profile: &Profile) -> Found {
    match check {
        Check::ReadsTheFixture => reads_the_fixture(dialect, profile).await,
        Check::RowCapMarksTruncation => row_cap_marks_truncation(dialect, profile).await,
        Check::EmptyResultKeepsItsSchema => empty_result_keeps_its_schema(dialect).await,
        Check::TimeoutStopsASlowQuery => timeout_stops_a_slow_query(dialect, profile).await,
        Check::CancellationStopsASlowQuery => {
            cancellation_stops_a_slow_query(dialect, profile).await
        }
        Check::WritesAreRefused => writes_are_refused(dialect, profile).await,
        Check::IntrospectionListsAndDescribes => {
            introspection_lists_and_describes(dialect, profile).await
        }
        Check::ErrorsAreClassified => errors_are_classified(dialect).await,
        Check::DroppingTheStreamStopsTheQuery => {
            dropping_the_stream_stops_the_query(dialect, profile).await
        }
        Check::DemoShopRoundTrips | Check::DemoShopIsDescribed => Err(format!(
            "{} is not a check of the conformance table",
            check.name()
        )),
    }
}

/// The guard's verdict on conformance SQL; a refusal means the profile's SQL does not suit
/// the adapter's [`SqlDialect`](nao_core::guard::SqlDialect).
pub(super) fn checked(dialect: &dyn Dialect, sql: &str) -> Result<ReadOnlySql, String> {
    check(sql, dialect.sql_dialect(), &Policy::default()).map_err(|e| {
        format!(
            "the guard ({:?}) refused the check's SQL {sql:?}: {e}. Declare SQL this dialect \
             accepts in the Profile, or declare the guard dialect that matches the engine",
            dialect.sql_dialect()
        )
    })
}

/// `query`, bounded by [`HUNG`], with its error as a failure naming `what`.
async fn query(
    dialect: &dyn Dialect,
    sql: &ReadOnlySql,
    options: &ExecOptions,
    what: &str,
) -> Result<nao_core::CollectedBatches, String> {
    match tokio::time::timeout(HUNG, dialect.query(sql, options)).await {
        Ok(Ok(result)) => Ok(result),
        Ok(Err(e)) => Err(format!("{what} failed: {e} ({e:?})")),
        Err(_) => Err(format!("{what} did not finish within {HUNG:?}")),
    }
}

async fn reads_the_fixture(dialect: &dyn Dialect, profile: &Profile) -> Found {
    let sql = checked(
        dialect,
        "SELECT id, name, amount FROM nao_conformance ORDER BY id",
    )?;
    let result = query(
        dialect,
        &sql,
        &ExecOptions::default(),
        "reading the fixture",
    )
    .await?;
    ensure!(
        result.row_count == 3,
        "the fixture has 3 rows, the adapter returned {}",
        result.row_count
    );
    ensure!(
        result.truncation.is_none(),
        "3 rows under the default caps were marked as cut: {:?}",
        result.truncation
    );
    let names: Vec<&str> = result
        .schema
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    ensure!(
        names == ["id", "name", "amount"],
        "the columns must be named id, name, amount as selected, got {names:?}"
    );
    let nulls: usize = result
        .batches
        .iter()
        .map(|b| b.column(1).null_count())
        .sum();
    ensure!(
        nulls == 1,
        "the name column holds one NULL, the adapter returned {nulls} (a NULL must stay NULL, \
         not become an empty string or the text 'NULL')"
    );
    let form = profile.decimal_form();
    let amount_type = result.schema.field(2).data_type();
    let (expected_type, expected): (&str, [Option<&str>; 3]) = match form {
        DecimalForm::Float => ("Float64", [Some("10.5"), None, Some("-0.25")]),
        DecimalForm::ExactText => ("Utf8", [Some("10.50"), None, Some("-0.25")]),
        _ => ("Decimal128(12, 2)", [Some("10.50"), None, Some("-0.25")]),
    };
    ensure!(
        amount_type.to_string() == expected_type,
        "DECIMAL(12, 2) read as {form:?} must be {expected_type}, the adapter returned \
         {amount_type}"
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
    ensure!(
        amounts == expected,
        "the amounts must read back exactly as {expected:?}, got {amounts:?}"
    );
    Ok(Pass::Plain)
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

async fn row_cap_marks_truncation(dialect: &dyn Dialect, profile: &Profile) -> Found {
    let sql = checked(dialect, &profile.series_sql(100))?;
    let capped = query(
        dialect,
        &sql,
        &ExecOptions::default().with_max_rows(10),
        "100 rows under a cap of 10",
    )
    .await?;
    ensure!(
        capped.row_count == 10,
        "a cap of 10 rows on a 100-row result must keep 10, kept {}",
        capped.row_count
    );
    ensure!(
        capped.truncation == Some(Truncation::RowCap { cap: 10 }),
        "a result cut at a cap of 10 rows must be marked RowCap {{ cap: 10 }}, got {:?} \
         (the adapter must read one row past the cap to know)",
        capped.truncation
    );
    let exact = query(
        dialect,
        &sql,
        &ExecOptions::default().with_max_rows(100),
        "100 rows under a cap of 100",
    )
    .await?;
    ensure!(
        exact.row_count == 100,
        "a 100-row result under a cap of 100 must keep all 100 rows, kept {}",
        exact.row_count
    );
    ensure!(
        exact.truncation.is_none(),
        "a 100-row result under a cap of 100 fits and must not be marked as cut, got {:?}",
        exact.truncation
    );
    Ok(Pass::Plain)
}

async fn empty_result_keeps_its_schema(dialect: &dyn Dialect) -> Found {
    let sql = checked(dialect, "SELECT id, name FROM nao_conformance WHERE id < 0")?;
    let result = query(dialect, &sql, &ExecOptions::default(), "an empty SELECT").await?;
    ensure!(
        result.row_count == 0,
        "`WHERE id < 0` matches no row, the adapter returned {}",
        result.row_count
    );
    let names: Vec<&str> = result
        .schema
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    ensure!(
        names == ["id", "name"],
        "an empty result must keep its columns [\"id\", \"name\"], got {names:?} (announce the \
         schema before the first row: pump::Producer::schema)"
    );
    Ok(Pass::Plain)
}

async fn timeout_stops_a_slow_query(dialect: &dyn Dialect, profile: &Profile) -> Found {
    let sql = checked(dialect, profile.slow_sql())?;
    let options = ExecOptions::default().with_timeout(Duration::from_millis(300));
    match tokio::time::timeout(HUNG, dialect.query(&sql, &options)).await {
        Ok(Err(DialectError::Timeout { .. })) => Ok(Pass::Plain),
        Ok(Ok(result)) => Err(format!(
            "the slow query ({} rows) finished within its 300 ms limit, so nothing was checked: \
             declare a slower one (Profile::with_slow_sql)",
            result.row_count
        )),
        Ok(Err(other)) => Err(format!(
            "a query past its 300 ms limit must fail with DialectError::Timeout, got {other:?}"
        )),
        Err(_) => Err(format!(
            "a time limit of 300 ms did not stop the query within {HUNG:?}"
        )),
    }
}

async fn cancellation_stops_a_slow_query(dialect: &dyn Dialect, profile: &Profile) -> Found {
    if !profile.cancels_running_statements() {
        return cancelled_before_it_starts(dialect).await;
    }
    let sql = checked(dialect, profile.slow_sql())?;
    let cancel = CancellationToken::new();
    let options = ExecOptions::default()
        .with_timeout(Duration::from_secs(120))
        .with_cancel(cancel.clone());
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        cancel.cancel();
    });
    let outcome = tokio::time::timeout(HUNG, dialect.query(&sql, &options)).await;
    canceller.abort();
    match outcome {
        Ok(Err(DialectError::Cancelled { .. })) => {}
        Ok(Ok(result)) => {
            return Err(format!(
                "the slow query ({} rows) finished before it was cancelled at 300 ms, so nothing \
                 was checked: declare a slower one (Profile::with_slow_sql)",
                result.row_count
            ));
        }
        Ok(Err(other)) => {
            return Err(format!(
                "a cancelled query must fail with DialectError::Cancelled, got {other:?}"
            ));
        }
        Err(_) => {
            return Err(format!(
                "cancelling the token did not stop the query within {HUNG:?}"
            ));
        }
    }
    Ok(Pass::Plain)
}

/// The fallback for an engine that cannot interrupt a running statement: a token cancelled
/// before the call stops the statement before anything runs.
async fn cancelled_before_it_starts(dialect: &dyn Dialect) -> Found {
    let sql = checked(dialect, "SELECT id FROM nao_conformance")?;
    let cancel = CancellationToken::new();
    cancel.cancel();
    let options = ExecOptions::default().with_cancel(cancel);
    match tokio::time::timeout(HUNG, dialect.query(&sql, &options)).await {
        Ok(Err(DialectError::Cancelled { .. })) => {}
        Ok(other) => {
            return Err(format!(
                "the engine cannot interrupt a running statement (Profile::without_cancellation), \
                 so a token cancelled before the call must stop it before it starts with \
                 DialectError::Cancelled, got {other:?}"
            ));
        }
        Err(_) => {
            return Err(format!(
                "a query with a cancelled token did not return within {HUNG:?}"
            ));
        }
    }
    Ok(Pass::Fallback(
        "the engine cannot interrupt a running statement; a token cancelled before the call \
         stops it before it starts"
            .into(),
    ))
}

/// The adapter serves a small query after `after`.
async fn next_query_is_served(dialect: &dyn Dialect, after: &str) -> Result<(), String> {
    let again = checked(dialect, "SELECT count(*) AS n FROM nao_conformance")?;
    query(
        dialect,
        &again,
        &ExecOptions::default(),
        &format!("the next query {after}"),
    )
    .await
    .map(drop)
}

async fn writes_are_refused(dialect: &dyn Dialect, profile: &Profile) -> Found {
    for write in [
        "INSERT INTO nao_conformance (id, name) VALUES (99, 'written')",
        "UPDATE nao_conformance SET name = 'changed'",
        "DELETE FROM nao_conformance",
        "CREATE TABLE nao_conformance_created (x INTEGER)",
        "DROP TABLE nao_conformance",
    ] {
        if profile.engine_refuses_writes() {
            let sql = ReadOnlySql::new_unchecked_allowing_writes(write, dialect.sql_dialect());
            let outcome =
                tokio::time::timeout(HUNG, dialect.query(&sql, &ExecOptions::default())).await;
            match outcome {
                Ok(Err(_)) => {}
                Ok(Ok(_)) => {
                    return Err(format!(
                        "the engine ran {write:?}, handed over past the guard: gate 2 (a \
                         read-only session, connection or statement check at the engine) is \
                         missing. If the engine has no read-only mode, declare it \
                         (Profile::without_engine_write_refusal) and say so in the adapter's docs"
                    ));
                }
                Err(_) => return Err(format!("{write:?} did not return within {HUNG:?}")),
            }
        } else if check(write, dialect.sql_dialect(), &Policy::default()).is_ok() {
            return Err(format!(
                "the engine refuses no writes, so the guard must refuse {write:?} in the \
                 adapter's dialect {:?}, and it did not",
                dialect.sql_dialect()
            ));
        }
    }
    let count = checked(
        dialect,
        "SELECT count(*) AS n FROM nao_conformance WHERE name IS NULL OR name <> 'changed'",
    )?;
    let result = query(
        dialect,
        &count,
        &ExecOptions::default(),
        "counting the fixture",
    )
    .await?;
    let value = first_integer(&result.batches)?;
    ensure!(
        value == 3,
        "the fixture must be unchanged after the refused writes: 3 unchanged rows expected, {value} found"
    );
    if profile.engine_refuses_writes() {
        Ok(Pass::Plain)
    } else {
        Ok(Pass::Fallback(
            "the engine refuses no writes; the guard refuses each, and none is sent".into(),
        ))
    }
}

/// The integer in the first row of the first column.
fn first_integer(batches: &[arrow_array::RecordBatch]) -> Result<i64, String> {
    use arrow_array::Array;
    let Some(array) = batches
        .iter()
        .find(|b| b.num_rows() > 0)
        .map(|b| b.column(0))
    else {
        return Err("count(*) returned no row".into());
    };
    if let Some(a) = array.as_any().downcast_ref::<arrow_array::Int64Array>() {
        return Ok(a.value(0));
    }
    if let Some(a) = array.as_any().downcast_ref::<arrow_array::Int32Array>() {
        return Ok(i64::from(a.value(0)));
    }
    if let Some(a) = array.as_any().downcast_ref::<arrow_array::UInt64Array>() {
        return Ok(i64::try_from(a.value(0)).unwrap_or(i64::MAX));
    }
    Err(format!(
        "count(*) must come back as an integer, got {}",
        array.data_type()
    ))
}

async fn introspection_lists_and_describes(dialect: &dyn Dialect, profile: &Profile) -> Found {
    let tables = dialect
        .list_tables(&TableFilter::default())
        .await
        .map_err(|e| format!("list_tables failed: {e}"))?;
    let Some(listed) = tables.iter().find(|t| t.name == FIXTURE_TABLE) else {
        let names: Vec<&str> = tables.iter().map(|t| t.name.as_str()).collect();
        return Err(format!(
            "list_tables must list {FIXTURE_TABLE}, listed {names:?}"
        ));
    };
    let filtered = dialect
        .list_tables(&TableFilter::default().with_pattern("no_such_table_anywhere"))
        .await
        .map_err(|e| format!("list_tables with a pattern failed: {e}"))?;
    ensure!(
        filtered.is_empty(),
        "list_tables must apply TableFilter::pattern: \"no_such_table_anywhere\" matched {:?}",
        filtered.iter().map(|t| &t.name).collect::<Vec<_>>()
    );
    let schema = dialect
        .describe_table(&listed.table_ref())
        .await
        .map_err(|e| format!("describe_table({}) failed: {e}", listed.table_ref()))?;
    let columns: Vec<&str> = schema.columns.iter().map(|c| c.name.as_str()).collect();
    ensure!(
        columns == ["id", "name", "amount"],
        "describe_table must give the columns in order, [\"id\", \"name\", \"amount\"], got \
         {columns:?}"
    );
    let not_null_checked = profile.reports_not_null();
    if not_null_checked {
        ensure!(
            !schema.columns[0].nullable,
            "id is declared NOT NULL and describe_table says it is nullable (if the engine \
             cannot tell, declare it: Profile::without_not_null)"
        );
    }
    ensure!(
        schema.columns[1].nullable,
        "name may hold NULL (it does) and describe_table says it may not"
    );
    let missing = dialect
        .describe_table(&TableRef::parse("no_such_table"))
        .await;
    ensure!(
        matches!(missing, Err(DialectError::UnknownObject { .. })),
        "describing a missing table must fail with DialectError::UnknownObject, got {missing:?}"
    );
    if not_null_checked {
        Ok(Pass::Plain)
    } else {
        Ok(Pass::Fallback(
            "the engine reports every column as nullable; NOT NULL is not checked".into(),
        ))
    }
}

async fn errors_are_classified(dialect: &dyn Dialect) -> Found {
    let unknown_table = checked(dialect, "SELECT * FROM no_such_table")?;
    let outcome = dialect.query(&unknown_table, &ExecOptions::default()).await;
    ensure!(
        matches!(outcome, Err(DialectError::UnknownObject { .. })),
        "a missing table must fail with DialectError::UnknownObject, got {outcome:?}"
    );
    let unknown_column = checked(dialect, "SELECT no_such_column FROM nao_conformance")?;
    let outcome = dialect
        .query(&unknown_column, &ExecOptions::default())
        .await;
    ensure!(
        matches!(outcome, Err(DialectError::UnknownObject { .. })),
        "a missing column must fail with DialectError::UnknownObject, got {outcome:?}"
    );
    let bad = ReadOnlySql::new_unchecked_allowing_writes("SELEC 1", dialect.sql_dialect());
    let outcome = dialect.query(&bad, &ExecOptions::default()).await;
    ensure!(
        matches!(outcome, Err(DialectError::Syntax { .. })),
        "`SELEC 1` (past the guard) must fail with DialectError::Syntax, got {outcome:?}"
    );
    Ok(Pass::Plain)
}

async fn dropping_the_stream_stops_the_query(dialect: &dyn Dialect, profile: &Profile) -> Found {
    let sql = checked(dialect, &profile.million_rows_sql())?;
    let options = ExecOptions::default().with_batch_size(1_000);
    let mut stream = match tokio::time::timeout(HUNG, dialect.execute(&sql, &options)).await {
        Ok(Ok(stream)) => stream,
        Ok(Err(e)) => return Err(format!("executing a million-row query failed: {e}")),
        Err(_) => return Err(format!("execute did not return within {HUNG:?}")),
    };
    match tokio::time::timeout(HUNG, stream.next()).await {
        Ok(Some(Ok(_))) => {}
        Ok(Some(Err(e))) => return Err(format!("the first batch failed: {e}")),
        Ok(None) => return Err("a million-row query gave no batch".into()),
        Err(_) => return Err(format!("no first batch within {HUNG:?}")),
    }
    drop(stream);
    next_query_is_served(dialect, "after a dropped stream").await?;
    Ok(Pass::Plain)
}
