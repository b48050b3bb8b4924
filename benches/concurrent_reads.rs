//! Concurrent reads on one embedded adapter: N = 1, 2, 4, 8 callers at once on one dialect,
//! each running point lookups or a small aggregate through [`DialectExt::query`], on the
//! SQLite demo shop (in memory, as `nao-mcp --demo` serves it) and, with the `duckdb` feature,
//! the DuckDB demo shop. Prints calls/s for each N side by side and the ratio N=4 / N=1: with
//! the statements running in parallel on separate connections it approaches the number of
//! cores (the target of issue 25 is at least 1.6 on 2 cores); a ratio near 1 means something
//! serialises them.
//!
//! Each round runs every N once in turn (starting from a different N each round), a fixed
//! number of calls (200 point lookups, 50 aggregates: few enough that 15 rounds of every engine
//! take about a minute and a half) split over N tasks on a multi-threaded runtime. The rates
//! are medians over [`ROUNDS`] rounds; the ratio N=4 / N=1 is taken in each round and printed
//! as its median, min and max over the rounds. Beside each rate it prints the process's CPU use
//! during those runs (200% is both cores of a 2-core machine): on a machine other work shares,
//! the rate can only grow as far as the CPU it gets. It also prints the resident memory once
//! each demo database is open and after its runs. It prints numbers and checks nothing: they
//! depend on the machine.
//!
//! With `duckdb`, DuckDB runs twice: in-process, and in [`WORKERS`] worker processes
//! (`Isolation::Workers`, this binary again as the worker), which should scale to their count;
//! its CPU column counts the host process only, not the workers.
//!
//! `cargo bench --bench concurrent_reads` (SQLite only), or with `--features duckdb` (with
//! DUCKDB_LIB_DIR set, see README) for both engines.
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs
)]

mod support;

use std::cell::Cell;
use std::sync::Arc;
use std::time::{Duration, Instant};

use nao::core::guard::{self, Policy, ReadOnlySql, SqlDialect};
use nao::core::{Dialect, DialectExt, ExecOptions};
use nao::dialects::demo::DemoScale;
use nao::dialects::sqlite::SqliteDialect;
use support::interleaved;
use support::rss::{mib, status_kib};

/// The numbers of concurrent callers compared.
const CALLERS: [usize; 4] = [1, 2, 4, 8];
/// Rounds of the interleaved runs; each figure is a median over them.
const ROUNDS: usize = 15;
/// Distinct point-lookup keys cycled through, so no two calls in a row read the same row.
const KEYS: u64 = 64;
/// Worker processes of the DuckDB worker-mode run.
#[cfg(feature = "duckdb")]
const WORKERS: usize = 4;

/// One kind of call: its label, its statements (cycled through) and the calls per run.
struct Workload {
    label: &'static str,
    statements: Arc<Vec<ReadOnlySql>>,
    calls: usize,
}

/// The point lookups (a scan of `orders` for one id: the demo has no indexes) and the small
/// aggregate, checked by the guard once, outside the timing.
fn workloads(dialect: SqlDialect) -> Vec<Workload> {
    let check = |sql: &str| guard::check(sql, dialect, &Policy::default()).expect("a read");
    let lookups = (0..KEYS)
        .map(|k| check(&format!("SELECT * FROM orders WHERE id = {}", 1 + k * 937)))
        .collect();
    let aggregate = check(
        "SELECT status, count(*) AS orders, sum(total) AS revenue FROM orders \
         WHERE ordered_at >= '2024-01-01' GROUP BY status ORDER BY status",
    );
    vec![
        Workload {
            label: "point lookup",
            statements: Arc::new(lookups),
            calls: 200,
        },
        Workload {
            label: "small aggregate",
            statements: Arc::new(vec![aggregate]),
            calls: 50,
        },
    ]
}

/// Runs `calls` calls of `workload` split over `callers` tasks, all on `db` at once.
fn run(
    runtime: &tokio::runtime::Runtime,
    db: &Arc<dyn Dialect>,
    workload: &Workload,
    callers: usize,
) {
    runtime.block_on(async {
        let tasks: Vec<_> = (0..callers)
            .map(|caller| {
                let db = Arc::clone(db);
                let statements = Arc::clone(&workload.statements);
                let calls =
                    workload.calls / callers + usize::from(caller < workload.calls % callers);
                tokio::spawn(async move {
                    let options = ExecOptions::default();
                    for call in 0..calls {
                        let sql = &statements[(caller * 7 + call) % statements.len()];
                        let result = db.query(sql, &options).await.expect("the call");
                        assert!(result.row_count > 0, "every statement returns rows");
                    }
                })
            })
            .collect();
        for task in tasks {
            task.await.expect("a caller");
        }
    });
}

/// CPU time this process has used, all threads, in clock ticks (`/proc/self/stat`'s utime
/// and stime; 0 where it cannot be read).
fn cpu_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command name, which is in parentheses and may hold spaces.
    let rest = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // utime and stime are the 14th and 15th fields; `rest` starts at the 3rd.
    field(11) + field(12)
}

/// Clock ticks per second of `/proc/self/stat` (USER_HZ: 100 on every Linux build in use).
const TICKS_PER_SECOND: f64 = 100.0;

/// Opens `open()`, then prints its calls/s and CPU use for every N of every workload, the ratio
/// N=4 / N=1, and the process's resident memory before, with the database open, and after.
fn measure(
    runtime: &tokio::runtime::Runtime,
    engine: &str,
    open: impl FnOnce() -> Arc<dyn Dialect>,
) {
    let before = status_kib("VmRSS:");
    let db = open();
    let opened = status_kib("VmRSS:");
    compare(runtime, engine, &db);
    println!(
        "{engine:<14} RSS: {:.0} MiB before, {:.0} MiB with the demo open, {:.0} MiB after the runs",
        mib(before),
        mib(opened),
        mib(status_kib("VmRSS:"))
    );
}

/// Prints calls/s and CPU use for every N of every workload on `db`, and the ratio N=4 / N=1
/// per round.
fn compare(runtime: &tokio::runtime::Runtime, engine: &str, db: &Arc<dyn Dialect>) {
    for workload in workloads(db.sql_dialect()) {
        // Warm the caches and the pool once at the widest width.
        run(runtime, db, &workload, CALLERS[CALLERS.len() - 1]);
        // Per N: CPU ticks and wall time summed over the rounds.
        let used: Vec<Cell<(u64, Duration)>> = CALLERS
            .iter()
            .map(|_| Cell::new((0, Duration::ZERO)))
            .collect();
        let mut runs: Vec<Box<dyn FnMut() + '_>> = CALLERS
            .iter()
            .zip(&used)
            .map(|(&n, used)| {
                let workload = &workload;
                Box::new(move || {
                    let (ticks, start) = (cpu_ticks(), Instant::now());
                    run(runtime, db, workload, n);
                    let (sum, wall) = used.get();
                    used.set((sum + cpu_ticks() - ticks, wall + start.elapsed()));
                }) as Box<dyn FnMut()>
            })
            .collect();
        let mut refs: Vec<&mut dyn FnMut()> = runs.iter_mut().map(|r| &mut **r as _).collect();
        let rounds = interleaved(ROUNDS, &mut refs);
        let rates: Vec<f64> = (0..CALLERS.len())
            .map(|n| workload.calls as f64 / rounds.median(n).as_secs_f64())
            .collect();
        drop(runs);
        let cells: Vec<String> = CALLERS
            .iter()
            .zip(&rates)
            .zip(&used)
            .map(|((n, rate), used)| {
                let (ticks, wall) = used.get();
                let cpu = 100.0 * ticks as f64 / TICKS_PER_SECOND / wall.as_secs_f64();
                format!("N={n}: {rate:>5.0}/s ({cpu:>3.0}% CPU)")
            })
            .collect();
        // The rate ratio N=4 / N=1 is the time ratio N=1 / N=4.
        println!(
            "{engine:<14} {:<16} {}   N=4/N=1: {}",
            workload.label,
            cells.join("  "),
            rounds.ratio(0, 2)
        );
    }
}

fn main() {
    #[cfg(feature = "duckdb")]
    if let Some(code) = nao::dialects::duckdb::run_if_worker() {
        std::process::exit(code);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    println!(
        "concurrent reads on one dialect, demo shop (DemoScale::Full), {cores} cores, \
         medians of {ROUNDS} rounds (ratios: median, min, max per round)"
    );
    measure(&runtime, "sqlite", || {
        Arc::new(SqliteDialect::demo("shop", DemoScale::Full).unwrap())
    });
    #[cfg(feature = "duckdb")]
    {
        use nao::dialects::duckdb::{DuckDbDialect, load_batches};
        use nao::dialects::{EngineLimits, Isolation};
        measure(&runtime, "duckdb", || {
            Arc::new(DuckDbDialect::demo("shop", DemoScale::Full).unwrap())
        });
        measure(&runtime, "duckdb workers", || {
            let program = std::env::current_exe().unwrap();
            let limits = EngineLimits::default().isolation(Isolation::workers(program, WORKERS));
            let tables = nao::dialects::demo::generate(DemoScale::Full).unwrap();
            Arc::new(
                DuckDbDialect::in_memory_with("shop", &limits, |conn| {
                    tables
                        .iter()
                        .try_for_each(|t| load_batches(conn, t.name, &t.batches))
                })
                .unwrap(),
            )
        });
    }
}
