//! Running one statement: a task owns a pooled connection, opens a READ ONLY transaction,
//! prepares the statement, and fetches its rows through a portal in chunks, sending Arrow
//! batches through a channel of capacity 1.
//!
//! A watcher (`super::watch`) races every round trip against the cancellation token, the
//! deadline and a dropped receiver; when one of them fires while the server is working, it
//! sends a real cancel request (a separate connection carrying the backend's key) and the
//! connection is dropped afterwards instead of pooled, since a cancel request could otherwise
//! land on a later statement. Between chunks nothing runs on the server (the portal is
//! suspended), so stopping there, or at a cap, only needs the ROLLBACK. How rows are fetched
//! and batched within the byte cap is `super::fetch`.
//!
//! The caller gets its timeout or cancellation at the deadline or the token, from the stream
//! itself: the task's cleanup (the cancel request, waiting for the server, dropping the
//! connection) goes on in the background.

use std::sync::Arc;
use std::time::Duration;

use arrow_array::RecordBatch;
use arrow_schema::{Field, Schema, SchemaRef};
use futures_util::StreamExt;
use nao_core::{BatchStream, DialectError, ExecOptions};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_postgres::{Client, IsolationLevel, Statement, Transaction};
use tokio_util::sync::CancellationToken;

use super::attribute_check::AttributeCheck;
use super::errors::{self, StopReason};
use super::fetch;
use super::pool::{Pool, Pooled};
use super::types::{PgType, text_cast_field, text_cast_sql};
use super::watch::{CANCEL_GRACE, Watch};

/// What the task sends to the stream.
#[derive(Debug)]
pub(super) enum Message {
    Start(SchemaRef),
    Batch(RecordBatch),
    Failed(DialectError),
}

/// What one statement needs in its task.
pub(super) struct Job {
    pub(super) database: Arc<str>,
    sql: String,
    /// Attribute references only the catalogue can prove columns.
    attributes: AttributeCheck,
    pub(super) max_rows: u64,
    pub(super) max_bytes: usize,
    pub(super) batch_size: usize,
    pub(super) timeout: Duration,
    pub(super) deadline: Instant,
    pub(super) cancel: CancellationToken,
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
    let deadline = Instant::now() + options.timeout;
    let job = Job {
        database: Arc::clone(&database),
        sql,
        attributes,
        max_rows: options.max_rows,
        max_bytes: options.max_bytes,
        batch_size: options.batch_size.max(1),
        timeout: options.timeout,
        deadline,
        cancel: options.cancel.clone(),
    };
    let stopped = |reason| Err(errors::stopped(&database, reason));
    // The pool says so itself when the deadline passes while this caller waits in line.
    let client = tokio::select! {
        biased;
        () = options.cancel.cancelled() => return stopped(StopReason::Cancelled),
        client = pool.get_before(deadline) => client?,
    };
    let (tx, mut rx) = mpsc::channel(1);
    tokio::spawn(run(pool, client, job, tx));
    // The schema, then the first batch (or the end, or an error).
    let schema = match next_message(&mut rx, options, deadline).await {
        Err(reason) => return stopped(reason),
        Ok(Some(Message::Start(schema))) => schema,
        Ok(Some(Message::Failed(e))) => return Err(e),
        Ok(_) => return Err(worker_stopped(&database)),
    };
    let head = match next_message(&mut rx, options, deadline).await {
        Err(reason) => return stopped(reason),
        Ok(Some(Message::Batch(batch))) => Some(batch),
        Ok(Some(Message::Failed(e))) => return Err(e),
        Ok(None) => None,
        Ok(Some(Message::Start(_))) => return Err(worker_stopped(&database)),
    };
    let cancel = options.cancel.clone();
    let limit = options.timeout;
    let rest = futures_util::stream::unfold(Some(rx), move |rx| {
        let cancel = cancel.clone();
        let database = Arc::clone(&database);
        async move {
            let mut rx = rx?;
            // A batch already sent wins; otherwise the caller's clock and token, not the task
            // (which may still be waiting for the server after its cancel request).
            let message = tokio::select! {
                biased;
                message = rx.recv() => message?,
                () = cancel.cancelled() => {
                    return Some((Err(errors::stopped(&database, StopReason::Cancelled)), None));
                }
                () = tokio::time::sleep_until(deadline) => {
                    let timeout = errors::stopped(&database, StopReason::Timeout(limit));
                    return Some((Err(timeout), None));
                }
            };
            match message {
                Message::Batch(batch) => Some((Ok(batch), Some(rx))),
                Message::Failed(e) => Some((Err(e), Some(rx))),
                Message::Start(_) => None,
            }
        }
    });
    let batches = futures_util::stream::iter(head.map(Ok)).chain(rest);
    Ok(BatchStream::new(schema, batches))
}

/// The task's next message, unless the caller cancels or the deadline passes first.
async fn next_message(
    rx: &mut mpsc::Receiver<Message>,
    options: &ExecOptions,
    deadline: Instant,
) -> Result<Option<Message>, StopReason> {
    tokio::select! {
        biased;
        () = options.cancel.cancelled() => Err(StopReason::Cancelled),
        () = tokio::time::sleep_until(deadline) => Err(StopReason::Timeout(options.timeout)),
        message = rx.recv() => Ok(message),
    }
}

fn worker_stopped(database: &str) -> DialectError {
    DialectError::Engine {
        database: database.to_owned(),
        message: "the PostgreSQL worker stopped before the statement started".into(),
        code: None,
        source: None,
    }
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

/// The task: runs the statement, reports to `tx`, and pools or drops the connection. A pooled
/// connection the server has closed meanwhile (an idle timeout, a restart) is replaced once.
async fn run(pool: Arc<Pool>, mut client: Pooled, job: Job, tx: mpsc::Sender<Message>) {
    let mut may_retry = true;
    loop {
        let mut watch = Watch {
            job: &job,
            tx: &tx,
            canceller: pool.canceller(&client),
            wire: Arc::clone(client.wire()),
            stop: None,
            cancel_sent: false,
        };
        let end = statement(&mut client, &mut watch, may_retry).await;
        let reusable = matches!(end, End::Clean) && !watch.cancel_sent;
        if matches!(end, End::Retry) {
            may_retry = false;
            match pool.connect_before(job.deadline).await {
                Ok(fresh) => {
                    client = fresh;
                    continue;
                }
                Err(e) => {
                    fail(&tx, e).await;
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
        return;
    }
}

/// Sends `error` unless nobody listens.
async fn fail(tx: &mpsc::Sender<Message>, error: DialectError) {
    let _ = tx.send(Message::Failed(error)).await;
}

/// Opens the transaction, runs the statement in it, and rolls it back. With `may_retry`, a
/// connection found closed at BEGIN (no server error, nothing sent) asks for a retry.
async fn statement(client: &mut Client, watch: &mut Watch<'_>, may_retry: bool) -> End {
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
            let error = watch.pg_error(e);
            fail(watch.tx, error).await;
            return End::Dirty;
        }
        None => {
            fail(watch.tx, watch.abandoned()).await;
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
            Ok(()) => rows(&txn, watch).await,
            Err(refused) => Err(refused),
        },
        Some(Err(e)) => Err(watch.pg_error(e)),
        None => Err(watch.abandoned()),
    };
    if let Err(error) = outcome {
        fail(watch.tx, error).await;
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
/// streams the rows. `Ok` when it ended normally, at the cap, or because nobody listens.
async fn rows(txn: &Transaction<'_>, watch: &mut Watch<'_>) -> Result<(), DialectError> {
    let Some((statement, schema, types)) = prepare(txn, watch).await? else {
        return Ok(());
    };
    if watch
        .tx
        .send(Message::Start(Arc::clone(&schema)))
        .await
        .is_err()
    {
        return Ok(());
    }
    let portal = match watch.run(txn.bind(&statement, &[])).await {
        Some(result) => result.map_err(|e| watch.pg_error(e))?,
        None => return Err(watch.abandoned()),
    };
    fetch::read_portal(txn, &portal, watch, &schema, &types).await
}

/// The prepared statement, its schema and its column mappings; `None` when nobody listens any
/// more.
type Prepared = Option<(Statement, SchemaRef, Vec<PgType>)>;

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
        return Ok(Some((statement, Arc::new(Schema::new(fields)), types)));
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
    Ok(Some((recast, Arc::new(Schema::new(fields)), types)))
}
