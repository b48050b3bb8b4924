//! Running one statement: a worker thread streams Arrow batches to the caller through the
//! crate's [statement pump](crate::pump).
//!
//! - **Start.** The worker prepares and starts the statement (DuckDB's streaming execution)
//!   and hands over the Arrow schema, then the first batch, before `execute` returns, so
//!   syntax and unknown-object errors, and errors in the first chunk, come back from
//!   `execute` itself, and an empty result keeps its columns.
//! - **Streaming and caps.** Batches go through the pump's channel of capacity 1, so DuckDB
//!   computes at most a batch or two ahead of the reader. The pump stops the worker after
//!   `max_rows + 1` rows (one row past the cap tells a cut result from one that fits; the
//!   chunk that crosses it is cut there) or once the batches sent pass `max_bytes`, and as
//!   soon as the stream is dropped; dropping the statement ends DuckDB's work on it.
//! - **Interrupts.** A watcher task waits for the pump's stop (the cancellation token, the
//!   deadline counted from the call, a dropped stream) or a full spill directory, and calls
//!   the connection's interrupt handle, again every [`REINTERRUPT`] until the worker ends: an
//!   interrupt that lands between two steps of the worker would otherwise be lost; the worker
//!   shuts the handle before it drops the connection, so no interrupt reaches a connection
//!   being freed. The worker also checks between batches. DuckDB's "Interrupted" error then
//!   becomes `Cancelled`, `Timeout` or the spill quota's `ResourceLimit`. The reader waits up
//!   to [`ABANDON_AFTER`]
//!   past a cancellation or the deadline for the worker's own word (the pump's grace); should
//!   DuckDB not honour the interrupt by then, the reader gets `Cancelled` or `Timeout` anyway,
//!   and the watcher keeps interrupting the detached worker while the runtime lives.
//! - **Statement threads, not the runtime's.** Run on tokio's blocking pool, DuckDB 1.5.6
//!   ignored every interrupt of a recursive CTE about once in 30 runs of the sql_tools test on
//!   a loaded machine, and the runtime's shutdown then waited for it forever (it waits for
//!   every blocking task). Statements run on [statement threads](super::threads) instead: one
//!   statement at a time each, a thread kept waiting for the next statement once its own ends
//!   (ending and starting a thread per statement cost about 0.4 ms a call, mostly DuckDB's
//!   allocator tearing down and refilling its per-thread cache) unless the statement ran for
//!   [`KEEP_THREAD_BELOW`] or more (ending the thread gives its memory back), a new thread
//!   whenever none waits, so a statement never waits for another and a runaway one holds only
//!   its own. (The interrupts are per connection, and each statement still gets a fresh one:
//!   350 runs of the sql_tools test on reused threads, on a loaded machine, all stopped in time.)
//! - **Panic containment.** The duckdb crate's Arrow iterator panics when fetching or
//!   converting a chunk fails (a cast error at row 10,000 of a model's query). The worker uses
//!   the fallible `Statement::step` instead, and still runs each fetch and conversion inside
//!   `catch_unwind`, so a panic in the driver becomes a `DialectError`, never the caller's.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use arrow_array::{Array, RecordBatch, StructArray};
use arrow_schema::SchemaRef;
use duckdb::Connection;
use duckdb::core::{LogicalTypeHandle, LogicalTypeId};
use nao_core::{BatchStream, DialectError, ExecOptions};
use tokio_util::sync::CancellationToken;

use super::errors::{self, Interrupt};
use super::host_paths::HostPaths;
use super::threads::{Reuse, StatementThreads};
use crate::pump::{self, Flow, Producer, StopSignal};

/// How often the watcher repeats its interrupt until the worker has stopped.
const REINTERRUPT: Duration = Duration::from_millis(50);

/// How often the watcher measures the spill directory. DuckDB 1.5.6 does not hold
/// `max_temp_directory_size` (a hash aggregate wrote 289 MB under a 1 MiB limit), so the
/// watcher enforces it: a statement overshoots by what DuckDB writes in this time at most.
const SPILL_CHECK: Duration = Duration::from_millis(50);

/// How long past the deadline or the cancellation the reader still waits for the worker.
const ABANDON_AFTER: Duration = Duration::from_secs(2);

/// A statement that ran this long ends its thread rather than keep it for the next one: it may
/// have left much memory in DuckDB's allocator, which returns a thread's memory when the
/// thread ends (see [`super::threads`]), and a new thread (about 0.4 ms) costs it under 1%.
const KEEP_THREAD_BELOW: Duration = Duration::from_millis(50);

/// What the worker needs besides the connection and its producer.
struct Job {
    database: Arc<str>,
    host_paths: Arc<HostPaths>,
    sql: String,
    /// The statement comes without the guard's reading (the escape hatch): DuckDB's own
    /// reading must find one query ([`super::engine_verdict`]).
    unchecked: bool,
    /// Set by the watcher when the spill directory outgrew its quota (the quota, in bytes).
    spill_full: Arc<OnceLock<u64>>,
}

impl Job {
    /// Why the statement was interrupted, if it was: the spill quota, or the pump's reason.
    fn interrupt(&self, producer: &Producer) -> Option<Interrupt> {
        match self.spill_full.get() {
            Some(max_bytes) => Some(Interrupt::SpillFull(*max_bytes)),
            None => producer.stop_reason().map(Interrupt::Stopped),
        }
    }
}

/// The statement connection's interrupt handle, made safe to call while the connection closes.
///
/// The duckdb crate frees the connection before it clears the handle's pointer, so an
/// interrupt that lands in between uses a freed connection (a SIGSEGV, seen once the watcher
/// also interrupted statements whose stream was dropped, which often happens just as they
/// end). The worker marks the handle closed before it drops the connection; an interrupt
/// already running finishes first.
struct Interrupter {
    handle: Arc<duckdb::InterruptHandle>,
    closed: Mutex<bool>,
}

impl Interrupter {
    fn new(connection: &Connection) -> Self {
        Interrupter {
            handle: connection.interrupt_handle(),
            closed: Mutex::new(false),
        }
    }

    fn closed(&self) -> std::sync::MutexGuard<'_, bool> {
        self.closed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Interrupts the running statement, unless the connection is closing.
    fn interrupt(&self) {
        let closed = self.closed();
        if !*closed {
            self.handle.interrupt();
        }
    }

    /// No interrupt runs once this returns: the connection may be dropped.
    fn close(&self) {
        *self.closed() = true;
    }
}

/// The database's spill directory and the most it may hold.
#[derive(Debug, Clone)]
pub(super) struct SpillQuota {
    /// The directory DuckDB spills into.
    pub(super) dir: PathBuf,
    /// The most bytes it may hold.
    pub(super) max_bytes: u64,
}

impl SpillQuota {
    /// The bytes the directory holds now (its files; DuckDB does not nest directories).
    fn used(&self) -> u64 {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return 0;
        };
        entries
            .filter_map(|entry| entry.ok()?.metadata().ok())
            .filter(std::fs::Metadata::is_file)
            .map(|metadata| metadata.len())
            .sum()
    }

    /// Resolves with the quota once the directory holds more (measured every
    /// [`SPILL_CHECK`]); never without a quota.
    async fn exceeded(quota: Option<SpillQuota>) -> u64 {
        let Some(quota) = quota else {
            return std::future::pending().await;
        };
        let mut ticks = tokio::time::interval(SPILL_CHECK);
        loop {
            ticks.tick().await;
            let measured = quota.clone();
            let full = tokio::task::spawn_blocking(move || measured.used() > measured.max_bytes)
                .await
                .unwrap_or(false);
            if full {
                return quota.max_bytes;
            }
        }
    }
}

/// Runs `sql` on `connection` (owned by this statement alone) and streams its batches; every
/// error leaves with `host_paths` scrubbed from its message. With a `spill` quota the
/// statement is stopped when the spill directory outgrows it. An `unchecked` statement (one
/// without the guard's reading) runs only when DuckDB reads it as one query.
pub(super) async fn execute(
    database: Arc<str>,
    host_paths: Arc<HostPaths>,
    connection: Connection,
    sql: String,
    unchecked: bool,
    options: &ExecOptions,
    spill: Option<SpillQuota>,
) -> Result<BatchStream, DialectError> {
    let (producer, consumer) = pump::channel(&database, options);
    let spill_full = Arc::new(OnceLock::new());
    let done = CancellationToken::new();
    let interrupter = Arc::new(Interrupter::new(&connection));
    tokio::spawn(watch(
        Arc::clone(&interrupter),
        producer.signal(),
        spill,
        Arc::clone(&spill_full),
        done.clone(),
    ));
    // Whatever way the statement ends (or should its thread not start), the watcher stops.
    let stop_watching = done.drop_guard();
    let job = Job {
        database: Arc::clone(&database),
        host_paths,
        sql,
        unchecked,
        spill_full,
    };
    // A statement thread, not tokio's blocking pool: a statement DuckDB will not stop must
    // not hold up the runtime's shutdown (which waits for every blocking task).
    StatementThreads::shared()
        .run(Box::new(move |reuse: &Reuse<'_>| {
            let started = Instant::now();
            let mut producer = producer;
            let last = {
                let _stop_watching = stop_watching;
                run(connection, &interrupter, &job, &mut producer)
            };
            if started.elapsed() >= KEEP_THREAD_BELOW {
                reuse.decline();
            } else if !matches!(last, Err(Some(_))) {
                // Before the stream ends, so that the caller's next statement finds this
                // thread; not when an error is to be told, which waits for room in the channel
                // (a statement handed to this thread would wait for a reader that may not read).
                reuse.offer();
            }
            tell(producer, last);
        }))
        .map_err(|e| DialectError::Engine {
            database: database.to_string(),
            message: format!("could not start a thread for the statement: {e}"),
            code: None,
            source: Some(Box::new(e)),
        })?;
    consumer.with_grace(ABANDON_AFTER).stream().await
}

/// Interrupts the statement when the pump stops it (the caller cancels, the deadline passes,
/// the stream is dropped) or the spill directory is full.
async fn watch(
    interrupter: Arc<Interrupter>,
    signal: StopSignal,
    spill: Option<SpillQuota>,
    spill_full: Arc<OnceLock<u64>>,
    done: CancellationToken,
) {
    tokio::select! {
        biased;
        () = done.cancelled() => return,
        _ = signal.stopped() => {}
        max_bytes = SpillQuota::exceeded(spill) => {
            let _ = spill_full.set(max_bytes);
        }
    }
    loop {
        interrupter.interrupt();
        tokio::select! {
            () = done.cancelled() => return,
            () = tokio::time::sleep(REINTERRUPT) => {}
        }
    }
}

/// How a statement's reading ended, for the stream's last word: complete (or cut at a cap),
/// an error (its host paths scrubbed), or stopped by the pump (which tells the reader why).
pub(super) type Last = Result<(), Option<DialectError>>;

/// Tells the stream how the statement ended. Called once the statement's resources are let go
/// (connection, watcher, permit), so that the stream's end means they are free.
pub(super) fn tell(mut producer: Producer, last: Last) {
    match last {
        Ok(()) => producer.finish(),
        Err(Some(error)) => producer.blocking_fail(error),
        Err(None) => {}
    }
}

/// The worker: prepare, start, then fetch batches until the end, a cap, a stop or a dropped
/// stream; the connection is closed before it returns.
fn run(
    connection: Connection,
    interrupter: &Interrupter,
    job: &Job,
    producer: &mut Producer,
) -> Last {
    let outcome = read(&connection, job, producer);
    interrupter.close();
    drop(connection);
    outcome.map_err(|error| error.map(|e| job.host_paths.scrub(e)))
}

/// Reads the statement into `producer`; `Err(None)` when the pump stopped it.
fn read(
    connection: &Connection,
    job: &Job,
    producer: &mut Producer,
) -> Result<(), Option<DialectError>> {
    let fail = |e: duckdb::Error, producer: &Producer| {
        Some(errors::from_duckdb(
            &job.database,
            e,
            job.interrupt(producer),
        ))
    };
    if job.unchecked {
        super::engine_verdict::refuse_non_queries(connection, &job.sql, &job.database)
            .map_err(Some)?;
    }
    let mut statement = connection
        .prepare(&job.sql)
        .map_err(|e| fail(e, producer))?;
    // `stream_arrow` starts DuckDB's streaming execution; its iterator (which panics on
    // errors) is dropped at once, keeping only the schema.
    let schema = match statement.stream_arrow([]) {
        Ok(arrow) => arrow.get_schema(),
        Err(e) => return Err(fail(e, producer)),
    };
    if let Some(column) = inexact_column(&statement, &schema) {
        return Err(Some(DialectError::Unsupported {
            database: job.database.to_string(),
            what: format!(
                "column {column:?} is (or holds) a UHUGEINT, which DuckDB's Arrow export would \
                 wrap into a signed Decimal128(38, 0); cast it to VARCHAR, or to DECIMAL(38, 0) \
                 when its values fit"
            ),
        }));
    }
    producer
        .blocking_schema(Arc::clone(&schema))
        .map_err(|_| None)?;
    loop {
        if let Some(max_bytes) = job.spill_full.get() {
            return Err(Some(errors::interrupted(
                &job.database,
                Interrupt::SpillFull(*max_bytes),
            )));
        }
        if producer.check().is_some() {
            return Err(None);
        }
        let fetched = catch_unwind(AssertUnwindSafe(|| statement.step()));
        let batch = match fetched {
            Ok(Ok(Some(array))) => to_batch(&job.database, &schema, array).map_err(Some)?,
            Ok(Ok(None)) => return Ok(()),
            Ok(Err(e)) => return Err(fail(e, producer)),
            Err(panic) => {
                let interrupt = job.interrupt(producer);
                return Err(Some(errors::from_panic(&job.database, &*panic, interrupt)));
            }
        };
        match producer.blocking_batch(batch) {
            Ok(Flow::Continue) => {}
            Ok(Flow::Full) => return Ok(()),
            Err(_) => return Err(None),
        }
    }
}

/// The first result column whose values DuckDB's Arrow export cannot represent exactly.
///
/// DuckDB exports UHUGEINT (up to 2^128 - 1) as `Decimal128(38, 0)` by reinterpreting its bits,
/// so large values would come back negative: refuse instead of returning wrong numbers.
fn inexact_column(statement: &duckdb::Statement<'_>, schema: &SchemaRef) -> Option<String> {
    fn holds_uhugeint(t: &LogicalTypeHandle) -> bool {
        t.id() == LogicalTypeId::UHugeint
            || (0..t.num_children()).any(|i| holds_uhugeint(&t.child(i)))
    }
    (0..schema.fields().len()).find_map(|idx| {
        // The crate's type accessors panic on types it does not know: such a column is not
        // a UHUGEINT, and any real problem with it surfaces when its chunks are fetched.
        let inexact = catch_unwind(AssertUnwindSafe(|| {
            holds_uhugeint(&statement.column_logical_type(idx))
        }))
        .unwrap_or(false);
        inexact.then(|| schema.field(idx).name().clone())
    })
}

/// Turns DuckDB's chunk (a struct array) into a batch with the statement's schema.
fn to_batch(
    database: &str,
    schema: &SchemaRef,
    array: StructArray,
) -> Result<RecordBatch, DialectError> {
    let converted = catch_unwind(AssertUnwindSafe(|| {
        if array.null_count() > 0 {
            return Err("a DuckDB chunk had top-level nulls".to_owned());
        }
        let (_, columns, _) = array.into_parts();
        RecordBatch::try_new(Arc::clone(schema), columns).map_err(|e| e.to_string())
    }));
    match converted {
        Ok(Ok(batch)) => Ok(batch),
        Ok(Err(message)) => Err(DialectError::Engine {
            database: database.to_owned(),
            message: format!("could not convert a DuckDB chunk to Arrow: {message}"),
            code: None,
            source: None,
        }),
        Err(panic) => Err(errors::from_panic(database, &*panic, None)),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;

    /// Interrupts hammered at a connection while it closes never reach it once closed (without
    /// `close`, this crashed the test process with a SIGSEGV within a few hundred rounds).
    #[test]
    #[allow(clippy::unwrap_used)]
    fn interrupts_never_reach_a_closing_connection() {
        let root = Connection::open_in_memory().unwrap();
        for _ in 0..500 {
            let connection = root.try_clone().unwrap();
            let interrupter = Arc::new(Interrupter::new(&connection));
            let stop = Arc::new(AtomicBool::new(false));
            let hammer = {
                let (interrupter, stop) = (Arc::clone(&interrupter), Arc::clone(&stop));
                std::thread::spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        interrupter.interrupt();
                    }
                })
            };
            interrupter.close();
            drop(connection);
            stop.store(true, Ordering::Relaxed);
            hammer.join().unwrap();
        }
    }
}
