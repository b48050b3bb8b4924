//! Running one statement: a task owns a pooled connection, opens a READ ONLY transaction,
//! prepares the statement, and fetches its rows through a portal in chunks, handing Arrow
//! batches to the crate's [statement pump](crate::pump) (a channel of capacity 1).
//!
//! A watcher (`super::watch`) races every round trip against the pump's stop (the
//! cancellation token, the deadline, a dropped stream); when it fires while the server is
//! working, it sends a real cancel request (a separate connection carrying the backend's key)
//! and the connection is dropped afterwards instead of pooled, since a cancel request could
//! otherwise land on a later statement. Between chunks nothing runs on the server (the portal
//! is suspended), so stopping there, or at a cap, only needs the ROLLBACK. How rows are
//! fetched and batched within the byte cap is `super::fetch`.
//!
//! The caller gets its timeout or cancellation at the deadline or the token, from the pump:
//! the task's cleanup (the cancel request, waiting for the server, dropping the connection)
//! goes on in the background. The stream ends once the connection is back in the pool.

use std::sync::Arc;
use std::time::Duration;

use arrow_schema::{Field, Schema, SchemaRef};
use nao_core::{BatchStream, DialectError, ExecOptions};
use tokio::time::Instant;
use tokio_postgres::{Client, IsolationLevel, Statement, Transaction};

use super::attribute_check::AttributeCheck;
use super::fetch;
use super::pool::{Pool, Pooled};
use super::types::{PgType, text_cast_field, text_cast_sql};
use super::watch::{CANCEL_GRACE, Watch};
use crate::pump::{self, Producer, StopReason, Stopped};

/// What one statement needs in its task besides its producer.
pub(super) struct Job {
    pub(super) database: Arc<str>,
    sql: String,
    /// Attribute references only the catalogue can prove columns.
    attributes: AttributeCheck,
    pub(super) max_bytes: usize,
    pub(super) batch_size: usize,
    pub(super) timeout: Duration,
    /// The pump's deadline, for the pool's own waits.
    pub(super) deadline: Instant,
}

/// Runs `sql` on a pooled connection and streams its batches. Returns once the schema and the
/// first batch (or the end, or the first error) are known, so errors of preparation and of the
/// first rows come back from here.
pub(super) async fn execute(
    pool: Arc<Pool>,
    database: Arc<str>,
    sql: String,
    attributes: AttributeCheck,
    options: &ExecOptions,
) -> Result<BatchStream, DialectError> {
    let (producer, consumer) = pump::channel(&database, options);
    let deadline = producer.signal().deadline();
    let job = Job {
        database: Arc::clone(&database),
        sql,
        attributes,
        max_bytes: options.max_bytes,
        batch_size: options.batch_size.max(1),
        timeout: options.timeout,
        deadline,
    };
    // The pool says so itself when the deadline passes while this caller waits in line.
    let client = tokio::select! {
        biased;
        () = options.cancel.cancelled() => return Err(StopReason::Cancelled.error(&database)),
        client = pool.get_before(deadline) => client?,
    };
    tokio::spawn(run(pool, client, job, producer));
    consumer.stream().await
}

/// How the statement ended, for the connection's fate.
enum End {
    /// Rolled back cleanly: the connection can be pooled.
    Clean,
    /// Unknown state: drop the connection.
    Dirty,
    /// The connection was already closed before anything ran: try again on a new one.
    Retry,
}

/// The task: runs the statement, reports to `producer`, and pools or drops the connection
/// before the stream ends. A pooled connection the server has closed meanwhile (an idle
/// timeout, a restart) is replaced once.
async fn run(pool: Arc<Pool>, mut client: Pooled, job: Job, mut producer: Producer) {
    let mut may_retry = true;
    loop {
        let mut watch = Watch {
            job: &job,
            signal: producer.signal(),
            canceller: pool.canceller(&client),
            wire: Arc::clone(client.wire()),
            stop: None,
            cancel_sent: false,
        };
        let end = statement(&mut client, &mut watch, &mut producer, may_retry).await;
        let reusable = matches!(end, End::Clean) && !watch.cancel_sent;
        if matches!(end, End::Retry) {
            may_retry = false;
            match pool.connect_before(job.deadline).await {
                Ok(fresh) => {
                    client = fresh;
                    continue;
                }
                Err(e) => {
                    producer.fail(e).await;
                    return;
                }
            }
        }
        if reusable {
            // Session-level advisory locks survive a ROLLBACK; release any the statement took.
            let unlocked = tokio::time::timeout(
                CANCEL_GRACE,
                client.batch_execute("SELECT pg_catalog.pg_advisory_unlock_all()"),
            )
            .await;
            if matches!(unlocked, Ok(Ok(()))) {
                pool.put(client);
            }
        }
        // After an error (already reported) this does nothing; a stop is the pump's to report.
        producer.finish();
        return;
    }
}

/// Opens the transaction, runs the statement in it, and rolls it back. With `may_retry`, a
/// connection found closed at BEGIN (no server error, nothing sent) asks for a retry.
async fn statement(
    client: &mut Client,
    watch: &mut Watch<'_>,
    producer: &mut Producer,
    may_retry: bool,
) -> End {
    let job = watch.job;
    let begin = client
        .build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start();
    let txn = match watch.run(begin).await {
        Some(Ok(txn)) => txn,
        Some(Err(e)) => {
            if may_retry && e.as_db_error().is_none() && watch.stop.is_none() {
                tracing::debug!(error = %e, "a pooled PostgreSQL connection was closed; reconnecting");
                return End::Retry;
            }
            producer.fail(watch.pg_error(e)).await;
            return End::Dirty;
        }
        None => {
            producer.fail(watch.abandoned()).await;
            return End::Dirty;
        }
    };
    // The time limit, counted by the server per round trip. The SELECT takes the transaction's
    // snapshot, after which `SET TRANSACTION READ WRITE` is refused; it is also the catalogue's
    // check of the attribute references the guard could not prove columns.
    let millis = job.timeout.as_millis().clamp(1, i32::MAX as u128);
    let setup = format!(
        "SET LOCAL statement_timeout = {millis}; \
         SET LOCAL standard_conforming_strings = on; \
         {}",
        job.attributes.snapshot_query()
    );
    let outcome = match watch.run(txn.simple_query(&setup)).await {
        Some(Ok(messages)) => match job.attributes.verdict(&job.database, &messages) {
            Ok(()) => rows(&txn, watch, producer).await,
            Err(refused) => Err(refused),
        },
        Some(Err(e)) => Err(watch.pg_error(e)),
        None => Err(watch.abandoned()),
    };
    if let Err(error) = outcome {
        producer.fail(error).await;
    }
    if watch.cancel_sent {
        // The transaction's drop queues a ROLLBACK; the connection is dropped anyway.
        return End::Dirty;
    }
    match tokio::time::timeout(CANCEL_GRACE, txn.rollback()).await {
        Ok(Ok(())) => End::Clean,
        _ => End::Dirty,
    }
}

/// Prepares the statement (with a text cast for unmapped types), announces the schema, and
/// streams the rows. `Ok` when it ended normally, at a cap, or because nobody listens.
async fn rows(
    txn: &Transaction<'_>,
    watch: &mut Watch<'_>,
    producer: &mut Producer,
) -> Result<(), DialectError> {
    let (statement, schema, types) = prepare(txn, watch).await?;
    match producer.schema(Arc::clone(&schema)).await {
        Ok(()) => {}
        Err(Stopped::Reason(reason)) => return Err(reason.error(&watch.job.database)),
        Err(_) => return Ok(()),
    }
    let portal = match watch.run(txn.bind(&statement, &[])).await {
        Some(result) => result.map_err(|e| watch.pg_error(e))?,
        None => return Err(watch.abandoned()),
    };
    fetch::read_portal(txn, &portal, watch, producer, &schema, &types).await
}

/// The prepared statement, its schema and its column mappings.
type Prepared = (Statement, SchemaRef, Vec<PgType>);

/// Prepares the statement (the extended protocol takes exactly one), refuses statements that
/// return no rows, and re-prepares it with a text cast when a column's type has no mapping.
async fn prepare(txn: &Transaction<'_>, watch: &mut Watch<'_>) -> Result<Prepared, DialectError> {
    let job = watch.job;
    let statement = match watch.run(txn.prepare(&job.sql)).await {
        Some(result) => result.map_err(|e| watch.pg_error(e))?,
        None => return Err(watch.abandoned()),
    };
    let columns = statement.columns();
    if columns.is_empty() {
        return Err(DialectError::Permission {
            database: job.database.to_string(),
            message: "the statement returns no rows (a command such as SET, COPY, COMMIT or a \
                      utility statement); only queries run here"
                .into(),
            code: None,
        });
    }
    let mapped: Vec<Option<PgType>> = columns
        .iter()
        .map(|c| PgType::of(c.type_(), c.type_modifier()))
        .collect();
    if mapped.iter().all(Option::is_some) {
        let types: Vec<PgType> = mapped.into_iter().flatten().collect();
        let fields: Vec<Field> = columns
            .iter()
            .zip(&types)
            .map(|(c, t)| t.field(c.name()))
            .collect();
        return Ok((statement, Arc::new(Schema::new(fields)), types));
    }
    let names: Vec<&str> = columns.iter().map(|c| c.name()).collect();
    let cast: Vec<bool> = mapped.iter().map(Option::is_none).collect();
    let wrapped = text_cast_sql(&job.sql, &names, &cast);
    let unmapped = columns
        .iter()
        .zip(&cast)
        .find(|(_, cast)| **cast)
        .map(|(c, _)| (c.name().to_owned(), c.type_().name().to_owned()))
        .unwrap_or_default();
    let recast = match watch.run(txn.prepare(&wrapped)).await {
        Some(Ok(recast)) => recast,
        Some(Err(e)) => {
            let (column, type_name) = unmapped;
            return Err(DialectError::Unsupported {
                database: job.database.to_string(),
                what: format!(
                    "column {column:?} has the PostgreSQL type {type_name}, which has no Arrow \
                     mapping, and the statement could not be wrapped to cast it to text ({e}); \
                     cast it in the SQL, as {column}::text"
                ),
            });
        }
        None => return Err(watch.abandoned()),
    };
    let mut types = Vec::with_capacity(columns.len());
    let mut fields = Vec::with_capacity(columns.len());
    for ((original, casted), cast) in columns.iter().zip(recast.columns()).zip(&cast) {
        let Some(ty) = PgType::of(casted.type_(), casted.type_modifier()) else {
            return Err(DialectError::Unsupported {
                database: job.database.to_string(),
                what: format!(
                    "column {:?} has the PostgreSQL type {}, which has no Arrow mapping; cast \
                     it to text in the SQL",
                    original.name(),
                    original.type_().name()
                ),
            });
        };
        fields.push(if *cast {
            text_cast_field(original.name(), original.type_().name())
        } else {
            ty.field(original.name())
        });
        types.push(ty);
    }
    Ok((recast, Arc::new(Schema::new(fields)), types))
}
