//! `--allow-privileged` and `--set-role` reach the server adapters, on the live servers named
//! by `NAO_TEST_POSTGRES_URL` and `NAO_TEST_MYSQL_URL`. Each test says why it skips when a URL
//! is unset or the binary was built without that adapter.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Output, Stdio};
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::process::Command;

/// Generous: only a hang trips it.
const WAIT: Duration = Duration::from_secs(120);

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"privileged","version":"0"}}}"#;

/// Runs the binary over stdio with one `initialize` on stdin, then EOF.
async fn serve_once(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_nao-mcp"))
        .args(args)
        .args(["--log-level", "warn"])
        .env_remove("NAO_DATABASE_URL")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the binary starts");
    let mut stdin = child.stdin.take().unwrap();
    // The server may exit before reading (a database it cannot open): ignore a broken pipe.
    let _ = stdin.write_all(format!("{INITIALIZE}\n").as_bytes()).await;
    drop(stdin);
    tokio::time::timeout(WAIT, child.wait_with_output())
        .await
        .expect("the binary exits")
        .unwrap()
}

/// The live server URLs that are set, with their adapter's name.
fn live_urls() -> Vec<(&'static str, String)> {
    let mut urls = Vec::new();
    for (adapter, var) in [
        ("postgres", "NAO_TEST_POSTGRES_URL"),
        ("mysql", "NAO_TEST_MYSQL_URL"),
    ] {
        match std::env::var(var) {
            Ok(url) if !url.is_empty() => urls.push((adapter, url)),
            _ => eprintln!("skipping {adapter}: {var} is not set"),
        }
    }
    urls
}

fn not_compiled_in(output: &Output, adapter: &str) -> bool {
    let stderr = String::from_utf8_lossy(&output.stderr);
    let missing = stderr.contains("not compiled in");
    if missing {
        eprintln!("skipping {adapter}: the binary was built without it");
    }
    missing
}

#[tokio::test]
async fn allow_privileged_opens_whatever_the_role() {
    for (adapter, url) in live_urls() {
        let database = format!("live={url}");
        let output = serve_once(&["--database", &database, "--allow-privileged"]).await;
        if not_compiled_in(&output, adapter) {
            continue;
        }
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{adapter}: {stderr}");
        assert!(
            stdout.contains(r#""id":1,"result""#),
            "{adapter}: {stdout}\n{stderr}"
        );
    }
}

#[tokio::test]
async fn set_role_switches_to_the_named_role() {
    for (adapter, url) in live_urls() {
        if adapter != "postgres" {
            continue;
        }
        let database = format!("live={url}");
        let role = "nao_mcp_no_such_role";
        let output = serve_once(&[
            "--database",
            &database,
            "--allow-privileged",
            "--set-role",
            role,
        ])
        .await;
        if not_compiled_in(&output, adapter) {
            continue;
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{adapter}: opened as {role}?");
        assert!(stderr.contains("could not open database"), "{stderr}");
        assert!(
            stderr.contains(role),
            "{adapter}: the role is not named: {stderr}"
        );
    }
}

#[tokio::test]
async fn without_the_opt_in_a_privileged_role_is_refused_with_the_flag_named() {
    // A least-privilege role opens; a privileged one must be refused, naming the way out.
    for (adapter, url) in live_urls() {
        let database = format!("live={url}");
        let output = serve_once(&["--database", &database]).await;
        if not_compiled_in(&output, adapter) {
            continue;
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        if output.status.success() {
            eprintln!("{adapter}: the test role reads only, so it opened");
            continue;
        }
        assert!(
            stderr.contains("can do more than read"),
            "{adapter}: {stderr}"
        );
        assert!(stderr.contains("--allow-privileged"), "{adapter}: {stderr}");
    }
}
