//! Statements as prepared statements, on servers that implement them (roapi, Dremio, the
//! DuckDB- and DataFusion-based servers): `CreatePreparedStatement`, then `GetFlightInfo` for
//! the handle, then `ClosePreparedStatement` once the statement is done, however it ended.
//! A server that answers `CreatePreparedStatement` with Unimplemented (Sail 0.7) gets a plain
//! `CommandStatementQuery` then and for every later statement on the connection.

use std::sync::Arc;
use std::time::Duration;

use arrow_flight::sql::{
    ActionClosePreparedStatementRequest, ActionCreatePreparedStatementRequest,
    ActionCreatePreparedStatementResult, Any, CommandPreparedStatementQuery, ProstMessageExt,
};
use arrow_flight::{Action, FlightDescriptor, IpcMessage};
use arrow_schema::{Schema, SchemaRef};
use nao_core::DialectError;
use prost::Message;
use prost::bytes::Bytes;
use tonic::Code;

use super::connect::Connection;
use super::errors;

/// The action names of the Flight SQL specification.
const CREATE: &str = "CreatePreparedStatement";
const CLOSE: &str = "ClosePreparedStatement";

/// How long the best-effort `ClosePreparedStatement` may take.
const CLOSE_GRACE: Duration = Duration::from_secs(2);

/// A statement prepared on the server, to be [closed](Prepared::close).
#[derive(Debug)]
pub(super) struct Prepared {
    handle: Bytes,
    /// The result's schema as the server announced it when preparing, if it did.
    schema: Option<SchemaRef>,
}

impl Prepared {
    /// Prepares `sql` within `timeout`; `None` when the server does not implement prepared
    /// statements (recorded on the connection, so it is asked only once).
    pub(super) async fn create(
        connection: &Connection,
        database: &str,
        sql: &str,
        timeout: Duration,
    ) -> Result<Option<Prepared>, DialectError> {
        let request = ActionCreatePreparedStatementRequest {
            query: sql.to_owned(),
            transaction_id: None,
        };
        let action = Action::new(CREATE, request.as_any().encode_to_vec());
        let body = match connection.action_within(action, timeout).await {
            Ok(body) => body,
            Err(status) if status.code() == Code::Unimplemented => {
                tracing::debug!(
                    database,
                    "the server does not prepare statements; sending them as plain queries"
                );
                connection.cannot_prepare();
                return Ok(None);
            }
            Err(status) => return Err(errors::from_status(database, &status)),
        };
        let result = body
            .as_deref()
            .and_then(|body| Any::decode(body).ok())
            .and_then(|any| any.unpack::<ActionCreatePreparedStatementResult>().ok())
            .flatten()
            .ok_or_else(|| DialectError::Engine {
                database: database.to_owned(),
                message: "the server answered CreatePreparedStatement without a prepared \
                          statement"
                    .to_owned(),
                code: None,
                source: None,
            })?;
        // A schema that does not decode is left out: the FlightInfo or the first batch
        // still gives one.
        let schema = (!result.dataset_schema.is_empty())
            .then(|| Schema::try_from(IpcMessage(result.dataset_schema)).ok())
            .flatten()
            .map(Arc::new);
        Ok(Some(Prepared {
            handle: result.prepared_statement_handle,
            schema,
        }))
    }

    /// The result's schema as the server announced it when preparing (roapi's `FlightInfo`
    /// for the statement declares none, so an empty result keeps its columns only by this).
    pub(super) fn schema(&self) -> Option<SchemaRef> {
        self.schema.clone()
    }

    /// The descriptor that runs the statement.
    pub(super) fn descriptor(&self) -> FlightDescriptor {
        let command = CommandPreparedStatementQuery {
            prepared_statement_handle: self.handle.clone(),
        };
        FlightDescriptor::new_cmd(command.as_any().encode_to_vec())
    }

    /// Best effort: frees the statement on the server (a failure only costs the server memory
    /// until it expires the handle itself).
    pub(super) async fn close(self, connection: &Connection) {
        let request = ActionClosePreparedStatementRequest {
            prepared_statement_handle: self.handle,
        };
        let action = Action::new(CLOSE, request.as_any().encode_to_vec());
        if let Err(status) = connection.action_within(action, CLOSE_GRACE).await {
            tracing::debug!(%status, "ClosePreparedStatement failed");
        }
    }
}
