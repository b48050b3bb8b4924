//! The cost of the policy layer and of masking on execute_sql, side by side in one run:
//! 100,000 rows of a `people` table (id, email, phone, city, amount) from DuckDB in-process,
//! read (1) through the bare adapter, (2) through the policy layer with a policy that masks
//! nothing (the layer judges each statement again), (3) through the layer masking two columns
//! (email hashed, phone partial), and the whole execute_sql tool (guard, execute, store,
//! render) without and with the two masks. Medians of 61 interleaved rounds, so machine noise
//! hits every variant alike, and each ratio's median, min and max over the rounds.
//!
//! `cargo bench --bench governance --features duckdb` (with DUCKDB_LIB_DIR set, see README).
//! Targets (issue 13): the layer <= 1.10x, the layer with masking <= 1.3x. Then the masking
//! alone: hashing 100k short strings and 100k integers, and the value detector over 100k short
//! texts in which it finds nothing.
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs
)]

mod support;

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use support::interleaved;

use nao::core::guard::{MaskRule, Policy, check};
use nao::core::{
    Databases, Dialect, DialectExt, ExecOptions, GovernedDialect, Settings, ToolCall, ToolContext,
    ToolRegistry, tools,
};
use nao::dialects::duckdb::DuckDbDialect;
use serde_json::json;

const ROWS: u64 = 100_000;
const SQL: &str = "SELECT id, email, phone, city, amount FROM people";
const ROUNDS: usize = 61;

fn people() -> Arc<dyn Dialect> {
    let dialect = DuckDbDialect::in_memory("people", |conn| {
        conn.execute_batch(&format!(
            "CREATE TABLE people AS SELECT i AS id, \
             'user' || (i % 40000) || '@example.com' AS email, \
             '+44 20 7946 ' || lpad(CAST(i % 10000 AS VARCHAR), 4, '0') AS phone, \
             CASE i % 4 WHEN 0 THEN 'London' WHEN 1 THEN 'Paris' WHEN 2 THEN 'Berlin' \
             ELSE 'Madrid' END AS city, \
             (i % 1000) / 10.0 AS amount FROM range({ROWS}) t(i)"
        ))
    })
    .unwrap();
    Arc::new(dialect)
}

fn masking() -> Policy {
    Policy::default()
        .mask_column("people.email", MaskRule::Hash)
        .mask_column("people.phone", MaskRule::Partial { keep_last: 4 })
}

fn options() -> ExecOptions {
    ExecOptions::default()
        .with_max_rows(ROWS)
        .with_timeout(Duration::from_secs(600))
}

async fn read(database: &dyn Dialect) -> usize {
    let sql = check(SQL, database.sql_dialect(), &Policy::default()).unwrap();
    let result = database.query(&sql, &options()).await.unwrap();
    result.batches.iter().map(|b| b.num_rows()).sum()
}

fn context(database: &Arc<dyn Dialect>, policy: Policy) -> ToolContext {
    let settings = Settings::default()
        .with_policy(policy)
        .with_max_rows(ROWS)
        .with_timeout(Duration::from_secs(600));
    ToolContext::new(Databases::new().with(Arc::clone(database))).with_settings(settings)
}

async fn tool(registry: &ToolRegistry, ctx: &ToolContext) -> u64 {
    let call = ToolCall::new("b", "execute_sql", json!({ "sql_query": SQL }));
    let result = registry.call(&call, ctx).await;
    assert!(!result.is_error, "{}", result.content);
    black_box(result.content.len());
    result.row_count.unwrap_or(0)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // nothing for `cargo bench -- --list`
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let bare = people();
    let layer = GovernedDialect::new(Arc::clone(&bare), Arc::new(Policy::default()));
    let masked = GovernedDialect::new(Arc::clone(&bare), Arc::new(masking()));
    assert_eq!(rt.block_on(read(&masked)), ROWS as usize);
    let registry = tools::sql_tools();
    let plain_ctx = context(&bare, Policy::default());
    let masked_ctx = context(&bare, masking());
    assert_eq!(rt.block_on(tool(&registry, &masked_ctx)), ROWS);

    let rounds = interleaved(
        ROUNDS,
        &mut [
            &mut || {
                black_box(rt.block_on(read(bare.as_ref())));
            },
            &mut || {
                black_box(rt.block_on(read(&layer)));
            },
            &mut || {
                black_box(rt.block_on(read(&masked)));
            },
            &mut || {
                black_box(rt.block_on(tool(&registry, &plain_ctx)));
            },
            &mut || {
                black_box(rt.block_on(tool(&registry, &masked_ctx)));
            },
        ],
    );
    println!(
        "\ngovernance summary: {ROWS} rows, 5 columns, medians of {ROUNDS} interleaved rounds; \
         ratios: median, min, max per round"
    );
    println!(
        "  bare adapter                         {:>10.2?}",
        rounds.median(0)
    );
    println!(
        "  policy layer, nothing masked         {:>10.2?}   ratio to the bare adapter {} (target <= 1.10x)",
        rounds.median(1),
        rounds.ratio(1, 0)
    );
    println!(
        "  policy layer, 2 columns masked       {:>10.2?}   ratio to the bare adapter {} (target <= 1.3x)",
        rounds.median(2),
        rounds.ratio(2, 0)
    );
    println!(
        "  execute_sql, nothing masked          {:>10.2?}",
        rounds.median(3)
    );
    println!(
        "  execute_sql, 2 columns masked        {:>10.2?}   ratio to execute_sql without masks {}",
        rounds.median(4),
        rounds.ratio(4, 3)
    );
    masking_alone();
}

/// The masking functions on their own, medians of interleaved rounds.
fn masking_alone() {
    use nao::core::arrow::array::{ArrayRef, Int64Array, RecordBatch, StringArray};
    use nao::core::arrow::datatypes::{DataType, Field, Schema};
    use nao::core::masking::{MaskKey, ValueDetector, mask_array};

    let key = MaskKey::from_bytes([7; 16]);
    let texts: ArrayRef = Arc::new(StringArray::from_iter_values(
        (0..ROWS).map(|i| format!("user{i}@example.com")),
    ));
    let numbers: ArrayRef = Arc::new(Int64Array::from_iter_values(0..ROWS as i64));
    let notes = RecordBatch::try_new(
        Arc::new(Schema::new(vec![Field::new(
            "notes",
            DataType::Utf8,
            false,
        )])),
        vec![Arc::new(StringArray::from_iter_values((0..ROWS).map(
            |i| format!("order {i} shipped to Paris on 2024-03-01"),
        )))],
    )
    .unwrap();
    let detector = ValueDetector::all();
    let rounds = interleaved(
        ROUNDS,
        &mut [
            &mut || {
                black_box(mask_array(&texts, MaskRule::Hash, &key).unwrap());
            },
            &mut || {
                black_box(mask_array(&numbers, MaskRule::Hash, &key).unwrap());
            },
            &mut || {
                black_box(detector.scan_batch(&notes).unwrap());
            },
        ],
    );
    println!("\nmasking alone, {ROWS} values, medians of {ROUNDS} interleaved rounds");
    println!(
        "  hash, short strings                  {:>10.2?}",
        rounds.median(0)
    );
    println!(
        "  hash, int64                          {:>10.2?}",
        rounds.median(1)
    );
    println!(
        "  value detector, nothing to find      {:>10.2?}",
        rounds.median(2)
    );
}
