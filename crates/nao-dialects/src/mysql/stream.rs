//! Running one statement: a task owns a pooled connection, streams rows into Arrow batches and
//! always ends the read-only transaction with ROLLBACK.
//!
//! - **Start.** `SET SESSION sql_mode = …, <time limit>; START TRANSACTION READ ONLY`, then the
//!   statement through the binary protocol (a prepared statement: one statement, no stacking).
//!   `execute` returns with the first row (or the end of an empty result), so SQL errors and
//!   errors the server raises before any row (its time limit) come back from `execute`, and
//!   the schema (from the result's column definitions) is known even for an empty result; the
//!   reader also waits for the first batch, so errors in the first rows come back from
//!   `execute` too.
//! - **Streaming and caps.** Rows become batches of `batch_size` rows, sooner when a batch
//!   reaches an eighth of `max_bytes`, handed to the crate's [statement pump](crate::pump) (a
//!   channel holding one batch); the next batch starts once the reader has taken the last one,
//!   so a slow reader pauses the task and TCP back-pressure pauses the server. The pump stops
//!   the task after `max_rows + 1` rows, or once the batches it sent pass `max_bytes` (the
//!   reader keeps none past it). A row over half of `max_bytes` is an error naming its largest
//!   column (`super::oversize`).
//! - **Stopping.** When a cap is reached, the stream is dropped, the token is cancelled or the
//!   time limit passes (the pump gives the reader its error at once), the task sends
//!   `KILL QUERY <connection id>` from another pooled connection, reads what the server still
//!   sends (bounded by [`GRACE`]), then rolls back.
//!   A connection whose state is unknown (the drain or the rollback failed), or that read a
//!   row over [`KEEP_BUFFER`], is closed instead of going back to the pool. The server's own limit (`max_statement_time` /
//!   `max_execution_time`) stops the statement even if this process dies.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures_util::{FutureExt, StreamExt};
use mysql_async::prelude::Queryable;
use mysql_async::{BinaryProtocol, Conn, Pool, QueryResult, Row};
use nao_core::{BatchStream, DialectError, ExecOptions};

use super::convert::BatchBuilder;
use super::errors;
use super::open::Flavour;
use super::{oversize, types};
use crate::pump::{self, Flow, Producer, StopReason, StopSignal, Stopped};

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

/// What the task needs to run one statement besides its producer.
struct Job {
    shared: Arc<Shared>,
    sql: String,
    limit: Duration,
    /// The statement's stop, from its pump.
    signal: StopSignal,
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
}

/// Why the task stops reading before the end of the result.
#[derive(Debug, Clone, Copy)]
enum Halt {
    /// The pump stopped the statement: cancelled, out of time, or nobody reads.
    Stopped(Stopped),
    /// The reader has all it keeps (a cap), or the task has an error of its own to report.
    Done,
}

impl Halt {
    /// The error the reader gets for it, if any.
    fn error(self, database: &str) -> Option<DialectError> {
        match self {
            Halt::Stopped(stopped) => stopped.reason().map(|reason| reason.error(database)),
            Halt::Done => None,
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
    /// The reader already has the error (it was reported before the schema), or the pump
    /// tells it why the statement stopped.
    Reported,
}

/// Starts `sql` and returns its batches.
pub(super) async fn execute(
    shared: Arc<Shared>,
    sql: String,
    options: &ExecOptions,
) -> Result<BatchStream, DialectError> {
    let (producer, consumer) = pump::channel(&shared.name, options);
    let job = Job {
        shared,
        sql,
        limit: options.timeout,
        signal: producer.signal(),
        max_bytes: options.max_bytes,
        batch_size: options.batch_size.max(1),
        widest_row: AtomicUsize::new(0),
    };
    tokio::spawn(run(job, producer));
    consumer.stream().await
}

/// The statement task: get a connection, serve the statement, clean the connection up, then
/// tell the reader how it ended.
async fn run(job: Job, mut producer: Producer) {
    let got = tokio::select! {
        biased;
        _ = job.signal.stopped() => None,
        conn = job.shared.pool.get_conn() => Some(conn),
    };
    let mut conn = match got {
        Some(Ok(conn)) => conn,
        Some(Err(e)) => return producer.fail(job.map(e, None)).await,
        // The pump tells the reader why.
        None => return,
    };
    let (health, terminal) = serve(&job, &mut conn, &mut producer).await;
    finish(&job, conn, health).await;
    match terminal {
        Terminal::End => producer.finish(),
        Terminal::Error(e) => producer.fail(e).await,
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
async fn serve(job: &Job, conn: &mut Conn, producer: &mut Producer) -> (Health, Terminal) {
    let id = conn.id();
    let begin = job.shared.flavour.begin(job.limit);
    let began = tokio::select! {
        biased;
        stop = job.signal.stopped() => Err(stop),
        began = conn.query_drop(begin) => Ok(began),
    };
    match began {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            let health = health_after(&e);
            producer.fail(job.map(e, None)).await;
            return (health, Terminal::Reported);
        }
        Err(_) => return (Health::Dirty, Terminal::Reported),
    }

    // Preparing and executing: wait for the columns, or stop the statement.
    let mut stop = None;
    let executed = {
        let exec = conn.exec_iter(job.sql.as_str(), ());
        tokio::pin!(exec);
        let first = tokio::select! {
            biased;
            stopped = job.signal.stopped() => Err(stopped),
            result = &mut exec => Ok(result),
        };
        match first {
            Ok(result) => Some(result),
            Err(stopped) => {
                stop = Some(stopped);
                kill(job, id).await;
                tokio::time::timeout(GRACE, &mut exec).await.ok()
            }
        }
    };
    let result = match executed {
        Some(Ok(result)) => result,
        Some(Err(e)) => {
            let health = health_after(&e);
            // Stopped (and killed): the pump tells the reader why.
            if stop.is_none() {
                producer.fail(job.map(e, None)).await;
            }
            return (health, Terminal::Reported);
        }
        // The server did not answer within the grace period after KILL.
        None => return (Health::Dirty, Terminal::Reported),
    };
    stream_rows(job, id, result, stop, producer).await
}

/// Reads the rows of a started statement into batches until the end, a cap or a stop.
async fn stream_rows(
    job: &Job,
    id: u32,
    mut result: QueryResult<'_, 'static, BinaryProtocol>,
    stop: Option<Stopped>,
    producer: &mut Producer,
) -> (Health, Terminal) {
    let columns = result.columns().unwrap_or_else(|| Arc::from(Vec::new()));
    let (schema, kinds) = types::plan(&columns);
    if stop.is_some() {
        // Stopped (and killed) while starting: the server may still send the columns, then
        // the interruption; the pump tells the reader why.
        let drained = tokio::time::timeout(GRACE, result.drop_result()).await;
        let health = match drained {
            Ok(Ok(())) => Health::Clean,
            Ok(Err(e)) if !e.is_fatal() => Health::Clean,
            _ => Health::Dirty,
        };
        return (health, Terminal::Reported);
    }
    // The schema goes to the reader with the first row (or the end): an error the server
    // raises before any row (its time limit, a value it cannot compute) then comes back from
    // `execute` itself.
    let mut pending_schema = true;
    let mut rows_stream = match result.stream::<Row>().await {
        Ok(Some(stream)) => stream,
        // A statement without a result set (nothing to read).
        Ok(None) => {
            let terminal = match producer.schema(Arc::clone(&schema)).await {
                Ok(()) => Terminal::End,
                Err(_) => Terminal::Reported,
            };
            return (Health::Clean, terminal);
        }
        Err(e) => {
            let health = health_after(&e);
            let terminal = report(pending_schema, producer, job.map(e, None)).await;
            return (health, terminal);
        }
    };
    let mut builder = BatchBuilder::new(Arc::clone(&schema), kinds, job.batch_size);
    let mut rows: u64 = 0;
    let row_limit = producer.row_limit();
    let budget = (job.max_bytes / 8).max(1);
    let mut terminal = Terminal::End;
    // Made once, not per row: a timer registered for every row costs more than the row.
    let stopped = job.signal.stopped();
    tokio::pin!(stopped);
    let halt = loop {
        // A row the driver already buffered needs no waiting, so no stop check: cancel and the
        // deadline are still checked whenever the driver waits for the server, and at every
        // batch sent.
        let ready = match pending_schema {
            false => rows_stream.next().now_or_never(),
            true => None,
        };
        let next = match ready {
            Some(row) => Ok(row),
            None => tokio::select! {
                biased;
                stop = &mut stopped => Err(stop),
                row = rows_stream.next() => Ok(row),
            },
        };
        let row = match next {
            Err(stop) => {
                break Halt::Stopped(stop);
            }
            Ok(Some(Err(e))) => {
                // The server ended the result with an error: the result is consumed.
                let health = health_after(&e);
                let error = if oversize::is_packet_too_large(&e) {
                    oversize::packet_too_large(job.database(), rows + 1)
                } else {
                    job.map(e, None)
                };
                return (health, report(pending_schema, producer, error).await);
            }
            Ok(row) => {
                if pending_schema {
                    pending_schema = false;
                    if let Err(stop) = producer.schema(Arc::clone(&schema)).await {
                        break Halt::Stopped(stop);
                    }
                }
                match row {
                    Some(Ok(row)) => row,
                    _ => {
                        // The end of the result: a cap reached by the last batch changes
                        // nothing.
                        if builder.rows() > 0
                            && let Err(stop) = send_batch(job, &mut builder, producer).await
                        {
                            break stop;
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
            break Halt::Done;
        }
        if let Err(message) = builder.append_row(&row) {
            terminal = Terminal::Error(DialectError::Unsupported {
                database: job.database().to_owned(),
                what: format!(
                    "row {} {message}; CAST the column to a type that fits (CHAR, DECIMAL)",
                    rows + 1
                ),
            });
            break Halt::Done;
        }
        rows += 1;
        let full = builder.rows() >= job.batch_size || builder.bytes() >= budget;
        if rows >= row_limit || full {
            // The pump says when the reader has all it keeps (the row cap plus one, or batches
            // past the byte cap).
            match send_batch(job, &mut builder, producer).await {
                Ok(Flow::Continue) => {}
                Ok(Flow::Full) => break Halt::Done,
                Err(stop) => break stop,
            }
        }
    };
    // Stopped early: stop the server too, then read what it still sends.
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
    if let Some(error) = halt.error(job.database()) {
        terminal = Terminal::Error(error);
    }
    if let Terminal::Error(error) = terminal {
        terminal = report(pending_schema, producer, error).await;
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

/// Gives `error` to the reader at once while `execute` still waits for the schema, else as
/// the stream's last item (after the connection's cleanup).
async fn report(pending_schema: bool, producer: &mut Producer, error: DialectError) -> Terminal {
    if pending_schema {
        producer.fail(error).await;
        Terminal::Reported
    } else {
        Terminal::Error(error)
    }
}

/// Hands the rows built so far to the pump, then, unless the reader has all it keeps, waits
/// until it has taken them; `Err` when the task must stop reading.
async fn send_batch(
    job: &Job,
    builder: &mut BatchBuilder,
    producer: &mut Producer,
) -> Result<Flow, Halt> {
    // A batch that cannot be assembled is an error for the reader, never a silent cut.
    let batch = match builder.finish() {
        Ok(batch) => batch,
        Err(message) => {
            producer
                .fail(DialectError::Engine {
                    database: job.database().to_owned(),
                    message: format!("could not assemble an Arrow batch: {message}"),
                    code: None,
                    source: None,
                })
                .await;
            return Err(Halt::Done);
        }
    };
    match producer.batch(batch).await {
        Ok(Flow::Continue) => {}
        Ok(Flow::Full) => return Ok(Flow::Full),
        Err(stop) => return Err(Halt::Stopped(stop)),
    }
    // The next batch starts once the reader has this one, so while the reader holds what it
    // kept, at most one more batch is being built.
    producer.room().await.map_err(Halt::Stopped)?;
    Ok(Flow::Continue)
}
