//! A TLS endpoint of a test's own in front of a plain server that serves no TLS itself (Sail,
//! roapi, Debian's ClickHouse): rustls with a server certificate for 127.0.0.1 signed by a CA
//! made on the spot (rcgen), relaying the decrypted bytes. An adapter sees what it would see in
//! front of a TLS server with a private CA.

use std::net::SocketAddr;
use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// A TLS endpoint in front of `upstream`: its address, and the PEM of the CA that signed its
/// certificate (for 127.0.0.1 only).
pub(crate) struct TlsFront {
    pub(crate) address: SocketAddr,
    pub(crate) ca_pem: String,
}

impl TlsFront {
    /// Listens on a free loopback port, offering `alpn` (`h2` for gRPC, `http/1.1`), and
    /// relays each connection that completes the handshake to `upstream` (`host:port`).
    pub(crate) async fn start(upstream: String, alpn: &[u8]) -> TlsFront {
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
        config.alpn_protocols = vec![alpn.to_vec()];
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
