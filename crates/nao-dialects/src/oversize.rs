//! Rows too large for the call's byte cap, for the server adapters: the most one row may take,
//! and the error written for the model (which row, how large, which column, and what to select
//! instead, in the engine's own SQL).
//!
//! One row may take at most half the byte cap ([`row_limit`]): while a row is converted the
//! adapter holds it twice (the driver's copy and the Arrow one) beside what the caller already
//! kept, so this is what keeps the adapter within about twice the cap whatever the row width.

use arrow_schema::Schema;
use nao_core::DialectError;

pub(crate) use crate::sizes::human;

/// The most bytes one row may take under a byte cap of `max_bytes`.
pub(crate) fn row_limit(max_bytes: usize) -> usize {
    (max_bytes / 2).max(1)
}

/// How an engine's SQL gets around a column too wide to return.
pub(crate) struct WideColumnAdvice {
    /// A column name quoted as the engine quotes identifiers.
    pub(crate) quote: fn(&str) -> String,
    /// What to select instead of the quoted column.
    pub(crate) instead: fn(&str) -> String,
    /// The end of the message when the widest column is not known (it follows the sentence
    /// that names the row and the cap).
    pub(crate) unknown_column: fn(&Schema) -> String,
}

impl WideColumnAdvice {
    /// Row `row` (1-based) takes `size` bytes; `column` is its largest column, when known
    /// (index, bytes).
    pub(crate) fn row_too_large(
        &self,
        database: &str,
        schema: &Schema,
        row: u64,
        size: usize,
        column: Option<(usize, usize)>,
        max_bytes: usize,
    ) -> DialectError {
        let head = format!(
            "row {row} takes {}, and one row may take at most half of this call's byte cap of {} \
             ({}), so it cannot be returned",
            human(size),
            human(max_bytes),
            human(row_limit(max_bytes))
        );
        let named = column.and_then(|(index, bytes)| Some((schema.fields().get(index)?, bytes)));
        let what = match named {
            Some((field, bytes)) => {
                let name = (self.quote)(field.name());
                format!(
                    "{head}; column {name} alone holds {}. Select a part or a measure of it \
                     instead: {}",
                    human(bytes),
                    (self.instead)(&name)
                )
            }
            None => format!("{head}{}", (self.unknown_column)(schema)),
        };
        DialectError::Unsupported {
            database: database.to_owned(),
            what,
        }
    }
}
