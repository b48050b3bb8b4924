//! Collecting a batch stream under row and byte caps, a deadline and a cancellation token.

use std::time::Duration;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use futures_util::StreamExt;
use nao_render::Truncation;
use tokio::time::Instant;

use crate::{BatchStream, DialectError, ExecOptions};

/// The batches of a result, cut at the caps, with why they were cut.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CollectedBatches {
    /// The result's schema.
    pub schema: SchemaRef,
    /// The rows kept.
    pub batches: Vec<RecordBatch>,
    /// How many rows the batches hold.
    pub row_count: u64,
    /// Set when rows existed past a cap (or the deadline cut a partial result).
    pub truncation: Option<Truncation>,
    /// Time from the start of execution to the last batch kept.
    pub elapsed: Duration,
}

/// Reads `stream` until it ends or a limit of `options` is reached, then drops it (which stops
/// the statement). Reading one row past `max_rows` tells a cut result from one that fits exactly.
///
/// A deadline reached with rows in hand returns them with [`Truncation::Timeout`]; reached with
/// none, it is an error. Cancellation is always an error.
pub async fn collect_capped(
    mut stream: BatchStream,
    options: &ExecOptions,
    database: &str,
    started: Instant,
) -> Result<CollectedBatches, DialectError> {
    let deadline = started + options.timeout;
    let mut batches = Vec::new();
    let mut rows: u64 = 0;
    let mut bytes: usize = 0;
    let mut truncation = None;
    // One timer and one cancellation waiter for the whole read, not a new pair per batch (a
    // 100,000-row result comes in about fifty batches).
    let count = |kept: u64| {
        if let Some(rows_read) = options.rows_read() {
            rows_read.add(kept);
        }
    };
    let cancelled = options.cancel.cancelled();
    let expired = tokio::time::sleep_until(deadline);
    tokio::pin!(cancelled, expired);
    loop {
        let next = tokio::select! {
            biased;
            () = &mut cancelled => {
                return Err(DialectError::Cancelled { database: database.to_owned() });
            }
            () = &mut expired => {
                options.cancel.cancel();
                if rows == 0 {
                    return Err(DialectError::Timeout { database: database.to_owned(), limit: options.timeout });
                }
                truncation = Some(Truncation::Timeout { limit: options.timeout });
                break;
            }
            next = stream.next() => next,
        };
        let batch = match next {
            None => break,
            Some(batch) => batch?,
        };
        if batch.num_rows() == 0 {
            continue;
        }
        let room = options.max_rows.saturating_sub(rows);
        let batch_rows = batch.num_rows() as u64;
        if batch_rows > room {
            truncation = Some(Truncation::RowCap {
                cap: options.max_rows,
            });
            if room > 0 {
                let kept = batch.slice(0, usize::try_from(room).unwrap_or(usize::MAX));
                rows += room;
                count(room);
                batches.push(kept);
            }
            break;
        }
        let size = batch.get_array_memory_size();
        if bytes.saturating_add(size) > options.max_bytes {
            truncation = Some(Truncation::ByteCap {
                cap: options.max_bytes as u64,
            });
            // Keep the share of this batch that fits, at least nothing, at most all but one row.
            let fits =
                (options.max_bytes - bytes) as u128 * batch_rows as u128 / size.max(1) as u128;
            let fits = usize::try_from(fits)
                .unwrap_or(0)
                .min(batch.num_rows().saturating_sub(1));
            if fits > 0 {
                rows += fits as u64;
                count(fits as u64);
                batches.push(batch.slice(0, fits));
            }
            break;
        }
        bytes += size;
        rows += batch_rows;
        batches.push(batch);
        count(batch_rows);
    }
    let schema = stream.read_schema();
    drop(stream);
    Ok(CollectedBatches {
        schema,
        batches,
        row_count: rows,
        truncation,
        elapsed: started.elapsed(),
    })
}
