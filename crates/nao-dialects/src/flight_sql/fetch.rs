//! Small answers read whole: the catalogue calls and the server's own information, never a
//! statement of the model's (those stream through the pump, see `stream`).

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_flight::sql::{CommandStatementQuery, ProstMessageExt};
use arrow_flight::{FlightDescriptor, FlightInfo};
use arrow_schema::SchemaRef;
use futures_util::TryStreamExt;
use nao_core::DialectError;
use prost::Message;

use super::connect::Connection;
use super::errors;

/// The most rows of a catalogue answer read; a server with more tables than this lists the
/// first ones (the model narrows with a pattern).
pub(super) const MAX_CATALOG_ROWS: usize = 100_000;

/// A command's answer: the schema the `FlightInfo` declares (if any) and every batch of every
/// endpoint, up to [`MAX_CATALOG_ROWS`] rows.
pub(super) async fn command(
    connection: &Connection,
    database: &str,
    command: impl ProstMessageExt,
) -> Result<(Option<SchemaRef>, Vec<RecordBatch>), DialectError> {
    let descriptor = FlightDescriptor::new_cmd(command.as_any().encode_to_vec());
    let info = connection
        .client()
        .get_flight_info(descriptor)
        .await
        .map_err(|e| errors::from_flight(database, e))?;
    read_all(connection, database, info).await
}

/// A query of the adapter's own (never the model's).
pub(super) async fn query(
    connection: &Connection,
    database: &str,
    sql: &str,
) -> Result<(Option<SchemaRef>, Vec<RecordBatch>), DialectError> {
    let statement = CommandStatementQuery {
        query: sql.to_owned(),
        transaction_id: None,
    };
    command(connection, database, statement).await
}

async fn read_all(
    connection: &Connection,
    database: &str,
    info: FlightInfo,
) -> Result<(Option<SchemaRef>, Vec<RecordBatch>), DialectError> {
    let fail = |e| errors::from_flight(database, e);
    let declared = declared_schema(database, &info)?;
    let mut batches = Vec::new();
    let mut rows = 0;
    for endpoint in &info.endpoint {
        let Some(ticket) = endpoint.ticket.clone() else {
            continue;
        };
        let mut client = connection.client_for(&endpoint.location).await?;
        let mut stream = client.do_get(ticket).await.map_err(fail)?;
        while let Some(batch) = stream.try_next().await.map_err(fail)? {
            rows += batch.num_rows();
            batches.push(batch);
            if rows >= MAX_CATALOG_ROWS {
                return Ok((declared, batches));
            }
        }
    }
    Ok((declared, batches))
}

/// The result's schema as the `FlightInfo` declares it (`None` when it declares none, or one
/// without columns as roapi does for every statement: another source is used).
pub(super) fn declared_schema(
    database: &str,
    info: &FlightInfo,
) -> Result<Option<SchemaRef>, DialectError> {
    if info.schema.is_empty() {
        return Ok(None);
    }
    info.clone()
        .try_decode_schema()
        .map(|schema| (!schema.fields().is_empty()).then(|| Arc::new(schema)))
        .map_err(|e| DialectError::Engine {
            database: database.to_owned(),
            message: format!("the server's result schema does not decode: {e}"),
            code: None,
            source: None,
        })
}
