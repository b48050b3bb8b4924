//! A deterministic demo database: a small e-commerce shop over two years (2023–2024).
//!
//! Six tables — customers, products, orders, order_items, payments, reviews — about 300 000
//! rows at [`DemoScale::Full`], generated in memory as Arrow batches (no downloads, the same on
//! every machine). Money is exact (`Decimal128`), timestamps have no zone, some values are NULL,
//! and review texts hold characters that break naive renderers (pipes, newlines, quotes, HTML,
//! emoji). The adapters load these batches into SQLite or DuckDB.

mod data;
mod rng;

use arrow_array::RecordBatch;

pub use data::generate;

/// How much demo data to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DemoScale {
    /// About 300 000 rows: for examples and benches.
    Full,
    /// About 3 000 rows: for tests.
    Small,
}

impl DemoScale {
    /// Customers, products, orders.
    pub(crate) fn sizes(self) -> (usize, usize, usize) {
        match self {
            DemoScale::Full => (5_000, 500, 60_000),
            DemoScale::Small => (100, 40, 600),
        }
    }
}

/// One table of the demo database.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct DemoTable {
    /// The table's name.
    pub name: &'static str,
    /// What it holds, for the table's comment.
    pub comment: &'static str,
    /// Column comments, by column name.
    pub column_comments: &'static [(&'static str, &'static str)],
    /// The rows.
    pub batches: Vec<RecordBatch>,
}

/// The demo tables at `scale`, for an adapter loading them as database `database` (a failure
/// to generate, which would be a bug, is an `Unsupported` error naming it).
#[cfg_attr(not(any(feature = "sqlite", feature = "duckdb")), allow(dead_code))]
pub(crate) fn tables_for(
    database: &str,
    scale: DemoScale,
) -> Result<Vec<DemoTable>, nao_core::DialectError> {
    generate(scale).map_err(|e| nao_core::DialectError::Unsupported {
        database: database.to_owned(),
        what: format!("generating the demo data failed: {e}"),
    })
}

impl DemoTable {
    /// Rows in the table.
    pub fn row_count(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }
}
