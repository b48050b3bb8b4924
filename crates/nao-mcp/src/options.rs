//! The command line of the `nao-mcp` binary (clap; `--help` is generated from the flags' doc
//! comments in `cli.rs`) and its `--config` file, merged into one [`Options`].
//!
//! Where a setting comes from, highest first: the command line, the config file, the
//! environment (`NAO_DATABASE_URL` only when neither names a database), the defaults.

pub(crate) mod cli;
pub(crate) mod values;

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{CommandFactory, Parser};
use nao_core::guard::MaskRule;

use crate::config::{self, NamedQuerySpec};
use crate::redact::scrub;
use cli::Cli;
use values::shown;

pub use crate::redact::redact_url;

/// The text of `nao-mcp --help`: every flag by group, the environment variables and how the
/// config file and the flags combine.
/// Wrapped to the terminal's width, at most 100 columns.
pub fn help_text() -> String {
    Cli::command().render_long_help().to_string()
}

/// The text of `nao-mcp --version`.
pub fn version_text() -> String {
    format!("nao-mcp {}", env!("CARGO_PKG_VERSION"))
}

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
    /// The config file the settings were read from, if any.
    pub config: Option<PathBuf>,
    /// The named queries of the config file, served as tools of their own.
    pub named_queries: Vec<NamedQuerySpec>,
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
            config: None,
            named_queries: Vec::new(),
            help: false,
            version: false,
        }
    }
}

/// A command line (or config file) that could not be understood. The message never holds a
/// password given on the command line or in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}; run nao-mcp --help for usage", self.0)
    }
}

impl std::error::Error for UsageError {}

impl From<config::ConfigError> for UsageError {
    fn from(error: config::ConfigError) -> Self {
        UsageError(error.0)
    }
}

impl Options {
    /// Parses the arguments (without the program name) and the `--config` file they name.
    /// `env` looks up environment variables (`NAO_DATABASE_URL`, `NAO_DATABASE_NAME`, the
    /// variables `--auth-token-env` and the file's `url_env` name), so tests need not touch
    /// the process's.
    pub fn parse<I, S>(args: I, env: impl Fn(&str) -> Option<String>) -> Result<Self, UsageError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let args: Vec<String> = args.into_iter().map(Into::into).collect();
        let program = std::iter::once("nao-mcp".to_owned());
        let cli = Cli::try_parse_from(program.chain(args.iter().cloned()))
            .map_err(|error| usage_error(&error, &args))?;
        if cli.help || cli.version {
            return Ok(Options {
                help: cli.help,
                version: cli.version,
                ..Options::default()
            });
        }
        let (file, named_queries) = match &cli.config {
            Some(path) => {
                let loaded = config::load(path, &env)?;
                (loaded.cli, loaded.tools)
            }
            None => (Cli::default(), Vec::new()),
        };
        let mut options = Options::from_cli(merge(file, cli), &env)?;
        options.named_queries = named_queries;
        Ok(options)
    }

    /// The options `cli` (the command line over the config file) gives.
    fn from_cli(cli: Cli, env: &dyn Fn(&str) -> Option<String>) -> Result<Options, UsageError> {
        let defaults = Options::default();
        let auth_token = match &cli.auth_token_env {
            Some(name) => Some(
                env(name)
                    .and_then(|t| crate::auth::BearerToken::new(&t))
                    .ok_or_else(|| {
                        UsageError(format!(
                            "--auth-token-env: the environment variable {} is not set, or \
                             holds no usable token (printable ASCII without spaces)",
                            shown(name)
                        ))
                    })?,
            ),
            None => None,
        };
        let transport = match cli.http {
            Some(addr) if !cli.stdio => Transport::Http(addr),
            _ => Transport::Stdio,
        };
        let mut options = Options {
            databases: cli.databases,
            demo: cli.demo,
            max_rows: cli.max_rows,
            timeout: cli.timeout,
            allow_tables: cli.allow_tables,
            deny_tables: cli.deny_tables,
            deny_columns: cli.deny_columns,
            mask_columns: cli.mask_columns,
            mask_key_file: cli.mask_key_file,
            detect_personal_values: cli.detect_personal_values,
            max_request_bytes: cli.max_request_bytes.unwrap_or(defaults.max_request_bytes),
            transport,
            max_sessions: cli.max_sessions.unwrap_or(defaults.max_sessions),
            session_idle_timeout: cli
                .session_idle_timeout
                .unwrap_or(defaults.session_idle_timeout),
            allowed_origins: cli.allowed_origins,
            allowed_hosts: cli.allowed_hosts,
            auth_token,
            auth_token_file: cli.auth_token_file,
            max_connections: cli.max_connections.unwrap_or(defaults.max_connections),
            drain_timeout: cli.drain_timeout.unwrap_or(defaults.drain_timeout),
            max_running: cli.max_running,
            max_waiting: cli.max_waiting,
            max_wait: cli.max_wait,
            allow_privileged: cli.allow_privileged,
            set_role: cli.set_role,
            memory_limit: cli.memory_limit,
            engine_threads: cli.engine_threads,
            spill_dir: cli.spill_dir,
            result_budget: cli.result_budget.unwrap_or(defaults.result_budget),
            max_spill: cli.max_spill.unwrap_or(defaults.max_spill),
            duckdb_in_process: cli.duckdb_in_process,
            duckdb_worker: None,
            log_level: cli.log_level.unwrap_or(defaults.log_level),
            config: cli.config,
            named_queries: Vec::new(),
            help: false,
            version: false,
        };
        if options.databases.is_empty()
            && !options.demo
            && let Some(url) = env("NAO_DATABASE_URL").filter(|u| !u.trim().is_empty())
        {
            let name = env("NAO_DATABASE_NAME")
                .filter(|n| !n.trim().is_empty())
                .unwrap_or_else(|| "default".to_owned());
            options.databases.push(DatabaseArg { name, url });
        }
        if options.databases.is_empty() && !options.demo {
            return Err(UsageError(
                "no database: pass --database NAME=URL, --demo, a [databases] table in the \
                 --config file, or set NAO_DATABASE_URL"
                    .into(),
            ));
        }
        Ok(options)
    }
}

/// The command line over the config file: a flag given wins over the file's value; lists are
/// the file's then the command line's; a `--database` named like one of the file's replaces
/// it; an on/off flag is on when either turns it on; a token source on the command line
/// (`--auth-token-env`, `--auth-token-file`) replaces the file's.
fn merge(file: Cli, cli: Cli) -> Cli {
    fn list<T>(mut file: Vec<T>, cli: Vec<T>) -> Vec<T> {
        file.extend(cli);
        file
    }
    let mut databases: Vec<DatabaseArg> = file
        .databases
        .into_iter()
        .filter(|d| !cli.databases.iter().any(|c| c.name == d.name))
        .collect();
    databases.extend(cli.databases);
    // The token comes from one place: a source on the command line replaces the file's.
    let (auth_token_env, auth_token_file) =
        if cli.auth_token_env.is_some() || cli.auth_token_file.is_some() {
            (cli.auth_token_env, cli.auth_token_file)
        } else {
            (file.auth_token_env, file.auth_token_file)
        };
    Cli {
        databases,
        demo: file.demo || cli.demo,
        config: cli.config,
        set_role: cli.set_role.or(file.set_role),
        allow_privileged: file.allow_privileged || cli.allow_privileged,
        max_rows: cli.max_rows.or(file.max_rows),
        timeout: cli.timeout.or(file.timeout),
        allow_tables: list(file.allow_tables, cli.allow_tables),
        deny_tables: list(file.deny_tables, cli.deny_tables),
        deny_columns: list(file.deny_columns, cli.deny_columns),
        mask_columns: list(file.mask_columns, cli.mask_columns),
        detect_personal_values: file.detect_personal_values || cli.detect_personal_values,
        mask_key_file: cli.mask_key_file.or(file.mask_key_file),
        max_request_bytes: cli.max_request_bytes.or(file.max_request_bytes),
        max_running: cli.max_running.or(file.max_running),
        max_waiting: cli.max_waiting.or(file.max_waiting),
        max_wait: cli.max_wait.or(file.max_wait),
        memory_limit: cli.memory_limit.or(file.memory_limit),
        engine_threads: cli.engine_threads.or(file.engine_threads),
        spill_dir: cli.spill_dir.or(file.spill_dir),
        max_spill: cli.max_spill.or(file.max_spill),
        duckdb_in_process: file.duckdb_in_process || cli.duckdb_in_process,
        result_budget: cli.result_budget.or(file.result_budget),
        http: cli.http.or(file.http),
        stdio: cli.stdio,
        max_sessions: cli.max_sessions.or(file.max_sessions),
        session_idle_timeout: cli.session_idle_timeout.or(file.session_idle_timeout),
        allowed_origins: list(file.allowed_origins, cli.allowed_origins),
        allowed_hosts: list(file.allowed_hosts, cli.allowed_hosts),
        auth_token_env,
        auth_token_file,
        max_connections: cli.max_connections.or(file.max_connections),
        drain_timeout: cli.drain_timeout.or(file.drain_timeout),
        log_level: cli.log_level.or(file.log_level),
        help: cli.help,
        version: cli.version,
    }
}

/// A clap error as a [`UsageError`]: the flag and what it wants, in the words of the value
/// rules in [`values`], and no password of any argument (clap quotes the values it refuses).
fn usage_error(error: &clap::Error, args: &[String]) -> UsageError {
    use clap::error::{ContextKind, ErrorKind};
    let context = |kind| error.get(kind).map(ToString::to_string);
    let flag = || {
        context(ContextKind::InvalidArg)
            .and_then(|arg| arg.split_whitespace().next().map(str::to_owned))
            .unwrap_or_default()
    };
    let message = match error.kind() {
        ErrorKind::ValueValidation => {
            let why = std::error::Error::source(error)
                .map_or_else(|| "is not valid".to_owned(), ToString::to_string);
            format!("{} {why}", flag())
        }
        ErrorKind::UnknownArgument => {
            let argument = context(ContextKind::InvalidArg).unwrap_or_default();
            match context(ContextKind::SuggestedArg) {
                Some(suggested) => {
                    format!(
                        "unknown argument {}; did you mean {suggested}?",
                        shown(&argument)
                    )
                }
                None => format!("unknown argument {}", shown(&argument)),
            }
        }
        ErrorKind::InvalidValue if context(ContextKind::InvalidValue).as_deref() == Some("") => {
            format!("{} needs a value", flag())
        }
        _ => {
            // clap's own words: the first paragraph, without its `error: ` prefix.
            let rendered = error.render().to_string();
            let first = rendered.split("\n\n").next().unwrap_or_default();
            first.trim().trim_start_matches("error: ").to_owned()
        }
    };
    // Each argument whole, and the value of a `--flag=value` alone (scrub reads the whole
    // argument as key=value text, where `--flag` is no secret's name).
    let values = args.iter().filter_map(|arg| {
        arg.strip_prefix("--")
            .and_then(|flag| flag.split_once('='))
            .map(|(_, value)| value)
    });
    let message = args
        .iter()
        .map(String::as_str)
        .chain(values)
        .fold(message, |message, arg| scrub(&message, arg));
    UsageError(message)
}

/// `NAME=URL` or a bare `URL` (named `default`). The name is what precedes the first `=` when
/// that is a plain identifier, so `=` inside a URL's query string stays in the URL.
pub(crate) fn database_arg(text: &str) -> DatabaseArg {
    if let Some((name, url)) = text.split_once('=')
        && values::is_database_name(name)
    {
        return DatabaseArg {
            name: name.to_owned(),
            url: url.to_owned(),
        };
    }
    DatabaseArg {
        name: "default".to_owned(),
        url: text.to_owned(),
    }
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
    fn errors_name_the_flag_and_what_it_wants() {
        let error = |args: &[&str]| parse(args).unwrap_err().0;
        assert_eq!(
            error(&["--demo", "--max-rows", "many"]),
            "--max-rows wants a whole number, got \"many\""
        );
        assert_eq!(
            error(&["--demo", "--memory-limit=12 parsecs"]),
            "--memory-limit wants a size like 512MiB or 2GiB, got \"12 parsecs\""
        );
        assert_eq!(
            error(&["--demo", "--max-sessions", "0"]),
            "--max-sessions wants at least 1"
        );
        assert_eq!(error(&["--demo", "-d"]), "--database needs a value");
        assert_eq!(
            error(&["--demo", "--frobnicate"]),
            "unknown argument \"--frobnicate\""
        );
        assert_eq!(
            error(&["--demo", "--max-rowz", "5"]),
            "unknown argument \"--max-rowz\"; did you mean --max-rows?"
        );
        assert!(error(&["--demo", "--log-level", "loud"]).starts_with("--log-level wants error"));
        assert!(error(&["--demo=yes"]).contains("--demo"));
        assert!(error(&["--demo", "--http", "127.0.0.1:1", "--stdio"]).contains("--stdio"));
        let shown = parse(&["--demo", "--timeout", "soon"])
            .unwrap_err()
            .to_string();
        assert_eq!(
            shown,
            "--timeout wants seconds, got \"soon\"; run nao-mcp --help for usage"
        );
    }

    #[test]
    fn help_keeps_the_groups_and_every_flag() {
        // At a fixed width, so that the test does not depend on the terminal's.
        let help = Cli::command()
            .term_width(100)
            .render_long_help()
            .to_string();
        assert!(help_text().lines().all(|l| l.chars().count() <= 100));
        for heading in [
            "Databases:",
            "Limits and policy:",
            "Embedded engines (SQLite, DuckDB):",
            "Results:",
            "Transport:",
            "Other:",
            "Environment:",
            "Config file (--config PATH, TOML)",
        ] {
            assert!(help.contains(heading), "{heading} missing from:\n{help}");
        }
        for flag in [
            "-d, --database <NAME=URL>",
            "--demo",
            "--config <PATH>",
            "--set-role <ROLE>",
            "--allow-privileged",
            "--max-rows <N>",
            "--timeout <SECONDS>",
            "--allow-table <PATTERN>",
            "--deny-table <PATTERN>",
            "--deny-column <PATTERN>",
            "--mask-column <PATTERN=RULE>",
            "--detect-personal-values",
            "--mask-key-file <PATH>",
            "--max-request-bytes <N>",
            "--max-running <N>",
            "--max-waiting <N>",
            "--max-wait <SECONDS>",
            "--memory-limit <SIZE>",
            "--engine-threads <N>",
            "--spill-dir <DIR>",
            "--max-spill <SIZE>",
            "--duckdb-in-process",
            "--result-budget <SIZE>",
            "--http <ADDR>",
            "--stdio",
            "--max-sessions <N>",
            "--session-idle-timeout <SECONDS>",
            "--allow-origin <ORIGIN>",
            "--allow-host <HOST>",
            "--auth-token-env <VAR>",
            "--auth-token-file <PATH>",
            "--max-connections <N>",
            "--drain-timeout <SECONDS>",
            "--log-level <LEVEL>",
            "-h, --help",
            "-V, --version",
            "NAO_DATABASE_URL",
            "RUST_LOG",
        ] {
            assert!(help.contains(flag), "{flag} missing from:\n{help}");
        }
        // The explanations are kept, defaults included.
        assert!(
            help.contains("Rows kept from one query result (default 10000)"),
            "{help}"
        );
        assert!(help.lines().all(|l| l.chars().count() <= 100), "{help}");
        let options = parse(&["--help"]).unwrap();
        assert!(options.help && !options.version);
        assert!(parse(&["-V"]).unwrap().version);
    }

    /// A config file of the test's own, removed on drop.
    struct TempFile(std::path::PathBuf);

    impl TempFile {
        fn new(text: &str) -> TempFile {
            static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
            let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let path = std::env::temp_dir()
                .join(format!("nao-mcp-options-{}-{n}.toml", std::process::id()));
            std::fs::write(&path, text).unwrap();
            TempFile(path)
        }

        fn arg(&self) -> String {
            format!("--config={}", self.0.display())
        }
    }

    impl Drop for TempFile {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    #[test]
    fn the_command_line_wins_over_the_config_file() {
        let file = TempFile::new(
            "[databases.a]\nurl = \"sqlite:///a.db\"\n[databases.b]\nurl = \"sqlite:///b.db\"\n\
             [limits]\nmax_rows = 5\ntimeout = 9\n[policy]\ndeny_tables = [\"hr.*\"]\n\
             [http]\nlisten = \"127.0.0.1:9000\"\nauth_token_env = \"FILE_TOKEN\"\n\
             [tools.q]\ndescription = \"d\"\nsql = \"SELECT 1\"\n",
        );
        let env = |name: &str| match name {
            "FILE_TOKEN" => Some("file-token".to_owned()),
            "CLI_TOKEN" => Some("cli-token".to_owned()),
            _ => None,
        };
        let options = Options::parse(
            [
                file.arg().as_str(),
                "--max-rows",
                "7",
                "--deny-table",
                "secrets",
                "--database",
                "b=sqlite:///other.db",
                "--database",
                "c=sqlite:///c.db",
                "--auth-token-env",
                "CLI_TOKEN",
            ],
            env,
        )
        .unwrap();
        assert_eq!(options.max_rows, Some(7));
        assert_eq!(options.timeout, Some(Duration::from_secs(9)));
        assert_eq!(options.deny_tables, ["hr.*", "secrets"]);
        let databases: Vec<(&str, &str)> = options
            .databases
            .iter()
            .map(|d| (d.name.as_str(), d.url.as_str()))
            .collect();
        assert_eq!(
            databases,
            [
                ("a", "sqlite:///a.db"),
                ("b", "sqlite:///other.db"),
                ("c", "sqlite:///c.db")
            ]
        );
        assert_eq!(
            options.transport,
            Transport::Http("127.0.0.1:9000".parse().unwrap())
        );
        let token = options.auth_token.as_ref().unwrap();
        assert!(token.authorizes(Some(b"Bearer cli-token")));
        assert_eq!(options.named_queries.len(), 1);
        assert_eq!(options.config.as_deref(), Some(file.0.as_path()));

        let stdio = Options::parse([file.arg().as_str(), "--stdio"], env).unwrap();
        assert_eq!(stdio.transport, Transport::Stdio);
        assert!(
            stdio
                .auth_token
                .unwrap()
                .authorizes(Some(b"Bearer file-token"))
        );
    }

    #[test]
    fn config_errors_name_the_file_and_line() {
        let file = TempFile::new("[limits]\nmax_rows = 5\ntimeout = \"soon\"\n");
        let error = parse(&[&file.arg()]).unwrap_err();
        let expected = format!(
            "{}, line 3, column 11: limits.timeout wants seconds, got \"soon\"",
            file.0.display()
        );
        assert_eq!(error.0, expected);
        let missing = parse(&["--config", "/nonexistent/nao.toml"]).unwrap_err();
        assert!(
            missing.0.starts_with("--config /nonexistent/nao.toml: "),
            "{missing}"
        );
        // A file with no database, and none elsewhere.
        let empty = TempFile::new("[limits]\nmax_rows = 5\n");
        let none = parse(&[&empty.arg()]).unwrap_err();
        assert!(none.0.starts_with("no database"), "{none}");
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
            let demo_with_value = format!("--demo={url}");
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
                vec!["--demo", "--memory-limit", &url],
                vec!["--demo", "--mask-column", &url],
                vec!["--databse", &url],
                vec!["--demo", &url],
                vec!["--demo", "--config", &url],
                vec![demo_with_value.as_str()],
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
