//! The Flight SQL adapter over TLS with a private CA, against a real server: Sail
//! (`NAO_TEST_FLIGHT_SQL_URL`) serves plain gRPC only (neither Sail 0.7 nor roapi 0.12 serves
//! TLS), so each test puts a TLS endpoint of its own in front of it ([`TlsFront`]: ALPN `h2`, a
//! server certificate for 127.0.0.1 signed by a CA the test makes) and relays the decrypted
//! bytes to Sail. The adapter sees what it would see in front of a TLS server.
//!
//! Without the variable the tests say so and pass.
#![cfg(feature = "flight-sql")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod support;

use nao_core::guard::{Policy, check};
use nao_core::{Dialect, DialectExt, ExecOptions};
use nao_dialects::flight_sql::FlightSqlDialect;
use support::temp_dir::TestDir;
use support::tls_front::TlsFront;

/// Sail's address (`host:port`), or `None` with the reason printed.
fn sail() -> Option<String> {
    let Some(url) = std::env::var("NAO_TEST_FLIGHT_SQL_URL")
        .ok()
        .filter(|u| !u.is_empty())
    else {
        eprintln!(
            "NAO_TEST_FLIGHT_SQL_URL is not set: skipping (scripts/engines/start.sh sets it)"
        );
        return None;
    };
    let rest = url
        .strip_prefix("flightsql://")
        .expect("a flightsql:// URL");
    Some(rest.split(['?', '/']).next().unwrap().to_owned())
}

#[tokio::test]
async fn tls_with_a_private_ca_reaches_the_server() {
    let Some(upstream) = sail() else { return };
    let front = TlsFront::start(upstream, b"h2").await;
    let dir = TestDir::new("flight-tls");
    let ca = dir.path("ca.pem");
    std::fs::write(&ca, &front.ca_pem).unwrap();
    let url = format!(
        "flightsql+tls://{}?tls_ca={}&dialect=spark",
        front.address,
        ca.display()
    );
    let dialect = FlightSqlDialect::open_url("tls", &url).await.unwrap();
    let sql = check(
        "SELECT count(*) AS n FROM customers",
        dialect.sql_dialect(),
        &Policy::default(),
    )
    .unwrap();
    let result = dialect.query(&sql, &ExecOptions::default()).await.unwrap();
    assert_eq!(result.row_count, 1);
}

#[tokio::test]
async fn a_certificate_from_another_ca_is_refused() {
    let Some(upstream) = sail() else { return };
    let front = TlsFront::start(upstream, b"h2").await;
    let unrelated = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/unrelated-ca.pem"
    );
    for url in [
        // A CA that did not sign the server's certificate.
        format!(
            "flightsql+tls://{}?tls_ca={unrelated}&dialect=spark",
            front.address
        ),
        // The system's roots, which do not hold the private CA.
        format!("flightsql+tls://{}?dialect=spark", front.address),
    ] {
        let error = FlightSqlDialect::open_url("tls", &url).await.unwrap_err();
        assert_eq!(error.kind_code(), "connection", "{url}: {error}");
        let message = error.to_string().to_lowercase();
        assert!(
            message.contains("certificate")
                || message.contains("tls")
                || message.contains("issuer"),
            "{url}: the error should say the certificate is not trusted: {error}"
        );
    }
}

#[tokio::test]
async fn plain_grpc_to_a_tls_endpoint_fails_without_hanging() {
    let Some(upstream) = sail() else { return };
    let front = TlsFront::start(upstream, b"h2").await;
    let url = format!("flightsql://{}?dialect=spark", front.address);
    let outcome = tokio::time::timeout(
        std::time::Duration::from_secs(60),
        FlightSqlDialect::open_url("plain", &url),
    )
    .await
    .expect("the adapter must give up on its own (connect timeout)");
    let error = outcome.unwrap_err();
    assert_eq!(error.kind_code(), "connection", "{error}");
}
