//! What can go wrong when masking.

use arrow_schema::{ArrowError, DataType};

/// Why a column could not be masked, or a masking key could not be made.
///
/// A masking failure must stop the result from reaching its reader: the policy layer turns it
/// into a failed query rather than showing the values unmasked.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum MaskError {
    /// The text given for a [`MaskKey`](super::MaskKey) is not a usable key.
    #[error("invalid masking key: {reason}")]
    InvalidKey {
        /// What is wrong with it.
        reason: String,
    },
    /// The operating system's random source failed, so no random key could be made.
    #[error("no masking key: the operating system's random source failed: {message}")]
    Randomness {
        /// The random source's own message.
        message: String,
    },
    /// The rule cannot be applied to this type of column.
    #[error("a {data_type} column cannot be masked with the rule {rule}: {reason}")]
    Unsupported {
        /// The column's Arrow type.
        data_type: DataType,
        /// The rule's name (`hash`, `partial`, …).
        rule: &'static str,
        /// Why.
        reason: String,
    },
    /// A mask names a column the result does not have.
    #[error("a mask names column {index}, but the result has {columns} columns")]
    NoSuchColumn {
        /// The column index the mask names.
        index: usize,
        /// How many columns the result has.
        columns: usize,
    },
    /// A batch does not have the schema the masker was made for.
    #[error("a batch does not fit the result's schema: {reason}")]
    SchemaMismatch {
        /// What differs.
        reason: String,
    },
    /// Masking one column failed.
    #[error("column `{column}`: {source}")]
    Column {
        /// The column's name.
        column: String,
        /// The failure.
        #[source]
        source: Box<MaskError>,
    },
    /// Arrow refused to build the masked batch.
    #[error("the masked batch could not be built: {source}")]
    Arrow {
        /// Arrow's error (`nao_core::arrow::datatypes::ArrowError`).
        #[source]
        source: ArrowError,
    },
}

impl MaskError {
    /// This error, said of the column `column`.
    pub(crate) fn in_column(self, column: &str) -> MaskError {
        MaskError::Column {
            column: column.to_owned(),
            source: Box::new(self),
        }
    }
}

impl From<ArrowError> for MaskError {
    fn from(source: ArrowError) -> Self {
        MaskError::Arrow { source }
    }
}
