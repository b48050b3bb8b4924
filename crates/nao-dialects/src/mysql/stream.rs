//! Running one statement: a task owns a pooled connection, streams rows into Arrow batches and
//! always ends the read-only transaction with ROLLBACK.
//!
//! - **Start.** `SET SESSION sql_mode = …, <time limit>; START TRANSACTION READ ONLY`, then the
//!   statement through the binary protocol (a prepared statement: one statement, no stacking).
//!   `execute` returns with the first row (or the end of an empty result), so SQL errors and
//!   errors the server raises before any row (its time limit) come back from `execute`, and
//!   the schema (from the result's column definitions) is known even for an empty result.
//! - **Streaming and caps.** Rows become batches of `batch_size` rows, sooner when a batch
//!   reaches an eighth of `max_bytes`, sent through a channel holding one batch; the next batch
//!   starts once the reader has taken the last one, so a slow reader pauses the task and TCP
//!   back-pressure pauses the server. The task stops after `max_rows + 1` rows, or once the
//!   batches it sent pass `max_bytes` (the reader keeps none past it). A row over half of
//!   `max_bytes` is an error naming its largest column (`super::oversize`).
//! - **Stopping.** When the cap is reached, the stream is dropped, the token is cancelled or the
//!   time limit passes, the task sends `KILL QUERY <connection id>` from another pooled
//!   connection, reads what the server still sends (bounded by [`GRACE`]), then rolls back.
//!   A connection whose state is unknown (the drain or the rollback failed), or that read a
//!   row over [`KEEP_BUFFER`], is closed instead of going back to the pool. The server's own limit (`max_statement_time` /
//!   `max_execution_time`) stops the statement even if this process dies.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use futures_util::{FutureExt, StreamExt};
use mysql_async::prelude::Queryable;
use mysql_async::{BinaryProtocol, Conn, Pool, QueryResult, Row};
use nao_core::{BatchStream, DialectError, ExecOptions};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::convert::BatchBuilder;
use super::errors::{self, StopReason};
use super::open::Flavour;
use super::{oversize, types};

/// How long the task waits, after `KILL QUERY`, for the server to end the statement (and for
/// KILL itself) before giving up on the connection.
const GRACE: Duration = Duration::from_secs(5);

/// A connection that read a row larger than this is closed rather than pooled: the driver's
/// read buffers grew to the row's size and would keep it while the connection is idle.
const KEEP_BUFFER: usize = 1 << 20;

/// What the adapter shares with its statement tasks.
pub(super) struct Shared {
    pub(super) name: Arc<str>,
    pub(super) pool: Pool,
    pub(super) flavour: Flavour,
}

/// A message of the statement task: a batch or an error, then the end.
enum Message {
    Item(Result<RecordBatch, DialectError>),
    End,
}

/// What the task needs to run one statement.
struct Job {
    shared: Arc<Shared>,
    sql: String,
    limit: Duration,
    deadline: Instant,
    cancel: CancellationToken,
    max_rows: u64,
    max_bytes: usize,
    batch_size: usize,
    /// The widest row read, in bytes (see [`KEEP_BUFFER`]).
    widest_row: AtomicUsize,
}

impl Job {
    fn database(&self) -> &str {
        &self.shared.name
    }

    fn map(&self, error: mysql_async::Error, stop: Option<StopReason>) -> DialectError {
        errors::from_mysql(self.database(), error, self.limit, stop)
    }

    /// Resolves when the statement must stop: cancelled, out of time, or `closed` (the reader
    /// went away).
    async fn stop(&self, closed: impl Future<Output = ()>) -> StopReason {
        tokio::select! {
            biased;
            () = self.cancel.cancelled() => StopReason::Cancelled,
            () = tokio::time::sleep_until(self.deadline) => StopReason::Timeout(self.limit),
            () = closed => StopReason::Done,
        }
    }
}

/// Whether the connection can go back to the pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Health {
    /// Between statements, inside the read-only transaction: roll back and reuse.
    Clean,
    /// State unknown (a read was abandoned, or the connection failed): close it.
    Dirty,
}

/// How the statement ended, for the reader.
enum Terminal {
    /// Every row was sent, or the reader needs nothing more (cap reached, stream dropped).
    End,
    /// An error the reader should see last.
    Error(DialectError),
    /// The reader already has the error (it went through the schema channel).
    Reported,
}

type SchemaSender = oneshot::Sender<Result<SchemaRef, DialectError>>;

/// Starts `sql` and returns its batches.
pub(super) async fn execute(
    shared: Arc<Shared>,
    sql: String,
    options: &ExecOptions,
) -> Result<BatchStream, DialectError> {
    let database = shared.name.to_string();
    let job = Job {
        shared,
        sql,
        limit: options.timeout,
        deadline: Instant::now() + options.timeout,
        cancel: options.cancel.clone(),
        max_rows: options.max_rows,
        max_bytes: options.max_bytes,
        batch_size: options.batch_size.max(1),
        widest_row: AtomicUsize::new(0),
    };
    let (schema_tx, schema_rx) = oneshot::channel();
    let (batch_tx, batch_rx) = mpsc::channel::<Message>(1);
    tokio::spawn(run(job, schema_tx, batch_tx));
    let schema = match schema_rx.await {
        Ok(Ok(schema)) => schema,
        Ok(Err(e)) => return Err(e),
        Err(_) => return Err(worker_died(&database)),
    };
    let batches = futures_util::stream::unfold(Some(batch_rx), move |rx| {
        let database = database.clone();
        async move {
            let mut rx = rx?;
            match rx.recv().await {
                Some(Message::Item(item)) => Some((item, Some(rx))),
                Some(Message::End) => None,
                // The task ended without saying so: it panicked.
                None => Some((Err(worker_died(&database)), None)),
            }
        }
    });
    Ok(BatchStream::new(schema, batches))
}

fn worker_died(database: &str) -> DialectError {
    DialectError::Engine {
        database: database.to_owned(),
        message: "the MySQL statement task stopped unexpectedly".into(),
        code: None,
        source: None,
    }
}

/// The statement task: get a connection, serve the statement, clean the connection up, then
/// tell the reader how it ended.
async fn run(job: Job, mut schema_tx: SchemaSender, batch_tx: mpsc::Sender<Message>) {
    let got = tokio::select! {
        biased;
        reason = job.stop(schema_tx.closed()) => Err(reason),
        conn = job.shared.pool.get_conn() => Ok(conn),
    };
    let mut conn = match got {
        Ok(Ok(conn)) => conn,
        Ok(Err(e)) => {
            let _ = schema_tx.send(Err(job.map(e, None)));
            return;
        }
        Err(reason) => {
            if let Some(e) = errors::stopped(job.database(), reason) {
                let _ = schema_tx.send(Err(e));
            }
            return;
        }
    };
    let (health, terminal) = serve(&job, &mut conn, schema_tx, &batch_tx).await;
    finish(&job, conn, health).await;
    match terminal {
        Terminal::End => {
            let _ = batch_tx.send(Message::End).await;
        }
        Terminal::Error(e) => {
            if batch_tx.send(Message::Item(Err(e))).await.is_ok() {
                let _ = batch_tx.send(Message::End).await;
            }
        }
        Terminal::Reported => {}
    }
}

/// Ends the transaction and returns the connection to the pool, or closes it.
async fn finish(job: &Job, mut conn: Conn, health: Health) {
    if health == Health::Clean {
        match tokio::time::timeout(GRACE, conn.query_drop("ROLLBACK")).await {
            Ok(Ok(())) if job.widest_row.load(Ordering::Relaxed) <= KEEP_BUFFER => return,
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                tracing::debug!(database = job.database(), error = %e, "ROLLBACK failed; closing the connection")
            }
            Err(_) => tracing::warn!(
                database = job.database(),
                "ROLLBACK timed out; closing the connection"
            ),
        }
    }
    if let Err(e) = tokio::time::timeout(GRACE, conn.disconnect()).await {
        tracing::debug!(database = job.database(), error = %e, "closing a MySQL connection timed out");
    }
}

/// Asks the server to stop the statement running on connection `id`, from another connection.
async fn kill(job: &Job, id: u32) {
    let attempt = async {
        let mut other = job.shared.pool.get_conn().await?;
        other.query_drop(format!("KILL QUERY {id}")).await
    };
    match tokio::time::timeout(GRACE, attempt).await {
        Ok(Ok(())) => {}
        // 1094: the connection has no statement any more (it ended on its own).
        Ok(Err(mysql_async::Error::Server(e))) if e.code == 1094 => {}
        Ok(Err(e)) => {
            tracing::warn!(database = job.database(), connection = id, error = %e, "KILL QUERY failed");
        }
        Err(_) => tracing::warn!(
            database = job.database(),
            connection = id,
            "KILL QUERY timed out"
        ),
    }
}

/// Runs the statement on `conn`; returns the connection's health and the reader's last word.
async fn serve(
    job: &Job,
    conn: &mut Conn,
    mut schema_tx: SchemaSender,
    batch_tx: &mpsc::Sender<Message>,
) -> (Health, Terminal) {
    let id = conn.id();
    let begin = job.shared.flavour.begin(job.limit);
    let began = tokio::select! {
        biased;
        reason = job.stop(schema_tx.closed()) => Err(reason),
        began = conn.query_drop(begin) => Ok(began),
    };
    match began {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            let health = if e.is_fatal() {
                Health::Dirty
            } else {
                Health::Clean
            };
            let _ = schema_tx.send(Err(job.map(e, None)));
            return (health, Terminal::Reported);
        }
        Err(reason) => {
            if let Some(e) = errors::stopped(job.database(), reason) {
                let _ = schema_tx.send(Err(e));
            }
            return (Health::Dirty, Terminal::Reported);
        }
    }

    // Preparing and executing: wait for the columns, or stop the statement.
    let mut stop = None;
    let executed = {
        let exec = conn.exec_iter(job.sql.as_str(), ());
        tokio::pin!(exec);
        let first = tokio::select! {
            biased;
            reason = job.stop(schema_tx.closed()) => Err(reason),
            result = &mut exec => Ok(result),
        };
        match first {
            Ok(result) => Some(result),
            Err(reason) => {
                stop = Some(reason);
                kill(job, id).await;
                tokio::time::timeout(GRACE, &mut exec).await.ok()
            }
        }
    };
    let result = match executed {
        Some(Ok(result)) => result,
        Some(Err(e)) => {
            let health = if e.is_fatal() {
                Health::Dirty
            } else {
                Health::Clean
            };
            let error = match stop {
                Some(reason) => errors::stopped(job.database(), reason),
                None => Some(job.map(e, None)),
            };
            if let Some(error) = error {
                let _ = schema_tx.send(Err(error));
            }
            return (health, Terminal::Reported);
        }
        None => {
            // The server did not answer within the grace period after KILL.
            if let Some(error) = stop.and_then(|r| errors::stopped(job.database(), r)) {
                let _ = schema_tx.send(Err(error));
            }
            return (Health::Dirty, Terminal::Reported);
        }
    };
    stream_rows(job, id, result, stop, schema_tx, batch_tx).await
}

/// Reads the rows of a started statement into batches until the end, the cap or a stop.
async fn stream_rows(
    job: &Job,
    id: u32,
    mut result: QueryResult<'_, 'static, BinaryProtocol>,
    mut stop: Option<StopReason>,
    schema_tx: SchemaSender,
    batch_tx: &mpsc::Sender<Message>,
) -> (Health, Terminal) {
    let columns = result.columns().unwrap_or_else(|| Arc::from(Vec::new()));
    let (schema, kinds) = types::plan(&columns);
    if let Some(reason) = stop {
        // Stopped (and killed) while starting: the server may still send the columns, then
        // the interruption. The reader waits for the schema: tell it why instead.
        let drained = tokio::time::timeout(GRACE, result.drop_result()).await;
        let health = match drained {
            Ok(Ok(())) => Health::Clean,
            Ok(Err(e)) if !e.is_fatal() => Health::Clean,
            _ => Health::Dirty,
        };
        if let Some(error) = errors::stopped(job.database(), reason) {
            let _ = schema_tx.send(Err(error));
        }
        return (health, Terminal::Reported);
    }
    // The schema goes to the reader with the first row (or the end): an error the server
    // raises before any row (its time limit, a value it cannot compute) then comes back from
    // `execute` itself.
    let mut pending_schema = Some(schema_tx);
    let mut rows_stream = match result.stream::<Row>().await {
        Ok(Some(stream)) => stream,
        // A statement without a result set (nothing to read).
        Ok(None) => {
            send_schema(&mut pending_schema, &schema);
            return (Health::Clean, Terminal::End);
        }
        Err(e) => {
            let health = health_after(&e);
            return (health, report(&mut pending_schema, job.map(e, None)));
        }
    };
    let mut builder = BatchBuilder::new(Arc::clone(&schema), kinds, job.batch_size);
    let mut rows: u64 = 0;
    // Arrow bytes of the batches sent, against the byte cap.
    let mut sent: usize = 0;
    let budget = (job.max_bytes / 8).max(1);
    let mut terminal = Terminal::End;
    // Made once, not per row: a timer registered for every row costs more than the row.
    let cancelled = job.cancel.cancelled();
    let deadline = tokio::time::sleep_until(job.deadline);
    tokio::pin!(cancelled, deadline);
    loop {
        // A row the driver already buffered needs no waiting, so no stop check: cancel and the
        // deadline are still checked whenever the driver waits for the server, and at every
        // batch sent.
        let ready = match pending_schema {
            None => rows_stream.next().now_or_never(),
            Some(_) => None,
        };
        let next = match (ready, pending_schema.as_mut()) {
            (Some(row), _) => Ok(row),
            (None, Some(schema_tx)) => tokio::select! {
                biased;
                () = &mut cancelled => Err(StopReason::Cancelled),
                () = &mut deadline => Err(StopReason::Timeout(job.limit)),
                () = schema_tx.closed() => Err(StopReason::Done),
                row = rows_stream.next() => Ok(row),
            },
            (None, None) => tokio::select! {
                biased;
                () = &mut cancelled => Err(StopReason::Cancelled),
                () = &mut deadline => Err(StopReason::Timeout(job.limit)),
                () = batch_tx.closed() => Err(StopReason::Done),
                row = rows_stream.next() => Ok(row),
            },
        };
        let row = match next {
            Err(reason) => {
                stop = Some(reason);
                break;
            }
            Ok(Some(Err(e))) => {
                // The server ended the result with an error: the result is consumed.
                let health = health_after(&e);
                let error = if oversize::is_packet_too_large(&e) {
                    oversize::packet_too_large(job.database(), rows + 1)
                } else {
                    job.map(e, None)
                };
                return (health, report(&mut pending_schema, error));
            }
            Ok(row) => {
                if !send_schema(&mut pending_schema, &schema) {
                    stop = Some(StopReason::Done);
                    break;
                }
                match row {
                    Some(Ok(row)) => row,
                    _ => {
                        if builder.rows() > 0
                            && let Err(reason) = send_batch(job, &mut builder, batch_tx).await
                        {
                            stop = Some(reason);
                            break;
                        }
                        return (Health::Clean, Terminal::End);
                    }
                }
            }
        };
        // Rows the driver already buffered never wait: give other tasks (the caller's clock)
        // a turn.
        tokio::task::consume_budget().await;
        let (size, widest) = oversize::row_size(&row);
        job.widest_row.fetch_max(size, Ordering::Relaxed);
        if size > oversize::row_limit(job.max_bytes) {
            terminal = Terminal::Error(oversize::ADVICE.row_too_large(
                job.database(),
                &schema,
                rows + 1,
                size,
                widest,
                job.max_bytes,
            ));
            stop = Some(StopReason::Done);
            break;
        }
        if let Err(message) = builder.append_row(&row) {
            terminal = Terminal::Error(DialectError::Unsupported {
                database: job.database().to_owned(),
                what: format!(
                    "row {} {message}; CAST the column to a type that fits (CHAR, DECIMAL)",
                    rows + 1
                ),
            });
            stop = Some(StopReason::Done);
            break;
        }
        rows += 1;
        let capped = rows > job.max_rows;
        let full = builder.rows() >= job.batch_size || builder.bytes() >= budget;
        if capped || full {
            match send_batch(job, &mut builder, batch_tx).await {
                Ok(bytes) => sent = sent.saturating_add(bytes),
                Err(reason) => {
                    stop = Some(reason);
                    break;
                }
            }
        }
        // The reader keeps batches up to the byte cap and cuts at the first that passes it:
        // it has that one now.
        if capped || sent > job.max_bytes {
            stop = Some(StopReason::Done);
            break;
        }
    }
    // Stopped early: stop the server too, then read what it still sends.
    let reason = stop.unwrap_or(StopReason::Done);
    kill(job, id).await;
    let drained = tokio::time::timeout(GRACE, async {
        while let Some(item) = rows_stream.next().await {
            if let Err(e) = item {
                return !e.is_fatal();
            }
        }
        true
    })
    .await
    .unwrap_or(false);
    let health = if drained {
        Health::Clean
    } else {
        Health::Dirty
    };
    if let Some(error) = errors::stopped(job.database(), reason) {
        terminal = Terminal::Error(error);
    }
    if let Terminal::Error(error) = terminal {
        terminal = report(&mut pending_schema, error);
    }
    (health, terminal)
}

/// Whether a connection can be reused after `error`.
fn health_after(error: &mysql_async::Error) -> Health {
    if error.is_fatal() {
        Health::Dirty
    } else {
        Health::Clean
    }
}

/// Sends the schema if the reader still waits for it; `false` when the reader went away.
fn send_schema(pending: &mut Option<SchemaSender>, schema: &SchemaRef) -> bool {
    match pending.take() {
        Some(schema_tx) => schema_tx.send(Ok(Arc::clone(schema))).is_ok(),
        None => true,
    }
}

/// Gives `error` to the reader: through the schema channel while `execute` still waits, else
/// as the stream's last item.
fn report(pending: &mut Option<SchemaSender>, error: DialectError) -> Terminal {
    match pending.take() {
        Some(schema_tx) => {
            let _ = schema_tx.send(Err(error));
            Terminal::Reported
        }
        None => Terminal::Error(error),
    }
}

/// Sends the rows built so far, unless the statement must stop first, and waits until the
/// reader has taken them: the Arrow bytes sent.
async fn send_batch(
    job: &Job,
    builder: &mut BatchBuilder,
    batch_tx: &mpsc::Sender<Message>,
) -> Result<usize, StopReason> {
    // A batch that cannot be assembled is an error for the reader, never a silent cut.
    let (item, failed) = match builder.finish() {
        Ok(batch) => (Ok(batch), false),
        Err(message) => (
            Err(DialectError::Engine {
                database: job.database().to_owned(),
                message: format!("could not assemble an Arrow batch: {message}"),
                code: None,
                source: None,
            }),
            true,
        ),
    };
    let bytes = item.as_ref().map_or(0, RecordBatch::get_array_memory_size);
    let sent = send_or_stop(job, batch_tx, item).await;
    if failed {
        return Err(StopReason::Done);
    }
    sent?;
    // The next batch starts once the reader has this one, so while the reader holds what it
    // kept, at most one more batch is being built.
    tokio::select! {
        biased;
        () = job.cancel.cancelled() => Err(StopReason::Cancelled),
        () = tokio::time::sleep_until(job.deadline) => Err(StopReason::Timeout(job.limit)),
        room = batch_tx.reserve() => room.map(|_| bytes).map_err(|_| StopReason::Done),
    }
}

/// Sends `item`, unless the statement must stop first.
async fn send_or_stop(
    job: &Job,
    batch_tx: &mpsc::Sender<Message>,
    item: Result<RecordBatch, DialectError>,
) -> Result<(), StopReason> {
    tokio::select! {
        biased;
        () = job.cancel.cancelled() => Err(StopReason::Cancelled),
        () = tokio::time::sleep_until(job.deadline) => Err(StopReason::Timeout(job.limit)),
        sent = batch_tx.send(Message::Item(item)) => sent.map_err(|_| StopReason::Done),
    }
}
