//! The error for a row too large for the call's byte cap, written for the model: which row,
//! how large, which column, and what to select instead.
//!
//! One row may take at most half the byte cap ([`row_limit`]): while a row is converted the
//! adapter holds it twice (the driver's copy and the Arrow one) beside what the caller already
//! kept, so this is what keeps the adapter within about twice the cap whatever the row width.

use arrow_schema::Schema;
use nao_core::DialectError;

/// The most bytes one row may take under a byte cap of `max_bytes`.
pub(super) fn row_limit(max_bytes: usize) -> usize {
    (max_bytes / 2).max(1)
}

/// A size for people: whole MiB exactly, else one decimal, else bytes.
pub(super) fn human(bytes: usize) -> String {
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

/// Row `row` (1-based) takes `size` bytes on the wire; `column` is its largest column, when
/// known (index, bytes).
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
    let named = column.and_then(|(index, bytes)| {
        let field = schema.fields().get(index)?;
        Some((field.name().replace('"', "\"\""), bytes))
    });
    let what = match named {
        Some((name, bytes)) => format!(
            "{head}; column \"{name}\" alone holds {}. Select a part or a measure of it \
             instead: substring(\"{name}\" from 1 for 1000), length(\"{name}\"), or for an \
             array cardinality(\"{name}\") or (\"{name}\")[1:100]",
            human(bytes)
        ),
        None => {
            let names: Vec<String> = schema
                .fields()
                .iter()
                .map(|f| format!("\"{}\"", f.name().replace('"', "\"\"")))
                .collect();
            format!(
                "{head}; its columns are {}. Select parts or measures of the wide ones instead: \
                 substring(column from 1 for 1000), length(column), or for an array \
                 cardinality(column)",
                names.join(", ")
            )
        }
    };
    DialectError::Unsupported {
        database: database.to_owned(),
        what,
    }
}

/// A message other than a row was over the limit (an error or notice quoting a huge value).
pub(super) fn message_too_large(database: &str, size: usize, max_bytes: usize) -> DialectError {
    DialectError::Unsupported {
        database: database.to_owned(),
        what: format!(
            "the server sent a message of {}, more than this call's byte cap of {} allows (an \
             error or notice quoting a huge value?); select smaller values",
            human(size),
            human(max_bytes)
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
            Field::new("big \"doc\"", DataType::Utf8, true),
        ]);
        let error = row_too_large("pg", &schema, 3, 20_000_014, Some((1, 20_000_000)), 4 << 20);
        let text = error.to_string();
        assert!(text.contains("row 3 takes 19.1 MiB"), "{text}");
        assert!(text.contains("byte cap of 4 MiB (2 MiB)"), "{text}");
        assert!(
            text.contains("column \"big \"\"doc\"\"\" alone holds 19.1 MiB"),
            "{text}"
        );
        assert!(text.contains("length(\"big \"\"doc\"\"\")"), "{text}");
        let unknown = row_too_large("pg", &schema, 1, 5000, None, 1000).to_string();
        assert!(unknown.contains("\"id\", \"big \"\"doc\"\"\""), "{unknown}");
        assert_eq!(human(1023), "1023 bytes");
        assert_eq!(human(1536), "1.5 KiB");
        assert_eq!(row_limit(0), 1);
    }
}
