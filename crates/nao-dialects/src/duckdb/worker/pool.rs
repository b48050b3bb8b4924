//! The adapter's side: worker processes for one database, at most `count` running statements
//! at once, idle ones kept for the next statement.
//!
//! A statement takes a permit (waiting counts toward its timeout), an idle worker or a new one,
//! and a thread that writes the request and reads the worker's frames into the crate's
//! [statement pump](crate::pump), which caps, times and cancels the stream as for any adapter.
//! A watcher ends the worker (`SIGKILL`) when the caller cancels or the deadline passes: the
//! operating system then takes back all its memory, which no interrupt can promise. A worker
//! that finished its statement (or reached the caps, after which it ends the statement
//! itself) goes back to the idle list; one that was ended, died, or whose reader stopped early
//! is reaped and replaced on demand.

use std::ffi::OsString;
use std::io::{self, BufReader};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex, MutexGuard};

use nao_core::{BatchStream, DialectError, ExecOptions};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use super::WORKER_ARG;
use super::protocol::{self, Request, Tag};
use super::serve::WorkerSettings;
use crate::duckdb::host_paths::HostPaths;
use crate::duckdb::stream;
use crate::pump::{self, Flow, Producer, StopReason, StopSignal};

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

impl Worker {
    /// Becomes `fresh`, keeping this worker's handle (which the watcher holds) for the fresh
    /// process; the old process is ended and reaped.
    fn replace_with(&mut self, mut fresh: Worker) {
        {
            let mut mine = lock(&self.child);
            let mut theirs = lock(&fresh.child);
            std::mem::swap(&mut *mine, &mut *theirs);
        }
        std::mem::swap(&mut self.stdin, &mut fresh.stdin);
        std::mem::swap(&mut self.stdout, &mut fresh.stdout);
        std::mem::swap(&mut self.ready, &mut fresh.ready);
        // `fresh` now holds the old process and pipes: dropping it ends and reaps them.
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
        unchecked: bool,
        options: &ExecOptions,
    ) -> Result<BatchStream, DialectError> {
        let inner = &self.inner;
        let (producer, consumer) = pump::channel(&inner.database, options);
        let permit = consumer
            .unless_stopped(Arc::clone(&inner.permits).acquire_owned())
            .await?
            .map_err(|_| inner.failure("the DuckDB workers are shut down".into()))?;
        let idle = lock(&inner.idle).pop();
        let worker = match idle {
            Some(worker) => worker,
            None => inner.spawn()?,
        };
        let stop = Arc::new(Stop::default());
        let done = CancellationToken::new();
        tokio::spawn(watch(
            Arc::clone(&worker.child),
            producer.signal(),
            done.clone(),
            Arc::clone(&stop),
        ));
        let request = Request {
            sql: sql.to_owned(),
            unchecked,
            max_rows: options.max_rows,
            max_bytes: options.max_bytes as u64,
        };
        let reader = Arc::clone(inner);
        std::thread::Builder::new()
            .name("nao-duckdb-worker-io".into())
            .spawn(move || {
                let mut producer = producer;
                let last = {
                    let _done = done.drop_guard();
                    let _permit = permit;
                    reader.run(worker, &request, &stop, &mut producer)
                };
                // Let go of the adapter before the stream ends: a caller that then drops it
                // ends every idle worker at once.
                drop(reader);
                stream::tell(producer, last);
            })
            .map_err(|e| {
                inner.failure(format!("could not start a thread for the statement: {e}"))
            })?;
        consumer.stream().await
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
    /// schema and batches, and returns the worker to the idle list when it ends cleanly (before
    /// the stream ends, so the next statement finds it there).
    ///
    /// A worker whose output ends before it has answered anything (one that ended while it
    /// waited idle, or at its start) has not run the statement for anyone: the statement gets
    /// one more try on a fresh worker, unless it is being stopped. (Seen on a loaded machine:
    /// the statement after a timed-out one failed with "the worker's output ended".)
    fn run(
        &self,
        mut worker: Worker,
        request: &Request,
        stop: &Stop,
        producer: &mut Producer,
    ) -> stream::Last {
        let mut answered = false;
        let mut outcome = self.converse(&mut worker, request, producer, &mut answered);
        if let Err(io_error) = &outcome
            && !answered
            && stop.get().is_none()
        {
            let status = lock(&worker.child).try_wait().ok().flatten();
            tracing::warn!(error = %io_error, ?status, "a DuckDB worker ended before answering; trying a fresh one");
            match self.spawn() {
                Ok(fresh) => {
                    // The watcher holds the child's handle: the fresh process goes into it, so
                    // a stop ends the worker that now runs the statement.
                    worker.replace_with(fresh);
                    // A stop claimed before the swap ended the old process only; one claimed
                    // after it ends the fresh one (the watcher kills under the same lock).
                    if let Some(reason) = stop.get() {
                        worker.end();
                        return Err(Some(reason.error(&self.database)));
                    }
                    outcome = self.converse(&mut worker, request, producer, &mut answered);
                }
                Err(error) => {
                    worker.end();
                    return Err(Some(self.host_paths.scrub(error)));
                }
            }
        }
        let error = match outcome {
            Ok(Ending::Done) => {
                self.keep(worker, stop);
                return Ok(());
            }
            // A worker that could not open the database has ended; one that ran out of memory
            // may keep some of it cached: the next statement gets a fresh one.
            Ok(Ending::Failed(error)) if !worker.ready || error.kind_code() == "resource_limit" => {
                worker.end();
                error
            }
            Ok(Ending::Failed(error)) => {
                self.keep(worker, stop);
                error
            }
            // The pump stopped the statement (it tells the reader why) or nobody reads: the
            // worker may still be sending; end it.
            Ok(Ending::Stopped) => {
                worker.end();
                return Err(None);
            }
            Err(io_error) => {
                // Whether the worker ended on its own, before this side ends it.
                let status = lock(&worker.child).try_wait().ok().flatten();
                worker.end();
                match stop.get() {
                    Some(reason) => reason.error(&self.database),
                    None => {
                        tracing::warn!(error = %io_error, ?status, "a DuckDB worker failed");
                        self.died(status, &io_error)
                    }
                }
            }
        };
        Err(Some(self.host_paths.scrub(error)))
    }

    /// The frames of one statement.
    /// `answered` is set once the worker has sent a frame for the statement (its schema, an
    /// error, its end).
    fn converse(
        &self,
        worker: &mut Worker,
        request: &Request,
        producer: &mut Producer,
        answered: &mut bool,
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
        // Once the reader has all it keeps, the worker (which applies the same caps) ends the
        // statement by itself: read on to its end, so the worker can serve the next one.
        let mut full = false;
        loop {
            let (tag, payload) = next_frame(&mut worker.stdout)?;
            *answered = true;
            match tag {
                Tag::Schema => {
                    let (schema, _) = protocol::decode_batch(&payload)?;
                    if producer.blocking_schema(schema).is_err() {
                        return Ok(Ending::Stopped);
                    }
                }
                Tag::Batch if full => {}
                Tag::Batch => {
                    let (_, batch) = protocol::decode_batch(&payload)?;
                    let Some(batch) = batch else { continue };
                    match producer.blocking_batch(batch) {
                        Ok(Flow::Continue) => {}
                        Ok(Flow::Full) => full = true,
                        Err(_) => return Ok(Ending::Stopped),
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
    /// The pump stopped the statement, or nobody reads the results any more.
    Stopped,
}

/// The next frame; the end of the worker's output is an error here (a statement was running).
fn next_frame(stdout: &mut BufReader<ChildStdout>) -> io::Result<(Tag, Vec<u8>)> {
    protocol::read_frame(stdout)?
        .ok_or_else(|| io::Error::new(io::ErrorKind::UnexpectedEof, "the worker's output ended"))
}

/// Ends the worker when the caller cancels or the deadline passes. A dropped stream does not
/// end it here: the reader thread notices at the next batch, and a worker that has just
/// finished its statement is kept for the next one.
async fn watch(
    child: Arc<Mutex<Child>>,
    signal: StopSignal,
    done: CancellationToken,
    stop: Arc<Stop>,
) {
    let reason = tokio::select! {
        biased;
        () = done.cancelled() => return,
        reason = signal.interrupted() => reason,
    };
    if stop.stop(reason) {
        let _ = lock(&child).kill();
    }
}
