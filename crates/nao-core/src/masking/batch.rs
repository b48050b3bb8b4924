//! Masking the columns of every batch of a result, with one output schema for the stream.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{Field, Schema, SchemaRef};
use nao_guard::MaskRule;
use nao_render::MASKED_FIELD_METADATA;

use super::{MaskError, MaskKey, mask_array, masked_type};

/// One result column to mask: its index, the rule, and the reason the reader is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MaskedColumn {
    index: usize,
    rule: MaskRule,
    reason: String,
}

impl MaskedColumn {
    /// Column `index` masked with `rule` because of the policy's masked column `source`
    /// (`customers.email`); the reason reads `hashed by the host's policy (customers.email)`.
    pub fn new(index: usize, rule: MaskRule, source: &str) -> MaskedColumn {
        let how = match rule {
            MaskRule::Redact => "redacted".to_owned(),
            MaskRule::Hash => "hashed".to_owned(),
            MaskRule::Partial { keep_last } => {
                format!("hidden but for the last {keep_last} characters")
            }
            MaskRule::Null => "replaced by NULL".to_owned(),
            other => format!("masked ({})", other.name()),
        };
        MaskedColumn {
            index,
            rule,
            reason: format!("{how} by the host's policy ({source})"),
        }
    }

    /// The same column with the reason `reason` instead.
    pub fn with_reason(mut self, reason: impl Into<String>) -> MaskedColumn {
        self.reason = reason.into();
        self
    }

    /// The column's index in the result.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The rule.
    pub fn rule(&self) -> MaskRule {
        self.rule
    }

    /// The reason, set as the field's [`MASKED_FIELD_METADATA`].
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

/// Masks the batches of one result: made once from the result's schema (which gives the
/// output schema every batch will have), then applied to each batch.
///
/// Masked fields keep their name and other metadata, become nullable, take the type
/// [`masked_type`] gives, and carry [`MASKED_FIELD_METADATA`] with the reason. Columns that
/// are not masked are passed on as the same arrays, not copied.
///
/// A column named by several masks (an output that derives from two masked columns) gets the
/// strictest of their rules (`null`, then `redact`, then `hash`, then `partial` keeping the
/// fewest characters) and all their reasons.
///
/// ```
/// use std::sync::Arc;
/// use nao_core::arrow::array::{Int64Array, RecordBatch, StringArray};
/// use nao_core::arrow::datatypes::{DataType, Field, Schema};
/// use nao_core::guard::MaskRule;
/// use nao_core::masking::{BatchMasker, MaskKey, MaskedColumn};
///
/// let schema = Arc::new(Schema::new(vec![
///     Field::new("id", DataType::Int64, false),
///     Field::new("email", DataType::Utf8, false),
/// ]));
/// let masker = BatchMasker::new(
///     &schema,
///     [MaskedColumn::new(1, MaskRule::Hash, "customers.email")],
///     MaskKey::random()?,
/// )?;
/// let batch = RecordBatch::try_new(schema, vec![
///     Arc::new(Int64Array::from(vec![1, 2])),
///     Arc::new(StringArray::from(vec!["ada@example.com", "ada@example.com"])),
/// ])?;
/// let masked = masker.mask_batch(&batch)?;
/// assert_eq!(masked.schema(), *masker.output_schema());
/// let emails = masked.column(1).as_any().downcast_ref::<StringArray>().unwrap();
/// assert!(emails.value(0).starts_with("h:"));
/// assert_eq!(emails.value(0), emails.value(1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct BatchMasker {
    input: SchemaRef,
    output: SchemaRef,
    columns: Vec<(usize, MaskRule)>,
    key: MaskKey,
}

impl BatchMasker {
    /// A masker for batches of `input` that masks the columns `masks` name, hashing with
    /// `key`. Fails if a mask names a column `input` does not have.
    pub fn new(
        input: &SchemaRef,
        masks: impl IntoIterator<Item = MaskedColumn>,
        key: MaskKey,
    ) -> Result<BatchMasker, MaskError> {
        let mut merged: BTreeMap<usize, (MaskRule, Vec<String>)> = BTreeMap::new();
        for mask in masks {
            if mask.index >= input.fields().len() {
                return Err(MaskError::NoSuchColumn {
                    index: mask.index,
                    columns: input.fields().len(),
                });
            }
            let entry = merged
                .entry(mask.index)
                .or_insert_with(|| (mask.rule, Vec::new()));
            entry.0 = stricter(entry.0, mask.rule);
            if !entry.1.contains(&mask.reason) {
                entry.1.push(mask.reason);
            }
        }
        let mut fields: Vec<Arc<Field>> = input.fields().iter().cloned().collect();
        for (&index, (rule, reasons)) in &merged {
            let field = &input.fields()[index];
            let data_type =
                masked_type(*rule, field.data_type()).map_err(|e| e.in_column(field.name()))?;
            let mut metadata = field.metadata().clone();
            metadata.insert(MASKED_FIELD_METADATA.to_owned(), reasons.join("; "));
            fields[index] =
                Arc::new(Field::new(field.name(), data_type, true).with_metadata(metadata));
        }
        let output = Arc::new(Schema::new_with_metadata(fields, input.metadata().clone()));
        Ok(BatchMasker {
            input: input.clone(),
            output,
            columns: merged.into_iter().map(|(i, (rule, _))| (i, rule)).collect(),
            key,
        })
    }

    /// The schema of the batches this masker takes.
    pub fn input_schema(&self) -> &SchemaRef {
        &self.input
    }

    /// The schema of every batch [`mask_batch`](Self::mask_batch) returns.
    pub fn output_schema(&self) -> &SchemaRef {
        &self.output
    }

    /// Whether no column is masked (batches pass unchanged but for the schema).
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }

    /// `batch` with the masked columns masked, in the [`output_schema`](Self::output_schema).
    /// The batch must have the input schema's column count and, in masked columns, its types.
    pub fn mask_batch(&self, batch: &RecordBatch) -> Result<RecordBatch, MaskError> {
        let expected = self.input.fields().len();
        if batch.num_columns() != expected {
            return Err(MaskError::SchemaMismatch {
                reason: format!(
                    "the batch has {} columns, the result {expected}",
                    batch.num_columns()
                ),
            });
        }
        let mut columns: Vec<ArrayRef> = batch.columns().to_vec();
        for &(index, rule) in &self.columns {
            let field = &self.input.fields()[index];
            let column = &columns[index];
            if column.data_type() != field.data_type() {
                return Err(MaskError::SchemaMismatch {
                    reason: format!(
                        "column `{}` is {} in the batch, {} in the result",
                        field.name(),
                        column.data_type(),
                        field.data_type()
                    ),
                });
            }
            columns[index] =
                mask_array(column, rule, &self.key).map_err(|e| e.in_column(field.name()))?;
        }
        let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
        Ok(RecordBatch::try_new_with_options(
            self.output.clone(),
            columns,
            &options,
        )?)
    }
}

/// The stricter of two rules: the one that reveals less.
fn stricter(a: MaskRule, b: MaskRule) -> MaskRule {
    /// Higher reveals less. A rule this code does not know ranks highest, so it is kept and
    /// then refused by [`mask_array`] rather than weakened.
    fn rank(rule: MaskRule) -> (u8, u8) {
        match rule {
            MaskRule::Partial { keep_last } => (1, u8::MAX - keep_last),
            MaskRule::Hash => (2, 0),
            MaskRule::Redact => (3, 0),
            MaskRule::Null => (4, 0),
            _ => (5, 0),
        }
    }
    if rank(b) > rank(a) { b } else { a }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stricter_rule_wins() {
        let partial = |keep_last| MaskRule::Partial { keep_last };
        assert_eq!(stricter(partial(4), partial(2)), partial(2));
        assert_eq!(stricter(partial(0), MaskRule::Hash), MaskRule::Hash);
        assert_eq!(stricter(MaskRule::Redact, MaskRule::Hash), MaskRule::Redact);
        assert_eq!(stricter(MaskRule::Redact, MaskRule::Null), MaskRule::Null);
    }
}
