//! The worker's side: bound this process's memory, open the database read-only, then run one
//! statement per request and stream its batches back.

use std::ffi::OsString;
use std::io::{self, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use nao_core::{DialectError, ExecOptions};

use super::protocol::{self, Request, Tag};
use crate::duckdb::host_paths::HostPaths;
use crate::duckdb::open;
use crate::duckdb::stream::{self, SpillQuota};
use crate::{EngineLimits, Spill};

/// The argument that makes a program a DuckDB worker; the worker's settings follow it.
pub const WORKER_ARG: &str = "--nao-duckdb-worker";

/// A statement in a worker runs until the adapter ends the worker; this only stops one whose
/// adapter is gone without the worker noticing.
const WORKER_STATEMENT_TIMEOUT: Duration = Duration::from_secs(24 * 60 * 60);

/// What a worker is told on its command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::duckdb) struct WorkerSettings {
    /// The database's name, for messages.
    pub(in crate::duckdb) name: String,
    /// The database file.
    pub(in crate::duckdb) path: PathBuf,
    /// DuckDB's memory limit in this worker, in bytes.
    pub(in crate::duckdb) memory_limit: u64,
    /// DuckDB's threads.
    pub(in crate::duckdb) threads: usize,
    /// The most memory the whole process may map (`RLIMIT_DATA`), in bytes.
    pub(in crate::duckdb) data_limit: u64,
    /// The adapter's spill directory and its size limit, or none.
    pub(in crate::duckdb) spill: Option<(PathBuf, u64)>,
}

impl WorkerSettings {
    /// The arguments that follow [`WORKER_ARG`].
    pub(super) fn to_args(&self) -> Vec<OsString> {
        let mut args: Vec<OsString> = vec![
            "--name".into(),
            self.name.clone().into(),
            "--path".into(),
            self.path.clone().into(),
            "--memory-limit".into(),
            self.memory_limit.to_string().into(),
            "--threads".into(),
            self.threads.to_string().into(),
            "--data-limit".into(),
            self.data_limit.to_string().into(),
        ];
        if let Some((dir, max_bytes)) = &self.spill {
            args.extend([
                "--spill-dir".into(),
                dir.clone().into(),
                "--max-spill".into(),
                max_bytes.to_string().into(),
            ]);
        }
        args
    }

    /// Reads the arguments [`to_args`](Self::to_args) wrote.
    fn parse(args: &[OsString]) -> Result<WorkerSettings, String> {
        let value = |key: &str| {
            args.iter()
                .position(|a| a == key)
                .and_then(|i| args.get(i + 1))
                .ok_or_else(|| format!("the worker needs {key}"))
        };
        let number = |key: &str| {
            value(key)?
                .to_str()
                .and_then(|v| v.parse::<u64>().ok())
                .ok_or_else(|| format!("{key} must be a number"))
        };
        let spill = match value("--spill-dir") {
            Ok(dir) => Some((PathBuf::from(dir), number("--max-spill")?)),
            Err(_) => None,
        };
        Ok(WorkerSettings {
            name: value("--name")?.to_string_lossy().into_owned(),
            path: PathBuf::from(value("--path")?),
            memory_limit: number("--memory-limit")?,
            threads: usize::try_from(number("--threads")?).unwrap_or(1),
            data_limit: number("--data-limit")?,
            spill,
        })
    }
}

/// Runs this process as a DuckDB worker when its arguments hold [`WORKER_ARG`], and returns
/// the exit code to end with; `None` for every other process.
///
/// A host that runs DuckDB in worker processes of its own program
/// ([`Isolation::Workers`](crate::Isolation::Workers) naming `std::env::current_exe()`) calls
/// this first thing in `main`:
///
/// ```no_run
/// // First thing in `main`:
/// if let Some(code) = nao_dialects::duckdb::run_if_worker() {
///     std::process::exit(code);
/// }
/// // … the host's own program …
/// ```
pub fn run_if_worker() -> Option<i32> {
    let args: Vec<OsString> = std::env::args_os().collect();
    let at = args.iter().position(|a| a == WORKER_ARG)?;
    let code = match WorkerSettings::parse(&args[at + 1..]) {
        Ok(settings) => match serve(&settings) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("nao DuckDB worker: {e}");
                1
            }
        },
        Err(e) => {
            eprintln!("nao DuckDB worker: {e}");
            2
        }
    };
    Some(code)
}

/// Bounds this process, opens the database and answers requests until stdin closes.
fn serve(settings: &WorkerSettings) -> io::Result<()> {
    bound_this_process(settings.data_limit)?;
    let mut input = BufReader::new(io::stdin().lock());
    let mut output = BufWriter::new(io::stdout().lock());
    let limits = EngineLimits::new()
        .memory_limit(settings.memory_limit)
        .threads(settings.threads)
        .spill(match &settings.spill {
            Some((dir, max_bytes)) => Spill::under(dir, *max_bytes),
            None => Spill::Off,
        });
    let spill_dir = settings.spill.as_ref().map(|(dir, _)| dir.as_path());
    let root = match open::open_configured(&settings.name, &settings.path, &limits, spill_dir) {
        Ok(connection) => connection,
        Err(e) => {
            protocol::write_frame(&mut output, Tag::Error, &protocol::encode_error(&e))?;
            return Ok(());
        }
    };
    protocol::write_frame(&mut output, Tag::Ready, &[])?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()?;
    let database: Arc<str> = settings.name.as_str().into();
    let quota = settings.spill.as_ref().map(|(dir, max_bytes)| SpillQuota {
        dir: dir.clone(),
        max_bytes: *max_bytes,
    });
    while let Some((tag, payload)) = protocol::read_frame(&mut input)? {
        if tag != Tag::Run {
            return Err(io::Error::other(format!("unexpected request {tag:?}")));
        }
        let request = Request::decode(&payload)?;
        let connection = root.try_clone().map_err(io::Error::other)?;
        runtime.block_on(answer(
            &database,
            connection,
            request,
            quota.clone(),
            &mut output,
        ))?;
    }
    Ok(())
}

/// Runs one request and writes its schema, batches and end (or its error).
async fn answer(
    database: &Arc<str>,
    connection: duckdb::Connection,
    request: Request,
    quota: Option<SpillQuota>,
    output: &mut impl Write,
) -> io::Result<()> {
    // The same caps as the adapter's pump: the statement ends here once the adapter's reader
    // has all it keeps.
    let options = ExecOptions::default()
        .with_max_rows(request.max_rows)
        .with_max_bytes(usize::try_from(request.max_bytes).unwrap_or(usize::MAX))
        .with_timeout(WORKER_STATEMENT_TIMEOUT);
    let started = stream::execute(
        Arc::clone(database),
        Arc::new(HostPaths::default()),
        connection,
        request.sql,
        request.unchecked,
        &options,
        quota,
    )
    .await;
    let mut batches = match started {
        Ok(batches) => batches,
        Err(e) => return write_error(output, &e),
    };
    let schema = Arc::clone(batches.schema());
    protocol::write_frame(output, Tag::Schema, &protocol::encode_batch(&schema, None)?)?;
    // The stream ends one row or one batch past a cap, which tells the adapter the result
    // was cut.
    while let Some(item) = batches.next().await {
        let batch = match item {
            Ok(batch) => batch,
            Err(e) => return write_error(output, &e),
        };
        protocol::write_frame(
            output,
            Tag::Batch,
            &protocol::encode_batch(&schema, Some(&batch))?,
        )?;
    }
    protocol::write_frame(output, Tag::Done, &[])
}

fn write_error(output: &mut impl Write, error: &DialectError) -> io::Result<()> {
    protocol::write_frame(output, Tag::Error, &protocol::encode_error(error))
}

/// Caps the memory this process may map at `data_limit` bytes (`RLIMIT_DATA`, which counts
/// the heap and every private writable mapping): DuckDB's allocations past it fail, and DuckDB
/// reports them as out-of-memory errors. A watchdog ends the worker once its adapter's process
/// is gone, so a worker busy with a statement never outlives its host. (Linux's parent-death
/// signal would fire when the *thread* that started the worker ends, which in a thread pool
/// happens at any time.)
#[cfg(unix)]
fn bound_this_process(data_limit: u64) -> io::Result<()> {
    use rustix::process::{Resource, Rlimit, getppid, setrlimit};
    setrlimit(
        Resource::Data,
        Rlimit {
            current: Some(data_limit),
            maximum: Some(data_limit),
        },
    )?;
    let parent = getppid();
    std::thread::Builder::new()
        .name("nao-duckdb-worker-watchdog".into())
        .spawn(move || {
            loop {
                std::thread::sleep(PARENT_CHECK);
                if getppid() != parent {
                    std::process::exit(3);
                }
            }
        })?;
    Ok(())
}

/// How often a worker checks that its adapter's process is still there.
#[cfg(unix)]
const PARENT_CHECK: Duration = Duration::from_millis(500);

/// Without `setrlimit` the worker only has DuckDB's own memory limit.
#[cfg(not(unix))]
fn bound_this_process(_data_limit: u64) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_round_trip_through_the_command_line() {
        let settings = WorkerSettings {
            name: "shop db".into(),
            path: "/data/shop.duckdb".into(),
            memory_limit: 1 << 30,
            threads: 2,
            data_limit: 3 << 30,
            spill: Some(("/tmp/spill dir".into(), 5 << 20)),
        };
        assert_eq!(
            WorkerSettings::parse(&settings.to_args()),
            Ok(settings.clone())
        );
        let no_spill = WorkerSettings {
            spill: None,
            ..settings
        };
        assert_eq!(WorkerSettings::parse(&no_spill.to_args()), Ok(no_spill));
        assert!(WorkerSettings::parse(&["--name".into()]).is_err());
    }
}
