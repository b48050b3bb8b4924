//! The Flight SQL adapter against real servers serving the demo shop:
//! `NAO_TEST_FLIGHT_SQL_URL` (Sail in local-cluster mode) and `NAO_TEST_ROAPI_FLIGHT_SQL_URL`
//! (roapi, single node), as `scripts/engines/start.sh` starts them.
//!
//! Without the variables the tests say so and pass; with them set, an unreachable server fails
//! them.
#![cfg(feature = "flight-sql")]
#![allow(clippy::unwrap_used, clippy::print_stderr)]

mod support;

use arrow_array::cast::AsArray;
use futures_util::StreamExt;
use nao_core::guard::{Policy, ReadOnlySql, SqlDialect, check};
use nao_core::render::Truncation;
use nao_core::{Dialect, DialectExt, ExecOptions, TableFilter, TableRef};
use nao_dialects::conformance::{self, Profile};
use nao_dialects::flight_sql::FlightSqlDialect;

/// The servers the environment names, each with its variable.
fn servers() -> Vec<(&'static str, String)> {
    let mut found = Vec::new();
    for var in ["NAO_TEST_FLIGHT_SQL_URL", "NAO_TEST_ROAPI_FLIGHT_SQL_URL"] {
        match std::env::var(var) {
            Ok(url) if !url.is_empty() => found.push((var, url)),
            _ => eprintln!(
                "{var} is not set: skipping that server (scripts/engines/start.sh sets it)"
            ),
        }
    }
    found
}

async fn open(var: &str, url: &str) -> FlightSqlDialect {
    FlightSqlDialect::open_url(var.to_ascii_lowercase(), url)
        .await
        .unwrap_or_else(|e| panic!("{var}: {e}"))
}

fn checked(dialect: &dyn Dialect, sql: &str) -> ReadOnlySql {
    check(sql, dialect.sql_dialect(), &Policy::default())
        .unwrap_or_else(|e| panic!("{}: the guard refused {sql:?}: {e}", dialect.name()))
}

#[tokio::test]
async fn the_demo_shop_is_listed_described_and_read() {
    for (var, url) in servers() {
        let dialect = open(var, &url).await;
        eprintln!(
            "{var}: {:?} {:?} speaks {:?}",
            dialect.server_name(),
            dialect.server_version(),
            dialect.sql_dialect()
        );
        let tables = dialect.list_tables(&TableFilter::default()).await.unwrap();
        let names: Vec<&str> = tables.iter().map(|t| t.name.as_str()).collect();
        for table in [
            "customers",
            "orders",
            "order_items",
            "payments",
            "products",
            "reviews",
        ] {
            assert!(names.contains(&table), "{var}: {table} in {names:?}");
        }
        let orders = dialect
            .describe_table(&TableRef::parse("orders"))
            .await
            .unwrap();
        assert!(
            orders.columns.iter().any(|c| c.name == "total"),
            "{var}: {orders:?}"
        );
        let sql = checked(
            &dialect,
            "SELECT status, count(*) AS n FROM orders GROUP BY status",
        );
        let result = dialect.query(&sql, &ExecOptions::default()).await.unwrap();
        assert!(result.row_count > 1, "{var}: {result:?}");
    }
}

#[tokio::test]
async fn the_row_cap_cuts_and_says_so() {
    for (var, url) in servers() {
        let dialect = open(var, &url).await;
        let sql = checked(&dialect, "SELECT * FROM order_items");
        let capped = dialect
            .query(&sql, &ExecOptions::default().with_max_rows(10))
            .await
            .unwrap();
        assert_eq!(capped.row_count, 10, "{var}");
        assert!(
            matches!(capped.truncation, Some(Truncation::RowCap { .. })),
            "{var}: {:?}",
            capped.truncation
        );
    }
}

#[tokio::test]
async fn errors_are_classified() {
    for (var, url) in servers() {
        let dialect = open(var, &url).await;
        let unknown = checked(&dialect, "SELECT * FROM no_such_table_here");
        let error = dialect
            .execute(&unknown, &ExecOptions::default())
            .await
            .err()
            .unwrap_or_else(|| panic!("{var}: an unknown table ran"));
        eprintln!("{var}: unknown table: {error}");
        assert_eq!(error.kind_code(), "unknown_object", "{var}: {error}");
        let column = checked(&dialect, "SELECT no_such_column FROM orders");
        let error = match dialect.execute(&column, &ExecOptions::default()).await {
            Ok(mut stream) => stream.next().await.unwrap().err().unwrap(),
            Err(error) => error,
        };
        eprintln!("{var}: unknown column: {error}");
        assert_eq!(error.kind_code(), "unknown_object", "{var}: {error}");
    }
}

#[tokio::test]
async fn the_dialect_comes_from_the_server_or_the_url() {
    for (var, url) in servers() {
        let joiner = if url.contains('?') { '&' } else { '?' };
        let forced = format!("{url}{joiner}dialect=duckdb");
        let dialect = open(var, &forced).await;
        assert_eq!(dialect.sql_dialect(), SqlDialect::DuckDb, "{var}");
    }
}

/// The column `range(n)` yields on this server: `id` on Sail (Spark), `value` on DataFusion
/// servers such as roapi.
fn range_column(dialect: &FlightSqlDialect) -> &'static str {
    match dialect.server_name() {
        Some(name) if name.to_ascii_lowercase().contains("roapi") => "value",
        _ => "id",
    }
}

/// What the conformance suite needs to know of a server: `range(n)` and its column; roapi
/// computes about five times slower and runs on after a cancellation (see the module docs of
/// the adapter), so it gets a tenth of the slow work, and its tables over Parquet files report
/// every column nullable. Neither server refuses writes, so the guard must.
fn profile(dialect: &FlightSqlDialect) -> Profile {
    let x = range_column(dialect);
    let profile = Profile::range_function(x).without_engine_write_refusal();
    if x == "value" {
        profile
            .with_slow_sql(format!(
                "SELECT sum((a.{x} * b.{x}) % 7) AS s FROM range(30000) a CROSS JOIN range(10000) b"
            ))
            .without_not_null()
    } else {
        profile
    }
}

/// Whether the server still runs a job after a statement stopped: Sail lists its jobs in
/// `system.execution.jobs` (the query asking is one of them); roapi runs a query exactly while
/// its call is open and has no such view, so only Sail is checked.
async fn nothing_left_running(var: &str, dialect: &FlightSqlDialect) {
    if range_column(dialect) != "id" {
        eprintln!("{var}: the server shows no running queries; not checked");
        return;
    }
    let sql = checked(
        dialect,
        "SELECT count(*) AS running FROM system.execution.jobs WHERE status = 'RUNNING'",
    );
    let mut running = 0;
    // The job is cancelled as the server notices its stream is gone: poll a little while.
    for _ in 0..50 {
        let result = dialect.query(&sql, &ExecOptions::default()).await.unwrap();
        running = result.batches[0]
            .column(0)
            .as_primitive::<arrow_array::types::Int64Type>()
            .value(0);
        if running <= 1 {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!(
        "{var}: {} jobs still run after the statement stopped",
        running - 1
    );
}

#[tokio::test]
async fn statements_are_prepared_where_the_server_prepares_them() {
    for (var, url) in servers() {
        let dialect = open(var, &url).await;
        assert!(dialect.prepares_statements(), "{var}: tried first");
        let sql = checked(&dialect, "SELECT count(*) AS n FROM orders");
        let result = dialect.query(&sql, &ExecOptions::default()).await.unwrap();
        assert_eq!(result.row_count, 1, "{var}");
        // roapi implements prepared statements; Sail 0.7 answers Unimplemented.
        let roapi = range_column(&dialect) == "value";
        assert_eq!(dialect.prepares_statements(), roapi, "{var}");
        // A statement the server refuses to prepare fails with its reason, not a fallback.
        let bad = ReadOnlySql::new_unchecked_allowing_writes("SELEC 1", dialect.sql_dialect());
        let error = dialect
            .query(&bad, &ExecOptions::default())
            .await
            .unwrap_err();
        assert_eq!(error.kind_code(), "syntax", "{var}: {error}");
        assert_eq!(dialect.prepares_statements(), roapi, "{var}");
    }
}

/// On servers of a generic SQL dialect (roapi), which the guard treats as possibly running
/// `o.name` as `name(o)`, a qualified name must be a column of its table in the catalogue.
#[tokio::test]
async fn qualified_names_must_be_columns_on_generic_servers() {
    for (var, url) in servers() {
        let dialect = open(var, &url).await;
        if !dialect.sql_dialect().calls_functions_through_attributes() {
            eprintln!(
                "{var}: {:?} calls no function through attributes",
                dialect.sql_dialect()
            );
            continue;
        }
        let column = checked(&dialect, "SELECT o.status FROM orders o");
        assert!(!column.attribute_refs().is_empty(), "{var}");
        let rows = dialect
            .query(&column, &ExecOptions::default())
            .await
            .unwrap();
        assert!(rows.row_count > 0, "{var}");
        let call = checked(&dialect, "SELECT o.touch FROM orders o");
        let error = dialect
            .query(&call, &ExecOptions::default())
            .await
            .unwrap_err();
        assert_eq!(error.kind_code(), "unknown_object", "{var}: {error}");
        assert!(
            error.to_string().contains("no column touch"),
            "{var}: {error}"
        );
    }
}

#[tokio::test]
async fn the_adapter_passes_the_conformance_suite() {
    for (var, url) in servers() {
        let dialect = open(var, &url).await;
        conformance::run_all_with(&dialect, &profile(&dialect)).await;
        nothing_left_running(var, &dialect).await;
    }
}

#[tokio::test]
async fn a_timeout_stops_a_slow_query_on_the_server() {
    for (var, url) in servers() {
        let dialect = open(var, &url).await;
        let sql = checked(&dialect, profile(&dialect).slow_sql());
        let options = ExecOptions::default().with_timeout(std::time::Duration::from_millis(500));
        let error = match dialect.execute(&sql, &options).await {
            Ok(mut stream) => stream.next().await.unwrap().err().unwrap(),
            Err(error) => error,
        };
        assert_eq!(error.kind_code(), "timeout", "{var}: {error}");
        nothing_left_running(var, &dialect).await;
    }
}

#[tokio::test]
async fn cancelling_stops_a_slow_query_on_the_server() {
    for (var, url) in servers() {
        let dialect = open(var, &url).await;
        let sql = checked(&dialect, profile(&dialect).slow_sql());
        let cancel = tokio_util::sync::CancellationToken::new();
        let options = ExecOptions::default().with_cancel(cancel.clone());
        let trigger = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            trigger.cancel();
        });
        let error = match dialect.execute(&sql, &options).await {
            Ok(mut stream) => stream.next().await.unwrap().err().unwrap(),
            Err(error) => error,
        };
        assert_eq!(error.kind_code(), "cancelled", "{var}: {error}");
        nothing_left_running(var, &dialect).await;
    }
}

/// Values of every kind of type come back as the Arrow types the server declares, exact:
/// decimals, timestamps with and without a zone, dates, lists, structs, maps, binary, NULLs.
#[tokio::test]
async fn types_round_trip() {
    use arrow_schema::{DataType, TimeUnit};
    for (var, url) in servers() {
        let dialect = open(var, &url).await;
        if range_column(&dialect) != "value" {
            // Sail speaks Spark SQL: the same statement and checks as over Spark Connect.
            let sql = checked(&dialect, support::spark_types::SQL);
            let result = dialect
                .query(&sql, &ExecOptions::default())
                .await
                .unwrap_or_else(|e| panic!("{var}: {e}"));
            support::spark_types::check(var, &result);
            continue;
        }
        // roapi speaks DataFusion's SQL, which the guard reads as generic SQL: its nested-value
        // functions (make_array, named_struct, map) are not in the generic function catalogue,
        // so there only the list literal is checked, and no zoned timestamp literal exists.
        let sql = "SELECT CAST(1234.56 AS DECIMAL(12, 2)) AS d, \
             CAST('2024-01-02 03:04:05.678901' AS TIMESTAMP) AS ts, \
             CAST('2024-01-02' AS DATE) AS dt, [1, 2, 3] AS l, \
             CAST('abc' AS BYTEA) AS bin, CAST(NULL AS INT) AS n";
        let sql = checked(&dialect, sql);
        let result = dialect
            .query(&sql, &ExecOptions::default())
            .await
            .unwrap_or_else(|e| panic!("{var}: {e}"));
        let schema = result.schema.clone();
        let batch = &result.batches[0];
        let column = |name: &str| batch.column(schema.index_of(name).unwrap()).clone();
        assert_eq!(
            schema.field_with_name("d").unwrap().data_type(),
            &DataType::Decimal128(12, 2),
            "{var}"
        );
        let d = column("d");
        assert_eq!(
            d.as_primitive::<arrow_array::types::Decimal128Type>()
                .value(0),
            123_456,
            "{var}"
        );
        // DataFusion casts to nanoseconds: the instant is what counts.
        let ts = column("ts");
        let micros = match ts.data_type() {
            DataType::Timestamp(TimeUnit::Microsecond, None) => ts
                .as_primitive::<arrow_array::types::TimestampMicrosecondType>()
                .value(0),
            DataType::Timestamp(TimeUnit::Nanosecond, None) => {
                ts.as_primitive::<arrow_array::types::TimestampNanosecondType>()
                    .value(0)
                    / 1_000
            }
            other => panic!("{var}: a timestamp without zone comes back as {other}"),
        };
        assert_eq!(micros, 1_704_164_645_678_901, "{var}");
        let dt = column("dt");
        assert_eq!(dt.data_type(), &DataType::Date32, "{var}");
        assert_eq!(
            dt.as_primitive::<arrow_array::types::Date32Type>().value(0),
            19_724,
            "{var}"
        );
        let l = column("l");
        assert!(
            matches!(l.data_type(), DataType::List(_) | DataType::LargeList(_)),
            "{var}: {}",
            l.data_type()
        );
        let bin = column("bin");
        assert!(
            matches!(
                bin.data_type(),
                DataType::Binary | DataType::LargeBinary | DataType::BinaryView
            ),
            "{var}: {}",
            bin.data_type()
        );
        assert_eq!(column("n").null_count(), 1, "{var}");
    }
}
