//! Connecting: URL parsing (`mysql://` and `mariadb://`), detecting the server's flavour, and
//! the session settings every pooled connection gets.

use std::time::Duration;

use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Opts, OptsBuilder, Pool};
use nao_core::DialectError;

use super::{errors, privileges, tls};
use crate::OpenOptions;

/// The `sql_mode` every session runs with: no `ANSI_QUOTES` (double quotes delimit strings,
/// backticks identifiers) and no `NO_BACKSLASH_ESCAPES` (a backslash escapes inside strings).
/// The SQL guard's MySQL tokenizer reads text that way; a server reading it differently could
/// see a statement the guard never saw. The other modes are the usual strict defaults.
pub(super) const SQL_MODE: &str =
    "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION";

/// The largest recursion setting both servers accept: recursive CTEs are bounded by the
/// statement time limit instead (MariaDB otherwise cuts them silently at 1000 iterations, and
/// MySQL fails them).
const MAX_RECURSION: u64 = 4_294_967_295;

/// How long opening may take to reach the server and run the session setup.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// Which server the adapter talks to: they differ in how a statement's time is limited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Flavour {
    /// MySQL, and servers that speak its protocol without claiming to be MariaDB (Percona,
    /// TiDB, …): `max_execution_time` in milliseconds.
    MySql,
    /// MariaDB: `max_statement_time` in seconds.
    MariaDb,
}

impl Flavour {
    /// The flavour a `SELECT VERSION()` string names.
    pub fn from_version(version: &str) -> Self {
        if version.to_ascii_lowercase().contains("mariadb") {
            Flavour::MariaDb
        } else {
            Flavour::MySql
        }
    }

    /// The session setting that lets recursive CTEs run until the time limit.
    fn recursion_setting(self) -> String {
        match self {
            Flavour::MySql => format!("SET SESSION cte_max_recursion_depth = {MAX_RECURSION}"),
            Flavour::MariaDb => format!("SET SESSION max_recursive_iterations = {MAX_RECURSION}"),
        }
    }

    /// The statements run before each statement of the model: the session's `sql_mode` again
    /// (in case a statement changed it), the statement time limit, and a read-only
    /// transaction.
    pub(super) fn begin(self, limit: Duration) -> String {
        // 0 means "no limit" to both servers: at least one millisecond.
        let millis = limit.as_millis().clamp(1, u128::from(u32::MAX));
        let time_limit = match self {
            Flavour::MySql => format!("SESSION max_execution_time = {millis}"),
            Flavour::MariaDb => format!(
                "SESSION max_statement_time = {}.{:03}",
                millis / 1000,
                millis % 1000
            ),
        };
        format!("SET SESSION sql_mode = '{SQL_MODE}', {time_limit}; START TRANSACTION READ ONLY")
    }
}

/// The session setup of every pooled connection (run when it is made and after each reset):
/// the settings, then `SET ROLE` when a role is asked for.
fn session_setup(flavour: Flavour, role: Option<&str>) -> Vec<String> {
    let mut setup = vec![
        "SET NAMES utf8mb4".to_owned(),
        format!("SET SESSION sql_mode = '{SQL_MODE}', SESSION time_zone = '+00:00'"),
        "SET SESSION TRANSACTION READ ONLY".to_owned(),
        flavour.recursion_setting(),
    ];
    setup.extend(role.map(privileges::set_role_statement));
    setup
}

/// Parses a `mysql://` or `mariadb://` URL with mysql_async (which knows `mysql://`), after
/// taking out what it does not know: the TLS files and the adapter's `allow_privileged` and
/// `set_role`, which update `options`. Errors never repeat the URL, which may hold a
/// password.
pub(super) fn parse_url(
    database: &str,
    url: &str,
    options: &OpenOptions,
) -> Result<(Opts, OpenOptions), DialectError> {
    let normalised = match url.split_once("://") {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("mariadb") => {
            format!("mysql://{rest}")
        }
        _ => url.to_owned(),
    };
    let invalid = |message: String| DialectError::Connection {
        database: database.to_owned(),
        message: format!("invalid MySQL URL: {message}"),
        source: None,
    };
    let (options, normalised) = take_open_parameters(&normalised, options).map_err(invalid)?;
    let (files, rest) = tls::take_files(&normalised).map_err(invalid)?;
    let opts = Opts::from_url(&rest).map_err(|e| invalid(e.to_string()))?;
    Ok((files.apply(opts).map_err(invalid)?, options))
}

/// Takes `allow_privileged` and `set_role` out of `url`'s query; they win over `options`.
fn take_open_parameters(url: &str, options: &OpenOptions) -> Result<(OpenOptions, String), String> {
    let mut options = options.clone();
    let Some((base, query)) = url.split_once('?') else {
        return Ok((options, url.to_owned()));
    };
    let mut kept = Vec::new();
    for pair in query.split('&') {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match crate::url::percent_decode(key)?.as_str() {
            "allow_privileged" => {
                let value = crate::url::percent_decode(value)?;
                options =
                    options.allow_privileged(crate::url::parse_flag("allow_privileged", &value)?);
            }
            "set_role" => {
                let role = crate::url::percent_decode(value)?;
                if role.is_empty() {
                    return Err("set_role needs a role name".into());
                }
                options = options.set_role(role);
            }
            _ => kept.push(pair),
        }
    }
    let rest = if kept.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    Ok((options, rest))
}

/// `user@host:port/db`, for messages: never the password.
pub(super) fn describe(opts: &Opts) -> String {
    format!(
        "{}@{}:{}/{}",
        opts.user().unwrap_or(""),
        opts.ip_or_hostname(),
        opts.tcp_port(),
        opts.db_name().unwrap_or("")
    )
}

/// What opening learnt about the server.
pub(super) struct Opened {
    pub(super) pool: Pool,
    pub(super) flavour: Flavour,
    pub(super) version: String,
}

/// Connects once to learn the flavour and check the user's privileges (after `SET ROLE`,
/// when `options` name a role), then builds the pool whose connections all run the session
/// setup.
pub(super) async fn connect(
    database: &str,
    opts: Opts,
    options: &OpenOptions,
) -> Result<Opened, DialectError> {
    let target = describe(&opts);
    let fail = |e: mysql_async::Error| {
        let mapped = errors::from_mysql(database, e, CONNECT_TIMEOUT, None);
        match mapped {
            // Nothing runs yet: a driver or server failure here (TLS refused, too many
            // connections, …) is a failure to connect.
            DialectError::Connection {
                database,
                message,
                source,
            }
            | DialectError::Engine {
                database,
                message,
                source,
                ..
            } => DialectError::Connection {
                database,
                message: format!("could not connect to {target}: {message}"),
                source,
            },
            other => other,
        }
    };
    let probe = async {
        let mut conn = Conn::new(opts.clone()).await.map_err(&fail)?;
        let version: Option<String> = conn.query_first("SELECT VERSION()").await.map_err(&fail)?;
        let version = version.unwrap_or_default();
        let flavour = Flavour::from_version(&version);
        if let Some(role) = options.role() {
            conn.query_drop(privileges::set_role_statement(role))
                .await
                .map_err(&fail)?;
        }
        let checked =
            privileges::check(database, &mut conn, flavour, options.allows_privileged()).await;
        let _ = conn.disconnect().await;
        checked.map(|()| version)
    };
    let version = tokio::time::timeout(CONNECT_TIMEOUT, probe)
        .await
        .map_err(|_| DialectError::Connection {
            database: database.to_owned(),
            message: format!("could not connect to {target} within {CONNECT_TIMEOUT:?}"),
            source: None,
        })??;
    let flavour = Flavour::from_version(&version);
    let opts = OptsBuilder::from_opts(opts).setup(session_setup(flavour, options.role()));
    let pool = Pool::new(opts);
    // The first pooled connection proves the session setup works for this user and server.
    let first = tokio::time::timeout(CONNECT_TIMEOUT, pool.get_conn())
        .await
        .map_err(|_| DialectError::Connection {
            database: database.to_owned(),
            message: format!("could not set up a session on {target} within {CONNECT_TIMEOUT:?}"),
            source: None,
        })?
        .map_err(&fail)?;
    drop(first);
    Ok(Opened {
        pool,
        flavour,
        version,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mariadb_urls_parse_like_mysql_urls() {
        let defaults = OpenOptions::default();
        let (opts, options) = parse_url("db", "mariadb://u:secret@db.example:3307/shop", &defaults)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(opts.tcp_port(), 3307);
        assert_eq!(describe(&opts), "u@db.example:3307/shop");
        assert_eq!(options, defaults);
        let bad = parse_url("db", "mysql://u:secret@h/db?no_such_param=1", &defaults);
        let message = bad.map(|_| ()).unwrap_err().to_string();
        assert!(!message.contains("secret"), "{message}");
    }

    #[test]
    fn the_adapters_own_parameters_are_taken_out() {
        let (opts, options) = parse_url(
            "db",
            "mysql://u:secret@h/shop?allow_privileged=true&pool_max=30&set_role=nao%20reader",
            &OpenOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(opts.db_name(), Some("shop"));
        assert!(options.allows_privileged());
        assert_eq!(options.role(), Some("nao reader"));
        let (_, options) = parse_url(
            "db",
            "mysql://h/shop?allow_privileged=false",
            &OpenOptions::new().allow_privileged(true),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(!options.allows_privileged());
        for bad in [
            "mysql://u:secret@h/db?allow_privileged=perhaps",
            "mysql://u:secret@h/db?set_role=",
        ] {
            let message = parse_url("db", bad, &OpenOptions::default())
                .map(|_| ())
                .unwrap_err()
                .to_string();
            assert!(!message.contains("secret"), "{message}");
        }
        assert_eq!(
            session_setup(Flavour::MariaDb, Some("r`x"))
                .last()
                .map(String::as_str),
            Some("SET ROLE `r``x`")
        );
    }

    #[test]
    fn each_flavour_limits_time_its_own_way() {
        assert_eq!(
            Flavour::from_version("10.11.19-MariaDB-0+deb12u1"),
            Flavour::MariaDb
        );
        assert_eq!(Flavour::from_version("8.4.3"), Flavour::MySql);
        let limit = Duration::from_millis(1500);
        assert!(
            Flavour::MariaDb
                .begin(limit)
                .contains("max_statement_time = 1.500")
        );
        assert!(
            Flavour::MySql
                .begin(limit)
                .contains("max_execution_time = 1500")
        );
        assert!(
            Flavour::MySql
                .begin(Duration::ZERO)
                .contains("max_execution_time = 1;")
        );
        assert!(!SQL_MODE.contains("ANSI_QUOTES") && !SQL_MODE.contains("NO_BACKSLASH_ESCAPES"));
    }
}
