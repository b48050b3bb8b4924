//! The `--config` file: databases, policy, limits, HTTP settings and named queries, in TOML.
//!
//! `crates/nao-mcp/examples/nao-mcp.toml` is a documented example of every key. Every table
//! and key is optional; an unknown one is an error that names it and its line, as is a value
//! of the wrong type or form (`limits.timeout wants seconds`). Values are checked by the same
//! rules as the flags they mirror. Relative paths (`mask_key_file`, `spill_dir`,
//! `auth_token_file`) are taken from the file's directory.
//!
//! Credentials belong in the environment: a database's `url_env` names the variable that holds
//! its URL. Error messages never quote a value's password.

pub mod named_query;
pub(crate) mod template;

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use toml::Spanned;

use crate::options::cli::Cli;
use crate::options::{DatabaseArg, values};
use crate::redact::{redact_url, scrub};
pub use named_query::{NamedQuery, NamedQueryError, NamedQuerySpec, ParameterSpec, ParameterType};

/// The file as written: tables of optional keys, values kept raw with their place in the file
/// until they are checked.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    server: ServerTable,
    #[serde(default)]
    databases: Ordered<DatabaseTable>,
    #[serde(default)]
    connections: ConnectionsTable,
    #[serde(default)]
    policy: PolicyTable,
    #[serde(default)]
    limits: LimitsTable,
    #[serde(default)]
    engines: EnginesTable,
    #[serde(default)]
    results: ResultsTable,
    #[serde(default)]
    http: HttpTable,
    #[serde(default)]
    tools: Ordered<ToolTable>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServerTable {
    demo: Option<bool>,
    log_level: Option<Spanned<Scalar>>,
    drain_timeout: Option<Spanned<Scalar>>,
    max_request_bytes: Option<Spanned<Scalar>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DatabaseTable {
    url: Option<String>,
    url_env: Option<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConnectionsTable {
    set_role: Option<Spanned<Scalar>>,
    allow_privileged: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyTable {
    #[serde(default)]
    allow_tables: Vec<String>,
    #[serde(default)]
    deny_tables: Vec<String>,
    #[serde(default)]
    deny_columns: Vec<String>,
    #[serde(default)]
    mask_columns: Vec<Spanned<Scalar>>,
    mask_key_file: Option<PathBuf>,
    detect_personal_values: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct LimitsTable {
    max_rows: Option<Spanned<Scalar>>,
    timeout: Option<Spanned<Scalar>>,
    max_running: Option<Spanned<Scalar>>,
    max_waiting: Option<Spanned<Scalar>>,
    max_wait: Option<Spanned<Scalar>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct EnginesTable {
    memory_limit: Option<Spanned<Scalar>>,
    threads: Option<Spanned<Scalar>>,
    spill_dir: Option<PathBuf>,
    max_spill: Option<Spanned<Scalar>>,
    duckdb_in_process: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ResultsTable {
    budget: Option<Spanned<Scalar>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct HttpTable {
    listen: Option<Spanned<Scalar>>,
    max_sessions: Option<Spanned<Scalar>>,
    session_idle_timeout: Option<Spanned<Scalar>>,
    max_connections: Option<Spanned<Scalar>>,
    #[serde(default)]
    allow_origins: Vec<Spanned<Scalar>>,
    #[serde(default)]
    allow_hosts: Vec<Spanned<Scalar>>,
    auth_token_env: Option<Spanned<Scalar>>,
    auth_token_file: Option<PathBuf>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolTable {
    description: Spanned<String>,
    database: Option<Spanned<String>>,
    sql: Spanned<String>,
    #[serde(default)]
    parameters: Ordered<ParameterTable>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ParameterTable {
    #[serde(rename = "type")]
    kind: ParameterKind,
    description: String,
    default: Option<Spanned<toml::Value>>,
    required: Option<Spanned<bool>>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum ParameterKind {
    String,
    Integer,
    Number,
    Boolean,
}

impl From<ParameterKind> for ParameterType {
    fn from(kind: ParameterKind) -> Self {
        match kind {
            ParameterKind::String => ParameterType::String,
            ParameterKind::Integer => ParameterType::Integer,
            ParameterKind::Number => ParameterType::Number,
            ParameterKind::Boolean => ParameterType::Boolean,
        }
    }
}

/// A value checked by a flag's rule: written as a number or a string (`timeout = 30`,
/// `timeout = "2.5s"`), kept as the text the rule reads.
#[derive(Debug)]
struct Scalar(String);

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ScalarVisitor;
        impl Visitor<'_> for ScalarVisitor {
            type Value = Scalar;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number or a string")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Scalar, E> {
                Ok(Scalar(v.to_owned()))
            }
        }
        deserializer.deserialize_any(ScalarVisitor)
    }
}

/// A table's entries in the order the file writes them, each key with its place.
#[derive(Debug)]
struct Ordered<T>(Vec<(Spanned<String>, T)>);

impl<T> Default for Ordered<T> {
    fn default() -> Self {
        Ordered(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Ordered<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct OrderedVisitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for OrderedVisitor<T> {
            type Value = Ordered<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a table")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered<T>, A::Error> {
                let mut entries = Vec::new();
                while let Some(key) = map.next_key::<Spanned<String>>()? {
                    entries.push((key, map.next_value()?));
                }
                // The deserializer hands keys over sorted; their places give the file's order.
                entries.sort_by_key(|(key, _): &(Spanned<String>, T)| key.span().start);
                Ok(Ordered(entries))
            }
        }
        deserializer.deserialize_map(OrderedVisitor(std::marker::PhantomData))
    }
}

/// What a config file holds: the flags it sets, and its named queries.
#[derive(Debug)]
pub(crate) struct Loaded {
    /// The settings, as if given as flags (lists in the file's order).
    pub cli: Cli,
    /// The named queries.
    pub tools: Vec<NamedQuerySpec>,
}

/// A config file that could not be read or is not right. Its message names the file and, when
/// known, the line and column, and never holds a password.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

/// Reads and checks the config file at `path`; `env` looks up the variables `url_env` and
/// `auth_token_env` name.
pub(crate) fn load(
    path: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Loaded, ConfigError> {
    // The path is shown as any command-line value is: a URL given by mistake is not echoed.
    let shown = redact_url(&path.display().to_string());
    let text =
        std::fs::read_to_string(path).map_err(|e| ConfigError(format!("--config {shown}: {e}")))?;
    let base = path.parent().unwrap_or(Path::new(""));
    parse(&text, &shown, base, env)
}

/// Parses a config file's `text`; `origin` names it in errors, `base` is the directory
/// relative paths start from.
pub(crate) fn parse(
    text: &str,
    origin: &str,
    base: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Loaded, ConfigError> {
    let checker = Checker { text, origin };
    let at = |span: Option<Range<usize>>, message: &str| checker.at(span, message);
    let file: ConfigFile = toml::from_str(text).map_err(|e| at(e.span(), e.message()))?;
    // Each scalar goes through the rule of the flag it mirrors.
    let mut cli = Cli::default();
    let relative = |path: &Option<PathBuf>| path.as_ref().map(|p| base.join(p));

    cli.demo = file.server.demo.unwrap_or(false);
    cli.log_level = checker.scalar(
        "server.log_level",
        file.server.log_level.as_ref(),
        values::log_level,
    )?;
    cli.drain_timeout = checker.scalar(
        "server.drain_timeout",
        file.server.drain_timeout.as_ref(),
        values::seconds_or_zero,
    )?;
    cli.max_request_bytes = checker.scalar(
        "server.max_request_bytes",
        file.server.max_request_bytes.as_ref(),
        values::request_bytes,
    )?;

    for (name, database) in &file.databases.0 {
        if !values::is_database_name(name.get_ref()) {
            return Err(at(
                Some(name.span()),
                &format!(
                    "databases.{}: a database name is letters, digits, _ and -",
                    name.get_ref()
                ),
            ));
        }
        let url = match (&database.url, &database.url_env) {
            (Some(url), None) => url.clone(),
            (None, Some(var)) => env(var.get_ref())
                .filter(|url| !url.trim().is_empty())
                .ok_or_else(|| {
                    at(
                        Some(var.span()),
                        &format!(
                            "databases.{}.url_env: the environment variable {:?} is not set",
                            name.get_ref(),
                            var.get_ref()
                        ),
                    )
                })?,
            _ => {
                return Err(at(
                    Some(name.span()),
                    &format!(
                        "databases.{} wants exactly one of url and url_env (prefer url_env for \
                         URLs with credentials)",
                        name.get_ref()
                    ),
                ));
            }
        };
        cli.databases.push(DatabaseArg {
            name: name.get_ref().clone(),
            url,
        });
    }

    cli.set_role = checker.scalar(
        "connections.set_role",
        file.connections.set_role.as_ref(),
        values::role,
    )?;
    cli.allow_privileged = file.connections.allow_privileged.unwrap_or(false);

    let policy = file.policy;
    cli.allow_tables = policy.allow_tables;
    cli.deny_tables = policy.deny_tables;
    cli.deny_columns = policy.deny_columns;
    for rule in &policy.mask_columns {
        let masked = checker.scalar("policy.mask_columns", Some(rule), values::mask_column)?;
        cli.mask_columns.extend(masked);
    }
    cli.mask_key_file = relative(&policy.mask_key_file);
    cli.detect_personal_values = policy.detect_personal_values.unwrap_or(false);

    let limits = file.limits;
    cli.max_rows = checker.scalar("limits.max_rows", limits.max_rows.as_ref(), values::number)?;
    cli.timeout = checker.scalar("limits.timeout", limits.timeout.as_ref(), values::seconds)?;
    cli.max_running = checker.scalar(
        "limits.max_running",
        limits.max_running.as_ref(),
        values::positive,
    )?;
    cli.max_waiting = checker.scalar(
        "limits.max_waiting",
        limits.max_waiting.as_ref(),
        values::count,
    )?;
    cli.max_wait = checker.scalar(
        "limits.max_wait",
        limits.max_wait.as_ref(),
        values::seconds_or_zero,
    )?;

    let engines = file.engines;
    cli.memory_limit = checker.scalar(
        "engines.memory_limit",
        engines.memory_limit.as_ref(),
        values::size,
    )?;
    cli.engine_threads =
        checker.scalar("engines.threads", engines.threads.as_ref(), values::threads)?;
    cli.spill_dir = relative(&engines.spill_dir);
    cli.max_spill = checker.scalar(
        "engines.max_spill",
        engines.max_spill.as_ref(),
        values::size,
    )?;
    cli.duckdb_in_process = engines.duckdb_in_process.unwrap_or(false);

    cli.result_budget = checker.scalar(
        "results.budget",
        file.results.budget.as_ref(),
        values::usize_size,
    )?;

    let http = file.http;
    cli.http = checker.scalar("http.listen", http.listen.as_ref(), values::listen_address)?;
    cli.max_sessions = checker.scalar(
        "http.max_sessions",
        http.max_sessions.as_ref(),
        values::positive,
    )?;
    cli.session_idle_timeout = checker.scalar(
        "http.session_idle_timeout",
        http.session_idle_timeout.as_ref(),
        values::seconds,
    )?;
    cli.max_connections = checker.scalar(
        "http.max_connections",
        http.max_connections.as_ref(),
        values::positive,
    )?;
    for origin in &http.allow_origins {
        let origin = checker.scalar("http.allow_origins", Some(origin), values::origin)?;
        cli.allowed_origins.extend(origin);
    }
    for host in &http.allow_hosts {
        let host = checker.scalar("http.allow_hosts", Some(host), values::host)?;
        cli.allowed_hosts.extend(host);
    }
    cli.auth_token_env = checker.scalar(
        "http.auth_token_env",
        http.auth_token_env.as_ref(),
        values::env_name,
    )?;
    cli.auth_token_file = relative(&http.auth_token_file);

    let builtin = nao_core::tools::sql_tools().names();
    let mut tools = Vec::new();
    for (name, tool) in file.tools.0 {
        let key = name.get_ref();
        if !is_tool_name(key) {
            return Err(at(
                Some(name.span()),
                &format!("tools.{key}: a tool name is 1 to 64 letters, digits, _ and -"),
            ));
        }
        if builtin.iter().any(|b| b == key) {
            return Err(at(
                Some(name.span()),
                &format!("tools.{key}: a built-in tool has this name; choose another"),
            ));
        }
        if tool.description.get_ref().trim().is_empty() {
            return Err(at(
                Some(tool.description.span()),
                &format!("tools.{key}.description: say what the query answers, for the model"),
            ));
        }
        let mut spec = NamedQuerySpec::new(
            key.clone(),
            tool.description.into_inner(),
            tool.sql.get_ref().clone(),
        );
        spec.database = tool.database.map(Spanned::into_inner);
        for (parameter_name, parameter) in tool.parameters.0 {
            let pname = parameter_name.get_ref();
            if !template::is_parameter_name(pname) {
                return Err(at(
                    Some(parameter_name.span()),
                    &format!(
                        "tools.{key}.parameters.{pname}: a parameter name is a letter or _ \
                         then letters, digits or _"
                    ),
                ));
            }
            let kind = ParameterType::from(parameter.kind);
            let mut spec_parameter = ParameterSpec::new(pname.clone(), kind, parameter.description);
            if let Some(default) = &parameter.default {
                let value = toml_to_json(default.get_ref(), kind).ok_or_else(|| {
                    at(
                        Some(default.span()),
                        &format!("tools.{key}.parameters.{pname}.default is not a {kind} value"),
                    )
                })?;
                spec_parameter = spec_parameter.with_default(value);
            }
            match (&parameter.required, &parameter.default) {
                (Some(required), Some(_)) if *required.get_ref() => {
                    return Err(at(
                        Some(required.span()),
                        &format!(
                            "tools.{key}.parameters.{pname}: a parameter with a default is not \
                             required; drop one of them"
                        ),
                    ));
                }
                (Some(required), None) if !*required.get_ref() => {
                    spec_parameter = spec_parameter.optional();
                }
                _ => {}
            }
            spec.parameters.push(spec_parameter);
        }
        // The template itself is checked when the database is open and its dialect known.
        if tool.sql.get_ref().trim().is_empty() {
            return Err(at(
                Some(tool.sql.span()),
                &format!("tools.{key}.sql is empty"),
            ));
        }
        tools.push(spec);
    }
    Ok(Loaded { cli, tools })
}

/// Turns problems into errors that say where they are.
struct Checker<'a> {
    text: &'a str,
    origin: &'a str,
}

impl Checker<'_> {
    /// An error at `span` of the file (its line and column), secrets scrubbed.
    fn at(&self, span: Option<Range<usize>>, message: &str) -> ConfigError {
        let message = scrub_values(self.text, message);
        let origin = self.origin;
        ConfigError(match span.map(|s| line_column(self.text, s.start)) {
            Some((line, column)) => format!("{origin}, line {line}, column {column}: {message}"),
            None => format!("{origin}: {message}"),
        })
    }

    /// `value` read by `rule` (the rule of the flag the key mirrors), if given.
    fn scalar<T>(
        &self,
        key: &str,
        value: Option<&Spanned<Scalar>>,
        rule: fn(&str) -> Result<T, String>,
    ) -> Result<Option<T>, ConfigError> {
        value
            .map(|value| {
                rule(&value.get_ref().0)
                    .map_err(|why| self.at(Some(value.span()), &format!("{key} {why}")))
            })
            .transpose()
    }
}

/// A default value of a parameter's type, as JSON.
fn toml_to_json(value: &toml::Value, kind: ParameterType) -> Option<serde_json::Value> {
    match (kind, value) {
        (ParameterType::String, toml::Value::String(s)) => Some(s.clone().into()),
        (ParameterType::Integer, toml::Value::Integer(n)) => Some((*n).into()),
        (ParameterType::Number, toml::Value::Integer(n)) => Some((*n).into()),
        (ParameterType::Number, toml::Value::Float(x)) => {
            serde_json::Number::from_f64(*x).map(Into::into)
        }
        (ParameterType::Boolean, toml::Value::Boolean(b)) => Some((*b).into()),
        _ => None,
    }
}

/// An MCP tool name: 1 to 64 letters, digits, `_` and `-`.
fn is_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// The 1-based line and column (in characters) of byte `offset` of `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// `message` with the secrets of every string the file holds taken out (a parser's message
/// may quote a value: `invalid type: string "postgres://me:pw@…"`).
fn scrub_values(text: &str, message: &str) -> String {
    let Ok(document) = text.parse::<toml::Table>() else {
        return message.to_owned();
    };
    let mut strings = Vec::new();
    collect_strings(&toml::Value::Table(document), &mut strings);
    strings
        .iter()
        .fold(message.to_owned(), |message, s| scrub(&message, s))
}

fn collect_strings(value: &toml::Value, out: &mut Vec<String>) {
    match value {
        toml::Value::String(s) => out.push(s.clone()),
        toml::Value::Array(items) => items.iter().for_each(|v| collect_strings(v, out)),
        toml::Value::Table(table) => table.values().for_each(|v| collect_strings(v, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests;
