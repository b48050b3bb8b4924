//! Rows too large for the call's byte cap: their size, and the error for the model (which row,
//! how large, which column, and what to select instead).
//!
//! One row may take at most half the byte cap ([`row_limit`]): while a row is converted the
//! adapter holds it twice (the driver's copy and the Arrow one) beside what the caller already
//! kept, so this is what keeps the adapter within about twice the cap whatever the row width.
//! The driver itself reads a whole row before handing it over; what bounds that is the
//! connection's `max_allowed_packet` (the server's, unless the URL sets one), not the cap.

use arrow_schema::Schema;
use mysql_async::{Row, Value};
use nao_core::DialectError;

/// The most bytes one row may take under a byte cap of `max_bytes`.
pub(super) fn row_limit(max_bytes: usize) -> usize {
    (max_bytes / 2).max(1)
}

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

/// A size for people: whole MiB exactly, else one decimal, else bytes.
fn human(bytes: usize) -> String {
    const MIB: usize = 1 << 20;
    const KIB: usize = 1 << 10;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= MIB {
        format!("{:.1} MiB", bytes as f64 / MIB as f64)
    } else if bytes >= KIB {
        format!("{:.1} KiB", bytes as f64 / KIB as f64)
    } else {
        format!("{bytes} bytes")
    }
}

/// Row `row` (1-based) takes `size` bytes; `column` is its largest column (index, bytes).
pub(super) fn row_too_large(
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
    let what = match column.and_then(|(index, bytes)| Some((schema.fields().get(index)?, bytes))) {
        Some((field, bytes)) => {
            let name = field.name().replace('`', "``");
            format!(
                "{head}; column `{name}` alone holds {}. Select a part or a measure of it \
                 instead: SUBSTRING(`{name}`, 1, 1000) or LENGTH(`{name}`)",
                human(bytes)
            )
        }
        None => format!(
            "{head}. Select parts or measures of the wide columns instead: \
             SUBSTRING(column, 1, 1000) or LENGTH(column)"
        ),
    };
    DialectError::Unsupported {
        database: database.to_owned(),
        what,
    }
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
             returned. Select parts or measures of the wide columns instead: \
             SUBSTRING(column, 1, 1000) or LENGTH(column)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use arrow_schema::{DataType, Field};

    use super::*;

    #[test]
    fn the_message_names_the_row_the_column_the_cap_and_a_way_out() {
        let schema = Schema::new(vec![
            Field::new("id", DataType::Int32, true),
            Field::new("big`doc", DataType::Utf8, true),
        ]);
        let error = row_too_large("my", &schema, 2, 10_000_008, Some((1, 10_000_000)), 4 << 20);
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
