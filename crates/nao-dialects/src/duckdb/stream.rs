//! Running one statement: a worker thread streams Arrow batches to the caller.
//!
//! - **Start.** The worker prepares and starts the statement (DuckDB's streaming execution)
//!   before `execute` returns, so syntax and unknown-object errors come back from `execute`
//!   itself, and the Arrow schema is known before the first batch (an empty result keeps its
//!   columns).
//! - **Streaming and caps.** Batches go through a channel of capacity 1, so DuckDB computes at
//!   most a batch or two ahead of the reader. The worker stops after `max_rows + 1` rows (one
//!   row past the cap tells a cut result from one that fits) and as soon as the receiver is
//!   dropped; dropping the statement ends DuckDB's work on it.
//! - **Interrupts.** A watcher task waits for the cancellation token or the deadline (the
//!   timeout counted from the call), records why, and calls the connection's interrupt
//!   handle, again every [`REINTERRUPT`] until the worker ends: an interrupt that lands between
//!   two steps of the worker would otherwise be lost. The worker also checks the reason between
//!   batches. DuckDB's "Interrupted" error then becomes `Cancelled` or `Timeout`. Should DuckDB
//!   not honour the interrupt within [`ABANDON_AFTER`], the reader stops waiting and gets
//!   `Cancelled` or `Timeout` anyway; the watcher keeps interrupting the detached worker while
//!   the runtime lives.
//! - **A thread per statement.** Run on tokio's blocking pool (threads reused from statement to
//!   statement), DuckDB 1.5.6 ignored every interrupt of a recursive CTE about once in 30 runs
//!   of the sql_tools test on a loaded machine, and the runtime's shutdown then waited for it
//!   forever. On a fresh thread per statement: no such run in 180. The thread also keeps a
//!   runaway statement from holding up the runtime's shutdown.
//! - **Panic containment.** The duckdb crate's Arrow iterator panics when fetching or
//!   converting a chunk fails (a cast error at row 10,000 of a model's query). The worker uses
//!   the fallible `Statement::step` instead, and still runs each fetch and conversion inside
//!   `catch_unwind`, so a panic in the driver becomes a `DialectError`, never the caller's.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arrow_array::{Array, RecordBatch, StructArray};
use arrow_schema::SchemaRef;
use duckdb::Connection;
use duckdb::core::{LogicalTypeHandle, LogicalTypeId};
use nao_core::{BatchStream, DialectError, ExecOptions};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::errors::{self, StopReason};
use super::host_paths::HostPaths;

/// How often the watcher repeats its interrupt until the worker has stopped.
const REINTERRUPT: Duration = Duration::from_millis(50);

/// How often the watcher measures the spill directory. DuckDB 1.5.6 does not hold
/// `max_temp_directory_size` (a hash aggregate wrote 289 MB under a 1 MiB limit), so the
/// watcher enforces it: a statement overshoots by what DuckDB writes in this time at most.
const SPILL_CHECK: Duration = Duration::from_millis(50);

/// How long past the deadline or the cancellation the reader still waits for the worker.
const ABANDON_AFTER: Duration = Duration::from_secs(2);

type Item = Result<RecordBatch, DialectError>;

/// Why the statement is being stopped, shared by the watcher and the worker.
#[derive(Debug, Default)]
struct Stop(Mutex<Option<StopReason>>);

impl Stop {
    fn get(&self) -> Option<StopReason> {
        *self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn set(&self, reason: StopReason) {
        let mut slot = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        slot.get_or_insert(reason);
    }
}

/// What the worker needs besides the connection.
struct Job {
    database: Arc<str>,
    sql: String,
    max_rows: u64,
    stop: Arc<Stop>,
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
}

/// Runs `sql` on `connection` (owned by this statement alone) and streams its batches; every
/// error leaves with `host_paths` scrubbed from its message. With a `spill` quota the
/// statement is stopped when the spill directory outgrows it.
pub(super) async fn execute(
    database: Arc<str>,
    host_paths: Arc<HostPaths>,
    connection: Connection,
    sql: String,
    options: &ExecOptions,
    spill: Option<SpillQuota>,
) -> Result<BatchStream, DialectError> {
    let deadline = tokio::time::Instant::now() + options.timeout;
    let stop = Arc::new(Stop::default());
    let done = CancellationToken::new();
    tokio::spawn(watch(
        connection.interrupt_handle(),
        Watch {
            cancel: options.cancel.clone(),
            deadline,
            limit: options.timeout,
            spill,
        },
        done.clone(),
        Arc::clone(&stop),
    ));
    let (schema_tx, schema_rx) = oneshot::channel();
    let (batch_tx, batch_rx) = mpsc::channel::<Item>(1);
    let job = Job {
        database: Arc::clone(&database),
        sql,
        max_rows: options.max_rows,
        stop,
    };
    // A thread of its own, not tokio's blocking pool: a statement DuckDB will not stop must
    // not hold up the runtime's shutdown (which waits for every blocking task).
    std::thread::Builder::new()
        .name("nao-duckdb-statement".into())
        .spawn(move || {
            // Whatever way the worker ends, the watcher stops with it.
            let _done = done.drop_guard();
            run(connection, &job, schema_tx, &batch_tx);
        })
        .map_err(|e| DialectError::Engine {
            database: database.to_string(),
            message: format!("could not start a thread for the statement: {e}"),
            code: None,
            source: Some(Box::new(e)),
        })?;
    let limits = Limits {
        cancel: options.cancel.clone(),
        deadline,
        timeout: options.timeout,
    };
    let received = tokio::select! {
        received = schema_rx => received,
        reason = limits.abandoned() => return Err(errors::stopped(&database, reason)),
    };
    let schema = match received {
        Ok(Ok(schema)) => schema,
        Ok(Err(e)) => return Err(host_paths.scrub(e)),
        Err(_) => {
            return Err(DialectError::Engine {
                database: database.to_string(),
                message: "the DuckDB worker stopped before the statement started".into(),
                code: None,
                source: None,
            });
        }
    };
    let batches = futures_util::stream::unfold(Some((batch_rx, limits)), move |state| {
        let database = Arc::clone(&database);
        let host_paths = Arc::clone(&host_paths);
        async move {
            let (mut rx, limits) = state?;
            tokio::select! {
                item = rx.recv() => item.map(|item| {
                    (item.map_err(|e| host_paths.scrub(e)), Some((rx, limits)))
                }),
                // The worker is stuck past its stop: end the stream with the reason.
                reason = limits.abandoned() => Some((Err(errors::stopped(&database, reason)), None)),
            }
        }
    });
    Ok(BatchStream::new(schema, batches))
}

/// When the reader gives up on the worker.
struct Limits {
    cancel: CancellationToken,
    deadline: tokio::time::Instant,
    timeout: Duration,
}

impl Limits {
    /// Resolves [`ABANDON_AFTER`] after the cancellation or the deadline (counted from when
    /// it is polled, if those are already past), with the reason. The watcher interrupts at
    /// once, and the worker normally answers within milliseconds; this bound is for an
    /// interrupt DuckDB does not honour (see the module docs), so that the caller never waits
    /// on it. A batch already sent is still read first.
    async fn abandoned(&self) -> StopReason {
        let reason = tokio::select! {
            biased;
            () = self.cancel.cancelled() => StopReason::Cancelled,
            () = tokio::time::sleep_until(self.deadline) => StopReason::Timeout(self.timeout),
        };
        tokio::time::sleep(ABANDON_AFTER).await;
        tracing::warn!(
            ?reason,
            "DuckDB did not stop a statement within {ABANDON_AFTER:?} of its interrupt; \
             the reader stops waiting for it"
        );
        reason
    }
}

/// What the watcher waits for.
struct Watch {
    cancel: CancellationToken,
    deadline: tokio::time::Instant,
    limit: Duration,
    spill: Option<SpillQuota>,
}

impl Watch {
    /// Resolves with the reason to stop: the cancellation, the deadline, or a full spill
    /// directory (measured every [`SPILL_CHECK`]).
    async fn reason(&self) -> StopReason {
        let spill_full = async {
            let Some(quota) = &self.spill else {
                return std::future::pending().await;
            };
            let mut ticks = tokio::time::interval(SPILL_CHECK);
            loop {
                ticks.tick().await;
                let quota = quota.clone();
                let used = tokio::task::spawn_blocking(move || quota.used() > quota.max_bytes)
                    .await
                    .unwrap_or(false);
                if used {
                    return StopReason::SpillFull(self.spill.as_ref().map_or(0, |q| q.max_bytes));
                }
            }
        };
        tokio::select! {
            biased;
            () = self.cancel.cancelled() => StopReason::Cancelled,
            () = tokio::time::sleep_until(self.deadline) => StopReason::Timeout(self.limit),
            reason = spill_full => reason,
        }
    }
}

/// Interrupts the statement when the caller cancels, the deadline passes or the spill
/// directory is full.
async fn watch(
    interrupt: Arc<duckdb::InterruptHandle>,
    watch: Watch,
    done: CancellationToken,
    stop: Arc<Stop>,
) {
    let reason = tokio::select! {
        biased;
        () = done.cancelled() => return,
        reason = watch.reason() => reason,
    };
    stop.set(reason);
    loop {
        interrupt.interrupt();
        tokio::select! {
            () = done.cancelled() => return,
            () = tokio::time::sleep(REINTERRUPT) => {}
        }
    }
}

/// The worker: prepare, start, then fetch batches until the end, the cap, a stop or a dropped
/// receiver.
fn run(
    connection: Connection,
    job: &Job,
    schema_tx: oneshot::Sender<Result<SchemaRef, DialectError>>,
    batch_tx: &mpsc::Sender<Item>,
) {
    let fail = |e: duckdb::Error| errors::from_duckdb(&job.database, e, job.stop.get());
    let mut statement = match connection.prepare(&job.sql) {
        Ok(statement) => statement,
        Err(e) => {
            let _ = schema_tx.send(Err(fail(e)));
            return;
        }
    };
    // `stream_arrow` starts DuckDB's streaming execution; its iterator (which panics on
    // errors) is dropped at once, keeping only the schema.
    let schema = match statement.stream_arrow([]) {
        Ok(arrow) => arrow.get_schema(),
        Err(e) => {
            let _ = schema_tx.send(Err(fail(e)));
            return;
        }
    };
    if let Some(column) = inexact_column(&statement, &schema) {
        let _ = schema_tx.send(Err(DialectError::Unsupported {
            database: job.database.to_string(),
            what: format!(
                "column {column:?} is (or holds) a UHUGEINT, which DuckDB's Arrow export would \
                 wrap into a signed Decimal128(38, 0); cast it to VARCHAR, or to DECIMAL(38, 0) \
                 when its values fit"
            ),
        }));
        return;
    }
    if schema_tx.send(Ok(Arc::clone(&schema))).is_err() {
        return;
    }
    let mut rows: u64 = 0;
    loop {
        if let Some(reason) = job.stop.get() {
            let _ = batch_tx.blocking_send(Err(errors::stopped(&job.database, reason)));
            return;
        }
        let fetched = catch_unwind(AssertUnwindSafe(|| statement.step()));
        let batch = match fetched {
            Ok(Ok(Some(array))) => to_batch(&job.database, &schema, array),
            Ok(Ok(None)) => return,
            Ok(Err(e)) => Err(fail(e)),
            Err(panic) => Err(errors::from_panic(&job.database, &*panic, job.stop.get())),
        };
        let failed = batch.is_err();
        if let Ok(batch) = &batch {
            rows = rows.saturating_add(batch.num_rows() as u64);
        }
        if batch_tx.blocking_send(batch).is_err() || failed || rows > job.max_rows {
            return;
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
