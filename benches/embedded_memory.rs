//! Peak memory of one capped call on the embedded engines (SQLite, DuckDB) for the shapes of
//! issue 24: values near SQLite's 1 GB maximum, aggregates of large values, a recursive CTE
//! doubling a string, huge lists and `DISTINCT` over large ranges in DuckDB, and what stays
//! resident after repeated large results.
//!
//! Each shape runs in a child process of its own (this binary again) on a database file in a
//! temporary directory (the shapes came from nao-mcp on file databases): the child opens the
//! adapter, resets its peak RSS (`/proc/self/clear_refs`), collects the result under a
//! 64 MiB byte cap with [`DialectExt::query`] (the path `execute_sql` takes) and a time limit,
//! and prints its RSS before, its peak (`VmHWM`) and its RSS after the call, the adapter still
//! alive. The parent prints the shapes side by side against the bound of issue 24: twice the
//! cap, plus the engine's memory limit, plus a few MB, over the RSS before the call. It prints
//! numbers and a verdict per shape and checks nothing: peaks depend on the machine.
//!
//! SQLite shapes run with SQLite's whole heap capped at the engine memory limit
//! (`sqlite::limit_process_heap`, as nao-mcp sets it). DuckDB shapes run twice: in-process, and in worker processes (`Isolation::Workers`, this
//! binary again as the worker). For the latter the child also samples its worker processes
//! every 5 ms and adds the largest worker peak to its own, and their RSS to its RSS after.
//!
//! `cargo bench --bench embedded_memory --features duckdb` (with DUCKDB_LIB_DIR set, see
//! README).
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs
)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use nao::core::guard::{ReadOnlySql, SqlDialect};
use nao::core::{CollectedBatches, Dialect, DialectError, DialectExt, ExecOptions};
use nao::dialects::duckdb::{DuckDbDialect, driver as duckdb};
use nao::dialects::sqlite::{SqliteDialect, rusqlite};
use nao::dialects::{EngineLimits, Isolation, Spill};
use support::rss::{self, Measured, mib, status_kib, status_kib_of};

mod support;

/// The byte cap of every shape.
const CAP: usize = 64 << 20;
/// The engine memory limit every adapter opens with.
const ENGINE_MEMORY: u64 = 256 << 20;
/// "A few MB": the fixed part of the bound, for the runtime and the driver's buffers.
const SLACK: usize = 16 << 20;
/// Each shape's time limit: long enough for its work, short enough for the bench to finish in
/// a few minutes.
const TIMEOUT: Duration = Duration::from_secs(20);
/// The environment variable that makes this binary a child running one shape.
const CHILD: &str = "NAO_MEMORY_CHILD";
/// The environment variable naming the directory of the database files.
const DIR: &str = "NAO_MEMORY_DIR";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Engine {
    Sqlite,
    DuckDb,
    /// DuckDB in one worker process.
    DuckDbWorkers,
}

/// One shape: its engine, its label, the statements run before it in the same session, its
/// statement, what runs after it before the RSS after is read, and whether the engine may
/// spill to a directory (the default, [`Spill::Off`], is what the others run with).
struct Shape {
    engine: Engine,
    label: &'static str,
    before: &'static [&'static str],
    sql: &'static str,
    after: Option<&'static str>,
    spill: bool,
    /// The time limit of each call.
    timeout: Duration,
}

const fn shape(engine: Engine, label: &'static str, sql: &'static str) -> Shape {
    Shape {
        engine,
        label,
        before: &[],
        sql,
        after: None,
        spill: false,
        timeout: TIMEOUT,
    }
}

/// A cross join DuckDB needs minutes for, with little memory: only a time limit stops it.
const DUCKDB_SLOW: &str =
    "SELECT count(*) AS n FROM range(100000000) a, range(1000) b WHERE a.range + b.range = -1";

/// The DuckDB shapes, for `engine` (in-process or in workers).
macro_rules! duckdb_shapes {
    ($engine:expr) => {
        [
            shape($engine, "2000 rows of 1 MB", DUCKDB_WIDE_ROWS),
            shape(
                $engine,
                "range(100000000) list",
                "SELECT range(100000000) AS l",
            ),
            shape(
                $engine,
                "list_resize 200M",
                "SELECT list_resize([1], 200000000) AS l",
            ),
            shape(
                $engine,
                "repeat('x', 1e9)",
                "SELECT repeat('x', 1000000000) AS s",
            ),
            Shape {
                before: &[DUCKDB_WIDE_ROWS, DUCKDB_WIDE_ROWS, DUCKDB_WIDE_ROWS],
                after: Some("SELECT 1 AS one"),
                ..shape($engine, "4 x 2000 rows of 1 MB", DUCKDB_WIDE_ROWS)
            },
            Shape {
                before: &[DUCKDB_SLOW, DUCKDB_SLOW, DUCKDB_SLOW],
                after: Some("SELECT 1 AS one"),
                timeout: Duration::from_secs(2),
                ..shape($engine, "4 x timed out, then SELECT 1", DUCKDB_SLOW)
            },
            shape(
                $engine,
                "DISTINCT 200M range",
                "SELECT count(*) AS n FROM (SELECT DISTINCT i FROM range(200000000) t(i))",
            ),
            Shape {
                spill: true,
                ..shape(
                    $engine,
                    "DISTINCT 200M range, spill",
                    "SELECT count(*) AS n FROM (SELECT DISTINCT i FROM range(200000000) t(i))",
                )
            },
        ]
    };
}

const DUCKDB_WIDE_ROWS: &str = "SELECT repeat('x', 1000000) AS s FROM range(2000)";

const SQLITE_SHAPES: &[Shape] = &[
    shape(
        Engine::Sqlite,
        "zeroblob(999999999)",
        "SELECT zeroblob(999999999) AS b",
    ),
    shape(
        Engine::Sqlite,
        "randomblob(999999999)",
        "SELECT randomblob(999999999) AS b",
    ),
    shape(
        Engine::Sqlite,
        "printf('%.*c', 1e9)",
        "SELECT printf('%.*c', 999999999, 'x') AS s",
    ),
    shape(
        Engine::Sqlite,
        "group_concat 3 x 300 MB",
        "SELECT group_concat(b) AS g FROM (SELECT randomblob(300000000) AS b \
         UNION ALL SELECT randomblob(300000000) UNION ALL SELECT randomblob(300000000))",
    ),
    shape(
        Engine::Sqlite,
        "group_concat 3 x 20 MB",
        "SELECT group_concat(b) AS g FROM (SELECT randomblob(20000000) AS b \
         UNION ALL SELECT randomblob(20000000) UNION ALL SELECT randomblob(20000000))",
    ),
    shape(
        Engine::Sqlite,
        "json_group_array 4 x hex",
        "SELECT json_group_array(hex(b)) AS j FROM (SELECT randomblob(10000000) AS b \
         UNION ALL SELECT randomblob(10000000) UNION ALL SELECT randomblob(10000000) \
         UNION ALL SELECT randomblob(10000000))",
    ),
    shape(
        Engine::Sqlite,
        "doubling recursive CTE",
        "WITH RECURSIVE c(s) AS (SELECT 'x' UNION ALL SELECT s || s FROM c \
         WHERE length(s) < 1000000000) SELECT s FROM c",
    ),
    shape(
        Engine::Sqlite,
        "one row of 5 x 30 MB",
        "SELECT randomblob(30000000) AS a, randomblob(30000000) AS b, \
         randomblob(30000000) AS c, randomblob(30000000) AS d, randomblob(30000000) AS e",
    ),
    shape(
        Engine::Sqlite,
        "max() of 20 x 30 MB",
        "SELECT length(max(randomblob(30000000), randomblob(30000000), randomblob(30000000), \
         randomblob(30000000), randomblob(30000000), randomblob(30000000), \
         randomblob(30000000), randomblob(30000000), randomblob(30000000), \
         randomblob(30000000), randomblob(30000000), randomblob(30000000), \
         randomblob(30000000), randomblob(30000000), randomblob(30000000), \
         randomblob(30000000), randomblob(30000000), randomblob(30000000), \
         randomblob(30000000), randomblob(30000000))) AS n",
    ),
    shape(
        Engine::Sqlite,
        "ORDER BY 3M rows",
        "WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 3000000) \
         SELECT count(*) AS n FROM (SELECT n, printf('%020d', n) AS p FROM g ORDER BY p DESC)",
    ),
    shape(
        Engine::Sqlite,
        "DISTINCT 3M rows",
        "WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 3000000) \
         SELECT count(*) AS n FROM (SELECT DISTINCT n FROM g)",
    ),
    shape(
        Engine::Sqlite,
        "DISTINCT 5000 x 100 KB",
        "WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 5000) \
         SELECT count(*) AS n FROM (SELECT DISTINCT randomblob(100000) FROM g)",
    ),
];

const DUCKDB_SHAPES: [Shape; 8] = duckdb_shapes!(Engine::DuckDb);
const WORKER_SHAPES: [Shape; 8] = duckdb_shapes!(Engine::DuckDbWorkers);

/// Every shape, by the index a child is given.
fn shapes() -> impl Iterator<Item = &'static Shape> {
    SQLITE_SHAPES
        .iter()
        .chain(DUCKDB_SHAPES.iter())
        .chain(WORKER_SHAPES.iter())
}

fn sqlite_file(dir: &Path) -> PathBuf {
    dir.join("shapes.sqlite")
}

fn duckdb_file(dir: &Path) -> PathBuf {
    dir.join("shapes.duckdb")
}

/// The two database files the shapes run on (each holds one small table: the shapes read
/// none, but an adapter opens only an existing database).
fn create_databases(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    rusqlite::Connection::open(sqlite_file(dir))
        .unwrap()
        .execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);")
        .unwrap();
    duckdb::Connection::open(duckdb_file(dir))
        .unwrap()
        .execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);")
        .unwrap();
}

// ---------------------------------------------------------------------------------------------
// The child: one shape, one process.

/// A one-line outcome of a call.
fn outcome(result: Result<CollectedBatches, DialectError>, took: Duration) -> String {
    match result {
        Ok(result) => format!(
            "{} rows, {}, {took:.1?}",
            result.row_count,
            match result.truncation {
                Some(t) => format!("{t:?}"),
                None => "complete".to_owned(),
            },
        ),
        Err(e) => {
            // The database's name and the words every ResourceLimit starts with say nothing
            // here.
            let text = e.to_string();
            let text = text
                .split_once("the query needed more than the ")
                .map_or(text.as_str(), |(_, rest)| rest);
            // One line: the parent reads the child's last line.
            let cut: String = text
                .chars()
                .map(|c| if c == '\n' { ' ' } else { c })
                .take(160)
                .collect();
            format!("error {} after {took:.1?}: {cut}", e.kind_code())
        }
    }
}

/// Runs shape `index` and prints `rss_before peak rss_after outcome` (KiB, KiB, KiB, text).
fn child(index: usize, dir: &Path) {
    let shape = shapes().nth(index).expect("shape index");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let spill = if shape.spill {
        Spill::under(dir, 4 << 30)
    } else {
        Spill::Off
    };
    let limits = EngineLimits::new().memory_limit(ENGINE_MEMORY).spill(spill);
    let limits = match shape.engine {
        Engine::DuckDbWorkers => {
            limits.isolation(Isolation::workers(std::env::current_exe().unwrap(), 1))
        }
        _ => limits,
    };
    let (db, dialect): (Arc<dyn Dialect>, SqlDialect) = match shape.engine {
        Engine::Sqlite => {
            // As nao-mcp does (there with room for its in-memory demo database): this process
            // uses SQLite only through the adapter, so SQLite's whole heap gets its limit.
            nao::dialects::sqlite::limit_process_heap(ENGINE_MEMORY).unwrap();
            let db = SqliteDialect::open_with("sqlite", sqlite_file(dir), &limits).unwrap();
            (Arc::new(db), SqlDialect::Sqlite)
        }
        Engine::DuckDb | Engine::DuckDbWorkers => {
            let db = DuckDbDialect::open_with("duckdb", duckdb_file(dir), &limits).unwrap();
            (Arc::new(db), SqlDialect::DuckDb)
        }
    };
    let options = ExecOptions::default()
        .with_max_bytes(CAP)
        .with_max_rows(100_000_000)
        .with_timeout(shape.timeout);
    let workers = WorkerSampler::start();
    let sql = |text: &str| ReadOnlySql::new_unchecked_allowing_writes(text, dialect);
    let before = status_kib("VmRSS:");
    // Resets VmHWM to the current RSS, so the peak is this call's.
    rss::reset_peak();
    let mut earlier = Vec::new();
    for text in shape.before {
        let started = Instant::now();
        let result = rt.block_on(db.query(&sql(text), &options));
        earlier.push(outcome(result, started.elapsed()));
        // The result is dropped here, as a host drops a result it has rendered.
    }
    let started = Instant::now();
    let result = rt.block_on(db.query(&sql(shape.sql), &options));
    let mut line = outcome(result, started.elapsed());
    let peak = status_kib("VmHWM:") + workers.peak();
    if let Some(text) = shape.after {
        let started = Instant::now();
        let result = rt.block_on(db.query(&sql(text), &options));
        line = format!("{line}; then {}", outcome(result, started.elapsed()));
    }
    if !earlier.is_empty() {
        line = format!(
            "{} earlier calls ({}); {line}",
            earlier.len(),
            earlier.join(" / ")
        );
    }
    // What is still held once the result is gone, the adapter alive; a moment for memory
    // released in the background.
    rt.block_on(async { tokio::time::sleep(Duration::from_millis(500)).await });
    let after = status_kib("VmRSS:") + workers.rss_now();
    println!("{before} {peak} {after} {line}");
    drop(db);
}

/// Watches this process's worker processes: the largest peak RSS any of them reached, and
/// their RSS now.
struct WorkerSampler {
    peak: Arc<std::sync::atomic::AtomicU64>,
}

impl WorkerSampler {
    fn start() -> Self {
        let peak = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let seen = Arc::clone(&peak);
        std::thread::spawn(move || {
            loop {
                for pid in worker_pids() {
                    let hwm = status_kib_of(&format!("/proc/{pid}/status"), "VmHWM:");
                    seen.fetch_max(hwm, std::sync::atomic::Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        });
        WorkerSampler { peak }
    }

    fn peak(&self) -> u64 {
        self.peak.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn rss_now(&self) -> u64 {
        worker_pids()
            .map(|pid| status_kib_of(&format!("/proc/{pid}/status"), "VmRSS:"))
            .sum()
    }
}

/// The processes whose parent is this one.
fn worker_pids() -> impl Iterator<Item = u32> {
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .filter_map(move |entry| {
            let entry = entry.ok()?;
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            let ppid = stat.rsplit_once(')')?.1.split_whitespace().nth(1)?;
            (ppid == me).then_some(pid)
        })
}

/// Runs shape `index` in a child process; the child's line.
fn run_child(index: usize, dir: &Path) -> Option<Measured> {
    rss::run_child(
        Command::new(std::env::current_exe().ok()?)
            .env(CHILD, index.to_string())
            .env(DIR, dir),
    )
}

fn print_row(shape: &Shape, measured: Option<Measured>) {
    let engine = match shape.engine {
        Engine::Sqlite => "sqlite",
        Engine::DuckDb => "duckdb",
        Engine::DuckDbWorkers => "workers",
    };
    let label = shape.label;
    let Some((before, peak, after, outcome)) = measured else {
        println!("  {engine:<7} {label:<26} (the child printed nothing)");
        return;
    };
    let bound = before + ((2 * CAP as u64 + ENGINE_MEMORY + SLACK as u64) >> 10);
    let verdict = if peak <= bound { "within" } else { "OVER" };
    println!(
        "  {engine:<7} {label:<26} before {:>6.1} MiB  peak {:>7.1} MiB (+{:>7.1})  {verdict:<6} bound {:>6.1}  after {:>6.1} MiB  | {outcome}",
        mib(before),
        mib(peak),
        mib(peak.saturating_sub(before)),
        mib(bound),
        mib(after),
    );
}

fn main() {
    // The worker processes of the `workers` shapes are this binary again.
    if let Some(code) = nao::dialects::duckdb::run_if_worker() {
        std::process::exit(code);
    }
    if let Ok(index) = std::env::var(CHILD) {
        let dir = PathBuf::from(std::env::var(DIR).expect(DIR));
        child(index.parse().expect("shape index"), &dir);
        return;
    }
    let dir =
        std::env::temp_dir().join(format!("nao-bench-embedded-memory-{}", std::process::id()));
    create_databases(&dir);
    println!(
        "\nPeak RSS of one capped call ({} MiB byte cap, {} s time limit; bound: RSS before + 2 x cap + engine memory limit {} MiB + {} MiB), each shape in its own process, on database files",
        CAP >> 20,
        TIMEOUT.as_secs(),
        ENGINE_MEMORY >> 20,
        SLACK >> 20
    );
    for (index, shape) in shapes().enumerate() {
        print_row(shape, run_child(index, &dir));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
