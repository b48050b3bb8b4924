//! The gRPC channel to a Spark Connect server, the session and credentials every call
//! carries, and the four calls the adapter makes: `ExecutePlan`, `ReattachExecute`,
//! `Interrupt` and `ReleaseExecute` (never `ReleaseSession`: the session may hold the tables,
//! and a released session never comes back on Sail).

use std::time::Duration;

use nao_core::DialectError;
use tonic::Status;
use tonic::codec::Streaming;
use tonic::codegen::http::uri::PathAndQuery;
use tonic::metadata::{AsciiMetadataKey, AsciiMetadataValue, MetadataMap};
use tonic::transport::{Channel, ClientTlsConfig, Endpoint};
use tonic_prost::ProstCodec;

use super::config::SparkConnectConfig;
use super::proto::{
    ExecutePlanRequest, ExecutePlanResponse, INTERRUPT_TYPE_OPERATION_ID, InterruptRequest,
    InterruptResponse, Plan, ReattachExecuteRequest, ReattachOptions, Relation, ReleaseAll,
    ReleaseExecuteRequest, ReleaseExecuteResponse, RequestOption, UserContext, interrupt_request,
    plan, release_execute_request, request_option,
};
use crate::grpc_errors::with_causes;

/// Keep-alive pings on idle connections, so a server or proxy that drops silent connections
/// is noticed before a statement is sent on one.
const KEEP_ALIVE: Duration = Duration::from_secs(30);

/// The service's gRPC paths.
const EXECUTE_PLAN: &str = "/spark.connect.SparkConnectService/ExecutePlan";
const REATTACH_EXECUTE: &str = "/spark.connect.SparkConnectService/ReattachExecute";
const INTERRUPT: &str = "/spark.connect.SparkConnectService/Interrupt";
const RELEASE_EXECUTE: &str = "/spark.connect.SparkConnectService/ReleaseExecute";

/// The channel, the session and what every request carries.
#[derive(Debug)]
pub(super) struct Connection {
    channel: Channel,
    metadata: MetadataMap,
    session_id: String,
    user_context: UserContext,
    client_type: String,
}

impl Connection {
    /// Connects to the server of `config` within its connect timeout. The session is the
    /// config's, or a new random one.
    pub(super) async fn open(
        database: &str,
        config: &SparkConnectConfig,
    ) -> Result<Connection, DialectError> {
        let failed = |message: String| DialectError::Connection {
            database: database.to_owned(),
            message,
            source: None,
        };
        let uri = config.endpoint_uri();
        let mut endpoint = Endpoint::from_shared(uri.clone())
            .map_err(|e| failed(format!("{uri} is not a valid address: {e}")))?
            .connect_timeout(config.connect_timeout)
            .tcp_nodelay(true)
            .http2_keep_alive_interval(KEEP_ALIVE)
            .keep_alive_while_idle(true);
        if config.use_ssl {
            endpoint = endpoint
                .tls_config(ClientTlsConfig::new().with_native_roots())
                .map_err(|e| failed(format!("TLS settings for {uri}: {}", with_causes(&e))))?;
        }
        let channel = match tokio::time::timeout(config.connect_timeout, endpoint.connect()).await {
            Ok(Ok(channel)) => channel,
            Ok(Err(e)) => return Err(failed(format!("cannot reach {uri}: {}", with_causes(&e)))),
            Err(_) => {
                return Err(failed(format!(
                    "the server did not answer within {:?}",
                    config.connect_timeout
                )));
            }
        };
        let mut metadata = MetadataMap::new();
        for (name, value) in &config.headers {
            let invalid = || failed(format!("the header {name:?} cannot be sent as given"));
            let key = AsciiMetadataKey::from_bytes(name.as_bytes()).map_err(|_| invalid())?;
            let value = AsciiMetadataValue::try_from(value.as_str()).map_err(|_| invalid())?;
            metadata.insert(key, value);
        }
        if let Some(token) = &config.token {
            let value = AsciiMetadataValue::try_from(format!("Bearer {token}")).map_err(|_| {
                failed("the token cannot be sent in a header (it must be printable ASCII)".into())
            })?;
            metadata.insert("authorization", value);
        }
        let client_type = match &config.user_agent {
            Some(agent) => format!("{agent} nao-rs/{}", env!("CARGO_PKG_VERSION")),
            None => format!("nao-rs/{}", env!("CARGO_PKG_VERSION")),
        };
        Ok(Connection {
            channel,
            metadata,
            session_id: config.session_id.clone().unwrap_or_else(new_uuid),
            user_context: UserContext {
                user_id: config.user_id.clone(),
                user_name: config.user_id.clone(),
            },
            client_type,
        })
    }

    /// The session every statement runs in.
    pub(super) fn session_id(&self) -> &str {
        &self.session_id
    }

    /// Starts `relation` as operation `operation_id`, reattachable (so that the result ends
    /// with `ResultComplete` and a cut stream can be resumed).
    pub(super) async fn execute_plan(
        &self,
        relation: Relation,
        operation_id: &str,
    ) -> Result<Streaming<ExecutePlanResponse>, Status> {
        let request = ExecutePlanRequest {
            session_id: self.session_id.clone(),
            user_context: Some(self.user_context.clone()),
            plan: Some(Plan {
                op_type: Some(plan::OpType::Root(relation)),
            }),
            client_type: Some(self.client_type.clone()),
            request_options: vec![RequestOption {
                option: Some(request_option::Option::ReattachOptions(ReattachOptions {
                    reattachable: true,
                })),
            }],
            operation_id: Some(operation_id.to_owned()),
            tags: Vec::new(),
        };
        self.server_streaming(request, EXECUTE_PLAN).await
    }

    /// Resumes the responses of `operation_id` after `last_response_id`.
    pub(super) async fn reattach(
        &self,
        operation_id: &str,
        last_response_id: Option<String>,
    ) -> Result<Streaming<ExecutePlanResponse>, Status> {
        let request = ReattachExecuteRequest {
            session_id: self.session_id.clone(),
            user_context: Some(self.user_context.clone()),
            operation_id: operation_id.to_owned(),
            client_type: Some(self.client_type.clone()),
            last_response_id,
        };
        self.server_streaming(request, REATTACH_EXECUTE).await
    }

    /// Interrupts `operation_id`; the ids the server says it interrupted.
    pub(super) async fn interrupt(
        &self,
        operation_id: &str,
        timeout: Duration,
    ) -> Result<Vec<String>, Status> {
        let request = InterruptRequest {
            session_id: self.session_id.clone(),
            user_context: Some(self.user_context.clone()),
            client_type: Some(self.client_type.clone()),
            interrupt_type: INTERRUPT_TYPE_OPERATION_ID,
            interrupt: Some(interrupt_request::Interrupt::OperationId(
                operation_id.to_owned(),
            )),
        };
        let response: InterruptResponse = self.unary(request, INTERRUPT, timeout).await?;
        Ok(response.interrupted_ids)
    }

    /// Tells the server it may drop everything it keeps for `operation_id` (the responses a
    /// reattachable operation holds for a client that might come back).
    pub(super) async fn release(
        &self,
        operation_id: &str,
        timeout: Duration,
    ) -> Result<(), Status> {
        let request = ReleaseExecuteRequest {
            session_id: self.session_id.clone(),
            user_context: Some(self.user_context.clone()),
            operation_id: operation_id.to_owned(),
            client_type: Some(self.client_type.clone()),
            release: Some(release_execute_request::Release::ReleaseAll(ReleaseAll {})),
        };
        let _: ReleaseExecuteResponse = self.unary(request, RELEASE_EXECUTE, timeout).await?;
        Ok(())
    }

    async fn server_streaming<Req>(
        &self,
        message: Req,
        path: &'static str,
    ) -> Result<Streaming<ExecutePlanResponse>, Status>
    where
        Req: prost::Message + Send + Sync + 'static,
    {
        let mut grpc = self.ready().await?;
        let mut request = tonic::Request::new(message);
        *request.metadata_mut() = self.metadata.clone();
        let codec = ProstCodec::<Req, ExecutePlanResponse>::default();
        grpc.server_streaming(request, PathAndQuery::from_static(path), codec)
            .await
            .map(tonic::Response::into_inner)
    }

    async fn unary<Req, Resp>(
        &self,
        message: Req,
        path: &'static str,
        timeout: Duration,
    ) -> Result<Resp, Status>
    where
        Req: prost::Message + Send + Sync + 'static,
        Resp: prost::Message + Default + Send + Sync + 'static,
    {
        let mut grpc = self.ready().await?;
        let mut request = tonic::Request::new(message);
        *request.metadata_mut() = self.metadata.clone();
        request.set_timeout(timeout);
        let codec = ProstCodec::<Req, Resp>::default();
        let call = grpc.unary(request, PathAndQuery::from_static(path), codec);
        match tokio::time::timeout(timeout, call).await {
            Ok(answer) => answer.map(tonic::Response::into_inner),
            Err(_) => Err(Status::deadline_exceeded(format!(
                "no answer within {timeout:?}"
            ))),
        }
    }

    async fn ready(&self) -> Result<tonic::client::Grpc<Channel>, Status> {
        let mut grpc = tonic::client::Grpc::new(self.channel.clone());
        grpc.ready()
            .await
            .map_err(|e| Status::unavailable(format!("the connection is not ready: {e}")))?;
        Ok(grpc)
    }
}

/// A random (version 4) UUID, as Spark wants for session and operation ids.
pub(super) fn new_uuid() -> String {
    let mut bytes = [0_u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // No system randomness: the clock's nanoseconds and a counter still make the id
        // unique within this process, which is all an operation id needs.
        use std::sync::atomic::{AtomicU64, Ordering};
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        bytes[..8].copy_from_slice(&nanos.to_le_bytes());
        bytes[8..].copy_from_slice(&COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    }
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    crate::uuid_text::uuid_text(&bytes)
}

#[cfg(test)]
mod tests {
    use super::super::config::is_uuid;
    use super::*;

    #[test]
    fn operation_ids_are_distinct_version_4_uuids() {
        let a = new_uuid();
        let b = new_uuid();
        assert!(is_uuid(&a) && is_uuid(&b), "{a} {b}");
        assert_ne!(a, b);
        assert_eq!(&a[14..15], "4");
    }
}
