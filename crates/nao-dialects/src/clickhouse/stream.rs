//! Running one statement: a POST with the statement's limits and a query id of ours, the
//! response body parsed line by line (TabSeparated) or decoded (ArrowStream) into batches for
//! the statement pump, and `KILL QUERY` when the statement stops before its end.

use std::sync::Arc;
use std::time::Duration;

use nao_core::{BatchStream, DialectError, ExecOptions};

use super::arrow_stream::{self, ArrowStreamReader};
use super::batch::BatchBuilder;
use super::client::{HttpClient, Limits, Output, RequestError, transport};
use super::errors::ServerError;
use super::escape;
use super::lines::{LineTooLong, Lines};
use super::types::ChType;
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
    arrow: bool,
) -> Result<BatchStream, DialectError> {
    let (producer, consumer) = pump::channel(&database, options);
    let statement = Statement {
        client,
        database,
        zone,
        sql,
        arrow,
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
    /// Whether to ask for ArrowStream (the server writes it).
    arrow: bool,
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
        if self.arrow
            && let Some(columns) = self.describe().await
        {
            return self.read_arrow(query_id, limits, &columns, producer).await;
        }
        self.read_text(query_id, limits, producer).await
    }

    /// Posts the statement; an error answer is reported to the reader (`None`).
    async fn send(
        &self,
        query_id: &str,
        limits: Limits,
        output: Output,
        producer: &mut Producer,
    ) -> Option<reqwest::Response> {
        match self
            .client
            .post(&self.sql, query_id, Some(limits), output)
            .await
        {
            Ok(response) => Some(response),
            Err(error) => {
                let error = match error {
                    RequestError::Server(server) => {
                        server.into_dialect(&self.database, self.timeout, producer.stop_reason())
                    }
                    other => other.into_dialect(&self.database, self.timeout),
                };
                producer.fail(error).await;
                None
            }
        }
    }

    /// The result's columns and their ClickHouse types, from `DESCRIBE (query)`; `None`
    /// when the server cannot describe it (the text path then runs it and reports why).
    async fn describe(&self) -> Option<Vec<(String, String)>> {
        let sql = format!(
            "DESCRIBE (\n{}\n) FORMAT TabSeparated",
            self.sql.trim().trim_end_matches(';')
        );
        let body = self.client.fetch(&sql, 1 << 20).await.ok()?;
        let body = String::from_utf8_lossy(&body);
        body.lines()
            .map(|line| {
                let mut fields = line.split('\t');
                let unescape =
                    |f: &str| String::from_utf8_lossy(&escape::unescape(f.as_bytes())).into_owned();
                Some((unescape(fields.next()?), unescape(fields.next()?)))
            })
            .collect()
    }

    /// Reads an ArrowStream answer.
    async fn read_arrow(
        &self,
        query_id: &str,
        limits: Limits,
        columns: &[(String, String)],
        producer: &mut Producer,
    ) -> Outcome {
        let output = Output::Arrow(self.batch_size);
        let Some(mut body) = self.send(query_id, limits, output, producer).await else {
            return Outcome::Failed;
        };
        let types: Vec<String> = columns.iter().map(|(_, t)| t.clone()).collect();
        let max_block = producer.max_bytes().max(MIN_LINE_BYTES);
        let mut reader = ArrowStreamReader::new(&types, &self.zone, max_block);
        let mut announced = false;
        // The last two chunks (shared, not copied): where an error the server wrote into the
        // answer is looked for when decoding fails.
        let mut recent: [Option<bytes::Bytes>; 2] = [None, None];
        let tail = |recent: &[Option<bytes::Bytes>; 2]| -> Vec<u8> {
            recent
                .iter()
                .flatten()
                .flat_map(|c| c.iter().copied())
                .collect()
        };
        loop {
            let chunk = match body.chunk().await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => break,
                Err(error) => {
                    producer.fail(transport(&self.database, error)).await;
                    return Outcome::Cut;
                }
            };
            recent = [recent[1].take(), Some(chunk.clone())];
            let batches = match reader.push(chunk) {
                Ok(batches) => batches,
                Err(message) => {
                    return self
                        .arrow_failure(message, tail(&recent), &mut body, max_block, producer)
                        .await;
                }
            };
            if !announced && let Ok(Some(schema)) = reader.schema() {
                if producer.schema(schema).await.is_err() {
                    return Outcome::Cut;
                }
                announced = true;
            }
            for batch in batches {
                match producer.batch(batch).await {
                    Ok(Flow::Continue) => {}
                    Ok(Flow::Full) | Err(_) => return Outcome::Cut,
                }
            }
            if producer.room().await.is_err() {
                return Outcome::Cut;
            }
        }
        if let Err(message) = reader.finish() {
            return self
                .arrow_failure(message, tail(&recent), &mut body, max_block, producer)
                .await;
        }
        if !announced {
            // Only when the answer held no schema message: the described columns.
            let fields: Vec<arrow_schema::Field> = columns
                .iter()
                .map(|(name, ty)| {
                    ChType::parse(ty).map_or_else(
                        || arrow_schema::Field::new(name, arrow_schema::DataType::Utf8, true),
                        |t| t.field(name, &self.zone),
                    )
                })
                .collect();
            let schema = reader
                .schema()
                .ok()
                .flatten()
                .unwrap_or_else(|| Arc::new(arrow_schema::Schema::new(fields)));
            if producer.schema(schema).await.is_err() {
                return Outcome::Cut;
            }
        }
        Outcome::Complete
    }

    /// An ArrowStream answer that stopped decoding: an error the server wrote into it after
    /// its status went out (read from its tail), a block past the cap, or garbage.
    async fn arrow_failure(
        &self,
        message: String,
        mut tail: Vec<u8>,
        body: &mut reqwest::Response,
        max_block: usize,
        producer: &mut Producer,
    ) -> Outcome {
        if message == arrow_stream::TOO_LARGE {
            producer
                .fail(self.too_large(max_block, "a block", ""))
                .await;
            return Outcome::Cut;
        }
        while tail.len() < MAX_TRAILING_ERROR {
            match body.chunk().await {
                Ok(Some(chunk)) => tail.extend_from_slice(&chunk),
                _ => break,
            }
        }
        let start = tail.windows(6).position(|w| w == b"Code: ");
        match start {
            Some(start) if ServerError::starts(&tail[start..]) => {
                let error = ServerError::parse(None, &tail[start..]).into_dialect(
                    &self.database,
                    self.timeout,
                    producer.stop_reason(),
                );
                producer.fail(error).await;
                Outcome::Failed
            }
            _ => {
                producer.fail(self.unreadable(message)).await;
                Outcome::Cut
            }
        }
    }

    /// Reads a TabSeparatedWithNamesAndTypes answer.
    async fn read_text(&self, query_id: &str, limits: Limits, producer: &mut Producer) -> Outcome {
        let Some(response) = self.send(query_id, limits, Output::Text, producer).await else {
            return Outcome::Failed;
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
                        let columns = builder.as_ref().map(column_names).unwrap_or_default();
                        let error = self.too_large(max_line, "a row", &columns);
                        producer.fail(error).await;
                        return Outcome::Cut;
                    }
                };
                if ServerError::starts(line) {
                    let mut text = line.to_vec();
                    text.push(b'\n');
                    text.extend_from_slice(lines.rest());
                    return self.trailing_error(text, &mut body, producer).await;
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
                return self.trailing_error(text, &mut body, producer).await;
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
        body: &mut reqwest::Response,
        producer: &mut Producer,
    ) -> Outcome {
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

    /// A row or block past the byte cap (`what`), with the result's columns if known.
    fn too_large(&self, max: usize, what: &str, columns: &str) -> DialectError {
        let columns = if columns.is_empty() {
            String::new()
        } else {
            format!(" (columns: {columns})")
        };
        DialectError::ResourceLimit {
            database: self.database.to_string(),
            limit: format!("largest row or block of {}", crate::sizes::human(max)),
            message: format!("{what} of the result is larger{columns}"),
            code: None,
        }
    }
}

/// The result's column names, for a message.
fn column_names(builder: &BatchBuilder) -> String {
    builder
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect::<Vec<_>>()
        .join(", ")
}
