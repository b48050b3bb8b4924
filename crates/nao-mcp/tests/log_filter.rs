//! What the binary logs: `--log-level`, or `RUST_LOG` when it is set (a `RUST_LOG` that does not
//! parse is said so, and `--log-level` applies). Each run serves stdio with stdin closed, so it
//! opens the demo database, logs, and exits (with an error: no client came).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Command, Stdio};

/// stderr of one run with `RUST_LOG` set to `rust_log` (unset when `None`).
fn logs(rust_log: Option<&str>, level: &str) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_nao-mcp"));
    command
        .args(["--demo", "--log-level", level])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .env_remove("RUST_LOG");
    if let Some(directives) = rust_log {
        command.env("RUST_LOG", directives);
    }
    // It exits with an error (the client left before initializing), having logged.
    let output = command.output().unwrap();
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn rust_log_chooses_what_is_logged_over_the_log_level() {
    // The demo database logs its heap cap at debug level.
    let debug_line = "SQLite's heap is capped";
    assert!(!logs(None, "info").contains(debug_line));
    assert!(logs(None, "debug").contains(debug_line));
    let from_env = logs(Some("nao_mcp=debug"), "error");
    assert!(from_env.contains(debug_line), "{from_env}");
    let other_target = logs(Some("rmcp=debug"), "debug");
    assert!(!other_target.contains(debug_line), "{other_target}");
}

#[test]
fn a_rust_log_that_does_not_parse_is_reported_and_the_log_level_applies() {
    let stderr = logs(Some("nao_mcp=["), "debug");
    assert!(
        stderr.contains("RUST_LOG=\"nao_mcp=[\" does not parse"),
        "{stderr}"
    );
    assert!(stderr.contains("SQLite's heap is capped"), "{stderr}");
}
