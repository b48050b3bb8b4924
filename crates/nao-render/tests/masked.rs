//! Columns the host's policy masked: the model is told, under the table, for each one.

mod common;

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use nao_render::{MASKED_FIELD_METADATA, RenderBudget, ResultFacts, render_page, render_result};

fn masked(field: Field, reason: &str) -> Field {
    field.with_metadata(HashMap::from([(
        MASKED_FIELD_METADATA.to_owned(),
        reason.to_owned(),
    )]))
}

/// id, email (hashed), note (redacted, with a hostile name and reason).
fn result() -> (Arc<Schema>, RecordBatch) {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        masked(
            Field::new("email", DataType::Utf8, true),
            "hashed by the host's policy (customers.email)",
        ),
        masked(
            Field::new("no`te|\n# x", DataType::Utf8, true),
            "redacted <b>by</b> policy\n- [x](http://evil)",
        ),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(Int64Array::from(vec![1, 2])) as ArrayRef,
            Arc::new(StringArray::from(vec!["h_3f9a", "h_3f9a"])),
            Arc::new(StringArray::from(vec!["[redacted]", "[redacted]"])),
        ],
    )
    .expect("valid batch");
    (schema, batch)
}

const EMAIL_NOTICE: &str = "- Column `email`: values masked (hashed by the host's policy \
    (customers.email)); they are not the stored values and cannot be turned back into them. A \
    hash keeps equal values equal, so GROUP BY, joins and COUNT(DISTINCT) on a hashed column \
    count as on the stored values; other masks (redacted, partial, null) do not. Never present \
    masked values as real ones.\n";
const NOTE_NOTICE: &str = "- Column ``no`te\\|\\n# x``: values masked (redacted &lt;b>by&lt;/b> \
    policy\\n- [x\\](http://evil)); they are not the stored values and cannot be turned back into \
    them. A hash keeps equal values equal, so GROUP BY, joins and COUNT(DISTINCT) on a hashed \
    column count as on the stored values; other masks (redacted, partial, null) do not. Never \
    present masked values as real ones.\n";

#[test]
fn each_masked_column_gets_one_notice_under_the_table() {
    let (schema, batch) = result();
    let text = render_result(
        &schema,
        &[batch],
        &ResultFacts::new("q_1", 2),
        &RenderBudget::default(),
    );
    assert_eq!(
        text,
        format!(
            "Query q_1: 2 rows, 3 columns.\n\n\
             | # | id: Int64 | email: Utf8 | no\\`te\\|\\n# x: Utf8 |\n\
             |---|---|---|---|\n\
             | 1 | 1 | h_3f9a | [redacted] |\n\
             | 2 | 2 | h_3f9a | [redacted] |\n\
             \n{EMAIL_NOTICE}{NOTE_NOTICE}"
        )
    );
}

#[test]
fn pages_repeat_the_notice_and_hidden_columns_do_not_get_one() {
    let (schema, batch) = result();
    let facts = ResultFacts::new("q_1", 2);
    let page = render_page(
        &schema,
        std::slice::from_ref(&batch),
        &facts,
        1,
        10,
        &RenderBudget::default(),
    );
    assert!(page.contains(EMAIL_NOTICE), "{page}");
    assert!(page.contains(NOTE_NOTICE), "{page}");
    assert!(
        page.contains("- Row 2 is the last row of the result.\n"),
        "{page}"
    );

    let narrow = RenderBudget::default().with_max_columns(2);
    let text = render_result(&schema, &[batch], &facts, &narrow);
    assert!(text.contains(EMAIL_NOTICE), "{text}");
    assert!(!text.contains("redacted &lt;b>"), "{text}");
    assert!(text.contains("1 more column not shown"), "{text}");
}

#[test]
fn an_empty_reason_still_says_the_values_are_masked() {
    let schema = Arc::new(Schema::new(vec![masked(
        Field::new("ssn", DataType::Utf8, true),
        "  ",
    )]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![Arc::new(StringArray::from(vec!["***"])) as ArrayRef],
    )
    .expect("valid batch");
    let text = render_result(
        &schema,
        &[batch],
        &ResultFacts::new("q_1", 1),
        &RenderBudget::default(),
    );
    assert!(
        text.contains("- Column `ssn`: values masked by the host's policy; they are not"),
        "{text}"
    );
}
