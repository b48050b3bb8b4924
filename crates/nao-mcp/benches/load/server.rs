//! The server under test: the `nao-mcp` binary serving the demo shop on a free port of
//! 127.0.0.1, its stderr drained (and counted), its memory and CPU read from `/proc`.

use std::io::Write;
use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// How long the server may take to load the demo and listen.
const START_TIMEOUT: Duration = Duration::from_secs(120);
/// How long the server may take to exit after SIGTERM before it is killed.
const STOP_TIMEOUT: Duration = Duration::from_secs(30);
/// Linux reports CPU times in /proc/PID/stat in USER_HZ ticks, 100 per second on every
/// architecture (the kernel's ABI, whatever its internal HZ).
const TICKS_PER_SECOND: f64 = 100.0;

/// What the server wrote to stderr: line counts and the last lines, for the report.
#[derive(Debug, Default)]
pub(crate) struct ServerLog {
    pub(crate) lines: u64,
    pub(crate) warnings: u64,
    pub(crate) errors: u64,
    /// The last few lines (kept short).
    pub(crate) tail: Vec<String>,
    /// Where every line is copied, if anywhere.
    pub(crate) copy: Option<std::fs::File>,
}

/// The running server.
#[derive(Debug)]
pub(crate) struct Server {
    child: Child,
    /// Its process id.
    pub(crate) pid: u32,
    /// Where it listens.
    pub(crate) addr: SocketAddr,
    pub(crate) log: Arc<Mutex<ServerLog>>,
}

impl Server {
    /// Starts `program --demo --http 127.0.0.1:0 ARGS…` and waits until it logs its address;
    /// every line of its stderr is also appended to `log_copy`, if given.
    pub(crate) async fn start(
        program: &str,
        args: &[String],
        log_copy: Option<&str>,
    ) -> Result<Server, String> {
        let copy = match log_copy {
            Some(path) => {
                Some(std::fs::File::create(path).map_err(|e| format!("cannot write {path}: {e}"))?)
            }
            None => None,
        };
        let mut child = Command::new(program)
            .args(["--demo", "--http", "127.0.0.1:0", "--log-level", "info"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("could not start {program}: {e}"))?;
        let pid = child
            .id()
            .ok_or_else(|| "the server exited at once".to_owned())?;
        let stderr = child
            .stderr
            .take()
            .ok_or_else(|| "no stderr pipe".to_owned())?;
        let mut lines = BufReader::new(stderr).lines();
        let log = Arc::new(Mutex::new(ServerLog {
            copy,
            ..ServerLog::default()
        }));
        let listening = tokio::time::timeout(START_TIMEOUT, async {
            while let Ok(Some(line)) = lines.next_line().await {
                record(&log, &line);
                if let Some(rest) = line.split("serving streamable HTTP on http://").nth(1) {
                    let addr = rest.trim().trim_end_matches("/mcp");
                    return addr
                        .parse::<SocketAddr>()
                        .map_err(|e| format!("{addr:?}: {e}"));
                }
            }
            Err("the server exited before listening".to_owned())
        })
        .await
        .map_err(|_| "the server did not listen within 120 s".to_owned())
        .and_then(|found| found);
        let addr = match listening {
            Ok(addr) if addr.ip().is_loopback() => addr,
            Ok(addr) => return Err(format!("the server listens on {addr}, not on loopback")),
            Err(error) => {
                let tail = log.lock().map(|l| l.tail.join("\n")).unwrap_or_default();
                return Err(format!("{error}\n{tail}"));
            }
        };
        // Keep draining, so the server never blocks on a full pipe.
        let sink = log.clone();
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                record(&sink, &line);
            }
        });
        Ok(Server {
            child,
            pid,
            addr,
            log,
        })
    }

    /// A reading of the server's memory and CPU time now.
    pub(crate) fn sample(&self) -> ProcSample {
        ProcSample::of(&self.pid.to_string())
    }

    /// The server's `/proc/PID/smaps_rollup`, for the memory report.
    pub(crate) fn smaps_rollup(&self) -> String {
        std::fs::read_to_string(format!("/proc/{}/smaps_rollup", self.pid)).unwrap_or_default()
    }

    /// Sends SIGTERM; whether it was sent.
    pub(crate) fn terminate(&self) -> bool {
        // std and tokio only send SIGKILL; `kill` sends SIGTERM to the one process started here.
        std::process::Command::new("kill")
            .args(["-TERM", &self.pid.to_string()])
            .status()
            .is_ok_and(|status| status.success())
    }

    /// Waits for the server to exit after a SIGTERM sent at `signalled` (killed if it has not
    /// exited within 30 s, or at once when `terminated` is false). Returns how long it took
    /// from the signal and its exit status.
    pub(crate) async fn exit(mut self, signalled: Instant, terminated: bool) -> (Duration, String) {
        if terminated
            && let Ok(Ok(status)) = tokio::time::timeout(STOP_TIMEOUT, self.child.wait()).await
        {
            return (signalled.elapsed(), status.to_string());
        }
        let _ = self.child.kill().await;
        (signalled.elapsed(), "killed".to_owned())
    }
}

fn record(log: &Mutex<ServerLog>, line: &str) {
    let Ok(mut log) = log.lock() else { return };
    log.lines += 1;
    if let Some(copy) = &mut log.copy
        && writeln!(copy, "{line}").is_err()
    {
        log.copy = None;
    }
    if line.contains(" WARN ") {
        log.warnings += 1;
    }
    if line.contains(" ERROR ") {
        log.errors += 1;
    }
    if log.tail.len() == 5 {
        log.tail.remove(0);
    }
    log.tail.push(line.chars().take(300).collect());
}

/// A process's resident memory and CPU time at one moment.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ProcSample {
    /// Resident set, bytes.
    pub(crate) rss: u64,
    /// Resident anonymous memory (the heap), bytes.
    pub(crate) rss_anon: u64,
    /// User plus system CPU time, in ticks.
    pub(crate) cpu_ticks: u64,
    pub(crate) at: Option<Instant>,
}

impl ProcSample {
    /// Reads `/proc/<pid>/status` and `/proc/<pid>/stat` (`pid` may be `self`). A process
    /// that is gone reads as zeros.
    pub(crate) fn of(pid: &str) -> ProcSample {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let kib = |key: &str| {
            status
                .lines()
                .find_map(|line| line.strip_prefix(key))
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or(0)
                * 1024
        };
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // The command name may hold spaces and parentheses: fields count from the last ')'.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.split_whitespace().collect())
            .unwrap_or_default();
        let field = |n: usize| {
            fields
                .get(n)
                .and_then(|f| f.parse::<u64>().ok())
                .unwrap_or(0)
        };
        ProcSample {
            rss: kib("VmRSS:"),
            rss_anon: kib("RssAnon:"),
            // Fields 14 and 15 of stat (utime, stime); `fields[0]` is field 3.
            cpu_ticks: field(11) + field(12),
            at: Some(Instant::now()),
        }
    }

    /// CPU use between `earlier` and this sample, in percent of one core.
    pub(crate) fn cpu_percent_since(&self, earlier: &ProcSample) -> f64 {
        let (Some(now), Some(then)) = (self.at, earlier.at) else {
            return 0.0;
        };
        let wall = now.duration_since(then).as_secs_f64();
        if wall <= 0.0 {
            return 0.0;
        }
        let cpu = self.cpu_ticks.saturating_sub(earlier.cpu_ticks) as f64 / TICKS_PER_SECOND;
        100.0 * cpu / wall
    }
}

/// Samples a process's RSS every `every` until dropped, keeping the peak.
#[derive(Debug)]
pub(crate) struct PeakWatch {
    peak: Arc<Mutex<u64>>,
    task: tokio::task::JoinHandle<()>,
}

impl PeakWatch {
    /// Starts watching the server.
    pub(crate) fn start(server: &Server, every: Duration) -> PeakWatch {
        let peak = Arc::new(Mutex::new(0));
        let pid = server.pid.to_string();
        let seen = peak.clone();
        let task = tokio::spawn(async move {
            loop {
                let rss = ProcSample::of(&pid).rss;
                if let Ok(mut peak) = seen.lock() {
                    *peak = (*peak).max(rss);
                }
                tokio::time::sleep(every).await;
            }
        });
        PeakWatch { peak, task }
    }

    /// The highest RSS seen, bytes.
    pub(crate) fn stop(self) -> u64 {
        self.task.abort();
        self.peak.lock().map(|peak| *peak).unwrap_or(0)
    }
}
