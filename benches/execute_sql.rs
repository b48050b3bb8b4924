//! execute_sql end to end (guard + execute + store + render) against the raw duckdb crate on
//! the same database file and the same statement (the raw side runs the text execute_sql sends,
//! with the row cap the guard adds), and a capped scan of 10 million rows against fetching them
//! all — times side by side in one run, peak memory from child processes.
//!
//! The shapes where a fixed cost per call or per batch shows run back to back, four calls a
//! round: a small aggregate (a few milliseconds of engine work) and 100,000 rows of a plain
//! `SELECT * … LIMIT` (issue 22's targets: execute_sql at most 1.05x raw on both). The raw
//! side drops each result at once, so its next result lands on the pages just freed, while
//! execute_sql keeps every result in its store for paging, on fresh pages (page faults: about
//! 4 MB of them a call at 100,000 rows); a third run, raw duckdb keeping its results up to the
//! store's default budget, shows what that retention costs raw duckdb too.
//!
//! It also compares DuckDB in-process with DuckDB in worker processes (`Isolation::Workers`,
//! this binary again as the worker) on a point query and on the aggregate: the per-call cost
//! of the process boundary.
//!
//! Every comparison prints the medians of both sides and the median, min and max of the
//! per-round ratios over interleaved rounds (31 for the aggregates, 61 for the point query, 15
//! for the scan).
//!
//! `cargo bench --bench execute_sql --features duckdb` (with DUCKDB_LIB_DIR set, see README).
//! Memory: each scenario runs once in a fresh child process (this binary, re-executed with
//! NAO_BENCH_SCENARIO set) that reports its peak resident set size (VmHWM in /proc/self/status)
//! after the work, so the figures do not include criterion's own allocations.
//!
//! Profiling: `NAO_BENCH_SCENARIO=tool-100k` (or `raw-100k`, `kept-100k`, `tool-small`,
//! `raw-small`, `raw-small-fresh`) with `NAO_BENCH_DB` set to the database file runs one side alone
//! `NAO_BENCH_CALLS` times (default 300), for `perf record` or `perf stat -e page-faults`.
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs
)]

mod support;

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use support::tool::capped_sql;
use support::{interleaved, side_by_side};

use nao::core::arrow::array::RecordBatch;
use nao::core::{
    DEFAULT_RESULT_BUDGET, Databases, Settings, ToolCall, ToolContext, ToolRegistry, tools,
};
use nao::dialects::demo::{DemoScale, generate};
use nao::dialects::duckdb::{DuckDbDialect, driver as duckdb, load_batches};
use nao::dialects::{EngineLimits, Isolation};
use serde_json::json;

const AGGREGATE: &str = "SELECT p.category, date_trunc('month', o.ordered_at) AS month, \
    count(*) AS lines, sum(oi.quantity * oi.unit_price) AS revenue \
    FROM orders o JOIN order_items oi ON oi.order_id = o.id JOIN products p ON p.id = oi.product_id \
    GROUP BY 1, 2 ORDER BY 1, 2";
/// A few milliseconds of engine work: where a fixed cost per call shows.
const SMALL_AGGREGATE: &str = "SELECT p.category, count(*) AS lines, \
    sum(oi.quantity * oi.unit_price) AS revenue \
    FROM order_items oi JOIN products p ON p.id = oi.product_id GROUP BY 1 ORDER BY 1";
/// Many rows and little engine work: where a cost per row or per batch shows.
const ROWS_100K: &str = "SELECT * FROM big LIMIT 100000";
const SCAN: &str = "SELECT * FROM big";
const BIG_ROWS: u64 = 10_000_000;
const CAP: u64 = 10_000;

fn database_file() -> PathBuf {
    support::duckdb_file::cached(
        "nao-bench-execute-sql",
        &format!("shop-{BIG_ROWS}.duckdb"),
        |conn| {
            for table in generate(DemoScale::Full).unwrap() {
                load_batches(conn, table.name, &table.batches).unwrap();
            }
            conn.execute_batch(&format!(
                "CREATE TABLE big AS SELECT i AS id, i * 2 AS twice, 'row ' || i AS label, \
                 (i % 1000) / 10.0 AS amount FROM range({BIG_ROWS}) t(i)"
            ))
            .unwrap();
        },
    )
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn context(path: &Path, max_rows: u64) -> ToolContext {
    context_with(path, max_rows, &EngineLimits::default())
}

/// The context with DuckDB in two worker processes (this binary again).
fn context_in_workers(path: &Path, max_rows: u64) -> ToolContext {
    let program = std::env::current_exe().unwrap();
    let limits = EngineLimits::default().isolation(Isolation::workers(program, 2));
    context_with(path, max_rows, &limits)
}

fn context_with(path: &Path, max_rows: u64, limits: &EngineLimits) -> ToolContext {
    let dialect = DuckDbDialect::open_with("shop", path, limits).unwrap();
    let settings = Settings::default()
        .with_max_rows(max_rows)
        .with_timeout(Duration::from_secs(600));
    ToolContext::new(Databases::new().with(Arc::new(dialect))).with_settings(settings)
}

fn raw_connection(path: &Path) -> duckdb::Connection {
    let config = duckdb::Config::default()
        .access_mode(duckdb::AccessMode::ReadOnly)
        .unwrap();
    duckdb::Connection::open_with_flags(path, config).unwrap()
}

fn raw_collect(conn: &duckdb::Connection, sql: &str) -> usize {
    let mut statement = conn.prepare(sql).unwrap();
    let batches: Vec<RecordBatch> = statement.query_arrow([]).unwrap().collect();
    batches.iter().map(RecordBatch::num_rows).sum()
}

/// The raw side with the store's retention: every result is kept, the oldest dropped once
/// they pass the store's default budget (counted as the store counts them), so its data lands
/// on fresh memory as execute_sql's does rather than on the pages of the result just dropped.
#[derive(Default)]
struct Kept {
    results: std::collections::VecDeque<(Vec<RecordBatch>, usize)>,
    bytes: usize,
}

impl Kept {
    fn collect(&mut self, conn: &duckdb::Connection, sql: &str) -> usize {
        let mut statement = conn.prepare(sql).unwrap();
        let batches: Vec<RecordBatch> = statement.query_arrow([]).unwrap().collect();
        let rows = batches.iter().map(RecordBatch::num_rows).sum();
        let size = batches.iter().map(RecordBatch::get_array_memory_size).sum();
        self.bytes += size;
        self.results.push_back((batches, size));
        while self.bytes > DEFAULT_RESULT_BUDGET && self.results.len() > 1 {
            let (_, size) = self.results.pop_front().unwrap();
            self.bytes -= size;
        }
        rows
    }
}

async fn tool(registry: &ToolRegistry, ctx: &ToolContext, sql: &str) -> u64 {
    let result = registry
        .call(
            &ToolCall::new("b", "execute_sql", json!({"sql_query": sql})),
            ctx,
        )
        .await;
    assert!(!result.is_error, "{}", result.content);
    black_box(result.content.len());
    result.row_count.unwrap_or(0)
}

fn peak_rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// One scenario in this process, for the memory figures.
fn scenario(name: &str, path: &Path) {
    let start = Instant::now();
    let rows = match name {
        "capped" => {
            let ctx = context(path, CAP);
            let registry = tools::sql_tools();
            runtime().block_on(tool(&registry, &ctx, SCAN)) as usize
        }
        "full" => raw_collect(&raw_connection(path), SCAN),
        // One side of a back-to-back comparison alone, `NAO_BENCH_CALLS` times (default 300),
        // for a profiler (`perf record`, `perf stat`) to look at.
        "tool-small" | "tool-100k" => {
            let ctx = context(path, profiled_cap(name));
            let registry = tools::sql_tools();
            let sql = if name == "tool-small" {
                SMALL_AGGREGATE
            } else {
                ROWS_100K
            };
            let rt = runtime();
            let rows = (0..calls())
                .map(|_| rt.block_on(tool(&registry, &ctx, sql)) as usize)
                .sum();
            println!(
                "store: {} results, {} bytes of Arrow memory",
                ctx.results().ids().len(),
                ctx.results().memory_in_use()
            );
            rows
        }
        "kept-100k" => {
            let sql = capped_sql(&context(path, 100_000), ROWS_100K);
            let raw = raw_connection(path);
            let mut kept = Kept::default();
            (0..calls()).map(|_| kept.collect(&raw, &sql)).sum()
        }
        // raw-small with a fresh connection per call (`try_clone`), as the adapter opens one
        // per statement: what that connection costs.
        "raw-small-fresh" => {
            let sql = capped_sql(&context(path, profiled_cap(name)), SMALL_AGGREGATE);
            let root = raw_connection(path);
            (0..calls())
                .map(|_| raw_collect(&root.try_clone().unwrap(), &sql))
                .sum()
        }
        "raw-small" | "raw-100k" => {
            let ctx = context(path, profiled_cap(name));
            let sql = if name == "raw-small" {
                SMALL_AGGREGATE
            } else {
                ROWS_100K
            };
            let sql = capped_sql(&ctx, sql);
            let raw = raw_connection(path);
            (0..calls()).map(|_| raw_collect(&raw, &sql)).sum()
        }
        other => panic!("unknown scenario {other}"),
    };
    println!(
        "rows={rows} elapsed_ms={} peak_rss_kb={}",
        start.elapsed().as_millis(),
        peak_rss_kb()
    );
}

/// The row cap of a profiling scenario: the back-to-back comparison's.
fn profiled_cap(name: &str) -> u64 {
    if name.ends_with("100k") {
        100_000
    } else {
        10_000
    }
}

/// How many calls a profiling scenario makes.
fn calls() -> usize {
    std::env::var("NAO_BENCH_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(300)
}

fn child(name: &str, path: &Path) -> String {
    let exe = std::env::current_exe().unwrap();
    let output = std::process::Command::new(exe)
        .env("NAO_BENCH_SCENARIO", name)
        .env("NAO_BENCH_DB", path)
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

const POINT: &str = "SELECT count(*) AS n FROM products";
/// Interleaved rounds of the aggregate comparisons (tens of milliseconds a call).
const ROUNDS: usize = 31;
/// Interleaved rounds of the point query (milliseconds a call).
const POINT_ROUNDS: usize = 61;
/// Interleaved rounds of the 10M-row scan (a full fetch takes about half a second).
const SCAN_ROUNDS: usize = 15;

fn main() {
    // The worker processes of the in-workers context are this binary again.
    if let Some(code) = nao::dialects::duckdb::run_if_worker() {
        std::process::exit(code);
    }
    if let (Ok(name), Ok(db)) = (
        std::env::var("NAO_BENCH_SCENARIO"),
        std::env::var("NAO_BENCH_DB"),
    ) {
        scenario(&name, Path::new(&db));
        return;
    }
    if std::env::args().any(|a| a == "--list") {
        return; // nothing for `cargo bench -- --list`
    }
    let path = database_file();
    let rt = runtime();
    let registry = tools::sql_tools();
    let raw = raw_connection(&path);

    let ctx = context(&path, 10_000);
    // The statements execute_sql runs (its row cap added), for the raw side.
    let aggregate = capped_sql(&ctx, AGGREGATE);
    let point_sql = capped_sql(&ctx, POINT);
    let rounds = side_by_side(
        ROUNDS,
        || {
            black_box(rt.block_on(tool(&registry, &ctx, AGGREGATE)));
        },
        || {
            black_box(raw_collect(&raw, &aggregate));
        },
    );
    println!(
        "\nexecute_sql summary (medians of interleaved rounds; ratios: median, min, max per round)"
    );
    println!(
        "  aggregate over the demo shop: execute_sql {:>10.2?}   raw duckdb query_arrow {:>10.2?}   ratio {}",
        rounds.median(0),
        rounds.median(1),
        rounds.ratio(0, 1)
    );

    // Back to back, the shapes where per-call and per-batch costs show.
    let rows_ctx = context(&path, 100_000);
    let small_aggregate = capped_sql(&ctx, SMALL_AGGREGATE);
    let rows_100k = capped_sql(&rows_ctx, ROWS_100K);
    let mut kept = Kept::default();
    let back_to_back = interleaved(
        ROUNDS,
        &mut [
            &mut || {
                black_box(rt.block_on(tool(&registry, &ctx, SMALL_AGGREGATE)));
            },
            &mut || {
                black_box(raw_collect(&raw, &small_aggregate));
            },
            &mut || {
                black_box(rt.block_on(tool(&registry, &rows_ctx, ROWS_100K)));
            },
            &mut || {
                black_box(raw_collect(&raw, &rows_100k));
            },
            &mut || {
                black_box(kept.collect(&raw, &rows_100k));
            },
        ],
    );
    println!(
        "  small aggregate: execute_sql {:>10.2?}   raw duckdb {:>10.2?}   ratio {}",
        back_to_back.median(0),
        back_to_back.median(1),
        back_to_back.ratio(0, 1)
    );
    println!(
        "  100k rows: execute_sql {:>10.2?}   raw duckdb {:>10.2?}   ratio {}",
        back_to_back.median(2),
        back_to_back.median(3),
        back_to_back.ratio(2, 3)
    );
    println!(
        "  100k rows: execute_sql {:>10.2?}   raw duckdb keeping its results as the store does {:>10.2?}   ratio {}",
        back_to_back.median(2),
        back_to_back.median(4),
        back_to_back.ratio(2, 4)
    );

    let workers_ctx = context_in_workers(&path, 10_000);
    // The first call starts a worker; time the calls after it.
    rt.block_on(tool(&registry, &workers_ctx, POINT));
    let point = interleaved(
        POINT_ROUNDS,
        &mut [
            &mut || {
                black_box(rt.block_on(tool(&registry, &ctx, POINT)));
            },
            &mut || {
                black_box(rt.block_on(tool(&registry, &workers_ctx, POINT)));
            },
            &mut || {
                black_box(raw_collect(&raw, &point_sql));
            },
        ],
    );
    println!(
        "  point query: execute_sql in-process {:>10.2?}   raw duckdb {:>10.2?}   ratio {}",
        point.median(0),
        point.median(2),
        point.ratio(0, 2)
    );
    println!(
        "  point query: execute_sql in workers {:>10.2?}   in-process {:>10.2?}   ratio {}",
        point.median(1),
        point.median(0),
        point.ratio(1, 0)
    );
    let rounds = side_by_side(
        ROUNDS,
        || {
            black_box(rt.block_on(tool(&registry, &ctx, AGGREGATE)));
        },
        || {
            black_box(rt.block_on(tool(&registry, &workers_ctx, AGGREGATE)));
        },
    );
    println!(
        "  aggregate: execute_sql in workers {:>10.2?}   in-process {:>10.2?}   ratio {}",
        rounds.median(1),
        rounds.median(0),
        rounds.ratio(1, 0)
    );

    // Not the same statement on purpose: what the cap saves against reading everything.
    let capped_ctx = context(&path, CAP);
    let rounds = side_by_side(
        SCAN_ROUNDS,
        || {
            black_box(rt.block_on(tool(&registry, &capped_ctx, SCAN)));
        },
        || {
            black_box(raw_collect(&raw, SCAN));
        },
    );
    println!(
        "  SELECT * over {BIG_ROWS} rows: execute_sql capped at {CAP} {:>10.2?}   raw full fetch {:>10.2?}   ratio {}",
        rounds.median(0),
        rounds.median(1),
        rounds.ratio(0, 1)
    );
    println!(
        "  peak RSS, capped execute_sql (child process): {}",
        child("capped", &path)
    );
    println!(
        "  peak RSS, raw full fetch (child process):     {}",
        child("full", &path)
    );
}
