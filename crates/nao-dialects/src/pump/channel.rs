//! [`channel`]: the two halves of one statement, and what passes between them.

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use nao_core::{DialectError, ExecOptions};
use tokio::sync::mpsc;

use super::signal::Shared;
use super::{Consumer, Producer, StopSignal};

/// What the producer hands over: the schema once, then batches, or an error. The end is the
/// channel closing (with [`Shared::finished`] set when the producer said so).
#[derive(Debug)]
pub(super) enum Message {
    Schema(SchemaRef),
    Batch(RecordBatch),
    Failed(DialectError),
}

/// Makes the two halves of one statement on `database` from the caller's `options`: the
/// [`Producer`] for the adapter's worker (a thread or a task) and the [`Consumer`] whose
/// [`stream`](Consumer::stream) `execute` returns.
///
/// The time limit (`options.timeout`) counts from here; the row cap (`options.max_rows`, the
/// producer stops one row past it), the byte cap (`options.max_bytes`) and the cancellation
/// token (`options.cancel`) are taken from `options` too. Between the halves is a channel
/// holding one message, so a slow reader pauses the producer.
pub fn channel(database: &str, options: &ExecOptions) -> (Producer, Consumer) {
    let shared = Shared::new(database, options.cancel.clone(), options.timeout);
    let (tx, rx) = mpsc::channel(1);
    let producer = Producer::new(
        tx,
        StopSignal {
            shared: shared.clone(),
        },
        options,
    );
    let consumer = Consumer::new(rx, StopSignal { shared });
    (producer, consumer)
}
