//! A small pool of connections: idle clients are kept (up to [`MAX_IDLE`]), new ones are
//! opened on demand, broken ones and ones in an unknown state are dropped.

use std::sync::Mutex;
use std::time::Duration;

use nao_core::DialectError;
use tokio_postgres::{Client, Config};

use super::errors;
use super::tls::{Connector, TlsMode, TlsSettings};

/// Idle connections kept for reuse.
pub(super) const MAX_IDLE: usize = 4;
/// The connect timeout when the URL sets none, so an unreachable host fails in bounded time.
const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Settings every connection gets when it opens. `standard_conforming_strings` makes the
/// server read string literals the way the SQL guard's tokenizer does (backslashes are not
/// escapes); `default_transaction_read_only` is one more layer under the explicit READ ONLY
/// transaction; timestamps and text casts are rendered in UTC.
const SESSION_SETUP: &str = "SET standard_conforming_strings = on; \
     SET default_transaction_read_only = on; \
     SET TimeZone = 'UTC'";

/// Connections to one server, as one role.
pub(super) struct Pool {
    database: String,
    config: Config,
    tls: Connector,
    idle: Mutex<Vec<Client>>,
    /// Run after [`SESSION_SETUP`] on each new connection (`SET ROLE …`), if any.
    extra_setup: Option<String>,
}

impl Pool {
    /// A pool for `config`, connecting with `tls` (which decides the TLS mode; `config`'s
    /// own `sslmode` is replaced). Reads the certificate files now, so a missing or bad one
    /// fails here.
    pub(super) fn new(
        database: &str,
        mut config: Config,
        tls: &TlsSettings,
    ) -> Result<Self, DialectError> {
        let tls = tls
            .connector(&mut config)
            .map_err(|message| DialectError::Connection {
                database: database.to_owned(),
                message,
                source: None,
            })?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(DEFAULT_CONNECT_TIMEOUT);
        }
        if config.get_application_name().is_none() {
            config.application_name("nao");
        }
        Ok(Pool {
            database: database.to_owned(),
            config,
            tls,
            idle: Mutex::new(Vec::new()),
            extra_setup: None,
        })
    }

    /// Runs `statement` on every new connection, after the session setup.
    pub(super) fn with_extra_setup(mut self, statement: Option<String>) -> Self {
        self.extra_setup = statement;
        self
    }

    /// The connection settings (the password stays inside; callers print only what they pick).
    pub(super) fn config(&self) -> &Config {
        &self.config
    }

    /// The TLS mode connections are made in.
    pub(super) fn tls_mode(&self) -> TlsMode {
        self.tls.mode()
    }

    /// The TLS connector, for connections besides the pooled ones (cancel requests).
    pub(super) fn tls(&self) -> Connector {
        self.tls.clone()
    }

    /// How many connections are idle now.
    pub(super) fn idle_count(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Client>> {
        self.idle
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// An idle connection that is still open, or a new one.
    pub(super) async fn get(&self) -> Result<Client, DialectError> {
        loop {
            let Some(client) = self.lock().pop() else {
                break;
            };
            if !client.is_closed() {
                return Ok(client);
            }
        }
        self.connect().await
    }

    /// Returns a connection in a known, clean state (no transaction open, nothing running).
    pub(super) fn put(&self, client: Client) {
        if client.is_closed() {
            return;
        }
        let mut idle = self.lock();
        if idle.len() < MAX_IDLE {
            idle.push(client);
        }
    }

    /// Opens a connection and applies [`SESSION_SETUP`].
    pub(super) async fn connect(&self) -> Result<Client, DialectError> {
        let fail = |e| errors::from_postgres(&self.database, e, None, Duration::ZERO);
        let (client, connection) = self.config.connect(self.tls.clone()).await.map_err(fail)?;
        let database = self.database.clone();
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(database, error = %e, "a PostgreSQL connection ended with an error");
            }
        });
        client.batch_execute(SESSION_SETUP).await.map_err(fail)?;
        if let Some(statement) = &self.extra_setup {
            client.batch_execute(statement).await.map_err(fail)?;
        }
        Ok(client)
    }
}
