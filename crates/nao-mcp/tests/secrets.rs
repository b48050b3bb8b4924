//! No password reaches stdout or stderr: a secret is planted in every form a database URL takes
//! (URL userinfo, `%`-encoded, query parameter, libpq key=value with and without quotes, no
//! scheme, an unknown scheme, …), passed every way the binary takes one (`--database NAME=URL`,
//! `--database URL`, `NAO_DATABASE_URL`, a misplaced argument), and the real binary runs with
//! `--log-level trace` against a port that refuses at once.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Output, Stdio};

use tokio::process::Command;

/// The planted password; every form below carries it (raw, `%`-encoded or quoted).
const SECRET: &str = "s3cr3t-PLANTED";

/// What no output may contain, compared case-insensitively (`%`-encoding keeps this prefix).
const NEEDLES: [&str; 2] = ["s3cr3t", "planted"];

/// Every form of a database URL that can carry a password, all pointing at a refusing port.
fn urls() -> Vec<String> {
    vec![
        format!("postgres://u:{SECRET}@127.0.0.1:1/db"),
        "postgres://u:s3cr3t%2DPLANTED@127.0.0.1:1/db".to_owned(),
        "postgres://u:%73%33%63%72%33%74-PLANTED@127.0.0.1:1/db".to_owned(),
        format!("postgresql://u:{SECRET}@127.0.0.1:1/db?sslmode=disable"),
        format!("postgres://u@127.0.0.1:1/db?password={SECRET}&sslmode=disable"),
        format!("postgres://u:{SECRET}/with/slashes@127.0.0.1:1/db"),
        format!("host=127.0.0.1 port=1 user=u password={SECRET} dbname=x"),
        format!("host=127.0.0.1 port=1 user=u password='{SECRET}' dbname=x"),
        format!("host=127.0.0.1 port=1 password = 'a {SECRET} \\' b' dbname=x"),
        format!("Server=127.0.0.1,1;User Id=u;Password={SECRET};Database=x"),
        format!("mysql://u:{SECRET}@127.0.0.1:1/db"),
        format!("mariadb://u:{SECRET}@127.0.0.1:1/db"),
        format!("u:{SECRET}@127.0.0.1:1/db"),
        format!("redis://u:{SECRET}@127.0.0.1:1/0"),
        format!("sqlite:///nonexistent/dir/db.sqlite?password={SECRET}"),
    ]
}

async fn run(args: &[&str], env: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_nao-mcp"));
    command
        .args(args)
        .env_remove("NAO_DATABASE_URL")
        .env_remove("NAO_DATABASE_NAME")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .kill_on_drop(true);
    if let Some(url) = env {
        command.env("NAO_DATABASE_URL", url);
    }
    tokio::time::timeout(std::time::Duration::from_secs(120), command.output())
        .await
        .expect("the binary exits")
        .expect("the binary runs")
}

/// Asserts neither stream holds the secret; returns stderr for further checks.
fn assert_no_secret(output: &Output, what: &str) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    for needle in NEEDLES {
        assert!(
            !stdout.to_lowercase().contains(needle),
            "{what}: stdout holds the secret:\n{stdout}"
        );
        assert!(
            !stderr.to_lowercase().contains(needle),
            "{what}: stderr holds the secret:\n{stderr}"
        );
    }
    stderr.into_owned()
}

#[tokio::test]
async fn opening_fails_without_echoing_the_password() {
    for url in urls() {
        let named = format!("db={url}");
        for (how, args, env) in [
            (
                "--database NAME=URL",
                vec!["--database", named.as_str()],
                None,
            ),
            ("--database URL", vec!["--database", url.as_str()], None),
            ("NAO_DATABASE_URL", vec![], Some(url.as_str())),
        ] {
            let mut args = args;
            args.extend(["--log-level", "trace"]);
            let output = run(&args, env).await;
            let what = format!("{how} with {url:?}");
            let stderr = assert_no_secret(&output, &what);
            assert!(!output.status.success(), "{what}: opened?\n{stderr}");
            assert!(
                stderr.contains("could not open database"),
                "{what}: the open error is not there:\n{stderr}"
            );
        }
    }
}

#[tokio::test]
async fn usage_errors_do_not_echo_the_password() {
    for url in urls() {
        let named = format!("db={url}");
        for args in [
            // A URL without --database in front of it.
            vec![url.as_str()],
            vec!["--demo", url.as_str()],
            // A URL given to a flag that wants something else.
            vec!["--demo", "--max-rows", url.as_str()],
            vec!["--demo", "--timeout", url.as_str()],
            vec!["--demo", "--http", url.as_str()],
            vec!["--demo", "--log-level", url.as_str()],
            vec!["--demo", "--max-request-bytes", url.as_str()],
            vec!["--database", named.as_str(), "--frobnicate"],
        ] {
            let output = run(&args, None).await;
            let what = format!("{args:?}");
            let stderr = assert_no_secret(&output, &what);
            assert_eq!(output.status.code(), Some(2), "{what}: {stderr}");
        }
    }
}

#[tokio::test]
async fn help_and_version_print_no_password() {
    for url in urls() {
        let named = format!("db={url}");
        for flag in ["--help", "--version"] {
            let output = run(&["--database", &named, flag], Some(&url)).await;
            assert_no_secret(&output, flag);
            assert!(output.status.success());
        }
    }
}

/// `url` with the secret planted as its password, in the userinfo and as a query parameter;
/// `None` when it has a password already (replacing it would fail for the wrong reason).
fn planted(url: &str) -> Option<[String; 2]> {
    let (scheme, rest) = url.split_once("://")?;
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let (user, host) = authority.rsplit_once('@').unwrap_or(("nao", authority));
    if user.contains(':') {
        return None;
    }
    let separator = if tail.contains('?') { '&' } else { '?' };
    Some([
        format!("{scheme}://{user}:{SECRET}@{host}{tail}"),
        format!("{scheme}://{user}@{host}{tail}{separator}password={SECRET}"),
    ])
}

#[tokio::test]
async fn live_servers_never_echo_a_planted_password() {
    // A server that trusts the login (as CI's do) opens, and the success path logs at trace
    // level; one that checks the password refuses with its own error. Neither may show it.
    for var in ["NAO_TEST_POSTGRES_URL", "NAO_TEST_MYSQL_URL"] {
        let Ok(url) = std::env::var(var) else {
            eprintln!("skipping: {var} is not set");
            continue;
        };
        let Some(urls) = planted(&url) else {
            eprintln!("skipping {var}: its URL has a password already");
            continue;
        };
        for url in urls {
            let database = format!("live={url}");
            let args = [
                "--database",
                &database,
                "--allow-privileged",
                "--log-level",
                "trace",
            ];
            let output = run(&args, None).await;
            assert_no_secret(&output, &url);
        }
    }
}
