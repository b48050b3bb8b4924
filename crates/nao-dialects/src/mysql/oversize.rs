//! Rows too large for the call's byte cap: their size, MySQL's way around a wide column for
//! the error ([`crate::oversize`] writes the rest), and rows longer than the connection's
//! `max_allowed_packet`.
//!
//! The driver reads a whole row before handing it over; what bounds that is the connection's
//! `max_allowed_packet` (the server's, unless the URL sets one), not the cap.

use mysql_async::{Row, Value};
use nao_core::DialectError;
use nao_core::guard::SqlDialect;

use crate::oversize::WideColumnAdvice;
pub(super) use crate::oversize::row_limit;

/// MySQL's SQL for a column too wide to return: backquoted, in `SUBSTRING` or `LENGTH`.
pub(super) const ADVICE: WideColumnAdvice = WideColumnAdvice {
    quote: |name| SqlDialect::MySql.quote_identifier(name),
    instead: |column| format!("SUBSTRING({column}, 1, 1000) or LENGTH({column})"),
    unknown_column: |_| format!(".{WIDE_COLUMNS}"),
};

/// What to do about a row too wide when its widest column is not known.
const WIDE_COLUMNS: &str = " Select parts or measures of the wide columns instead: \
                            SUBSTRING(column, 1, 1000) or LENGTH(column)";

/// The bytes of `row`'s values, and its largest column (index, bytes).
pub(super) fn row_size(row: &Row) -> (usize, Option<(usize, usize)>) {
    let mut total = 0usize;
    let mut largest: Option<(usize, usize)> = None;
    for index in 0..row.len() {
        let bytes = match row.as_ref(index) {
            Some(Value::Bytes(bytes)) => bytes.len(),
            Some(Value::NULL) | None => 0,
            Some(_) => 8,
        };
        total = total.saturating_add(bytes);
        if largest.is_none_or(|(_, most)| bytes > most) {
            largest = Some((index, bytes));
        }
    }
    (total, largest)
}

/// Whether `error` is the driver refusing a row longer than the connection's
/// `max_allowed_packet`. mysql_common's codec error is not a public type of the driver, so its
/// message is what tells.
pub(super) fn is_packet_too_large(error: &mysql_async::Error) -> bool {
    matches!(error, mysql_async::Error::Io(_)) && error.to_string().contains("max_allowed_packet")
}

/// Row `row` (1-based) was longer than the connection's `max_allowed_packet`.
pub(super) fn packet_too_large(database: &str, row: u64) -> DialectError {
    DialectError::Unsupported {
        database: database.to_owned(),
        what: format!(
            "row {row} is longer than this connection's max_allowed_packet, so it cannot be \
             returned.{WIDE_COLUMNS}"
        ),
    }
}

#[cfg(test)]
mod tests {
    use arrow_schema::{DataType, Field, Schema};

    use super::*;
    use crate::oversize::human;

    #[test]
    fn the_message_names_the_row_the_column_the_cap_and_a_way_out() {
        let schema = Schema::new(vec![
            Field::new("id", DataType::Int32, true),
            Field::new("big`doc", DataType::Utf8, true),
        ]);
        let error =
            ADVICE.row_too_large("my", &schema, 2, 10_000_008, Some((1, 10_000_000)), 4 << 20);
        let text = error.to_string();
        assert!(text.contains("row 2 takes 9.5 MiB"), "{text}");
        assert!(text.contains("byte cap of 4 MiB (2 MiB)"), "{text}");
        assert!(
            text.contains("column `big``doc` alone holds 9.5 MiB"),
            "{text}"
        );
        assert!(text.contains("LENGTH(`big``doc`)"), "{text}");
        assert_eq!(human(512), "512 bytes");
        assert_eq!(row_limit(1), 1);
    }
}
