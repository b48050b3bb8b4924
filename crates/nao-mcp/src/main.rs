//! `nao-mcp`: serve nao-rs's SQL tools to any MCP client. Run `nao-mcp --help`.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use nao_mcp::app;
use nao_mcp::options::{self, Options};
use tokio_util::sync::CancellationToken;
use tracing_subscriber::EnvFilter;

/// jemalloc with background threads purges freed pages within seconds, so the memory of
/// evicted HTTP sessions goes back to the system; glibc malloc kept it (measured by
/// `benches/session_memory.py`). Feature `jemalloc`, on by default.
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    // DuckDB statements run in worker processes of this same program (see app::engine_limits).
    #[cfg(feature = "duckdb")]
    if let Some(code) = nao_dialects::duckdb::run_if_worker() {
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    let options = match Options::parse(std::env::args().skip(1), |key| std::env::var(key).ok()) {
        Ok(options) => options,
        Err(error) => {
            eprintln!("nao-mcp: {error}");
            return ExitCode::from(2);
        }
    };
    if options.help || options.version {
        // Help and version go to stdout like any CLI; no protocol runs in this case.
        #[allow(clippy::print_stdout)]
        if options.help {
            print!("{}", options::help_text());
        } else {
            println!("{}", options::version_text());
        }
        return ExitCode::SUCCESS;
    }
    init_logs(&options.log_level);
    #[cfg(feature = "duckdb")]
    let options = {
        let mut options = options;
        match std::env::current_exe() {
            Ok(program) => options.duckdb_worker = Some(program),
            Err(error) => tracing::warn!(
                %error,
                "cannot find this program to start DuckDB workers; DuckDB runs in-process"
            ),
        }
        options
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("nao-mcp: could not start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(run(options));
    // A pending read of stdin cannot be cancelled; don't wait for it on the way out.
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    code
}

async fn run(options: Options) -> ExitCode {
    let server = match app::build_server(&options).await {
        Ok(server) => server,
        Err(error) => {
            tracing::error!("{error}");
            return ExitCode::FAILURE;
        }
    };
    // SIGTERM and Ctrl-C stop serving: running calls get --drain-timeout to finish, the rest
    // are cancelled (their read-only connections roll back) and answered with an error, and
    // the process exits 0.
    let shutdown = CancellationToken::new();
    tokio::spawn(cancel_on_signal(shutdown.clone()));
    match app::serve(server, &options, shutdown).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!("{error}");
            ExitCode::FAILURE
        }
    }
}

/// Cancels `shutdown` on SIGTERM or SIGINT.
async fn cancel_on_signal(shutdown: CancellationToken) {
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(error) => {
                tracing::warn!("cannot listen for SIGTERM: {error}");
                std::future::pending::<()>().await;
            }
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = terminate => {}
    }
    tracing::info!("shutting down on a signal");
    shutdown.cancel();
}

/// Logs to stderr: stdout carries the protocol in stdio mode. `RUST_LOG`, when set, chooses
/// what is logged (`RUST_LOG=nao_mcp=debug,rmcp=warn`); else `--log-level` does. A `RUST_LOG`
/// that does not parse is said so, and `--log-level` applies.
fn init_logs(level: &str) {
    let from_env = std::env::var("RUST_LOG")
        .ok()
        .filter(|directives| !directives.trim().is_empty())
        .map(|directives| EnvFilter::try_new(&directives).map_err(|e| (directives, e)));
    let (filter, bad_env) = match from_env {
        Some(Ok(filter)) => (filter, None),
        Some(Err(bad)) => (EnvFilter::new(level), Some(bad)),
        None => (EnvFilter::new(level), None),
    };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .with_ansi(false)
        .init();
    if let Some((directives, error)) = bad_env {
        tracing::warn!(%error, "RUST_LOG={directives:?} does not parse; logging at --log-level {level}");
    }
}
