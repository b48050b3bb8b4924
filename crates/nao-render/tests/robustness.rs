//! No panic and bounded output for any budget, offset and schema mismatch.

mod common;

use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, BinaryArray, Decimal128Array, DictionaryArray, Float64Array, Int64Array, ListArray,
    NullArray, RecordBatch, StringArray, TimestampNanosecondArray,
};
use arrow_schema::{DataType, Field, Schema};
use common::batch;
use nao_render::{RenderBudget, ResultFacts, Truncation, render_page, render_result};

fn mixed() -> RecordBatch {
    let text = "ab|\n<x>日本👩‍💻\0".repeat(20);
    batch(vec![
        (
            "i",
            Arc::new(Int64Array::from(vec![Some(i64::MIN), None, Some(3)])) as ArrayRef,
        ),
        (
            "f",
            Arc::new(Float64Array::from(vec![f64::NAN, -0.0, 1e-300])),
        ),
        (
            "d",
            Arc::new(
                Decimal128Array::from(vec![Some(i128::MAX), None, Some(-1)])
                    .with_precision_and_scale(38, 38)
                    .expect("valid decimal"),
            ),
        ),
        (
            "s",
            Arc::new(StringArray::from(vec![Some(text.as_str()), Some(""), None])),
        ),
        (
            "b",
            Arc::new(BinaryArray::from(vec![
                Some(text.as_bytes()),
                None,
                Some(b""),
            ])),
        ),
        (
            "t",
            Arc::new(
                TimestampNanosecondArray::from(vec![i64::MIN, i64::MAX, 0]).with_timezone("+14:00"),
            ),
        ),
        (
            "l",
            Arc::new(ListArray::from_iter_primitive::<Int32Type, _, _>(vec![
                Some((0..500).map(Some).collect::<Vec<_>>()),
                None,
                Some(vec![]),
            ])),
        ),
        (
            "dict",
            Arc::new(
                vec![Some("x"), None, Some("y")]
                    .into_iter()
                    .collect::<DictionaryArray<Int32Type>>(),
            ),
        ),
        ("n", Arc::new(NullArray::new(3))),
    ])
}

#[test]
fn every_small_budget_renders_without_panic_and_within_bounds() {
    let b = mixed();
    let batches = [b.clone(), b.slice(1, 2), b.slice(0, 0)];
    let facts = ResultFacts::new("q_1", 5).with_truncation(Truncation::RowCap { cap: 5 });
    for max_rows in [0, 1, 2, 40] {
        for max_bytes in [0, 1, 64, 300, 1_000, 100_000] {
            for max_cell_chars in [0, 1, 2, 7, 255] {
                for max_columns in [0, 1, 4, 100] {
                    let budget = RenderBudget::default()
                        .with_max_rows(max_rows)
                        .with_max_bytes(max_bytes)
                        .with_max_cell_chars(max_cell_chars)
                        .with_max_columns(max_columns);
                    let text = render_result(b.schema_ref(), &batches, &facts, &budget);
                    assert!(text.starts_with("Query q_1: 5 rows (incomplete)"), "{text}");
                    let rows = text
                        .lines()
                        .filter(|l| l.starts_with("| ") && !l.starts_with("| # "))
                        .count();
                    assert!(rows <= max_rows, "{rows} rows for {budget:?}");
                    // Rows beyond the first only when they fit the byte budget.
                    if rows > 1 {
                        let table_end = text.find("\n\n- ").unwrap_or(text.len());
                        assert!(table_end < max_bytes, "{table_end} > {max_bytes}");
                    }
                    for offset in [0, 1, 4, 5, 6, u64::MAX] {
                        for limit in [0, 1, 3, usize::MAX] {
                            let page = render_page(
                                b.schema_ref(),
                                &batches,
                                &facts,
                                offset,
                                limit,
                                &budget,
                            );
                            assert!(page.starts_with("Query q_1"), "{page}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn a_schema_wider_than_its_batches_and_no_columns_at_all() {
    let b = mixed();
    let mut fields: Vec<Field> = b
        .schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    fields.push(Field::new("extra", DataType::Utf8, true));
    let wider = Schema::new(fields);
    let facts = ResultFacts::new("q_1", 1);
    let budget = RenderBudget::default().with_max_cell_chars(3);
    let text = render_result(
        &wider,
        std::slice::from_ref(&b.slice(2, 1)),
        &facts,
        &budget,
    );
    assert_eq!(
        text,
        "Query q_1: 1 row, 10 columns.\n\n\
         | # | i: Int64 | f: Float64 | d: Decimal128(38, 38) | s: Utf8 | b: Binary | t: Timestamp(ns, +14:00) | l: List(Int32) | dict: Dictionary(Int32, Utf8) | n: Null | extra: Utf8 |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n\
         | 1 | 3 | 1e-300 | -0.00000000000000000000000000000000000001 | ∅ | 0x (0 bytes) | 1970-01-01T14:00:00+14:00 | [] | y | ∅ | (missing) |\n\
         \n\
         - ∅ is NULL (a text value that is exactly ∅ shows as \\u{2205}).\n"
    );
    let empty = RecordBatch::try_new_with_options(
        Arc::new(Schema::empty()),
        vec![],
        &arrow_array::RecordBatchOptions::new().with_row_count(Some(2)),
    )
    .expect("valid batch");
    let text = render_result(
        &Schema::empty(),
        &[empty],
        &ResultFacts::new("q_2", 2),
        &RenderBudget::default(),
    );
    assert_eq!(
        text,
        "Query q_2: 2 rows, 0 columns.\n\n| # |\n|---|\n| 1 |\n| 2 |\n"
    );
}
