//! DuckDB in worker processes (`Isolation::Workers`, the crate's `nao-duckdb-worker` binary)
//! against real DuckDB databases: same results as in-process, caps, errors without host paths,
//! statements past their time limit or cancelled stopped by ending the worker, values past the
//! worker's memory refused instead of taking the host's memory, and no worker outliving the
//! adapter. Peak memory per shape is measured by `benches/embedded_memory.rs`.
#![cfg(all(feature = "duckdb", target_os = "linux"))]
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a failed unwrap is a failed test.

use std::time::{Duration, Instant};

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use nao_core::guard::{ReadOnlySql, SqlDialect};
use nao_core::{CollectedBatches, DialectError, DialectExt, ExecOptions};
use nao_dialects::duckdb::DuckDbDialect;
use nao_dialects::{EngineLimits, Isolation, Spill};
use support::temp_dir::{TestDir, duckdb_database as database};
use tokio_util::sync::CancellationToken;

mod support;

/// Limits that run statements in this crate's worker binary.
fn in_workers(memory: u64, count: usize) -> EngineLimits {
    EngineLimits::new()
        .memory_limit(memory)
        .threads(1)
        .spill(Spill::Off)
        .isolation(Isolation::workers(
            env!("CARGO_BIN_EXE_nao-duckdb-worker"),
            count,
        ))
}

async fn run(
    db: &DuckDbDialect,
    sql: &str,
    options: ExecOptions,
) -> Result<CollectedBatches, DialectError> {
    let sql = ReadOnlySql::new_unchecked_allowing_writes(sql, SqlDialect::DuckDb);
    db.query(&sql, &options).await
}

/// The worker processes started with `tag` among their arguments and not reaped yet (tests
/// run in parallel in this process, each with workers of its own).
fn live_workers(tag: &str) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| {
            let cmdline = std::fs::read(entry.ok()?.path().join("cmdline")).ok()?;
            cmdline
                .split(|b| *b == 0)
                .any(|arg| arg == tag.as_bytes())
                .then_some(())
        })
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_caps_and_errors_match_in_process() {
    let dir = TestDir::new("results");
    let path = database(&dir, 1000);
    let workers = DuckDbDialect::open_with("db", &path, &in_workers(256 << 20, 2)).unwrap();
    let local = DuckDbDialect::open("db", &path).unwrap();
    let sql = "SELECT n, n * 2 AS twice, 'x' || n AS label FROM t ORDER BY n";
    for options in [
        ExecOptions::default(),
        ExecOptions::default().with_max_rows(10),
    ] {
        let a = run(&workers, sql, options.clone()).await.unwrap();
        let b = run(&local, sql, options).await.unwrap();
        assert_eq!(a.schema, b.schema);
        assert_eq!(a.row_count, b.row_count);
        assert_eq!(a.truncation.is_some(), b.truncation.is_some());
        assert_eq!(a.batches, b.batches);
    }
    let capped = run(&workers, sql, ExecOptions::default().with_max_rows(10))
        .await
        .unwrap();
    assert_eq!(capped.row_count, 10);
    assert!(capped.truncation.is_some());
    for (bad, kind) in [
        ("SELEC 1", "syntax"),
        ("SELECT * FROM missing", "unknown_object"),
        ("CREATE TABLE x (a INT)", "permission"),
        ("SELECT * FROM read_csv('/etc/passwd')", "permission"),
    ] {
        let error = run(&workers, bad, ExecOptions::default())
            .await
            .expect_err(bad);
        assert_eq!(error.kind_code(), kind, "{bad}: {error}");
        let text = error.to_string();
        assert!(!text.contains(dir.0.to_str().unwrap()), "{text}");
    }
    // Errors did not cost the workers: the next statement runs.
    let after = run(
        &workers,
        "SELECT sum(n) AS s FROM t",
        ExecOptions::default(),
    )
    .await
    .unwrap();
    let sum = after.batches[0]
        .column(0)
        .as_primitive::<arrow_array::types::Decimal128Type>();
    assert_eq!(sum.value(0), 499_500);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn values_past_the_workers_memory_are_refused() {
    let dir = TestDir::new("memory");
    let db =
        DuckDbDialect::open_with("db", database(&dir, 1000), &in_workers(256 << 20, 1)).unwrap();
    for sql in [
        // Each of these took several GB in-process whatever DuckDB's memory limit.
        "SELECT repeat('x', 1000000) AS s FROM range(2000)",
        "SELECT range(100000000) AS l",
        "SELECT list_resize([1], 200000000) AS l",
        "SELECT repeat('x', 1000000000) AS s",
    ] {
        let options = ExecOptions::default().with_timeout(Duration::from_secs(60));
        let error = run(&db, sql, options).await.expect_err(sql);
        assert_eq!(error.kind_code(), "resource_limit", "{sql}: {error}");
    }
    let ok = run(&db, "SELECT count(*) AS n FROM t", ExecOptions::default())
        .await
        .unwrap();
    assert_eq!(
        ok.batches[0].column(0).as_primitive::<Int64Type>().value(0),
        1000
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeouts_and_cancellation_end_the_worker() {
    let dir = TestDir::new("stop");
    let tag = format!("--test-tag=stop-{}", std::process::id());
    let limits = in_workers(256 << 20, 1).isolation(Isolation::Workers {
        program: env!("CARGO_BIN_EXE_nao-duckdb-worker").into(),
        args: vec![tag.clone().into()],
        count: 1,
    });
    let db = DuckDbDialect::open_with("db", database(&dir, 1000), &limits).unwrap();
    // A cross join DuckDB needs minutes for.
    let slow =
        "SELECT count(*) FROM range(100000000) a, range(1000) b WHERE a.range + b.range = -1";
    let started = Instant::now();
    let error = run(
        &db,
        slow,
        ExecOptions::default().with_timeout(Duration::from_millis(500)),
    )
    .await
    .expect_err("the time limit");
    assert_eq!(error.kind_code(), "timeout", "{error}");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "stopped, not run to the end"
    );
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        trigger.cancel();
    });
    let error = run(&db, slow, ExecOptions::default().with_cancel(cancel))
        .await
        .expect_err("the cancellation");
    assert_eq!(error.kind_code(), "cancelled", "{error}");
    // A fresh worker serves the next statement; the ended ones are reaped.
    let ok = run(&db, "SELECT count(*) AS n FROM t", ExecOptions::default())
        .await
        .unwrap();
    assert_eq!(ok.row_count, 1);
    assert_eq!(live_workers(&tag), 1, "the ended workers are reaped");
    drop(db);
    assert_eq!(live_workers(&tag), 0, "no worker outlives the adapter");
}

/// The process ids of the live workers started with `tag`.
fn worker_pids(tag: &str) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let pid = entry.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            cmdline
                .split(|b| *b == 0)
                .any(|arg| arg == tag.as_bytes())
                .then_some(pid)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_that_ended_while_idle_is_replaced_for_the_next_statement() {
    let dir = TestDir::new("idle-death");
    let tag = format!("--test-tag=idle-death-{}", std::process::id());
    let limits = in_workers(256 << 20, 1).isolation(Isolation::Workers {
        program: env!("CARGO_BIN_EXE_nao-duckdb-worker").into(),
        args: vec![tag.clone().into()],
        count: 1,
    });
    let db = DuckDbDialect::open_with("db", database(&dir, 1000), &limits).unwrap();
    let count = "SELECT count(*) AS n FROM t";
    run(&db, count, ExecOptions::default()).await.unwrap();
    let idle = worker_pids(&tag);
    assert_eq!(idle.len(), 1, "one worker waits for the next statement");
    // The idle worker dies (the OOM killer, an operator): the next statement must not fail.
    let killed = std::process::Command::new("kill")
        .args(["-9", &idle[0].to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let after = run(&db, count, ExecOptions::default()).await.unwrap();
    let n = after.batches[0].column(0).as_primitive::<Int64Type>();
    assert_eq!(n.value(0), 1000);
    let now = worker_pids(&tag);
    assert_eq!(now.len(), 1, "the dead worker reaped, a fresh one kept");
    assert_ne!(now[0], idle[0]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_worker_program_is_a_clear_error() {
    let dir = TestDir::new("missing");
    let limits = EngineLimits::new().isolation(Isolation::workers("/nonexistent/worker", 1));
    let db = DuckDbDialect::open_with("db", database(&dir, 1000), &limits).unwrap();
    let error = run(&db, "SELECT 1", ExecOptions::default())
        .await
        .expect_err("no worker");
    assert!(
        error
            .to_string()
            .contains("could not start the DuckDB worker"),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_that_cannot_open_the_database_says_so_each_time() {
    let dir = TestDir::new("gone");
    let path = database(&dir, 10);
    let db = DuckDbDialect::open_with("db", &path, &in_workers(256 << 20, 1)).unwrap();
    // The adapter has the file open; a new worker will not find it.
    std::fs::remove_file(&path).unwrap();
    for _ in 0..2 {
        let error = run(&db, "SELECT count(*) FROM t", ExecOptions::default())
            .await
            .expect_err("no database file for the worker");
        assert_eq!(error.kind_code(), "connection", "{error}");
        assert!(
            !error.to_string().contains(dir.0.to_str().unwrap()),
            "{error}"
        );
    }
}
