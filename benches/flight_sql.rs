//! What a user gets from a cluster, measured on Sail in local-cluster mode over Flight SQL
//! (`NAO_TEST_FLIGHT_SQL_URL`, as `scripts/engines/start.sh` prints it), side by side in one
//! run: the medians of both sides over 15 interleaved rounds, and each ratio's median, min and
//! max over the rounds:
//!
//! 1. an aggregate over 100 M rows generated on the server (`range`), through `execute_sql`,
//!    against the same aggregate on embedded DuckDB (in this process);
//! 2. `execute_sql` against the raw arrow-flight client (`GetFlightInfo` + `DoGet`, batches
//!    collected) on the same statements (the raw client runs the text execute_sql sends, with
//!    the row cap the guard adds): the aggregate, and a 10 k-row slice of the 100 M rows;
//!    for the slice also the adapter alone (`Dialect::query`), which splits what the adapter
//!    adds to the raw client from what the tool adds (guard, result store, Markdown page);
//! 3. a capped `SELECT` over the 100 M rows at a 10 k-row cap: wall time, rows transferred, this
//!    process's peak RSS growth, and whether Sail still runs a job afterwards
//!    (`system.execution.jobs`).
//!
//! ```text
//! eval "$(scripts/engines/start.sh)"
//! cargo bench --bench flight_sql --features flight-sql,duckdb
//! ```
//!
//! Without the variable it says so and exits. It prints numbers; it fails on none of them
//! (the target for the ratio to the raw client is ≤ 1.10x).
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs
)]

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::TryStreamExt;
use nao::core::arrow::array::RecordBatch;
use nao::core::{Databases, DialectExt, ExecOptions, Settings, ToolCall, ToolContext, tools};
use nao::dialects::flight_sql::driver::sql::client::FlightSqlServiceClient;
use nao::dialects::flight_sql::grpc::transport::Channel;
use nao::dialects::flight_sql::{FlightSqlConfig, FlightSqlDialect};
use serde_json::json;
use support::rss::{mib, reset_peak, status_kib};
use support::tool::capped_sql;
use support::{Ratio, median};

const ROWS: u64 = 100_000_000;
const CAP: u64 = 10_000;
const ROUNDS: usize = 15;

fn sail_aggregate() -> String {
    format!("SELECT count(*) AS n, sum(id % 7) AS s, max(id * 3 % 1000) AS m FROM range({ROWS})")
}

fn duckdb_aggregate() -> String {
    format!(
        "SELECT count(*) AS n, sum(range % 7) AS s, max(range * 3 % 1000) AS m FROM range({ROWS})"
    )
}

fn sail_slice() -> String {
    format!("SELECT id, id * 2 AS twice FROM range({ROWS}) LIMIT {CAP}")
}

fn sail_scan() -> String {
    format!("SELECT id, id * 2 AS twice FROM range({ROWS})")
}

/// `label: a 12.3 ms, b 11.0 ms: 1.12x (min …, max …, 15 rounds)`, the ratio per round.
fn print_pair(
    label: &str,
    (our_name, ours): (&str, &[Duration]),
    (their_name, theirs): (&str, &[Duration]),
) {
    println!(
        "{label}: {our_name} {:.1} ms, {their_name} {:.1} ms: {}",
        median(ours).as_secs_f64() * 1e3,
        median(theirs).as_secs_f64() * 1e3,
        Ratio::per_round(ours, theirs)
    );
}

/// `execute_sql` (the context's row cap), timed; the tool must succeed.
async fn execute_sql(ctx: &ToolContext, sql: &str) -> Duration {
    let registry = tools::sql_tools();
    let call = ToolCall::new("bench", "execute_sql", json!({ "sql_query": sql }));
    let started = Instant::now();
    let result = registry.call(&call, ctx).await;
    let took = started.elapsed();
    assert!(!result.is_error, "{}", result.content);
    took
}

/// The adapter alone: the statement prepared through it (guard and row cap) and its result
/// collected.
async fn adapter(dialect: &dyn nao::core::Dialect, sql: &str) -> Duration {
    let started = Instant::now();
    let checked = dialect.prepare(sql, Some(CAP)).unwrap();
    let result = dialect
        .query(&checked, &ExecOptions::default().with_max_rows(CAP))
        .await
        .unwrap();
    let took = started.elapsed();
    assert_eq!(result.row_count as u64, CAP);
    took
}

/// The raw client: `GetFlightInfo` and every endpoint's batches collected.
async fn raw(client: &mut FlightSqlServiceClient<Channel>, sql: &str) -> (Duration, usize) {
    let started = Instant::now();
    let info = client.execute(sql.to_owned(), None).await.unwrap();
    let mut rows = 0;
    for endpoint in info.endpoint {
        let stream = client.do_get(endpoint.ticket.unwrap()).await.unwrap();
        let batches: Vec<RecordBatch> = stream.try_collect().await.unwrap();
        rows += batches.iter().map(RecordBatch::num_rows).sum::<usize>();
    }
    (started.elapsed(), rows)
}

/// The raw client on the slice, which must bring every row of it.
async fn raw_slice_time(client: &mut FlightSqlServiceClient<Channel>, sql: &str) -> Duration {
    let (took, rows) = raw(client, sql).await;
    assert_eq!(rows as u64, CAP);
    took
}

#[tokio::main]
async fn main() {
    let Some(url) = std::env::var("NAO_TEST_FLIGHT_SQL_URL")
        .ok()
        .filter(|u| !u.is_empty())
    else {
        println!(
            "NAO_TEST_FLIGHT_SQL_URL is not set: start the engines (scripts/engines/start.sh)"
        );
        return;
    };
    let config = FlightSqlConfig::from_url(&url).unwrap();
    let sail: Arc<dyn nao::core::Dialect> =
        Arc::new(FlightSqlDialect::connect("sail", &config).await.unwrap());
    let settings = Settings::default().with_max_rows(CAP);
    let sail_ctx =
        ToolContext::new(Databases::new().with(sail.clone())).with_settings(settings.clone());
    let duckdb: Arc<dyn nao::core::Dialect> =
        Arc::new(nao::dialects::duckdb::DuckDbDialect::in_memory("duck", |_| Ok(())).unwrap());
    let duck_ctx = ToolContext::new(Databases::new().with(duckdb)).with_settings(settings);
    let channel = Channel::from_shared(format!("http://{}:{}", config.host, config.port))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut client = FlightSqlServiceClient::new(channel);
    println!(
        "Sail at {}:{}, medians of {ROUNDS} interleaved rounds (ratios: median, min, max per \
         round)\n",
        config.host, config.port
    );
    // What execute_sql sends, for the raw client.
    let raw_aggregate = capped_sql(&sail_ctx, &sail_aggregate());
    let raw_slice = capped_sql(&sail_ctx, &sail_slice());

    // 1 and 2: the aggregate on Sail (ours and raw) and on DuckDB; the slice (ours and raw).
    let (mut ours, mut theirs, mut duck) = (Vec::new(), Vec::new(), Vec::new());
    let (mut ours_slice, mut theirs_slice, mut adapter_slice) =
        (Vec::new(), Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        // Every other round the raw client goes first, so neither side always follows the other.
        let raw_first = round % 2 == 1;
        if raw_first {
            theirs.push(raw(&mut client, &raw_aggregate).await.0);
        }
        ours.push(execute_sql(&sail_ctx, &sail_aggregate()).await);
        if !raw_first {
            theirs.push(raw(&mut client, &raw_aggregate).await.0);
        }
        duck.push(execute_sql(&duck_ctx, &duckdb_aggregate()).await);
        if raw_first {
            theirs_slice.push(raw_slice_time(&mut client, &raw_slice).await);
        }
        ours_slice.push(execute_sql(&sail_ctx, &sail_slice()).await);
        adapter_slice.push(adapter(sail.as_ref(), &sail_slice()).await);
        if !raw_first {
            theirs_slice.push(raw_slice_time(&mut client, &raw_slice).await);
        }
    }
    print_pair(
        &format!("aggregate over {ROWS} generated rows, Sail"),
        ("execute_sql", &ours),
        ("raw arrow-flight", &theirs),
    );
    print_pair(
        "the same aggregate, execute_sql: Sail local-cluster vs embedded DuckDB",
        ("execute_sql", &ours),
        ("DuckDB", &duck),
    );
    print_pair(
        &format!("{CAP} rows of the {ROWS} (LIMIT), Sail"),
        ("execute_sql", &ours_slice),
        ("raw arrow-flight", &theirs_slice),
    );
    print_pair(
        "  the same slice, the adapter alone (Dialect::query)",
        ("adapter", &adapter_slice),
        ("raw arrow-flight", &theirs_slice),
    );

    // 3: the capped scan, its memory and what the server does afterwards.
    reset_peak();
    let before = status_kib("VmRSS:");
    let started = Instant::now();
    let options = ExecOptions::default().with_max_rows(CAP);
    let checked = sail.prepare(&sail_scan(), None).unwrap();
    let capped = sail.query(&checked, &options).await.unwrap();
    let took = started.elapsed();
    let peak = status_kib("VmHWM:");
    println!(
        "\ncapped scan of {ROWS} rows at {CAP}: {:.1} ms, {} rows kept ({:?}), {} bytes of Arrow; \
         client peak RSS {:.1} MiB over {:.1} MiB before",
        took.as_secs_f64() * 1e3,
        capped.row_count,
        capped.truncation,
        capped
            .batches
            .iter()
            .map(RecordBatch::get_array_memory_size)
            .sum::<usize>(),
        mib(peak.saturating_sub(before)),
        mib(before)
    );
    let jobs = sail
        .prepare(
            "SELECT count(*) AS running FROM system.execution.jobs WHERE status = 'RUNNING'",
            None,
        )
        .unwrap();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let running = sail.query(&jobs, &ExecOptions::default()).await.unwrap();
    println!(
        "jobs still running on Sail a second later (the asking query included): {:?}",
        running.batches[0].column(0)
    );
}
