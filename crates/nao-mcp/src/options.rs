//! The command line of the `nao-mcp` binary, parsed by hand (no CLI framework needed for a dozen
//! flags).

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use nao_core::guard::MaskRule;

pub use crate::redact::redact_url;

/// The usage text of `nao-mcp --help`.
pub const USAGE: &str = "\
nao-mcp: an MCP server giving any MCP client safe, read-only SQL on your databases.

USAGE:
    nao-mcp [OPTIONS]

DATABASES (at least one, or --demo, or NAO_DATABASE_URL):
    --database NAME=URL      Serve the database at URL as NAME (repeatable). URLs:
                             sqlite:///path.db, duckdb:///path.duckdb, postgres://user@host/db,
                             mysql://user@host/db. `--database URL` names it `default`.
    --demo                   Serve the generated demo shop database (in memory) as `shop`.
    NAO_DATABASE_URL         Environment: a database URL used when no --database is given
                             (named by NAO_DATABASE_NAME, default `default`). Prefer the
                             environment for credentials: they are never logged or echoed.
    --set-role ROLE          Server databases: switch every connection to ROLE (SET ROLE)
                             right after connecting. On PostgreSQL a privileged login then
                             reads as the read-only ROLE; on MySQL/MariaDB a role only adds
                             privileges, so log in as a read-only user there instead.
    --allow-privileged       Server databases: open even when the role can do more than read
                             (superuser, file access, signalling other sessions, write
                             grants). Without it such a role is refused, with the SQL for a
                             read-only one. Only for hosts that really mean it: the guard and
                             the read-only transaction still apply, but the role no longer
                             backs them up.

LIMITS:
    --max-rows N             Rows kept from one query result (default 10000).
    --timeout SECONDS        Time limit of one statement (default 30).
    --allow-table PATTERN    Only these tables may be read (repeatable; `sales.*`, `orders`).
    --deny-table PATTERN     These tables may not be read (repeatable).
    --deny-column PATTERN    These columns may not be read or shown (repeatable;
                             `customers.email`, `*.ssn`): left out of descriptions, samples,
                             resources and the schema, and refused in queries.
    --mask-column PATTERN=RULE
                             These columns' values are masked wherever they are shown
                             (repeatable; `customers.email=hash`, `*.ssn=partial:4`). RULE is
                             hash (keyed: equal values stay equal, so grouping, joins and
                             counts still work), redact, null, or partial:N (the last N
                             characters). Queries may select, compare (=, IN, IS NULL), group,
                             join on and count such a column; other uses are refused.
    --detect-personal-values
                             Also replace what looks like an email address, a phone or card
                             number, an IBAN or a national id in any other text column with a
                             label ([email], [phone], ...), and say so under the result.
    --mask-key-file PATH     The key for hash masking, read from a file (32 hex digits, as
                             `openssl rand -hex 16` prints, or a long passphrase), so hashes
                             stay the same across restarts. Default: a random key per run.
    --max-request-bytes N    Largest JSON-RPC message accepted (default 4194304).
    --max-running N          Statements one database runs at once (default: twice the cores,
                             at least 4, and no more than its own pool). The others wait
                             for a turn; waiting does not count against --timeout.
    --max-waiting N          Statements that may wait for a turn per database (default 256);
                             one more is answered busy (retry later) at once.
    --max-wait SECONDS       How long a statement waits for a turn before it is answered
                             busy (retry later) (default 10).

EMBEDDED ENGINES (SQLite, DuckDB):
    --memory-limit SIZE      Memory one database's engine may use (e.g. 512MiB, 2GiB; default
                             an eighth of the machine's memory, between 128 MiB and 2 GiB).
    --engine-threads N       Threads one DuckDB statement runs on (default: the cores).
    --spill-dir DIR          DuckDB: let big sorts, joins and aggregates spill to a private
                             directory under DIR (removed on exit) instead of failing at the
                             memory limit; and stored results beyond --result-budget go to
                             another private directory there. Default: no spilling. (SQLite
                             always writes its temporary data to unnamed files in the
                             system's temp directory.)
    --max-spill SIZE         DuckDB: the most data spilled per database (default 2GiB).
    --duckdb-in-process      Run DuckDB statements in this process. By default each runs in
                             a worker process (this program again) whose memory the system
                             bounds and which is ended when a statement times out.

RESULTS:
    --result-budget SIZE     Memory for stored query results (what read_query_result pages),
                             shared fairly by the sessions (default 256MiB). Beyond it the
                             least recently used results of the session holding the most
                             leave memory: to --spill-dir when given, else they are dropped
                             and their query must run again. A session's results go when the
                             session ends.

TRANSPORT:
    (default)                stdio: JSON-RPC on stdin/stdout; logs go to stderr.
    --http ADDR              Streamable HTTP on ADDR (e.g. 127.0.0.1:8080), endpoint /mcp.
    --max-sessions N         HTTP: most live sessions (default 100). When full, a new client
                             gets 503 until a session ends (DELETE) or idles out; live
                             sessions are never evicted to make room.
    --session-idle-timeout SECONDS
                             HTTP: close a session that has had no request for this long
                             (default 600); a session with a call running is not idle.
    --allow-origin ORIGIN    HTTP: also accept browser requests from ORIGIN (repeatable; e.g.
                             https://app.example.com or http://host:*). Loopback origins are
                             always accepted; any other Origin gets 403, as does a Host that
                             is not localhost, 127.0.0.1 or ::1 (DNS rebinding).
    --allow-host HOST        HTTP: also accept requests whose Host is HOST, with or without a
                             port (repeatable; e.g. mcp.example.com or 10.0.0.5:8080): the
                             names clients use when the server listens beyond loopback.
    --auth-token-env VAR     HTTP: every request must send `Authorization: Bearer <token>`,
                             the token being the value of the environment variable VAR;
                             others get 401. Use it whenever --http listens beyond loopback.
    --auth-token-file PATH   HTTP: the same, the token read from the file PATH.
    --max-connections N      HTTP: most open connections (default 1024). Beyond it new
                             connections wait in the system's queue until one closes. A
                             connection must send its request headers within 10 s and its
                             body within 30 s, or it is closed.
    --drain-timeout SECONDS  On SIGTERM or Ctrl-C: stop taking new calls, let running ones
                             finish for up to this long (default 10; 0 cancels them at once),
                             answer the rest with a JSON-RPC error, then exit with success.

OTHER:
    --log-level LEVEL        error, warn, info (default), debug or trace; logs go to stderr.
                             RUST_LOG, when set, chooses instead (e.g. nao_mcp=debug,rmcp=warn).
    -h, --help               Print this help.
    -V, --version            Print the version.
";

/// Where the server talks to its client.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Transport {
    /// JSON-RPC lines on stdin/stdout.
    Stdio,
    /// Streamable HTTP on this address.
    Http(SocketAddr),
}

/// A database to open: its name (the `database_id`) and URL.
#[derive(Clone, PartialEq, Eq)]
pub struct DatabaseArg {
    /// The name the model uses.
    pub name: String,
    /// The URL; may hold credentials, so never printed (see [`redact_url`]).
    pub url: String,
}

impl fmt::Debug for DatabaseArg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DatabaseArg")
            .field("name", &self.name)
            .field("url", &redact_url(&self.url))
            .finish()
    }
}

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Options {
    /// The databases to open.
    pub databases: Vec<DatabaseArg>,
    /// Whether to serve the demo database.
    pub demo: bool,
    /// Rows kept from one result.
    pub max_rows: Option<u64>,
    /// Time limit of one statement.
    pub timeout: Option<Duration>,
    /// Table allowlist patterns.
    pub allow_tables: Vec<String>,
    /// Table denylist patterns.
    pub deny_tables: Vec<String>,
    /// Column denylist patterns.
    pub deny_columns: Vec<String>,
    /// Masked columns: pattern and rule.
    pub mask_columns: Vec<(String, MaskRule)>,
    /// The file holding the key for hash masking.
    pub mask_key_file: Option<PathBuf>,
    /// Whether the value detector runs over every result.
    pub detect_personal_values: bool,
    /// Largest JSON-RPC message accepted, in bytes.
    pub max_request_bytes: usize,
    /// The transport.
    pub transport: Transport,
    /// HTTP: the most live sessions.
    pub max_sessions: usize,
    /// HTTP: how long a session may go without a request before it is closed.
    pub session_idle_timeout: Duration,
    /// HTTP: browser origins accepted beyond the loopback ones (`scheme://host:port`).
    pub allowed_origins: Vec<String>,
    /// HTTP: `Host` names accepted beyond the loopback ones.
    pub allowed_hosts: Vec<String>,
    /// HTTP: the token every request must present (`--auth-token-env`).
    pub auth_token: Option<crate::auth::BearerToken>,
    /// HTTP: the file the token is read from when the server starts (`--auth-token-file`).
    pub auth_token_file: Option<PathBuf>,
    /// HTTP: the most open connections.
    pub max_connections: usize,
    /// How long a shutdown lets running calls finish before cancelling them.
    pub drain_timeout: Duration,
    /// Statements one database runs at once.
    pub max_running: Option<usize>,
    /// Statements that may wait for a turn per database.
    pub max_waiting: Option<usize>,
    /// How long a statement waits for a turn.
    pub max_wait: Option<Duration>,
    /// Open server databases even when their role is privileged.
    pub allow_privileged: bool,
    /// A role every server connection switches to.
    pub set_role: Option<String>,
    /// Embedded engines: the memory limit per database, in bytes.
    pub memory_limit: Option<u64>,
    /// DuckDB: threads per statement.
    pub engine_threads: Option<usize>,
    /// Embedded engines, and stored results beyond their budget: the directory to spill
    /// under, if any.
    pub spill_dir: Option<std::path::PathBuf>,
    /// Memory for stored results, in bytes.
    pub result_budget: usize,
    /// Embedded engines: the most spilled data per database, in bytes.
    pub max_spill: u64,
    /// DuckDB: run statements in this process instead of worker processes.
    pub duckdb_in_process: bool,
    /// DuckDB: the program to start as a worker process (set by the `nao-mcp` binary to
    /// itself, not a flag); `None` runs DuckDB in this process.
    pub duckdb_worker: Option<std::path::PathBuf>,
    /// The log level.
    pub log_level: String,
    /// `--help` was given.
    pub help: bool,
    /// `--version` was given.
    pub version: bool,
}

/// Default for [`Options::max_request_bytes`]: 4 MiB, far above any tool call.
pub const DEFAULT_MAX_REQUEST_BYTES: usize = 4 * 1024 * 1024;

/// Default for [`Options::max_spill`]: 2 GiB.
pub const DEFAULT_MAX_SPILL: u64 = 2 << 30;

/// Default for [`Options::max_sessions`]: far more than one host's clients, few enough that a
/// client looping on `initialize` cannot grow the server without bound.
pub const DEFAULT_MAX_SESSIONS: usize = 100;

/// Default for [`Options::session_idle_timeout`]: 10 minutes.
pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(600);

/// Default for [`Options::max_connections`]: ten times the default session cap, so every
/// session can hold a few connections (a call, a notification stream) with room to spare, far
/// below the usual limit of open files.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;

/// Default for [`Options::drain_timeout`]: 10 seconds, within the 30 s that service managers
/// (systemd, Kubernetes) wait after SIGTERM before they kill.
pub const DEFAULT_DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

impl Default for Options {
    fn default() -> Self {
        Options {
            databases: Vec::new(),
            demo: false,
            max_rows: None,
            timeout: None,
            max_running: None,
            max_waiting: None,
            max_wait: None,
            allow_tables: Vec::new(),
            deny_tables: Vec::new(),
            deny_columns: Vec::new(),
            mask_columns: Vec::new(),
            mask_key_file: None,
            detect_personal_values: false,
            max_request_bytes: DEFAULT_MAX_REQUEST_BYTES,
            transport: Transport::Stdio,
            max_sessions: DEFAULT_MAX_SESSIONS,
            session_idle_timeout: DEFAULT_SESSION_IDLE_TIMEOUT,
            allowed_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            auth_token: None,
            auth_token_file: None,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            drain_timeout: DEFAULT_DRAIN_TIMEOUT,
            allow_privileged: false,
            set_role: None,
            memory_limit: None,
            engine_threads: None,
            spill_dir: None,
            max_spill: DEFAULT_MAX_SPILL,
            result_budget: nao_core::DEFAULT_RESULT_BUDGET,
            duckdb_in_process: false,
            duckdb_worker: None,
            log_level: "info".to_owned(),
            help: false,
            version: false,
        }
    }
}

/// A command line that could not be understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}; run nao-mcp --help for usage", self.0)
    }
}

impl std::error::Error for UsageError {}

impl Options {
    /// Parses the arguments (without the program name). `env` looks up environment variables
    /// (`NAO_DATABASE_URL`, `NAO_DATABASE_NAME`), so tests need not touch the process's.
    pub fn parse<I, S>(args: I, env: impl Fn(&str) -> Option<String>) -> Result<Self, UsageError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut options = Options::default();
        let mut args = args.into_iter().map(Into::into);
        while let Some(arg) = args.next() {
            // Accept both `--flag value` and `--flag=value`.
            let (flag, inline) = match arg.split_once('=') {
                Some((flag, value)) if flag.starts_with("--") => {
                    (flag.to_owned(), Some(value.to_owned()))
                }
                _ => (arg.clone(), None),
            };
            let mut value = |name: &str| -> Result<String, UsageError> {
                match inline.clone().or_else(|| args.next()) {
                    Some(v) => Ok(v),
                    None => Err(UsageError(format!("{name} needs a value"))),
                }
            };
            match flag.as_str() {
                "--database" | "-d" => {
                    options.databases.push(database_arg(&value("--database")?));
                }
                "--demo" => options.demo = true,
                "--max-rows" => {
                    options.max_rows = Some(number(&value("--max-rows")?, "--max-rows")?)
                }
                "--timeout" => options.timeout = Some(seconds(&value("--timeout")?, "--timeout")?),
                "--max-running" => {
                    let n = number(&value("--max-running")?, "--max-running")?;
                    options.max_running = Some(
                        usize::try_from(n)
                            .ok()
                            .filter(|n| *n > 0)
                            .ok_or_else(|| UsageError("--max-running wants at least 1".into()))?,
                    );
                }
                "--max-waiting" => {
                    let n = number(&value("--max-waiting")?, "--max-waiting")?;
                    options.max_waiting = Some(usize::try_from(n).unwrap_or(usize::MAX));
                }
                "--max-wait" => {
                    options.max_wait = Some(seconds_or_zero(&value("--max-wait")?, "--max-wait")?);
                }
                "--allow-table" => options.allow_tables.push(value("--allow-table")?),
                "--deny-table" => options.deny_tables.push(value("--deny-table")?),
                "--deny-column" => options.deny_columns.push(value("--deny-column")?),
                "--mask-column" => options
                    .mask_columns
                    .push(mask_column(&value("--mask-column")?)?),
                "--detect-personal-values" => options.detect_personal_values = true,
                "--mask-key-file" => options.mask_key_file = Some(value("--mask-key-file")?.into()),
                "--max-request-bytes" => {
                    let bytes = number(&value("--max-request-bytes")?, "--max-request-bytes")?;
                    options.max_request_bytes = usize::try_from(bytes)
                        .map_err(|_| UsageError("--max-request-bytes is too large".into()))?;
                }
                "--http" => {
                    let text = value("--http")?;
                    let addr = text.parse().map_err(|_| {
                        UsageError(format!(
                            "--http wants an address like 127.0.0.1:8080, got {}",
                            shown(&text)
                        ))
                    })?;
                    options.transport = Transport::Http(addr);
                }
                "--max-sessions" => {
                    let n = number(&value("--max-sessions")?, "--max-sessions")?;
                    options.max_sessions = usize::try_from(n)
                        .ok()
                        .filter(|n| *n > 0)
                        .ok_or_else(|| UsageError("--max-sessions wants at least 1".into()))?;
                }
                "--session-idle-timeout" => {
                    options.session_idle_timeout =
                        seconds(&value("--session-idle-timeout")?, "--session-idle-timeout")?;
                }
                "--allow-origin" => {
                    let origin = origin(&value("--allow-origin")?)?;
                    options.allowed_origins.push(origin);
                }
                "--allow-host" => {
                    let host = value("--allow-host")?;
                    let plain =
                        !host.is_empty() && !host.contains(['/', '?', '#', '@', ' ', ',', '*']);
                    if !plain {
                        return Err(UsageError(format!(
                            "--allow-host wants a host name like mcp.example.com or \
                             10.0.0.5:8080, got {}",
                            shown(&host)
                        )));
                    }
                    options.allowed_hosts.push(host);
                }
                "--auth-token-env" => {
                    let name = value("--auth-token-env")?;
                    let token = env(&name).and_then(|t| crate::auth::BearerToken::new(&t));
                    options.auth_token = Some(token.ok_or_else(|| {
                        UsageError(format!(
                            "--auth-token-env: the environment variable {} is not set, or \
                             holds no usable token (printable ASCII without spaces)",
                            shown(&name)
                        ))
                    })?);
                }
                "--auth-token-file" => {
                    options.auth_token_file = Some(value("--auth-token-file")?.into());
                }
                "--max-connections" => {
                    let n = number(&value("--max-connections")?, "--max-connections")?;
                    options.max_connections = usize::try_from(n)
                        .ok()
                        .filter(|n| *n > 0)
                        .ok_or_else(|| UsageError("--max-connections wants at least 1".into()))?;
                }
                "--drain-timeout" => {
                    options.drain_timeout =
                        seconds_or_zero(&value("--drain-timeout")?, "--drain-timeout")?;
                }
                "--allow-privileged" => options.allow_privileged = true,
                "--memory-limit" => {
                    options.memory_limit = Some(size(&value("--memory-limit")?, "--memory-limit")?);
                }
                "--engine-threads" => {
                    let n = number(&value("--engine-threads")?, "--engine-threads")?;
                    options.engine_threads = Some(
                        usize::try_from(n)
                            .ok()
                            .filter(|n| (1..=1024).contains(n))
                            .ok_or_else(|| UsageError("--engine-threads wants 1 to 1024".into()))?,
                    );
                }
                "--spill-dir" => options.spill_dir = Some(value("--spill-dir")?.into()),
                "--max-spill" => options.max_spill = size(&value("--max-spill")?, "--max-spill")?,
                "--result-budget" => {
                    let bytes = size(&value("--result-budget")?, "--result-budget")?;
                    options.result_budget = usize::try_from(bytes).unwrap_or(usize::MAX);
                }
                "--duckdb-in-process" => options.duckdb_in_process = true,
                "--set-role" => {
                    let role = value("--set-role")?;
                    if role.trim().is_empty() {
                        return Err(UsageError("--set-role wants a role name".into()));
                    }
                    options.set_role = Some(role);
                }
                "--log-level" => {
                    let level = value("--log-level")?.to_ascii_lowercase();
                    if !["error", "warn", "info", "debug", "trace", "off"].contains(&level.as_str())
                    {
                        return Err(UsageError(format!("unknown log level {}", shown(&level))));
                    }
                    options.log_level = level;
                }
                "--stdio" => options.transport = Transport::Stdio,
                "-h" | "--help" => options.help = true,
                "-V" | "--version" => options.version = true,
                other => return Err(UsageError(format!("unknown argument {}", shown(other)))),
            }
        }
        if options.databases.is_empty()
            && !options.demo
            && let Some(url) = env("NAO_DATABASE_URL").filter(|u| !u.trim().is_empty())
        {
            let name = env("NAO_DATABASE_NAME")
                .filter(|n| !n.trim().is_empty())
                .unwrap_or_else(|| "default".to_owned());
            options.databases.push(DatabaseArg { name, url });
        }
        if options.databases.is_empty() && !options.demo && !options.help && !options.version {
            return Err(UsageError(
                "no database: pass --database NAME=URL, --demo, or set NAO_DATABASE_URL".into(),
            ));
        }
        Ok(options)
    }
}

/// `NAME=URL` or a bare `URL` (named `default`). The name is what precedes the first `=` when
/// that is a plain identifier, so `=` inside a URL's query string stays in the URL.
fn database_arg(text: &str) -> DatabaseArg {
    if let Some((name, url)) = text.split_once('=') {
        let plain = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if plain {
            return DatabaseArg {
                name: name.to_owned(),
                url: url.to_owned(),
            };
        }
    }
    DatabaseArg {
        name: "default".to_owned(),
        url: text.to_owned(),
    }
}

/// `PATTERN=RULE` of `--mask-column`.
fn mask_column(text: &str) -> Result<(String, MaskRule), UsageError> {
    let Some((pattern, rule)) = text.rsplit_once('=') else {
        return Err(UsageError(format!(
            "--mask-column wants PATTERN=RULE, such as customers.email=hash; got {}",
            shown(text)
        )));
    };
    if pattern.trim().is_empty() {
        return Err(UsageError(
            "--mask-column wants a column pattern before =".into(),
        ));
    }
    let rule = rule
        .parse()
        .map_err(|why| UsageError(format!("--mask-column {}: {why}", shown(pattern))))?;
    Ok((pattern.trim().to_owned(), rule))
}

fn number(text: &str, flag: &str) -> Result<u64, UsageError> {
    text.trim()
        .replace('_', "")
        .parse()
        .map_err(|_| UsageError(format!("{flag} wants a whole number, got {}", shown(text))))
}

/// A size in bytes: a whole number, or one with a unit (`512MiB`, `2 GiB`, `500MB`; KiB, MiB,
/// GiB and TiB count in 1024s, kB, MB, GB and TB in 1000s).
fn size(text: &str, flag: &str) -> Result<u64, UsageError> {
    let invalid = || {
        UsageError(format!(
            "{flag} wants a size like 512MiB or 2GiB, got {}",
            shown(text)
        ))
    };
    let trimmed = text.trim().replace('_', "");
    let split = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(trimmed.len());
    let (digits, unit) = trimmed.split_at(split);
    let n: u64 = digits.parse().map_err(|_| invalid())?;
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        "tib" => 1 << 40,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        _ => return Err(invalid()),
    };
    n.checked_mul(scale).filter(|n| *n > 0).ok_or_else(invalid)
}

/// A positive number of seconds (`2.5`, `30s`).
fn seconds(text: &str, flag: &str) -> Result<Duration, UsageError> {
    text.trim()
        .trim_end_matches('s')
        .parse()
        .ok()
        .filter(|s: &f64| s.is_finite() && *s > 0.0 && *s < 1e9)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| UsageError(format!("{flag} wants seconds, got {}", shown(text))))
}

/// A number of seconds that may be zero (`0`, `2.5`, `30s`).
fn seconds_or_zero(text: &str, flag: &str) -> Result<Duration, UsageError> {
    let zero = text.trim().trim_end_matches('s').parse::<f64>() == Ok(0.0);
    if zero {
        return Ok(Duration::ZERO);
    }
    seconds(text, flag)
}

/// A browser origin `http(s)://host[:port|:*]`. Without a port it means the scheme's default
/// port, as browsers send it, and is written out so.
fn origin(text: &str) -> Result<String, UsageError> {
    let invalid = || {
        UsageError(format!(
            "--allow-origin wants an origin like https://app.example.com or http://host:*, \
             got {}",
            shown(text)
        ))
    };
    let text = text.trim().trim_end_matches('/');
    let (scheme, authority) = text.split_once("://").ok_or_else(invalid)?;
    let default_port = match scheme.to_ascii_lowercase().as_str() {
        "http" => "80",
        "https" => "443",
        _ => return Err(invalid()),
    };
    let plain = !authority.is_empty()
        && !authority.contains(['/', '?', '#', '@', ' '])
        && !authority.starts_with(':');
    if !plain {
        return Err(invalid());
    }
    // A port follows the last `:` outside an IPv6 literal's brackets.
    match authority.rsplit_once(':') {
        Some((_, port)) if !port.contains(']') => {
            if port != "*" && port.parse::<u16>().is_err() {
                return Err(invalid());
            }
            Ok(text.to_owned())
        }
        _ => Ok(format!("{text}:{default_port}")),
    }
}

/// A command-line value for an error message: quoted, any password masked (a URL given where
/// something else was expected must not be echoed whole).
fn shown(text: &str) -> String {
    format!("{:?}", redact_url(text))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn parse(args: &[&str]) -> Result<Options, UsageError> {
        Options::parse(args.iter().copied(), |_| None)
    }

    #[test]
    fn parses_every_flag() {
        let options = parse(&[
            "--database",
            "shop=sqlite:///tmp/shop.db",
            "--database=pg=postgres://me@db/x?sslmode=require",
            "--max-rows",
            "500",
            "--timeout",
            "2.5",
            "--allow-table",
            "orders",
            "--deny-table=hr.*",
            "--deny-column",
            "customers.email",
            "--mask-column",
            "customers.phone=partial:2",
            "--mask-column=*.ssn=hash",
            "--mask-key-file",
            "/run/secrets/nao-mask-key",
            "--detect-personal-values",
            "--http",
            "127.0.0.1:8080",
            "--max-sessions",
            "7",
            "--session-idle-timeout=90",
            "--max-connections",
            "64",
            "--drain-timeout=2.5",
            "--max-running",
            "3",
            "--max-waiting=40",
            "--max-wait",
            "2",
            "--allow-origin",
            "https://app.example.com",
            "--allow-origin=http://[::1]",
            "--allow-origin",
            "http://host:*",
            "--allow-privileged",
            "--set-role",
            "nao_reader",
            "--memory-limit",
            "512MiB",
            "--engine-threads=2",
            "--spill-dir",
            "/var/tmp/nao",
            "--max-spill=1GB",
            "--result-budget",
            "64MiB",
            "--duckdb-in-process",
        ])
        .unwrap();
        assert_eq!(options.databases[0].name, "shop");
        assert_eq!(
            options.databases[1].url,
            "postgres://me@db/x?sslmode=require"
        );
        assert_eq!(options.max_rows, Some(500));
        assert_eq!(options.timeout, Some(Duration::from_millis(2500)));
        assert_eq!(options.allow_tables, ["orders"]);
        assert_eq!(options.deny_tables, ["hr.*"]);
        assert_eq!(options.deny_columns, ["customers.email"]);
        assert_eq!(
            options.mask_columns,
            [
                (
                    "customers.phone".to_owned(),
                    MaskRule::Partial { keep_last: 2 }
                ),
                ("*.ssn".to_owned(), MaskRule::Hash)
            ]
        );
        assert!(options.detect_personal_values);
        assert_eq!(
            options.mask_key_file.as_deref(),
            Some(std::path::Path::new("/run/secrets/nao-mask-key"))
        );
        assert_eq!(
            options.transport,
            Transport::Http("127.0.0.1:8080".parse().unwrap())
        );
        assert_eq!(options.max_sessions, 7);
        assert_eq!(options.session_idle_timeout, Duration::from_secs(90));
        assert_eq!(options.max_connections, 64);
        assert_eq!(options.drain_timeout, Duration::from_millis(2500));
        assert_eq!(options.max_running, Some(3));
        assert_eq!(options.max_waiting, Some(40));
        assert_eq!(options.max_wait, Some(Duration::from_secs(2)));
        assert_eq!(
            options.allowed_origins,
            [
                "https://app.example.com:443",
                "http://[::1]:80",
                "http://host:*"
            ]
        );
        assert!(options.allow_privileged);
        assert_eq!(options.set_role.as_deref(), Some("nao_reader"));
        assert_eq!(options.memory_limit, Some(512 << 20));
        assert_eq!(options.engine_threads, Some(2));
        assert_eq!(options.spill_dir.as_deref(), Some("/var/tmp/nao".as_ref()));
        assert_eq!(options.max_spill, 1_000_000_000);
        assert_eq!(options.result_budget, 64 << 20);
        assert!(options.duckdb_in_process);
    }

    #[test]
    fn auth_token_and_allowed_hosts() {
        let env = |name: &str| (name == "NAO_TOKEN").then(|| "t0ken-value\n".to_owned());
        let options = Options::parse(
            [
                "--demo",
                "--http",
                "0.0.0.0:8080",
                "--auth-token-env",
                "NAO_TOKEN",
                "--allow-host",
                "mcp.example.com",
                "--allow-host",
                "10.0.0.5:8080",
            ],
            env,
        )
        .unwrap();
        let token = options.auth_token.as_ref().unwrap();
        assert!(token.authorizes(Some(b"Bearer t0ken-value")));
        assert_eq!(options.allowed_hosts, ["mcp.example.com", "10.0.0.5:8080"]);
        assert!(!format!("{options:?}").contains("t0ken-value"));

        let missing = Options::parse(["--demo", "--auth-token-env", "NAO_UNSET"], env).unwrap_err();
        assert!(
            missing.0.contains("NAO_UNSET") && missing.0.contains("is not set"),
            "{missing}"
        );
        for bad in ["", "https://mcp.example.com", "a b", "*.example.com"] {
            let error = parse(&["--demo", "--allow-host", bad]).unwrap_err();
            assert!(error.0.contains("--allow-host"), "{bad}: {error}");
        }
        let file = parse(&["--demo", "--auth-token-file", "/etc/nao/token"]).unwrap();
        assert_eq!(
            file.auth_token_file.as_deref(),
            Some("/etc/nao/token".as_ref())
        );
    }

    #[test]
    fn sizes_take_units_and_refuse_the_rest() {
        assert_eq!(size("1048576", "--x"), Ok(1 << 20));
        assert_eq!(size("2 GiB", "--x"), Ok(2 << 30));
        assert_eq!(size("1_500kB", "--x"), Ok(1_500_000));
        for bad in ["", "0", "12 parsecs", "GiB", "-1MiB", "99999999999999TiB"] {
            let error = size(bad, "--memory-limit").expect_err(bad);
            assert!(error.0.contains("--memory-limit"), "{error}");
        }
    }

    #[test]
    fn defaults() {
        let options = parse(&["--demo"]).unwrap();
        assert_eq!(options.max_sessions, DEFAULT_MAX_SESSIONS);
        assert_eq!(options.result_budget, nao_core::DEFAULT_RESULT_BUDGET);
        assert_eq!(options.session_idle_timeout, DEFAULT_SESSION_IDLE_TIMEOUT);
        assert_eq!(options.max_connections, DEFAULT_MAX_CONNECTIONS);
        assert_eq!(options.drain_timeout, DEFAULT_DRAIN_TIMEOUT);
        assert!(options.allowed_origins.is_empty());
        assert!(!options.allow_privileged);
        assert_eq!(options.memory_limit, None);
        assert_eq!(options.spill_dir, None);
        assert!(!options.duckdb_in_process);
        assert_eq!(options.set_role, None);
    }

    #[test]
    fn bare_urls_and_env() {
        let options = parse(&["--database", "postgres://h/db?a=b"]).unwrap();
        assert_eq!(options.databases[0].name, "default");
        assert_eq!(options.databases[0].url, "postgres://h/db?a=b");
        let options = Options::parse(Vec::<String>::new(), |key| {
            (key == "NAO_DATABASE_URL").then(|| "sqlite::memory:".to_owned())
        })
        .unwrap();
        assert_eq!(options.databases[0].url, "sqlite::memory:");
    }

    #[test]
    fn rejects_bad_input() {
        assert!(parse(&[]).is_err());
        assert!(parse(&["--demo", "--max-rows", "many"]).is_err());
        assert!(parse(&["--demo", "--timeout", "-1"]).is_err());
        assert!(parse(&["--demo", "--http", "nowhere"]).is_err());
        assert!(parse(&["--demo", "--frobnicate"]).is_err());
        assert!(parse(&["--demo", "--database"]).is_err());
        assert!(parse(&["--demo", "--max-sessions", "0"]).is_err());
        assert!(parse(&["--demo", "--session-idle-timeout", "0"]).is_err());
        assert!(parse(&["--demo", "--max-connections", "0"]).is_err());
        assert!(parse(&["--demo", "--drain-timeout", "-1"]).is_err());
        assert!(parse(&["--demo", "--drain-timeout", "soon"]).is_err());
        assert_eq!(
            parse(&["--demo", "--drain-timeout", "0"])
                .unwrap()
                .drain_timeout,
            Duration::ZERO
        );
        assert!(parse(&["--demo", "--set-role", " "]).is_err());
        for origin in [
            "app.example.com",
            "ftp://app.example.com",
            "https://",
            "https://app.example.com/path",
            "https://u:pw@app.example.com",
            "https://app.example.com:http",
        ] {
            assert!(
                parse(&["--demo", "--allow-origin", origin]).is_err(),
                "{origin}"
            );
        }
    }

    /// Every shape a database URL with a password can take.
    fn secret_urls() -> Vec<String> {
        let secret = "s3cr3t-PLANTED";
        vec![
            format!("postgres://u:{secret}@h/db"),
            "postgres://u:s3cr3t%2DPLANTED@h/db".to_owned(),
            format!("postgresql://u@h/db?password={secret}"),
            format!("host=127.0.0.1 password={secret} dbname=x"),
            format!("host=127.0.0.1 password='{secret}' dbname=x"),
            format!("Server=h;Password={secret};Database=x"),
            format!("mysql://u:{secret}@h/db"),
            format!("u:{secret}@h/db"),
            format!("foo://u:{secret}@h/db"),
        ]
    }

    #[test]
    fn debug_and_usage_errors_hold_no_password() {
        for url in secret_urls() {
            let options = parse(&["--database", &format!("pg={url}")]).unwrap();
            let debug = format!("{options:?}");
            assert!(!debug.contains("s3cr3t"), "{debug}");
            let options = Options::parse(Vec::<String>::new(), |key| {
                (key == "NAO_DATABASE_URL").then(|| url.clone())
            })
            .unwrap();
            let debug = format!("{options:#?}");
            assert!(!debug.contains("s3cr3t"), "{debug}");
            for args in [
                vec![url.as_str()],
                vec!["--demo", "--max-rows", &url],
                vec!["--demo", "--timeout", &url],
                vec!["--demo", "--http", &url],
                vec!["--demo", "--log-level", &url],
                vec!["--demo", "--max-sessions", &url],
                vec!["--demo", "--session-idle-timeout", &url],
                vec!["--demo", "--allow-origin", &url],
                vec!["--demo", "--max-connections", &url],
                vec!["--demo", "--drain-timeout", &url],
            ] {
                let error = parse(&args).unwrap_err();
                let shown = format!("{error} {error:?}").to_lowercase();
                assert!(!shown.contains("s3cr3t"), "{args:?}: {shown}");
            }
        }
    }

    #[test]
    fn redacts_passwords() {
        let url = "postgres://me:s3cret@db:5432/x?password=s3cret&sslmode=require";
        let redacted = redact_url(url);
        assert!(!redacted.contains("s3cret"), "{redacted}");
        assert_eq!(
            redacted,
            "postgres://me:***@db:5432/x?password=***&sslmode=require"
        );
        assert_eq!(redact_url("sqlite:///tmp/a.db"), "sqlite:///tmp/a.db");
        let debug = format!("{:?}", database_arg("pg=mysql://u:pw@h/d"));
        assert!(!debug.contains("pw@"), "{debug}");
    }
}
