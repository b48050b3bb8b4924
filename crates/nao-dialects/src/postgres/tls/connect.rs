//! The TLS handshake on rustls: [`Connector`] holds one rustls configuration and encrypts the
//! sockets the adapter opens itself (see `postgres::socket`, which negotiates TLS the way libpq
//! does and hands the encrypted stream to tokio-postgres already set up).

use std::io;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;

use rustls::ClientConfig;
use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

use super::TlsMode;

/// Makes TLS handshakes with one rustls configuration; without one (`sslmode=disable`) no
/// connection is encrypted.
#[derive(Clone)]
pub(crate) struct Connector {
    config: Option<Arc<ClientConfig>>,
    mode: TlsMode,
}

impl Connector {
    pub(super) fn new(config: Option<Arc<ClientConfig>>, mode: TlsMode) -> Self {
        Connector { config, mode }
    }

    /// The mode the connections are made in.
    pub(crate) fn mode(&self) -> TlsMode {
        self.mode
    }

    /// Runs the TLS handshake over `socket` with the server `host` (its name, checked against
    /// the certificate in `verify-full`). No channel binding is offered: SCRAM authentication
    /// runs as `SCRAM-SHA-256`, not `SCRAM-SHA-256-PLUS` (`channel_binding=require` fails).
    pub(crate) async fn handshake<S>(&self, host: &str, socket: S) -> io::Result<TlsStream<S>>
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        let Some(config) = &self.config else {
            return Err(io::Error::other("TLS is disabled for this connection"));
        };
        let name = match ServerName::try_from(host.to_owned()) {
            Ok(name) => name,
            // Modes that do not check the name only need some name for the handshake.
            Err(_) if self.mode != TlsMode::VerifyFull => no_name(),
            Err(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "sslmode=verify-full needs a host name or IP address to check the \
                         server's certificate against, and {host:?} is not one"
                    ),
                ));
            }
        };
        TlsConnector::from(Arc::clone(config))
            .connect(name, socket)
            .await
    }
}

/// A name for handshakes that check none: an IP address, so no SNI is sent.
fn no_name() -> ServerName<'static> {
    ServerName::IpAddress(IpAddr::V4(Ipv4Addr::UNSPECIFIED).into())
}
