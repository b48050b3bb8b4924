//! Opening an adapter from a URL, with a clear error when its feature is off.

use std::sync::Arc;

use nao_core::{Dialect, DialectError};

use crate::EngineLimits;

/// Why a URL could not be opened.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The URL's scheme names no adapter nao-rs has.
    #[error(
        "unknown database URL scheme {scheme:?}; use sqlite://, duckdb://, postgres://, mysql://, flightsql://, sc://, clickhouse:// or adbc:"
    )]
    UnknownScheme {
        /// The scheme given.
        scheme: String,
    },
    /// The adapter exists but this build left its cargo feature off.
    #[error(
        "the {scheme} adapter is not compiled in; enable the `{feature}` feature of nao-dialects (or nao)"
    )]
    FeatureDisabled {
        /// The scheme given.
        scheme: String,
        /// The feature to enable.
        feature: &'static str,
    },
    /// The URL is malformed.
    #[error("invalid database URL: {message}")]
    InvalidUrl {
        /// What is wrong.
        message: String,
    },
    /// The adapter could not open the database.
    #[error(transparent)]
    Dialect(#[from] DialectError),
}

/// How [`open_with`] opens a server database: the role it reads as, and whether a privileged
/// role is accepted.
///
/// Server adapters (PostgreSQL, also through ADBC, and MySQL/MariaDB) inspect their own
/// privileges when they open and refuse a role that could do more than read (a superuser, file
/// access, signalling other sessions, any write grant), naming each privilege and giving the SQL
/// for a read-only role.
/// [`allow_privileged`](Self::allow_privileged) is the host insisting; [`set_role`](Self::set_role)
/// is the safe path: switch to a read-only role on every connection, and check that role.
///
/// The URL parameters `allow_privileged=true` and `set_role=<name>` say the same (and win
/// over these options when given). Embedded engines (SQLite, DuckDB) have no roles and ignore
/// both; they take their memory, thread and spill bounds from
/// [`engine_limits`](Self::engine_limits) instead, which server engines ignore. `Debug`
/// shows every field; none is a secret.
///
/// ```
/// let options = nao_dialects::OpenOptions::new().set_role("nao_reader");
/// # let _ = options;
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpenOptions {
    /// Open even when the role has privileges beyond reading.
    allow_privileged: bool,
    /// A role to switch to on every connection (`SET ROLE`) before anything runs.
    set_role: Option<String>,
    /// Memory, threads and spill of an embedded engine.
    engine_limits: EngineLimits,
}

impl OpenOptions {
    /// The defaults: refuse privileged roles, switch to no role.
    pub fn new() -> Self {
        OpenOptions::default()
    }

    /// Opens even when the role is privileged (superuser, file access, write grants, …).
    /// The guard and the read-only transaction still apply, but the role no longer backs
    /// them up: use it only when no read-only role can be had.
    #[must_use]
    pub fn allow_privileged(mut self, yes: bool) -> Self {
        self.allow_privileged = yes;
        self
    }

    /// Runs `SET ROLE <role>` on every new connection, so statements and the privilege check
    /// run as `role`. See the adapters' docs for what this does and does not protect against
    /// when the login role itself is privileged.
    #[must_use]
    pub fn set_role(mut self, role: impl Into<String>) -> Self {
        self.set_role = Some(role.into());
        self
    }

    /// Whether a privileged role is accepted.
    pub fn allows_privileged(&self) -> bool {
        self.allow_privileged
    }

    /// The role every connection switches to, if any.
    pub fn role(&self) -> Option<&str> {
        self.set_role.as_deref()
    }

    /// Bounds an embedded engine's memory, threads and spill ([`EngineLimits`]; the defaults
    /// without this call).
    #[must_use]
    pub fn engine_limits(mut self, limits: EngineLimits) -> Self {
        self.engine_limits = limits;
        self
    }

    /// The bounds an embedded engine opens with.
    pub fn limits(&self) -> &EngineLimits {
        &self.engine_limits
    }
}

/// Opens a read-only adapter from a URL, naming it `name` (its `database_id`):
/// `sqlite:///path/to.db`, `sqlite::memory:`, `duckdb:///path/to.duckdb`, `duckdb::memory:`,
/// `postgres://user@host:5432/db`, `mysql://user@host:3306/db`, `flightsql://host:port`,
/// `sc://host:port`, `clickhouse://user@host:8123/db`, `adbc:postgresql://…` (any ADBC
/// driver). The same as [`open_with`] and
/// the default [`OpenOptions`]: a privileged server role is refused.
///
/// # Errors
/// As [`open_with`].
pub async fn open(name: &str, url: &str) -> Result<Arc<dyn Dialect>, OpenError> {
    open_with(name, url, &OpenOptions::default()).await
}

/// Opens a read-only adapter from a URL, as [`open`], with `options` (used by server
/// adapters; embedded engines ignore them).
///
/// # Errors
/// [`OpenError::InvalidUrl`], [`OpenError::UnknownScheme`] or [`OpenError::FeatureDisabled`]
/// for the URL itself; [`OpenError::Dialect`] when the adapter cannot open, among them
/// [`DialectError::Permission`] when a server role is privileged and `options` do not allow
/// it. No error repeats the URL's password.
pub async fn open_with(
    name: &str,
    url: &str,
    options: &OpenOptions,
) -> Result<Arc<dyn Dialect>, OpenError> {
    let Some((scheme, rest)) = url.split_once(':') else {
        return Err(OpenError::InvalidUrl {
            message: "the URL has no scheme (like sqlite:///path.db, postgres://host/db or \
                      mysql://host/db)"
                .to_owned(),
        });
    };
    let scheme = scheme.to_ascii_lowercase();
    match scheme.as_str() {
        "sqlite" => open_sqlite(name, rest, options).await,
        "duckdb" => open_duckdb(name, rest, options).await,
        "postgres" | "postgresql" => open_postgres(name, url, options).await,
        "mysql" | "mariadb" => open_mysql(name, url, options).await,
        "flightsql" | "flightsql+tls" => open_flight_sql(name, url).await,
        "sc" => open_spark_connect(name, url).await,
        "clickhouse" | "clickhouses" => open_clickhouse(name, url).await,
        "adbc" => open_adbc(name, url, options).await,
        _ => Err(OpenError::UnknownScheme {
            scheme: printable_scheme(&scheme),
        }),
    }
}

/// The scheme for an error message: a real scheme is short and alphanumeric; anything else
/// (a `host=… password=…` string has no `:` before its password, but `user:secret@host`
/// without `//` does) is not repeated.
fn printable_scheme(scheme: &str) -> String {
    let plausible = !scheme.is_empty()
        && scheme.len() <= 20
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if plausible {
        scheme.to_owned()
    } else {
        "(not a scheme)".to_owned()
    }
}

/// Runs an embedded engine's blocking `open` on tokio's blocking pool (file I/O, loading).
#[cfg_attr(not(any(feature = "sqlite", feature = "duckdb")), allow(dead_code))]
pub(crate) async fn open_blocking<D: Dialect>(
    name: &str,
    engine: &str,
    open: impl FnOnce(String) -> Result<D, DialectError> + Send + 'static,
) -> Result<Arc<dyn Dialect>, DialectError> {
    let owned = name.to_owned();
    let opened = tokio::task::spawn_blocking(move || open(owned))
        .await
        .map_err(|e| DialectError::Connection {
            database: name.to_owned(),
            message: format!("opening the {engine} database failed: {e}"),
            source: None,
        })??;
    Ok(Arc::new(opened))
}

/// Decodes the `%XX` escapes of a URL parameter (`+` stays `+`, as libpq and MySQL clients
/// read it).
#[cfg_attr(not(any(feature = "postgres", feature = "mysql")), allow(dead_code))]
pub(crate) fn percent_decode(text: &str) -> Result<String, String> {
    // percent-encoding keeps a malformed escape as written; libpq refuses it, and so does this.
    let malformed = text.match_indices('%').any(|(at, _)| {
        !text
            .get(at + 1..at + 3)
            .is_some_and(|hex| hex.bytes().all(|b| b.is_ascii_hexdigit()))
    });
    if malformed {
        return Err("a malformed %-escape in a URL parameter".to_owned());
    }
    percent_encoding::percent_decode_str(text)
        .decode_utf8()
        .map(std::borrow::Cow::into_owned)
        .map_err(|_| "a URL parameter is not UTF-8 after %-decoding".to_owned())
}

/// Reads a boolean URL parameter: `true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off` (as libpq
/// reads booleans). The error names the parameter, not the value.
#[cfg_attr(not(any(feature = "postgres", feature = "mysql")), allow(dead_code))]
pub(crate) fn parse_flag(key: &str, value: &str) -> Result<bool, String> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Ok(true),
        "false" | "0" | "no" | "off" => Ok(false),
        _ => Err(format!("{key} must be true or false")),
    }
}

/// The path of `//path` or `///abs/path` URLs; `None` for `:memory:`.
#[cfg_attr(not(any(feature = "sqlite", feature = "duckdb")), allow(dead_code))]
fn path_of(rest: &str) -> Result<Option<std::path::PathBuf>, OpenError> {
    if rest == ":memory:" || rest == "//:memory:" {
        return Ok(None);
    }
    match rest.strip_prefix("//") {
        Some(path) if !path.is_empty() => Ok(Some(std::path::PathBuf::from(path))),
        _ => Err(OpenError::InvalidUrl {
            message: format!("expected //path or :memory: after the scheme, got {rest:?}"),
        }),
    }
}

#[cfg(feature = "sqlite")]
async fn open_sqlite(
    name: &str,
    rest: &str,
    options: &OpenOptions,
) -> Result<Arc<dyn Dialect>, OpenError> {
    crate::sqlite::open_url(name, path_of(rest)?, options.limits().clone())
        .await
        .map_err(OpenError::from)
}

#[cfg(not(feature = "sqlite"))]
async fn open_sqlite(
    _name: &str,
    _rest: &str,
    _options: &OpenOptions,
) -> Result<Arc<dyn Dialect>, OpenError> {
    Err(OpenError::FeatureDisabled {
        scheme: "sqlite".into(),
        feature: "sqlite",
    })
}

#[cfg(feature = "duckdb")]
async fn open_duckdb(
    name: &str,
    rest: &str,
    options: &OpenOptions,
) -> Result<Arc<dyn Dialect>, OpenError> {
    crate::duckdb::open_url(name, path_of(rest)?, options.limits().clone())
        .await
        .map_err(OpenError::from)
}

#[cfg(not(feature = "duckdb"))]
async fn open_duckdb(
    _name: &str,
    _rest: &str,
    _options: &OpenOptions,
) -> Result<Arc<dyn Dialect>, OpenError> {
    Err(OpenError::FeatureDisabled {
        scheme: "duckdb".into(),
        feature: "duckdb",
    })
}

#[cfg(feature = "postgres")]
async fn open_postgres(
    name: &str,
    url: &str,
    options: &OpenOptions,
) -> Result<Arc<dyn Dialect>, OpenError> {
    crate::postgres::open_url_with(name, url, options)
        .await
        .map_err(OpenError::from)
}

#[cfg(not(feature = "postgres"))]
async fn open_postgres(
    _name: &str,
    _url: &str,
    _options: &OpenOptions,
) -> Result<Arc<dyn Dialect>, OpenError> {
    Err(OpenError::FeatureDisabled {
        scheme: "postgres".into(),
        feature: "postgres",
    })
}

#[cfg(feature = "mysql")]
async fn open_mysql(
    name: &str,
    url: &str,
    options: &OpenOptions,
) -> Result<Arc<dyn Dialect>, OpenError> {
    crate::mysql::open_url_with(name, url, options)
        .await
        .map_err(OpenError::from)
}

#[cfg(not(feature = "mysql"))]
async fn open_mysql(
    _name: &str,
    _url: &str,
    _options: &OpenOptions,
) -> Result<Arc<dyn Dialect>, OpenError> {
    Err(OpenError::FeatureDisabled {
        scheme: "mysql".into(),
        feature: "mysql",
    })
}

#[cfg(feature = "flight-sql")]
async fn open_flight_sql(name: &str, url: &str) -> Result<Arc<dyn Dialect>, OpenError> {
    let config =
        crate::flight_sql::FlightSqlConfig::from_url(url).map_err(|e| OpenError::InvalidUrl {
            message: e.to_string(),
        })?;
    let dialect = crate::flight_sql::FlightSqlDialect::connect(name, &config).await?;
    Ok(Arc::new(dialect))
}

#[cfg(not(feature = "flight-sql"))]
async fn open_flight_sql(_name: &str, url: &str) -> Result<Arc<dyn Dialect>, OpenError> {
    let scheme = url
        .split_once(':')
        .map_or("flightsql", |(scheme, _)| scheme);
    Err(OpenError::FeatureDisabled {
        scheme: printable_scheme(&scheme.to_ascii_lowercase()),
        feature: "flight-sql",
    })
}

#[cfg(feature = "spark-connect")]
async fn open_spark_connect(name: &str, url: &str) -> Result<Arc<dyn Dialect>, OpenError> {
    let config = crate::spark_connect::SparkConnectConfig::from_url(url).map_err(|e| {
        OpenError::InvalidUrl {
            message: e.to_string(),
        }
    })?;
    let dialect = crate::spark_connect::SparkConnectDialect::connect(name, &config).await?;
    Ok(Arc::new(dialect))
}

#[cfg(not(feature = "spark-connect"))]
async fn open_spark_connect(_name: &str, _url: &str) -> Result<Arc<dyn Dialect>, OpenError> {
    Err(OpenError::FeatureDisabled {
        scheme: "sc".into(),
        feature: "spark-connect",
    })
}

#[cfg(feature = "clickhouse")]
async fn open_clickhouse(name: &str, url: &str) -> Result<Arc<dyn Dialect>, OpenError> {
    let config =
        crate::clickhouse::ClickHouseConfig::from_url(url).map_err(|e| OpenError::InvalidUrl {
            message: e.to_string(),
        })?;
    let dialect = crate::clickhouse::ClickHouseDialect::connect(name, &config).await?;
    Ok(Arc::new(dialect))
}

#[cfg(not(feature = "clickhouse"))]
async fn open_clickhouse(_name: &str, url: &str) -> Result<Arc<dyn Dialect>, OpenError> {
    let scheme = url
        .split_once(':')
        .map_or("clickhouse", |(scheme, _)| scheme);
    Err(OpenError::FeatureDisabled {
        scheme: printable_scheme(&scheme.to_ascii_lowercase()),
        feature: "clickhouse",
    })
}

/// Opens an `adbc:` URL; its `allow_privileged=` and `set_role=` win over `options`.
#[cfg(feature = "adbc")]
async fn open_adbc(
    name: &str,
    url: &str,
    options: &OpenOptions,
) -> Result<Arc<dyn Dialect>, OpenError> {
    let mut config = crate::adbc::AdbcConfig::from_url(url).map_err(|e| OpenError::InvalidUrl {
        message: e.to_string(),
    })?;
    if !config.said_allow_privileged() {
        config = config.with_allow_privileged(options.allows_privileged());
    }
    if let (None, Some(role)) = (&config.role, options.role()) {
        config = config.with_role(role);
    }
    Ok(Arc::new(
        crate::adbc::AdbcDialect::connect(name, &config).await?,
    ))
}

#[cfg(not(feature = "adbc"))]
async fn open_adbc(
    _name: &str,
    _url: &str,
    _options: &OpenOptions,
) -> Result<Arc<dyn Dialect>, OpenError> {
    Err(OpenError::FeatureDisabled {
        scheme: "adbc".to_owned(),
        feature: "adbc",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "Pl4nted-S3cret-xyzzy";

    fn assert_hidden(url: &str, error: &OpenError) {
        let mut texts = vec![error.to_string(), format!("{error:?}")];
        let mut source = std::error::Error::source(error);
        while let Some(inner) = source {
            texts.push(inner.to_string());
            texts.push(format!("{inner:?}"));
            source = inner.source();
        }
        for text in texts {
            assert!(!text.contains(SECRET), "{url}: the password leaked: {text}");
        }
    }

    /// Whatever the URL and whichever adapters are compiled in, an error that comes back
    /// without reaching a server never repeats a password.
    #[tokio::test]
    async fn errors_never_repeat_a_password() {
        let encoded = SECRET.replace('-', "%2D");
        let urls = [
            format!("host=db.internal port=5432 user=app password={SECRET} dbname=shop"),
            format!("host=db.internal password='{SECRET}' dbname=shop"),
            format!("host=db.internal password = '{SECRET} with spaces'"),
            format!("host=db password=with:colon{SECRET}"),
            format!("password={SECRET}"),
            SECRET.to_owned(),
            format!("app:{SECRET}@db.internal:5432/shop"),
            format!("postgress://app:{SECRET}@db.internal/shop"),
            format!("jdbc:postgresql://db.internal/shop?user=app&password={SECRET}"),
            format!("postgres://app:{SECRET}@127.0.0.1:1/shop?connect_timeout=5"),
            format!("postgresql://app:{encoded}@127.0.0.1:1/shop?connect_timeout=5"),
            format!("postgres://app:{SECRET}@[::1/shop"),
            format!("postgres://app:{SECRET}@db/shop?sslmode=bogus"),
            format!("postgres://app:{SECRET}@db/shop?sslrootcert=%zz"),
            format!("postgres://app:{SECRET}@db/shop?allow_privileged=perhaps"),
            format!("postgres://app:{SECRET}@db/shop?no_such_option=1"),
            format!("mysql://app:{SECRET}@127.0.0.1:1/shop"),
            format!("mariadb://app:{encoded}@127.0.0.1:1/shop"),
            format!("mysql://app:{SECRET}@db:notaport/shop"),
            format!("mysql://app:{SECRET}@db/shop?ssl_ca=/nonexistent/ca.pem"),
            format!("mysql://app:{SECRET}@db/shop?set_role="),
            format!("mysql://app:{SECRET}@db/shop?no_such_param=1"),
        ];
        let options = OpenOptions::new().allow_privileged(true).set_role("reader");
        for url in &urls {
            for opened in [open("db", url).await, open_with("db", url, &options).await] {
                match opened {
                    Err(error) => assert_hidden(url, &error),
                    Ok(db) => assert!(!format!("{db:?}").contains(SECRET), "{url}"),
                }
            }
        }
        assert!(!format!("{options:?}").contains(SECRET));
    }

    #[tokio::test]
    async fn a_string_without_a_scheme_is_named_as_such() {
        let error = open("db", "host=db password=hunter2")
            .await
            .map(|_| ())
            .unwrap_err();
        assert!(matches!(error, OpenError::InvalidUrl { .. }), "{error:?}");
        assert!(error.to_string().contains("no scheme"), "{error}");
        let error = open("db", "host=db password=a:b")
            .await
            .map(|_| ())
            .unwrap_err();
        assert!(error.to_string().contains("(not a scheme)"), "{error}");
        let error = open("db", "ftp://x").await.map(|_| ()).unwrap_err();
        assert!(error.to_string().contains("\"ftp\""), "{error}");
    }
}
