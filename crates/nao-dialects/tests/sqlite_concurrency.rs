//! Several statements at once on one SQLite adapter: each runs on a pooled read-only
//! connection of its own (as many as the engine limits' threads, at least two), on files and on
//! sealed in-memory databases, with the right rows, and every one of those connections keeps the
//! read-only layers and limits. How much faster that is shows in the root crate's
//! `concurrent_reads` bench; tests here check results, never timings.
#![cfg(feature = "sqlite")]

mod support;

use std::sync::Arc;
use std::time::Duration;

use arrow_array::Int64Array;
use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use futures_util::StreamExt;
use nao_dialects::EngineLimits;
use nao_dialects::core::guard::{Policy, ReadOnlySql, SqlDialect, check};
use nao_dialects::core::{BatchStream, Dialect, DialectError, DialectExt, ExecOptions};
use nao_dialects::sqlite::SqliteDialect;
use nao_dialects::sqlite::rusqlite::Connection;
use support::temp_dir::TestDir;

/// Rows of the test table `t(id, v)`: `v` is `id * 3`.
const ROWS: i64 = 2_000;
/// Connections of the adapters under test.
const THREADS: usize = 3;

const LOAD: &str = "CREATE TABLE t (id INTEGER, v INTEGER);
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
    INSERT INTO t SELECT i, i * 3 FROM n;";

fn read(sql: &str) -> ReadOnlySql {
    check(sql, SqlDialect::Sqlite, &Policy::default()).expect("a read")
}

fn limits() -> EngineLimits {
    EngineLimits::new().threads(THREADS)
}

fn in_memory() -> SqliteDialect {
    SqliteDialect::in_memory_with("mem", &limits(), |conn| conn.execute_batch(LOAD))
        .expect("in-memory database")
}

/// A database file in `dir` holding `t`, in `journal_mode`, opened by the adapter.
fn file(dir: &TestDir, journal_mode: &str) -> SqliteDialect {
    let path = dir.path(&format!("{journal_mode}.db"));
    let conn = Connection::open(&path).expect("create");
    let mode: String = conn
        .query_row(&format!("PRAGMA journal_mode = {journal_mode}"), [], |r| {
            r.get(0)
        })
        .expect("journal mode");
    assert_eq!(mode.to_lowercase(), journal_mode.to_lowercase());
    conn.execute_batch(LOAD).expect("load");
    drop(conn);
    SqliteDialect::open_with(journal_mode, &path, &limits()).expect("open")
}

/// Every adapter under test: in memory, a rollback-journal file and a WAL file.
fn databases(dir: &TestDir) -> Vec<SqliteDialect> {
    vec![in_memory(), file(dir, "delete"), file(dir, "wal")]
}

/// A statement that yields `ROWS` rows one per batch, held open after its first batch: its
/// producer waits on the stream (which holds one batch), so it keeps its connection.
async fn held(db: &SqliteDialect) -> BatchStream {
    let options = ExecOptions::default().with_batch_size(1);
    db.execute(&read("SELECT id FROM t ORDER BY id"), &options)
        .await
        .expect("a held statement")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_reads_return_each_callers_own_rows() {
    let dir = TestDir::new("sqlite-concurrent");
    for db in databases(&dir) {
        assert_eq!(db.max_concurrent_statements(), Some(THREADS));
        let db = Arc::new(db);
        let callers: Vec<_> = (0..16_i64)
            .map(|k| {
                let db = Arc::clone(&db);
                tokio::spawn(async move {
                    let mut sums = Vec::new();
                    for _ in 0..5 {
                        let sql = format!("SELECT sum(v), count(*) FROM t WHERE id % 16 = {k}");
                        let result = db
                            .query(&read(&sql), &ExecOptions::default())
                            .await
                            .expect("the sum");
                        let batch = &result.batches[0];
                        let sum = batch.column(0).as_primitive::<Int64Type>().value(0);
                        let count = batch.column(1).as_primitive::<Int64Type>().value(0);
                        sums.push((sum, count));
                    }
                    (k, sums)
                })
            })
            .collect();
        for caller in callers {
            let (k, sums) = caller.await.expect("a caller");
            let ids = (1..=ROWS).filter(|id| id % 16 == k);
            let expected = (ids.clone().map(|id| id * 3).sum(), ids.count() as i64);
            assert!(
                sums.iter().all(|&s| s == expected),
                "{}: caller {k} read {sums:?}, expected {expected:?}",
                db.name()
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statements_run_at_once_up_to_the_pool_and_the_next_one_waits() {
    let dir = TestDir::new("sqlite-pool-bound");
    for db in databases(&dir) {
        // All but one connection busy: the last one still answers.
        let mut open: Vec<BatchStream> = Vec::new();
        for _ in 0..THREADS - 1 {
            open.push(held(&db).await);
        }
        let result = db
            .query(&read("SELECT count(*) FROM t"), &ExecOptions::default())
            .await
            .expect("a free connection");
        assert_eq!(
            result.batches[0]
                .column(0)
                .as_primitive::<Int64Type>()
                .value(0),
            ROWS
        );
        // Every connection busy: the next statement waits, here until its time limit.
        open.push(held(&db).await);
        let short = ExecOptions::default().with_timeout(Duration::from_millis(100));
        let waited = db.query(&read("SELECT 1"), &short).await;
        assert!(
            matches!(waited, Err(DialectError::Timeout { .. })),
            "{}: {waited:?}",
            db.name()
        );
        // The held statements still read every row, in order, on their own connections.
        for mut stream in open {
            let mut ids = Vec::new();
            while let Some(batch) = stream.next().await {
                let batch = batch.expect("a batch");
                let column: &Int64Array = batch.column(0).as_primitive();
                ids.extend(column.values().iter().copied());
            }
            assert_eq!(ids, (1..=ROWS).collect::<Vec<_>>(), "{}", db.name());
        }
        // Once they are done, the pool serves again.
        let result = db
            .query(&read("SELECT 1"), &ExecOptions::default())
            .await
            .expect("the connections came back");
        assert_eq!(result.row_count, 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_statement_waiting_for_a_connection_can_be_cancelled() {
    let db = in_memory();
    let mut open = Vec::new();
    for _ in 0..THREADS {
        open.push(held(&db).await);
    }
    let options = ExecOptions::default();
    let cancel = options.cancel.clone();
    let one = read("SELECT 1");
    let waiting = db.query(&one, &options);
    let cancelling = async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        cancel.cancel();
    };
    let (waited, ()) = tokio::join!(waiting, cancelling);
    assert!(
        matches!(waited, Err(DialectError::Cancelled { .. })),
        "{waited:?}"
    );
    drop(open);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_pooled_connection_keeps_the_read_only_layers_and_limits() {
    let dir = TestDir::new("sqlite-pool-read-only");
    for db in databases(&dir) {
        // Holding i statements makes the next ones run on connection i + 1 of the pool.
        let mut open = Vec::new();
        for _ in 0..THREADS {
            for write in [
                "INSERT INTO t VALUES (0, 0)",
                "CREATE TEMP TABLE scratch (x)",
                "ATTACH ':memory:' AS other",
                "PRAGMA query_only = OFF",
                "PRAGMA cache_size = 10",
                "SELECT load_extension('libnothing')",
            ] {
                let sql = ReadOnlySql::new_unchecked_allowing_writes(write, SqlDialect::Sqlite);
                let outcome = db.query(&sql, &ExecOptions::default()).await;
                assert!(
                    matches!(outcome, Err(DialectError::Permission { .. })),
                    "{} connection {}: {write:?} gave {outcome:?}",
                    db.name(),
                    open.len() + 1
                );
            }
            // The value limit: half of a 4 MiB byte cap.
            let capped = ExecOptions::default().with_max_bytes(4 << 20);
            let outcome = db
                .query(&read("SELECT length(zeroblob(2097153))"), &capped)
                .await;
            assert!(
                matches!(outcome, Err(DialectError::ResourceLimit { .. })),
                "{} connection {}: {outcome:?}",
                db.name(),
                open.len() + 1
            );
            open.push(held(&db).await);
        }
        drop(open);
        let rows = db
            .query(&read("SELECT count(*) FROM t"), &ExecOptions::default())
            .await
            .expect("count");
        assert_eq!(
            rows.batches[0]
                .column(0)
                .as_primitive::<Int64Type>()
                .value(0),
            ROWS,
            "{}: nothing was written",
            db.name()
        );
    }
}
