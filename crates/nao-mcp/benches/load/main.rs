//! Load test of the `nao-mcp` binary over streamable HTTP (issue 25).
//!
//! Starts `nao-mcp --demo --http 127.0.0.1:0` (a free port on loopback, nothing else is ever
//! contacted), then:
//! 1. one session making point lookups only: the per-call latency floor;
//! 2. for each N in the sweep (1, 10, 50, 200), N sessions at once for a fixed time, each
//!    calling tools one after another from a mix (4 in 10 point lookups, 2 aggregates, 1 join,
//!    1 capped `SELECT *` of review texts, 2 pages of the session's last stored result), then
//!    closing its session with DELETE;
//! 3. the idle memory: RSS once settled, then after each of three more runs of 200 sessions;
//! 4. SIGTERM under load: 50 sessions call until a moment, the server gets SIGTERM just after
//!    it (every call then in flight was sent before the signal), and each of those calls is
//!    counted as answered (a tool result or a clean JSON-RPC error) or dropped; then how long
//!    the server took to exit.
//!
//! The whole of it is a round on a fresh server; the targets are printed last as medians over
//! the rounds (three by default) with their spread.
//!
//! It prints calls/s, latency percentiles, errors by kind (`tool_KIND` for a tool result with
//! `isError`, `jsonrpc_CODE`, `http_STATUS`, `client_timeout`, `io`), the server's RSS
//! (start/peak/end of each run, from /proc/PID/status) and CPU (from /proc/PID/stat, in % of
//! one core; the client's own CPU beside it, as both share the machine), and last the issue's
//! targets beside what was measured. It fails on none of them: the numbers are for people.
//! Every request has a deadline; the server is stopped at the end of each round (killed if
//! SIGTERM does not end it within 30 s). Linux only (/proc).
//!
//! ```text
//! cargo bench -p nao-mcp --bench load
//! NAO_LOAD_SECONDS=5 NAO_LOAD_SESSIONS=1,50 cargo bench -p nao-mcp --bench load
//! ```
//!
//! Environment (defaults in brackets):
//! - `NAO_LOAD_ROUNDS` [3]: rounds, each on a fresh server;
//! - `NAO_LOAD_SECONDS` [10]: length of each run;
//! - `NAO_LOAD_SESSIONS` [1,10,50,200]: the sweep;
//! - `NAO_LOAD_MEMORY_RUNS` [3] and `NAO_LOAD_MEMORY_SESSIONS` [200]: the idle-memory runs
//!   (0 runs skips them);
//! - `NAO_LOAD_SETTLE_SECONDS` [15]: the wait before reading idle RSS (jemalloc purges freed
//!   pages over ~10 s);
//! - `NAO_LOAD_POINT_CALLS` [500]: calls of the latency line;
//! - `NAO_LOAD_TIMEOUT_SECONDS` [60]: the deadline of one request;
//! - `NAO_LOAD_SERVER` [this package's `nao-mcp`]: another binary to test;
//! - `NAO_LOAD_SERVER_ARGS` []: more flags for the server, split on whitespace (e.g.
//!   `--timeout 5`). The server inherits the environment (`_RJEM_MALLOC_CONF=…` reaches its
//!   jemalloc);
//! - `NAO_LOAD_CLOSE_SESSIONS` [1]: 0 leaves every session open at the end of its run (a client
//!   that vanished without DELETE), to see what idle sessions hold until their idle timeout;
//! - `NAO_LOAD_SERVER_LOG` []: a file to copy the server's stderr to (with
//!   `_RJEM_MALLOC_CONF=stats_print:true` jemalloc prints its settings there at exit; its
//!   per-arena numbers need jemalloc built with statistics, which tikv-jemallocator's `stats`
//!   feature turns on and the binary does not).
//!
//! Run without `--bench` (as `cargo test --benches` does) it makes a short smoke run instead:
//! one round, 1 and 4 sessions for 1 s, one memory run of 4 sessions.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod http;
mod mcp;
mod server;
mod targets;
mod workload;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use server::{PeakWatch, ProcSample, Server};
use targets::Facts;
use workload::{Mix, Op, RunOutcome, RunPlan};

/// What to run, from the environment.
#[derive(Debug)]
struct Config {
    rounds: usize,
    seconds: f64,
    sweep: Vec<usize>,
    memory_runs: usize,
    memory_sessions: usize,
    settle: Duration,
    point_calls: u64,
    deadline: Duration,
    program: String,
    server_args: Vec<String>,
    server_log: Option<String>,
    close_sessions: bool,
}

impl Config {
    fn from_env(smoke: bool) -> Result<Config, String> {
        let number = |key: &str, default: f64| -> Result<f64, String> {
            match std::env::var(key) {
                Ok(text) => text
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|n| n.is_finite() && *n >= 0.0)
                    .ok_or_else(|| format!("{key}={text:?} is not a number ≥ 0")),
                Err(_) => Ok(default),
            }
        };
        let sweep = match std::env::var("NAO_LOAD_SESSIONS") {
            Ok(text) => text
                .split(',')
                .map(|n| n.trim().parse::<usize>().ok().filter(|n| *n > 0))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| format!("NAO_LOAD_SESSIONS={text:?}: want e.g. 1,10,50,200"))?,
            Err(_) if smoke => vec![1, 4],
            Err(_) => vec![1, 10, 50, 200],
        };
        let pick = |full: f64, short: f64| if smoke { short } else { full };
        let program = std::env::var("NAO_LOAD_SERVER")
            .unwrap_or_else(|_| env!("CARGO_BIN_EXE_nao-mcp").to_owned());
        let server_args = std::env::var("NAO_LOAD_SERVER_ARGS")
            .unwrap_or_default()
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        Ok(Config {
            rounds: (number("NAO_LOAD_ROUNDS", pick(3.0, 1.0))? as usize).max(1),
            seconds: number("NAO_LOAD_SECONDS", pick(10.0, 1.0))?,
            sweep,
            memory_runs: number("NAO_LOAD_MEMORY_RUNS", pick(3.0, 1.0))? as usize,
            memory_sessions: (number("NAO_LOAD_MEMORY_SESSIONS", pick(200.0, 4.0))? as usize)
                .max(1),
            settle: Duration::from_secs_f64(number("NAO_LOAD_SETTLE_SECONDS", pick(15.0, 1.0))?),
            point_calls: (number("NAO_LOAD_POINT_CALLS", pick(500.0, 50.0))? as u64).max(1),
            deadline: Duration::from_secs_f64(number("NAO_LOAD_TIMEOUT_SECONDS", 60.0)?.max(0.001)),
            program,
            server_args,
            server_log: std::env::var("NAO_LOAD_SERVER_LOG").ok(),
            close_sessions: number("NAO_LOAD_CLOSE_SESSIONS", 1.0)? != 0.0,
        })
    }

    fn plan(&self, sessions: usize, mix: Mix) -> RunPlan {
        RunPlan {
            sessions,
            duration: Duration::from_secs_f64(self.seconds),
            max_calls: None,
            deadline: self.deadline,
            mix,
            close: self.close_sessions,
        }
    }
}

/// One run as the table shows it.
#[derive(Debug)]
struct Measured {
    outcome: RunOutcome,
    rss_start: u64,
    rss_peak: u64,
    rss_end: u64,
    server_cpu: f64,
    client_cpu: f64,
}

fn main() -> ExitCode {
    let smoke = !std::env::args().any(|arg| arg == "--bench");
    let config = match Config::from_env(smoke) {
        Ok(config) => config,
        Err(error) => {
            eprintln!("load: {error}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("load: no runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(&config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("load: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Sessions that call until the signal in the SIGTERM round.
const SIGTERM_SESSIONS: usize = 50;

/// How long they call before it.
const SIGTERM_AFTER: Duration = Duration::from_secs(3);

/// How long after the last call was sent the signal goes.
const SIGTERM_MARGIN: Duration = Duration::from_millis(100);

async fn run(config: &Config) -> Result<(), String> {
    let mut rounds = Vec::new();
    for round in 1..=config.rounds {
        println!(
            "
=== round {round} of {}",
            config.rounds
        );
        rounds.push(run_round(config).await?);
    }
    targets::print(&rounds, nao_core::DEFAULT_RESULT_BUDGET as u64 + (64 << 20));
    Ok(())
}

/// One round on a fresh server; what it measured of the targets.
async fn run_round(config: &Config) -> Result<Facts, String> {
    let mut facts = Facts::default();
    // Room for every session of the largest run (of every run, when none is closed), and for
    // sessions whose DELETE failed.
    let runs = config
        .sweep
        .iter()
        .copied()
        .chain(std::iter::repeat_n(
            config.memory_sessions,
            config.memory_runs,
        ))
        .chain([SIGTERM_SESSIONS]);
    let room = if config.close_sessions {
        2 * runs.max().unwrap_or(1)
    } else {
        1 + runs.sum::<usize>()
    };
    let mut args = vec!["--max-sessions".to_owned(), room.to_string()];
    args.extend(config.server_args.iter().cloned());
    let server = Server::start(&config.program, &args, config.server_log.as_deref()).await?;
    println!(
        "nao-mcp load test: {} --demo on http://{}/mcp {} (pid {})",
        config.program,
        server.addr,
        args.join(" "),
        server.pid
    );
    tokio::time::sleep(Duration::from_secs(1)).await;
    let start = server.sample();
    println!("server RSS at start: {}", mib(start.rss));

    // 1. The latency floor.
    let plan = RunPlan {
        max_calls: Some(config.point_calls),
        ..config.plan(1, Mix::PointOnly)
    };
    let point = measure(&server, plan).await;
    let latencies = point
        .outcome
        .latencies
        .get(&Op::Point)
        .cloned()
        .unwrap_or_default();
    println!(
        "\none session, point lookups only: {} calls, {:.0} calls/s, p50 {} p95 {} p99 {} ms, {} errors (target p50 ≤ 2 ms)",
        latencies.len(),
        rate(&point.outcome),
        ms(percentile(&latencies, 50.0)),
        ms(percentile(&latencies, 95.0)),
        ms(percentile(&latencies, 99.0)),
        point.outcome.error_count()
    );
    facts.point_p50 = percentile(&latencies, 50.0);

    // 2. The sweep.
    println!(
        "\nmixed load, {} s per run (of 10 calls: 4 point, 2 aggregate, 1 join, 1 capped SELECT *, 2 pages)",
        config.seconds
    );
    let mut sweep = Vec::new();
    for &sessions in &config.sweep {
        let measured = measure(&server, config.plan(sessions, Mix::Mixed)).await;
        sweep.push((sessions, measured));
    }
    print_table(&sweep);
    print_ops(&sweep);
    print_errors(&sweep);
    sweep_facts(&mut facts, &sweep);

    // 3. Idle memory after repeated heavy runs.
    if config.memory_runs > 0 {
        tokio::time::sleep(config.settle).await;
        let mut idle = vec![server.sample().rss];
        let mut runs = Vec::new();
        for _ in 0..config.memory_runs {
            let measured = measure(&server, config.plan(config.memory_sessions, Mix::Mixed)).await;
            tokio::time::sleep(config.settle).await;
            idle.push(server.sample().rss);
            runs.push((config.memory_sessions, measured));
        }
        println!(
            "\nidle memory: {} runs of {} sessions, RSS read {} s after each",
            config.memory_runs,
            config.memory_sessions,
            config.settle.as_secs_f64()
        );
        print_table(&runs);
        print_errors(&runs);
        let trail: Vec<String> = idle.iter().map(|rss| mib(*rss)).collect();
        let target = start.rss + nao_core::DEFAULT_RESULT_BUDGET as u64 + (64 << 20);
        println!(
            "idle RSS: start {} -> after the sweep {} (target after the runs ≤ start + result budget + 64 MiB = {})",
            mib(start.rss),
            trail.join(" -> "),
            mib(target)
        );
        facts.idle_growth = idle.last().map(|last| last.saturating_sub(start.rss));
        let anon = server.sample();
        println!(
            "now: RSS {} of which anonymous {}; /proc/PID/smaps_rollup:",
            mib(anon.rss),
            mib(anon.rss_anon)
        );
        for line in server.smaps_rollup().lines().skip(1) {
            println!("    {line}");
        }
    }

    // 4. SIGTERM under load.
    let plan = RunPlan {
        duration: SIGTERM_AFTER,
        // Nobody is left to answer a DELETE.
        close: false,
        ..config.plan(SIGTERM_SESSIONS, Mix::Mixed)
    };
    let log = server.log.clone();
    let (began, begin) = tokio::sync::oneshot::channel();
    let signal = async {
        // Just after the sessions' last call was sent: every call still running was sent
        // before the signal (each session reads its clock a little after the calls begin).
        let begin = begin.await.unwrap_or_else(|_| Instant::now());
        tokio::time::sleep_until((begin + SIGTERM_AFTER + SIGTERM_MARGIN).into()).await;
        (Instant::now(), server.terminate())
    };
    let calls = workload::run(server.addr, plan, || {
        let _ = began.send(Instant::now());
    });
    let (under_load, (signalled, terminated)) = tokio::join!(calls, signal);
    let (took, status) = server.exit(signalled, terminated).await;
    let in_flight = under_load
        .answered_at
        .iter()
        .filter(|at| **at > signalled)
        .count();
    // Cut cleanly: the drain's JSON-RPC error; dropped: no answer at all.
    let cut = under_load
        .errors
        .get("jsonrpc_-32000")
        .copied()
        .unwrap_or(0);
    let dropped: u64 = under_load
        .errors
        .iter()
        .filter(|(kind, _)| {
            matches!(
                kind.as_str(),
                "io" | "client_timeout" | "bad_http" | "bad_jsonrpc"
            ) || kind.starts_with("http_")
        })
        .map(|(_, n)| n)
        .sum();
    println!(
        "\nSIGTERM after {} s of {SIGTERM_SESSIONS} sessions: of the calls in flight, {in_flight} \
         answered after the signal, {cut} cut with a clean error, {dropped} dropped; exited in \
         {:.2} s ({status})",
        SIGTERM_AFTER.as_secs(),
        took.as_secs_f64()
    );
    print_outcome_errors(SIGTERM_SESSIONS, &under_load);
    facts.sigterm_dropped = Some(dropped);
    facts.sigterm_exit = Some(took);
    facts.sigterm_cut = Some(cut);
    facts.sigterm_answered = Some(in_flight as u64);
    let log = log
        .lock()
        .map_err(|_| "the log lock was poisoned".to_owned())?;
    println!(
        "server log: {} lines, {} warnings, {} errors",
        log.lines, log.warnings, log.errors
    );
    if log.warnings + log.errors > 0 {
        for line in &log.tail {
            println!("    {line}");
        }
    }
    Ok(facts)
}

/// Runs `plan` and reads the server around it.
async fn measure(server: &Server, plan: RunPlan) -> Measured {
    let rss_start = server.sample().rss;
    let watch = PeakWatch::start(server, Duration::from_millis(100));
    let mut began = None;
    let outcome = workload::run(server.addr, plan, || {
        began = Some((server.sample(), ProcSample::of("self")));
    })
    .await;
    let end = server.sample();
    let client_end = ProcSample::of("self");
    let rss_peak = watch.stop().max(end.rss);
    let (server_start, client_start) = began.unwrap_or_default();
    Measured {
        outcome,
        rss_start,
        rss_peak,
        rss_end: end.rss,
        server_cpu: end.cpu_percent_since(&server_start),
        client_cpu: client_end.cpu_percent_since(&client_start),
    }
}

fn print_table(runs: &[(usize, Measured)]) {
    println!(
        "{:>8} {:>7} {:>8} {:>8} {:>8} {:>8} {:>8} {:>7}  {:>20} {:>6} {:>7}",
        "sessions",
        "calls",
        "calls/s",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "max ms",
        "errors",
        "RSS start/peak/end",
        "CPU%",
        "client%"
    );
    for (sessions, m) in runs {
        let all: Vec<Duration> = m.outcome.latencies.values().flatten().copied().collect();
        let rss = format!(
            "{}/{}/{}",
            m.rss_start >> 20,
            m.rss_peak >> 20,
            m.rss_end >> 20
        );
        println!(
            "{:>8} {:>7} {:>8.1} {:>8} {:>8} {:>8} {:>8} {:>7}  {:>16} MiB {:>6.0} {:>7.0}",
            sessions,
            m.outcome.answered(),
            rate(&m.outcome),
            ms(percentile(&all, 50.0)),
            ms(percentile(&all, 95.0)),
            ms(percentile(&all, 99.0)),
            ms(percentile(&all, 100.0)),
            m.outcome.error_count(),
            rss,
            m.server_cpu,
            m.client_cpu
        );
    }
}

/// p50/p99 by kind of call.
fn print_ops(runs: &[(usize, Measured)]) {
    print!("{:>8}", "p50/p99");
    for op in Op::ALL {
        print!(" {:>17}", op.name());
    }
    println!();
    for (sessions, m) in runs {
        print!("{sessions:>8}");
        for op in Op::ALL {
            let latencies = m.outcome.latencies.get(&op).cloned().unwrap_or_default();
            let cell = format!(
                "{}/{}",
                ms(percentile(&latencies, 50.0)),
                ms(percentile(&latencies, 99.0))
            );
            print!(" {cell:>17}");
        }
        println!();
    }
}

fn print_errors(runs: &[(usize, Measured)]) {
    for (sessions, m) in runs {
        print_outcome_errors(*sessions, &m.outcome);
    }
}

fn print_outcome_errors(sessions: usize, outcome: &RunOutcome) {
    if outcome.errors.is_empty() && outcome.failed_sessions == 0 {
        return;
    }
    let kinds: Vec<String> = outcome
        .errors
        .iter()
        .map(|(kind, n)| format!("{kind} {n}"))
        .collect();
    println!(
        "errors at {sessions} sessions: {} ({} sessions failed to open, {} reconnects)",
        kinds.join(", "),
        outcome.failed_sessions,
        outcome.reconnects
    );
    for (kind, example) in &outcome.examples {
        let example: String = example.chars().take(160).collect();
        println!("    {kind}: {example}");
    }
}

/// What the sweep measured of the targets: the 50-session rate against one session's, its
/// p99 and errors; statement timeouts at 200 sessions.
fn sweep_facts(facts: &mut Facts, sweep: &[(usize, Measured)]) {
    let run = |n: usize| {
        sweep
            .iter()
            .find(|(sessions, _)| *sessions == n)
            .map(|(_, m)| &m.outcome)
    };
    if let (Some(one), Some(fifty)) = (run(1), run(50)) {
        let all: Vec<Duration> = fifty.latencies.values().flatten().copied().collect();
        facts.p99_50 = percentile(&all, 99.0);
        facts.ratio_50 = Some(rate(fifty) / rate(one).max(f64::MIN_POSITIVE));
        facts.errors_50 = Some(fifty.error_count());
    }
    if let Some(two_hundred) = run(200) {
        let timeouts = two_hundred.errors.get("tool_database_timeout");
        facts.timeouts_200 = Some(timeouts.copied().unwrap_or(0));
    }
}

/// Answered calls per second of the run.
fn rate(outcome: &RunOutcome) -> f64 {
    let seconds = outcome.elapsed.as_secs_f64();
    if seconds > 0.0 {
        outcome.answered() as f64 / seconds
    } else {
        0.0
    }
}

/// The nearest-rank percentile `p` (0–100) of `latencies`.
fn percentile(latencies: &[Duration], p: f64) -> Option<Duration> {
    if latencies.is_empty() {
        return None;
    }
    let mut sorted = latencies.to_vec();
    sorted.sort_unstable();
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted.get(rank.clamp(1, sorted.len()) - 1).copied()
}

/// Milliseconds, two decimals below 10 ms, or `-`.
fn ms(latency: Option<Duration>) -> String {
    match latency {
        None => "-".into(),
        Some(latency) => {
            let ms = latency.as_secs_f64() * 1000.0;
            if ms < 10.0 {
                format!("{ms:.2}")
            } else {
                format!("{ms:.0}")
            }
        }
    }
}

fn mib(bytes: u64) -> String {
    format!("{} MiB", bytes >> 20)
}
