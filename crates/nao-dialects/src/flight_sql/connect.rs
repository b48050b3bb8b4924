//! The gRPC channels to a Flight SQL server (and to the other locations its results name),
//! and the credentials every call carries.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use arrow_flight::client::FlightClient;
use arrow_flight::flight_service_client::FlightServiceClient;
use arrow_flight::{Action, FlightDescriptor, FlightInfo, HandshakeRequest, Location};
use base64::Engine as _;
use futures_util::TryStreamExt;
use nao_core::DialectError;
use prost::bytes::Bytes;
use tonic::metadata::{AsciiMetadataKey, AsciiMetadataValue, MetadataMap};
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};

use super::config::{FlightSqlAuth, FlightSqlConfig};
use super::errors;
use crate::grpc_errors::with_causes;

/// Keep-alive pings on idle connections, so a server or proxy that drops silent connections
/// is noticed before a statement is sent on one.
const KEEP_ALIVE: Duration = Duration::from_secs(30);

/// The channel to the server, the metadata every call carries, and channels to other
/// locations, opened when a result first names them.
#[derive(Debug)]
pub(super) struct Connection {
    database: String,
    config: FlightSqlConfig,
    tls: Option<ClientTlsConfig>,
    channel: Channel,
    metadata: MetadataMap,
    others: Mutex<HashMap<String, Channel>>,
    /// Whether statements go as prepared statements: until the server answers
    /// `CreatePreparedStatement` with Unimplemented (see `prepared`).
    prepares: AtomicBool,
}

impl Connection {
    /// Connects to the server of `config` and authenticates (a basic-auth handshake when the
    /// config has a user), within the config's connect timeout.
    pub(super) async fn open(
        database: &str,
        config: &FlightSqlConfig,
    ) -> Result<Connection, DialectError> {
        let tls = tls_config(database, config).await?;
        let channel = connect(database, config, &config.endpoint_uri(), tls.clone()).await?;
        let mut metadata = MetadataMap::new();
        for (name, value) in &config.headers {
            let key = AsciiMetadataKey::from_bytes(name.as_bytes())
                .map_err(|_| invalid_header(database, name))?;
            let value = AsciiMetadataValue::try_from(value.as_str())
                .map_err(|_| invalid_header(database, name))?;
            metadata.insert(key, value);
        }
        match &config.auth {
            FlightSqlAuth::None => {}
            FlightSqlAuth::Bearer(token) => {
                metadata.insert("authorization", bearer(database, token)?);
            }
            FlightSqlAuth::Basic { user, password } => {
                let token = tokio::time::timeout(
                    config.connect_timeout,
                    handshake(database, channel.clone(), &metadata, user, password),
                )
                .await
                .map_err(|_| timed_out(database, config.connect_timeout))??;
                metadata.insert("authorization", token);
            }
        }
        Ok(Connection {
            database: database.to_owned(),
            config: config.clone(),
            tls,
            channel,
            metadata,
            others: Mutex::default(),
            prepares: AtomicBool::new(true),
        })
    }

    /// A client on the server's channel carrying the credentials and headers.
    pub(super) fn client(&self) -> FlightClient {
        self.client_on(self.channel.clone())
    }

    /// A client for an endpoint at `locations` (the server itself when there are none, or
    /// when a location says to reuse this connection).
    pub(super) async fn client_for(
        &self,
        locations: &[Location],
    ) -> Result<FlightClient, DialectError> {
        let Some(uri) = locations
            .iter()
            .map(|l| l.uri.as_str())
            .find(|uri| !reuses(uri))
        else {
            return Ok(self.client());
        };
        let target = location_uri(&self.database, uri)?;
        let known = self
            .others
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&target)
            .cloned();
        let channel = match known {
            Some(channel) => channel,
            None => {
                let tls = target.starts_with("https://").then(|| {
                    self.tls
                        .clone()
                        .unwrap_or_else(|| ClientTlsConfig::new().with_native_roots())
                });
                let channel = connect(&self.database, &self.config, &target, tls).await?;
                self.others
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .insert(target, channel.clone());
                channel
            }
        };
        Ok(self.client_on(channel))
    }

    /// Whether statements still go as prepared statements.
    pub(super) fn prepares(&self) -> bool {
        self.prepares.load(Ordering::Relaxed)
    }

    /// Records that the server does not implement prepared statements.
    pub(super) fn cannot_prepare(&self) {
        self.prepares.store(false, Ordering::Relaxed);
    }

    /// `DoAction` with `timeout` as the call's gRPC deadline: the body of its first result
    /// (the actions used here answer with one; the rest is not read).
    pub(super) async fn action_within(
        &self,
        action: Action,
        timeout: Duration,
    ) -> Result<Option<Bytes>, tonic::Status> {
        let mut request = tonic::Request::new(action);
        *request.metadata_mut() = self.metadata.clone();
        request.set_timeout(timeout);
        let mut results = FlightServiceClient::new(self.channel.clone())
            .do_action(request)
            .await?
            .into_inner();
        Ok(results.try_next().await?.map(|result| result.body))
    }

    /// `GetFlightInfo` for `descriptor` with `timeout` sent along as the call's gRPC deadline
    /// (`grpc-timeout`), so a server that plans or runs the query inside this call (roapi)
    /// stops it by itself when the time is up.
    pub(super) async fn flight_info_within(
        &self,
        descriptor: FlightDescriptor,
        timeout: Duration,
    ) -> Result<FlightInfo, tonic::Status> {
        let mut request = tonic::Request::new(descriptor);
        *request.metadata_mut() = self.metadata.clone();
        request.set_timeout(timeout);
        FlightServiceClient::new(self.channel.clone())
            .get_flight_info(request)
            .await
            .map(tonic::Response::into_inner)
    }

    fn client_on(&self, channel: Channel) -> FlightClient {
        let mut client = FlightClient::new(channel);
        *client.metadata_mut() = self.metadata.clone();
        client
    }
}

/// Whether a location means "this same connection" (Flight's reuse URI, or an empty one).
fn reuses(uri: &str) -> bool {
    uri.is_empty() || uri.starts_with("arrow-flight-reuse-connection:")
}

/// The `http(s)://` URI tonic connects to for a Flight location (`grpc://`, `grpc+tcp://`,
/// `grpc+tls://`).
fn location_uri(database: &str, uri: &str) -> Result<String, DialectError> {
    let (scheme, rest) = uri
        .split_once("://")
        .ok_or_else(|| unsupported_location(database, uri))?;
    let scheme = match scheme.to_ascii_lowercase().as_str() {
        "grpc" | "grpc+tcp" | "http" => "http",
        "grpc+tls" | "https" => "https",
        _ => return Err(unsupported_location(database, uri)),
    };
    Ok(format!("{scheme}://{}", rest.trim_end_matches('/')))
}

fn unsupported_location(database: &str, uri: &str) -> DialectError {
    DialectError::Unsupported {
        database: database.to_owned(),
        what: format!(
            "a result endpoint at {uri:?}: only grpc://, grpc+tcp:// and grpc+tls:// locations \
             are read"
        ),
    }
}

/// The TLS settings of `config`: its private CA (read now, so a missing file fails at open)
/// or the system's roots, and the certificate name to expect.
async fn tls_config(
    database: &str,
    config: &FlightSqlConfig,
) -> Result<Option<ClientTlsConfig>, DialectError> {
    let Some(tls) = &config.tls else {
        return Ok(None);
    };
    let mut settings = ClientTlsConfig::new();
    settings = match &tls.ca_file {
        Some(path) => {
            let pem = tokio::fs::read(path)
                .await
                .map_err(|e| DialectError::Connection {
                    database: database.to_owned(),
                    message: format!("cannot read the CA file {}: {e}", path.display()),
                    source: None,
                })?;
            settings.ca_certificate(Certificate::from_pem(pem))
        }
        None => settings.with_native_roots(),
    };
    if let Some(domain) = &tls.domain {
        settings = settings.domain_name(domain.clone());
    }
    Ok(Some(settings))
}

/// Opens a channel to `uri` within the connect timeout.
async fn connect(
    database: &str,
    config: &FlightSqlConfig,
    uri: &str,
    tls: Option<ClientTlsConfig>,
) -> Result<Channel, DialectError> {
    let failed = |message: String| DialectError::Connection {
        database: database.to_owned(),
        message,
        source: None,
    };
    let mut endpoint = Endpoint::from_shared(uri.to_owned())
        .map_err(|e| failed(format!("{uri} is not a valid address: {e}")))?
        .connect_timeout(config.connect_timeout)
        .tcp_nodelay(true)
        .http2_keep_alive_interval(KEEP_ALIVE)
        .keep_alive_while_idle(true);
    if let Some(tls) = tls {
        endpoint = endpoint
            .tls_config(tls)
            .map_err(|e| failed(format!("TLS settings for {uri}: {}", with_causes(&e))))?;
    }
    match tokio::time::timeout(config.connect_timeout, endpoint.connect()).await {
        Ok(Ok(channel)) => Ok(channel),
        Ok(Err(e)) => Err(failed(format!("cannot reach {uri}: {}", with_causes(&e)))),
        Err(_) => Err(timed_out(database, config.connect_timeout)),
    }
}

/// A Flight `Handshake` with basic credentials; returns the `Authorization` value for later
/// calls: the bearer token the server answers with, else the basic credentials again (some
/// servers check them on every call).
async fn handshake(
    database: &str,
    channel: Channel,
    metadata: &MetadataMap,
    user: &str,
    password: &str,
) -> Result<AsciiMetadataValue, DialectError> {
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
    let basic = AsciiMetadataValue::try_from(format!("Basic {basic}")).map_err(|_| {
        DialectError::Connection {
            database: database.to_owned(),
            message: "the user name or password cannot be sent in a header".to_owned(),
            source: None,
        }
    })?;
    let mut request = tonic::Request::new(futures_util::stream::iter([HandshakeRequest {
        protocol_version: 0,
        payload: Default::default(),
    }]));
    *request.metadata_mut() = metadata.clone();
    request
        .metadata_mut()
        .insert("authorization", basic.clone());
    let response = FlightServiceClient::new(channel)
        .handshake(request)
        .await
        .map_err(|status| errors::from_status(database, &status))?;
    let answered = response
        .metadata()
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .filter(|value| value.len() > "bearer ".len() && value[..7].eq_ignore_ascii_case("bearer "))
        .and_then(|value| AsciiMetadataValue::try_from(value).ok());
    Ok(answered.unwrap_or(basic))
}

fn bearer(database: &str, token: &str) -> Result<AsciiMetadataValue, DialectError> {
    AsciiMetadataValue::try_from(format!("Bearer {token}")).map_err(|_| DialectError::Connection {
        database: database.to_owned(),
        message: "the token cannot be sent in a header (it must be printable ASCII)".to_owned(),
        source: None,
    })
}

fn invalid_header(database: &str, name: &str) -> DialectError {
    DialectError::Connection {
        database: database.to_owned(),
        message: format!("the header {name:?} is not a valid gRPC header name or value"),
        source: None,
    }
}

fn timed_out(database: &str, limit: Duration) -> DialectError {
    DialectError::Connection {
        database: database.to_owned(),
        message: format!("the server did not answer within {limit:?}"),
        source: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_become_uris_tonic_connects_to() {
        assert_eq!(
            location_uri("db", "grpc+tcp://10.0.0.2:50051").unwrap(),
            "http://10.0.0.2:50051"
        );
        assert_eq!(
            location_uri("db", "grpc+tls://w1.example.com:443/").unwrap(),
            "https://w1.example.com:443"
        );
        for bad in ["file:///etc/passwd", "s3://bucket/x", "no-scheme"] {
            assert_eq!(
                location_uri("db", bad).unwrap_err().kind_code(),
                "unsupported"
            );
        }
        assert!(reuses("arrow-flight-reuse-connection://?"));
        assert!(reuses(""));
    }
}
