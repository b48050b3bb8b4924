//! The Flight SQL adapter over TLS with a private CA, against a real server: Sail
//! (`NAO_TEST_FLIGHT_SQL_URL`) serves plain gRPC only (neither Sail 0.7 nor roapi 0.12 serves
//! TLS), so each test puts a TLS endpoint of its own in front of it (rustls, ALPN `h2`, a
//! server certificate for 127.0.0.1 signed by a CA the test makes) and relays the decrypted
//! bytes to Sail. The adapter sees what it would see in front of a TLS server.
//!
//! Without the variable the tests say so and pass.
#![cfg(feature = "flight-sql")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod support;

use std::net::SocketAddr;
use std::sync::Arc;

use nao_core::guard::{Policy, check};
use nao_core::{Dialect, DialectExt, ExecOptions};
use nao_dialects::flight_sql::FlightSqlDialect;
use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
use support::temp_dir::TestDir;
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

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

/// A TLS endpoint in front of `upstream`: its address, and the PEM of the CA that signed its
/// certificate (for 127.0.0.1 only).
struct TlsFront {
    address: SocketAddr,
    ca_pem: String,
}

impl TlsFront {
    async fn start(upstream: String) -> TlsFront {
        let ca_key = KeyPair::generate().unwrap();
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca_cert = ca_params.self_signed(&ca_key).unwrap();
        let issuer = Issuer::new(ca_params, ca_key);
        let server_key = KeyPair::generate().unwrap();
        let server_cert = CertificateParams::new(vec!["127.0.0.1".to_owned()])
            .unwrap()
            .signed_by(&server_key, &issuer)
            .unwrap();
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(server_key.serialize_der()));
        let chain = vec![CertificateDer::from(server_cert.der().to_vec())];
        let mut config = ServerConfig::builder()
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .unwrap();
        config.alpn_protocols = vec![b"h2".to_vec()];
        let acceptor = TlsAcceptor::from(Arc::new(config));
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let acceptor = acceptor.clone();
                let upstream = upstream.clone();
                tokio::spawn(async move {
                    // A client that fails the handshake (the point of some tests) just ends.
                    let Ok(mut client) = acceptor.accept(client).await else {
                        return;
                    };
                    let Ok(mut server) = TcpStream::connect(&upstream).await else {
                        return;
                    };
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                });
            }
        });
        TlsFront {
            address,
            ca_pem: ca_cert.pem(),
        }
    }
}

#[tokio::test]
async fn tls_with_a_private_ca_reaches_the_server() {
    let Some(upstream) = sail() else { return };
    let front = TlsFront::start(upstream).await;
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
    let front = TlsFront::start(upstream).await;
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
    let front = TlsFront::start(upstream).await;
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
