//! The driver's database and its connections: at most `max_connections` open at once, each
//! made read-only by its session statements when it opens, kept for the next statement.

use std::sync::{Arc, Mutex, PoisonError};

use adbc_core::error::Error;
use adbc_core::options::{OptionConnection, OptionValue};
use adbc_core::{Connection as _, Database as _, Statement as _};
use adbc_driver_manager::{ManagedConnection, ManagedDatabase};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The connections of one [`AdbcDialect`](super::AdbcDialect).
pub(super) struct Pool {
    database: ManagedDatabase,
    connection_options: Vec<(String, String)>,
    session_sql: Vec<String>,
    idle: Mutex<Vec<ManagedConnection>>,
    permits: Arc<Semaphore>,
}

/// The right to use one connection; the connection itself is taken on the blocking thread.
pub(super) struct Lease {
    pool: Arc<Pool>,
    _permit: OwnedSemaphorePermit,
}

impl Pool {
    /// A pool over `database` whose first connection, `first`, is already set up.
    pub(super) fn new(
        database: ManagedDatabase,
        connection_options: Vec<(String, String)>,
        session_sql: Vec<String>,
        first: ManagedConnection,
        max_connections: usize,
    ) -> Pool {
        Pool {
            database,
            connection_options,
            session_sql,
            idle: Mutex::new(vec![first]),
            permits: Arc::new(Semaphore::new(max_connections.max(1))),
        }
    }

    /// Waits for a free connection slot.
    pub(super) async fn lease(self: &Arc<Self>) -> Lease {
        let permit = Arc::clone(&self.permits)
            .acquire_owned()
            .await
            .unwrap_or_else(|_| unreachable!("the pool's semaphore is never closed"));
        Lease {
            pool: Arc::clone(self),
            _permit: permit,
        }
    }

    /// Opens a connection with the configured options (blocking), without session setup.
    pub(super) fn open_raw(
        database: &ManagedDatabase,
        options: &[(String, String)],
    ) -> Result<ManagedConnection, Error> {
        let options = options.iter().map(|(k, v)| {
            (
                OptionConnection::from(k.as_str()),
                OptionValue::String(v.clone()),
            )
        });
        database.new_connection_with_opts(options)
    }

    /// Runs the session statements on `connection` (blocking).
    pub(super) fn set_up(
        connection: &mut ManagedConnection,
        session_sql: &[String],
    ) -> Result<(), Error> {
        for sql in session_sql {
            let mut statement = connection.new_statement()?;
            statement.set_sql_query(sql)?;
            statement.execute_update()?;
        }
        Ok(())
    }
}

impl Lease {
    /// An idle connection, or a new one set up for reading only (blocking).
    pub(super) fn connection(&self) -> Result<ManagedConnection, Error> {
        let idle = self
            .pool
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        if let Some(connection) = idle {
            return Ok(connection);
        }
        let mut connection = Pool::open_raw(&self.pool.database, &self.pool.connection_options)?;
        Pool::set_up(&mut connection, &self.pool.session_sql)?;
        Ok(connection)
    }

    /// Keeps `connection` for the next statement.
    pub(super) fn give_back(&self, connection: ManagedConnection) {
        self.pool
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(connection);
    }
}
