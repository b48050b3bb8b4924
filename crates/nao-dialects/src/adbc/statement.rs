//! One statement: on a blocking thread (ADBC calls block), its driver's Arrow stream handed to
//! the [statement pump](crate::pump) batch by batch, unconverted; a watcher task cancels it
//! through `AdbcStatementCancel` from another thread when the pump says stop.

use std::sync::{Arc, Mutex, PoisonError};

use adbc_core::error::Error;
use adbc_core::{CancelHandle, Connection as _, Statement as _};
use adbc_driver_manager::ManagedConnection;
use arrow_array::RecordBatchReader;
use nao_core::{BatchStream, DialectError, ExecOptions};

use super::errors::ErrorContext;
use super::pool::{Lease, Pool};
use super::secrets::Secrets;
use crate::pump::{self, Flow, Producer};

/// The cancel handle of the running statement, shared with the watcher; `None` once the
/// statement is over, so a late stop never cancels the connection's next statement.
type Running = Arc<Mutex<Option<Box<dyn CancelHandle>>>>;

/// What a statement needs besides its SQL.
pub(super) struct Job {
    pub(super) database: Arc<str>,
    pub(super) secrets: Secrets,
    pub(super) sql: String,
}

/// Waits for a connection slot (within the statement's time limit), starts the statement on a
/// blocking thread and returns once its schema and first batch (or its error) are in.
pub(super) async fn execute(
    pool: &Arc<Pool>,
    job: Job,
    options: &ExecOptions,
) -> Result<BatchStream, DialectError> {
    let (producer, consumer) = pump::channel(&job.database, options);
    let lease = consumer.unless_stopped(pool.lease()).await?;
    let running: Running = Arc::new(Mutex::new(None));
    let signal = producer.signal();
    let watched = Arc::clone(&running);
    let watcher = tokio::spawn(async move {
        signal.stopped().await;
        cancel(&watched);
    });
    tokio::task::spawn_blocking(move || {
        run(&lease, &job, producer, &running);
        watcher.abort();
    });
    consumer.stream().await
}

/// Asks the driver to cancel the running statement, if one runs (best effort: a driver
/// without cancellation answers NotImplemented, and the statement stops at its next batch).
fn cancel(running: &Running) {
    if let Some(handle) = running
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_ref()
        && let Err(error) = handle.try_cancel()
    {
        tracing::debug!(status = ?error.status, "the ADBC driver did not cancel the statement");
    }
}

/// Why the statement ended early.
enum Ended {
    /// The pump stopped it, or the caps were reached: the producer knows.
    Stopped,
    /// An error to report, and whether the connection is still good.
    Failed(DialectError, bool),
}

/// The blocking part: takes a connection, runs, reads, gives the connection back before the
/// stream ends.
fn run(lease: &Lease, job: &Job, mut producer: Producer, running: &Running) {
    let context = ErrorContext {
        database: &job.database,
        secrets: &job.secrets,
    };
    let mut connection = match lease.connection() {
        Ok(connection) => connection,
        Err(error) => {
            producer.blocking_fail(context.connection("opening a connection", &error));
            return;
        }
    };
    let outcome = read(&mut connection, job, &mut producer, running, context);
    // The statement is over: no stop may cancel what runs on this connection next.
    running
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take();
    match outcome {
        Ok(()) => {
            lease.give_back(connection);
            producer.finish();
        }
        Err(Ended::Stopped) => {
            lease.give_back(connection);
            // Full (the caps) finishes the result; a stop has already told the reader.
            if producer.check().is_none() {
                producer.finish();
            }
        }
        Err(Ended::Failed(error, healthy)) => {
            if healthy {
                lease.give_back(connection);
            }
            producer.blocking_fail(error);
        }
    }
}

fn read(
    connection: &mut ManagedConnection,
    job: &Job,
    producer: &mut Producer,
    running: &Running,
    context: ErrorContext<'_>,
) -> Result<(), Ended> {
    let failed = |error: &Error, producer: &Producer| -> Ended {
        // A statement the watcher cancelled fails with the driver's "cancelled": the pump
        // tells the reader why.
        if producer.check().is_some() {
            return Ended::Stopped;
        }
        let error = context.adbc(error);
        let healthy = !matches!(error, DialectError::Connection { .. });
        Ended::Failed(error, healthy)
    };
    let mut statement = connection
        .new_statement()
        .map_err(|e| failed(&e, producer))?;
    statement
        .set_sql_query(&job.sql)
        .map_err(|e| failed(&e, producer))?;
    *running.lock().unwrap_or_else(PoisonError::into_inner) = Some(statement.get_cancel_handle());
    if producer.check().is_some() {
        return Err(Ended::Stopped);
    }
    let mut reader = statement.execute().map_err(|e| failed(&e, producer))?;
    if producer.blocking_schema(reader.schema()).is_err() {
        cancel(running);
        return Err(Ended::Stopped);
    }
    loop {
        let Some(next) = reader.next() else {
            return Ok(());
        };
        let batch = match next {
            Ok(batch) => batch,
            Err(_) if producer.check().is_some() => return Err(Ended::Stopped),
            Err(error) => {
                let error = context.stream(&error);
                let healthy = !matches!(error, DialectError::Connection { .. });
                return Err(Ended::Failed(error, healthy));
            }
        };
        match producer.blocking_batch(batch) {
            Ok(Flow::Continue) => {}
            Ok(Flow::Full) | Err(_) => {
                // Stop the server's work before the stream is released: a driver whose
                // release drains the rest (PostgreSQL's COPY) then drains little.
                cancel(running);
                drop(reader);
                return Err(Ended::Stopped);
            }
        }
    }
}
