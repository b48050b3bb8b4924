//! TLS for PostgreSQL connections, on rustls (ring), with libpq's `sslmode` meanings.
//!
//! [`TlsSettings`] says how a connection is encrypted and how the server is authenticated;
//! URLs give the same settings as libpq parameters (`sslmode`, `sslrootcert`, `sslcert`,
//! `sslkey`). See the [module docs](super#tls) for the table of modes.

mod connect;
mod params;
mod verify;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::ServerCertVerifier;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::{ClientConfig, RootCertStore};
use tokio_postgres::config::SslMode;

pub(crate) use connect::Connector;
pub(super) use params::take_open_parameters;

/// How a connection is encrypted and whether the server's certificate is checked: libpq's
/// `sslmode`.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TlsMode {
    /// No TLS.
    Disable,
    /// TLS when the server offers it, else clear text. The certificate is checked only when
    /// root certificates are available (as in `Require`).
    Prefer,
    /// TLS or no connection. The certificate is checked against root certificates when they
    /// are available (`sslrootcert`, or `~/.postgresql/root.crt`, as in `VerifyCa`);
    /// otherwise it is not checked, which protects against eavesdropping, not impersonation.
    Require,
    /// TLS, and the certificate must chain to a trusted root; the host name is not checked.
    VerifyCa,
    /// TLS, the certificate must chain to a trusted root and name the host: the mode that
    /// stops impersonation.
    VerifyFull,
}

impl TlsMode {
    /// The mode an `sslmode` value names.
    fn parse(value: &str) -> Result<Self, String> {
        Ok(match value {
            "disable" => TlsMode::Disable,
            "prefer" => TlsMode::Prefer,
            "require" => TlsMode::Require,
            "verify-ca" => TlsMode::VerifyCa,
            "verify-full" => TlsMode::VerifyFull,
            // libpq's `allow` tries clear text first; there is no reason to want that.
            other => {
                return Err(format!(
                    "sslmode={other:?} is not supported; use disable, prefer, require, \
                     verify-ca or verify-full"
                ));
            }
        })
    }

    /// The mode for what tokio-postgres parsed from a connection string.
    fn from_driver(mode: SslMode) -> Self {
        match mode {
            SslMode::Disable => TlsMode::Disable,
            SslMode::Prefer => TlsMode::Prefer,
            SslMode::Require => TlsMode::Require,
            // A mode this version does not know: the strictest.
            _ => TlsMode::VerifyFull,
        }
    }

    /// What tokio-postgres negotiates: whether to ask for TLS, and whether to insist.
    fn driver_mode(self) -> SslMode {
        match self {
            TlsMode::Disable => SslMode::Disable,
            TlsMode::Prefer => SslMode::Prefer,
            TlsMode::Require | TlsMode::VerifyCa | TlsMode::VerifyFull => SslMode::Require,
        }
    }
}

/// Which certificate authorities are trusted: libpq's `sslrootcert`.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TrustRoots {
    /// The certificates in a PEM file (a private CA, or a cloud provider's bundle).
    PemFile(PathBuf),
    /// The operating system's trust store (`sslrootcert=system`).
    System,
}

/// TLS settings of a PostgreSQL connection. The default is libpq's: `prefer`, with
/// `~/.postgresql/root.crt` as the roots when that file exists.
///
/// ```
/// use nao_dialects::postgres::{TlsMode, TlsSettings, TrustRoots};
///
/// let tls = TlsSettings::new(TlsMode::VerifyFull)
///     .with_roots(TrustRoots::PemFile("/etc/nao/db-ca.pem".into()));
/// assert_eq!(tls.mode(), Some(TlsMode::VerifyFull));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TlsSettings {
    mode: Option<TlsMode>,
    roots: Option<TrustRoots>,
    client_identity: Option<(PathBuf, PathBuf)>,
}

impl TlsSettings {
    /// Settings with `mode` and the default roots.
    pub fn new(mode: TlsMode) -> Self {
        TlsSettings {
            mode: Some(mode),
            ..TlsSettings::default()
        }
    }

    /// Trusts `roots` instead of `~/.postgresql/root.crt`.
    #[must_use]
    pub fn with_roots(mut self, roots: TrustRoots) -> Self {
        self.roots = Some(roots);
        self
    }

    /// Presents a client certificate (for `cert` authentication): a PEM chain and its
    /// unencrypted PEM private key.
    #[must_use]
    pub fn with_client_certificate(
        mut self,
        chain: impl Into<PathBuf>,
        key: impl Into<PathBuf>,
    ) -> Self {
        self.client_identity = Some((chain.into(), key.into()));
        self
    }

    /// The mode set, if any (`None`: `prefer`, or `verify-full` with [`TrustRoots::System`]).
    pub fn mode(&self) -> Option<TlsMode> {
        self.mode
    }

    /// The settings tokio-postgres parsed into `config` (`disable`, `prefer` or `require`).
    pub(crate) fn from_driver(config: &tokio_postgres::Config) -> Self {
        TlsSettings::new(TlsMode::from_driver(config.get_ssl_mode()))
    }

    /// Takes the TLS parameters out of a connection string: the settings, and the string
    /// left for tokio-postgres. Errors never repeat the string.
    pub(crate) fn from_connection_string(input: &str) -> Result<(Self, String), String> {
        let found = params::extract(input)?;
        let mut settings = TlsSettings {
            mode: found.sslmode.as_deref().map(TlsMode::parse).transpose()?,
            roots: found.sslrootcert.map(|value| match value.as_str() {
                "system" => TrustRoots::System,
                _ => TrustRoots::PemFile(value.into()),
            }),
            client_identity: None,
        };
        match (found.sslcert, found.sslkey) {
            (Some(chain), Some(key)) => {
                settings = settings.with_client_certificate(chain, key);
            }
            (None, None) => {}
            _ => return Err("sslcert and sslkey must be given together".into()),
        }
        Ok((settings, found.rest))
    }

    /// Checks the settings, reads the certificate files and builds the connector; sets the
    /// mode tokio-postgres negotiates on `config`. Errors name the file or setting at fault.
    pub(crate) fn connector(
        &self,
        config: &mut tokio_postgres::Config,
    ) -> Result<Connector, String> {
        let mode = self.effective_mode()?;
        config.ssl_mode(mode.driver_mode());
        if mode == TlsMode::Disable {
            return Ok(Connector::new(None, mode));
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let roots = match &self.roots {
            Some(roots) => Some(load_roots(roots)?),
            None => default_root_file()
                .map(|path| load_pem_roots(&path))
                .transpose()?,
        };
        let verifier: Arc<dyn ServerCertVerifier> = match (mode, roots) {
            (TlsMode::VerifyCa | TlsMode::VerifyFull, None) => {
                return Err(format!(
                    "sslmode={} needs trusted root certificates: set sslrootcert=/path/to/ca.pem, \
                     or sslrootcert=system for the operating system's store \
                     (~/.postgresql/root.crt does not exist)",
                    mode_name(mode)
                ));
            }
            (TlsMode::VerifyFull, Some(roots)) => web_pki(roots, &provider)?,
            (_, Some(roots)) => Arc::new(verify::ChainOnly::new(web_pki(roots, &provider)?)),
            (_, None) => Arc::new(verify::AnyCertificate::new(
                provider.signature_verification_algorithms,
            )),
        };
        let builder = ClientConfig::builder_with_provider(Arc::clone(&provider))
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS setup failed: {e}"))?
            .dangerous()
            .with_custom_certificate_verifier(verifier);
        let mut config = match &self.client_identity {
            None => builder.with_no_client_auth(),
            Some((chain, key)) => builder
                .with_client_auth_cert(load_chain(chain)?, load_key(key)?)
                .map_err(|e| {
                    format!(
                        "the client certificate {} is unusable: {e}",
                        chain.display()
                    )
                })?,
        };
        // As libpq 17 does: PostgreSQL 17 requires it for `sslnegotiation=direct`, older
        // servers ignore it.
        config.alpn_protocols = vec![b"postgresql".to_vec()];
        Ok(Connector::new(Some(Arc::new(config)), mode))
    }

    /// The mode, with libpq's rule for the system store: `verify-full` by default, and no
    /// weaker mode allowed.
    fn effective_mode(&self) -> Result<TlsMode, String> {
        match (self.mode, &self.roots) {
            (None, Some(TrustRoots::System)) => Ok(TlsMode::VerifyFull),
            (None, _) => Ok(TlsMode::Prefer),
            (Some(TlsMode::VerifyFull), _) => Ok(TlsMode::VerifyFull),
            (Some(weak), Some(TrustRoots::System)) => Err(format!(
                "sslmode={} may not be used with sslrootcert=system (the system's store trusts \
                 any public CA, so only verify-full authenticates the server)",
                mode_name(weak)
            )),
            (Some(mode), _) => Ok(mode),
        }
    }
}

fn mode_name(mode: TlsMode) -> &'static str {
    match mode {
        TlsMode::Disable => "disable",
        TlsMode::Prefer => "prefer",
        TlsMode::Require => "require",
        TlsMode::VerifyCa => "verify-ca",
        TlsMode::VerifyFull => "verify-full",
    }
}

/// `~/.postgresql/root.crt`, libpq's default `sslrootcert`, when it exists.
fn default_root_file() -> Option<PathBuf> {
    let path = std::env::home_dir()?.join(".postgresql").join("root.crt");
    path.is_file().then_some(path)
}

fn web_pki(
    roots: RootCertStore,
    provider: &Arc<CryptoProvider>,
) -> Result<Arc<WebPkiServerVerifier>, String> {
    WebPkiServerVerifier::builder_with_provider(Arc::new(roots), Arc::clone(provider))
        .build()
        .map_err(|e| format!("TLS setup failed: {e}"))
}

fn load_roots(roots: &TrustRoots) -> Result<RootCertStore, String> {
    match roots {
        TrustRoots::PemFile(path) => load_pem_roots(path),
        TrustRoots::System => {
            let found = rustls_native_certs::load_native_certs();
            let mut store = RootCertStore::empty();
            let (added, _) = store.add_parsable_certificates(found.certs);
            if added == 0 {
                let why = found
                    .errors
                    .first()
                    .map(|e| format!(": {e}"))
                    .unwrap_or_default();
                return Err(format!(
                    "sslrootcert=system found no certificates in the operating system's trust store{why}"
                ));
            }
            Ok(store)
        }
    }
}

fn load_pem_roots(path: &Path) -> Result<RootCertStore, String> {
    let mut store = RootCertStore::empty();
    for cert in load_chain(path)? {
        store
            .add(cert)
            .map_err(|e| format!("a root certificate in {} is unusable: {e}", path.display()))?;
    }
    Ok(store)
}

/// Every certificate of a PEM file; an error when there is none.
fn load_chain(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let unreadable = |e: rustls::pki_types::pem::Error| {
        format!("could not read certificates from {}: {e}", path.display())
    };
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(unreadable)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(unreadable)?;
    if certs.is_empty() {
        return Err(format!("{} holds no PEM certificate", path.display()));
    }
    Ok(certs)
}

fn load_key(path: &Path) -> Result<PrivateKeyDer<'static>, String> {
    PrivateKeyDer::from_pem_file(path).map_err(|e| {
        format!(
            "could not read an unencrypted PEM private key from {}: {e}",
            path.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(url: &str) -> TlsSettings {
        TlsSettings::from_connection_string(url)
            .unwrap_or_else(|e| panic!("{url}: {e}"))
            .0
    }

    #[test]
    fn libpq_rules_for_modes_and_roots() {
        let system = settings("postgres://db/x?sslrootcert=system");
        assert_eq!(system.effective_mode(), Ok(TlsMode::VerifyFull));
        let weak = settings("postgres://db/x?sslrootcert=system&sslmode=verify-ca");
        assert!(weak.effective_mode().unwrap_err().contains("verify-full"));
        assert_eq!(
            settings("postgres://db/x").effective_mode(),
            Ok(TlsMode::Prefer)
        );
        let pinned = settings("host=db sslmode=verify-ca sslrootcert=/ca.pem");
        assert_eq!(pinned.mode(), Some(TlsMode::VerifyCa));
        assert_eq!(pinned.roots, Some(TrustRoots::PemFile("/ca.pem".into())));
        assert!(
            TlsSettings::from_connection_string("postgres://db/x?sslmode=allow")
                .unwrap_err()
                .contains("allow")
        );
        assert!(
            TlsSettings::from_connection_string("postgres://db/x?sslcert=/c.pem")
                .unwrap_err()
                .contains("together")
        );
    }

    #[test]
    fn missing_or_empty_files_are_named() {
        let mut config = tokio_postgres::Config::new();
        let missing = TlsSettings::new(TlsMode::VerifyFull)
            .with_roots(TrustRoots::PemFile("/nonexistent/ca.pem".into()));
        let error = missing.connector(&mut config).map(|_| ()).unwrap_err();
        assert!(error.contains("/nonexistent/ca.pem"), "{error}");

        let dir = std::env::temp_dir().join(format!("nao-tls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let empty = dir.join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap_or_else(|e| panic!("{e}"));
        let error = TlsSettings::new(TlsMode::VerifyCa)
            .with_roots(TrustRoots::PemFile(empty.clone()))
            .connector(&mut config)
            .map(|_| ())
            .unwrap_err();
        assert!(error.contains("no PEM certificate"), "{error}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn client_certificates_load_or_say_why_not() {
        let fixture = |name: &str| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures")
                .join(name)
        };
        let mut config = tokio_postgres::Config::new();
        let identity = TlsSettings::new(TlsMode::Require)
            .with_client_certificate(fixture("client-cert.pem"), fixture("client-key.pem"));
        identity
            .connector(&mut config)
            .map(|_| ())
            .unwrap_or_else(|e| panic!("{e}"));
        // A certificate where the key should be.
        let swapped = TlsSettings::new(TlsMode::Require)
            .with_client_certificate(fixture("client-cert.pem"), fixture("client-cert.pem"));
        let error = swapped.connector(&mut config).map(|_| ()).unwrap_err();
        assert!(
            error.contains("private key") && error.contains("client-cert.pem"),
            "{error}"
        );
    }

    #[test]
    fn the_driver_negotiates_what_the_mode_needs() {
        let mut config = tokio_postgres::Config::new();
        TlsSettings::new(TlsMode::Require)
            .connector(&mut config)
            .map(|_| ())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(config.get_ssl_mode(), SslMode::Require);
        TlsSettings::new(TlsMode::Disable)
            .connector(&mut config)
            .map(|_| ())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(config.get_ssl_mode(), SslMode::Disable);
    }
}
