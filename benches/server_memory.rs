//! Peak memory of capped queries with wide values, on the live PostgreSQL and MariaDB/MySQL
//! servers named by `NAO_TEST_POSTGRES_URL` and `NAO_TEST_MYSQL_URL` (each skipped, with a line
//! saying so, when its variable is unset), and how late timeouts come under load.
//!
//! Each shape runs in a child process of its own (this binary again), so one shape's peak never
//! hides in another's: the child connects the adapter as a least-privilege role, resets its
//! peak RSS (`/proc/self/clear_refs`), collects the result under a 64 MiB byte cap with
//! [`DialectExt::query`] (the path `execute_sql` takes), and prints its RSS before, its peak
//! (`VmHWM`) and its RSS after the call, with the adapter (and its pool) still alive. The
//! parent prints the shapes side by side against the bound the issue sets: twice the cap plus
//! a few MB over the RSS before the call.
//!
//! The last section runs many concurrent calls that cannot finish in time and prints how far
//! past its time limit each caller got its error, and the most server connections the adapter
//! held at once.
//!
//! `cargo bench --bench server_memory --features postgres,mysql`
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs
)]

use std::process::Command;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, Instant};

use nao::core::guard::{ReadOnlySql, SqlDialect};
use nao::core::{Dialect, DialectExt, ExecOptions};
use nao::dialects::mysql::{MySqlDialect, driver as mysql};
use nao::dialects::postgres::{PostgresDialect, driver as pg};
use support::rss::{self, Measured, mib, status_kib};

mod support;

/// The byte cap of every shape.
const CAP: usize = 64 << 20;
/// "A few MB": the fixed part of the bound, for the runtime, the driver's buffers and one row
/// being converted.
const SLACK: usize = 16 << 20;
/// The environment variable that makes this binary a child running one shape.
const CHILD: &str = "NAO_MEMORY_CHILD";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Engine {
    Postgres,
    MySql,
}

/// One query shape: its label, and its SQL on each engine (`None`: no such shape there).
struct Shape {
    label: &'static str,
    postgres: &'static str,
    mysql: Option<&'static str>,
}

const SHAPES: &[Shape] = &[
    Shape {
        label: "200 rows of 10 MB",
        postgres: "SELECT repeat('x', 10000000) AS v FROM generate_series(1, 200)",
        mysql: Some("SELECT repeat('x', 10000000) AS v FROM seq_1_to_200"),
    },
    Shape {
        label: "40 rows of 15 MB",
        postgres: "SELECT repeat('x', 15000000) AS v FROM generate_series(1, 40)",
        mysql: Some("SELECT repeat('x', 15000000) AS v FROM seq_1_to_40"),
    },
    Shape {
        label: "one 200 MB value",
        postgres: "SELECT repeat('x', 200000000) AS v",
        mysql: Some("SELECT repeat('x', 200000000) AS v"),
    },
    Shape {
        label: "array_fill 50M int4",
        postgres: "SELECT array_fill(1, ARRAY[50000000]) AS a",
        mysql: None,
    },
    Shape {
        label: "array_agg 30M int4",
        postgres: "SELECT (SELECT array_agg(g) FROM generate_series(1, 30000000) g) AS a",
        mysql: None,
    },
    Shape {
        label: "20M narrow rows",
        postgres: "SELECT g, 'row ' || g AS label FROM generate_series(1, 20000000) g",
        mysql: Some("SELECT seq, CONCAT('row ', seq) AS label FROM seq_1_to_20000000"),
    },
];

// ---------------------------------------------------------------------------------------------
// The child: one shape, one process.

/// Runs one shape and prints `rss_before peak rss_after outcome` (KiB, KiB, KiB, text).
fn child(spec: &str) {
    let (engine, index) = spec.split_once(':').expect("engine:index");
    let shape = &SHAPES[index.parse::<usize>().expect("index")];
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let url = std::env::var("NAO_MEMORY_URL").expect("NAO_MEMORY_URL");
    let (db, sql): (Arc<dyn Dialect>, ReadOnlySql) = match engine {
        "postgres" => {
            let config = pg::Config::from_str(&url).expect("postgres url");
            let db = rt
                .block_on(PostgresDialect::connect("pg", config))
                .expect("postgres adapter");
            let sql =
                ReadOnlySql::new_unchecked_allowing_writes(shape.postgres, SqlDialect::Postgres);
            (Arc::new(db), sql)
        }
        _ => {
            let db = rt
                .block_on(MySqlDialect::connect("mysql", &url))
                .expect("mysql adapter");
            let sql = ReadOnlySql::new_unchecked_allowing_writes(
                shape.mysql.expect("a MySQL shape"),
                SqlDialect::MariaDb,
            );
            (Arc::new(db), sql)
        }
    };
    let options = ExecOptions::default()
        .with_max_bytes(CAP)
        .with_max_rows(100_000_000)
        .with_timeout(Duration::from_secs(120));
    let before = status_kib("VmRSS:");
    // Resets VmHWM to the current RSS, so the peak is this call's.
    rss::reset_peak();
    let started = Instant::now();
    let outcome = match rt.block_on(db.query(&sql, &options)) {
        Ok(result) => format!(
            "{} rows, {}, {:.1?}",
            result.row_count,
            match result.truncation {
                Some(t) => format!("{t:?}"),
                None => "complete".to_owned(),
            },
            started.elapsed()
        ),
        Err(e) => {
            let text = e.to_string();
            let cut: String = text.chars().take(150).collect();
            format!("error {}: {cut}", e.kind_code())
        }
    };
    let peak = status_kib("VmHWM:");
    // What is still held once the result is gone, the adapter and its pool alive; a moment
    // for connections being dropped in the background.
    rt.block_on(async { tokio::time::sleep(Duration::from_millis(500)).await });
    let after = status_kib("VmRSS:");
    println!("{before} {peak} {after} {outcome}");
    drop(db);
}

/// Runs shape `index` on `engine` in a child process; the child's line.
fn run_child(engine: Engine, index: usize, url: &str) -> Option<Measured> {
    let name = match engine {
        Engine::Postgres => "postgres",
        Engine::MySql => "mysql",
    };
    rss::run_child(
        Command::new(std::env::current_exe().ok()?)
            .env(CHILD, format!("{name}:{index}"))
            .env("NAO_MEMORY_URL", url),
    )
}

fn print_row(engine: &str, label: &str, measured: Option<Measured>) {
    let Some((before, peak, after, outcome)) = measured else {
        println!("  {engine:<8} {label:<22} (the child printed nothing)");
        return;
    };
    let bound = before + ((2 * CAP + SLACK) >> 10) as u64;
    let verdict = if peak <= bound { "within" } else { "OVER" };
    println!(
        "  {engine:<8} {label:<22} before {:>7.1} MiB  peak {:>7.1} MiB (+{:>7.1})  {verdict} bound {:>6.1}  after {:>7.1} MiB  | {outcome}",
        mib(before),
        mib(peak),
        mib(peak.saturating_sub(before)),
        mib(bound),
        mib(after),
    );
}

// ---------------------------------------------------------------------------------------------
// Least-privilege logins for the children.

/// Creates a login role with no grants (the shapes read no table); its URL.
fn postgres_role(rt: &tokio::runtime::Runtime, url: &str, role: &str) -> (pg::Client, String) {
    let (admin, connection) = rt
        .block_on(pg::connect(url, pg::NoTls))
        .expect("postgres admin");
    rt.spawn(connection);
    rt.block_on(admin.batch_execute(&format!(
        "DROP ROLE IF EXISTS {role}; CREATE ROLE {role} LOGIN"
    )))
    .expect("create role");
    let config = pg::Config::from_str(url).expect("postgres url");
    let host = match config.get_hosts().first() {
        Some(pg::config::Host::Tcp(host)) => host.clone(),
        _ => "127.0.0.1".to_owned(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let db = config.get_dbname().unwrap_or("postgres");
    (admin, format!("postgres://{role}@{host}:{port}/{db}"))
}

/// Creates a database and a user that may only read it; the user's URL.
fn mysql_user(rt: &tokio::runtime::Runtime, url: &str, name: &str) -> (mysql::Opts, String) {
    use mysql::prelude::Queryable;
    let opts = mysql::Opts::from_url(url).expect("mysql url");
    rt.block_on(async {
        let mut admin = mysql::Conn::new(opts.clone()).await.expect("mysql admin");
        admin
            .query_drop(format!("CREATE DATABASE IF NOT EXISTS {name}"))
            .await
            .expect("create database");
        for host in ["%", "localhost", "127.0.0.1"] {
            admin
                .query_drop(format!(
                    "CREATE USER IF NOT EXISTS '{name}'@'{host}' IDENTIFIED BY 'pw_{name}'; \
                     GRANT SELECT ON {name}.* TO '{name}'@'{host}'"
                ))
                .await
                .expect("create user");
        }
        admin.disconnect().await.expect("disconnect");
    });
    let user_url = format!(
        "mysql://{name}:pw_{name}@{}:{}/{name}",
        opts.ip_or_hostname(),
        opts.tcp_port()
    );
    (opts, user_url)
}

fn mysql_cleanup(rt: &tokio::runtime::Runtime, opts: mysql::Opts, name: &str) {
    use mysql::prelude::Queryable;
    rt.block_on(async {
        let mut admin = mysql::Conn::new(opts).await.expect("mysql admin");
        admin
            .query_drop(format!("DROP DATABASE IF EXISTS {name}"))
            .await
            .expect("drop database");
        for host in ["%", "localhost", "127.0.0.1"] {
            admin
                .query_drop(format!("DROP USER IF EXISTS '{name}'@'{host}'"))
                .await
                .expect("drop user");
        }
        admin.disconnect().await.expect("disconnect");
    });
}

// ---------------------------------------------------------------------------------------------
// Timeouts under load.

/// `calls` concurrent statements that outlive their time limit: how late each caller got its
/// answer (an error, or the rows read by the deadline), and the most connections of the role
/// the server saw at once.
fn postgres_timeouts(
    rt: &tokio::runtime::Runtime,
    db: &Arc<dyn Dialect>,
    role: &str,
    label: &str,
    calls: usize,
    sql: &str,
) {
    const LIMIT: Duration = Duration::from_secs(3);
    let sql = ReadOnlySql::new_unchecked_allowing_writes(sql, SqlDialect::Postgres);
    let most = Arc::new(AtomicI64::new(0));
    let overruns = rt.block_on(async {
        let sampler = {
            let most = Arc::clone(&most);
            let (watcher, connection) =
                pg::connect(&url_admin(), pg::NoTls).await.expect("watcher");
            tokio::spawn(connection);
            let role = role.to_owned();
            tokio::spawn(async move {
                loop {
                    let count: i64 = watcher
                        .query_one(
                            "SELECT count(*) FROM pg_stat_activity WHERE usename = $1",
                            &[&role],
                        )
                        .await
                        .map(|row| row.get(0))
                        .unwrap_or(0);
                    most.fetch_max(count, Ordering::Relaxed);
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            })
        };
        let tasks = (0..calls).map(|_| {
            let db = Arc::clone(db);
            let sql = sql.clone();
            tokio::spawn(async move {
                let options = ExecOptions::default()
                    .with_timeout(LIMIT)
                    .with_max_rows(10_000_000);
                let started = Instant::now();
                let result = db.query(&sql, &options).await;
                (started.elapsed(), result)
            })
        });
        let mut overruns = Vec::with_capacity(calls);
        let mut kinds = std::collections::BTreeMap::<String, usize>::new();
        let mut other = None;
        for call in futures_util::future::join_all(tasks).await {
            let (elapsed, result) = call.expect("call");
            overruns.push(elapsed.saturating_sub(LIMIT));
            let kind = match &result {
                Ok(r) => format!(
                    "{} rows, {:?}",
                    if r.row_count > 0 { "some" } else { "no" },
                    r.truncation
                ),
                Err(e) => e.kind_code().to_owned(),
            };
            if kind != "timeout" && other.is_none() {
                other = result.err().map(|e| e.to_string());
            }
            *kinds.entry(kind).or_default() += 1;
        }
        sampler.abort();
        if let Some(other) = other {
            let cut: String = other.chars().take(160).collect();
            println!("    an outcome other than a timeout: {cut}");
        }
        println!("    outcomes: {kinds:?}");
        overruns
    });
    let mut sorted = overruns;
    sorted.sort();
    println!(
        "  {label}: {calls} concurrent calls, {LIMIT:?} limit: overrun median {:.2?}, p90 {:.2?}, max {:.2?}; most server connections of the role at once: {}",
        sorted[sorted.len() / 2],
        sorted[sorted.len() * 9 / 10],
        sorted[sorted.len() - 1],
        most.load(Ordering::Relaxed)
    );
}

fn url_admin() -> String {
    std::env::var("NAO_TEST_POSTGRES_URL").expect("NAO_TEST_POSTGRES_URL")
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    if let Ok(spec) = std::env::var(CHILD) {
        child(&spec);
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let name = format!("nao_mem_{}", std::process::id());
    println!(
        "\nPeak RSS of one capped call ({} MiB byte cap; bound: RSS before + 2 x cap + {} MiB), each shape in its own process",
        CAP >> 20,
        SLACK >> 20
    );
    let postgres = std::env::var("NAO_TEST_POSTGRES_URL").ok();
    let mysql_url = std::env::var("NAO_TEST_MYSQL_URL").ok();
    let pg_role = postgres
        .as_deref()
        .map(|url| postgres_role(&rt, url, &name));
    let my_user = mysql_url.as_deref().map(|url| mysql_user(&rt, url, &name));
    for (index, shape) in SHAPES.iter().enumerate() {
        match &pg_role {
            Some((_, url)) => print_row(
                "postgres",
                shape.label,
                run_child(Engine::Postgres, index, url),
            ),
            None => println!(
                "  postgres {:<22} skipped, NAO_TEST_POSTGRES_URL is not set",
                shape.label
            ),
        }
        match (&my_user, shape.mysql) {
            (Some((_, url)), Some(_)) => {
                print_row("mysql", shape.label, run_child(Engine::MySql, index, url))
            }
            (Some(_), None) => println!("  mysql    {:<22} (no such shape)", shape.label),
            (None, _) => println!(
                "  mysql    {:<22} skipped, NAO_TEST_MYSQL_URL is not set",
                shape.label
            ),
        }
    }
    if let Some((admin, url)) = &pg_role {
        println!("\nTimeouts under load (PostgreSQL)");
        let config = pg::Config::from_str(url).expect("postgres url");
        let db: Arc<dyn Dialect> = Arc::new(
            rt.block_on(PostgresDialect::connect("pg", config))
                .expect("postgres adapter"),
        );
        // Statements that sleep past the limit on the server.
        postgres_timeouts(
            &rt,
            &db,
            &name,
            "sleeping",
            100,
            "SELECT pg_sleep(10), (SELECT count(*) FROM generate_series(1, 3000000))",
        );
        // Statements that stream 20 KB rows (about 10 MB/s each) when the limit passes.
        postgres_timeouts(
            &rt,
            &db,
            &name,
            "streaming",
            8,
            "SELECT g, repeat('x', 20000) AS v FROM generate_series(1, 1000000) g, \
             LATERAL (SELECT pg_sleep(0.002 + 0 * g)) s",
        );
        drop(db);
        rt.block_on(admin.batch_execute(&format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '{name}'; \
             DROP ROLE IF EXISTS {name}"
        )))
        .expect("drop role");
    }
    if let Some((opts, _)) = my_user {
        mysql_cleanup(&rt, opts, &name);
    }
}
