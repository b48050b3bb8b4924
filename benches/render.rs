//! Render throughput: a 40-row × 20-column page of mixed types, a 10,000-row result with the
//! default budget, and a 41-row against a 10,000,000-row input (the cost must not grow with the
//! rows that are not shown). After criterion's groups, a summary from the same run: the cost
//! per cell, and the ratios 10,000 rows / the 40-row page and 10M / 41 rows, from 21
//! interleaved rounds, as the medians of both sides and each ratio's median, min and max over
//! the rounds. A round renders each case in turn in tries of about 2 ms, five times, and keeps
//! each case's fastest try (so another process taking the core for a moment does not decide a
//! round); the figures are per render.
//!
//! `cargo bench --bench render`
#![allow(missing_docs)]

mod support;

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
use support::{Rounds, interleaved_fastest};

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

/// Interleaved rounds of the summary.
const ROUNDS: usize = 21;
/// Tries per case in one round; a round keeps each case's fastest.
const TRIES: usize = 5;
/// About how long one try of a case renders.
const TRY_TARGET: Duration = Duration::from_millis(2);

/// How many renders of `run` take about `target`, after a warm-up.
fn calibrate(target: Duration, run: &mut dyn FnMut()) -> u32 {
    for _ in 0..100 {
        run();
    }
    let mut iterations = 1u32;
    loop {
        let start = Instant::now();
        for _ in 0..iterations {
            run();
        }
        if start.elapsed() >= target || iterations >= 1 << 24 {
            return iterations;
        }
        iterations *= 2;
    }
}

/// Each of `runs` calibrated to [`TRY_TARGET`] per try, then timed in interleaved rounds (each
/// the fastest of [`TRIES`] tries); the times are per render.
fn compare(runs: &mut [&mut dyn FnMut()]) -> Rounds {
    let iterations: Vec<u32> = runs
        .iter_mut()
        .map(|run| calibrate(TRY_TARGET, &mut **run))
        .collect();
    let mut batches: Vec<Box<dyn FnMut() + '_>> = runs
        .iter_mut()
        .zip(&iterations)
        .map(|(run, &n)| {
            Box::new(move || {
                for _ in 0..n {
                    run();
                }
            }) as Box<dyn FnMut() + '_>
        })
        .collect();
    let mut refs: Vec<&mut dyn FnMut()> = batches.iter_mut().map(|run| &mut **run as _).collect();
    let rounds = interleaved_fastest(ROUNDS, TRIES, &mut refs);
    let per_render = (0..iterations.len())
        .map(|run| {
            rounds
                .samples(run)
                .iter()
                .map(|&time| time / iterations[run])
                .collect()
        })
        .collect();
    Rounds::from_samples(per_render)
}

/// Microseconds.
fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

/// Nanoseconds per cell.
fn per_cell(duration: Duration, cells: usize) -> f64 {
    duration.as_nanos() as f64 / cells as f64
}

/// Side-by-side figures from the same run: cost per cell, 10,000 rows against the 40-row page,
/// and 10M rows against 41.
#[allow(clippy::print_stdout)]
fn summary() {
    let page = mixed(40);
    let unbounded = RenderBudget::default().with_max_bytes(usize::MAX);
    let facts = ResultFacts::new("q_7f3a9c21d0e4", 40);
    let default_text = render(page.schema_ref(), std::slice::from_ref(&page), 40);
    let shown = rows_shown(&default_text);
    let large = mixed(10_000);
    let pages = compare(&mut [
        &mut || {
            black_box(render_result(
                page.schema_ref(),
                std::slice::from_ref(&page),
                &facts,
                &unbounded,
            ));
        },
        &mut || {
            black_box(render(page.schema_ref(), std::slice::from_ref(&page), 40));
        },
        &mut || {
            black_box(render(
                large.schema_ref(),
                std::slice::from_ref(&large),
                10_000,
            ));
        },
    ]);
    let (schema, huge) = ten_million();
    let small = first_rows(&schema, &huge, 41);
    let rows = compare(&mut [
        &mut || {
            black_box(render(&schema, &small, 41));
        },
        &mut || {
            black_box(render(&schema, &huge, 10_000_000));
        },
    ]);
    println!();
    println!(
        "render summary (same run; time per render, medians of {ROUNDS} interleaved rounds, \
         each the fastest of {TRIES} tries of ~{TRY_TARGET:?}; ratios: median, min, max per \
         round):"
    );
    println!(
        "  40x20 mixed page, all 40 rows (no byte cap): {:.1} µs, {:.0} ns/cell",
        micros(pages.median(0)),
        per_cell(pages.median(0), 40 * COLUMNS)
    );
    println!(
        "  40x20 mixed page, default 8 KiB budget ({shown} rows fit, {} bytes): {:.1} µs, {:.0} ns/cell",
        default_text.len(),
        micros(pages.median(1)),
        per_cell(pages.median(1), shown * COLUMNS)
    );
    println!(
        "  10,000x20 mixed result, default budget: {:.1} µs, ratio to the 40-row page {}",
        micros(pages.median(2)),
        pages.ratio(2, 1)
    );
    println!(
        "  41 rows vs 10,000,000 rows (3 columns, {} batches), default budget: {:.1} µs vs \
         {:.1} µs, ratio 10M/41 {}",
        huge.len(),
        micros(rows.median(0)),
        micros(rows.median(1)),
        rows.ratio(1, 0)
    );
}

criterion_group!(benches, bench_render);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    summary();
}
