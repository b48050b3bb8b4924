//! The ClickHouse adapter over HTTPS with a private CA (`clickhouses://…?tls_ca=`), against the
//! live server (`NAO_TEST_CLICKHOUSE_URL`): Debian's ClickHouse serves plain HTTP here, so each
//! test puts a TLS endpoint of its own in front of it ([`TlsFront`], ALPN `http/1.1`, a
//! certificate for 127.0.0.1 from a CA the test makes).
//!
//! Without the variable the tests say so and pass.
#![cfg(feature = "clickhouse")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod support;

use nao_core::guard::{Policy, check};
use nao_core::{Dialect, DialectExt, ExecOptions};
use nao_dialects::clickhouse::{ClickHouseConfig, ClickHouseDialect};
use support::temp_dir::TestDir;
use support::tls_front::TlsFront;

/// The read-only user's config, or `None` with the reason printed.
fn reader() -> Option<ClickHouseConfig> {
    let Some(url) = std::env::var("NAO_TEST_CLICKHOUSE_URL")
        .ok()
        .filter(|u| !u.is_empty())
    else {
        eprintln!(
            "NAO_TEST_CLICKHOUSE_URL is not set: skipping (eval \"$(scripts/clickhouse/start.sh)\")"
        );
        return None;
    };
    Some(ClickHouseConfig::from_url(&url).unwrap())
}

/// `plain` reached through a TLS front: the same user and database, HTTPS to the front.
fn through(front: &TlsFront, plain: &ClickHouseConfig) -> ClickHouseConfig {
    let mut config = plain.clone();
    config.host = front.address.ip().to_string();
    config.port = front.address.port();
    config.tls = true;
    config
}

#[tokio::test]
async fn https_with_a_private_ca_reaches_the_server() {
    let Some(plain) = reader() else { return };
    let front = TlsFront::start(format!("{}:{}", plain.host, plain.port), b"http/1.1").await;
    let dir = TestDir::new("clickhouse-tls");
    let ca = dir.path("ca.pem");
    std::fs::write(&ca, &front.ca_pem).unwrap();
    // From a URL, as a host would write it.
    let url = format!(
        "clickhouses://{}:{}@{}/{}?tls_ca={}",
        plain.user,
        plain.password,
        front.address,
        plain.database,
        ca.display()
    );
    let config = ClickHouseConfig::from_url(&url).unwrap();
    assert_eq!(config.tls_ca.as_deref(), Some(ca.as_path()));
    let dialect = ClickHouseDialect::connect("tls", &config).await.unwrap();
    let sql = check("SELECT 1 AS x", dialect.sql_dialect(), &Policy::default()).unwrap();
    let result = dialect.query(&sql, &ExecOptions::default()).await.unwrap();
    assert_eq!(result.row_count, 1);
}

#[tokio::test]
async fn a_certificate_from_another_ca_is_refused_without_the_password() {
    let Some(plain) = reader() else { return };
    let front = TlsFront::start(format!("{}:{}", plain.host, plain.port), b"http/1.1").await;
    let unrelated = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/unrelated-ca.pem"
    );
    let mut other_ca = through(&front, &plain);
    other_ca.tls_ca = Some(unrelated.into());
    // The system's roots do not hold the test's CA either.
    let system_roots = through(&front, &plain);
    for config in [other_ca, system_roots] {
        let error = ClickHouseDialect::connect("tls", &config)
            .await
            .unwrap_err();
        assert_eq!(error.kind_code(), "connection", "{error}");
        if !plain.password.is_empty() {
            assert!(!error.to_string().contains(&plain.password), "{error}");
        }
    }
}

#[tokio::test]
async fn a_missing_ca_file_and_plain_http_to_a_tls_port_are_connection_errors() {
    let Some(plain) = reader() else { return };
    let front = TlsFront::start(format!("{}:{}", plain.host, plain.port), b"http/1.1").await;
    let mut missing = through(&front, &plain);
    missing.tls_ca = Some("/nonexistent/nao-ca.pem".into());
    let error = ClickHouseDialect::connect("tls", &missing)
        .await
        .unwrap_err();
    assert_eq!(error.kind_code(), "connection", "{error}");
    assert!(
        error.to_string().contains("/nonexistent/nao-ca.pem"),
        "{error}"
    );
    let mut http = through(&front, &plain);
    http.tls = false;
    let outcome = tokio::time::timeout(
        std::time::Duration::from_secs(60),
        ClickHouseDialect::connect("plain", &http),
    )
    .await
    .expect("the adapter must give up on its own");
    let error = outcome.unwrap_err();
    assert_eq!(error.kind_code(), "connection", "{error}");
}
