//! [`MySqlDialect`]: the adapter, how it is opened, and its [`Dialect`] implementation.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use mysql_async::{Conn, Opts};
use nao_core::guard::{ReadOnlySql, SqlDialect};
use nao_core::{
    BatchStream, Dialect, DialectError, ExecOptions, TableFilter, TableInfo, TableRef, TableSchema,
};

use super::open::{self, Flavour};
use super::stream::{self, Shared};
use super::{catalog, errors};
use crate::OpenOptions;

/// A MySQL or MariaDB server behind a connection pool, read-only at every layer.
///
/// See the [module docs](super) for the read-only layers, types, streaming and TLS. `Debug`
/// shows the user, host, port and database, never the password.
pub struct MySqlDialect {
    shared: Arc<Shared>,
    /// `user@host:port/db`.
    target: String,
    version: String,
}

impl MySqlDialect {
    /// Connects with a `mysql://` or `mariadb://` URL (see the [module docs](super) for its
    /// parameters, TLS among them): one connection learns the server's flavour and checks the
    /// user's privileges, then the pool is built and its first connection set up. A user
    /// that can do more than read is refused; the URL may say `allow_privileged=true` and
    /// `set_role=<role>` (see [`connect_url_with`](Self::connect_url_with)).
    ///
    /// # Errors
    /// [`DialectError::Connection`] when the URL is invalid or the server cannot be reached
    /// (the message names user, host, port and database, never the password);
    /// [`DialectError::Permission`] when the server refuses the login, or when the user can
    /// do more than read (the message names each privilege and gives the SQL for a read-only
    /// user).
    pub async fn connect(name: impl Into<String>, url: &str) -> Result<Self, DialectError> {
        MySqlDialect::connect_url_with(name, url, &OpenOptions::default()).await
    }

    /// [`connect`](Self::connect)s with `options`: [`OpenOptions::set_role`] runs `SET ROLE`
    /// on every connection (before the privilege check), [`OpenOptions::allow_privileged`]
    /// opens a privileged user (with a warning in the log) instead of refusing it. The URL
    /// parameters `allow_privileged=true|false` and `set_role=<role>` win over `options`.
    ///
    /// # Errors
    /// As [`connect`](Self::connect).
    pub async fn connect_url_with(
        name: impl Into<String>,
        url: &str,
        options: &OpenOptions,
    ) -> Result<Self, DialectError> {
        let name: String = name.into();
        let (opts, options) = open::parse_url(&name, url, options)?;
        MySqlDialect::connect_with_options(name, opts, &options).await
    }

    /// Connects with options built in code (`mysql_async::OptsBuilder`). The session setup
    /// (`setup` statements) is the adapter's: any the options carry are replaced. A
    /// privileged user is refused, as by [`connect`](Self::connect).
    ///
    /// # Errors
    /// As [`connect`](Self::connect).
    pub async fn connect_with(name: impl Into<String>, opts: Opts) -> Result<Self, DialectError> {
        MySqlDialect::connect_with_options(name, opts, &OpenOptions::default()).await
    }

    /// [`connect_with`](Self::connect_with) and `options`, as in
    /// [`connect_url_with`](Self::connect_url_with).
    ///
    /// # Errors
    /// As [`connect`](Self::connect).
    pub async fn connect_with_options(
        name: impl Into<String>,
        opts: Opts,
        options: &OpenOptions,
    ) -> Result<Self, DialectError> {
        let name: String = name.into();
        let target = open::describe(&opts);
        let opened = open::connect(&name, opts, options).await?;
        Ok(MySqlDialect {
            shared: Arc::new(Shared {
                name: name.into(),
                pool: opened.pool,
                flavour: opened.flavour,
            }),
            target,
            version: opened.version,
        })
    }

    /// Whether the server is MySQL or MariaDB (from `SELECT VERSION()`).
    pub fn flavour(&self) -> Flavour {
        self.shared.flavour
    }

    /// The server's version string, as `SELECT VERSION()` gave it.
    pub fn server_version(&self) -> &str {
        &self.version
    }

    /// A pooled connection for a catalogue read.
    async fn conn(&self) -> Result<Conn, DialectError> {
        self.shared
            .pool
            .get_conn()
            .await
            .map_err(|e| errors::from_mysql(&self.shared.name, e, std::time::Duration::ZERO, None))
    }
}

impl fmt::Debug for MySqlDialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MySqlDialect")
            .field("name", &self.shared.name)
            .field("target", &self.target)
            .field("flavour", &self.shared.flavour)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl Dialect for MySqlDialect {
    fn refused_as_writing(&self, error: &DialectError) -> bool {
        super::errors::refused_as_writing(error)
    }

    fn name(&self) -> &str {
        &self.shared.name
    }

    fn sql_dialect(&self) -> SqlDialect {
        match self.shared.flavour {
            Flavour::MariaDb => SqlDialect::MariaDb,
            Flavour::MySql => SqlDialect::MySql,
        }
    }

    async fn execute(
        &self,
        sql: &ReadOnlySql,
        options: &ExecOptions,
    ) -> Result<BatchStream, DialectError> {
        stream::execute(Arc::clone(&self.shared), sql.sql().to_owned(), options).await
    }

    async fn list_tables(&self, filter: &TableFilter) -> Result<Vec<TableInfo>, DialectError> {
        let mut conn = self.conn().await?;
        catalog::list_tables(&self.shared.name, &mut conn, filter).await
    }

    async fn describe_table(&self, table: &TableRef) -> Result<TableSchema, DialectError> {
        let mut conn = self.conn().await?;
        catalog::describe_table(&self.shared.name, &mut conn, table).await
    }
}

/// Opens the adapter for a `mysql://` or `mariadb://` URL.
///
/// # Errors
/// As [`MySqlDialect::connect`].
pub async fn open_url(name: &str, url: &str) -> Result<Arc<dyn Dialect>, DialectError> {
    open_url_with(name, url, &OpenOptions::default()).await
}

/// Opens the adapter for a `mysql://` or `mariadb://` URL with `options` (used by
/// [`crate::open_with`]).
///
/// # Errors
/// As [`MySqlDialect::connect_url_with`].
pub async fn open_url_with(
    name: &str,
    url: &str,
    options: &OpenOptions,
) -> Result<Arc<dyn Dialect>, DialectError> {
    Ok(Arc::new(
        MySqlDialect::connect_url_with(name, url, options).await?,
    ))
}
