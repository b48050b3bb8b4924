//! Concurrent reads on one embedded adapter: N = 1, 2, 4, 8 callers at once on one dialect,
//! each running point lookups or a small aggregate through [`DialectExt::query`], on the
//! SQLite demo shop (in memory, as `nao-mcp --demo` serves it) and, with the `duckdb` feature,
//! the DuckDB demo shop. Prints calls/s for each N side by side and the ratio N=4 / N=1: with
//! the statements running in parallel on separate connections it approaches the number of
//! cores (the target of issue 25 is at least 1.6 on 2 cores); a ratio near 1 means something
//! serialises them.
//!
//! Each round runs every (N) once in turn, a fixed number of calls split over N tasks on a
//! multi-threaded runtime; the figures are medians over the rounds. It prints numbers and
//! checks nothing: they depend on the machine.
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

use std::sync::Arc;
use std::time::Duration;

use nao::core::guard::{self, Policy, ReadOnlySql, SqlDialect};
use nao::core::{Dialect, DialectExt, ExecOptions};
use nao::dialects::demo::DemoScale;
use nao::dialects::sqlite::SqliteDialect;
use support::interleaved;

/// The numbers of concurrent callers compared.
const CALLERS: [usize; 4] = [1, 2, 4, 8];
/// Rounds of the interleaved runs; each figure is a median over them.
const ROUNDS: usize = 5;
/// Distinct point-lookup keys cycled through, so no two calls in a row read the same row.
const KEYS: u64 = 64;

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
            calls: 400,
        },
        Workload {
            label: "small aggregate",
            statements: Arc::new(vec![aggregate]),
            calls: 200,
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
                let calls = workload.calls / callers + usize::from(caller < workload.calls % callers);
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

/// Prints calls/s for every N of every workload on `db`, and the ratio N=4 / N=1.
fn compare(runtime: &tokio::runtime::Runtime, engine: &str, db: Arc<dyn Dialect>) {
    for workload in workloads(db.sql_dialect()) {
        // Warm the caches and the pool once at the widest width.
        run(runtime, &db, &workload, CALLERS[CALLERS.len() - 1]);
        let mut runs: Vec<Box<dyn FnMut()>> = CALLERS
            .iter()
            .map(|&n| {
                let (db, workload) = (&db, &workload);
                Box::new(move || run(runtime, db, workload, n)) as Box<dyn FnMut()>
            })
            .collect();
        let mut refs: Vec<&mut dyn FnMut()> = runs.iter_mut().map(|r| &mut **r as _).collect();
        let medians = interleaved(ROUNDS, &mut refs);
        let rates: Vec<f64> = medians
            .iter()
            .map(|d: &Duration| workload.calls as f64 / d.as_secs_f64())
            .collect();
        let cells: Vec<String> = CALLERS
            .iter()
            .zip(&rates)
            .map(|(n, rate)| format!("N={n}: {rate:>7.0}/s"))
            .collect();
        println!(
            "{engine:<7} {:<16} {}   N=4/N=1: {:.2}x",
            workload.label,
            cells.join("  "),
            rates[2] / rates[0]
        );
    }
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    println!(
        "concurrent reads on one dialect, demo shop (DemoScale::Full), {cores} cores, \
         medians of {ROUNDS} rounds"
    );
    let sqlite: Arc<dyn Dialect> = Arc::new(SqliteDialect::demo("shop", DemoScale::Full).unwrap());
    compare(&runtime, "sqlite", sqlite);
    #[cfg(feature = "duckdb")]
    {
        let duckdb: Arc<dyn Dialect> = Arc::new(
            nao::dialects::duckdb::DuckDbDialect::demo("shop", DemoScale::Full).unwrap(),
        );
        compare(&runtime, "duckdb", duckdb);
    }
}
