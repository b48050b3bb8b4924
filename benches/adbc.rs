//! execute_sql through the ADBC PostgreSQL driver (`adbc` adapter) against the native
//! PostgreSQL adapter (`postgres`, tokio-postgres with its own Arrow conversion) on the same
//! 100 000-row query, and the ADBC driver alone (its Arrow stream collected, no nao-rs) as the
//! floor, running the text execute_sql sends (with the row cap the guard adds); medians of 31
//! interleaved rounds and each ratio's median, min and max over the rounds, on the server of
//! `NAO_TEST_POSTGRES_URL`, with the drivers of `NAO_ADBC_DRIVER_DIR`
//! (`eval "$(scripts/adbc/fetch-drivers.sh)"`).
//!
//! `cargo bench --bench adbc --features adbc,postgres`
//!
//! It prints the ratios; it fails on none. The two adapters return the same rows but not the
//! same types: the ADBC driver hands NUMERIC over as text, the native adapter as Decimal128.
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs
)]

mod support;

use std::hint::black_box;
use std::sync::Arc;

use nao::dialects::adbc::api::{Connection as _, Database as _, Statement as _};
use nao::dialects::adbc::{AdbcConfig, AdbcDialect};
use nao::dialects::postgres::{PostgresDialect, driver as pg};
use support::interleaved;
use support::tool::{capped_sql, execute_sql};

const ROWS: u64 = 100_000;
const ROUNDS: usize = 31;

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    println!(
        "\nexecute_sql through ADBC vs the native adapter (medians of {ROUNDS} interleaved rounds; \
         ratios: median, min, max per round)"
    );
    let Ok(url) = std::env::var("NAO_TEST_POSTGRES_URL") else {
        println!("  skipped: NAO_TEST_POSTGRES_URL is not set");
        return;
    };
    if std::env::var_os("NAO_ADBC_DRIVER_DIR").is_none() {
        println!("  skipped: NAO_ADBC_DRIVER_DIR is not set (scripts/adbc/fetch-drivers.sh)");
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let schema = format!("nao_bench_adbc_{}", std::process::id());
    let table = format!("{schema}.rows");
    let (admin, connection) = rt
        .block_on(pg::connect(&url, pg::NoTls))
        .expect("postgres admin");
    rt.spawn(connection);
    rt.block_on(admin.batch_execute(&format!(
        "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema};
         CREATE TABLE {table} AS SELECT i AS id, 'row ' || i AS label, (i % 1000) / 10.0 AS amount,
           now() - make_interval(secs => i) AS at FROM generate_series(1, {ROWS}) AS g(i);"
    )))
    .expect("postgres setup");
    let sql = format!("SELECT id, label, amount::numeric(12, 2) AS amount, at FROM {table}");
    // Both as the URL's (super)user, without TLS: this measures the pipelines, not the role.
    let sep = if url.contains('?') { '&' } else { '?' };
    let native = rt
        .block_on(PostgresDialect::open_url(
            "pg",
            &format!("{url}{sep}sslmode=disable&allow_privileged=true"),
        ))
        .expect("native adapter");
    let adbc_url = format!("adbc:{url}{sep}sslmode=disable&allow_privileged=true");
    let adbc = rt
        .block_on(AdbcDialect::open_url("pg", &adbc_url))
        .expect("adbc adapter");
    let native_ctx = support::tool::context(Arc::new(native), ROWS);
    let adbc_ctx = support::tool::context(Arc::new(adbc), ROWS);
    // The driver alone: one connection, the query's Arrow stream collected, on the statement
    // execute_sql sends.
    let raw_sql = capped_sql(&adbc_ctx, &sql);
    let config = AdbcConfig::from_url(&adbc_url).unwrap();
    let (_driver, database) = config.open_database("raw").expect("adbc driver");
    let mut raw = database.new_connection().expect("adbc connection");
    let rounds = interleaved(
        ROUNDS,
        &mut [
            &mut || assert_eq!(rt.block_on(execute_sql(&adbc_ctx, &sql)), ROWS),
            &mut || assert_eq!(rt.block_on(execute_sql(&native_ctx, &sql)), ROWS),
            &mut || {
                let mut statement = raw.new_statement().unwrap();
                statement.set_sql_query(&raw_sql).unwrap();
                let rows: usize = statement
                    .execute()
                    .unwrap()
                    .map(|batch| black_box(batch.unwrap()).num_rows())
                    .sum();
                assert_eq!(rows as u64, ROWS);
            },
        ],
    );
    println!(
        "  {ROWS} rows: execute_sql via ADBC {:>9.2?}   via the native adapter {:>9.2?}   \
         ADBC/native {}",
        rounds.median(0),
        rounds.median(1),
        rounds.ratio(0, 1)
    );
    println!(
        "  the ADBC driver alone {:>9.2?}   execute_sql via ADBC / driver {}",
        rounds.median(2),
        rounds.ratio(0, 2)
    );
    rt.block_on(admin.batch_execute(&format!("DROP SCHEMA {schema} CASCADE")))
        .expect("cleanup");
}
