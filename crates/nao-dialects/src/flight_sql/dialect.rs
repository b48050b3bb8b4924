//! [`FlightSqlDialect`]: the [`Dialect`] over one Flight SQL server.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use nao_core::guard::{ReadOnlySql, SqlDialect};
use nao_core::{
    BatchStream, Dialect, DialectError, ExecOptions, TableFilter, TableInfo, TableRef, TableSchema,
};

use super::catalog::Catalog;
use super::config::FlightSqlConfig;
use super::connect::Connection;
use super::server_info::ServerInfo;
use super::stream;

/// A Flight SQL server as a read-only [`Dialect`].
///
/// Cheap to share behind an `Arc`: every statement is its own gRPC call on one multiplexed
/// HTTP/2 connection (results spread over several locations open one connection per
/// location, kept for later statements). See the [module docs](super) for what is read-only
/// here and how statements stop.
pub struct FlightSqlDialect {
    name: Arc<str>,
    connection: Arc<Connection>,
    dialect: SqlDialect,
    server: ServerInfo,
    parallel_endpoints: usize,
}

impl fmt::Debug for FlightSqlDialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FlightSqlDialect")
            .field("name", &self.name)
            .field("server", &self.server.name)
            .field("version", &self.server.version)
            .field("dialect", &self.dialect)
            .finish_non_exhaustive()
    }
}

impl FlightSqlDialect {
    /// Connects to the server of `config` as database `name`: opens the channel,
    /// authenticates, and asks the server its name (to pick the SQL dialect when the config
    /// names none).
    ///
    /// # Errors
    /// [`DialectError::Connection`] when the server cannot be reached, the TLS settings or
    /// CA file are wrong, or the credentials are refused; the server's own errors otherwise.
    pub async fn connect(
        name: impl Into<String>,
        config: &FlightSqlConfig,
    ) -> Result<Self, DialectError> {
        let name: Arc<str> = name.into().into();
        let connection = Connection::open(&name, config).await?;
        let server = ServerInfo::fetch(&connection, &name).await?;
        let dialect = config.dialect.unwrap_or_else(|| server.sql_dialect());
        Ok(FlightSqlDialect {
            name,
            connection: Arc::new(connection),
            dialect,
            server,
            parallel_endpoints: config.parallel_endpoints.max(1),
        })
    }

    /// Connects to the server a `flightsql://` or `flightsql+tls://` URL names (see
    /// [`FlightSqlConfig::from_url`]).
    ///
    /// # Errors
    /// [`DialectError::Connection`] for a malformed URL (never repeating its secrets), and
    /// as [`connect`](Self::connect).
    pub async fn open_url(name: impl Into<String>, url: &str) -> Result<Self, DialectError> {
        let name = name.into();
        let config = FlightSqlConfig::from_url(url).map_err(|e| DialectError::Connection {
            database: name.clone(),
            message: e.to_string(),
            source: None,
        })?;
        FlightSqlDialect::connect(name, &config).await
    }

    /// The server's name as it reports it (`GetSqlInfo`), if it does.
    pub fn server_name(&self) -> Option<&str> {
        self.server.name.as_deref()
    }

    /// The server's version as it reports it, if it does.
    pub fn server_version(&self) -> Option<&str> {
        self.server.version.as_deref()
    }

    /// Whether statements go to the server as prepared statements: true until the server
    /// answers that it does not implement them (at the first statement), false from then on.
    pub fn prepares_statements(&self) -> bool {
        self.connection.prepares()
    }
}

#[async_trait]
impl Dialect for FlightSqlDialect {
    fn name(&self) -> &str {
        &self.name
    }

    fn sql_dialect(&self) -> SqlDialect {
        self.dialect
    }

    async fn execute(
        &self,
        sql: &ReadOnlySql,
        options: &ExecOptions,
    ) -> Result<BatchStream, DialectError> {
        crate::attribute_calls::prove_columns(self, sql).await?;
        stream::execute(
            Arc::clone(&self.connection),
            Arc::clone(&self.name),
            sql.sql().to_owned(),
            options,
            self.parallel_endpoints,
        )
        .await
    }

    async fn list_tables(&self, filter: &TableFilter) -> Result<Vec<TableInfo>, DialectError> {
        crate::catalog_bound::bounded(&self.name, self.catalog().list_tables(filter)).await
    }

    async fn describe_table(&self, table: &TableRef) -> Result<TableSchema, DialectError> {
        crate::catalog_bound::bounded(&self.name, self.catalog().describe_table(table)).await
    }
}

impl FlightSqlDialect {
    fn catalog(&self) -> Catalog<'_> {
        Catalog {
            connection: &self.connection,
            database: &self.name,
            dialect: self.dialect,
        }
    }
}
