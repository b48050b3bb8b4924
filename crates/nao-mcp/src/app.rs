//! From [`Options`] to a running server: open the databases, build the settings, serve.

use std::sync::Arc;

use nao_core::guard::Policy;
use nao_core::masking::{MaskKey, ValueDetector};
use nao_core::{
    AdmissionLimits, Databases, Dialect, ResultStore, Settings, ToolContext, ToolRegistry, tools,
};
use nao_dialects::{EngineLimits, Isolation, Spill};
use rmcp::ServiceExt;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio_util::sync::CancellationToken;

use crate::McpServer;
use crate::auth::BearerToken;
use crate::config::{NamedQuery, NamedQueryError, NamedQuerySpec};
use crate::options::{Options, Transport};
use crate::redact::{redact_url, scrub};

/// Why the server could not start or stopped with an error. Messages never hold credentials.
#[derive(Debug)]
#[non_exhaustive]
pub enum ServeError {
    /// A database could not be opened.
    Database {
        /// Its name.
        name: String,
        /// What went wrong (URL redacted).
        message: String,
    },
    /// The transport failed.
    Transport(String),
    /// The masking key file could not be read or holds no usable key.
    MaskKey {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong (never the key).
        message: String,
    },
    /// The bearer token file could not be read or holds no usable token.
    AuthToken {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong (never the token).
        message: String,
    },
    /// A named query of the config file cannot be served.
    NamedQuery(NamedQueryError),
}

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServeError::Database { name, message } => {
                write!(f, "could not open database {name:?}: {message}")
            }
            ServeError::Transport(message) => write!(f, "transport error: {message}"),
            ServeError::MaskKey { path, message } => {
                write!(f, "masking key file {}: {message}", path.display())
            }
            ServeError::AuthToken { path, message } => {
                write!(f, "bearer token file {}: {message}", path.display())
            }
            ServeError::NamedQuery(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for ServeError {}

/// Opens every database the options name (and the demo one when asked), each with the
/// options' [`open_options`].
pub async fn open_databases(options: &Options) -> Result<Databases, ServeError> {
    let mut databases = Databases::new();
    if options.demo {
        databases.insert(demo_database()?);
    }
    let open_options = open_options(options);
    for database in &options.databases {
        let dialect = nao_dialects::open_with(&database.name, &database.url, &open_options)
            .await
            .map_err(|error| ServeError::Database {
                name: database.name.clone(),
                // Errors may quote the URL or its password, raw or decoded: take them out
                // whatever the adapter promises.
                message: scrub(&error.to_string(), &database.url),
            })?;
        tracing::info!(
            database = %database.name,
            url = %redact_url(&database.url),
            "database opened"
        );
        databases.insert(dialect);
    }
    bound_sqlite_heap(options);
    Ok(databases)
}

/// Room on SQLite's heap beyond the databases' memory limits: the demo database and the page
/// caches of catalogue reads.
#[cfg(feature = "sqlite")]
const SQLITE_HEAP_HEADROOM: u64 = 256 << 20;

/// This process uses SQLite only through its databases, so SQLite's whole heap can be capped:
/// each SQLite database's memory limit, plus headroom. This bounds what the per-value limit
/// does not: a statement holding many large values at once.
#[cfg(feature = "sqlite")]
fn bound_sqlite_heap(options: &Options) {
    let sqlite = options
        .databases
        .iter()
        .filter(|d| d.url.to_ascii_lowercase().starts_with("sqlite:"))
        .count()
        + usize::from(options.demo);
    if sqlite == 0 {
        return;
    }
    let per_database = engine_limits(options).memory_limit_bytes();
    let cap = per_database
        .saturating_mul(sqlite as u64)
        .saturating_add(SQLITE_HEAP_HEADROOM);
    match nao_dialects::sqlite::limit_process_heap(cap) {
        Ok(now) => tracing::debug!(bytes = now, "SQLite's heap is capped"),
        Err(error) => tracing::warn!(%error, "could not cap SQLite's heap"),
    }
}

#[cfg(not(feature = "sqlite"))]
fn bound_sqlite_heap(_options: &Options) {}

/// The generated demo shop (customers, products, orders, reviews…) in an in-memory SQLite,
/// named `shop`.
#[cfg(feature = "sqlite")]
pub fn demo_database() -> Result<Arc<dyn Dialect>, ServeError> {
    use nao_dialects::demo::DemoScale;
    use nao_dialects::sqlite::SqliteDialect;
    let shop = SqliteDialect::demo("shop", DemoScale::Full).map_err(|e| ServeError::Database {
        name: "shop".into(),
        message: e.to_string(),
    })?;
    Ok(Arc::new(shop))
}

/// The demo needs the embedded SQLite adapter.
#[cfg(not(feature = "sqlite"))]
pub fn demo_database() -> Result<Arc<dyn Dialect>, ServeError> {
    Err(ServeError::Database {
        name: "shop".into(),
        message: "--demo needs the `sqlite` feature of nao-mcp".into(),
    })
}

/// How databases are opened: `--allow-privileged` and `--set-role` for servers, the engine
/// limits for embedded ones.
pub fn open_options(options: &Options) -> nao_dialects::OpenOptions {
    let open = nao_dialects::OpenOptions::new()
        .allow_privileged(options.allow_privileged)
        .engine_limits(engine_limits(options));
    match &options.set_role {
        Some(role) => open.set_role(role.as_str()),
        None => open,
    }
}

/// How many DuckDB worker processes may run statements at once, per database.
const DUCKDB_WORKERS: usize = 2;

/// The embedded engines' limits: memory, threads, spill, and DuckDB in worker processes when
/// the options name a worker program (the binary names itself, which its `main` turns into a
/// worker, unless `--duckdb-in-process`).
pub fn engine_limits(options: &Options) -> EngineLimits {
    let mut limits = EngineLimits::new();
    if let Some(bytes) = options.memory_limit {
        limits = limits.memory_limit(bytes);
    }
    if let Some(threads) = options.engine_threads {
        limits = limits.threads(threads);
    }
    if let Some(dir) = &options.spill_dir {
        limits = limits.spill(Spill::under(dir, options.max_spill));
    }
    match &options.duckdb_worker {
        Some(program) if !options.duckdb_in_process => {
            limits.isolation(Isolation::workers(program, DUCKDB_WORKERS))
        }
        _ => limits,
    }
}

/// The settings the options ask for.
pub fn settings(options: &Options) -> Settings {
    let mut policy = Policy::default();
    for pattern in &options.allow_tables {
        policy = policy.allow_table(pattern.as_str());
    }
    for pattern in &options.deny_tables {
        policy = policy.deny_table(pattern.as_str());
    }
    for pattern in &options.deny_columns {
        policy = policy.deny_column(pattern.as_str());
    }
    for (pattern, rule) in &options.mask_columns {
        policy = policy.mask_column(pattern.as_str(), *rule);
    }
    let mut settings = Settings::default().with_policy(policy);
    if options.detect_personal_values {
        settings = settings.with_value_detector(ValueDetector::all());
    }
    if let Some(rows) = options.max_rows {
        settings = settings.with_max_rows(rows);
    }
    if let Some(timeout) = options.timeout {
        settings = settings.with_timeout(timeout);
    }
    let mut admission = AdmissionLimits::default();
    if let Some(running) = options.max_running {
        admission = admission.with_max_running(running);
    }
    if let Some(waiting) = options.max_waiting {
        admission = admission.with_max_waiting(waiting);
    }
    if let Some(wait) = options.max_wait {
        admission = admission.with_max_wait(wait);
    }
    settings.with_admission(admission)
}

/// The masking key in `path`: 32 hex digits, else the file's text as a passphrase (without
/// its trailing line break).
fn read_mask_key(path: &std::path::Path) -> Result<MaskKey, ServeError> {
    let error = |message: String| ServeError::MaskKey {
        path: path.to_owned(),
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|e| error(e.to_string()))?;
    let text = text.trim_end_matches(['\n', '\r']);
    let hex = text.len() == 32 && text.bytes().all(|b| b.is_ascii_hexdigit());
    let key = if hex {
        MaskKey::from_hex(text)
    } else {
        MaskKey::from_passphrase(text)
    };
    key.map_err(|e| error(e.to_string()))
}

/// The token HTTP requests must present: from `--auth-token-env` (read when the options were
/// parsed) or `--auth-token-file` (read now), never both.
pub fn bearer_token(options: &Options) -> Result<Option<BearerToken>, ServeError> {
    match (&options.auth_token, &options.auth_token_file) {
        (Some(_), Some(path)) => Err(ServeError::AuthToken {
            path: path.clone(),
            message: "give the token once: --auth-token-env or --auth-token-file".into(),
        }),
        (Some(token), None) => Ok(Some(token.clone())),
        (None, Some(path)) => {
            let error = |message: String| ServeError::AuthToken {
                path: path.clone(),
                message,
            };
            let text = std::fs::read_to_string(path).map_err(|e| error(e.to_string()))?;
            BearerToken::new(&text).map(Some).ok_or_else(|| {
                error("holds no usable token (printable ASCII without spaces)".into())
            })
        }
        (None, None) => Ok(None),
    }
}

/// The server the options describe: the SQL tools over the opened databases.
pub async fn build_server(options: &Options) -> Result<McpServer, ServeError> {
    let databases = open_databases(options).await?;
    let mut settings = settings(options);
    if let Some(path) = &options.mask_key_file {
        settings = settings.with_mask_key(read_mask_key(path)?);
    }
    let ctx = ToolContext::new(databases)
        .with_settings(settings)
        .with_results(Arc::new(result_store(options)));
    let registry = named_queries(tools::sql_tools(), &options.named_queries, &ctx)?;
    Ok(McpServer::new(registry, ctx))
}

/// `registry` with a tool for each named query, each checked against its database as the
/// tools see it (governed by the policy): see [`NamedQuery::new`].
pub fn named_queries(
    mut registry: ToolRegistry,
    specs: &[NamedQuerySpec],
    ctx: &ToolContext,
) -> Result<ToolRegistry, ServeError> {
    for spec in specs {
        let database = ctx
            .databases()
            .pick(spec.database.as_deref())
            .map_err(|error| {
                ServeError::NamedQuery(NamedQueryError {
                    tool: spec.name.clone(),
                    message: match &spec.database {
                        Some(_) => error.to_string(),
                        None => format!(
                            "{error}; name its database with `database = \"…\"` under \
                             [tools.{}]",
                            spec.name
                        ),
                    },
                })
            })?;
        let tool =
            NamedQuery::new(spec.clone(), database.as_ref()).map_err(ServeError::NamedQuery)?;
        if registry.names().contains(&spec.name) {
            return Err(ServeError::NamedQuery(NamedQueryError {
                tool: spec.name.clone(),
                message: "a tool of this name is already served".into(),
            }));
        }
        tracing::info!(tool = %spec.name, database = %database.name(), "named query served");
        registry.register(tool);
    }
    Ok(registry)
}

/// The store of results the options ask for: their budget, and spilling under `--spill-dir`.
pub fn result_store(options: &Options) -> ResultStore {
    let store = ResultStore::new(options.result_budget);
    match &options.spill_dir {
        Some(dir) => store.with_spill_dir(dir),
        None => store,
    }
}

/// Serves `server` on the options' transport until the client leaves (EOF on stdin), the
/// transport fails, or `shutdown` is cancelled (SIGTERM, Ctrl-C). A shutdown is graceful:
/// running calls get `--drain-timeout` to finish, the rest a JSON-RPC error.
pub async fn serve(
    server: McpServer,
    options: &Options,
    shutdown: CancellationToken,
) -> Result<(), ServeError> {
    match &options.transport {
        Transport::Stdio => {
            serve_stdio(
                server,
                options.max_request_bytes,
                options.drain_timeout,
                shutdown,
            )
            .await
        }
        #[cfg(feature = "http")]
        Transport::Http(addr) => {
            let mut config = crate::http::HttpConfig::default()
                .with_max_request_bytes(options.max_request_bytes)
                .with_max_sessions(options.max_sessions)
                .with_session_idle_timeout(options.session_idle_timeout)
                .with_max_connections(options.max_connections)
                .with_drain_timeout(options.drain_timeout)
                .with_allowed_origins(options.allowed_origins.iter().cloned())
                .with_allowed_hosts(options.allowed_hosts.iter().cloned());
            if let Some(token) = bearer_token(options)? {
                config = config.with_bearer_token(token);
            } else if !addr.ip().is_loopback() {
                tracing::warn!(
                    "serving {addr} without a bearer token: anyone who reaches the port can \
                     query the databases (--auth-token-env or --auth-token-file)"
                );
            }
            crate::http::serve_http(server, *addr, &config, shutdown).await
        }
        #[cfg(not(feature = "http"))]
        Transport::Http(_) => Err(ServeError::Transport(
            "--http needs the `http` feature of nao-mcp".into(),
        )),
    }
}

/// Serves JSON-RPC lines on stdin/stdout. Lines longer than `max_request_bytes` are dropped
/// (and logged) without stopping the server.
///
/// When `shutdown` is cancelled, new calls get a JSON-RPC error, running ones get
/// `drain_timeout` to finish and are then cancelled (answered with an error), and the session
/// ends. When the client closes its end of stdout (the pipe's reader is gone), every running
/// statement is cancelled at once: nobody is left to read the answer. EOF on stdin alone is not
/// that: a client may close stdin and still read the answers (`printf … | nao-mcp`).
pub async fn serve_stdio(
    server: McpServer,
    max_request_bytes: usize,
    drain_timeout: std::time::Duration,
    shutdown: CancellationToken,
) -> Result<(), ServeError> {
    let (stdin, stdout) = rmcp::transport::stdio_pipes();
    let transport =
        AsyncRwTransport::new_server(stdin, stdout).with_max_line_length(max_request_bytes);
    // Cancelling it cancels every running call's request token (rmcp's serve loop and its
    // requests are its children) and ends the session.
    let session = CancellationToken::new();
    let drain = server.drain().clone();
    let running = server
        .serve_with_ct(transport, session.clone())
        .await
        .map_err(|e| ServeError::Transport(e.to_string()))?;
    let watch = tokio::spawn(end_session_when(
        session.clone(),
        shutdown,
        drain,
        drain_timeout,
    ));
    let reason = running
        .waiting()
        .await
        .map_err(|e| ServeError::Transport(e.to_string()))?;
    watch.abort();
    tracing::info!(?reason, "stdio session ended");
    Ok(())
}

/// Cancels `session` after a graceful drain once `shutdown` is cancelled, or at once when the
/// reader of stdout goes away.
async fn end_session_when(
    session: CancellationToken,
    shutdown: CancellationToken,
    drain: crate::drain::Drain,
    drain_timeout: std::time::Duration,
) {
    tokio::select! {
        () = shutdown.cancelled() => {
            let report = drain.shut_down(drain_timeout).await;
            tracing::info!(running = report.running, cut = report.cut, "drained running calls");
        }
        () = stdout_reader_gone() => {
            tracing::info!("the client closed stdout: cancelling running calls");
        }
    }
    session.cancel();
}

/// Resolves when stdout is a pipe whose reading end has been closed (the kernel reports an
/// error condition on the writing end); never when stdout is something else (a file, a
/// terminal) or cannot be watched.
#[cfg(target_os = "linux")]
async fn stdout_reader_gone() {
    use std::os::unix::fs::FileTypeExt;
    use tokio::io::Interest;
    use tokio::net::unix::pipe;
    // Only a pipe (FIFO) is watched. Node and others give a child a socket pair for its
    // stdio, and opening a socket through /proc fails with the same ENXIO that means "no
    // reader" for a FIFO: that must not end the session.
    let is_pipe = std::fs::metadata("/proc/self/fd/1").is_ok_and(|m| m.file_type().is_fifo());
    if !is_pipe {
        tracing::debug!("stdout is not a pipe: a closed reader is noticed when a write fails");
        std::future::pending::<()>().await;
    }
    // A second writing end of the same pipe, registered with the reactor (as rmcp's own
    // stdio transport does); it is only watched, never written to.
    match pipe::OpenOptions::new().open_sender("/proc/self/fd/1") {
        Ok(stdout) => {
            if let Err(error) = stdout.ready(Interest::ERROR).await {
                tracing::debug!(%error, "cannot watch stdout");
                std::future::pending::<()>().await;
            }
        }
        // A pipe without a reader cannot be opened for writing: the client is gone already.
        Err(error) if error.raw_os_error() == Some(ENXIO) => {}
        Err(error) => {
            tracing::debug!(%error, "stdout is not a pipe that can be watched");
            std::future::pending::<()>().await;
        }
    }
}

/// `open(2)`'s error for a FIFO opened to write, without blocking, that has no reader.
#[cfg(target_os = "linux")]
const ENXIO: i32 = 6;

#[cfg(not(target_os = "linux"))]
async fn stdout_reader_gone() {
    std::future::pending::<()>().await;
}
