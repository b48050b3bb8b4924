//! The adapter's side: worker processes for one database, at most `count` running statements
//! at once, idle ones kept for the next statement.
//!
//! A statement takes a permit (waiting counts toward its timeout), an idle worker or a new one,
//! and a thread that writes the request and reads the worker's frames into the batch stream.
//! A watcher ends the worker (`SIGKILL`) when the caller cancels or the deadline passes: the
//! operating system then takes back all its memory, which no interrupt can promise. A worker
//! that finished its statement goes back to the idle list; one that was ended, died, or whose
//! reader stopped early is reaped and replaced on demand.

use std::ffi::OsString;
use std::io::{self, BufReader};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use nao_core::{BatchStream, DialectError, ExecOptions};
use tokio::sync::{Semaphore, mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::WORKER_ARG;
use super::protocol::{self, Request, Tag};
use super::serve::WorkerSettings;
use crate::duckdb::errors::{self, StopReason};
use crate::duckdb::host_paths::HostPaths;

type Item = Result<RecordBatch, DialectError>;

/// Locks a mutex, serving on after a panic elsewhere (nothing here can be left half-updated).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// How to start a database's workers.
#[derive(Debug)]
pub(in crate::duckdb) struct WorkerCommand {
    /// The program.
    pub(in crate::duckdb) program: PathBuf,
    /// The host's arguments before [`WORKER_ARG`].
    pub(in crate::duckdb) args: Vec<OsString>,
    /// How many may run at once.
    pub(in crate::duckdb) count: usize,
}

/// The worker processes of one database.
pub(in crate::duckdb) struct Workers {
    inner: Arc<Inner>,
}

struct Inner {
    database: Arc<str>,
    command: WorkerCommand,
    settings: WorkerSettings,
    host_paths: Arc<HostPaths>,
    permits: Arc<Semaphore>,
    idle: Mutex<Vec<Worker>>,
}

/// One worker process and its pipes.
struct Worker {
    child: Arc<Mutex<Child>>,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    /// Whether the worker has said it is ready (it says so once, after opening).
    ready: bool,
}

impl Worker {
    /// Ends the process (if it still runs) and reaps it.
    fn end(&mut self) {
        drop(self.stdin.take());
        let mut child = lock(&self.child);
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.end();
    }
}

/// Why a statement is being stopped, shared by the watcher and the reader. Whoever comes
/// first decides: the watcher may end the worker only while the statement runs, and the
/// reader returns a worker to the idle list only if the watcher has not claimed it, so a
/// cancellation that lands as a statement ends never kills a worker already serving the next.
#[derive(Default)]
struct Stop(Mutex<StopState>);

#[derive(Default, Clone, Copy)]
enum StopState {
    #[default]
    Running,
    Stopping(StopReason),
    Finished,
}

impl Stop {
    /// The reason the watcher stopped the statement, if it did.
    fn get(&self) -> Option<StopReason> {
        match *lock(&self.0) {
            StopState::Stopping(reason) => Some(reason),
            _ => None,
        }
    }

    /// The watcher: claims the worker to end it, unless the statement has finished.
    fn stop(&self, reason: StopReason) -> bool {
        let mut state = lock(&self.0);
        match *state {
            StopState::Running => {
                *state = StopState::Stopping(reason);
                true
            }
            _ => false,
        }
    }

    /// The reader: claims the worker back for the idle list, unless the watcher has it.
    fn finish(&self) -> bool {
        let mut state = lock(&self.0);
        match *state {
            StopState::Running => {
                *state = StopState::Finished;
                true
            }
            _ => false,
        }
    }
}

impl Workers {
    /// Workers for `settings`' database, started by `command`.
    pub(in crate::duckdb) fn new(
        database: Arc<str>,
        command: WorkerCommand,
        settings: WorkerSettings,
        host_paths: Arc<HostPaths>,
    ) -> Self {
        let permits = Arc::new(Semaphore::new(command.count.max(1)));
        Workers {
            inner: Arc::new(Inner {
                database,
                command,
                settings,
                host_paths,
                permits,
                idle: Mutex::new(Vec::new()),
            }),
        }
    }

    /// How many statements run at once, each in a worker of its own.
    pub(in crate::duckdb) fn count(&self) -> usize {
        self.inner.command.count.max(1)
    }

    /// Runs `sql` in a worker and streams its batches.
    pub(in crate::duckdb) async fn execute(
        &self,
        sql: &str,
        options: &ExecOptions,
    ) -> Result<BatchStream, DialectError> {
        let inner = &self.inner;
        let deadline = tokio::time::Instant::now() + options.timeout;
        let permit = tokio::select! {
            permit = Arc::clone(&inner.permits).acquire_owned() => {
                permit.map_err(|_| inner.failure("the DuckDB workers are shut down".into()))?
            }
            () = options.cancel.cancelled() => {
                return Err(errors::stopped(&inner.database, StopReason::Cancelled));
            }
            () = tokio::time::sleep_until(deadline) => {
                return Err(errors::stopped(&inner.database, StopReason::Timeout(options.timeout)));
            }
        };
        let idle = lock(&inner.idle).pop();
        let worker = match idle {
            Some(worker) => worker,
            None => inner.spawn()?,
        };
        let stop = Arc::new(Stop::default());
        let done = CancellationToken::new();
        tokio::spawn(watch(
            Arc::clone(&worker.child),
            options.cancel.clone(),
            deadline,
            options.timeout,
            done.clone(),
            Arc::clone(&stop),
        ));
        let request = Request {
            sql: sql.to_owned(),
            max_rows: options.max_rows,
            max_bytes: options.max_bytes as u64,
        };
        let (schema_tx, schema_rx) = oneshot::channel();
        let (batch_tx, batch_rx) = mpsc::channel::<Item>(1);
        let reader = Arc::clone(inner);
        std::thread::Builder::new()
            .name("nao-duckdb-worker-io".into())
            .spawn(move || {
                let _done = done.drop_guard();
                let _permit = permit;
                reader.run(worker, &request, &stop, schema_tx, &batch_tx);
            })
            .map_err(|e| {
                inner.failure(format!("could not start a thread for the statement: {e}"))
            })?;
        let schema = match schema_rx.await {
            Ok(Ok(schema)) => schema,
            Ok(Err(e)) => return Err(inner.host_paths.scrub(e)),
            Err(_) => {
                return Err(
                    inner.failure("the DuckDB worker stopped before the statement started".into())
                );
            }
        };
        let host_paths = Arc::clone(&inner.host_paths);
        let batches = futures_util::stream::unfold(batch_rx, move |mut rx| {
            let host_paths = Arc::clone(&host_paths);
            async move {
                let item = rx.recv().await?;
                Some((item.map_err(|e| host_paths.scrub(e)), rx))
            }
        });
        Ok(BatchStream::new(schema, batches))
    }
}

impl Inner {
    fn failure(&self, message: String) -> DialectError {
        DialectError::Engine {
            database: self.database.to_string(),
            message,
            code: None,
            source: None,
        }
    }

    /// Starts a worker (it opens the database and says it is ready; the reader waits for that).
    fn spawn(&self) -> Result<Worker, DialectError> {
        let mut child = Command::new(&self.command.program)
            .args(&self.command.args)
            .arg(WORKER_ARG)
            .args(self.settings.to_args())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| {
                self.failure(format!(
                    "could not start the DuckDB worker {}: {e}",
                    self.command.program.display()
                ))
            })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(self.failure("the DuckDB worker has no pipes".into()));
        };
        Ok(Worker {
            child: Arc::new(Mutex::new(child)),
            stdin: Some(stdin),
            stdout: BufReader::new(stdout),
            ready: false,
        })
    }

    /// The reader thread: waits for a new worker to be ready, sends the request, forwards the
    /// schema and batches, and returns the worker to the idle list when it ends cleanly.
    fn run(
        &self,
        mut worker: Worker,
        request: &Request,
        stop: &Stop,
        schema_tx: oneshot::Sender<Result<SchemaRef, DialectError>>,
        batch_tx: &mpsc::Sender<Item>,
    ) {
        let mut schema_tx = Some(schema_tx);
        // Sends an error to whoever waits: the `execute` call or the stream.
        let report = |schema_tx: &mut Option<oneshot::Sender<_>>, error: DialectError| {
            match schema_tx.take() {
                Some(tx) => {
                    let _ = tx.send(Err(error));
                }
                None => {
                    let _ = batch_tx.blocking_send(Err(error));
                }
            }
        };
        let outcome = self.converse(&mut worker, request, &mut schema_tx, batch_tx);
        match outcome {
            Ok(Ending::Done) => self.keep(worker, stop),
            // A worker that could not open the database has ended; one that ran out of memory
            // may keep some of it cached: the next statement gets a fresh one.
            Ok(Ending::Failed(error)) if !worker.ready || error.kind_code() == "resource_limit" => {
                worker.end();
                report(&mut schema_tx, error);
            }
            Ok(Ending::Failed(error)) => {
                self.keep(worker, stop);
                report(&mut schema_tx, error);
            }
            // The stream's reader went away: the worker may still be sending; end it.
            Ok(Ending::ReaderGone) => worker.end(),
            Err(io_error) => {
                // Whether the worker ended on its own, before this side ends it.
                let status = lock(&worker.child).try_wait().ok().flatten();
                worker.end();
                let error = match stop.get() {
                    Some(reason) => errors::stopped(&self.database, reason),
                    None => {
                        tracing::warn!(error = %io_error, ?status, "a DuckDB worker failed");
                        self.died(status, &io_error)
                    }
                };
                report(&mut schema_tx, error);
            }
        }
    }

    /// The frames of one statement.
    fn converse(
        &self,
        worker: &mut Worker,
        request: &Request,
        schema_tx: &mut Option<oneshot::Sender<Result<SchemaRef, DialectError>>>,
        batch_tx: &mpsc::Sender<Item>,
    ) -> io::Result<Ending> {
        if !worker.ready {
            match next_frame(&mut worker.stdout)? {
                (Tag::Ready, _) => worker.ready = true,
                (Tag::Error, payload) => {
                    return Ok(Ending::Failed(protocol::decode_error(
                        &self.database,
                        &payload,
                    )));
                }
                (tag, _) => return Err(io::Error::other(format!("unexpected {tag:?} at start"))),
            }
        }
        let stdin = worker
            .stdin
            .as_mut()
            .ok_or_else(|| io::Error::other("the worker's input is closed"))?;
        protocol::write_frame(stdin, Tag::Run, &request.encode())?;
        loop {
            let (tag, payload) = next_frame(&mut worker.stdout)?;
            match tag {
                Tag::Schema => {
                    let (schema, _) = protocol::decode_batch(&payload)?;
                    if let Some(tx) = schema_tx.take()
                        && tx.send(Ok(schema)).is_err()
                    {
                        return Ok(Ending::ReaderGone);
                    }
                }
                Tag::Batch => {
                    let (_, batch) = protocol::decode_batch(&payload)?;
                    let Some(batch) = batch else { continue };
                    if batch_tx.blocking_send(Ok(batch)).is_err() {
                        return Ok(Ending::ReaderGone);
                    }
                }
                Tag::Error => {
                    return Ok(Ending::Failed(protocol::decode_error(
                        &self.database,
                        &payload,
                    )));
                }
                Tag::Done => return Ok(Ending::Done),
                Tag::Ready | Tag::Run => {
                    return Err(io::Error::other(format!(
                        "unexpected {tag:?} from the worker"
                    )));
                }
            }
        }
    }

    /// Puts a worker that ended its statement cleanly back for the next one, unless the
    /// watcher is ending it.
    fn keep(&self, mut worker: Worker, stop: &Stop) {
        if !stop.finish() {
            worker.end();
            return;
        }
        // Every worker that may run is kept: a load as wide as the count then starts no
        // process after its first statements (keeping two took 4 callers on 4 workers below
        // 2 callers, restarting workers between statements). Idle workers hold no more than
        // running ones, each within its share of the memory limit.
        let mut idle = lock(&self.idle);
        if idle.len() < self.command.count.max(1) {
            idle.push(worker);
        }
    }

    /// The error for a worker that ended on its own while running a statement.
    fn died(&self, status: Option<std::process::ExitStatus>, io_error: &io::Error) -> DialectError {
        let how = status.map_or_else(|| io_error.to_string(), |s| s.to_string());
        #[cfg(unix)]
        let out_of_memory = status.is_some_and(|s| {
            use std::os::unix::process::ExitStatusExt;
            // abort() after a failed allocation, or the kernel's OOM killer.
            matches!(s.signal(), Some(6 | 9))
        });
        #[cfg(not(unix))]
        let out_of_memory = false;
        if out_of_memory {
            DialectError::ResourceLimit {
                database: self.database.to_string(),
                limit: format!(
                    "memory of {} for one DuckDB worker",
                    crate::sizes::human(
                        usize::try_from(self.settings.data_limit).unwrap_or(usize::MAX)
                    )
                ),
                message: format!("the worker process running the statement ended ({how})"),
                code: None,
            }
        } else {
            self.failure(format!(
                "the DuckDB worker process running the statement ended ({how})"
            ))
        }
    }
}

/// How a statement's conversation ended, when the worker is still sound.
enum Ending {
    /// The worker sent all it will send.
    Done,
    /// The worker reported an error.
    Failed(DialectError),
    /// Nobody reads the results any more.
    ReaderGone,
}

/// The next frame; the end of the worker's output is an error here (a statement was running).
fn next_frame(stdout: &mut BufReader<ChildStdout>) -> io::Result<(Tag, Vec<u8>)> {
    protocol::read_frame(stdout)?
        .ok_or_else(|| io::Error::new(io::ErrorKind::UnexpectedEof, "the worker's output ended"))
}

/// Ends the worker when the caller cancels or the deadline passes.
async fn watch(
    child: Arc<Mutex<Child>>,
    cancel: CancellationToken,
    deadline: tokio::time::Instant,
    limit: Duration,
    done: CancellationToken,
    stop: Arc<Stop>,
) {
    let reason = tokio::select! {
        biased;
        () = done.cancelled() => return,
        () = cancel.cancelled() => StopReason::Cancelled,
        () = tokio::time::sleep_until(deadline) => StopReason::Timeout(limit),
    };
    if stop.stop(reason) {
        let _ = lock(&child).kill();
    }
}
