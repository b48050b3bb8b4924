//! execute_sql end to end (guard + execute + Arrow conversion + store + render) against the raw
//! driver on the same 100 000 rows and the same statement (the raw side runs the text
//! execute_sql sends, with the row cap the guard adds), on the live PostgreSQL and
//! MariaDB/MySQL servers named by `NAO_TEST_POSTGRES_URL` and `NAO_TEST_MYSQL_URL` (each
//! skipped, with a line saying so, when its variable is unset).
//!
//! Two baselines, both on the protocol the adapter uses (PostgreSQL: the extended protocol, the
//! statement prepared on each call, binary values; MySQL: a prepared statement, the binary
//! protocol, the driver's statement cache as the adapter has it):
//! - **decode**: the driver streams the rows and every cell is decoded into a typed Rust value
//!   with the driver's own getters (integers, `String`, the timestamp as `SystemTime` or the
//!   driver's date value; PostgreSQL `numeric` as its unscaled `i128` and scale through a
//!   `FromSql` impl here, MySQL `DECIMAL` as its exact text: the drivers' decimal and date
//!   features are off in the workspace) and the typed rows are collected: what any application
//!   reading the rows does;
//! - **stream-and-drop**: the driver streams the rows and drops each undecoded (the least a
//!   reader can do).
//!
//! On PostgreSQL, execute_sql over TLS (`sslmode=require`) runs alongside too. Times side by
//! side in one run: medians of 31 interleaved rounds, and each ratio's median, min and max over
//! the rounds.
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
use std::time::SystemTime;

use futures_util::StreamExt;
use nao::dialects::OpenOptions;
use nao::dialects::mysql::{MySqlDialect, driver as mysql};
use nao::dialects::postgres::{PostgresDialect, driver as pg};
use support::tool::{capped_sql, execute_sql};
use support::{Rounds, interleaved};

const ROWS: u64 = 100_000;
const ROUNDS: usize = 31;

/// Prints execute_sql (run 0) against the decoding (run 1) and the stream-and-drop (run 2)
/// baselines.
fn report(server: &str, rounds: &Rounds) {
    println!(
        "  {server:<9} {ROWS} rows: execute_sql {:>9.2?}",
        rounds.median(0)
    );
    println!(
        "    vs raw driver decoding every cell {:>9.2?}   ratio {}",
        rounds.median(1),
        rounds.ratio(0, 1)
    );
    println!(
        "    vs raw driver stream-and-drop     {:>9.2?}   ratio {}",
        rounds.median(2),
        rounds.ratio(0, 2)
    );
}

/// A PostgreSQL `numeric` as a client without a decimal crate holds it: its unscaled integer
/// at its display scale, decoded from the binary form (`value = Σ digit[i] × 10000^(weight − i)`
/// in base-10 000 digits).
#[derive(Debug)]
struct Numeric {
    unscaled: i128,
    scale: u16,
}

impl<'a> pg::types::FromSql<'a> for Numeric {
    fn from_sql(
        _: &pg::types::Type,
        raw: &'a [u8],
    ) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        let word = |i: usize| {
            raw.get(2 * i..2 * i + 2)
                .map(|b| u16::from_be_bytes([b[0], b[1]]))
                .ok_or("a malformed numeric")
        };
        let (count, weight, sign, scale) = (word(0)?, word(1)? as i16, word(2)?, word(3)?);
        if sign & 0x8000 != 0 {
            return Err("NaN or infinity".into());
        }
        let overflow = "a numeric beyond i128";
        let mut unscaled: i128 = 0;
        for i in 0..usize::from(count) {
            unscaled = unscaled
                .checked_mul(10_000)
                .and_then(|n| n.checked_add(i128::from(word(4 + i).ok()?)))
                .ok_or(overflow)?;
        }
        // `unscaled` is now the value × 10^exponent; bring it to 10^scale.
        let exponent = 4 * (i32::from(count) - 1 - i32::from(weight));
        let shift = i32::from(scale) - exponent;
        let power = 10i128.checked_pow(shift.unsigned_abs()).ok_or(overflow)?;
        unscaled = if shift >= 0 {
            unscaled.checked_mul(power).ok_or(overflow)?
        } else {
            unscaled / power
        };
        let unscaled = if sign == 0x4000 { -unscaled } else { unscaled };
        Ok(Numeric { unscaled, scale })
    }

    fn accepts(ty: &pg::types::Type) -> bool {
        *ty == pg::types::Type::NUMERIC
    }
}

/// One PostgreSQL row, typed.
type PgRow = (i32, String, Numeric, SystemTime);

/// The rows of `sql`, streamed and decoded into typed values.
async fn pg_decode(client: &pg::Client, sql: &str) -> Vec<PgRow> {
    let params: [&str; 0] = [];
    let rows = client.query_raw(sql, params).await.unwrap();
    rows.map(|row| {
        let row = row.unwrap();
        (row.get(0), row.get(1), row.get(2), row.get(3))
    })
    .collect()
    .await
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
    // What execute_sql sends; the raw client prepares it on each call, as the adapter does.
    let raw_sql = capped_sql(&ctx, &sql);
    // The numeric decoder reads what the table holds: amount = (id % 1000) / 10, at scale 2.
    let decoded = rt.block_on(pg_decode(&raw_client, &raw_sql));
    assert!(decoded.iter().all(|(id, _, amount, _)| {
        amount.scale == 2 && amount.unscaled == i128::from(id % 1000) * 10
    }));
    let params: [&str; 0] = [];
    let rounds = interleaved(
        ROUNDS,
        &mut [
            &mut || assert_eq!(rt.block_on(execute_sql(&ctx, &sql)), ROWS),
            &mut || {
                let rows: Vec<PgRow> = rt.block_on(async {
                    let rows = raw_client
                        .query_raw(raw_sql.as_str(), params)
                        .await
                        .unwrap();
                    rows.map(|row| {
                        let row = row.unwrap();
                        (row.get(0), row.get(1), row.get(2), row.get(3))
                    })
                    .collect()
                    .await
                });
                assert_eq!(black_box(rows).len() as u64, ROWS);
            },
            &mut || {
                let streamed = rt.block_on(async {
                    let rows = raw_client
                        .query_raw(raw_sql.as_str(), params)
                        .await
                        .unwrap();
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
    report("postgres", &rounds);
    println!(
        "    execute_sql over TLS (require)    {:>9.2?}   ratio to it without TLS {}",
        rounds.median(3),
        rounds.ratio(3, 0)
    );
    rt.block_on(admin.batch_execute(&format!("DROP SCHEMA {schema} CASCADE")))
        .expect("cleanup");
}

/// A MySQL `DATETIME` as the driver hands it over (no date crate in the workspace).
#[derive(Debug)]
#[allow(dead_code)] // Held, never read: the decoding is what is measured.
struct DateTime {
    year: u16,
    month: u8,
    day: u8,
    hour: u8,
    minute: u8,
    second: u8,
    micros: u32,
}

/// One MySQL row, typed: `DECIMAL` as its exact text.
type MyRow = (i64, String, String, DateTime);

fn my_row(mut row: mysql::Row) -> MyRow {
    let at = match row.take::<mysql::Value, _>(3).expect("at") {
        mysql::Value::Date(year, month, day, hour, minute, second, micros) => DateTime {
            year,
            month,
            day,
            hour,
            minute,
            second,
            micros,
        },
        other => panic!("a DATETIME, not {other:?}"),
    };
    let id = row.take(0).expect("id");
    let label = row.take(1).expect("label");
    let amount = row.take(2).expect("amount");
    (id, label, amount, at)
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
    // What execute_sql sends; the raw connection runs it as a prepared statement (`exec_*`),
    // as the adapter does.
    let raw_sql = capped_sql(&ctx, &sql);
    let raw = rt.block_on(pool.get_conn()).expect("raw connection");
    let raw = std::cell::RefCell::new(raw);
    let rounds = interleaved(
        ROUNDS,
        &mut [
            &mut || assert_eq!(rt.block_on(execute_sql(&ctx, &sql)), ROWS),
            &mut || {
                let mut raw = raw.borrow_mut();
                let rows: Vec<MyRow> = rt.block_on(async {
                    let mut result = raw.exec_iter(raw_sql.as_str(), ()).await.unwrap();
                    result.map(my_row).await.unwrap()
                });
                assert_eq!(black_box(rows).len() as u64, ROWS);
            },
            &mut || {
                let mut raw = raw.borrow_mut();
                let streamed = rt.block_on(async {
                    let mut result = raw.exec_iter(raw_sql.as_str(), ()).await.unwrap();
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
    report("mysql", &rounds);
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
    println!(
        "\nexecute_sql vs the raw driver (medians of {ROUNDS} interleaved rounds; ratios: median, \
         min, max per round)"
    );
    match std::env::var("NAO_TEST_POSTGRES_URL") {
        Ok(url) => postgres(&rt, &url),
        Err(_) => println!("  postgres: skipped, NAO_TEST_POSTGRES_URL is not set"),
    }
    match std::env::var("NAO_TEST_MYSQL_URL") {
        Ok(url) => mysql(&rt, &url),
        Err(_) => println!("  mysql: skipped, NAO_TEST_MYSQL_URL is not set"),
    }
}
