//! Reading a portal's rows into Arrow batches, bounded by bytes as well as by rows.
//!
//! The server sends every row a fetch asks for, and the driver reads each row whole, so what a
//! fetch asks for is what it costs in memory. Fetches start at one row and double while rows
//! stay narrow, never asking for more rows than fit a batch budget (an eighth of the byte cap)
//! at the widest row seen so far; a statement whose columns all have a fixed width starts at
//! the batch size. A batch is sent when it holds `batch_size` rows or reaches the budget,
//! even in the middle of a fetch (rows wider than any seen before). A new batch starts only
//! once the reader has taken the last one, and the pump stops the task once the batches it
//! sent exceed the byte cap (the reader keeps none past it). One row may take at most half the cap
//! ([`oversize::row_limit`]): the wire guard refuses a longer row before it is read. Together
//! these keep the adapter within about twice the byte cap whatever the row width.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use futures_util::{StreamExt, pin_mut};
use nao_core::DialectError;
use tokio_postgres::{Portal, Row, Transaction};

use super::convert::{ColumnBuilder, RawValue};
use super::oversize;
use super::types::PgType;
use super::watch::Watch;
use crate::pump::{Flow, Producer, Stopped};

/// Bytes a row of these columns takes at most on the wire, when every column has a fixed
/// width (the column count, then a length word and the value per column).
fn fixed_row_width(types: &[PgType]) -> Option<usize> {
    types.iter().try_fold(2usize, |sum, ty| {
        let width = match ty {
            PgType::Bool => 1,
            PgType::Int2 => 2,
            PgType::Int4 | PgType::Oid | PgType::Float4 | PgType::Date => 4,
            PgType::Int8 | PgType::Float8 | PgType::Time => 8,
            PgType::Timestamp | PgType::TimestampTz => 8,
            PgType::Interval | PgType::Uuid => 16,
            // A numeric(p, s) value: a 4-word header and one word per 4 digits (and one more
            // for the split at the decimal point).
            PgType::Decimal { precision, .. } => 8 + 2 * (usize::from(*precision) / 4 + 2),
            _ => return None,
        };
        Some(sum + 4 + width)
    })
}

/// How many rows the next fetch asks for.
struct Sizing {
    /// The widest row seen (or known from the types), in wire bytes.
    widest: usize,
    /// The most the next fetch may ask for: doubles after each fetch.
    growth: usize,
    batch_size: usize,
    budget: usize,
}

impl Sizing {
    fn new(types: &[PgType], batch_size: usize, budget: usize) -> Self {
        let fixed = fixed_row_width(types);
        Sizing {
            widest: fixed.unwrap_or(0),
            growth: if fixed.is_some() { batch_size } else { 1 },
            batch_size,
            budget,
        }
    }

    /// Rows to ask for, with `rows` and `bytes` already in the batch and `left` rows still
    /// wanted (at least 1).
    fn next(&mut self, rows: usize, bytes: usize, left: u64) -> i32 {
        let by_count = self.batch_size.saturating_sub(rows).max(1);
        let by_bytes = match self.widest {
            0 => usize::MAX,
            widest => (self.budget.saturating_sub(bytes) / widest).max(1),
        };
        let want = self
            .growth
            .min(by_count)
            .min(by_bytes)
            .min(usize::try_from(left).unwrap_or(usize::MAX))
            .max(1);
        self.growth = self.growth.saturating_mul(2).min(self.batch_size);
        i32::try_from(want).unwrap_or(i32::MAX)
    }
}

/// The batch being built.
struct Batch {
    builders: Vec<ColumnBuilder>,
    rows: usize,
    /// Wire bytes of its rows.
    bytes: usize,
}

/// Why reading stopped early.
enum Halt {
    /// The driver failed (or the wire guard cut the connection).
    Postgres(tokio_postgres::Error),
    /// A value that does not fit its Arrow column, or a row over the limit.
    Error(DialectError),
    /// Nobody reads any more, or the reader has all it will keep.
    Done,
}

/// What stays the same for the whole read.
struct Reading<'a> {
    txn: &'a Transaction<'a>,
    portal: &'a Portal,
    schema: &'a SchemaRef,
    database: &'a str,
    max_bytes: usize,
    budget: usize,
    batch_size: usize,
}

/// Where the read is.
struct Progress {
    /// Rows read (sent, or in the batch).
    read: u64,
}

/// Streams the portal's rows as batches to the pump, up to `max_rows + 1` rows. `Ok` when it
/// ended normally, at a cap, or because nobody listens.
pub(super) async fn read_portal(
    txn: &Transaction<'_>,
    portal: &Portal,
    watch: &mut Watch<'_>,
    producer: &mut Producer,
    schema: &SchemaRef,
    types: &[PgType],
) -> Result<(), DialectError> {
    let job = watch.job;
    watch.wire.set(oversize::row_limit(job.max_bytes));
    let budget = (job.max_bytes / 8).max(1);
    let reading = Reading {
        txn,
        portal,
        schema,
        database: &job.database,
        max_bytes: job.max_bytes,
        budget,
        batch_size: job.batch_size,
    };
    let limit = producer.row_limit();
    let mut sizing = Sizing::new(types, job.batch_size, budget);
    let mut batch = Batch {
        builders: types
            .iter()
            .map(|t| ColumnBuilder::new(t, job.batch_size.min(1024)))
            .collect(),
        rows: 0,
        bytes: 0,
    };
    let mut progress = Progress { read: 0 };
    while progress.read < limit {
        let stop = match watch.check_between() {
            Some(stop) => Some(stop),
            // A new batch starts once the reader has taken the last one.
            None if batch.rows == 0 => producer.room().await.err().map(|s| watch.stopping(s)),
            None => None,
        };
        match stop {
            Some(Stopped::Reason(reason)) => return Err(reason.error(&job.database)),
            Some(_) => return Ok(()),
            None => {}
        }
        let want = sizing.next(batch.rows, batch.bytes, limit - progress.read);
        let fetched = watch
            .run(fetch(
                &reading,
                producer,
                want,
                &mut batch,
                &mut sizing,
                &mut progress,
            ))
            .await;
        match fetched {
            Some(Ok(count)) if count < usize::try_from(want).unwrap_or(usize::MAX) => break,
            Some(Ok(_)) => {}
            Some(Err(Halt::Done)) => return Ok(()),
            Some(Err(Halt::Error(e))) => return Err(e),
            Some(Err(Halt::Postgres(e))) => {
                return Err(match watch.wire.refused() {
                    Some(refused) if refused.is_row() => oversize::ADVICE.row_too_large(
                        &job.database,
                        schema,
                        progress.read + 1,
                        refused.size,
                        refused.column,
                        job.max_bytes,
                    ),
                    _ => watch.pg_error(e),
                });
            }
            None => return Err(watch.abandoned()),
        }
    }
    if batch.rows > 0
        && let Err(Halt::Error(e)) = send(&reading, producer, &mut batch).await
    {
        return Err(e);
    }
    Ok(())
}

/// Fetches up to `want` rows into the batch, sending it whenever it is full: the rows
/// fetched.
async fn fetch(
    reading: &Reading<'_>,
    producer: &mut Producer,
    want: i32,
    batch: &mut Batch,
    sizing: &mut Sizing,
    progress: &mut Progress,
) -> Result<usize, Halt> {
    let stream = reading
        .txn
        .query_portal_raw(reading.portal, want)
        .await
        .map_err(Halt::Postgres)?;
    pin_mut!(stream);
    let mut count = 0usize;
    while let Some(row) = stream.next().await {
        let row = row.map_err(Halt::Postgres)?;
        // Rows already buffered never wait: give other tasks (the caller's clock) a turn.
        tokio::task::consume_budget().await;
        let size = row.raw_size_bytes();
        if size > oversize::row_limit(reading.max_bytes) {
            return Err(Halt::Error(oversize::ADVICE.row_too_large(
                reading.database,
                reading.schema,
                progress.read + 1,
                size,
                largest_column(&row),
                reading.max_bytes,
            )));
        }
        append(reading, batch, &row, progress.read)?;
        sizing.widest = sizing.widest.max(size);
        batch.rows += 1;
        batch.bytes += size;
        progress.read += 1;
        count += 1;
        if batch.rows >= reading.batch_size || batch.bytes >= reading.budget {
            // The rest of this fetch, if any, is read and discarded by the driver.
            send(reading, producer, batch).await?;
        }
    }
    Ok(count)
}

/// Appends one row's values to the batch's builders.
fn append(reading: &Reading<'_>, batch: &mut Batch, row: &Row, before: u64) -> Result<(), Halt> {
    for (i, builder) in batch.builders.iter_mut().enumerate() {
        let value = row
            .try_get::<_, Option<RawValue<'_>>>(i)
            .map_err(Halt::Postgres)?;
        if let Err(e) = builder.append(value.map(|v| v.0)) {
            let name = reading.schema.field(i).name();
            let row_number = before + 1;
            return Err(Halt::Error(DialectError::Unsupported {
                database: reading.database.to_owned(),
                what: format!(
                    "column {name:?}, row {row_number}: {e}; cast the column in the SQL (to text, \
                     or to a type that holds the value)"
                ),
            }));
        }
    }
    Ok(())
}

/// The row's largest column: (index, bytes).
fn largest_column(row: &Row) -> Option<(usize, usize)> {
    (0..row.len())
        .filter_map(|i| {
            let value = row.try_get::<_, Option<RawValue<'_>>>(i).ok()??;
            Some((i, value.0.len()))
        })
        .max_by_key(|&(_, bytes)| bytes)
}

/// Hands the batch built so far to the pump; `Done` when nobody reads any more or the reader
/// has all it will keep (the row cap plus one, or batches past the byte cap).
async fn send(
    reading: &Reading<'_>,
    producer: &mut Producer,
    batch: &mut Batch,
) -> Result<(), Halt> {
    let columns = batch
        .builders
        .iter_mut()
        .map(ColumnBuilder::finish)
        .collect::<Result<Vec<_>, String>>()
        .map_err(|what| {
            Halt::Error(DialectError::Engine {
                database: reading.database.to_owned(),
                message: what,
                code: None,
                source: None,
            })
        })?;
    batch.rows = 0;
    batch.bytes = 0;
    let built = RecordBatch::try_new(Arc::clone(reading.schema), columns).map_err(|e| {
        Halt::Error(DialectError::Engine {
            database: reading.database.to_owned(),
            message: format!("could not build an Arrow batch: {e}"),
            code: None,
            source: None,
        })
    })?;
    match producer.batch(built).await {
        Ok(Flow::Continue) => Ok(()),
        // The reader has all it keeps: further rows would only be read to be dropped.
        Ok(Flow::Full) | Err(Stopped::ConsumerGone) => Err(Halt::Done),
        Err(Stopped::Reason(reason)) => Err(Halt::Error(reason.error(reading.database))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fetches_start_small_for_wide_types_and_grow_while_rows_are_narrow() {
        let mut text = Sizing::new(&[PgType::Text], 2048, 8 << 20);
        let wants: Vec<i32> = (0..13)
            .map(|_| {
                let want = text.next(0, 0, u64::MAX);
                text.widest = 100;
                want
            })
            .collect();
        assert_eq!(
            wants,
            [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 2048]
        );
        // Rows of 10 MB under an 8 MiB budget: one at a time.
        text.widest = 10_000_000;
        assert_eq!(text.next(0, 0, u64::MAX), 1);
        // Never more than the rows still wanted, or than fit the batch.
        let mut ints = Sizing::new(&[PgType::Int4, PgType::Timestamp], 2048, 8 << 20);
        assert_eq!(ints.next(0, 0, u64::MAX), 2048);
        assert_eq!(ints.next(2000, 0, u64::MAX), 48);
        assert_eq!(ints.next(0, 0, 7), 7);
    }

    #[test]
    fn fixed_widths_cover_the_fixed_types_only() {
        assert_eq!(fixed_row_width(&[PgType::Int4]), Some(2 + 4 + 4));
        assert_eq!(fixed_row_width(&[PgType::Int8, PgType::Text]), None);
        assert_eq!(
            fixed_row_width(&[PgType::List(Box::new(PgType::Int4))]),
            None
        );
    }
}
