//! tokio-postgres' TLS hooks on rustls: [`Connector`] makes a handshake per connection, and
//! [`TlsStream`] is the encrypted socket.

use std::future::Future;
use std::io;
use std::net::{IpAddr, Ipv4Addr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use rustls::ClientConfig;
use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_postgres::Socket;
use tokio_postgres::tls::{ChannelBinding, MakeTlsConnect, TlsConnect};
use tokio_rustls::TlsConnector;

use super::TlsMode;

/// Makes TLS handshakes with one rustls configuration; `None` when TLS is off (tokio-postgres
/// then never asks for one).
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
}

impl MakeTlsConnect<Socket> for Connector {
    type Stream = TlsStream;
    type TlsConnect = Handshake;
    type Error = io::Error;

    fn make_tls_connect(&mut self, host: &str) -> io::Result<Handshake> {
        let Some(config) = &self.config else {
            // tokio-postgres asks for a handshake even when TLS is off, and never runs it.
            return Ok(Handshake {
                connector: None,
                name: no_name(),
            });
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
        Ok(Handshake {
            connector: Some(TlsConnector::from(Arc::clone(config))),
            name,
        })
    }
}

/// A name for handshakes that check none: an IP address, so no SNI is sent.
fn no_name() -> ServerName<'static> {
    ServerName::IpAddress(IpAddr::V4(Ipv4Addr::UNSPECIFIED).into())
}

/// One pending handshake (`connector` is `None` when TLS is off).
pub(crate) struct Handshake {
    connector: Option<TlsConnector>,
    name: ServerName<'static>,
}

impl TlsConnect<Socket> for Handshake {
    type Stream = TlsStream;
    type Error = io::Error;
    type Future = Pin<Box<dyn Future<Output = io::Result<TlsStream>> + Send>>;

    fn connect(self, socket: Socket) -> Self::Future {
        Box::pin(async move {
            let Some(connector) = self.connector else {
                return Err(io::Error::other("TLS is disabled for this connection"));
            };
            let stream = connector.connect(self.name, socket).await?;
            Ok(TlsStream(Box::new(stream)))
        })
    }
}

/// An encrypted connection to the server.
pub(crate) struct TlsStream(Box<tokio_rustls::client::TlsStream<Socket>>);

impl tokio_postgres::tls::TlsStream for TlsStream {
    /// No channel binding is offered: SCRAM authentication runs as `SCRAM-SHA-256`, not
    /// `SCRAM-SHA-256-PLUS` (`channel_binding=require` fails to connect).
    fn channel_binding(&self) -> ChannelBinding {
        ChannelBinding::none()
    }
}

impl AsyncRead for TlsStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut *self.0).poll_read(cx, buf)
    }
}

impl AsyncWrite for TlsStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut *self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut *self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut *self.0).poll_shutdown(cx)
    }
}
