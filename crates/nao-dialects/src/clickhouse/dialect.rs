//! [`ClickHouseDialect`]: the [`Dialect`] over one ClickHouse server's HTTP interface.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use nao_core::guard::{ReadOnlySql, SqlDialect};
use nao_core::{
    BatchStream, DEFAULT_TIMEOUT, Dialect, DialectError, ExecOptions, TableFilter, TableInfo,
    TableRef, TableSchema,
};

use super::catalog::{Catalog, literal};
use super::client::{HttpClient, UserProfile};
use super::config::ClickHouseConfig;
use super::escape;
use super::stream;

/// A ClickHouse server as a read-only [`Dialect`].
///
/// Cheap to share behind an `Arc`: every statement is one HTTP request on reqwest's pool of
/// keep-alive connections. See the [module docs](super) for the read-only layers and how
/// statements stop.
pub struct ClickHouseDialect {
    name: Arc<str>,
    client: Arc<HttpClient>,
    version: String,
    zone: Arc<str>,
    table_comments: bool,
    /// Whether the server writes ArrowStream (modern servers; 18.16 does not).
    arrow_stream: bool,
}

impl fmt::Debug for ClickHouseDialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClickHouseDialect")
            .field("name", &self.name)
            .field("client", &self.client)
            .field("version", &self.version)
            .field("time_zone", &self.zone)
            .finish_non_exhaustive()
    }
}

impl ClickHouseDialect {
    /// Connects to the server of `config` as database `name`: asks it its version, its time
    /// zone and whether the user is read-only already (else every statement is sent with
    /// `readonly=2`).
    ///
    /// # Errors
    /// [`DialectError::Connection`] when the server cannot be reached or refuses the
    /// credentials; the server's own errors otherwise.
    pub async fn connect(
        name: impl Into<String>,
        config: &ClickHouseConfig,
    ) -> Result<Self, DialectError> {
        let name: Arc<str> = name.into().into();
        let mut client = HttpClient::new(&name, config)?;
        // The probe goes without settings: a read-only user may not send `readonly`, and
        // one whose profile has `readonly=1` may send none.
        client.profile = UserProfile::Fixed;
        let probe = format!(
            "SELECT version(), timezone(), \
             (SELECT toString(value) FROM system.settings WHERE name = 'readonly'), \
             (SELECT count() FROM system.columns WHERE database = 'system' \
               AND table = 'tables' AND name = 'comment'), \
             (SELECT count() FROM system.databases WHERE name = {}), \
             (SELECT count() FROM system.formats WHERE name = 'ArrowStream') \
             FORMAT TabSeparated",
            literal(&config.database)
        );
        let body = tokio::time::timeout(
            config.connect_timeout + DEFAULT_TIMEOUT,
            client.fetch(&probe, 4096),
        )
        .await
        .map_err(|_| DialectError::Connection {
            database: name.to_string(),
            message: "the server did not answer in time".to_owned(),
            source: None,
        })?
        .map_err(|e| e.into_dialect(&name, DEFAULT_TIMEOUT))?;
        let line = body.split(|b| *b == b'\n').next().unwrap_or_default();
        let fields: Vec<String> = line
            .split(|b| *b == b'\t')
            .map(|f| String::from_utf8_lossy(&escape::unescape(f)).into_owned())
            .collect();
        let [
            version,
            zone,
            readonly,
            table_comments,
            database_exists,
            arrow_stream,
        ] = <[String; 6]>::try_from(fields).map_err(|_| DialectError::Connection {
            database: name.to_string(),
            message: "the server's answer to the first query was not ClickHouse's".to_owned(),
            source: None,
        })?;
        if database_exists != "1" {
            return Err(DialectError::UnknownObject {
                database: name.to_string(),
                message: format!("the server has no database {:?}", config.database),
                code: None,
            });
        }
        client.profile = UserProfile::from_readonly(&readonly);
        tracing::debug!(%version, %zone, %readonly, "connected to ClickHouse");
        Ok(ClickHouseDialect {
            name,
            client: Arc::new(client),
            version,
            zone: zone.into(),
            table_comments: table_comments != "0",
            arrow_stream: arrow_stream != "0",
        })
    }

    /// Connects to the server a `clickhouse://` or `clickhouses://` URL names (see
    /// [`ClickHouseConfig::from_url`]).
    ///
    /// # Errors
    /// [`DialectError::Connection`] for a malformed URL (never repeating the password), and
    /// as [`connect`](Self::connect).
    pub async fn open_url(name: impl Into<String>, url: &str) -> Result<Self, DialectError> {
        let name = name.into();
        let config = ClickHouseConfig::from_url(url).map_err(|e| DialectError::Connection {
            database: name.clone(),
            message: e.to_string(),
            source: None,
        })?;
        ClickHouseDialect::connect(name, &config).await
    }

    /// The server's version (`SELECT version()`).
    pub fn server_version(&self) -> &str {
        &self.version
    }

    /// The server's time zone: the zone of `DateTime` columns that name none.
    pub fn time_zone(&self) -> &str {
        &self.zone
    }

    /// Whether statements are sent with `readonly=2` (false when the user's profile is
    /// read-only already, which the server enforces then).
    pub fn sends_readonly(&self) -> bool {
        self.client.profile == UserProfile::Writable
    }

    /// Whether statements carry the caps and the time limit as server settings
    /// (`max_result_rows`, `max_execution_time`, …): false for a user whose profile has
    /// `readonly=1`, which may set nothing; the adapter's own caps and timeout apply then.
    pub fn sends_limits(&self) -> bool {
        self.client.profile != UserProfile::Fixed
    }

    /// Whether results come as ArrowStream: the server writes it and the user may send the
    /// settings that make it plain (strings as Utf8, no dictionaries, no compression);
    /// otherwise as TabSeparatedWithNamesAndTypes.
    pub fn reads_arrow(&self) -> bool {
        self.arrow_stream && self.client.profile != UserProfile::Fixed
    }

    fn catalog(&self) -> Catalog<'_> {
        Catalog {
            client: &self.client,
            database: &self.name,
            table_comments: self.table_comments,
        }
    }
}

#[async_trait]
impl Dialect for ClickHouseDialect {
    fn refused_as_writing(&self, error: &DialectError) -> bool {
        super::errors::refused_as_writing(error)
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn sql_dialect(&self) -> SqlDialect {
        SqlDialect::ClickHouse
    }

    async fn execute(
        &self,
        sql: &ReadOnlySql,
        options: &ExecOptions,
    ) -> Result<BatchStream, DialectError> {
        stream::execute(
            Arc::clone(&self.client),
            Arc::clone(&self.name),
            Arc::clone(&self.zone),
            sql.sql().to_owned(),
            options,
            self.reads_arrow(),
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
