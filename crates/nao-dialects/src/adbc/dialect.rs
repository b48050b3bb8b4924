//! [`AdbcDialect`]: the [`Dialect`] over one database reached through an ADBC driver.

use std::fmt;
use std::sync::Arc;

use adbc_core::Driver as _;
use adbc_core::options::{OptionDatabase, OptionValue};
use adbc_driver_manager::{ManagedConnection, ManagedDatabase, ManagedDriver};
use async_trait::async_trait;
use nao_core::guard::{ReadOnlySql, SqlDialect};
use nao_core::{
    BatchStream, DEFAULT_TIMEOUT, Dialect, DialectError, ExecOptions, TableFilter, TableInfo,
    TableRef, TableSchema,
};

use super::config::AdbcConfig;
use super::errors::ErrorContext;
use super::info::DriverInfo;
use super::pool::Pool;
use super::secrets::Secrets;
use super::statement::{self, Job};
use super::{catalog, driver, privileges};

/// A database behind an ADBC driver, as a read-only [`Dialect`].
///
/// Cheap to share behind an `Arc`: statements run on up to
/// [`max_connections`](AdbcConfig::max_connections) connections at once, each on a blocking
/// thread. See the [module docs](super) for URLs, drivers, read-only layers and stopping.
pub struct AdbcDialect {
    name: Arc<str>,
    pool: Arc<Pool>,
    dialect: SqlDialect,
    info: DriverInfo,
    endpoint: String,
    secrets: Secrets,
    driver: ManagedDriver,
}

impl fmt::Debug for AdbcDialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AdbcDialect")
            .field("name", &self.name)
            .field("endpoint", &self.endpoint)
            .field("vendor", &self.info.vendor_name)
            .field("driver", &self.info.driver_name)
            .field("dialect", &self.dialect)
            .finish_non_exhaustive()
    }
}

impl AdbcDialect {
    /// Loads the driver of `config`, opens its database with the configured options and one
    /// connection, asks the driver who it is (`get_info`) and makes the session read-only,
    /// as database `name`.
    ///
    /// # Errors
    /// [`DialectError::Connection`] when the driver is not found or does not load, an option
    /// is refused, or the database cannot be reached (naming the driver and the endpoint,
    /// never a secret).
    pub async fn connect(
        name: impl Into<String>,
        config: &AdbcConfig,
    ) -> Result<Self, DialectError> {
        let name: Arc<str> = name.into().into();
        let config = config.clone();
        let task_name = Arc::clone(&name);
        tokio::task::spawn_blocking(move || open(task_name, &config))
            .await
            .map_err(|e| DialectError::Connection {
                database: name.to_string(),
                message: format!("opening the ADBC driver failed: {e}"),
                source: None,
            })?
    }

    /// Opens the database an `adbc:` URL names (see [`AdbcConfig::from_url`]).
    ///
    /// # Errors
    /// [`DialectError::Connection`] for a malformed URL (never repeating its secrets), and as
    /// [`connect`](Self::connect).
    pub async fn open_url(name: impl Into<String>, url: &str) -> Result<Self, DialectError> {
        let name = name.into();
        let config = AdbcConfig::from_url(url).map_err(|e| DialectError::Connection {
            database: name.clone(),
            message: e.to_string(),
            source: None,
        })?;
        AdbcDialect::connect(name, &config).await
    }

    /// What the driver said about itself and its database when it opened.
    pub fn info(&self) -> &DriverInfo {
        &self.info
    }

    /// The loaded driver, for hosts that also use it directly (the driver manager's
    /// `ManagedDriver`; its library stays loaded while any clone lives).
    pub fn driver(&self) -> &ManagedDriver {
        &self.driver
    }
}

impl AdbcConfig {
    /// Loads the driver and sets up its database with the configured options, without
    /// opening a connection (blocking: call it from a blocking thread). For hosts that check
    /// a configuration, or read an option back (`get_option_string`), before connecting;
    /// drivers that reach their server only when a connection opens (Snowflake, BigQuery,
    /// Flight SQL, PostgreSQL) succeed here offline.
    ///
    /// # Errors
    /// [`DialectError::Connection`] when the driver is not found or does not load, or refuses
    /// an option (naming the driver and endpoint, never a secret); `database` names it.
    pub fn open_database(
        &self,
        database: &str,
    ) -> Result<(ManagedDriver, ManagedDatabase), DialectError> {
        let context = ErrorContext {
            database,
            secrets: self.secrets(),
        };
        let spec = &self.driver;
        let mut driver = driver::load(spec, self.entrypoint.as_deref(), &self.search_dirs)
            .map_err(|e| DialectError::Connection {
                database: database.to_owned(),
                message: format!(
                    "the ADBC driver {spec} did not load (searched {}): {}",
                    driver::searched(spec, &self.search_dirs),
                    self.secrets().scrub(&e.message)
                ),
                source: None,
            })?;
        let options = self.database_options().iter().map(|(k, v)| {
            (
                OptionDatabase::from(k.as_str()),
                OptionValue::String(v.clone()),
            )
        });
        let opened = driver
            .new_database_with_opts(options)
            .map_err(|e| context.connection(&self.step("setting up the database"), &e))?;
        Ok((driver, opened))
    }

    /// `step` of opening, with the driver and where it goes, for errors.
    fn step(&self, step: &str) -> String {
        format!("ADBC driver {} at {}: {step}", self.driver, self.endpoint)
    }
}

/// The blocking part of [`AdbcDialect::connect`].
fn open(name: Arc<str>, config: &AdbcConfig) -> Result<AdbcDialect, DialectError> {
    let secrets = config.secrets().clone();
    let context = ErrorContext {
        database: &name,
        secrets: &secrets,
    };
    let (driver, database) = config.open_database(&name)?;
    let what = |step: &str| config.step(step);
    let mut first = Pool::open_raw(&database, config.connection_options())
        .map_err(|e| context.connection(&what("connecting"), &e))?;
    // A driver that cannot say who it is (or its database) is one of no known vendor.
    let info = DriverInfo::fetch(&first).unwrap_or_default();
    let session_sql = session_sql(config, &info, &name)?;
    Pool::set_up(&mut first, &session_sql)
        .map_err(|e| context.connection(&what("making the session read-only"), &e))?;
    // Gate 3 on a connection of its own, set up as every statement's will be (only where the
    // vendor can say: a probe costs a login, a slow one on a warehouse).
    if privileges::applies_to(&info) {
        let mut probe = Pool::open_raw(&database, config.connection_options())
            .map_err(|e| context.connection(&what("connecting"), &e))?;
        Pool::set_up(&mut probe, &session_sql)
            .map_err(|e| context.connection(&what("making the session read-only"), &e))?;
        privileges::check(&mut probe, &context, config.allows_privileged())?;
    }
    let dialect = config.dialect.unwrap_or_else(|| info.sql_dialect());
    let pool = Pool::new(
        database,
        config.connection_options().to_vec(),
        session_sql,
        first,
        config.max_connections,
    );
    Ok(AdbcDialect {
        name,
        pool: Arc::new(pool),
        dialect,
        info,
        endpoint: config.endpoint.clone(),
        secrets,
        driver,
    })
}

/// The statements every new connection runs: the host's or the vendor's read-only session,
/// then `SET ROLE` when a role is configured (PostgreSQL only: other vendors take a role, if
/// any, in their own options, e.g. Snowflake's `role=`).
fn session_sql(
    config: &AdbcConfig,
    info: &DriverInfo,
    name: &str,
) -> Result<Vec<String>, DialectError> {
    let mut statements = config
        .session_sql
        .clone()
        .unwrap_or_else(|| info.read_only_session_sql());
    if let Some(role) = &config.role {
        if info.sql_dialect() != SqlDialect::Postgres {
            return Err(DialectError::Connection {
                database: name.to_owned(),
                message: format!(
                    "set_role is for PostgreSQL (SET ROLE); the driver's database is {}: give \
                     the role in its own options (Snowflake: role=) or connect as it",
                    info.vendor_name
                        .as_deref()
                        .unwrap_or("of an unknown vendor")
                ),
                source: None,
            });
        }
        statements.push(crate::pg_privileges::set_role_statement(role));
    }
    Ok(statements)
}

#[async_trait]
impl Dialect for AdbcDialect {
    fn name(&self) -> &str {
        &self.name
    }

    fn sql_dialect(&self) -> SqlDialect {
        self.dialect
    }

    fn refused_as_writing(&self, error: &DialectError) -> bool {
        super::errors::refused_as_writing(error)
    }

    async fn execute(
        &self,
        sql: &ReadOnlySql,
        options: &ExecOptions,
    ) -> Result<BatchStream, DialectError> {
        crate::attribute_calls::prove_columns(self, sql).await?;
        let job = Job {
            database: Arc::clone(&self.name),
            secrets: self.secrets.clone(),
            sql: sql.sql().to_owned(),
        };
        statement::execute(&self.pool, job, options).await
    }

    async fn list_tables(&self, filter: &TableFilter) -> Result<Vec<TableInfo>, DialectError> {
        let filter = filter.clone();
        let dialect = self.dialect;
        self.on_connection(move |c| catalog::list_tables(c, &filter, dialect))
            .await
    }

    async fn describe_table(&self, table: &TableRef) -> Result<TableSchema, DialectError> {
        let wanted = table.clone();
        let dialect = self.dialect;
        let found = self
            .on_connection(move |c| catalog::describe_table(c, &wanted, dialect))
            .await?;
        found.ok_or_else(|| DialectError::UnknownObject {
            database: self.name.to_string(),
            message: format!("no table {table} (see list_tables)"),
            code: None,
        })
    }
}

impl AdbcDialect {
    /// Runs a catalogue call on a connection of the pool, on a blocking thread, within the
    /// default statement timeout (a driver that never answers must not hang the tool that
    /// asked; its thread is left to finish, and its connection is not reused).
    async fn on_connection<T: Send + 'static>(
        &self,
        call: impl FnOnce(&mut ManagedConnection) -> Result<T, adbc_core::error::Error> + Send + 'static,
    ) -> Result<T, DialectError> {
        let lease = self.pool.lease().await;
        let database = Arc::clone(&self.name);
        let secrets = self.secrets.clone();
        let work = tokio::task::spawn_blocking(move || {
            let context = ErrorContext {
                database: &database,
                secrets: &secrets,
            };
            let mut connection = lease
                .connection()
                .map_err(|e| context.connection("opening a connection", &e))?;
            let outcome = call(&mut connection).map_err(|e| context.adbc(&e));
            if !matches!(outcome, Err(DialectError::Connection { .. })) {
                lease.give_back(connection);
            }
            outcome
        });
        match tokio::time::timeout(DEFAULT_TIMEOUT, work).await {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(join)) => Err(DialectError::Engine {
                database: self.name.to_string(),
                message: format!("the ADBC catalogue call failed: {join}"),
                code: None,
                source: None,
            }),
            Err(_) => Err(DialectError::Timeout {
                database: self.name.to_string(),
                limit: DEFAULT_TIMEOUT,
            }),
        }
    }
}
