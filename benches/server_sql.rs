//! execute_sql end to end (guard + execute + Arrow conversion + store + render) against the raw
//! driver on the same 100 000 rows, on the live PostgreSQL and MariaDB/MySQL servers named by
//! `NAO_TEST_POSTGRES_URL` and `NAO_TEST_MYSQL_URL` (each skipped, with a line saying so, when
//! its variable is unset). Two baselines: the driver collecting the rows (`Vec<Row>`, what an
//! application does), and the driver streaming them and dropping each (the least a reader can
//! do). On PostgreSQL, execute_sql over TLS (`sslmode=require`) runs alongside too. Times side
//! by side in one run, medians of interleaved rounds.
//!
//! `cargo bench --bench server_sql --features postgres,mysql`
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs
)]

mod support;

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use nao::dialects::OpenOptions;
use nao::dialects::mysql::{MySqlDialect, driver as mysql};
use nao::dialects::postgres::{PostgresDialect, driver as pg};
use support::interleaved;
use support::tool::execute_sql;

const ROWS: u64 = 100_000;
const ROUNDS: usize = 9;

fn report(server: &str, ours: Duration, collected: Duration, streamed: Duration) {
    println!(
        "  {server:<9} {ROWS} rows: execute_sql {ours:>9.2?} | raw driver collecting {collected:>9.2?}: \
         ratio {:.3}x | raw driver streaming {streamed:>9.2?}: ratio {:.3}x",
        ours.as_secs_f64() / collected.as_secs_f64(),
        ours.as_secs_f64() / streamed.as_secs_f64()
    );
}

fn postgres(rt: &tokio::runtime::Runtime, url: &str) {
    let schema = format!("nao_bench_{}", std::process::id());
    let table = format!("{schema}.rows");
    let (admin, connection) = rt
        .block_on(pg::connect(url, pg::NoTls))
        .expect("postgres admin");
    rt.spawn(connection);
    rt.block_on(admin.batch_execute(&format!(
        "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema};
         CREATE TABLE {table} AS SELECT i AS id, 'row ' || i AS label, (i % 1000) / 10.0 AS amount,
           now() - make_interval(secs => i) AS at FROM generate_series(1, {ROWS}) AS g(i);"
    )))
    .expect("postgres setup");
    let sql = format!("SELECT id, label, amount::numeric(12, 2) AS amount, at FROM {table}");
    // The raw client below talks without TLS; so does the adapter (its default would be TLS).
    // Both run as the URL's (super)user: this measures the pipeline, not the role, so the
    // adapter is told to accept it.
    let sep = if url.contains('?') { '&' } else { '?' };
    let dialect = rt
        .block_on(PostgresDialect::open_url(
            "pg",
            &format!("{url}{sep}sslmode=disable&allow_privileged=true"),
        ))
        .expect("postgres adapter");
    let ctx = support::tool::context(Arc::new(dialect), ROWS);
    // The same adapter over TLS (`require`), to show what encryption costs on this link.
    let tls = rt
        .block_on(PostgresDialect::open_url(
            "pg",
            &format!("{url}{sep}sslmode=require&allow_privileged=true"),
        ))
        .expect("postgres adapter over TLS");
    let tls_ctx = support::tool::context(Arc::new(tls), ROWS);
    let (raw_client, raw_connection) = rt
        .block_on(pg::connect(url, pg::NoTls))
        .expect("raw client");
    rt.spawn(raw_connection);
    let medians = interleaved(
        ROUNDS,
        &mut [
            &mut || assert_eq!(rt.block_on(execute_sql(&ctx, &sql)), ROWS),
            &mut || {
                let rows = rt.block_on(raw_client.query(sql.as_str(), &[])).unwrap();
                assert_eq!(rows.len() as u64, ROWS);
            },
            &mut || {
                let streamed = rt.block_on(async {
                    let params: [&str; 0] = [];
                    let rows = raw_client.query_raw(sql.as_str(), params).await.unwrap();
                    rows.fold(0u64, |n, row| async move {
                        black_box(row.unwrap());
                        n + 1
                    })
                    .await
                });
                assert_eq!(streamed, ROWS);
            },
            &mut || assert_eq!(rt.block_on(execute_sql(&tls_ctx, &sql)), ROWS),
        ],
    );
    report("postgres", medians[0], medians[1], medians[2]);
    println!(
        "  postgres  execute_sql over TLS (sslmode=require) {:>9.2?}: {:.3}x the same without TLS",
        medians[3],
        medians[3].as_secs_f64() / medians[0].as_secs_f64()
    );
    rt.block_on(admin.batch_execute(&format!("DROP SCHEMA {schema} CASCADE")))
        .expect("cleanup");
}

fn mysql(rt: &tokio::runtime::Runtime, url: &str) {
    use mysql::prelude::Queryable;
    let database = format!("nao_bench_{}", std::process::id());
    let pool = mysql::Pool::from_url(url).expect("mysql url");
    let mut admin = rt.block_on(pool.get_conn()).expect("mysql admin");
    rt.block_on(admin.query_drop(format!(
        "DROP DATABASE IF EXISTS {database}; CREATE DATABASE {database};
         CREATE TABLE {database}.seq (n INT PRIMARY KEY);
         INSERT INTO {database}.seq SELECT a.n * 1000 + b.n FROM
           (WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < 999) SELECT n FROM s) a,
           (WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < 999) SELECT n FROM s) b
           WHERE a.n * 1000 + b.n < {ROWS};
         CREATE TABLE {database}.rows AS SELECT n AS id, CONCAT('row ', n) AS label,
           CAST((n % 1000) / 10 AS DECIMAL(12, 2)) AS amount,
           TIMESTAMP '2024-01-01 00:00:00' + INTERVAL n SECOND AS at FROM {database}.seq;"
    )))
    .expect("mysql setup");
    let sql = format!("SELECT id, label, amount, at FROM {database}.rows");
    let dialect = rt
        .block_on(MySqlDialect::connect_url_with(
            "mysql",
            url,
            &OpenOptions::new().allow_privileged(true),
        ))
        .expect("mysql adapter");
    let ctx = support::tool::context(Arc::new(dialect), ROWS);
    let raw = rt.block_on(pool.get_conn()).expect("raw connection");
    let raw = std::cell::RefCell::new(raw);
    let medians = interleaved(
        ROUNDS,
        &mut [
            &mut || assert_eq!(rt.block_on(execute_sql(&ctx, &sql)), ROWS),
            &mut || {
                let mut raw = raw.borrow_mut();
                let rows: Vec<mysql::Row> = rt.block_on(raw.exec(sql.as_str(), ())).unwrap();
                assert_eq!(rows.len() as u64, ROWS);
            },
            &mut || {
                let mut raw = raw.borrow_mut();
                let streamed = rt.block_on(async {
                    let mut result = raw.exec_iter(sql.as_str(), ()).await.unwrap();
                    let mut n = 0u64;
                    result
                        .for_each(|row| {
                            black_box(row);
                            n += 1;
                        })
                        .await
                        .unwrap();
                    n
                });
                assert_eq!(streamed, ROWS);
            },
        ],
    );
    report("mysql", medians[0], medians[1], medians[2]);
    let raw = raw.into_inner();
    rt.block_on(admin.query_drop(format!("DROP DATABASE {database}")))
        .expect("cleanup");
    drop((raw, admin));
    let _ = rt.block_on(pool.disconnect());
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    println!("\nexecute_sql vs the raw driver (medians of {ROUNDS} interleaved rounds)");
    match std::env::var("NAO_TEST_POSTGRES_URL") {
        Ok(url) => postgres(&rt, &url),
        Err(_) => println!("  postgres: skipped, NAO_TEST_POSTGRES_URL is not set"),
    }
    match std::env::var("NAO_TEST_MYSQL_URL") {
        Ok(url) => mysql(&rt, &url),
        Err(_) => println!("  mysql: skipped, NAO_TEST_MYSQL_URL is not set"),
    }
}
