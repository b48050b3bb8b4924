//! Running one statement: `GetFlightInfo` for the query (prepared first where the server
//! prepares statements), `DoGet` on each endpoint, every batch through the statement pump, and
//! `CancelFlightInfo` when the statement stops early.

use std::sync::Arc;
use std::time::Duration;

use arrow_array::RecordBatch;
use arrow_flight::sql::{CommandStatementQuery, ProstMessageExt};
use arrow_flight::{CancelFlightInfoRequest, FlightDescriptor, FlightEndpoint, FlightInfo};
use arrow_schema::SchemaRef;
use futures_util::stream::{self, BoxStream};
use futures_util::{StreamExt, TryStreamExt};
use nao_core::{BatchStream, DialectError, ExecOptions};
use prost::Message;

use super::connect::Connection;
use super::prepared::Prepared;
use super::{errors, fetch};
use crate::pump::{self, Flow, Producer};

/// How long the best-effort `CancelFlightInfo` may take after a statement stopped early.
const CANCEL_GRACE: Duration = Duration::from_secs(2);

/// Starts `sql` and returns its batches as they arrive.
pub(super) async fn execute(
    connection: Arc<Connection>,
    database: Arc<str>,
    sql: String,
    options: &ExecOptions,
    parallel: usize,
) -> Result<BatchStream, DialectError> {
    let (producer, consumer) = pump::channel(&database, options);
    tokio::spawn(run(connection, database, sql, producer, parallel));
    consumer.stream().await
}

/// How reading the endpoints ended.
enum Outcome {
    /// Every batch was handed over.
    Complete,
    /// The caps were reached: the result is cut, the query may still run on the server.
    Full,
    /// Failed (reported to the reader) or stopped (the reader learns why from the pump).
    Stopped,
}

/// The statement's task: its answer goes to `producer`, and the query is cancelled on the
/// server when it stops before the end. On servers that prepare statements it runs as a
/// prepared statement, closed when the statement is done.
async fn run(
    connection: Arc<Connection>,
    database: Arc<str>,
    sql: String,
    mut producer: Producer,
    parallel: usize,
) {
    // Not raced with the stop signal (a handle created as the race is lost would never be
    // closed): preparing only plans, and the statement's deadline bounds it.
    let prepared = if connection.prepares() {
        match Prepared::create(&connection, &database, &sql, time_left(&producer)).await {
            Ok(prepared) => prepared,
            Err(error) => {
                producer.fail(error).await;
                return;
            }
        }
    } else {
        None
    };
    let descriptor = match &prepared {
        Some(prepared) => prepared.descriptor(),
        None => {
            let command = CommandStatementQuery {
                query: sql,
                transaction_id: None,
            };
            FlightDescriptor::new_cmd(command.as_any().encode_to_vec())
        }
    };
    let announced = prepared.as_ref().and_then(Prepared::schema);
    let planned = Planned {
        descriptor,
        announced,
    };
    run_planned(&connection, &database, planned, producer, parallel).await;
    if let Some(prepared) = prepared {
        prepared.close(&connection).await;
    }
}

/// The time the statement has left.
fn time_left(producer: &Producer) -> Duration {
    producer
        .signal()
        .deadline()
        .saturating_duration_since(tokio::time::Instant::now())
}

/// A statement ready to run.
struct Planned {
    /// What `GetFlightInfo` is asked for.
    descriptor: FlightDescriptor,
    /// The result's schema if known before `GetFlightInfo` (from preparing the statement).
    announced: Option<SchemaRef>,
}

/// Runs a planned statement: `GetFlightInfo`, then its endpoints into `producer`.
async fn run_planned(
    connection: &Connection,
    database: &str,
    planned: Planned,
    mut producer: Producer,
    parallel: usize,
) {
    let Planned {
        descriptor,
        announced,
    } = planned;
    let signal = producer.signal();
    let left = time_left(&producer);
    let info = tokio::select! {
        biased;
        _ = signal.stopped() => return,
        info = connection.flight_info_within(descriptor, left) => info,
    };
    let info = match info {
        Ok(info) => info,
        Err(status) => {
            producer.fail(errors::from_status(database, &status)).await;
            return;
        }
    };
    if producer.check().is_some() {
        // Stopped as the plan arrived: Sail has started the job already and stops it only
        // when its DoGet call goes away, so open each and drop it.
        abandon(connection, &info).await;
        cancel(connection, info).await;
        return;
    }
    let outcome = tokio::select! {
        biased;
        _ = signal.stopped() => Outcome::Stopped,
        outcome = pump_endpoints(connection, database, &info, announced, &mut producer, parallel) => outcome,
    };
    // The DoGet streams are closed by now; the stream ends (at the cap) only after the
    // server was asked to stop, so its end means the statement is done.
    match outcome {
        Outcome::Complete => producer.finish(),
        Outcome::Full => {
            cancel(connection, info).await;
            producer.finish();
        }
        Outcome::Stopped => cancel(connection, info).await,
    }
}

/// Reads every endpoint into the pump: in order when the result is ordered, else up to
/// `parallel` at once. The schema is the one `info` declares, else the one `announced`
/// earlier, else the first batch's.
async fn pump_endpoints(
    connection: &Connection,
    database: &str,
    info: &FlightInfo,
    announced: Option<SchemaRef>,
    producer: &mut Producer,
    parallel: usize,
) -> Outcome {
    let schema = match fetch::declared_schema(database, info) {
        Ok(schema) => schema.or(announced),
        Err(error) => {
            producer.fail(error).await;
            return Outcome::Stopped;
        }
    };
    let endpoints = stream::iter(info.endpoint.iter().cloned())
        .map(|endpoint| endpoint_batches(connection, database, endpoint));
    let mut batches: BoxStream<'_, Result<RecordBatch, DialectError>> = if info.ordered {
        endpoints.flatten().boxed()
    } else {
        endpoints.flatten_unordered(parallel).boxed()
    };
    // Without a declared schema, the first batch's is announced with it.
    let declared = schema.is_some();
    if let Some(schema) = schema
        && producer.schema(schema).await.is_err()
    {
        return Outcome::Stopped;
    }
    let mut any = false;
    while let Some(batch) = batches.next().await {
        let batch = match batch {
            Ok(batch) => batch,
            Err(error) => {
                producer.fail(error).await;
                return Outcome::Stopped;
            }
        };
        any = true;
        match producer.batch(batch).await {
            Ok(Flow::Continue) => {}
            Ok(Flow::Full) => return Outcome::Full,
            Err(_) => return Outcome::Stopped,
        }
    }
    if !declared && !any {
        // No schema in the FlightInfo and no batch: an empty result without columns.
        let empty: SchemaRef = Arc::new(arrow_schema::Schema::empty());
        if producer.schema(empty).await.is_err() {
            return Outcome::Stopped;
        }
    }
    Outcome::Complete
}

/// The batches of one endpoint, read from its location.
fn endpoint_batches<'a>(
    connection: &'a Connection,
    database: &'a str,
    endpoint: FlightEndpoint,
) -> BoxStream<'a, Result<RecordBatch, DialectError>> {
    let opened = async move {
        let Some(ticket) = endpoint.ticket else {
            return Ok(stream::empty().boxed());
        };
        let mut client = connection.client_for(&endpoint.location).await?;
        let batches = client
            .do_get(ticket)
            .await
            .map_err(|e| errors::from_flight(database, e))?;
        Ok::<_, DialectError>(
            batches
                .map_err(move |e| errors::from_flight(database, e))
                .boxed(),
        )
    };
    stream::once(opened).try_flatten().boxed()
}

/// Opens the `DoGet` of every endpoint and closes it at once: how a server that starts a job
/// at `GetFlightInfo` (Sail) learns that nobody will read it.
async fn abandon(connection: &Connection, info: &FlightInfo) {
    for endpoint in &info.endpoint {
        let Some(ticket) = endpoint.ticket.clone() else {
            continue;
        };
        if let Ok(mut client) = connection.client_for(&endpoint.location).await {
            let opened = tokio::time::timeout(CANCEL_GRACE, client.do_get(ticket)).await;
            drop(opened);
        }
    }
}

/// Best effort: asks the server to stop the query of `info` (servers that do not implement
/// `CancelFlightInfo` answer Unimplemented; the closed `DoGet` streams are then all it sees).
async fn cancel(connection: &Connection, info: FlightInfo) {
    let request = CancelFlightInfoRequest::new(info);
    let mut client = connection.client();
    match tokio::time::timeout(CANCEL_GRACE, client.cancel_flight_info(request)).await {
        Ok(Ok(result)) => {
            tracing::debug!(status = ?result.status(), "cancelled a Flight SQL query")
        }
        Ok(Err(error)) => tracing::debug!(%error, "CancelFlightInfo failed"),
        Err(_) => tracing::debug!("CancelFlightInfo did not answer in time"),
    }
}
