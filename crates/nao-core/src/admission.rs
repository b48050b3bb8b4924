//! Admission control: how many statements one database runs at once, how many may wait for a
//! turn, and for how long. Waiting is not running: a statement's time limit starts when it is
//! admitted, and one that gets no turn fails with [`DialectError::Busy`], which tells the
//! model to retry the same call rather than to make a good query cheaper.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use nao_guard::{ReadOnlySql, Rejection, SqlDialect};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

use crate::{
    BatchStream, Dialect, DialectError, ExecOptions, TableFilter, TableInfo, TableRef, TableSchema,
};

/// Default for [`AdmissionLimits::max_waiting`]: enough for a burst of sessions, small enough
/// that a flood is turned away quickly.
pub const DEFAULT_MAX_WAITING: usize = 256;
/// Default for [`AdmissionLimits::max_wait`].
pub const DEFAULT_MAX_WAIT: Duration = Duration::from_secs(10);

/// How many statements one database runs at once ([`max_running`](Self::max_running)), how
/// many may wait for a turn, and how long one waits before it is turned away as busy.
///
/// ```
/// use std::time::Duration;
/// use nao_core::AdmissionLimits;
///
/// let limits = AdmissionLimits::default()
///     .with_max_running(8)
///     .with_max_waiting(100)
///     .with_max_wait(Duration::from_secs(5));
/// assert_eq!(limits.max_running(), 8);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdmissionLimits {
    max_running: usize,
    max_waiting: usize,
    max_wait: Duration,
}

impl Default for AdmissionLimits {
    /// Twice the machine's cores running (at least 4: server engines work while the host
    /// waits on the network), [`DEFAULT_MAX_WAITING`] waiting, [`DEFAULT_MAX_WAIT`] each.
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        AdmissionLimits {
            max_running: (2 * cores).max(4),
            max_waiting: DEFAULT_MAX_WAITING,
            max_wait: DEFAULT_MAX_WAIT,
        }
    }
}

impl AdmissionLimits {
    /// Statements that run at once (at least 1).
    #[must_use]
    pub fn with_max_running(mut self, statements: usize) -> Self {
        self.max_running = statements.max(1);
        self
    }

    /// Statements that may wait for a turn; one more is turned away at once.
    #[must_use]
    pub fn with_max_waiting(mut self, statements: usize) -> Self {
        self.max_waiting = statements;
        self
    }

    /// How long a statement waits for a turn before it is turned away.
    #[must_use]
    pub fn with_max_wait(mut self, wait: Duration) -> Self {
        self.max_wait = wait;
        self
    }

    /// Statements that run at once.
    pub fn max_running(&self) -> usize {
        self.max_running
    }

    /// Statements that may wait.
    pub fn max_waiting(&self) -> usize {
        self.max_waiting
    }

    /// The longest wait for a turn.
    pub fn max_wait(&self) -> Duration {
        self.max_wait
    }
}

/// A statement's turn on a database: the database counts it as running until this is
/// dropped. [`DialectExt::query`](crate::DialectExt::query) holds one while it runs and
/// collects a statement.
#[derive(Debug)]
pub struct Admitted {
    permit: Option<OwnedSemaphorePermit>,
    gate: u64,
}

impl Admitted {
    /// A turn on a database that does not count its statements.
    pub fn free() -> Self {
        Admitted {
            permit: None,
            gate: 0,
        }
    }

    /// Whether this is a turn given by the gate `gate`.
    pub(crate) fn is_from(&self, gate: u64) -> bool {
        self.permit.is_some() && self.gate == gate
    }
}

/// The queue of one database.
#[derive(Debug)]
struct Gate {
    id: u64,
    limits: AdmissionLimits,
    running: Arc<Semaphore>,
    waiting: AtomicUsize,
}

/// Counts a waiting statement for as long as it waits.
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Gate {
    fn new(limits: AdmissionLimits) -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Gate {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            limits,
            running: Arc::new(Semaphore::new(limits.max_running)),
            waiting: AtomicUsize::new(0),
        }
    }

    /// Waits for a turn, at most `max_wait`, unless `cancel` fires first.
    async fn enter(
        &self,
        database: &str,
        cancel: &CancellationToken,
    ) -> Result<Admitted, DialectError> {
        let admitted = |permit| Admitted {
            permit: Some(permit),
            gate: self.id,
        };
        if let Ok(permit) = Arc::clone(&self.running).try_acquire_owned() {
            return Ok(admitted(permit));
        }
        let queued = self.waiting.fetch_add(1, Ordering::Relaxed) + 1;
        let _waiting = Waiting(&self.waiting);
        let busy = |waited: Duration| DialectError::Busy {
            database: database.to_owned(),
            running: self.limits.max_running,
            waiting: self.waiting.load(Ordering::Relaxed).saturating_sub(1),
            waited,
            retry_after: self
                .limits
                .max_wait
                .clamp(Duration::from_secs(1), Duration::from_secs(30)),
        };
        if queued > self.limits.max_waiting {
            return Err(busy(Duration::ZERO));
        }
        let started = tokio::time::Instant::now();
        let turn = tokio::time::timeout(
            self.limits.max_wait,
            Arc::clone(&self.running).acquire_owned(),
        );
        tokio::select! {
            biased;
            () = cancel.cancelled() => Err(DialectError::Cancelled { database: database.to_owned() }),
            turn = turn => match turn {
                Ok(Ok(permit)) => Ok(admitted(permit)),
                // A closed semaphore never happens (the gate never closes it); a wait that
                // ran out is the busy answer.
                Ok(Err(_)) | Err(_) => Err(busy(started.elapsed())),
            },
        }
    }
}

/// A database whose statements wait for a turn: at most
/// [`max_running`](AdmissionLimits::max_running) run at once, the rest queue (bounded in
/// number and time) and are turned away with [`DialectError::Busy`]. Catalogue calls take a
/// turn too. [`ToolContext`](crate::ToolContext) wraps every database in one, from
/// [`Settings::admission`](crate::Settings::admission).
///
/// Statements run through [`DialectExt::query`](crate::DialectExt::query) take their turn
/// before their time limit starts; a caller of [`execute`](Dialect::execute) alone waits inside
/// the call.
#[derive(Debug)]
pub struct AdmittedDialect {
    inner: Arc<dyn Dialect>,
    gate: Gate,
}

impl AdmittedDialect {
    /// `inner` behind a queue with `limits`, running no more statements at once than `inner`
    /// can ([`Dialect::max_concurrent_statements`]).
    pub fn new(inner: Arc<dyn Dialect>, limits: AdmissionLimits) -> Self {
        let limits = match inner.max_concurrent_statements() {
            Some(own) if own < limits.max_running => limits.with_max_running(own),
            _ => limits,
        };
        AdmittedDialect {
            inner,
            gate: Gate::new(limits),
        }
    }

    /// The limits.
    pub fn limits(&self) -> AdmissionLimits {
        self.gate.limits
    }
}

#[async_trait]
impl Dialect for AdmittedDialect {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn sql_dialect(&self) -> SqlDialect {
        self.inner.sql_dialect()
    }

    async fn admit(&self, options: &ExecOptions) -> Result<Admitted, DialectError> {
        self.gate.enter(self.inner.name(), &options.cancel).await
    }

    fn refused_as_writing(&self, error: &DialectError) -> bool {
        self.inner.refused_as_writing(error)
    }

    async fn execute(
        &self,
        sql: &ReadOnlySql,
        options: &ExecOptions,
    ) -> Result<BatchStream, DialectError> {
        if options.admitted_by(self.gate.id) {
            return self.inner.execute(sql, options).await;
        }
        let turn = self.gate.enter(self.inner.name(), &options.cancel).await?;
        let stream = self.inner.execute(sql, options).await?;
        Ok(stream.keeping(turn))
    }

    async fn list_tables(&self, filter: &TableFilter) -> Result<Vec<TableInfo>, DialectError> {
        let _turn = self
            .gate
            .enter(self.inner.name(), &CancellationToken::new())
            .await?;
        self.inner.list_tables(filter).await
    }

    async fn describe_table(&self, table: &TableRef) -> Result<TableSchema, DialectError> {
        let _turn = self
            .gate
            .enter(self.inner.name(), &CancellationToken::new())
            .await?;
        self.inner.describe_table(table).await
    }

    fn prepare(&self, sql: &str, row_cap: Option<u64>) -> Result<ReadOnlySql, Rejection> {
        self.inner.prepare(sql, row_cap)
    }

    fn max_concurrent_statements(&self) -> Option<usize> {
        Some(self.gate.limits.max_running)
    }
}
