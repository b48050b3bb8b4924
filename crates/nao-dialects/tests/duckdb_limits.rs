//! The DuckDB adapter within the host's [`EngineLimits`], against real DuckDB databases: the
//! limits are in place and locked, a statement over the memory limit or the spill space fails
//! as a resource limit without naming host paths, and the spill directory is private and
//! removed with the adapter. Peak memory per query shape is measured by
//! `benches/embedded_memory.rs`, not here.
#![cfg(feature = "duckdb")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a failed unwrap is a failed test.

use std::path::Path;
use std::time::Duration;

use arrow_array::cast::AsArray;
use nao_core::guard::{ReadOnlySql, SqlDialect};
use nao_core::{DialectError, DialectExt, ExecOptions};
use nao_dialects::duckdb::DuckDbDialect;
use nao_dialects::{EngineLimits, Spill};
use support::temp_dir::{TestDir, duckdb_database as database};

mod support;

/// Runs `sql` unguarded (these tests probe the engine, not the guard).
async fn run(db: &DuckDbDialect, sql: &str) -> Result<nao_core::CollectedBatches, DialectError> {
    let sql = ReadOnlySql::new_unchecked_allowing_writes(sql, SqlDialect::DuckDb);
    db.query(
        &sql,
        &ExecOptions::default().with_timeout(Duration::from_secs(60)),
    )
    .await
}

/// The first value of the first column, as text.
async fn setting(db: &DuckDbDialect, name: &str) -> String {
    let result = run(
        db,
        &format!("SELECT current_setting('{name}')::VARCHAR AS v"),
    )
    .await
    .unwrap();
    let column = result.batches[0].column(0).as_string::<i32>();
    column.value(0).to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_limits_are_set_and_locked() {
    let dir = TestDir::new("settings");
    let spill_parent = dir.0.join("spill");
    let limits = EngineLimits::new()
        .memory_limit(200 << 20)
        .threads(1)
        .spill(Spill::under(&spill_parent, 50 << 20));
    let db = DuckDbDialect::open_with("db", database(&dir, 10), &limits).unwrap();
    // DuckDB prints sizes in its own units; 200 MiB is "200.0 MiB".
    assert_eq!(setting(&db, "memory_limit").await, "200.0 MiB");
    assert_eq!(setting(&db, "threads").await, "1");
    assert_eq!(setting(&db, "max_temp_directory_size").await, "50.0 MiB");
    let temp = setting(&db, "temp_directory").await;
    let scratch = TestDir::entries(&spill_parent);
    assert_eq!(scratch.len(), 1, "one private spill directory: {scratch:?}");
    assert_eq!(Path::new(&temp), scratch[0], "DuckDB spills into it");
    for change in [
        "SET memory_limit = '100GB'",
        "SET threads = 64",
        "SET temp_directory = '/tmp'",
        "SET max_temp_directory_size = '1TB'",
        "RESET memory_limit",
    ] {
        let error = run(&db, change).await.expect_err(change);
        assert_eq!(error.kind_code(), "permission", "{change}: {error}");
    }
    assert_eq!(setting(&db, "memory_limit").await, "200.0 MiB");
    drop(db);
    assert!(
        TestDir::entries(&spill_parent).is_empty(),
        "the spill directory is removed with the adapter"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spill_off_leaves_no_temporary_directory() {
    let dir = TestDir::new("spill-off");
    let limits = EngineLimits::new()
        .memory_limit(64 << 20)
        .threads(1)
        .spill(Spill::Off);
    let db = DuckDbDialect::open_with("db", database(&dir, 10), &limits).unwrap();
    assert_eq!(setting(&db, "temp_directory").await, "");
    // A DISTINCT far larger than the memory limit has nowhere to go.
    let error = run(
        &db,
        "SELECT count(DISTINCT md5(range::VARCHAR)) AS n FROM range(5000000)",
    )
    .await
    .expect_err("the DISTINCT needs more than 64 MiB");
    assert_eq!(error.kind_code(), "resource_limit", "{error}");
    // Nothing was written next to the database (DuckDB's default is `<file>.tmp`).
    let entries = TestDir::entries(&dir.0);
    assert_eq!(entries, vec![dir.0.join("data.duckdb")], "{entries:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_the_memory_limit_is_a_resource_limit_without_host_paths() {
    let dir = TestDir::new("memory");
    let spill_parent = dir.0.join("spill");
    let limits = EngineLimits::new()
        .memory_limit(64 << 20)
        .threads(1)
        .spill(Spill::under(&spill_parent, 1 << 20));
    let db = DuckDbDialect::open_with("db", database(&dir, 10), &limits).unwrap();
    // The list aggregate's state is counted by DuckDB's buffer manager.
    let error = run(&db, "SELECT length(list(range)) AS n FROM range(50000000)")
        .await
        .expect_err("a 400 MB list under a 64 MiB limit");
    assert_eq!(error.kind_code(), "resource_limit", "{error}");
    let text = error.to_string();
    assert!(text.contains("memory limit"), "{text}");
    // A DISTINCT that would spill more than the 1 MiB allowed.
    let error = run(
        &db,
        "SELECT count(DISTINCT md5(range::VARCHAR)) AS n FROM range(5000000)",
    )
    .await
    .expect_err("the DISTINCT needs more spill than 1 MiB");
    assert_eq!(error.kind_code(), "resource_limit", "{error}");
    let text = error.to_string();
    assert!(text.contains("spill space of 1 MiB"), "{text}");
    for path in [&dir.0, &spill_parent] {
        let path = path.to_string_lossy();
        assert!(!text.contains(path.as_ref()), "{text} names {path}");
    }
    // The adapter still serves the next statement, and the spill files are gone.
    let result = run(&db, "SELECT count(*) AS n FROM t").await.unwrap();
    assert_eq!(result.row_count, 1);
    let spill_dir = TestDir::entries(&spill_parent).pop().unwrap();
    let spilled: Vec<_> = TestDir::entries(&spill_dir)
        .into_iter()
        .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    assert!(spilled.is_empty(), "{spilled:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sealed_database_takes_the_limits_and_removes_its_directories() {
    let dir = TestDir::new("sealed");
    let spill_parent = dir.0.join("spill");
    let limits = EngineLimits::new()
        .memory_limit(100 << 20)
        .spill(Spill::under(&spill_parent, 10 << 20));
    let db = DuckDbDialect::in_memory_with("db", &limits, |c| {
        c.execute_batch("CREATE TABLE t AS SELECT 1 AS x")
    })
    .unwrap();
    assert_eq!(setting(&db, "memory_limit").await, "100.0 MiB");
    let sealed_dir = db.path().parent().unwrap().to_owned();
    assert!(sealed_dir.is_dir());
    assert_eq!(TestDir::entries(&spill_parent).len(), 1);
    drop(db);
    assert!(!sealed_dir.exists(), "the sealed directory is removed");
    assert!(TestDir::entries(&spill_parent).is_empty());
}
