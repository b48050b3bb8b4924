//! Rows and messages too large for the call's byte cap: PostgreSQL's way around a wide column
//! for the error ([`crate::oversize`] writes the rest), and a message that is not a row.

use arrow_schema::Schema;
use nao_core::DialectError;
use nao_core::guard::SqlDialect;

pub(super) use crate::oversize::row_limit;
use crate::oversize::{WideColumnAdvice, human};

/// PostgreSQL's SQL for a column too wide to return: double-quoted, in `substring` or `length`,
/// an array in `cardinality` or a slice; without a known column, the row's columns are listed.
pub(super) const ADVICE: WideColumnAdvice = WideColumnAdvice {
    quote: |name| SqlDialect::Postgres.quote_identifier(name),
    instead: |column| {
        format!(
            "substring({column} from 1 for 1000), length({column}), or for an array \
             cardinality({column}) or ({column})[1:100]"
        )
    },
    unknown_column: columns_and_advice,
};

fn columns_and_advice(schema: &Schema) -> String {
    let names: Vec<String> = schema
        .fields()
        .iter()
        .map(|f| SqlDialect::Postgres.quote_identifier(f.name()))
        .collect();
    format!(
        "; its columns are {}. Select parts or measures of the wide ones instead: \
         substring(column from 1 for 1000), length(column), or for an array \
         cardinality(column)",
        names.join(", ")
    )
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
        let error =
            ADVICE.row_too_large("pg", &schema, 3, 20_000_014, Some((1, 20_000_000)), 4 << 20);
        let text = error.to_string();
        assert!(text.contains("row 3 takes 19.1 MiB"), "{text}");
        assert!(text.contains("byte cap of 4 MiB (2 MiB)"), "{text}");
        assert!(
            text.contains("column \"big \"\"doc\"\"\" alone holds 19.1 MiB"),
            "{text}"
        );
        assert!(text.contains("length(\"big \"\"doc\"\"\")"), "{text}");
        let unknown = ADVICE
            .row_too_large("pg", &schema, 1, 5000, None, 1000)
            .to_string();
        assert!(unknown.contains("\"id\", \"big \"\"doc\"\"\""), "{unknown}");
        assert_eq!(human(1023), "1023 bytes");
        assert_eq!(human(1536), "1.5 KiB");
        assert_eq!(row_limit(0), 1);
    }
}
