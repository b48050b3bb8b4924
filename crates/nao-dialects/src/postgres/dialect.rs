//! [`PostgresDialect`]: the adapter, its constructors and its [`Dialect`] implementation.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use async_trait::async_trait;
use nao_core::guard::{ReadOnlySql, SqlDialect};
use nao_core::{
    BatchStream, DEFAULT_TIMEOUT, Dialect, DialectError, ExecOptions, TableFilter, TableInfo,
    TableRef, TableSchema,
};
use tokio_postgres::config::Host;
use tokio_postgres::{Client, Config, Transaction};

use super::attribute_check::AttributeCheck;
use super::pool::Pool;
use super::tls::{TlsSettings, take_open_parameters};
use super::{catalog, errors, privileges, stream};
use crate::OpenOptions;

/// A PostgreSQL database (or a wire-compatible engine), read through a pool of connections
/// as one role. See the [module docs](super) for the read-only layers, types, streaming and
/// cancellation.
///
/// `Debug` shows the name, hosts, ports, database, user and TLS mode, never the password.
pub struct PostgresDialect {
    name: Arc<str>,
    pool: Arc<Pool>,
}

impl PostgresDialect {
    /// Connects to the server `config` describes (one connection, to fail early when the
    /// server is unreachable or refuses the role, and to check the role's privileges) and
    /// keeps it in the pool. TLS follows `config`'s `sslmode` (`disable`, `prefer` or
    /// `require`); use [`connect_with_tls`](Self::connect_with_tls) to verify the server's
    /// certificate. A privileged role is refused (see [`connect_with_options`](Self::connect_with_options)).
    ///
    /// # Errors
    /// [`DialectError::Connection`] when the server cannot be reached, the TLS handshake fails,
    /// or the server refuses the login; [`DialectError::Permission`] when the role can do more
    /// than read. No message contains the password.
    pub async fn connect(name: impl Into<String>, config: Config) -> Result<Self, DialectError> {
        let tls = TlsSettings::from_driver(&config);
        PostgresDialect::connect_with_tls(name, config, &tls).await
    }

    /// [`connect`](Self::connect)s with `tls` deciding how the connection is encrypted and
    /// whether the server's certificate is checked (`config`'s own `sslmode` is replaced).
    ///
    /// # Errors
    /// As [`connect`](Self::connect), and [`DialectError::Connection`] when a certificate file
    /// is missing or unreadable or the settings contradict each other (the message says which).
    pub async fn connect_with_tls(
        name: impl Into<String>,
        config: Config,
        tls: &TlsSettings,
    ) -> Result<Self, DialectError> {
        PostgresDialect::connect_with_options(name, config, tls, &OpenOptions::default()).await
    }

    /// [`connect_with_tls`](Self::connect_with_tls)s with `options`: with
    /// [`OpenOptions::set_role`] every connection runs `SET ROLE` first, and the privilege
    /// check sees that role; with [`OpenOptions::allow_privileged`] a role that can do more
    /// than read opens (with a warning in the log) instead of being refused. See the
    /// [module docs](super#read-only-in-layers) for what is checked.
    ///
    /// # Errors
    /// As [`connect_with_tls`](Self::connect_with_tls); [`DialectError::Permission`] names
    /// each privilege found and gives the SQL for a read-only role.
    pub async fn connect_with_options(
        name: impl Into<String>,
        config: Config,
        tls: &TlsSettings,
        options: &OpenOptions,
    ) -> Result<Self, DialectError> {
        let name: String = name.into();
        let set_role = options.role().map(privileges::set_role_statement);
        let pool = Pool::new(&name, config, tls)?.with_extra_setup(set_role);
        let mut first = pool.connect().await?;
        privileges::check(&name, &mut first, options.allows_privileged()).await?;
        pool.put(first);
        Ok(PostgresDialect {
            name: name.into(),
            pool: Arc::new(pool),
        })
    }

    /// Parses a `postgres://` or `postgresql://` URL (or a `key=value` connection string),
    /// with libpq's TLS parameters (`sslmode` up to `verify-full`, `sslrootcert`, `sslcert`,
    /// `sslkey`), and [`connect_with_tls`](Self::connect_with_tls)s. The URL may say
    /// `allow_privileged=true` and `set_role=<role>` (see
    /// [`open_url_with`](Self::open_url_with)).
    ///
    /// # Errors
    /// [`DialectError::Connection`] when the URL is malformed (the message names the problem,
    /// not the URL, which may hold a password), and as
    /// [`connect_with_tls`](Self::connect_with_tls).
    pub async fn open_url(name: impl Into<String>, url: &str) -> Result<Self, DialectError> {
        PostgresDialect::open_url_with(name, url, &OpenOptions::default()).await
    }

    /// [`open_url`](Self::open_url) with `options`, as
    /// [`connect_with_options`](Self::connect_with_options). The URL parameters
    /// `allow_privileged=true|false` and `set_role=<role>` (taken out before the driver
    /// reads the URL) win over `options`.
    ///
    /// # Errors
    /// As [`open_url`](Self::open_url) and [`connect_with_options`](Self::connect_with_options).
    pub async fn open_url_with(
        name: impl Into<String>,
        url: &str,
        options: &OpenOptions,
    ) -> Result<Self, DialectError> {
        let name: String = name.into();
        let invalid = |message: String| DialectError::Connection {
            database: name.clone(),
            message: format!("invalid PostgreSQL URL: {message}"),
            source: None,
        };
        let own = take_open_parameters(url).map_err(invalid)?;
        let mut options = options.clone();
        if let Some(allow) = own.allow_privileged {
            options = options.allow_privileged(allow);
        }
        if let Some(role) = own.set_role {
            options = options.set_role(role);
        }
        let (tls, rest) = TlsSettings::from_connection_string(&own.rest).map_err(invalid)?;
        let config = Config::from_str(&rest).map_err(|e| invalid(e.to_string()))?;
        PostgresDialect::connect_with_options(name, config, &tls, &options).await
    }

    /// Caps the server connections this adapter opens at once (at least 1; default 8, see
    /// the [module docs](super#streaming-caps-cancellation)). Statements past the cap wait in
    /// line for a connection until their own deadline, then fail with a
    /// [`Connection`](DialectError::Connection) error that says they waited.
    #[must_use]
    pub fn with_max_connections(self, max: usize) -> Self {
        self.pool.set_max_connections(max);
        self
    }

    /// Opens a READ ONLY transaction for a catalogue read, with the default time limit.
    async fn begin_catalog<'c>(
        &self,
        client: &'c mut Client,
    ) -> Result<Transaction<'c>, DialectError> {
        let txn = client
            .build_transaction()
            .read_only(true)
            .start()
            .await
            .map_err(|e| self.catalog_error(e))?;
        let limit = DEFAULT_TIMEOUT.as_millis();
        txn.batch_execute(&format!("SET LOCAL statement_timeout = {limit}"))
            .await
            .map_err(|e| self.catalog_error(e))?;
        Ok(txn)
    }

    fn catalog_error(&self, error: tokio_postgres::Error) -> DialectError {
        errors::from_postgres(&self.name, error, None, DEFAULT_TIMEOUT)
    }
}

impl fmt::Debug for PostgresDialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let config = self.pool.config();
        let hosts: Vec<String> = config
            .get_hosts()
            .iter()
            .map(|h| match h {
                Host::Tcp(name) => name.clone(),
                #[cfg(unix)]
                Host::Unix(path) => path.display().to_string(),
            })
            .collect();
        f.debug_struct("PostgresDialect")
            .field("name", &self.name)
            .field("hosts", &hosts)
            .field("ports", &config.get_ports())
            .field("dbname", &config.get_dbname())
            .field("user", &config.get_user())
            .field("tls", &self.pool.tls_mode())
            .field("idle_connections", &self.pool.idle_count())
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl Dialect for PostgresDialect {
    fn refused_as_writing(&self, error: &DialectError) -> bool {
        super::errors::refused_as_writing(error)
    }

    fn name(&self) -> &str {
        &self.name
    }

    /// The pool's connections: a statement beyond them would wait for one on its own time.
    fn max_concurrent_statements(&self) -> Option<usize> {
        Some(self.pool.max_connections())
    }

    fn sql_dialect(&self) -> SqlDialect {
        SqlDialect::Postgres
    }

    async fn execute(
        &self,
        sql: &ReadOnlySql,
        options: &ExecOptions,
    ) -> Result<BatchStream, DialectError> {
        stream::execute(
            Arc::clone(&self.pool),
            Arc::clone(&self.name),
            sql.sql().to_owned(),
            AttributeCheck::of(sql),
            options,
        )
        .await
    }

    async fn list_tables(&self, filter: &TableFilter) -> Result<Vec<TableInfo>, DialectError> {
        let mut client = self.pool.get().await?;
        let tables = {
            let txn = self.begin_catalog(&mut client).await?;
            let tables = catalog::list_tables(&txn, filter)
                .await
                .map_err(|e| self.catalog_error(e))?;
            txn.rollback().await.map_err(|e| self.catalog_error(e))?;
            tables
        };
        self.pool.put(client);
        Ok(tables)
    }

    async fn describe_table(&self, table: &TableRef) -> Result<TableSchema, DialectError> {
        let mut client = self.pool.get().await?;
        let described = {
            let txn = self.begin_catalog(&mut client).await?;
            let described = catalog::describe_table(&self.name, &txn, table)
                .await
                .map_err(|e| self.catalog_error(e))?;
            txn.rollback().await.map_err(|e| self.catalog_error(e))?;
            described
        };
        self.pool.put(client);
        described
    }
}

/// Opens the adapter for a `postgres://` or `postgresql://` URL.
///
/// # Errors
/// As [`PostgresDialect::open_url`].
pub async fn open_url(name: &str, url: &str) -> Result<Arc<dyn Dialect>, DialectError> {
    open_url_with(name, url, &OpenOptions::default()).await
}

/// Opens the adapter for a `postgres://` or `postgresql://` URL with `options` (used by
/// [`crate::open_with`]).
///
/// # Errors
/// As [`PostgresDialect::open_url_with`].
pub async fn open_url_with(
    name: &str,
    url: &str,
    options: &OpenOptions,
) -> Result<Arc<dyn Dialect>, DialectError> {
    Ok(Arc::new(
        PostgresDialect::open_url_with(name, url, options).await?,
    ))
}
