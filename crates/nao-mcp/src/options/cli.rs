//! The flags of `nao-mcp`, declared for clap; `--help` is generated from these doc comments.
//!
//! Every field is optional here (no defaults), so that [`Options`](super::Options) can tell a
//! flag that was given from one that was not and let the config file fill the rest.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;
use nao_core::guard::MaskRule;

use super::DatabaseArg;
use super::values;

const DATABASES: &str = "Databases";
const LIMITS: &str = "Limits and policy";
const ENGINES: &str = "Embedded engines (SQLite, DuckDB)";
const RESULTS: &str = "Results";
const TRANSPORT: &str = "Transport";
const OTHER: &str = "Other";

/// What `--help` says before the flags.
const LONG_ABOUT: &str = "\
nao-mcp: an MCP server giving any MCP client safe, read-only SQL on your databases.

Give at least one database: --database NAME=URL, --demo, a [databases] table in the --config \
file, or NAO_DATABASE_URL. Without --http the server talks JSON-RPC on stdin/stdout and logs to \
stderr.";

/// What `--help` says after the flags.
const AFTER_HELP: &str = "\
Environment:
  NAO_DATABASE_URL  A database URL, used when neither the command line nor the config file
                    names a database (nor --demo); served as NAO_DATABASE_NAME (default
                    `default`). Prefer the environment for credentials (or url_env in the
                    config file): they are never logged or echoed.
  RUST_LOG          What is logged, instead of --log-level (e.g. nao_mcp=debug,rmcp=warn).

Config file (--config PATH, TOML): databases, policy, limits, HTTP settings and named
parameterised queries served as extra tools; crates/nao-mcp/examples/nao-mcp.toml documents
every key. Flags given on the command line win over the file's values; repeatable flags
(--database, --allow-table, --deny-table, --deny-column, --mask-column, --allow-origin,
--allow-host) add to the file's lists, and a --database with a name the file uses replaces
that database. On/off flags can only turn a setting on.";

/// The command line, as clap parses it.
#[derive(Debug, Default, Parser)]
#[command(
    name = "nao-mcp",
    about = "nao-mcp: an MCP server giving any MCP client safe, read-only SQL on your databases.",
    long_about = LONG_ABOUT,
    after_help = AFTER_HELP,
    disable_help_flag = true,
    disable_version_flag = true,
    args_override_self = true,
    max_term_width = 100
)]
pub(crate) struct Cli {
    /// Serve the database at URL as NAME (repeatable). URLs: sqlite:///path.db,
    /// duckdb:///path.duckdb, postgres://user@host/db, mysql://user@host/db. `--database URL`
    /// names it `default`.
    #[arg(
        long = "database",
        short = 'd',
        value_name = "NAME=URL",
        help_heading = DATABASES,
        value_parser = parse_database
    )]
    pub databases: Vec<DatabaseArg>,

    /// Serve the generated demo shop database (in memory) as `shop`.
    #[arg(long, help_heading = DATABASES)]
    pub demo: bool,

    /// Read settings, databases and named query tools from this TOML file (see below).
    #[arg(long, value_name = "PATH", help_heading = DATABASES)]
    pub config: Option<PathBuf>,

    /// Server databases: switch every connection to ROLE (SET ROLE) right after connecting. On
    /// PostgreSQL a privileged login then reads as the read-only ROLE; on MySQL/MariaDB a role
    /// only adds privileges, so log in as a read-only user there instead.
    #[arg(long, value_name = "ROLE", help_heading = DATABASES, value_parser = values::role)]
    pub set_role: Option<String>,

    /// Server databases: open even when the role can do more than read (superuser, file
    /// access, signalling other sessions, write grants). Without it such a role is refused,
    /// with the SQL for a read-only one. Only for hosts that really mean it: the guard and the
    /// read-only transaction still apply, but the role no longer backs them up.
    #[arg(long, help_heading = DATABASES)]
    pub allow_privileged: bool,

    /// Rows kept from one query result (default 10000).
    #[arg(long, value_name = "N", help_heading = LIMITS, value_parser = values::number)]
    pub max_rows: Option<u64>,

    /// Time limit of one statement (default 30).
    #[arg(long, value_name = "SECONDS", help_heading = LIMITS, value_parser = values::seconds)]
    pub timeout: Option<Duration>,

    /// Only these tables may be read (repeatable; `sales.*`, `orders`).
    #[arg(long = "allow-table", value_name = "PATTERN", help_heading = LIMITS)]
    pub allow_tables: Vec<String>,

    /// These tables may not be read (repeatable).
    #[arg(long = "deny-table", value_name = "PATTERN", help_heading = LIMITS)]
    pub deny_tables: Vec<String>,

    /// These columns may not be read or shown (repeatable; `customers.email`, `*.ssn`): left
    /// out of descriptions, samples, resources and the schema, and refused in queries.
    #[arg(long = "deny-column", value_name = "PATTERN", help_heading = LIMITS)]
    pub deny_columns: Vec<String>,

    /// These columns' values are masked wherever they are shown (repeatable;
    /// `customers.email=hash`, `*.ssn=partial:4`). RULE is hash (keyed: equal values stay
    /// equal, so grouping, joins and counts still work), redact, null, or partial:N (the last
    /// N characters). Queries may select, compare (=, IN, IS NULL), group, join on and count
    /// such a column; other uses are refused.
    #[arg(
        long = "mask-column",
        value_name = "PATTERN=RULE",
        help_heading = LIMITS,
        value_parser = values::mask_column
    )]
    pub mask_columns: Vec<(String, MaskRule)>,

    /// Also replace what looks like an email address, a phone or card number, an IBAN or a
    /// national id in any other text column with a label ([email], [phone], ...), and say so
    /// under the result.
    #[arg(long, help_heading = LIMITS)]
    pub detect_personal_values: bool,

    /// The key for hash masking, read from a file (32 hex digits, as `openssl rand -hex 16`
    /// prints, or a long passphrase), so hashes stay the same across restarts. Default: a
    /// random key per run.
    #[arg(long, value_name = "PATH", help_heading = LIMITS)]
    pub mask_key_file: Option<PathBuf>,

    /// Largest JSON-RPC message accepted (default 4194304).
    #[arg(long, value_name = "N", help_heading = LIMITS, value_parser = values::request_bytes)]
    pub max_request_bytes: Option<usize>,

    /// Statements one database runs at once (default: twice the cores, at least 4, and no more
    /// than its own pool). The others wait for a turn; waiting does not count against
    /// --timeout.
    #[arg(long, value_name = "N", help_heading = LIMITS, value_parser = values::positive)]
    pub max_running: Option<usize>,

    /// Statements that may wait for a turn per database (default 256); one more is answered
    /// busy (retry later) at once.
    #[arg(long, value_name = "N", help_heading = LIMITS, value_parser = values::count)]
    pub max_waiting: Option<usize>,

    /// How long a statement waits for a turn before it is answered busy (retry later)
    /// (default 10).
    #[arg(
        long,
        value_name = "SECONDS",
        help_heading = LIMITS,
        value_parser = values::seconds_or_zero
    )]
    pub max_wait: Option<Duration>,

    /// Memory one database's engine may use (e.g. 512MiB, 2GiB; default an eighth of the
    /// machine's memory, between 128 MiB and 2 GiB).
    #[arg(long, value_name = "SIZE", help_heading = ENGINES, value_parser = values::size)]
    pub memory_limit: Option<u64>,

    /// Threads one DuckDB statement runs on (default: the cores).
    #[arg(long, value_name = "N", help_heading = ENGINES, value_parser = values::threads)]
    pub engine_threads: Option<usize>,

    /// DuckDB: let big sorts, joins and aggregates spill to a private directory under DIR
    /// (removed on exit) instead of failing at the memory limit; and stored results beyond
    /// --result-budget go to another private directory there. Default: no spilling. (SQLite
    /// always writes its temporary data to unnamed files in the system's temp directory.)
    #[arg(long, value_name = "DIR", help_heading = ENGINES)]
    pub spill_dir: Option<PathBuf>,

    /// DuckDB: the most data spilled per database (default 2GiB).
    #[arg(long, value_name = "SIZE", help_heading = ENGINES, value_parser = values::size)]
    pub max_spill: Option<u64>,

    /// Run DuckDB statements in this process. By default each runs in a worker process (this
    /// program again) whose memory the system bounds and which is ended when a statement times
    /// out.
    #[arg(long, help_heading = ENGINES)]
    pub duckdb_in_process: bool,

    /// Memory for stored query results (what read_query_result pages), shared fairly by the
    /// sessions (default 256MiB). Beyond it the least recently used results of the session
    /// holding the most leave memory: to --spill-dir when given, else they are dropped and
    /// their query must run again. A session's results go when the session ends.
    #[arg(long, value_name = "SIZE", help_heading = RESULTS, value_parser = values::usize_size)]
    pub result_budget: Option<usize>,

    /// Streamable HTTP on ADDR (e.g. 127.0.0.1:8080), endpoint /mcp. Without it: stdio
    /// (JSON-RPC on stdin/stdout; logs go to stderr).
    #[arg(
        long,
        value_name = "ADDR",
        help_heading = TRANSPORT,
        value_parser = values::listen_address
    )]
    pub http: Option<SocketAddr>,

    /// Serve on stdio even when the config file gives an HTTP address ([http] listen).
    #[arg(long, help_heading = TRANSPORT, conflicts_with = "http")]
    pub stdio: bool,

    /// HTTP: most live sessions (default 100). When full, a new client gets 503 until a
    /// session ends (DELETE) or idles out; live sessions are never evicted to make room.
    #[arg(long, value_name = "N", help_heading = TRANSPORT, value_parser = values::positive)]
    pub max_sessions: Option<usize>,

    /// HTTP: close a session that has had no request for this long (default 600); a session
    /// with a call running is not idle.
    #[arg(long, value_name = "SECONDS", help_heading = TRANSPORT, value_parser = values::seconds)]
    pub session_idle_timeout: Option<Duration>,

    /// HTTP: also accept browser requests from ORIGIN (repeatable; e.g.
    /// https://app.example.com or http://host:*). Loopback origins are always accepted; any
    /// other Origin gets 403, as does a Host that is not localhost, 127.0.0.1 or ::1 (DNS
    /// rebinding).
    #[arg(
        long = "allow-origin",
        value_name = "ORIGIN",
        help_heading = TRANSPORT,
        value_parser = values::origin
    )]
    pub allowed_origins: Vec<String>,

    /// HTTP: also accept requests whose Host is HOST, with or without a port (repeatable; e.g.
    /// mcp.example.com or 10.0.0.5:8080): the names clients use when the server listens beyond
    /// loopback.
    #[arg(
        long = "allow-host",
        value_name = "HOST",
        help_heading = TRANSPORT,
        value_parser = values::host
    )]
    pub allowed_hosts: Vec<String>,

    /// HTTP: every request must send `Authorization: Bearer <token>`, the token being the
    /// value of the environment variable VAR; others get 401. Use it whenever --http listens
    /// beyond loopback.
    #[arg(long, value_name = "VAR", help_heading = TRANSPORT, value_parser = values::env_name)]
    pub auth_token_env: Option<String>,

    /// HTTP: the same, the token read from the file PATH.
    #[arg(long, value_name = "PATH", help_heading = TRANSPORT)]
    pub auth_token_file: Option<PathBuf>,

    /// HTTP: most open connections (default 1024). Beyond it new connections wait in the
    /// system's queue until one closes. A connection must send its request headers within
    /// 10 s and its body within 30 s, or it is closed.
    #[arg(long, value_name = "N", help_heading = TRANSPORT, value_parser = values::positive)]
    pub max_connections: Option<usize>,

    /// On SIGTERM or Ctrl-C: stop taking new calls, let running ones finish for up to this
    /// long (default 10; 0 cancels them at once), answer the rest with a JSON-RPC error, then
    /// exit with success.
    #[arg(
        long,
        value_name = "SECONDS",
        help_heading = TRANSPORT,
        value_parser = values::seconds_or_zero
    )]
    pub drain_timeout: Option<Duration>,

    /// error, warn, info (default), debug, trace or off; logs go to stderr. RUST_LOG, when
    /// set, chooses instead (e.g. nao_mcp=debug,rmcp=warn).
    #[arg(long, value_name = "LEVEL", help_heading = OTHER, value_parser = values::log_level)]
    pub log_level: Option<String>,

    /// Print this help.
    #[arg(short = 'h', long, help_heading = OTHER)]
    pub help: bool,

    /// Print the version.
    #[arg(short = 'V', long, help_heading = OTHER)]
    pub version: bool,
}

/// `NAME=URL` or a bare `URL` (named `default`).
fn parse_database(text: &str) -> Result<DatabaseArg, String> {
    Ok(super::database_arg(text))
}
