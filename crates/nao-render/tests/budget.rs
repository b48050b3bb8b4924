//! Every budget edge: row cap, byte cap, wide rows, wide results, empty results, and the
//! notices that tell the model what it is not seeing.

mod common;

use std::sync::Arc;
use std::time::Duration;

use arrow_array::{ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray};
use common::{batch, render, render_with};
use nao_render::{RenderBudget, ResultFacts, Truncation, render_result};

fn numbers(count: i64) -> RecordBatch {
    batch(vec![(
        "n",
        Arc::new(Int64Array::from_iter_values(0..count)) as ArrayRef,
    )])
}

fn rows(range: std::ops::Range<i64>) -> String {
    range.map(|n| format!("| {} | {n} |\n", n + 1)).collect()
}

#[test]
fn exactly_at_the_row_cap_shows_everything() {
    let expected = format!(
        "Query q_1: 40 rows, 1 column.\n\n| # | n: Int64 |\n|---|---|\n{}",
        rows(0..40)
    );
    assert_eq!(render(&numbers(40)), expected);
}

#[test]
fn one_over_the_row_cap_says_how_to_page() {
    let expected = format!(
        "Query q_1: 41 rows, 1 column.\n\n| # | n: Int64 |\n|---|---|\n{}\n\
         - 1 more row (row 41) not shown: call read_query_result with query_id \"q_1\" and offset 40.\n",
        rows(0..40)
    );
    assert_eq!(render(&numbers(41)), expected);
}

#[test]
fn zero_rows_say_so_and_still_show_the_columns() {
    let b = batch(vec![
        (
            "id",
            Arc::new(Int64Array::from(Vec::<i64>::new())) as ArrayRef,
        ),
        ("name", Arc::new(StringArray::from(Vec::<&str>::new()))),
    ]);
    assert_eq!(
        render(&b),
        "Query q_1: 0 rows, 2 columns.\n\n\
         | # | id: Int64 | name: Utf8 |\n\
         |---|---|---|\n\
         \n\
         - The query returned no rows.\n"
    );
}

#[test]
fn a_zero_row_budget_shows_only_the_header() {
    let budget = RenderBudget::default().with_max_rows(0);
    assert_eq!(
        render_with(&numbers(3), &budget),
        "Query q_1: 3 rows, 1 column.\n\n| # | n: Int64 |\n|---|---|\n\n\
         - 3 more rows (rows 1–3) not shown: call read_query_result with query_id \"q_1\" and offset 0.\n"
    );
}

#[test]
fn exactly_at_the_byte_cap_and_one_byte_under() {
    let full = "Query q_1: 3 rows, 1 column.\n\n| # | n: Int64 |\n|---|---|\n\
                | 1 | 0 |\n| 2 | 1 |\n| 3 | 2 |\n";
    assert_eq!(full.len(), 87);
    let at_cap = RenderBudget::default().with_max_bytes(87);
    assert_eq!(render_with(&numbers(3), &at_cap), full);
    let one_under = RenderBudget::default().with_max_bytes(86);
    assert_eq!(
        render_with(&numbers(3), &one_under),
        "Query q_1: 3 rows, 1 column.\n\n| # | n: Int64 |\n|---|---|\n| 1 | 0 |\n| 2 | 1 |\n\n\
         - 1 more row (row 3) not shown (the output budget of 86 bytes is used): call \
         read_query_result with query_id \"q_1\" and offset 2.\n"
    );
}

#[test]
fn one_row_wider_than_the_byte_budget_is_shortened() {
    let wide = "x".repeat(1_000);
    let column = || Arc::new(StringArray::from(vec![wide.as_str(), wide.as_str()])) as ArrayRef;
    let b = batch(vec![("a", column()), ("b", column()), ("c", column())]);
    let budget = RenderBudget::default().with_max_bytes(200);
    let cell = format!("{}…{}", "x".repeat(9), "x".repeat(9));
    assert_eq!(
        render_with(&b, &budget),
        format!(
            "Query q_1: 2 rows, 3 columns.\n\n\
             | # | a: Utf8 | b: Utf8 | c: Utf8 |\n\
             |---|---|---|---|\n\
             | 1 | {cell} | {cell} | {cell} |\n\
             \n\
             - 1 more row (row 2) not shown (the output budget of 200 bytes is used): call \
             read_query_result with query_id \"q_1\" and offset 1.\n\
             - Row 1 is wider than the output budget of 200 bytes, so each of its values is cut \
             to 19 characters. Select fewer columns, or shorter expressions such as \
             substr(column, 1, 100), to see more.\n"
        )
    );
}

#[test]
fn five_hundred_columns_show_the_first_and_name_the_rest() {
    let columns: Vec<(String, ArrayRef)> = (0..500)
        .map(|i| {
            (
                format!("c{i}"),
                Arc::new(Int32Array::from(vec![i])) as ArrayRef,
            )
        })
        .collect();
    let b = batch(
        columns
            .iter()
            .map(|(name, array)| (name.as_str(), array.clone()))
            .collect(),
    );
    let header: String = (0..32).map(|i| format!(" c{i}: Int32 |")).collect();
    let values: String = (0..32).map(|i| format!(" {i} |")).collect();
    let hidden: String = (32..214).map(|i| format!("c{i}, ")).collect();
    assert_eq!(
        render(&b),
        format!(
            "Query q_1: 1 row, 500 columns; showing columns 1–32.\n\n\
             | # |{header}\n|---|{}\n| 1 |{values}\n\n\
             - 468 more columns not shown: {hidden}and 286 more. Select the columns you need by \
             name to see them.\n",
            "---|".repeat(32)
        )
    );
}

#[test]
fn engine_caps_and_the_query_limit_are_never_hidden() {
    let b = numbers(5);
    let budget = RenderBudget::default().with_max_rows(2);
    let render_facts = |facts: ResultFacts| {
        render_result(b.schema_ref(), std::slice::from_ref(&b), &facts, &budget)
    };
    let table = "| # | n: Int64 |\n|---|---|\n| 1 | 0 |\n| 2 | 1 |\n";
    let paging = "- 3 more rows (rows 3–5) not shown: call read_query_result with query_id \
                  \"q_9\" and offset 2.\n";
    assert_eq!(
        render_facts(ResultFacts::new("q_9", 5).with_truncation(Truncation::RowCap { cap: 5 })),
        format!(
            "Query q_9: 5 rows (incomplete), 1 column.\n\n{table}\n\
             - Incomplete result: the engine stopped at its row cap of 5 rows and more rows \
             exist, so 5 is not the total. To count or summarise all rows, use COUNT(*) or GROUP \
             BY in SQL.\n{paging}"
        )
    );
    assert_eq!(
        render_facts(
            ResultFacts::new("q_9", 5).with_truncation(Truncation::ByteCap { cap: 1_048_576 })
        ),
        format!(
            "Query q_9: 5 rows (incomplete), 1 column.\n\n{table}\n\
             - Incomplete result: the engine stopped at its size cap of 1048576 bytes after 5 \
             rows and more rows exist, so 5 is not the total. To count or summarise all rows, \
             use COUNT(*) or GROUP BY in SQL.\n{paging}"
        )
    );
    assert_eq!(
        render_facts(
            ResultFacts::new("q_9", 5).with_truncation(Truncation::Timeout {
                limit: Duration::from_millis(1_500)
            })
        ),
        format!(
            "Query q_9: 5 rows (incomplete), 1 column.\n\n{table}\n\
             - Incomplete result: the query reached its time limit of 1.5s after 5 rows; more \
             rows may exist, so 5 is not the total. Filter or aggregate in SQL to make the query \
             cheaper.\n{paging}"
        )
    );
    assert_eq!(
        render_facts(ResultFacts::new("q_9", 5).with_detected_limit(5)),
        format!(
            "Query q_9: 5 rows, 1 column.\n\n{table}\n\
             - LIMIT reached: the query's own LIMIT 5 returned exactly 5 rows, so more rows may \
             match; 5 is not a total. To count them, run SELECT COUNT(*) with the same FROM and \
             WHERE.\n{paging}"
        )
    );
    // A LIMIT the result did not reach says nothing.
    assert_eq!(
        render_facts(ResultFacts::new("q_9", 5).with_detected_limit(100)),
        format!("Query q_9: 5 rows, 1 column.\n\n{table}\n{paging}")
    );
}

#[test]
fn rows_are_read_across_batches_and_only_those_shown() {
    // Ten million rows in sliced batches: rendering reads the first rows only.
    let big = Int64Array::from_iter_values(0..10_000_000);
    let schema = numbers(0).schema();
    let batches: Vec<RecordBatch> = (0..10)
        .map(|i| {
            let slice = big.slice(i * 1_000_000, 1_000_000);
            RecordBatch::try_new(schema.clone(), vec![Arc::new(slice) as ArrayRef]).unwrap()
        })
        .collect();
    let small = vec![
        RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(Int64Array::from_iter_values(0..1))],
        )
        .unwrap(),
        RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(Int64Array::from_iter_values(1..3))],
        )
        .unwrap(),
    ];
    let budget = RenderBudget::default().with_max_rows(3);
    let text = render_result(
        &schema,
        &batches,
        &ResultFacts::new("q_1", 10_000_000),
        &budget,
    );
    assert_eq!(
        text,
        "Query q_1: 10000000 rows, 1 column.\n\n| # | n: Int64 |\n|---|---|\n\
         | 1 | 0 |\n| 2 | 1 |\n| 3 | 2 |\n\n\
         - 9999997 more rows (rows 4–10000000) not shown: call read_query_result with query_id \
         \"q_1\" and offset 3.\n"
    );
    let text = render_result(&schema, &small, &ResultFacts::new("q_1", 3), &budget);
    assert_eq!(
        text,
        "Query q_1: 3 rows, 1 column.\n\n| # | n: Int64 |\n|---|---|\n\
         | 1 | 0 |\n| 2 | 1 |\n| 3 | 2 |\n"
    );
}

#[test]
fn output_is_deterministic_and_bounded() {
    let long = "ab|\n".repeat(10_000);
    let column = Arc::new(StringArray::from(vec![long.as_str(); 100])) as ArrayRef;
    let b = batch(vec![("a", column.clone()), ("b", column)]);
    let first = render(&b);
    assert_eq!(first, render(&b));
    let notices_start = first.find("\n\n- ").unwrap();
    assert!(
        notices_start <= RenderBudget::default().max_bytes,
        "{notices_start}"
    );
}
