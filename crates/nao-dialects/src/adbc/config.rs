//! [`AdbcConfig`]: which driver to load, the options it gets, and what the adapter does on
//! top (SQL dialect, connections, session statements).

use std::fmt;
use std::path::PathBuf;

use nao_core::guard::SqlDialect;

use super::secrets::{MASK, Secrets, is_secret_key};

/// Default most connections open at once ([`AdbcConfig::max_connections`]).
pub const DEFAULT_MAX_CONNECTIONS: usize = 4;

/// How to open one database through an ADBC driver: the driver (a name or a path), the
/// options set on its `AdbcDatabase` and on each `AdbcConnection`, and what the adapter adds.
///
/// Built from a URL ([`from_url`](Self::from_url)) or by hand, for drivers and options the URL
/// mapping does not cover:
///
/// ```
/// use nao_dialects::adbc::AdbcConfig;
/// use nao_dialects::core::guard::SqlDialect;
///
/// let config = AdbcConfig::new("snowflake")
///     .with_option("adbc.snowflake.sql.account", "acme-eu1")
///     .with_option("username", "NAO_READER")
///     .with_secret_option("adbc.snowflake.sql.client_option.jwt_private_key", "/keys/nao.p8")
///     .with_option("adbc.snowflake.sql.auth_type", "auth_jwt")
///     .with_dialect(SqlDialect::Snowflake);
/// // Secrets never show in Debug output.
/// assert!(!format!("{config:?}").contains("nao.p8"));
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct AdbcConfig {
    /// The driver: a short name (`postgresql`, `sqlite`, `flightsql`, `snowflake`,
    /// `bigquery`, or any name with a driver manifest `<name>.toml`), a library name
    /// (`adbc_driver_postgresql`), or a path to a shared library or a manifest. See the
    /// [module docs](super#finding-the-driver) for where names are searched.
    pub driver: String,
    /// The driver's init function, when it is not `AdbcDriverInit` or the one derived from
    /// the library's name.
    pub entrypoint: Option<String>,
    /// Folders searched for the driver before the ADBC manifest locations (default: the
    /// folders of `NAO_ADBC_DRIVER_DIR`).
    pub search_dirs: Vec<PathBuf>,
    /// Options set on the driver's database before it is initialised, in order.
    database_options: Vec<(String, String)>,
    /// Options set on each connection before it is initialised, in order.
    connection_options: Vec<(String, String)>,
    /// The SQL dialect statements are checked in; `None`: from the driver's vendor name.
    pub dialect: Option<SqlDialect>,
    /// Statements run on every new connection (the read-only session); `None`: the ones the
    /// vendor needs (see the [module docs](super#read-only)).
    pub session_sql: Option<Vec<String>>,
    /// Most connections open at once (statements beyond wait for one).
    pub max_connections: usize,
    /// Where the database is, without credentials, for error messages (`127.0.0.1:5432`).
    pub endpoint: String,
    /// A role every new connection switches to after its session statements (`SET ROLE`,
    /// PostgreSQL), so statements and the privilege check run as it.
    pub role: Option<String>,
    /// Whether a login that may do more than read opens; `None`: not said (refused).
    allow_privileged: Option<bool>,
    secrets: Secrets,
}

impl fmt::Debug for AdbcConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = |options: &[(String, String)]| -> Vec<(String, String)> {
            options
                .iter()
                .map(|(k, v)| (k.clone(), self.shown_value(k, v)))
                .collect()
        };
        f.debug_struct("AdbcConfig")
            .field("driver", &self.driver)
            .field("entrypoint", &self.entrypoint)
            .field("search_dirs", &self.search_dirs)
            .field("database_options", &shown(&self.database_options))
            .field("connection_options", &shown(&self.connection_options))
            .field("dialect", &self.dialect)
            .field("session_sql", &self.session_sql)
            .field("max_connections", &self.max_connections)
            .field("endpoint", &self.endpoint)
            .field("role", &self.role)
            .field("allow_privileged", &self.allow_privileged)
            .finish()
    }
}

impl AdbcConfig {
    /// A configuration loading `driver` (a name or a path) with no options.
    pub fn new(driver: impl Into<String>) -> Self {
        let driver = driver.into();
        AdbcConfig {
            endpoint: driver.clone(),
            driver,
            entrypoint: None,
            search_dirs: driver_dirs_from_env(),
            database_options: Vec::new(),
            connection_options: Vec::new(),
            dialect: None,
            session_sql: None,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            role: None,
            allow_privileged: None,
            secrets: Secrets::default(),
        }
    }

    /// Sets a database option (`uri`, `username`, `adbc.snowflake.sql.warehouse`, …). A key
    /// that names a secret (password, token, secret, credential, private key, authorization)
    /// is treated as [`with_secret_option`](Self::with_secret_option).
    #[must_use]
    pub fn with_option(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        let (key, value) = (key.into(), value.into());
        if is_secret_key(&key) {
            self.secrets.add(&value);
        }
        self.database_options.push((key, value));
        self
    }

    /// Sets a database option whose value is a secret: it is scrubbed from every error and
    /// never shown by `Debug`.
    #[must_use]
    pub fn with_secret_option(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        let value = value.into();
        self.secrets.add(&value);
        self.database_options.push((key.into(), value));
        self
    }

    /// Sets an option on each connection (before it is initialised).
    #[must_use]
    pub fn with_connection_option(
        mut self,
        key: impl Into<String>,
        value: impl Into<String>,
    ) -> Self {
        let (key, value) = (key.into(), value.into());
        if is_secret_key(&key) {
            self.secrets.add(&value);
        }
        self.connection_options.push((key, value));
        self
    }

    /// Checks statements in `dialect` instead of the one the driver's vendor name implies.
    #[must_use]
    pub fn with_dialect(mut self, dialect: SqlDialect) -> Self {
        self.dialect = Some(dialect);
        self
    }

    /// Runs `statements` on every new connection instead of the vendor's read-only session
    /// statements (an empty list: none).
    #[must_use]
    pub fn with_session_sql(mut self, statements: Vec<String>) -> Self {
        self.session_sql = Some(statements);
        self
    }

    /// Switches every new connection to `role` after its session statements (PostgreSQL's
    /// `SET ROLE`), so statements and the privilege check run as it: the safe way to use a
    /// login that may do more than read.
    #[must_use]
    pub fn with_role(mut self, role: impl Into<String>) -> Self {
        self.role = Some(role.into());
        self
    }

    /// Opens even when the login may do more than read (a PostgreSQL superuser, write
    /// grants, …), which is otherwise refused (see the [module docs](super#read-only)). The
    /// guard and the read-only session still apply, but the role no longer backs them up.
    #[must_use]
    pub fn with_allow_privileged(mut self, yes: bool) -> Self {
        self.allow_privileged = Some(yes);
        self
    }

    /// Whether a login that may do more than read opens (false unless allowed).
    pub fn allows_privileged(&self) -> bool {
        self.allow_privileged.unwrap_or(false)
    }

    /// Whether [`with_allow_privileged`](Self::with_allow_privileged) (or the URL) said.
    pub(crate) fn said_allow_privileged(&self) -> bool {
        self.allow_privileged.is_some()
    }

    /// Opens at most `n` connections at once (at least 1).
    #[must_use]
    pub fn with_max_connections(mut self, n: usize) -> Self {
        self.max_connections = n.max(1);
        self
    }

    /// Searches `dirs` for the driver (before the ADBC manifest locations), instead of the
    /// folders of `NAO_ADBC_DRIVER_DIR`.
    #[must_use]
    pub fn with_search_dirs(mut self, dirs: Vec<PathBuf>) -> Self {
        self.search_dirs = dirs;
        self
    }

    /// Names the driver's init function.
    #[must_use]
    pub fn with_entrypoint(mut self, entrypoint: impl Into<String>) -> Self {
        self.entrypoint = Some(entrypoint.into());
        self
    }

    /// Says where the database is in error messages (no credentials: they are not scrubbed
    /// from this).
    #[must_use]
    pub fn with_endpoint(mut self, endpoint: impl Into<String>) -> Self {
        self.endpoint = endpoint.into();
        self
    }

    /// Remembers a secret that appears inside another option's value (a password inside a
    /// URI), so errors that repeat it are scrubbed.
    #[must_use]
    pub fn with_secret(mut self, secret: &str) -> Self {
        self.secrets.add(secret);
        self
    }

    /// The database options, in order.
    pub fn database_options(&self) -> &[(String, String)] {
        &self.database_options
    }

    /// The connection options, in order.
    pub fn connection_options(&self) -> &[(String, String)] {
        &self.connection_options
    }

    /// The value of database option `key` as `Debug` and errors would show it (secrets
    /// masked), if set.
    pub fn shown_option(&self, key: &str) -> Option<String> {
        self.database_options
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(k, v)| self.shown_value(k, v))
    }

    pub(super) fn secrets(&self) -> &Secrets {
        &self.secrets
    }

    fn shown_value(&self, key: &str, value: &str) -> String {
        if is_secret_key(key) {
            MASK.to_owned()
        } else {
            self.secrets.scrub(value)
        }
    }
}

/// The folders of `NAO_ADBC_DRIVER_DIR` (a path list, like `PATH`).
fn driver_dirs_from_env() -> Vec<PathBuf> {
    std::env::var_os("NAO_ADBC_DRIVER_DIR")
        .map(|dirs| std::env::split_paths(&dirs).collect())
        .unwrap_or_default()
}
