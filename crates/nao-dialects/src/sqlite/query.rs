//! One statement on a blocking thread, its rows sent back as Arrow batches through a bounded
//! channel, with the row cap, deadline, cancellation and a dropped receiver all stopping it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::{Field, Schema, SchemaRef};
use futures_util::StreamExt;
use nao_core::{BatchStream, DialectError};
use rusqlite::types::ValueRef;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::convert::{ColumnBuilder, Misfit};
use super::open::{Pool, Slot};
use super::types::Declared;
use super::{errors, limits};

/// SQLite virtual-machine steps between checks of the deadline, the token and the receiver.
const PROGRESS_STEPS: i32 = 1_000;

/// Why the progress handler stopped the statement.
const RUNNING: u8 = 0;
const CANCELLED: u8 = 1;
const TIMED_OUT: u8 = 2;
const RECEIVER_GONE: u8 = 3;

/// What one statement needs on its thread.
#[derive(Debug)]
pub(crate) struct Job {
    /// The database's name, for errors.
    pub(crate) database: String,
    /// The statement.
    pub(crate) sql: String,
    /// Rows to read at most: the cap plus one, so the caller can tell the result was cut.
    pub(crate) row_limit: u64,
    /// Rows per batch.
    pub(crate) batch_size: usize,
    /// The call's byte cap: a batch is sent early once its values reach it, and half of it
    /// is the most one value may take ([`limits::value_limit`]).
    pub(crate) max_bytes: usize,
    /// The time limit, for the error.
    pub(crate) timeout: Duration,
    /// When the statement must stop.
    pub(crate) deadline: Option<Instant>,
    /// The caller's token.
    pub(crate) cancel: CancellationToken,
}

/// What the thread sends: first the schema with the first batch, then batches, or an error.
#[derive(Debug)]
enum Message {
    Start(SchemaRef, Option<RecordBatch>),
    Batch(RecordBatch),
    Failed(DialectError),
}

/// Why reading stopped early.
enum Stop {
    /// The stream was dropped: nobody is listening, nothing to report.
    ReceiverGone,
    Failed(DialectError),
}

impl From<DialectError> for Stop {
    fn from(error: DialectError) -> Self {
        Stop::Failed(error)
    }
}

/// Waits for one of the pool's connections, starts `job` on it on a blocking thread and waits
/// for its schema and first batch, so errors of preparation (syntax, unknown tables, denied
/// writes) come back here, before any stream. The wait for a connection counts against the
/// statement's time limit; a host that queues statements (nao-core's admission control) lets
/// no more run than the pool holds, so none waits here.
pub(crate) async fn execute(pool: &Arc<Pool>, job: Job) -> Result<BatchStream, DialectError> {
    let (tx, mut rx) = mpsc::channel(1);
    let database = job.database.clone();
    let cancel = job.cancel.clone();
    let deadline = job.deadline.map(tokio::time::Instant::from_std);
    let timeout = job.timeout;
    let slot = tokio::select! {
        slot = pool.slot() => slot,
        () = cancel.cancelled() => return Err(DialectError::Cancelled { database }),
        () = sleep_until(deadline) => return Err(DialectError::Timeout { database, limit: timeout }),
    };
    let task = tokio::task::spawn_blocking(move || run(slot, &job, &tx));
    let first = tokio::select! {
        message = rx.recv() => message,
        () = cancel.cancelled() => return Err(DialectError::Cancelled { database }),
        () = sleep_until(deadline) => return Err(DialectError::Timeout { database, limit: timeout }),
    };
    let (schema, first) = match first {
        Some(Message::Start(schema, first)) => (schema, first),
        Some(Message::Failed(error)) => return Err(error),
        Some(Message::Batch(_)) | None => {
            let message = match task.await {
                Err(e) if e.is_panic() => "the SQLite worker panicked".to_owned(),
                _ => "the SQLite worker stopped without a result".to_owned(),
            };
            return Err(DialectError::Engine {
                database,
                message,
                code: None,
                source: None,
            });
        }
    };
    let rest = futures_util::stream::unfold(rx, |mut rx| async move {
        loop {
            match rx.recv().await? {
                Message::Batch(batch) => return Some((Ok(batch), rx)),
                Message::Failed(error) => return Some((Err(error), rx)),
                Message::Start(..) => continue,
            }
        }
    });
    let batches = futures_util::stream::iter(first.map(Ok)).chain(rest);
    Ok(BatchStream::new(schema, batches))
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// The blocking part: takes a connection, watches the statement with a progress handler, reads,
/// and gives the connection back before the final message (so the stream ends only once the
/// connection is free again).
fn run(slot: Slot, job: &Job, tx: &mpsc::Sender<Message>) {
    let mut conn = match slot.connection() {
        Ok(conn) => conn,
        Err(e) => {
            let _ = tx.blocking_send(Message::Failed(errors::dialect_error(&job.database, e)));
            return;
        }
    };
    if let Err(e) = limits::set_value_limit(&conn, job.max_bytes) {
        let _ = tx.blocking_send(Message::Failed(errors::dialect_error(&job.database, e)));
        return;
    }
    let reason = Arc::new(AtomicU8::new(RUNNING));
    let watcher = {
        let (reason, cancel, deadline, tx) =
            (reason.clone(), job.cancel.clone(), job.deadline, tx.clone());
        move || {
            let why = if cancel.is_cancelled() {
                CANCELLED
            } else if deadline.is_some_and(|d| Instant::now() >= d) {
                TIMED_OUT
            } else if tx.is_closed() {
                RECEIVER_GONE
            } else {
                return false;
            };
            reason.store(why, Ordering::Relaxed);
            true
        }
    };
    let outcome = match conn.progress_handler(PROGRESS_STEPS, Some(watcher)) {
        Ok(()) => read(&conn, job, tx, &reason),
        Err(e) => Err(Stop::Failed(errors::dialect_error(&job.database, e))),
    };
    // Dropping the handler drops its sender, so the channel closes when this function returns.
    if conn.progress_handler(0, None::<fn() -> bool>).is_ok() {
        slot.give_back(conn);
    }
    if let Err(Stop::Failed(error)) = outcome {
        let _ = tx.blocking_send(Message::Failed(error));
    }
}

/// One result column: its name, its declared type as written, and how it maps.
struct ColumnPlan {
    name: String,
    decltype: Option<String>,
}

fn read(
    conn: &rusqlite::Connection,
    job: &Job,
    tx: &mpsc::Sender<Message>,
    reason: &AtomicU8,
) -> Result<(), Stop> {
    let database = job.database.as_str();
    let engine_error = |e: rusqlite::Error| -> Stop {
        if errors::is_interrupt(&e) {
            match reason.load(Ordering::Relaxed) {
                CANCELLED => {
                    return Stop::Failed(DialectError::Cancelled {
                        database: database.to_owned(),
                    });
                }
                TIMED_OUT => {
                    return Stop::Failed(DialectError::Timeout {
                        database: database.to_owned(),
                        limit: job.timeout,
                    });
                }
                RECEIVER_GONE => return Stop::ReceiverGone,
                _ => {}
            }
        }
        Stop::Failed(errors::statement_error(database, e, job.max_bytes))
    };
    let mut statement = conn.prepare(&job.sql).map_err(engine_error)?;
    let plans: Vec<ColumnPlan> = statement
        .columns()
        .map(|c| ColumnPlan {
            name: c.name().to_owned(),
            decltype: c.decl_type().map(str::to_owned),
        })
        .collect();
    let batch_size = job.batch_size.max(1);
    let capacity = usize::try_from(job.row_limit)
        .unwrap_or(usize::MAX)
        .min(batch_size);
    let mut builders: Vec<ColumnBuilder> = plans
        .iter()
        .map(|p| ColumnBuilder::new(Declared::from_decltype(p.decltype.as_deref()), capacity))
        .collect();
    let mut schema: Option<SchemaRef> = None;
    let (mut rows_read, mut in_batch, mut batch_bytes) = (0_u64, 0_usize, 0_usize);
    let mut rows = statement.query([]).map_err(engine_error)?;
    while rows_read < job.row_limit {
        let Some(row) = rows.next().map_err(engine_error)? else {
            break;
        };
        rows_read += 1;
        for (i, builder) in builders.iter_mut().enumerate() {
            let value = row.get_ref(i).map_err(engine_error)?;
            batch_bytes += value_size(value);
            builder
                .append(value)
                .map_err(|m| misfit_error(database, &plans[i], rows_read, m))?;
        }
        in_batch += 1;
        if in_batch >= batch_size || batch_bytes >= job.max_bytes {
            let first_row = rows_read + 1 - in_batch as u64;
            let batch = flush(
                database,
                &plans,
                &mut builders,
                &mut schema,
                in_batch,
                first_row,
            )?;
            send(tx, batch)?;
            in_batch = 0;
            batch_bytes = 0;
        }
    }
    drop(rows);
    if schema.is_none() || in_batch > 0 {
        let first_row = rows_read + 1 - in_batch as u64;
        let batch = flush(
            database,
            &plans,
            &mut builders,
            &mut schema,
            in_batch,
            first_row,
        )?;
        send(tx, batch)?;
    }
    Ok(())
}

/// Bytes a value adds to the batch (roughly: its payload plus an offset or slot).
fn value_size(value: ValueRef<'_>) -> usize {
    match value {
        ValueRef::Text(bytes) | ValueRef::Blob(bytes) => bytes.len() + 8,
        _ => 8,
    }
}

/// The batch being built, as the first message (with the schema, fixed now) or a later one.
fn flush(
    database: &str,
    plans: &[ColumnPlan],
    builders: &mut [ColumnBuilder],
    schema: &mut Option<SchemaRef>,
    rows: usize,
    first_row: u64,
) -> Result<Message, Stop> {
    let first = schema.is_none();
    let schema = match schema {
        Some(schema) => schema.clone(),
        None => {
            for (plan, builder) in plans.iter().zip(builders.iter_mut()) {
                builder
                    .resolve()
                    .map_err(|(row, m)| misfit_error(database, plan, first_row + row as u64, m))?;
            }
            let fields: Vec<Field> = plans
                .iter()
                .zip(builders.iter())
                .map(|(plan, b)| Field::new(&plan.name, b.data_type(), true))
                .collect();
            let made = Arc::new(Schema::new(fields));
            *schema = Some(made.clone());
            made
        }
    };
    let columns = builders.iter_mut().map(ColumnBuilder::finish).collect();
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    let batch =
        RecordBatch::try_new_with_options(schema.clone(), columns, &options).map_err(|e| {
            Stop::Failed(DialectError::Engine {
                database: database.to_owned(),
                message: format!("building an Arrow batch failed: {e}"),
                code: None,
                source: Some(Box::new(e)),
            })
        })?;
    Ok(match (first, rows) {
        (true, 0) => Message::Start(schema, None),
        (true, _) => Message::Start(schema, Some(batch)),
        (false, _) => Message::Batch(batch),
    })
}

/// Sends a message, waiting while the consumer is one batch behind; a dropped stream stops the
/// statement.
fn send(tx: &mpsc::Sender<Message>, message: Message) -> Result<(), Stop> {
    tx.blocking_send(message).map_err(|_| Stop::ReceiverGone)
}

/// A value that does not fit its column, as an error naming the column and row and saying
/// what to write instead.
fn misfit_error(database: &str, plan: &ColumnPlan, row: u64, misfit: Misfit) -> Stop {
    let quoted = format!("\"{}\"", plan.name.replace('"', "\"\""));
    let declared = match &plan.decltype {
        Some(decl) => format!("declared {decl}"),
        None => "an expression; its type came from the first rows".to_owned(),
    };
    let advice = misfit.advice.replace("{col}", &quoted);
    Stop::Failed(DialectError::Unsupported {
        database: database.to_owned(),
        what: format!(
            "column {quoted} ({declared}) at row {row} {}. Convert it in the query, e.g. {advice}",
            misfit.problem
        ),
    })
}
