//! [`SparkConnectDialect`]: the [`Dialect`] over one Spark Connect session.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use nao_core::guard::{ReadOnlySql, SqlDialect};
use nao_core::{
    BatchStream, Dialect, DialectError, ExecOptions, TableFilter, TableInfo, TableRef, TableSchema,
};

use super::catalog::Catalog;
use super::config::SparkConnectConfig;
use super::connect::Connection;
use super::proto::{Relation, Sql, relation};
use super::stream;

/// A Spark Connect session as a read-only [`Dialect`].
///
/// Cheap to share behind an `Arc`: every statement is its own operation (a gRPC call) on one
/// multiplexed HTTP/2 connection, all in the one session. See the [module docs](super) for
/// what is read-only here and how statements stop.
pub struct SparkConnectDialect {
    name: Arc<str>,
    connection: Arc<Connection>,
    dialect: SqlDialect,
}

impl fmt::Debug for SparkConnectDialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SparkConnectDialect")
            .field("name", &self.name)
            .field("session_id", &self.connection.session_id())
            .field("dialect", &self.dialect)
            .finish_non_exhaustive()
    }
}

impl SparkConnectDialect {
    /// Connects to the server of `config` as database `name`, in the config's session (or a
    /// new one).
    ///
    /// # Errors
    /// [`DialectError::Connection`] when the server cannot be reached or the TLS settings,
    /// token or headers cannot be used.
    pub async fn connect(
        name: impl Into<String>,
        config: &SparkConnectConfig,
    ) -> Result<Self, DialectError> {
        let name: Arc<str> = name.into().into();
        let connection = Connection::open(&name, config).await?;
        Ok(SparkConnectDialect {
            name,
            connection: Arc::new(connection),
            dialect: config.dialect,
        })
    }

    /// Connects to the server an `sc://` URL names (see [`SparkConnectConfig::from_url`]).
    ///
    /// # Errors
    /// [`DialectError::Connection`] for a malformed URL (never repeating its secrets), and
    /// as [`connect`](Self::connect).
    pub async fn open_url(name: impl Into<String>, url: &str) -> Result<Self, DialectError> {
        let name = name.into();
        let config = SparkConnectConfig::from_url(url).map_err(|e| DialectError::Connection {
            database: name.clone(),
            message: e.to_string(),
            source: None,
        })?;
        SparkConnectDialect::connect(name, &config).await
    }

    /// The Spark Connect session the statements run in.
    pub fn session_id(&self) -> &str {
        self.connection.session_id()
    }
}

#[async_trait]
impl Dialect for SparkConnectDialect {
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
        let relation = Relation {
            rel_type: Some(relation::RelType::Sql(Sql {
                query: sql.sql().to_owned(),
            })),
        };
        stream::execute(
            Arc::clone(&self.connection),
            Arc::clone(&self.name),
            relation,
            options,
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

impl SparkConnectDialect {
    fn catalog(&self) -> Catalog<'_> {
        Catalog {
            connection: &self.connection,
            database: &self.name,
        }
    }
}
