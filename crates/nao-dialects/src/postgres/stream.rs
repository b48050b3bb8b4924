//! Running one statement: a task owns a pooled connection, opens a READ ONLY transaction,
//! prepares the statement, and fetches its rows through a portal in chunks, sending Arrow
//! batches through a channel of capacity 1.
//!
//! A watcher races every round trip against the cancellation token, the deadline and a
//! dropped receiver; when one of them fires while the server is working, it sends a real
//! cancel request (a separate connection carrying the backend's key) and the connection is
//! dropped afterwards instead of pooled, since a cancel request could otherwise land on a later
//! statement. Between chunks nothing runs on the server (the portal is suspended), so stopping
//! there, or at the row cap, only needs the ROLLBACK.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use arrow_array::RecordBatch;
use arrow_schema::{Field, Schema, SchemaRef};
use futures_util::{StreamExt, pin_mut};
use nao_core::{BatchStream, DialectError, ExecOptions};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_postgres::{Client, IsolationLevel, Statement, Transaction};
use tokio_util::sync::CancellationToken;

use super::attribute_check::AttributeCheck;
use super::convert::{ColumnBuilder, RawValue};
use super::errors::{self, StopReason};
use super::pool::Pool;
use super::tls::Connector;
use super::types::{PgType, text_cast_field, text_cast_sql};

/// How long to wait for the server to answer after a cancel request before giving the
/// connection up.
const CANCEL_GRACE: Duration = Duration::from_secs(5);

/// What the task sends to the stream.
#[derive(Debug)]
enum Message {
    Start(SchemaRef),
    Batch(RecordBatch),
    Failed(DialectError),
}

/// What one statement needs in its task.
struct Job {
    database: Arc<str>,
    sql: String,
    /// Attribute references only the catalogue can prove columns.
    attributes: AttributeCheck,
    max_rows: u64,
    max_bytes: usize,
    batch_size: usize,
    timeout: Duration,
    deadline: Instant,
    cancel: CancellationToken,
}

/// Runs `sql` on a pooled connection and streams its batches. Returns once the schema and the
/// first batch (or the end, or the first error) are known, so errors of preparation and of the
/// first rows come back from here.
pub(super) async fn execute(
    pool: Arc<Pool>,
    database: Arc<str>,
    sql: String,
    attributes: AttributeCheck,
    options: &ExecOptions,
) -> Result<BatchStream, DialectError> {
    let deadline = Instant::now() + options.timeout;
    let job = Job {
        database: Arc::clone(&database),
        sql,
        attributes,
        max_rows: options.max_rows,
        max_bytes: options.max_bytes,
        batch_size: options.batch_size.max(1),
        timeout: options.timeout,
        deadline,
        cancel: options.cancel.clone(),
    };
    let stopped = |reason| Err(errors::stopped(&database, reason));
    let client = tokio::select! {
        biased;
        () = options.cancel.cancelled() => return stopped(StopReason::Cancelled),
        () = tokio::time::sleep_until(deadline) => return stopped(StopReason::Timeout(options.timeout)),
        client = pool.get() => client?,
    };
    let (tx, mut rx) = mpsc::channel(1);
    tokio::spawn(run(pool, client, job, tx));
    // The schema, then the first batch (or the end, or an error).
    let schema = match next_message(&mut rx, options, deadline).await {
        Err(reason) => return stopped(reason),
        Ok(Some(Message::Start(schema))) => schema,
        Ok(Some(Message::Failed(e))) => return Err(e),
        Ok(_) => return Err(worker_stopped(&database)),
    };
    let head = match next_message(&mut rx, options, deadline).await {
        Err(reason) => return stopped(reason),
        Ok(Some(Message::Batch(batch))) => Some(batch),
        Ok(Some(Message::Failed(e))) => return Err(e),
        Ok(None) => None,
        Ok(Some(Message::Start(_))) => return Err(worker_stopped(&database)),
    };
    let rest = futures_util::stream::unfold(rx, |mut rx| async move {
        match rx.recv().await? {
            Message::Batch(batch) => Some((Ok(batch), rx)),
            Message::Failed(e) => Some((Err(e), rx)),
            Message::Start(_) => None,
        }
    });
    let batches = futures_util::stream::iter(head.map(Ok)).chain(rest);
    Ok(BatchStream::new(schema, batches))
}

/// The task's next message, unless the caller cancels or the deadline passes first.
async fn next_message(
    rx: &mut mpsc::Receiver<Message>,
    options: &ExecOptions,
    deadline: Instant,
) -> Result<Option<Message>, StopReason> {
    tokio::select! {
        biased;
        () = options.cancel.cancelled() => Err(StopReason::Cancelled),
        () = tokio::time::sleep_until(deadline) => Err(StopReason::Timeout(options.timeout)),
        message = rx.recv() => Ok(message),
    }
}

fn worker_stopped(database: &str) -> DialectError {
    DialectError::Engine {
        database: database.to_owned(),
        message: "the PostgreSQL worker stopped before the statement started".into(),
        code: None,
        source: None,
    }
}

/// Races the server's work against the stop signals, and sends the cancel request.
struct Watch<'a> {
    job: &'a Job,
    tx: &'a mpsc::Sender<Message>,
    cancel_token: tokio_postgres::CancelToken,
    /// The TLS the cancel request's own connection needs (as the statement's did).
    tls: Connector,
    /// Why the statement was stopped, once it was.
    stop: Option<Stop>,
    /// A cancel request was sent: the connection must not be reused.
    cancel_sent: bool,
}

/// Why the watcher stopped the statement.
#[derive(Debug, Clone, Copy)]
enum Stop {
    /// Cancelled or timed out: the stream gets the error.
    Reason(StopReason),
    /// The stream was dropped: nobody is listening.
    ReceiverGone,
}

impl Watch<'_> {
    /// Runs `work`; if a stop signal fires first, sends a cancel request and waits a little for
    /// the server to answer. `None` when the server did not answer in time.
    async fn run<F: Future>(&mut self, work: F) -> Option<F::Output> {
        pin_mut!(work);
        let stop = tokio::select! {
            biased;
            out = &mut work => return Some(out),
            () = self.job.cancel.cancelled() => Stop::Reason(StopReason::Cancelled),
            () = tokio::time::sleep_until(self.job.deadline) => {
                Stop::Reason(StopReason::Timeout(self.job.timeout))
            }
            () = self.tx.closed() => Stop::ReceiverGone,
        };
        self.stop.get_or_insert(stop);
        if !self.cancel_sent {
            self.cancel_sent = true;
            let sent = tokio::time::timeout(
                CANCEL_GRACE,
                self.cancel_token.cancel_query(self.tls.clone()),
            );
            match sent.await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::warn!(error = %e, "the PostgreSQL cancel request failed"),
                Err(_) => tracing::warn!("the PostgreSQL cancel request timed out"),
            }
        }
        tokio::time::timeout(CANCEL_GRACE, work).await.ok()
    }

    fn reason(&self) -> Option<StopReason> {
        match self.stop {
            Some(Stop::Reason(reason)) => Some(reason),
            _ => None,
        }
    }

    /// Whether the statement must stop now, between two round trips.
    fn check_between(&mut self) -> Option<Stop> {
        if self.stop.is_none() {
            if self.job.cancel.is_cancelled() {
                self.stop = Some(Stop::Reason(StopReason::Cancelled));
            } else if Instant::now() >= self.job.deadline {
                self.stop = Some(Stop::Reason(StopReason::Timeout(self.job.timeout)));
            } else if self.tx.is_closed() {
                self.stop = Some(Stop::ReceiverGone);
            }
        }
        self.stop
    }

    fn pg_error(&self, e: tokio_postgres::Error) -> DialectError {
        errors::from_postgres(&self.job.database, e, self.reason(), self.job.timeout)
    }

    /// The error to report when a round trip was abandoned.
    fn abandoned(&self) -> DialectError {
        match self.reason() {
            Some(reason) => errors::stopped(&self.job.database, reason),
            None => DialectError::Connection {
                database: self.job.database.to_string(),
                message: "the server did not answer after the statement was cancelled".into(),
                source: None,
            },
        }
    }
}

/// How the statement ended, for the connection's fate.
enum End {
    /// Rolled back cleanly: the connection can be pooled.
    Clean,
    /// Unknown state: drop the connection.
    Dirty,
    /// The connection was already closed before anything ran: try again on a new one.
    Retry,
}

/// The task: runs the statement, reports to `tx`, and pools or drops the connection. A pooled
/// connection the server has closed meanwhile (an idle timeout, a restart) is replaced once.
async fn run(pool: Arc<Pool>, mut client: Client, job: Job, tx: mpsc::Sender<Message>) {
    let mut may_retry = true;
    loop {
        let mut watch = Watch {
            job: &job,
            tx: &tx,
            cancel_token: client.cancel_token(),
            tls: pool.tls(),
            stop: None,
            cancel_sent: false,
        };
        let end = statement(&mut client, &mut watch, may_retry).await;
        let reusable = matches!(end, End::Clean) && !watch.cancel_sent;
        if matches!(end, End::Retry) {
            may_retry = false;
            match pool.connect().await {
                Ok(fresh) => {
                    client = fresh;
                    continue;
                }
                Err(e) => {
                    fail(&tx, e).await;
                    return;
                }
            }
        }
        if reusable {
            // Session-level advisory locks survive a ROLLBACK; release any the statement took.
            let unlocked = tokio::time::timeout(
                CANCEL_GRACE,
                client.batch_execute("SELECT pg_catalog.pg_advisory_unlock_all()"),
            )
            .await;
            if matches!(unlocked, Ok(Ok(()))) {
                pool.put(client);
            }
        }
        return;
    }
}

/// Sends `error` unless nobody listens.
async fn fail(tx: &mpsc::Sender<Message>, error: DialectError) {
    let _ = tx.send(Message::Failed(error)).await;
}

/// Opens the transaction, runs the statement in it, and rolls it back. With `may_retry`, a
/// connection found closed at BEGIN (no server error, nothing sent) asks for a retry.
async fn statement(client: &mut Client, watch: &mut Watch<'_>, may_retry: bool) -> End {
    let job = watch.job;
    let begin = client
        .build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start();
    let txn = match watch.run(begin).await {
        Some(Ok(txn)) => txn,
        Some(Err(e)) => {
            if may_retry && e.as_db_error().is_none() && watch.stop.is_none() {
                tracing::debug!(error = %e, "a pooled PostgreSQL connection was closed; reconnecting");
                return End::Retry;
            }
            let error = watch.pg_error(e);
            fail(watch.tx, error).await;
            return End::Dirty;
        }
        None => {
            fail(watch.tx, watch.abandoned()).await;
            return End::Dirty;
        }
    };
    // The time limit, counted by the server per round trip. The SELECT takes the transaction's
    // snapshot, after which `SET TRANSACTION READ WRITE` is refused; it is also the catalogue's
    // check of the attribute references the guard could not prove columns.
    let millis = job.timeout.as_millis().clamp(1, i32::MAX as u128);
    let setup = format!(
        "SET LOCAL statement_timeout = {millis}; \
         SET LOCAL standard_conforming_strings = on; \
         {}",
        job.attributes.snapshot_query()
    );
    let outcome = match watch.run(txn.simple_query(&setup)).await {
        Some(Ok(messages)) => match job.attributes.verdict(&job.database, &messages) {
            Ok(()) => rows(&txn, watch).await,
            Err(refused) => Err(refused),
        },
        Some(Err(e)) => Err(watch.pg_error(e)),
        None => Err(watch.abandoned()),
    };
    if let Err(error) = outcome {
        fail(watch.tx, error).await;
    }
    if watch.cancel_sent {
        // The transaction's drop queues a ROLLBACK; the connection is dropped anyway.
        return End::Dirty;
    }
    match tokio::time::timeout(CANCEL_GRACE, txn.rollback()).await {
        Ok(Ok(())) => End::Clean,
        _ => End::Dirty,
    }
}

/// Prepares the statement (with a text cast for unmapped types), announces the schema, and
/// streams the rows. `Ok` when it ended normally, at the cap, or because nobody listens.
async fn rows(txn: &Transaction<'_>, watch: &mut Watch<'_>) -> Result<(), DialectError> {
    let job = watch.job;
    let Some((statement, schema, types)) = prepare(txn, watch).await? else {
        return Ok(());
    };
    if watch
        .tx
        .send(Message::Start(Arc::clone(&schema)))
        .await
        .is_err()
    {
        return Ok(());
    }
    let portal = match watch.run(txn.bind(&statement, &[])).await {
        Some(result) => result.map_err(|e| watch.pg_error(e))?,
        None => return Err(watch.abandoned()),
    };
    let limit = job.max_rows.saturating_add(1);
    let mut read: u64 = 0;
    let mut chunk = job.batch_size;
    let mut builders: Vec<ColumnBuilder> =
        types.iter().map(|t| ColumnBuilder::new(t, chunk)).collect();
    while read < limit {
        match watch.check_between() {
            Some(Stop::Reason(reason)) => return Err(errors::stopped(&job.database, reason)),
            Some(Stop::ReceiverGone) => return Ok(()),
            None => {}
        }
        let want = u64::try_from(chunk).unwrap_or(u64::MAX).min(limit - read);
        let want = i32::try_from(want).unwrap_or(i32::MAX);
        let fetched = watch
            .run(fetch(txn, &portal, want, &mut builders, &schema, read))
            .await;
        let (count, bytes) = match fetched {
            Some(Ok(fetched)) => fetched,
            Some(Err(Fetch::Postgres(e))) => return Err(watch.pg_error(e)),
            Some(Err(Fetch::Value(what))) => {
                return Err(DialectError::Unsupported {
                    database: job.database.to_string(),
                    what,
                });
            }
            None => return Err(watch.abandoned()),
        };
        if count == 0 {
            break;
        }
        let columns = builders
            .iter_mut()
            .map(ColumnBuilder::finish)
            .collect::<Result<Vec<_>, String>>()
            .map_err(|what| DialectError::Engine {
                database: job.database.to_string(),
                message: what,
                code: None,
                source: None,
            })?;
        let batch = RecordBatch::try_new(Arc::clone(&schema), columns).map_err(|e| {
            DialectError::Engine {
                database: job.database.to_string(),
                message: format!("could not build an Arrow batch: {e}"),
                code: None,
                source: None,
            }
        })?;
        if watch.tx.send(Message::Batch(batch)).await.is_err() {
            return Ok(());
        }
        read += count as u64;
        if count < usize::try_from(want).unwrap_or(usize::MAX) {
            break;
        }
        // Wide rows: shrink the chunk so one batch stays near a quarter of the byte cap.
        let budget = (job.max_bytes / 4).max(1);
        if bytes > budget {
            chunk = (count.saturating_mul(budget) / bytes).clamp(1, job.batch_size);
        }
    }
    Ok(())
}

/// The prepared statement, its schema and its column mappings; `None` when nobody listens any
/// more.
type Prepared = Option<(Statement, SchemaRef, Vec<PgType>)>;

/// Prepares the statement (the extended protocol takes exactly one), refuses statements that
/// return no rows, and re-prepares it with a text cast when a column's type has no mapping.
async fn prepare(txn: &Transaction<'_>, watch: &mut Watch<'_>) -> Result<Prepared, DialectError> {
    let job = watch.job;
    let statement = match watch.run(txn.prepare(&job.sql)).await {
        Some(result) => result.map_err(|e| watch.pg_error(e))?,
        None => return Err(watch.abandoned()),
    };
    let columns = statement.columns();
    if columns.is_empty() {
        return Err(DialectError::Permission {
            database: job.database.to_string(),
            message: "the statement returns no rows (a command such as SET, COPY, COMMIT or a \
                      utility statement); only queries run here"
                .into(),
            code: None,
        });
    }
    let mapped: Vec<Option<PgType>> = columns
        .iter()
        .map(|c| PgType::of(c.type_(), c.type_modifier()))
        .collect();
    if mapped.iter().all(Option::is_some) {
        let types: Vec<PgType> = mapped.into_iter().flatten().collect();
        let fields: Vec<Field> = columns
            .iter()
            .zip(&types)
            .map(|(c, t)| t.field(c.name()))
            .collect();
        return Ok(Some((statement, Arc::new(Schema::new(fields)), types)));
    }
    let names: Vec<&str> = columns.iter().map(|c| c.name()).collect();
    let cast: Vec<bool> = mapped.iter().map(Option::is_none).collect();
    let wrapped = text_cast_sql(&job.sql, &names, &cast);
    let unmapped = columns
        .iter()
        .zip(&cast)
        .find(|(_, cast)| **cast)
        .map(|(c, _)| (c.name().to_owned(), c.type_().name().to_owned()))
        .unwrap_or_default();
    let recast = match watch.run(txn.prepare(&wrapped)).await {
        Some(Ok(recast)) => recast,
        Some(Err(e)) => {
            let (column, type_name) = unmapped;
            return Err(DialectError::Unsupported {
                database: job.database.to_string(),
                what: format!(
                    "column {column:?} has the PostgreSQL type {type_name}, which has no Arrow \
                     mapping, and the statement could not be wrapped to cast it to text ({e}); \
                     cast it in the SQL, as {column}::text"
                ),
            });
        }
        None => return Err(watch.abandoned()),
    };
    let mut types = Vec::with_capacity(columns.len());
    let mut fields = Vec::with_capacity(columns.len());
    for ((original, casted), cast) in columns.iter().zip(recast.columns()).zip(&cast) {
        let Some(ty) = PgType::of(casted.type_(), casted.type_modifier()) else {
            return Err(DialectError::Unsupported {
                database: job.database.to_string(),
                what: format!(
                    "column {:?} has the PostgreSQL type {}, which has no Arrow mapping; cast \
                     it to text in the SQL",
                    original.name(),
                    original.type_().name()
                ),
            });
        };
        fields.push(if *cast {
            text_cast_field(original.name(), original.type_().name())
        } else {
            ty.field(original.name())
        });
        types.push(ty);
    }
    Ok(Some((recast, Arc::new(Schema::new(fields)), types)))
}

/// Why fetching a chunk failed.
enum Fetch {
    Postgres(tokio_postgres::Error),
    /// A value that does not fit its Arrow column, described for the model.
    Value(String),
}

/// Fetches up to `want` rows from the portal into the builders: (rows, raw bytes).
async fn fetch(
    txn: &Transaction<'_>,
    portal: &tokio_postgres::Portal,
    want: i32,
    builders: &mut [ColumnBuilder],
    schema: &SchemaRef,
    before: u64,
) -> Result<(usize, usize), Fetch> {
    let stream = txn
        .query_portal_raw(portal, want)
        .await
        .map_err(Fetch::Postgres)?;
    pin_mut!(stream);
    let mut count = 0usize;
    let mut bytes = 0usize;
    while let Some(row) = stream.next().await {
        let row = row.map_err(Fetch::Postgres)?;
        bytes = bytes.saturating_add(row.raw_size_bytes());
        for (i, builder) in builders.iter_mut().enumerate() {
            let value = row
                .try_get::<_, Option<RawValue<'_>>>(i)
                .map_err(Fetch::Postgres)?;
            if let Err(e) = builder.append(value.map(|v| v.0)) {
                let name = schema.field(i).name();
                let row_number = before + count as u64 + 1;
                return Err(Fetch::Value(format!(
                    "column {name:?}, row {row_number}: {e}; cast the column in the SQL (to text, \
                     or to a type that holds the value)"
                )));
            }
        }
        count += 1;
    }
    Ok((count, bytes))
}
