//! The data the checks read: which fixtures an adapter's test loaded into its engine, and the
//! fixtures themselves, as SQL and as Arrow batches.

use std::sync::Arc;

use arrow_array::{ArrayRef, Decimal128Array, Int32Array, RecordBatch, StringArray};
use arrow_schema::{ArrowError, DataType, Field, Schema};

use crate::demo::{DemoScale, DemoTable};

use super::{FIXTURE_STATEMENTS, FIXTURE_TABLE};

/// Which fixtures the engine under test holds; the checks that read a fixture not loaded are
/// [skipped](super::Outcome::Skipped), not failed.
///
/// Two fixtures exist; a test loads them through a writable path of its own (a second
/// connection, the files the engine serves, the batches it registers), then opens the adapter
/// read-only on the same data:
/// - **the conformance table** `nao_conformance` (three rows: an integer key, a nullable text,
///   an exact `DECIMAL(12, 2)` with a NULL and a negative value): as SQL
///   ([`FIXTURE_STATEMENTS`]) or as one Arrow batch ([`conformance_batch`](Self::conformance_batch)).
///   Every core check reads it.
/// - **the demo shop** ([`crate::demo`]: six tables, comments on tables and columns, exact
///   money, dates, timestamps, booleans, hostile text): as Arrow batches
///   ([`demo_tables`](Self::demo_tables)). The type round-trip and catalogue comment checks
///   read it.
///
/// ```
/// use nao_dialects::conformance::Fixtures;
/// use nao_dialects::demo::DemoScale;
///
/// let both = Fixtures::conformance_table().and_demo_shop(DemoScale::Small);
/// assert!(both.has_conformance_table());
/// assert_eq!(both.demo_shop(), Some(DemoScale::Small));
/// let batch = Fixtures::conformance_batch()?;
/// assert_eq!(batch.num_rows(), 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fixtures {
    conformance_table: bool,
    demo: Option<DemoScale>,
}

impl Default for Fixtures {
    /// The conformance table only.
    fn default() -> Self {
        Fixtures::conformance_table()
    }
}

impl Fixtures {
    /// The engine holds the conformance table `nao_conformance`.
    pub fn conformance_table() -> Self {
        Fixtures {
            conformance_table: true,
            demo: None,
        }
    }

    /// The engine holds the demo shop at `scale` and not the conformance table (only the demo
    /// checks run).
    pub fn demo_shop_only(scale: DemoScale) -> Self {
        Fixtures {
            conformance_table: false,
            demo: Some(scale),
        }
    }

    /// The engine holds the demo shop at `scale` too.
    #[must_use]
    pub fn and_demo_shop(mut self, scale: DemoScale) -> Self {
        self.demo = Some(scale);
        self
    }

    /// Whether the engine holds the conformance table.
    pub fn has_conformance_table(&self) -> bool {
        self.conformance_table
    }

    /// The scale of the demo shop the engine holds, if it holds it.
    pub fn demo_shop(&self) -> Option<DemoScale> {
        self.demo
    }

    /// The conformance table's name.
    pub fn conformance_table_name() -> &'static str {
        FIXTURE_TABLE
    }

    /// The conformance table as portable SQL: a `CREATE TABLE` and an `INSERT`, for engines
    /// that take writes through a connection of the test's own.
    pub fn conformance_statements() -> &'static [&'static str] {
        FIXTURE_STATEMENTS
    }

    /// The conformance table as one Arrow batch, for engines that register batches or serve
    /// files written from them: `id Int32 NOT NULL`, `name Utf8`, `amount Decimal128(12, 2)`,
    /// the same rows as [`conformance_statements`](Self::conformance_statements).
    pub fn conformance_batch() -> Result<RecordBatch, ArrowError> {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int32, false),
            Field::new("name", DataType::Utf8, true),
            Field::new("amount", DataType::Decimal128(12, 2), true),
        ]));
        let amounts = Decimal128Array::from(vec![Some(1_050), None, Some(-25)])
            .with_precision_and_scale(12, 2)?;
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(vec![1, 2, 3])),
            Arc::new(StringArray::from(vec![Some("alpha"), Some("beta"), None])),
            Arc::new(amounts),
        ];
        RecordBatch::try_new(schema, columns)
    }

    /// The demo shop's tables at `scale` (with their comments), to load into the engine.
    pub fn demo_tables(scale: DemoScale) -> Result<Vec<DemoTable>, ArrowError> {
        crate::demo::generate(scale)
    }
}

#[cfg(test)]
mod tests {
    use arrow_array::Array;

    use super::*;

    #[test]
    fn the_batch_holds_the_rows_of_the_statements() {
        let batch = Fixtures::conformance_batch().expect("the fixture batch");
        assert_eq!(batch.num_rows(), 3);
        let amounts = batch
            .column(2)
            .as_any()
            .downcast_ref::<Decimal128Array>()
            .expect("a decimal column");
        let texts: Vec<Option<String>> = (0..3)
            .map(|row| (!amounts.is_null(row)).then(|| amounts.value_as_string(row)))
            .collect();
        assert_eq!(
            texts,
            [Some("10.50".to_owned()), None, Some("-0.25".to_owned())]
        );
        assert!(
            FIXTURE_STATEMENTS[1]
                .contains("(1, 'alpha', 10.50), (2, 'beta', NULL), (3, NULL, -0.25)")
        );
    }

    #[test]
    fn fixtures_say_what_is_loaded() {
        assert!(Fixtures::default().has_conformance_table());
        assert_eq!(Fixtures::default().demo_shop(), None);
        let demo = Fixtures::demo_shop_only(DemoScale::Small);
        assert!(!demo.has_conformance_table());
        assert_eq!(demo.demo_shop(), Some(DemoScale::Small));
    }
}
