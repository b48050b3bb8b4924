//! A stored query result and its id.

use std::fmt;
use std::time::Duration;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use nao_render::{ResultFacts, Truncation};
use serde::{Deserialize, Serialize};

/// The id of a stored result: `q_` and 16 random base32 characters (80 bits), so a model
/// cannot guess another conversation's ids.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct QueryId(String);

const BASE32: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";

impl QueryId {
    /// A new random id.
    pub fn random() -> Self {
        let mut bytes = [0u8; 16];
        // The OS source does not fail on supported platforms; should it, fall back to a
        // time-and-counter mix so ids stay unique (they are then guessable, not repeated).
        if getrandom::fill(&mut bytes).is_err() {
            bytes = fallback_entropy();
        }
        let mut id = String::with_capacity(18);
        id.push_str("q_");
        id.extend(
            bytes
                .iter()
                .map(|b| char::from(BASE32[usize::from(b & 31)])),
        );
        QueryId(id)
    }

    /// Wraps an id the model sent back; any text is accepted and looked up as is.
    pub fn from_model(id: impl Into<String>) -> Self {
        QueryId(id.into())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn fallback_entropy() -> [u8; 16] {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mixed =
        nanos ^ (u128::from(count) << 64) ^ u128::from(count).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    mixed.to_le_bytes()
}

impl fmt::Display for QueryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A query's result as stored for paging and charting: Arrow batches plus what is known about
/// them.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct QueryResult {
    /// Its id.
    pub id: QueryId,
    /// The database it came from.
    pub database: String,
    /// The SQL that ran (after the guard's rewrite).
    pub sql: String,
    /// The schema.
    pub schema: SchemaRef,
    /// The rows kept, as the driver produced them (no copy).
    pub batches: Vec<RecordBatch>,
    /// Rows in `batches`.
    pub row_count: u64,
    /// Why the rows stop early, if they do.
    pub truncation: Option<Truncation>,
    /// The query's own top-level LIMIT, as the guard found it.
    pub detected_limit: Option<u64>,
    /// How long the query took.
    pub elapsed: Duration,
}

impl QueryResult {
    /// A result with no rows yet; fill `batches`, `row_count` and the rest.
    pub fn new(
        id: QueryId,
        database: impl Into<String>,
        sql: impl Into<String>,
        schema: SchemaRef,
    ) -> Self {
        QueryResult {
            id,
            database: database.into(),
            sql: sql.into(),
            schema,
            batches: Vec::new(),
            row_count: 0,
            truncation: None,
            detected_limit: None,
            elapsed: Duration::ZERO,
        }
    }

    /// The facts the renderer needs.
    pub fn facts(&self) -> ResultFacts {
        let mut facts = ResultFacts::new(self.id.as_str(), self.row_count);
        if let Some(t) = self.truncation {
            facts = facts.with_truncation(t);
        }
        if let Some(limit) = self.detected_limit {
            facts = facts.with_detected_limit(limit);
        }
        facts
    }

    /// Arrow memory held by the batches, in bytes.
    pub fn memory_size(&self) -> usize {
        self.batches
            .iter()
            .map(RecordBatch::get_array_memory_size)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_prefixed_random_base32() {
        let a = QueryId::random();
        let b = QueryId::random();
        assert_ne!(a, b);
        assert_eq!(a.as_str().len(), 18);
        assert!(a.as_str().starts_with("q_"));
        assert!(a.as_str()[2..].bytes().all(|c| BASE32.contains(&c)));
    }
}
