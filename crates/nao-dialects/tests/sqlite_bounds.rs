//! The SQLite adapter's bounds against real SQLite database files: the shapes of issue 24 (a
//! value near SQLite's 1 GB maximum, `group_concat` of large blobs, a recursive CTE doubling a
//! string) stop at the value limit of the call's byte cap with an error that says so, the fixed
//! limits hold on every pooled connection, and a statement that hits a limit leaves its
//! connection fit for the next one. No memory is measured here (see
//! `benches/embedded_memory.rs`).
#![cfg(feature = "sqlite")]

use std::path::{Path, PathBuf};
use std::time::Duration;

use nao_dialects::EngineLimits;
use nao_dialects::core::guard::{Policy, ReadOnlySql, SqlDialect, check};
use nao_dialects::core::{BatchStream, Dialect, DialectError, DialectExt, ExecOptions};
use nao_dialects::sqlite::SqliteDialect;
use nao_dialects::sqlite::rusqlite::Connection;

/// A directory under the system temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!(
            "nao-sqlite-bounds-{label}-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A database file in `dir` with a table of one small and one 3 MB BLOB and TEXT, opened read
/// only within `limits`.
fn open_file(dir: &TempDir, limits: &EngineLimits) -> SqliteDialect {
    let path: &Path = &dir.0.join("bounds.db");
    if !path.exists() {
        let conn = Connection::open(path).expect("create");
        conn.execute_batch(
            "CREATE TABLE docs (id INTEGER PRIMARY KEY, body BLOB, note TEXT);
             INSERT INTO docs VALUES (1, x'0102', 'small'),
                                     (2, zeroblob(3000000), printf('%.*c', 3000000, 'y'));",
        )
        .expect("load");
    }
    SqliteDialect::open_with("bounds", path, limits).expect("open")
}

/// `sql` proved read-only by the guard for SQLite.
fn read(sql: &str) -> ReadOnlySql {
    check(sql, SqlDialect::Sqlite, &Policy::default()).unwrap_or_else(|r| panic!("{sql}: {r}"))
}

/// Options capped at `max_bytes`, with a time limit that bounds a test gone wrong.
fn capped(max_bytes: usize) -> ExecOptions {
    ExecOptions::default()
        .with_max_bytes(max_bytes)
        .with_timeout(Duration::from_secs(60))
}

/// The error of `sql` under `options`, which must fail.
async fn error_of(db: &SqliteDialect, sql: &str, options: &ExecOptions) -> DialectError {
    match db.query(&read(sql), options).await {
        Ok(result) => panic!("{sql}: expected an error, got {} rows", result.row_count),
        Err(e) => e,
    }
}

/// Checks that `err` is the value limit of a call capped at `cap_text`, with the limit
/// `limit_text`.
fn assert_value_limit(sql: &str, err: &DialectError, limit_text: &str, cap_text: &str) {
    assert_eq!(err.kind_code(), "resource_limit", "{sql}: {err}");
    assert_eq!(err.code(), Some("18"), "{sql}: {err}");
    let text = err.to_string();
    for part in [limit_text, cap_text, "string or blob too big", "length()"] {
        assert!(text.contains(part), "{sql}: {part:?} missing in {text}");
    }
}

#[tokio::test]
async fn the_issue_shapes_stop_at_the_value_limit_of_the_default_cap() {
    let dir = TempDir::new("issue");
    let db = open_file(&dir, &EngineLimits::default());
    let options = capped(nao_dialects::core::DEFAULT_MAX_BYTES);
    for sql in [
        "SELECT zeroblob(999999999)",
        "SELECT randomblob(999999999)",
        "SELECT printf('%.*c', 999999999, 'x')",
        "SELECT length(group_concat(b)) FROM (SELECT randomblob(300000000) AS b \
         UNION ALL SELECT randomblob(300000000) UNION ALL SELECT randomblob(300000000))",
        "WITH RECURSIVE c(s) AS (SELECT 'x' UNION ALL SELECT s || s FROM c \
         WHERE length(s) < 1000000000) SELECT length(s) FROM c",
    ] {
        let err = error_of(&db, sql, &options).await;
        assert_value_limit(sql, &err, "of 32 MiB", "byte cap of 64 MiB");
    }
}

#[tokio::test]
async fn the_value_limit_follows_each_calls_byte_cap_on_the_same_connection() {
    let dir = TempDir::new("per-call");
    let db = open_file(&dir, &EngineLimits::default());
    // One statement at a time: each runs on the pool's one idle connection.
    let small = capped(4 << 20);
    let large = capped(16 << 20);
    let shapes = [
        "SELECT length(zeroblob(2097153))",
        "SELECT length(group_concat(b)) FROM (SELECT zeroblob(1000000) AS b \
         UNION ALL SELECT zeroblob(1000000) UNION ALL SELECT zeroblob(1000000))",
        "SELECT length(json_group_array(hex(b))) FROM (SELECT zeroblob(600000) AS b \
         UNION ALL SELECT zeroblob(600000))",
        "WITH RECURSIVE c(s) AS (SELECT 'x' UNION ALL SELECT s || s FROM c \
         WHERE length(s) < 3000000) SELECT max(length(s)) FROM c",
        "SELECT length(note) FROM docs WHERE id = 2",
    ];
    for sql in shapes {
        let err = error_of(&db, sql, &small).await;
        assert_value_limit(sql, &err, "of 2 MiB", "byte cap of 4 MiB");
        // The connection that failed serves the next call, under that call's cap.
        let result = db
            .query(&read(sql), &large)
            .await
            .unwrap_or_else(|e| panic!("{sql} under 16 MiB: {e}"));
        assert_eq!(result.row_count, 1, "{sql}");
    }
    // Within the limit a value comes back whole; a stored BLOB larger than it can still be
    // measured.
    let result = db
        .query(&read("SELECT zeroblob(2000000) AS b"), &small)
        .await
        .expect("within the limit");
    assert_eq!(result.row_count, 1);
    assert!(result.truncation.is_none(), "{:?}", result.truncation);
    let result = db
        .query(
            &read("SELECT length(body) AS n FROM docs WHERE id = 2"),
            &small,
        )
        .await
        .expect("length of a stored blob");
    assert_eq!(result.row_count, 1);
}

#[tokio::test]
async fn a_tiny_cap_keeps_the_floor() {
    let dir = TempDir::new("floor");
    let db = open_file(&dir, &EngineLimits::default());
    let tiny = capped(64 << 10);
    // A sort whose rows SQLite builds at 900 KB each still runs under a 64 KiB cap.
    let result = db
        .query(
            &read(
                "SELECT length(b) AS n FROM (SELECT zeroblob(900000) || 'a' AS b UNION \
                   SELECT zeroblob(900000) || 'b') ORDER BY n",
            ),
            &tiny,
        )
        .await
        .expect("under the floor");
    assert_eq!(result.row_count, 2);
    let sql = "SELECT length(zeroblob(1048577))";
    let err = error_of(&db, sql, &tiny).await;
    assert_value_limit(sql, &err, "of 1 MiB", "this call's is 64.0 KiB");
}

#[tokio::test]
async fn fixed_limits_hold_on_every_pooled_connection() {
    let dir = TempDir::new("pool");
    // Seven connections, one per round below, whatever the machine's cores.
    let db = open_file(&dir, &EngineLimits::default().threads(7));
    // Streams of many one-row batches hold their connection until dropped: with `held` of
    // them open, the probes run on a connection no earlier probe ran on.
    let slow = read(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100) \
         SELECT i FROM n",
    );
    let one_row_batches = capped(64 << 20).with_batch_size(1);
    let mut held: Vec<BatchStream> = Vec::new();
    let long_pattern = format!("SELECT 'a' LIKE '{}'", "a".repeat(101));
    let many_args = format!(
        "SELECT max({})",
        (0..128)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    for round in 0..7 {
        let err = error_of(&db, "SELECT zeroblob(33554433)", &capped(64 << 20)).await;
        assert_value_limit("zeroblob", &err, "of 32 MiB", "64 MiB");
        let err = error_of(&db, &long_pattern, &capped(64 << 20)).await;
        assert_eq!(err.kind_code(), "resource_limit", "round {round}: {err}");
        assert!(
            err.to_string()
                .contains("100 bytes per LIKE or GLOB pattern"),
            "{err}"
        );
        let err = error_of(&db, &many_args, &capped(64 << 20)).await;
        assert!(
            err.to_string().contains("127 arguments per function call"),
            "round {round}: {err}"
        );
        held.push(
            db.execute(&slow, &one_row_batches)
                .await
                .expect("a held stream"),
        );
    }
    drop(held);
    let result = db.query(&slow, &capped(64 << 20)).await.expect("after");
    assert_eq!(result.row_count, 100);
}

#[tokio::test]
async fn sql_longer_than_the_engines_limit_is_refused_by_the_engine_too() {
    let dir = TempDir::new("sql-length");
    let db = open_file(&dir, &EngineLimits::default());
    // A host that raised the guard's length limit past the engine's.
    let values: Vec<String> = (0..200_000).map(|i| i.to_string()).collect();
    let sql = format!("SELECT 1 WHERE 5 IN ({})", values.join(", "));
    let policy = Policy::default().with_max_sql_bytes(4 << 20);
    let checked = check(&sql, SqlDialect::Sqlite, &policy).expect("the guard allows it");
    let err = match db.query(&checked, &capped(64 << 20)).await {
        Ok(_) => panic!("a {} byte statement ran", sql.len()),
        Err(e) => e,
    };
    assert_eq!(err.kind_code(), "resource_limit", "{err}");
    assert!(
        err.to_string().contains("1 MiB of SQL per statement"),
        "{err}"
    );
    let result = db
        .query(&read("SELECT 1 AS one"), &capped(64 << 20))
        .await
        .expect("the next statement");
    assert_eq!(result.row_count, 1);
}
