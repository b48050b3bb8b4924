//! What the value detector found, for notices and field metadata.

use std::fmt;
use std::sync::Arc;

use arrow_schema::{Field, Schema, SchemaRef};
use nao_render::MASKED_FIELD_METADATA;

use super::ValueKind;

/// Values of one kind found and masked in one column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detection {
    column_index: usize,
    column: String,
    kind: ValueKind,
    values: usize,
}

impl Detection {
    /// The column's index in the result.
    pub fn column_index(&self) -> usize {
        self.column_index
    }

    /// The column's name.
    pub fn column(&self) -> &str {
        &self.column
    }

    /// What the values looked like.
    pub fn kind(&self) -> ValueKind {
        self.kind
    }

    /// How many values were masked (a cell with two addresses counts two).
    pub fn values(&self) -> usize {
        self.values
    }

    /// `3 values that looked like email addresses were replaced by [email]`, without the
    /// column (for the column's own metadata).
    fn what(&self) -> String {
        let (noun, verb) = if self.values == 1 {
            ("value", "was")
        } else {
            ("values", "were")
        };
        format!(
            "{} {noun} that looked like {} {verb} replaced by {}",
            self.values,
            self.kind.description(),
            self.kind.replacement()
        )
    }
}

/// `3 values in column `notes` looked like email addresses and were replaced by [email].`
impl fmt::Display for Detection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (noun, verb) = if self.values == 1 {
            ("value", "was")
        } else {
            ("values", "were")
        };
        write!(
            f,
            "{} {noun} in column `{}` looked like {} and {verb} replaced by {}.",
            self.values,
            self.column,
            self.kind.description(),
            self.kind.replacement()
        )
    }
}

/// Everything the value detector found in a result, by column and kind; merge the
/// detections of each batch of a stream with [`merge`](Detections::merge).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Detections {
    /// Ordered by column index, then kind.
    entries: Vec<Detection>,
}

impl Detections {
    /// Whether nothing was found.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The detections, by column index, then kind.
    pub fn iter(&self) -> std::slice::Iter<'_, Detection> {
        self.entries.iter()
    }

    /// How many values were masked in all.
    pub fn values(&self) -> usize {
        self.entries.iter().map(|d| d.values).sum()
    }

    /// Adds `values` values of `kind` in a column.
    pub(crate) fn add(
        &mut self,
        column_index: usize,
        column: &str,
        kind: ValueKind,
        values: usize,
    ) {
        if values == 0 {
            return;
        }
        let place = self
            .entries
            .binary_search_by(|d| (d.column_index, d.kind).cmp(&(column_index, kind)));
        match place {
            Ok(i) => self.entries[i].values += values,
            Err(i) => self.entries.insert(
                i,
                Detection {
                    column_index,
                    column: column.to_owned(),
                    kind,
                    values,
                },
            ),
        }
    }

    /// Adds another batch's detections to these.
    pub fn merge(&mut self, other: Detections) {
        for d in other.entries {
            self.add(d.column_index, &d.column, d.kind, d.values);
        }
    }

    /// `schema` with [`MASKED_FIELD_METADATA`] set on each column where values were found,
    /// saying what was replaced (appended to a reason the field already carries). The
    /// detector does not set it on batches itself, so that every batch of a stream keeps the
    /// stream's schema: mark the result's schema once the stream is read.
    pub fn mark_schema(&self, schema: &SchemaRef) -> SchemaRef {
        if self.entries.is_empty() {
            return schema.clone();
        }
        let mut fields: Vec<Arc<Field>> = schema.fields().iter().cloned().collect();
        for (index, field) in fields.iter_mut().enumerate() {
            let found: Vec<String> = self
                .entries
                .iter()
                .filter(|d| d.column_index == index)
                .map(Detection::what)
                .collect();
            if found.is_empty() {
                continue;
            }
            let reason = format!("by the host's value detector: {}", found.join("; "));
            let mut metadata = field.metadata().clone();
            let text = match metadata.get(MASKED_FIELD_METADATA) {
                Some(earlier) => format!("{earlier}; {reason}"),
                None => reason,
            };
            metadata.insert(MASKED_FIELD_METADATA.to_owned(), text);
            *field = Arc::new(field.as_ref().clone().with_metadata(metadata));
        }
        Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
    }
}

impl<'a> IntoIterator for &'a Detections {
    type Item = &'a Detection;
    type IntoIter = std::slice::Iter<'a, Detection>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter()
    }
}
