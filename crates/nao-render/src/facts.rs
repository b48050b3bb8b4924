//! What the engine knows about a result beyond its rows, so the renderer can say it.

use std::time::Duration;

/// Facts about a stored query result that the rows alone cannot tell: its id (for paging),
/// how many rows it holds, whether the engine stopped early and why, and the query's own
/// top-level `LIMIT`.
///
/// ```
/// use nao_render::{ResultFacts, Truncation};
///
/// let facts = ResultFacts::new("q_7f3a9c21d0e4", 1_000)
///     .with_truncation(Truncation::RowCap { cap: 1_000 })
///     .with_detected_limit(5_000);
/// assert_eq!(facts.total_rows, 1_000);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ResultFacts {
    /// The id under which the result is stored; the model passes it to `read_query_result`.
    pub query_id: String,
    /// Rows the engine returned and the store holds (all of the result unless
    /// [`truncation`](Self::truncation) says otherwise).
    pub total_rows: u64,
    /// Set when the engine stopped before the end of the result.
    pub truncation: Option<Truncation>,
    /// The query's own top-level `LIMIT`, if it has one (as found by the SQL guard).
    pub detected_limit: Option<u64>,
}

impl ResultFacts {
    /// Facts for a complete result of `total_rows` rows stored under `query_id`.
    pub fn new(query_id: impl Into<String>, total_rows: u64) -> Self {
        ResultFacts {
            query_id: query_id.into(),
            total_rows,
            truncation: None,
            detected_limit: None,
        }
    }

    /// Records that the engine stopped early.
    #[must_use]
    pub fn with_truncation(mut self, truncation: Truncation) -> Self {
        self.truncation = Some(truncation);
        self
    }

    /// Records the query's top-level `LIMIT`.
    #[must_use]
    pub fn with_detected_limit(mut self, limit: u64) -> Self {
        self.detected_limit = Some(limit);
        self
    }
}

/// Why the engine stopped before the end of a result: the rows held are a prefix, not all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Truncation {
    /// The row cap was reached and at least one more row existed.
    RowCap {
        /// The cap, in rows.
        cap: u64,
    },
    /// The byte cap on the stored result was reached and more rows existed.
    ByteCap {
        /// The cap, in bytes.
        cap: u64,
    },
    /// The query ran out of time; more rows may exist.
    Timeout {
        /// The time limit.
        limit: Duration,
    },
}
