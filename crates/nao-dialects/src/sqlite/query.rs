//! One statement on a blocking thread, its rows handed to the [statement pump](crate::pump) as
//! Arrow batches, with the row cap, deadline, cancellation and a dropped stream all stopping it.

use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::{Field, Schema, SchemaRef};
use nao_core::{BatchStream, DialectError, ExecOptions};
use rusqlite::types::ValueRef;

use super::convert::{ColumnBuilder, Misfit};
use super::open::{Pool, Slot};
use super::types::Declared;
use super::{errors, limits};
use crate::pump::{self, Flow, Producer, Stopped};

/// SQLite virtual-machine steps between checks of the deadline, the token and the reader.
const PROGRESS_STEPS: i32 = 1_000;

/// What one statement needs on its thread besides its producer.
#[derive(Debug)]
pub(crate) struct Job {
    /// The database's name, for errors.
    pub(crate) database: String,
    /// The statement.
    pub(crate) sql: String,
    /// Rows per batch.
    pub(crate) batch_size: usize,
    /// The call's byte cap: a batch is sent early once its values reach it, and half of it
    /// is the most one value may take ([`limits::value_limit`]).
    pub(crate) max_bytes: usize,
}

/// Why reading stopped early.
enum Stop {
    /// The pump stopped the statement (cancelled, out of time, nobody reads): it tells the
    /// reader why, if anyone listens.
    Pumped,
    Failed(DialectError),
}

impl From<DialectError> for Stop {
    fn from(error: DialectError) -> Self {
        Stop::Failed(error)
    }
}

impl From<Stopped> for Stop {
    fn from(_: Stopped) -> Self {
        Stop::Pumped
    }
}

/// Waits for one of the pool's connections, starts `job` on it on a blocking thread and waits
/// for its schema and first batch, so errors of preparation (syntax, unknown tables, denied
/// writes) come back here, before any stream. The wait for a connection counts against the
/// statement's time limit; a host that queues statements (nao-core's admission control) lets
/// no more run than the pool holds, so none waits here.
pub(crate) async fn execute(
    pool: &Arc<Pool>,
    job: Job,
    options: &ExecOptions,
) -> Result<BatchStream, DialectError> {
    let (producer, consumer) = pump::channel(&job.database, options);
    let slot = consumer.unless_stopped(pool.slot()).await?;
    tokio::task::spawn_blocking(move || run(slot, &job, producer));
    consumer.stream().await
}

/// The blocking part: takes a connection, watches the statement with a progress handler, reads,
/// and gives the connection back before the end of the stream (so the stream ends only once
/// the connection is free again).
fn run(slot: Slot, job: &Job, mut producer: Producer) {
    let mut conn = match slot.connection() {
        Ok(conn) => conn,
        Err(e) => {
            producer.blocking_fail(errors::dialect_error(&job.database, e));
            return;
        }
    };
    if let Err(e) = limits::set_value_limit(&conn, job.max_bytes) {
        producer.blocking_fail(errors::dialect_error(&job.database, e));
        return;
    }
    let signal = producer.signal();
    let watcher = move || signal.check().is_some();
    let outcome = match conn.progress_handler(PROGRESS_STEPS, Some(watcher)) {
        Ok(()) => read(&conn, job, &mut producer),
        Err(e) => Err(Stop::Failed(errors::dialect_error(&job.database, e))),
    };
    if conn.progress_handler(0, None::<fn() -> bool>).is_ok() {
        slot.give_back(conn);
    }
    match outcome {
        Ok(()) => producer.finish(),
        Err(Stop::Failed(error)) => producer.blocking_fail(error),
        Err(Stop::Pumped) => {}
    }
}

/// One result column: its name, its declared type as written, and how it maps.
struct ColumnPlan {
    name: String,
    decltype: Option<String>,
}

fn read(conn: &rusqlite::Connection, job: &Job, producer: &mut Producer) -> Result<(), Stop> {
    let database = job.database.as_str();
    let signal = producer.signal();
    let engine_error = |e: rusqlite::Error| -> Stop {
        // The progress handler interrupted it: the pump tells the reader why.
        if errors::is_interrupt(&e) && signal.check().is_some() {
            return Stop::Pumped;
        }
        Stop::Failed(errors::statement_error(database, e, job.max_bytes))
    };
    let mut statement = conn.prepare(&job.sql).map_err(engine_error)?;
    super::engine_verdict::refuse_writes(&statement, &job.sql, database)?;
    let plans: Vec<ColumnPlan> = statement
        .columns()
        .map(|c| ColumnPlan {
            name: c.name().to_owned(),
            decltype: c.decl_type().map(str::to_owned),
        })
        .collect();
    let row_limit = producer.row_limit();
    let batch_size = job.batch_size.max(1);
    let capacity = usize::try_from(row_limit)
        .unwrap_or(usize::MAX)
        .min(batch_size);
    let mut builders: Vec<ColumnBuilder> = plans
        .iter()
        .map(|p| ColumnBuilder::new(Declared::from_decltype(p.decltype.as_deref()), capacity))
        .collect();
    let mut schema: Option<SchemaRef> = None;
    let (mut rows_read, mut in_batch, mut batch_bytes) = (0_u64, 0_usize, 0_usize);
    let mut rows = statement.query([]).map_err(engine_error)?;
    while rows_read < row_limit {
        let Some(row) = rows.next().map_err(engine_error)? else {
            break;
        };
        rows_read += 1;
        for (i, builder) in builders.iter_mut().enumerate() {
            let value = row.get_ref(i).map_err(engine_error)?;
            batch_bytes += value_size(value);
            builder
                .append(value)
                .map_err(|m| misfit_error(database, &plans[i], rows_read, m))?;
        }
        in_batch += 1;
        if in_batch >= batch_size || batch_bytes >= job.max_bytes {
            let first_row = rows_read + 1 - in_batch as u64;
            let first = schema.is_none();
            let batch = flush(
                database,
                &plans,
                &mut builders,
                &mut schema,
                in_batch,
                first_row,
            )?;
            in_batch = 0;
            batch_bytes = 0;
            if hand_over(producer, first, batch)? == Flow::Full {
                return Ok(());
            }
        }
    }
    drop(rows);
    if schema.is_none() || in_batch > 0 {
        let first_row = rows_read + 1 - in_batch as u64;
        let first = schema.is_none();
        let batch = flush(
            database,
            &plans,
            &mut builders,
            &mut schema,
            in_batch,
            first_row,
        )?;
        hand_over(producer, first, batch)?;
    }
    Ok(())
}

/// Hands a batch to the pump, after the schema with the `first` one (whose columns' types it
/// fixed); an empty first batch only announces the schema.
fn hand_over(producer: &mut Producer, first: bool, batch: RecordBatch) -> Result<Flow, Stop> {
    if first {
        producer.blocking_schema(batch.schema())?;
    }
    if batch.num_rows() == 0 {
        return Ok(Flow::Continue);
    }
    Ok(producer.blocking_batch(batch)?)
}

/// Bytes a value adds to the batch (roughly: its payload plus an offset or slot).
fn value_size(value: ValueRef<'_>) -> usize {
    match value {
        ValueRef::Text(bytes) | ValueRef::Blob(bytes) => bytes.len() + 8,
        _ => 8,
    }
}

/// The batch being built; the first one fixes the schema.
fn flush(
    database: &str,
    plans: &[ColumnPlan],
    builders: &mut [ColumnBuilder],
    schema: &mut Option<SchemaRef>,
    rows: usize,
    first_row: u64,
) -> Result<RecordBatch, Stop> {
    let schema = match schema {
        Some(schema) => schema.clone(),
        None => {
            for (plan, builder) in plans.iter().zip(builders.iter_mut()) {
                builder
                    .resolve()
                    .map_err(|(row, m)| misfit_error(database, plan, first_row + row as u64, m))?;
            }
            let fields: Vec<Field> = plans
                .iter()
                .zip(builders.iter())
                .map(|(plan, b)| Field::new(&plan.name, b.data_type(), true))
                .collect();
            let made = Arc::new(Schema::new(fields));
            *schema = Some(made.clone());
            made
        }
    };
    let columns = builders.iter_mut().map(ColumnBuilder::finish).collect();
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(schema, columns, &options).map_err(|e| {
        Stop::Failed(DialectError::Engine {
            database: database.to_owned(),
            message: format!("building an Arrow batch failed: {e}"),
            code: None,
            source: Some(Box::new(e)),
        })
    })
}

/// A value that does not fit its column, as an error naming the column and row and saying
/// what to write instead.
fn misfit_error(database: &str, plan: &ColumnPlan, row: u64, misfit: Misfit) -> Stop {
    let quoted = format!("\"{}\"", plan.name.replace('"', "\"\""));
    let declared = match &plan.decltype {
        Some(decl) => format!("declared {decl}"),
        None => "an expression; its type came from the first rows".to_owned(),
    };
    let advice = misfit.advice.replace("{col}", &quoted);
    Stop::Failed(DialectError::Unsupported {
        database: database.to_owned(),
        what: format!(
            "column {quoted} ({declared}) at row {row} {}. Convert it in the query, e.g. {advice}",
            misfit.problem
        ),
    })
}
