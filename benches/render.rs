//! Render throughput: a 40-row × 20-column page of mixed types, a 10,000-row result with the
//! default budget, and a 41-row against a 10,000,000-row input (the cost must not grow with the
//! rows that are not shown). Prints the cost per cell and the 10M/41 ratio after the groups.
#![allow(missing_docs)]

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, BooleanArray, Date32Array, Decimal128Array, DictionaryArray, Float64Array,
    Int32Array, Int64Array, ListArray, RecordBatch, StringArray, TimestampMicrosecondArray,
};
use arrow_schema::{DataType, Field, Schema};
use criterion::{Criterion, Throughput, criterion_group};
use nao::render::{RenderBudget, ResultFacts, render_result};

const COLUMNS: usize = 20;

/// `rows` rows of 20 mixed columns (ints, floats, decimals, text with escapes, dates,
/// timestamps with zone, booleans, dictionary text, lists, nulls), built from iterators.
fn mixed(rows: usize) -> RecordBatch {
    let n = rows as i64;
    let texts = [
        "Alice",
        "Bob | Co",
        "line\nbreak",
        "日本語",
        "<b>x</b>",
        "a longer product name",
    ];
    let columns: Vec<ArrayRef> = (0..COLUMNS)
        .map(|column| -> ArrayRef {
            match column % 10 {
                0 => Arc::new(Int64Array::from_iter_values(0..n)),
                1 => Arc::new(Float64Array::from_iter_values(
                    (0..n).map(|i| i as f64 / 7.0),
                )),
                2 => Arc::new(
                    Decimal128Array::from_iter_values((0..n).map(|i| i128::from(i) * 12_345))
                        .with_precision_and_scale(18, 2)
                        .expect("valid decimal"),
                ),
                3 => Arc::new(StringArray::from_iter_values(
                    (0..rows).map(|i| texts[i % texts.len()]),
                )),
                4 => Arc::new(Date32Array::from_iter_values(
                    (0..n).map(|i| 19_000 + i as i32),
                )),
                5 => Arc::new(
                    TimestampMicrosecondArray::from_iter_values(
                        (0..n).map(|i| 1_709_294_400_000_000 + i * 1_000_123),
                    )
                    .with_timezone("UTC"),
                ),
                6 => Arc::new(BooleanArray::from_iter((0..rows).map(|i| Some(i % 3 == 0)))),
                7 => Arc::new(
                    (0..rows)
                        .map(|i| ["north", "south", "east", "west"][i % 4])
                        .collect::<DictionaryArray<Int32Type>>(),
                ),
                8 => Arc::new(ListArray::from_iter_primitive::<Int32Type, _, _>(
                    (0..rows).map(|i| Some(vec![Some(i as i32), None, Some(3)])),
                )),
                _ => Arc::new(Int32Array::from_iter(
                    (0..rows).map(|i| (i % 5 != 0).then_some(i as i32)),
                )),
            }
        })
        .collect();
    let fields: Vec<Field> = columns
        .iter()
        .enumerate()
        .map(|(i, array)| Field::new(format!("col_{i}"), array.data_type().clone(), true))
        .collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).expect("valid batch")
}

/// Ten million rows of 3 primitive columns in 8192-row slices of one array each (cheap to
/// build; slices share the buffers).
fn ten_million() -> (Arc<Schema>, Vec<RecordBatch>) {
    const ROWS: usize = 10_000_000;
    const BATCH: usize = 8_192;
    let ids = Int64Array::from_iter_values(0..ROWS as i64);
    let amounts = Float64Array::from_iter_values((0..ROWS).map(|i| i as f64 * 0.25));
    let flags = Int32Array::from_iter_values((0..ROWS).map(|i| i as i32 % 7));
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("amount", DataType::Float64, false),
        Field::new("flag", DataType::Int32, false),
    ]));
    let batches = (0..ROWS)
        .step_by(BATCH)
        .map(|start| {
            let len = BATCH.min(ROWS - start);
            let columns: Vec<ArrayRef> = vec![
                Arc::new(ids.slice(start, len)),
                Arc::new(amounts.slice(start, len)),
                Arc::new(flags.slice(start, len)),
            ];
            RecordBatch::try_new(schema.clone(), columns).expect("valid batch")
        })
        .collect();
    (schema, batches)
}

fn first_rows(schema: &Arc<Schema>, batches: &[RecordBatch], rows: usize) -> Vec<RecordBatch> {
    let columns = batches[0]
        .columns()
        .iter()
        .map(|c| c.slice(0, rows))
        .collect();
    vec![RecordBatch::try_new(schema.clone(), columns).expect("valid batch")]
}

fn render(schema: &Schema, batches: &[RecordBatch], rows: u64) -> String {
    let facts = ResultFacts::new("q_7f3a9c21d0e4", rows);
    render_result(schema, batches, &facts, &RenderBudget::default())
}

fn bench_render(c: &mut Criterion) {
    let page = mixed(40);
    let large = mixed(10_000);
    let (schema, huge) = ten_million();
    let small = first_rows(&schema, &huge, 41);
    // What one page shows: with the default 8 KiB budget the 20-column page is cut by bytes.
    let shown = rows_shown(&render(page.schema_ref(), std::slice::from_ref(&page), 40));

    let mut group = c.benchmark_group("render");
    group.throughput(Throughput::Elements((40 * COLUMNS) as u64));
    group.bench_function("page_40x20_mixed_unbounded_bytes", |b| {
        let budget = RenderBudget::default().with_max_bytes(usize::MAX);
        let facts = ResultFacts::new("q_7f3a9c21d0e4", 40);
        b.iter(|| {
            render_result(
                page.schema_ref(),
                black_box(std::slice::from_ref(&page)),
                &facts,
                &budget,
            )
        })
    });
    group.throughput(Throughput::Elements((shown * COLUMNS) as u64));
    group.bench_function("page_40x20_mixed_default_budget", |b| {
        b.iter(|| {
            render(
                page.schema_ref(),
                black_box(std::slice::from_ref(&page)),
                40,
            )
        })
    });
    group.bench_function("result_10000x20_mixed_default_budget", |b| {
        b.iter(|| {
            render(
                large.schema_ref(),
                black_box(std::slice::from_ref(&large)),
                10_000,
            )
        })
    });
    group.throughput(Throughput::Elements(40 * 3));
    group.bench_function("rows_41x3", |b| {
        b.iter(|| render(&schema, black_box(&small), 41))
    });
    group.bench_function("rows_10000000x3", |b| {
        b.iter(|| render(&schema, black_box(&huge), 10_000_000))
    });
    group.finish();
}

fn rows_shown(text: &str) -> usize {
    text.lines()
        .filter(|line| line.starts_with("| ") && !line.starts_with("| # "))
        .count()
}

/// Time this thread has spent on a CPU, from Linux's `/proc/thread-self/schedstat` (so a
/// loaded machine does not inflate the figure); `None` elsewhere.
fn thread_cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

/// Mean wall-clock and on-CPU time of `run` over enough iterations to take about `target`.
fn mean(target: Duration, mut run: impl FnMut()) -> (Duration, Option<Duration>) {
    for _ in 0..100 {
        run();
    }
    let mut iterations = 1u32;
    loop {
        let cpu_start = thread_cpu_time();
        let start = Instant::now();
        for _ in 0..iterations {
            run();
        }
        let elapsed = start.elapsed();
        if elapsed >= target || iterations >= 1 << 24 {
            let cpu = cpu_start
                .zip(thread_cpu_time())
                .map(|(from, to)| (to - from) / iterations);
            return (elapsed / iterations, cpu);
        }
        iterations *= 2;
    }
}

/// `12.3 µs (on CPU 10.1 µs)`.
fn show(time: (Duration, Option<Duration>)) -> String {
    let micros = |duration: Duration| duration.as_secs_f64() * 1e6;
    match time.1 {
        Some(cpu) => format!("{:.1} µs (on CPU {:.1} µs)", micros(time.0), micros(cpu)),
        None => format!("{:.1} µs", micros(time.0)),
    }
}

/// Nanoseconds per cell, from the on-CPU time when known.
fn per_cell(time: (Duration, Option<Duration>), cells: usize) -> f64 {
    time.1.unwrap_or(time.0).as_nanos() as f64 / cells as f64
}

/// On-CPU time when known, else wall-clock.
fn best(time: (Duration, Option<Duration>)) -> f64 {
    time.1.unwrap_or(time.0).as_secs_f64()
}

/// Side-by-side figures from the same run: cost per cell, and 10M rows against 41.
#[allow(clippy::print_stdout)]
fn summary() {
    let target = Duration::from_millis(500);
    let page = mixed(40);
    let unbounded = RenderBudget::default().with_max_bytes(usize::MAX);
    let facts = ResultFacts::new("q_7f3a9c21d0e4", 40);
    let page_all = mean(target, || {
        black_box(render_result(
            page.schema_ref(),
            std::slice::from_ref(&page),
            &facts,
            &unbounded,
        ));
    });
    let default_text = render(page.schema_ref(), std::slice::from_ref(&page), 40);
    let shown = rows_shown(&default_text);
    let page_default = mean(target, || {
        black_box(render(page.schema_ref(), std::slice::from_ref(&page), 40));
    });
    let large = mixed(10_000);
    let large_default = mean(target, || {
        black_box(render(
            large.schema_ref(),
            std::slice::from_ref(&large),
            10_000,
        ));
    });
    let (schema, huge) = ten_million();
    let small = first_rows(&schema, &huge, 41);
    let small_time = mean(target, || {
        black_box(render(&schema, &small, 41));
    });
    let huge_time = mean(target, || {
        black_box(render(&schema, &huge, 10_000_000));
    });
    println!();
    println!("render summary (same run; per-cell costs and ratios use on-CPU time):");
    println!(
        "  40x20 mixed page, all 40 rows (no byte cap): {}, {:.0} ns/cell",
        show(page_all),
        per_cell(page_all, 40 * COLUMNS)
    );
    println!(
        "  40x20 mixed page, default 8 KiB budget ({shown} rows fit, {} bytes): {}, {:.0} ns/cell",
        default_text.len(),
        show(page_default),
        per_cell(page_default, shown * COLUMNS)
    );
    println!(
        "  10,000x20 mixed result, default budget: {} ({:.2}x the 40-row page)",
        show(large_default),
        best(large_default) / best(page_default)
    );
    println!(
        "  41 rows vs 10,000,000 rows (3 columns, {} batches), default budget: {} vs {}, \
         ratio 10M/41 = {:.2}",
        huge.len(),
        show(small_time),
        show(huge_time),
        best(huge_time) / best(small_time)
    );
}

criterion_group!(benches, bench_render);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    summary();
}
