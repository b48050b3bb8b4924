//! Running one statement: `ExecutePlan` (reattachable) for the relation, every Arrow batch
//! through the statement pump, `ReattachExecute` when the server cuts the stream before
//! `ResultComplete`, and `Interrupt` when the statement stops early.

use std::sync::Arc;
use std::time::Duration;

use arrow_schema::Schema;
use nao_core::{BatchStream, DialectError, ExecOptions};
use tonic::Status;

use super::connect::{Connection, new_uuid};
use super::errors;
use super::ipc;
use super::proto::Relation;
use super::proto::execute_plan_response::ResponseType;
use crate::pump::{self, Flow, Producer};

/// How long each best-effort `Interrupt` or `ReleaseExecute` may take.
const CALL_GRACE: Duration = Duration::from_secs(2);

/// How long an `Interrupt` is repeated for an operation the server has not answered for and
/// does not name yet: a loaded server may register a request seconds after it arrived, and an
/// operation it registers after the last try runs to its end. The pause between tries starts
/// at the first and doubles up to the second.
const INTERRUPT_PATIENCE: Duration = Duration::from_secs(30);
const INTERRUPT_PAUSES: (Duration, Duration) = (Duration::from_millis(100), Duration::from_secs(2));

/// How many times in a row a cut stream is resumed without a new response before giving up.
const MAX_FRUITLESS_REATTACHES: u32 = 3;

/// Starts `relation` and returns its batches as they arrive.
pub(super) async fn execute(
    connection: Arc<Connection>,
    database: Arc<str>,
    relation: Relation,
    options: &ExecOptions,
) -> Result<BatchStream, DialectError> {
    let (producer, consumer) = pump::channel(&database, options);
    tokio::spawn(run(connection, database, relation, producer));
    consumer.stream().await
}

/// How reading the responses ended.
enum Outcome {
    /// `ResultComplete` came: every batch was handed over.
    Complete,
    /// The caps were reached: the result is cut, the query may still run on the server.
    Full,
    /// Stopped (the reader learns why from the pump) before the end.
    Stopped,
    /// The server reported an error (handed to the reader).
    Failed,
}

/// The statement's task: its answer goes to `producer`, and the operation is interrupted on
/// the server when it stops before the end.
async fn run(
    connection: Arc<Connection>,
    database: Arc<str>,
    relation: Relation,
    mut producer: Producer,
) {
    let signal = producer.signal();
    let operation = new_uuid();
    let mut answered = false;
    let outcome = tokio::select! {
        biased;
        _ = signal.stopped() => Outcome::Stopped,
        outcome = read(&connection, &database, relation, &operation, &mut producer, &mut answered) => outcome,
    };
    match outcome {
        Outcome::Complete => {
            producer.finish();
            // The server keeps a reattachable operation's responses until released; nobody
            // waits for that.
            tokio::spawn(async move { release(&connection, &operation).await });
        }
        Outcome::Full => {
            // The stream ends once the server was told to stop, so its end means the
            // statement is done.
            interrupt(&connection, &operation, answered).await;
            producer.finish();
            release(&connection, &operation).await;
        }
        Outcome::Stopped => {
            interrupt(&connection, &operation, answered).await;
            release(&connection, &operation).await;
        }
        Outcome::Failed => release(&connection, &operation).await,
    }
}

/// Reads the operation's responses into the pump until `ResultComplete`, resuming a stream the
/// server ends before it.
async fn read(
    connection: &Connection,
    database: &str,
    relation: Relation,
    operation: &str,
    producer: &mut Producer,
    answered: &mut bool,
) -> Outcome {
    let mut responses = match connection.execute_plan(relation, operation).await {
        Ok(responses) => responses,
        Err(status) => return fail(producer, database, &status).await,
    };
    let mut last_response_id = None;
    let mut schema_sent = false;
    let mut fruitless = 0;
    loop {
        let response = match responses.message().await {
            Ok(Some(response)) => response,
            Ok(None) => {
                // Ended without ResultComplete: the server cut the stream (Apache Spark does
                // after a while; Sail when the operation was interrupted). Resume it; a result
                // that cannot be resumed is an error, never a complete result.
                fruitless += 1;
                if fruitless > MAX_FRUITLESS_REATTACHES {
                    return cut_short(producer, database, "resuming it gave nothing new").await;
                }
                match connection
                    .reattach(operation, last_response_id.clone())
                    .await
                {
                    Ok(resumed) => {
                        responses = resumed;
                        continue;
                    }
                    Err(status) => {
                        let error = errors::from_status(database, &status);
                        let why = format!("resuming it failed: {error}");
                        return cut_short(producer, database, &why).await;
                    }
                }
            }
            Err(status) => return fail(producer, database, &status).await,
        };
        *answered = true;
        if !response.response_id.is_empty() {
            last_response_id = Some(response.response_id);
            fruitless = 0;
        }
        match response.response_type {
            Some(ResponseType::ArrowBatch(arrow)) => {
                let (schema, batches) = match ipc::decode(arrow.data) {
                    Ok(decoded) => decoded,
                    Err(e) => {
                        producer
                            .fail(DialectError::Engine {
                                database: database.to_owned(),
                                message: format!(
                                    "the server sent Arrow data that does not decode: {e}"
                                ),
                                code: None,
                                source: Some(Box::new(e)),
                            })
                            .await;
                        return Outcome::Failed;
                    }
                };
                if !schema_sent && let Some(schema) = schema {
                    if producer.schema(schema).await.is_err() {
                        return Outcome::Stopped;
                    }
                    schema_sent = true;
                }
                for batch in batches {
                    match producer.batch(batch).await {
                        Ok(Flow::Continue) => {}
                        Ok(Flow::Full) => return Outcome::Full,
                        Err(_) => return Outcome::Stopped,
                    }
                }
            }
            Some(ResponseType::ResultComplete(_)) => {
                // A server that sent no batch at all gives a result without columns.
                if !schema_sent && producer.schema(Arc::new(Schema::empty())).await.is_err() {
                    return Outcome::Stopped;
                }
                return Outcome::Complete;
            }
            // Progress reports, metrics, the result's Spark schema: not needed here.
            None => {}
        }
    }
}

/// Hands the server's error to the reader, unless the statement was stopped (then the error
/// is the server's word for the interruption, and the reader hears the stop's reason).
async fn fail(producer: &mut Producer, database: &str, status: &Status) -> Outcome {
    if producer.check().is_some() {
        return Outcome::Stopped;
    }
    producer.fail(errors::from_status(database, status)).await;
    Outcome::Failed
}

/// The stream ended before `ResultComplete` and could not be resumed.
async fn cut_short(producer: &mut Producer, database: &str, why: &str) -> Outcome {
    if producer.check().is_some() {
        return Outcome::Stopped;
    }
    producer
        .fail(DialectError::Engine {
            database: database.to_owned(),
            message: format!(
                "the server ended the result stream before its end (was the operation \
                 interrupted?), and {why}"
            ),
            code: None,
            source: None,
        })
        .await;
    Outcome::Failed
}

/// Best effort: interrupts the operation. Before the server's first answer it may not know the
/// operation yet, so the interrupt is repeated until the server names it, for up to
/// [`INTERRUPT_PATIENCE`]. It runs in the statement's own task: nobody waits for it.
async fn interrupt(connection: &Connection, operation: &str, answered: bool) {
    let deadline = tokio::time::Instant::now() + INTERRUPT_PATIENCE;
    let (mut pause, longest) = INTERRUPT_PAUSES;
    loop {
        match connection.interrupt(operation, CALL_GRACE).await {
            Ok(ids) if ids.iter().any(|id| id == operation) => {
                tracing::debug!(operation, "interrupted a Spark Connect operation");
                return;
            }
            // The server knew the operation and it is over already.
            Ok(_) if answered => return,
            Ok(_) if tokio::time::Instant::now() + pause < deadline => {
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(longest);
            }
            Ok(_) => {
                tracing::warn!(
                    operation,
                    "the Spark Connect server never named the stopped operation when asked to \
                     interrupt it; if it received it late, it may still run"
                );
                return;
            }
            Err(status) => {
                tracing::debug!(operation, %status, "Interrupt failed");
                return;
            }
        }
    }
}

/// Best effort: releases what the server keeps for the operation.
async fn release(connection: &Connection, operation: &str) {
    if let Err(status) = connection.release(operation, CALL_GRACE).await {
        tracing::debug!(operation, %status, "ReleaseExecute failed");
    }
}
