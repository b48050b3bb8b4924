//! TLS to a real PostgreSQL server (`NAO_TEST_POSTGRES_URL`, a superuser URL): each mode of
//! libpq's `sslmode`, checked from the server's side (`pg_stat_ssl`), with the server's own
//! certificate (read from `ssl_cert_file`) as the trusted root. The superuser only watches
//! (without TLS); the adapter connects as a login role of the test's own that may do nothing
//! but log in, as production would, and the role is dropped at the end.
//!
//! Without the variable the tests say so and pass; a server with `ssl = off` is reported and
//! skipped (there is nothing to connect to).
#![cfg(feature = "postgres")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::{Path, PathBuf};
use std::str::FromStr;

use arrow_array::cast::AsArray;
use nao_core::guard::{ReadOnlySql, SqlDialect};
use nao_core::{DialectError, DialectExt, ExecOptions};
use nao_dialects::postgres::driver::config::Host;
use nao_dialects::postgres::driver::{Client, Config};
use nao_dialects::postgres::{PostgresDialect, TlsMode, TlsSettings, TrustRoots};
use support::postgres::{LOGIN_ONLY, Sandbox, connect_admin, server_url};

/// The test server, as key=value pieces (host, port, user, database) to add TLS settings to.
struct Server {
    host: String,
    port: u16,
    /// The test's least-privilege login role (`sandbox.role`, granted nothing), dropped on
    /// drop.
    sandbox: Sandbox,
    dbname: String,
    /// The server's certificate (its `ssl_cert_file`), which is its own root when self-signed.
    certificate: PathBuf,
    /// A superuser session without TLS, to watch the server.
    admin: Client,
}

impl Server {
    /// The server, or `None` (with the reason printed) when the variable is unset or the
    /// server does not offer TLS.
    async fn find() -> Option<Server> {
        let url = server_url()?;
        let config = Config::from_str(&url).unwrap();
        let admin = connect_admin(&url).await;
        let ssl: String = admin.query_one("SHOW ssl", &[]).await.unwrap().get(0);
        if ssl != "on" {
            eprintln!("the PostgreSQL server has ssl = {ssl}: skipping this TLS test");
            return None;
        }
        let file: String = admin
            .query_one("SHOW ssl_cert_file", &[])
            .await
            .unwrap()
            .get(0);
        let data_dir: String = admin
            .query_one("SHOW data_directory", &[])
            .await
            .unwrap()
            .get(0);
        let certificate = Path::new(&data_dir).join(file);
        if std::fs::read(&certificate).is_err() {
            eprintln!(
                "the server's certificate {} is not readable here: skipping this TLS test",
                certificate.display()
            );
            return None;
        }
        let host = match config.get_hosts().first() {
            Some(Host::Tcp(host)) => host.clone(),
            _ => "127.0.0.1".to_owned(),
        };
        Some(Server {
            host,
            port: config.get_ports().first().copied().unwrap_or(5432),
            sandbox: Sandbox::new(&url, "tls", LOGIN_ONLY).await,
            dbname: config.get_dbname().unwrap_or("postgres").to_owned(),
            certificate,
            admin,
        })
    }

    /// A `postgres://` URL to the server as the test's role, with `params` (`?k=v`).
    fn role_url(&self, params: &str) -> String {
        format!(
            "postgres://{}@{}:{}/{}{params}",
            self.sandbox.role, self.host, self.port, self.dbname
        )
    }

    /// A key=value connection string to the server under the name `host` (its address
    /// unchanged), with `extra` settings.
    fn connection_string(&self, host: &str, extra: &str) -> String {
        format!(
            "host={host} hostaddr={addr} port={port} user={user} dbname={db} connect_timeout=10 {extra}",
            addr = self.address(),
            port = self.port,
            user = self.sandbox.role,
            db = self.dbname,
        )
    }

    /// The server's IP address (`localhost` resolved the way the test connects).
    fn address(&self) -> String {
        if self.host == "localhost" {
            "127.0.0.1".to_owned()
        } else {
            self.host.clone()
        }
    }

    /// A host name the certificate is valid for, if it names one that reaches this server.
    fn certified_name(&self) -> Option<&'static str> {
        let pem = std::fs::read_to_string(&self.certificate).ok()?;
        let der = pem_to_der(&pem)?;
        let cert = webpki::EndEntityCert::try_from(&der).ok()?;
        let name = rustls::pki_types::ServerName::try_from("localhost").ok()?;
        cert.verify_is_valid_for_subject_name(&name)
            .ok()
            .map(|()| "localhost")
    }
}

/// The first certificate of a PEM text, as DER.
fn pem_to_der(pem: &str) -> Option<rustls::pki_types::CertificateDer<'static>> {
    use rustls::pki_types::pem::PemObject;
    rustls::pki_types::CertificateDer::from_pem_slice(pem.as_bytes()).ok()
}

/// Whether the adapter's session is encrypted, as the server sees it.
async fn encrypted(db: &PostgresDialect) -> bool {
    let sql = ReadOnlySql::new_unchecked_allowing_writes(
        "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
        SqlDialect::Postgres,
    );
    let result = db.query(&sql, &ExecOptions::default()).await.unwrap();
    assert_eq!(result.row_count, 1);
    result.batches[0].column(0).as_boolean().value(0)
}

async fn open(connection: &str) -> Result<PostgresDialect, DialectError> {
    PostgresDialect::open_url("pg", connection).await
}

#[tokio::test]
async fn each_sslmode_negotiates_what_it_says() {
    let Some(server) = Server::find().await else {
        return;
    };
    let disabled = open(&server.connection_string(&server.host, "sslmode=disable"))
        .await
        .unwrap();
    assert!(!encrypted(&disabled).await);
    assert!(
        format!("{disabled:?}").contains("tls: Disable"),
        "{disabled:?}"
    );
    // libpq's default, `prefer`: TLS when the server offers it.
    let preferred = open(&server.role_url("")).await.unwrap();
    assert!(encrypted(&preferred).await);
    let required = open(&server.role_url("?sslmode=require")).await.unwrap();
    assert!(encrypted(&required).await);
    // A client certificate is offered when the server asks for one; this one does not (its
    // pg_hba trusts), so the connection stands either way.
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
    let with_identity = open(&server.connection_string(
        &server.host,
        &format!(
            "sslmode=require sslcert='{fixtures}/client-cert.pem' sslkey='{fixtures}/client-key.pem'"
        ),
    ))
    .await
    .unwrap();
    assert!(encrypted(&with_identity).await);
    // The same settings through a driver Config: its `sslmode=require` is honoured.
    let mut config = Config::from_str(&server.role_url("")).unwrap();
    config.ssl_mode(nao_dialects::postgres::driver::config::SslMode::Require);
    let from_config = PostgresDialect::connect("pg", config).await.unwrap();
    assert!(encrypted(&from_config).await);
}

#[tokio::test]
async fn verify_ca_trusts_only_the_given_roots() {
    let Some(server) = Server::find().await else {
        return;
    };
    let root = server.certificate.display();
    let verified = open(&server.connection_string(
        &server.host,
        &format!("sslmode=verify-ca sslrootcert='{root}'"),
    ))
    .await
    .unwrap();
    assert!(encrypted(&verified).await);

    // `require` with a root file given verifies the chain too, as libpq does.
    let unrelated = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/unrelated-ca.pem"
    );
    for mode in ["verify-ca", "verify-full", "require"] {
        let error = open(&server.connection_string(
            &server.host,
            &format!("sslmode={mode} sslrootcert='{unrelated}'"),
        ))
        .await
        .map(|_| ())
        .unwrap_err();
        assert!(
            matches!(error, DialectError::Connection { .. }),
            "{mode}: {error:?}"
        );
        let message = error.to_string();
        assert!(
            message.contains("TLS") && message.contains("certificate"),
            "{mode}: {message}"
        );
    }
}

#[tokio::test]
async fn verify_full_checks_the_host_name() {
    let Some(server) = Server::find().await else {
        return;
    };
    let Some(name) = server.certified_name() else {
        eprintln!("the server's certificate does not name localhost: skipping this TLS test");
        return;
    };
    let tls = TlsSettings::new(TlsMode::VerifyFull)
        .with_roots(TrustRoots::PemFile(server.certificate.clone()));
    let by_name = Config::from_str(&server.connection_string(name, "")).unwrap();
    let verified = PostgresDialect::connect_with_tls("pg", by_name, &tls)
        .await
        .unwrap();
    assert!(encrypted(&verified).await);
    assert!(
        format!("{verified:?}").contains("tls: VerifyFull"),
        "{verified:?}"
    );

    // The same server by its address: the certificate does not name it.
    let address = server.address();
    let by_address = Config::from_str(&server.connection_string(&address, "")).unwrap();
    let error = PostgresDialect::connect_with_tls("pg", by_address.clone(), &tls)
        .await
        .map(|_| ())
        .unwrap_err();
    let message = error.to_string();
    assert!(message.contains("not valid for name"), "{message}");
    // verify-ca does not check names.
    let chain_only = TlsSettings::new(TlsMode::VerifyCa)
        .with_roots(TrustRoots::PemFile(server.certificate.clone()));
    let verified = PostgresDialect::connect_with_tls("pg", by_address, &chain_only)
        .await
        .unwrap();
    assert!(encrypted(&verified).await);
}

#[tokio::test]
async fn settings_that_cannot_work_fail_before_connecting() {
    // Port 1 refuses connections: each of these must fail on its settings first.
    let base = "host=127.0.0.1 port=1 user=nobody password=hunter2 dbname=x";
    for (extra, expected) in [
        ("sslmode=verify-full", "sslrootcert"),
        ("sslrootcert=system sslmode=require", "verify-full"),
        (
            "sslmode=verify-ca sslrootcert=/nonexistent/ca.pem",
            "/nonexistent/ca.pem",
        ),
        ("sslcert=/c.pem", "together"),
        ("sslmode=allow", "allow"),
        ("sslpassword=hunter2", "sslpassword"),
    ] {
        let error = open(&format!("{base} {extra}"))
            .await
            .map(|_| ())
            .unwrap_err();
        let message = error.to_string();
        assert!(message.contains(expected), "{extra}: {message}");
        assert!(!message.contains("hunter2"), "{extra}: {message}");
        assert!(!format!("{error:?}").contains("hunter2"), "{extra}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_statement_stops_on_the_server_over_tls_too() {
    let Some(server) = Server::find().await else {
        return;
    };
    // The cancel request opens a connection of its own, which must speak TLS too.
    let marker = format!("nao_tls_cancel_{}", std::process::id());
    let db = open(&server.connection_string(&server.host, "sslmode=require"))
        .await
        .unwrap();
    let sql = ReadOnlySql::new_unchecked_allowing_writes(
        format!("SELECT pg_sleep(30) AS {marker}"),
        SqlDialect::Postgres,
    );
    // Cancelled by the caller (the server's own statement_timeout is far off): only the
    // adapter's cancel request can stop it.
    let cancel = tokio_util::sync::CancellationToken::new();
    let options = ExecOptions::default().with_cancel(cancel.clone());
    let stopper = tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        cancel.cancel();
    });
    let error = db.query(&sql, &options).await.map(|_| ()).unwrap_err();
    assert!(matches!(error, DialectError::Cancelled { .. }), "{error:?}");
    stopper.await.unwrap();
    let mut running = i64::MAX;
    for _ in 0..50 {
        running = server
            .admin
            .query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1",
                &[&format!("%AS {marker}%")],
            )
            .await
            .unwrap()
            .get(0);
        if running == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(running, 0, "the statement still runs on the server");
}
