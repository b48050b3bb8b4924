//! The real `nao-mcp` binary over stdio, fed hostile input: malformed JSON-RPC, unknown
//! methods, oversized messages and clients that vanish mid-call. The server must answer with
//! errors and keep serving, or exit cleanly on EOF; never panic.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod stdio;

use serde_json::json;
use stdio::{Server, WAIT};
use tokio::process::Command;

#[tokio::test]
async fn malformed_json_rpc_leaves_the_server_running() {
    let mut server = Server::start(&[]).await;
    for garbage in [
        "{not json",
        "[]",
        "42",
        "\"just a string\"",
        r#"{"jsonrpc":"2.0","id":1}"#,
        r#"{"jsonrpc":"1.0","id":2,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":{"nested":true},"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":"nope"}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"execute_sql","arguments":[1,2]}}"#,
    ] {
        server.send_raw(garbage).await;
    }
    server.ping(100).await;
    server.finish().await;
}

#[tokio::test]
async fn unknown_methods_get_method_not_found() {
    let mut server = Server::start(&[]).await;
    server
        .send(&json!({"jsonrpc": "2.0", "id": 7, "method": "no/such/method", "params": {}}))
        .await;
    let answer = server.response(7).await;
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    server.ping(8).await;
    server.finish().await;
}

#[tokio::test]
async fn oversized_requests_are_dropped_and_serving_goes_on() {
    let mut server = Server::start(&["--max-request-bytes", "4096"]).await;
    let huge = "x".repeat(64 * 1024);
    server
        .send(
            &json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
            "name": "execute_sql", "arguments": {"sql_query": format!("SELECT '{huge}'")}}}),
        )
        .await;
    server.ping(10).await;
    let stderr = server.finish().await;
    assert!(stderr.contains("maximum line length"), "{stderr}");
}

#[tokio::test]
async fn a_client_that_vanishes_mid_call_lets_the_server_exit_cleanly() {
    // EOF right after a call: the server finishes (or drops) the call and exits with success.
    let mut server = Server::start(&[]).await;
    server
        .send(&json!({"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": {
            "name": "execute_sql",
            "arguments": {"sql_query": "SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id"}}}))
        .await;
    server.finish().await;

    // The client also stops reading: writing the response fails, the server still exits.
    let mut server = Server::start(&[]).await;
    server
        .send(
            &json!({"jsonrpc": "2.0", "id": 12, "method": "tools/call", "params": {
            "name": "execute_sql", "arguments": {"sql_query": "SELECT * FROM orders"}}}),
        )
        .await;
    server.hang_up();
    let (status, stderr) = server.exit().await;
    assert!(
        status.code().is_some(),
        "killed by a signal: {status:?}\n{stderr}"
    );
}

#[tokio::test]
async fn bad_command_lines_fail_without_touching_stdout() {
    let output = Command::new(env!("CARGO_BIN_EXE_nao-mcp"))
        .args([
            "--database",
            "pg=postgres://me:s3cret@127.0.0.1:1/db",
            "--timeout",
            "1",
        ])
        .output()
        .await
        .unwrap();
    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("s3cret"), "{stderr}");

    let output = Command::new(env!("CARGO_BIN_EXE_nao-mcp"))
        .arg("--frobnicate")
        .output()
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
}

#[tokio::test]
async fn sigterm_stops_the_server_cleanly() {
    let mut server = Server::start(&[]).await;
    server.ping(1).await;
    let pid = server.child.id().expect("a running child").to_string();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let status = tokio::time::timeout(WAIT, server.child.wait())
        .await
        .expect("the server exits on SIGTERM")
        .unwrap();
    assert!(
        status.success(),
        "SIGTERM must end the server with success, got {status:?}"
    );
}

/// The server's child processes (DuckDB workers) that are still running.
#[cfg(all(feature = "duckdb", target_os = "linux"))]
fn duckdb_workers_of(server: u32) -> usize {
    let server = server.to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| {
            let dir = entry.ok()?.path();
            let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
            let ppid = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(1)?
                .to_owned();
            let cmdline = std::fs::read(dir.join("cmdline")).ok()?;
            let worker = cmdline
                .split(|b| *b == 0)
                .any(|arg| arg == b"--nao-duckdb-worker");
            (ppid == server && worker).then_some(())
        })
        .count()
}

#[cfg(all(feature = "duckdb", target_os = "linux"))]
#[tokio::test]
async fn duckdb_statements_run_in_bounded_workers_that_timeouts_end() {
    let dir = std::env::temp_dir().join(format!("nao-mcp-duckdb-workers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("data.duckdb");
    nao_dialects::duckdb::driver::Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TABLE t AS SELECT range AS n FROM range(100)")
        .unwrap();
    let database = format!("db=duckdb://{}", path.display());
    let mut server = Server::start(&[
        "--database",
        &database,
        "--memory-limit",
        "256MiB",
        "--timeout",
        "5",
    ])
    .await;
    let call = |id: i64, sql: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "execute_sql", "arguments": {"sql_query": sql, "database_id": "db"}}})
    };
    let text = |answer: &serde_json::Value| {
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_owned()
    };
    // A constant 1 MB value in 2000 rows: several GB in-process, refused within the worker.
    server
        .send(&call(
            20,
            "SELECT repeat('x', 1000000) AS s FROM range(2000)",
        ))
        .await;
    let answer = server.response(20).await;
    assert_eq!(answer["result"]["isError"], json!(true), "{answer}");
    assert!(text(&answer).contains("memory"), "{answer}");
    assert!(!text(&answer).contains(dir.to_str().unwrap()), "{answer}");
    // A statement past the 5 s limit ends its worker.
    server
        .send(&call(
            21,
            "SELECT count(*) FROM range(100000000) a, range(1000) b WHERE a.range + b.range = -1",
        ))
        .await;
    let answer = server.response(21).await;
    assert_eq!(answer["result"]["isError"], json!(true), "{answer}");
    assert!(text(&answer).contains("longer than"), "{answer}");
    // The next statement gets a fresh worker.
    server.send(&call(22, "SELECT count(*) AS n FROM t")).await;
    let answer = server.response(22).await;
    assert_ne!(answer["result"]["isError"], json!(true), "{answer}");
    assert!(text(&answer).contains("100"), "{answer}");
    let pid = server.child.id().unwrap();
    assert_eq!(
        duckdb_workers_of(pid),
        1,
        "one idle worker, the ended ones reaped"
    );
    server.finish().await;
    assert_eq!(duckdb_workers_of(pid), 0);
    let _ = std::fs::remove_dir_all(&dir);
}
