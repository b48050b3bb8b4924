//! Opening the byte stream to the server: a TCP or Unix socket, then TLS as libpq's `sslmode`
//! says. The adapter does this itself, rather than through tokio-postgres' `Config::connect`,
//! because the stream the driver reads must pass through the wire guard (`super::wire`), and
//! the driver's own connect offers no hook on its clear-text path. tokio-postgres then speaks
//! the protocol over the finished stream (`Config::connect_raw`), and cancel requests reach
//! the same server through [`reopen`].
//!
//! Followed from the connection settings: every host (and `hostaddr`) in order, or shuffled
//! with `load_balance_hosts=random`; each port; `connect_timeout` per address; `keepalives`
//! on or off (the operating system's timings); `sslmode` and `sslnegotiation`. Not applied:
//! `keepalives_idle`, `keepalives_interval`, `keepalives_retries` and `tcp_user_timeout`.
//! As libpq does, TLS is never tried over a Unix socket.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::io;
use std::net::SocketAddr;
#[cfg(unix)]
use std::path::PathBuf;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
#[cfg(unix)]
use tokio::net::UnixStream;
use tokio::net::{TcpSocket, TcpStream};
use tokio_postgres::Config;
use tokio_postgres::config::{Host, LoadBalanceHosts, SslNegotiation};

use super::tls::{Connector, TlsMode};

/// The protocol's `SSLRequest`: a length of 8 and the code 80877103.
const SSL_REQUEST: [u8; 8] = [0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f];

/// The server a connection reached, to reach it again for a cancel request.
#[derive(Debug, Clone)]
pub(super) enum Target {
    /// A TCP address, and the host name the certificate is checked against.
    Tcp { addr: SocketAddr, host: String },
    /// A Unix socket file.
    #[cfg(unix)]
    Unix(PathBuf),
}

/// A connection's bytes: clear text or TLS.
#[derive(Debug)]
pub(super) enum Stream {
    Tcp(TcpStream),
    Tls(Box<tokio_rustls::client::TlsStream<TcpStream>>),
    #[cfg(unix)]
    Unix(UnixStream),
}

/// Opens a stream to the first server of `config` that answers; the last failure otherwise.
pub(super) async fn open(config: &Config, tls: &Connector) -> io::Result<(Stream, Target)> {
    let mut last = None;
    for (host, addr, port) in candidates(config)? {
        let targets = match resolve(&host, addr, port).await {
            Ok(targets) => targets,
            Err(e) => {
                last = Some(e);
                continue;
            }
        };
        for target in targets {
            match reopen(&target, config, tls).await {
                Ok(stream) => return Ok((stream, target)),
                Err(e) => last = Some(e),
            }
        }
    }
    Err(last.unwrap_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no host to connect to")))
}

/// Opens a stream to `target`, with TLS as the connector's mode says.
pub(super) async fn reopen(
    target: &Target,
    config: &Config,
    tls: &Connector,
) -> io::Result<Stream> {
    let timeout = config.get_connect_timeout().copied();
    match target {
        Target::Tcp { addr, host } => {
            let socket = match addr {
                SocketAddr::V4(_) => TcpSocket::new_v4()?,
                SocketAddr::V6(_) => TcpSocket::new_v6()?,
            };
            socket.set_keepalive(config.get_keepalives())?;
            let stream = within(timeout, socket.connect(*addr)).await?;
            stream.set_nodelay(true)?;
            negotiate(stream, host, tls, config.get_ssl_negotiation()).await
        }
        #[cfg(unix)]
        Target::Unix(path) => Ok(Stream::Unix(
            within(timeout, UnixStream::connect(path)).await?,
        )),
    }
}

async fn within<T>(
    timeout: Option<Duration>,
    work: impl Future<Output = io::Result<T>>,
) -> io::Result<T> {
    match timeout {
        Some(limit) => tokio::time::timeout(limit, work).await.map_err(|_| {
            io::Error::new(
                io::ErrorKind::TimedOut,
                format!("no answer within the connect timeout ({limit:?})"),
            )
        })?,
        None => work.await,
    }
}

/// One host to try: its name (for TLS, and to resolve unless `addr` is given), its address
/// from `hostaddr`, and its port.
type Candidate = (Host, Option<std::net::IpAddr>, u16);

/// The hosts of `config` paired with their `hostaddr` and port, as tokio-postgres pairs them.
fn candidates(config: &Config) -> io::Result<Vec<Candidate>> {
    let hosts = config.get_hosts();
    let addrs = config.get_hostaddrs();
    let ports = config.get_ports();
    let count = hosts.len().max(addrs.len());
    if count == 0 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "both host and hostaddr are missing",
        ));
    }
    let mut out: Vec<Candidate> = (0..count)
        .map(|i| {
            let addr = addrs.get(i).copied();
            let host = match (hosts.get(i), addr) {
                (Some(host), _) => host.clone(),
                (None, Some(ip)) => Host::Tcp(ip.to_string()),
                (None, None) => Host::Tcp(String::new()),
            };
            let port = ports.get(i).or(ports.first()).copied().unwrap_or(5432);
            (host, addr, port)
        })
        .collect();
    if config.get_load_balance_hosts() == LoadBalanceHosts::Random && out.len() > 1 {
        let mut hasher = RandomState::new().build_hasher();
        hasher.write_usize(out.len());
        let start = usize::try_from(hasher.finish() % out.len() as u64).unwrap_or(0);
        out.rotate_left(start);
    }
    Ok(out)
}

/// The addresses a candidate resolves to.
async fn resolve(
    host: &Host,
    addr: Option<std::net::IpAddr>,
    port: u16,
) -> io::Result<Vec<Target>> {
    match host {
        Host::Tcp(name) => {
            let addrs: Vec<SocketAddr> = match addr {
                Some(ip) => vec![SocketAddr::new(ip, port)],
                None => tokio::net::lookup_host((name.as_str(), port))
                    .await?
                    .collect(),
            };
            Ok(addrs
                .into_iter()
                .map(|addr| Target::Tcp {
                    addr,
                    host: name.clone(),
                })
                .collect())
        }
        #[cfg(unix)]
        Host::Unix(dir) => Ok(vec![Target::Unix(dir.join(format!(".s.PGSQL.{port}")))]),
    }
}

/// Asks for TLS as the mode says (`SSLRequest`, or a direct handshake with
/// `sslnegotiation=direct`), and runs the handshake when the server agrees.
async fn negotiate(
    mut socket: TcpStream,
    host: &str,
    tls: &Connector,
    negotiation: SslNegotiation,
) -> io::Result<Stream> {
    let mode = tls.mode();
    if mode == TlsMode::Disable {
        return Ok(Stream::Tcp(socket));
    }
    if negotiation == SslNegotiation::Direct {
        if mode == TlsMode::Prefer {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "sslmode=prefer may not be used with sslnegotiation=direct (use require)",
            ));
        }
    } else {
        socket.write_all(&SSL_REQUEST).await?;
        let mut answer = [0u8];
        socket.read_exact(&mut answer).await?;
        if answer != [b'S'] {
            if mode == TlsMode::Prefer {
                return Ok(Stream::Tcp(socket));
            }
            return Err(io::Error::new(
                io::ErrorKind::ConnectionRefused,
                "the server does not support TLS, and the sslmode requires it",
            ));
        }
    }
    let stream = tls
        .handshake(host, socket)
        .await
        .map_err(|e| io::Error::new(e.kind(), format!("the TLS handshake failed: {e}")))?;
    Ok(Stream::Tls(Box::new(stream)))
}

impl AsyncRead for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Tcp(s) => Pin::new(s).poll_read(cx, buf),
            Stream::Tls(s) => Pin::new(&mut **s).poll_read(cx, buf),
            #[cfg(unix)]
            Stream::Unix(s) => Pin::new(s).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Tcp(s) => Pin::new(s).poll_write(cx, buf),
            Stream::Tls(s) => Pin::new(&mut **s).poll_write(cx, buf),
            #[cfg(unix)]
            Stream::Unix(s) => Pin::new(s).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Tcp(s) => Pin::new(s).poll_flush(cx),
            Stream::Tls(s) => Pin::new(&mut **s).poll_flush(cx),
            #[cfg(unix)]
            Stream::Unix(s) => Pin::new(s).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Tcp(s) => Pin::new(s).poll_shutdown(cx),
            Stream::Tls(s) => Pin::new(&mut **s).poll_shutdown(cx),
            #[cfg(unix)]
            Stream::Unix(s) => Pin::new(s).poll_shutdown(cx),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;

    #[test]
    fn hosts_pair_with_their_addresses_and_ports() {
        let config = Config::from_str("host=a,b hostaddr=10.0.0.1,10.0.0.2 port=5433,5434")
            .unwrap_or_else(|e| panic!("{e}"));
        let found = candidates(&config).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(found.len(), 2);
        assert_eq!(found[1].0, Host::Tcp("b".into()));
        assert_eq!(
            found[1].1,
            Some("10.0.0.2".parse().unwrap_or_else(|e| panic!("{e}")))
        );
        assert_eq!(found[1].2, 5434);
        let one_port = Config::from_str("host=a,b port=6000").unwrap_or_else(|e| panic!("{e}"));
        let found = candidates(&one_port).unwrap_or_else(|e| panic!("{e}"));
        assert!(found.iter().all(|(_, _, port)| *port == 6000));
        assert!(candidates(&Config::new()).is_err());
    }
}
