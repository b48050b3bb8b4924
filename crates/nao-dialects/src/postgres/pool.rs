//! A bounded pool of connections: at most `max_connections` server connections at once
//! (running, idle or closing), idle ones kept for reuse (up to [`MAX_IDLE`]), broken ones,
//! ones in an unknown state and ones whose read buffer grew large dropped. Callers beyond the
//! cap wait in line until their deadline.

use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use nao_core::{DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT, DialectError};
use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_postgres::config::{SslMode, TargetSessionAttrs};
use tokio_postgres::{CancelToken, Client, Config, NoTls};
use tokio_util::sync::{CancellationToken, DropGuard};

use super::errors;
use super::socket::{self, Target};
use super::tls::{Connector, TlsMode, TlsSettings};
use super::wire::{Guarded, WireLimit};

/// Server connections open at once when the host sets no other cap. A statement holds its
/// connection from BEGIN to ROLLBACK, so this is also how many statements run at once. Eight
/// keeps a few concurrent tool calls of an agent host busy without queueing, is more than the
/// cores a small database server has to run them, and leaves most of PostgreSQL's default
/// `max_connections` (100) to the other clients of the server and to other hosts.
pub(super) const DEFAULT_MAX_CONNECTIONS: usize = 8;
/// Idle connections kept for reuse.
pub(super) const MAX_IDLE: usize = 4;
/// A connection that received a message larger than this is closed rather than pooled:
/// tokio-postgres' read buffer grew to that message's size and would keep it while idle.
const KEEP_BUFFER: usize = 1 << 20;
/// How long a connection that is given up may take to close before its socket is dropped.
const CLOSE_GRACE: Duration = Duration::from_secs(5);
/// The connect timeout when the URL sets none, so an unreachable host fails in bounded time.
const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Settings every connection gets when it opens. `standard_conforming_strings` makes the
/// server read string literals the way the SQL guard's tokenizer does (backslashes are not
/// escapes); `default_transaction_read_only` is one more layer under the explicit READ ONLY
/// transaction; timestamps and text casts are rendered in UTC.
const SESSION_SETUP: &str = "SET standard_conforming_strings = on; \
     SET default_transaction_read_only = on; \
     SET TimeZone = 'UTC'";

/// A connection taken from the pool: the client, the wire guard's limit, and the server it
/// reached. Dropping it (instead of [`Pool::put`]) closes the connection.
pub(super) struct Pooled {
    client: Client,
    wire: Arc<WireLimit>,
    target: Target,
    /// Tells the connection's task that the client is gone (see [`Pool::open`]).
    _closing: DropGuard,
}

impl Deref for Pooled {
    type Target = Client;

    fn deref(&self) -> &Client {
        &self.client
    }
}

impl DerefMut for Pooled {
    fn deref_mut(&mut self) -> &mut Client {
        &mut self.client
    }
}

impl Pooled {
    /// The wire guard's limit for the statement about to run.
    pub(super) fn wire(&self) -> &Arc<WireLimit> {
        &self.wire
    }
}

/// Counts the server connections open, against the cap, and wakes waiters when that count
/// drops or a connection comes back idle.
struct Slots {
    state: Mutex<SlotState>,
    changed: Notify,
}

struct SlotState {
    open: usize,
    max: usize,
}

impl Slots {
    fn lock(&self) -> MutexGuard<'_, SlotState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Takes a slot if one is free.
    fn try_take(self: &Arc<Self>) -> Option<Slot> {
        let mut state = self.lock();
        (state.open < state.max).then(|| {
            state.open += 1;
            Slot(Arc::clone(self))
        })
    }

    fn over_cap(&self) -> bool {
        let state = self.lock();
        state.open > state.max
    }
}

/// One server connection's place under the cap, given back on drop.
struct Slot(Arc<Slots>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.lock().open -= 1;
        self.0.changed.notify_waiters();
    }
}

/// What a caller waits in line for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wanted {
    /// An idle connection, or a new one.
    Any,
    /// A new connection: an idle one is closed to make room for it.
    New,
}

/// Connections to one server, as one role.
pub(super) struct Pool {
    database: String,
    config: Arc<Config>,
    tls: Connector,
    idle: Mutex<Vec<Pooled>>,
    slots: Arc<Slots>,
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
        let refuse = |message: String| DialectError::Connection {
            database: database.to_owned(),
            message,
            source: None,
        };
        let tls = tls.connector(&mut config).map_err(refuse)?;
        if config.get_target_session_attrs() != TargetSessionAttrs::Any {
            return Err(refuse(
                "target_session_attrs is not supported: the adapter only reads, so any server \
                 that answers will do (leave it at any)"
                    .into(),
            ));
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(DEFAULT_CONNECT_TIMEOUT);
        }
        if config.get_application_name().is_none() {
            config.application_name("nao");
        }
        Ok(Pool {
            database: database.to_owned(),
            config: Arc::new(config),
            tls,
            idle: Mutex::new(Vec::new()),
            slots: Arc::new(Slots {
                state: Mutex::new(SlotState {
                    open: 0,
                    max: DEFAULT_MAX_CONNECTIONS,
                }),
                changed: Notify::new(),
            }),
            extra_setup: None,
        })
    }

    /// Runs `statement` on every new connection, after the session setup.
    pub(super) fn with_extra_setup(mut self, statement: Option<String>) -> Self {
        self.extra_setup = statement;
        self
    }

    /// Caps the server connections open at once (at least 1). Connections over a lowered cap
    /// close as they come back.
    pub(super) fn set_max_connections(&self, max: usize) {
        let excess = {
            let mut state = self.slots.lock();
            state.max = max.max(1);
            state.open.saturating_sub(state.max)
        };
        self.slots.changed.notify_waiters();
        let mut idle = self.lock();
        let keep = idle.len().saturating_sub(excess);
        idle.truncate(keep);
    }

    /// The cap on server connections.
    pub(super) fn max_connections(&self) -> usize {
        self.slots.lock().max
    }

    /// The connection settings (the password stays inside; callers print only what they pick).
    pub(super) fn config(&self) -> &Config {
        &self.config
    }

    /// The TLS mode connections are made in.
    pub(super) fn tls_mode(&self) -> TlsMode {
        self.tls.mode()
    }

    /// How many connections are idle now.
    pub(super) fn idle_count(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Pooled>> {
        self.idle
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// An idle connection that is still open, or a new one, waiting in line (at most
    /// [`DEFAULT_TIMEOUT`]) while the pool is at its cap. For catalogue reads.
    pub(super) async fn get(&self) -> Result<Pooled, DialectError> {
        self.get_before(Instant::now() + DEFAULT_TIMEOUT).await
    }

    /// An idle connection that is still open, or a new one, waiting in line while the pool
    /// is at its cap. Past `deadline`, an error that says the wait was for a connection.
    pub(super) async fn get_before(&self, deadline: Instant) -> Result<Pooled, DialectError> {
        self.wait_in_line(deadline, Wanted::Any).await
    }

    /// A new connection (not an idle one), waiting in line (at most [`DEFAULT_TIMEOUT`]) for a
    /// free place under the cap.
    pub(super) async fn connect(&self) -> Result<Pooled, DialectError> {
        self.connect_before(Instant::now() + DEFAULT_TIMEOUT).await
    }

    /// A new connection (not an idle one), waiting in line until `deadline` for a free place
    /// under the cap.
    pub(super) async fn connect_before(&self, deadline: Instant) -> Result<Pooled, DialectError> {
        self.wait_in_line(deadline, Wanted::New).await
    }

    /// The connection `wanted`, waiting in line while the pool is at its cap. Past `deadline`,
    /// an error that says the wait was for a connection.
    async fn wait_in_line(
        &self,
        deadline: Instant,
        wanted: Wanted,
    ) -> Result<Pooled, DialectError> {
        let started = Instant::now();
        loop {
            // Registered before looking, so a connection put back meanwhile wakes this caller.
            let changed = self.slots.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if wanted == Wanted::Any
                && let Some(pooled) = self.take_idle()
            {
                return Ok(pooled);
            }
            if let Some(slot) = self.slots.try_take() {
                return self.open_before(slot, deadline).await;
            }
            // An idle connection holds a place that a new one needs more.
            if wanted == Wanted::New
                && let Some(idle) = self.lock().pop()
            {
                drop(idle);
            }
            tokio::select! {
                () = changed => {}
                () = tokio::time::sleep_until(deadline) => {
                    return Err(self.waited(started.elapsed()));
                }
            }
        }
    }

    /// The error of a caller that waited `waited` for a connection and got none.
    fn waited(&self, waited: Duration) -> DialectError {
        DialectError::Connection {
            database: self.database.clone(),
            message: format!(
                "no free connection within the time limit: waited {waited:.1?} while all {} \
                 connections of the pool were busy with other statements (the statement never \
                 ran). Try again shortly; the host can raise max_connections",
                self.max_connections()
            ),
            source: None,
        }
    }

    fn take_idle(&self) -> Option<Pooled> {
        let mut idle = self.lock();
        while let Some(pooled) = idle.pop() {
            if !pooled.client.is_closed() {
                pooled.wire.set(DEFAULT_MAX_BYTES);
                return Some(pooled);
            }
        }
        None
    }

    /// Returns a connection in a known, clean state (no transaction open, nothing running).
    pub(super) fn put(&self, pooled: Pooled) {
        if pooled.client.is_closed() || pooled.wire.largest() > KEEP_BUFFER || self.slots.over_cap()
        {
            return;
        }
        let mut idle = self.lock();
        if idle.len() < MAX_IDLE.min(self.max_connections()) {
            idle.push(pooled);
            drop(idle);
            self.slots.changed.notify_waiters();
        }
    }

    async fn open_before(&self, slot: Slot, deadline: Instant) -> Result<Pooled, DialectError> {
        match tokio::time::timeout_at(deadline, self.open(slot)).await {
            Ok(opened) => opened,
            Err(_) => Err(DialectError::Connection {
                database: self.database.clone(),
                message: "opening a connection to the server took longer than the time limit"
                    .into(),
                source: None,
            }),
        }
    }

    /// Opens a connection in `slot`: the stream (through the wire guard), the protocol's
    /// startup, then [`SESSION_SETUP`].
    async fn open(&self, slot: Slot) -> Result<Pooled, DialectError> {
        let (stream, target) =
            socket::open(&self.config, &self.tls)
                .await
                .map_err(|e| DialectError::Connection {
                    database: self.database.clone(),
                    message: format!("could not reach the server: {e}"),
                    source: Some(Box::new(e)),
                })?;
        let wire = Arc::new(WireLimit::new(DEFAULT_MAX_BYTES));
        // The stream is set up (TLS included); the driver must not negotiate again, and its
        // cancel requests go through `Canceller`, on a stream made the same way.
        let mut raw = Config::clone(&self.config);
        raw.ssl_mode(SslMode::Disable);
        let fail = |e| errors::from_postgres(&self.database, e, None, Duration::ZERO);
        let (client, connection) = raw
            .connect_raw(Guarded::new(stream, Arc::clone(&wire)), NoTls)
            .await
            .map_err(fail)?;
        let closing = CancellationToken::new();
        let closed = closing.clone();
        let database = self.database.clone();
        // The task owns the slot: the place under the cap is free once the socket is.
        tokio::spawn(async move {
            let _slot = slot;
            tokio::pin!(connection);
            let ended = tokio::select! {
                ended = &mut connection => Some(ended),
                () = closed.cancelled() => {
                    // The client is gone; a clean connection ends at once, a stuck one is cut.
                    tokio::time::timeout(CLOSE_GRACE, &mut connection).await.ok()
                }
            };
            if let Some(Err(e)) = ended {
                tracing::debug!(database, error = %e, "a PostgreSQL connection ended with an error");
            }
        });
        let pooled = Pooled {
            client,
            wire,
            target,
            _closing: closing.drop_guard(),
        };
        pooled
            .client
            .batch_execute(SESSION_SETUP)
            .await
            .map_err(fail)?;
        if let Some(statement) = &self.extra_setup {
            pooled.client.batch_execute(statement).await.map_err(fail)?;
        }
        Ok(pooled)
    }

    /// What a cancel request for `pooled`'s statement needs, apart from the connection.
    pub(super) fn canceller(&self, pooled: &Pooled) -> Canceller {
        Canceller {
            token: pooled.client.cancel_token(),
            target: pooled.target.clone(),
            config: Arc::clone(&self.config),
            tls: self.tls.clone(),
        }
    }
}

/// Sends a cancel request to the server a connection reached, over a stream of its own made
/// as the connection's was (TLS included).
pub(super) struct Canceller {
    token: CancelToken,
    target: Target,
    config: Arc<Config>,
    tls: Connector,
}

impl Canceller {
    /// Sends the cancel request; a message for the log when it could not be sent.
    pub(super) async fn cancel(&self) -> Result<(), String> {
        let stream = socket::reopen(&self.target, &self.config, &self.tls)
            .await
            .map_err(|e| e.to_string())?;
        self.token
            .cancel_query_raw(stream, NoTls)
            .await
            .map_err(|e| e.to_string())
    }
}
