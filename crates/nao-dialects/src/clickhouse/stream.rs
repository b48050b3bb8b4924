//! Running one statement: a POST with the statement's limits and a query id of ours, the
//! response body parsed line by line into batches for the statement pump, and `KILL QUERY`
//! when the statement stops before its end.

use std::sync::Arc;
use std::time::Duration;

use nao_core::{BatchStream, DialectError, ExecOptions};

use super::batch::BatchBuilder;
use super::client::{HttpClient, Limits, RequestError, transport};
use super::errors::ServerError;
use super::lines::{LineTooLong, Lines};
use super::values::Zones;
use crate::pump::{self, Flow, Producer};

/// The longest line (one row) read: the byte cap, but never less than this.
const MIN_LINE_BYTES: usize = 1 << 20;

/// The most of an error the server writes after rows that is read.
const MAX_TRAILING_ERROR: usize = 64 << 10;

/// Starts `sql` and returns its batches as they arrive.
pub(super) async fn execute(
    client: Arc<HttpClient>,
    database: Arc<str>,
    zone: Arc<str>,
    sql: String,
    options: &ExecOptions,
) -> Result<BatchStream, DialectError> {
    let (producer, consumer) = pump::channel(&database, options);
    let statement = Statement {
        client,
        database,
        zone,
        sql,
        timeout: options.timeout,
        batch_size: options.batch_size.max(1),
    };
    tokio::spawn(statement.run(producer));
    consumer.stream().await
}

struct Statement {
    client: Arc<HttpClient>,
    database: Arc<str>,
    zone: Arc<str>,
    sql: String,
    timeout: Duration,
    batch_size: usize,
}

/// How reading the result ended.
enum Outcome {
    /// Every row was handed over.
    Complete,
    /// The caps were reached, or reading failed on our side: the query may still run.
    Cut,
    /// The server failed the query (reported to the reader): nothing runs any more.
    Failed,
}

impl Statement {
    async fn run(self, mut producer: Producer) {
        let query_id = self.client.query_id();
        let signal = producer.signal();
        let outcome = tokio::select! {
            biased;
            _ = signal.stopped() => None,
            outcome = self.read(&query_id, &mut producer) => Some(outcome),
        };
        // The response (and its connection) is dropped by now. The server goes on with a
        // query whose client left until it next writes, so it is told to stop; the stream
        // ends (at the cap) only after that, so its end means the query is done.
        match outcome {
            Some(Outcome::Complete) => producer.finish(),
            Some(Outcome::Failed) => {}
            Some(Outcome::Cut) => {
                self.client.kill(&query_id).await;
                producer.finish();
            }
            None => self.client.kill(&query_id).await,
        }
    }

    async fn read(&self, query_id: &str, producer: &mut Producer) -> Outcome {
        let limits = Limits {
            // The pump's deadline comes first; the server's own stops a query we lost.
            seconds: self.timeout.as_secs().saturating_add(2),
            rows: producer.row_limit(),
            // A backstop well past the pump's byte cap (ClickHouse counts its own column
            // sizes, which differ from Arrow's): the pump cuts first.
            bytes: u64::try_from(producer.max_bytes())
                .unwrap_or(u64::MAX)
                .saturating_mul(4)
                .saturating_add(64 << 20),
        };
        let response = match self.client.post(&self.sql, query_id, Some(limits)).await {
            Ok(response) => response,
            Err(error) => {
                let error = match error {
                    RequestError::Server(server) => {
                        server.into_dialect(&self.database, self.timeout, producer.stop_reason())
                    }
                    other => other.into_dialect(&self.database, self.timeout),
                };
                producer.fail(error).await;
                return Outcome::Failed;
            }
        };
        let mut body = response;
        let max_line = producer.max_bytes().max(MIN_LINE_BYTES);
        let mut lines = Lines::new(max_line);
        let mut header: Option<Vec<u8>> = None;
        let mut builder: Option<BatchBuilder> = None;
        // Flush a batch at this many text bytes, so that one batch stays near a quarter of
        // the byte cap whatever the row width.
        let flush_bytes = (producer.max_bytes() / 4).max(64 << 10);
        loop {
            let chunk = match body.chunk().await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => break,
                Err(error) => {
                    producer.fail(transport(&self.database, error)).await;
                    return Outcome::Cut;
                }
            };
            lines.push(&chunk);
            loop {
                let line = match lines.next_line() {
                    Ok(Some(line)) => line,
                    Ok(None) => break,
                    Err(LineTooLong) => {
                        let error = self.row_too_large(max_line, builder.as_ref());
                        producer.fail(error).await;
                        return Outcome::Cut;
                    }
                };
                if ServerError::starts(line) {
                    let mut text = line.to_vec();
                    text.push(b'\n');
                    return self
                        .trailing_error(text, &mut lines, &mut body, producer)
                        .await;
                }
                let Some(rows) = builder.as_mut() else {
                    // The two header lines: names, then types.
                    match header.take() {
                        None => header = Some(line.to_vec()),
                        Some(names) => {
                            let zones = Zones::new(Arc::clone(&self.zone));
                            let made =
                                BatchBuilder::from_header(&names, line, zones, self.batch_size);
                            match made {
                                Ok(made) => {
                                    if producer.schema(made.schema()).await.is_err() {
                                        return Outcome::Cut;
                                    }
                                    builder = Some(made);
                                }
                                Err(message) => {
                                    producer.fail(self.unreadable(message)).await;
                                    return Outcome::Cut;
                                }
                            }
                        }
                    }
                    continue;
                };
                if let Err(message) = rows.push_row(line) {
                    producer.fail(self.unreadable(message)).await;
                    return Outcome::Cut;
                }
                let wanted = producer.rows_left();
                if rows.rows() >= self.batch_size
                    || rows.bytes() >= flush_bytes
                    || rows.rows() as u64 >= wanted
                {
                    match self.flush(rows, producer).await {
                        Some(Flow::Continue) => {}
                        Some(Flow::Full) | None => return Outcome::Cut,
                    }
                }
            }
        }
        if !lines.rest().is_empty() {
            // A body that does not end in a newline: an error text, or a cut body.
            let text = lines.rest().to_vec();
            if ServerError::starts(&text) {
                return self
                    .trailing_error(text, &mut lines, &mut body, producer)
                    .await;
            }
            producer
                .fail(self.unreadable("the result ended in the middle of a row".to_owned()))
                .await;
            return Outcome::Cut;
        }
        match builder.as_mut() {
            Some(rows) => {
                if rows.rows() > 0 {
                    match self.flush(rows, producer).await {
                        Some(Flow::Continue) => {}
                        Some(Flow::Full) | None => return Outcome::Cut,
                    }
                }
            }
            None => {
                // No header: the statement returned no result set at all.
                let empty = Arc::new(arrow_schema::Schema::empty());
                if producer.schema(empty).await.is_err() {
                    return Outcome::Cut;
                }
            }
        }
        Outcome::Complete
    }

    /// Hands the rows built so far over; `None` when the statement must stop.
    async fn flush(&self, rows: &mut BatchBuilder, producer: &mut Producer) -> Option<Flow> {
        let batch = match rows.finish() {
            Ok(batch) => batch,
            Err(message) => {
                producer.fail(self.unreadable(message)).await;
                return None;
            }
        };
        let flow = producer.batch(batch).await.ok()?;
        if flow == Flow::Continue {
            // Hold at most one batch beside the reader's.
            producer.room().await.ok()?;
        }
        Some(flow)
    }

    /// An error the server wrote after rows (its status was 200 already): read the rest
    /// of it (bounded) and report it.
    async fn trailing_error(
        &self,
        mut text: Vec<u8>,
        lines: &mut Lines,
        body: &mut reqwest::Response,
        producer: &mut Producer,
    ) -> Outcome {
        text.extend_from_slice(lines.rest());
        while text.len() < MAX_TRAILING_ERROR {
            match body.chunk().await {
                Ok(Some(chunk)) => text.extend_from_slice(&chunk),
                _ => break,
            }
        }
        let error = ServerError::parse(None, &text).into_dialect(
            &self.database,
            self.timeout,
            producer.stop_reason(),
        );
        producer.fail(error).await;
        Outcome::Failed
    }

    fn unreadable(&self, message: String) -> DialectError {
        DialectError::Engine {
            database: self.database.to_string(),
            message: format!("unreadable result from the server: {message}"),
            code: None,
            source: None,
        }
    }

    fn row_too_large(&self, max_line: usize, builder: Option<&BatchBuilder>) -> DialectError {
        let columns = builder
            .map(|b| {
                b.schema()
                    .fields()
                    .iter()
                    .map(|f| f.name().as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        DialectError::ResourceLimit {
            database: self.database.to_string(),
            limit: format!("largest row of {}", crate::sizes::human(max_line)),
            message: format!("a row of the result is larger (columns: {columns})"),
            code: None,
        }
    }
}
