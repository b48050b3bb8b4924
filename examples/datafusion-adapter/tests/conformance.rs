//! The DataFusion adapter passes nao's conformance suite: on tables registered from Arrow
//! batches (the conformance table and the demo shop), from a Parquet file and from a CSV file;
//! and its gate 2 (`SQLOptions`) refuses what the guard would, at the engine.
#![cfg(feature = "datafusion")]

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use datafusion_adapter::DataFusionDialect;
use datafusion_adapter::datafusion::arrow::array::{
    Array, Decimal128Array, RecordBatch, TimestampMicrosecondArray,
};
use datafusion_adapter::datafusion::arrow::datatypes::{DataType, Field, Schema, TimeUnit};
use datafusion_adapter::datafusion::parquet::arrow::ArrowWriter;
use nao_dialects::conformance::{Fixtures, Profile};
use nao_dialects::core::guard::ReadOnlySql;
use nao_dialects::core::{Dialect, DialectError, DialectExt, ExecOptions};
use nao_dialects::demo::DemoScale;
use tokio_util::sync::CancellationToken;

/// DataFusion's `range(n)` yields `value`. The slow query sums five billion values: seconds in
/// a release build, far longer in a debug one, and it yields to tokio between batches, so a
/// stop reaches it at once (a cross join may compute for seconds between yields).
fn profile() -> Profile {
    Profile::range_function("value")
        .with_slow_sql("SELECT sum(value % 7) AS s FROM range(5000000000)")
}

/// Writes `bytes` to `name` in the directory cargo keeps for this crate's integration tests,
/// through a file of this call's own renamed into place: tests that run at once write the same
/// bytes, and a reader never sees half a file.
fn fixture_file(name: &str, bytes: &[u8]) -> PathBuf {
    static WRITES: AtomicUsize = AtomicUsize::new(0);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join(name);
    let n = WRITES.fetch_add(1, Ordering::Relaxed);
    let partial = dir.join(format!("{name}.{}.{n}.partial", std::process::id()));
    std::fs::write(&partial, bytes).expect("write the fixture file");
    std::fs::rename(&partial, &path).expect("move the fixture file into place");
    path
}

/// The conformance table and the demo shop, registered from Arrow batches.
async fn from_batches() -> DataFusionDialect {
    let fixture = Fixtures::conformance_batch().expect("the fixture batch");
    DataFusionDialect::builder("datafusion_batches")
        .and_then(|b| b.batches("nao_conformance", fixture.schema(), vec![fixture]))
        .and_then(|b| b.demo_shop(DemoScale::Small))
        .expect("register the fixtures")
        .build()
}

mod batches {
    nao_dialects::conformance_tests! {
        dialect: super::from_batches(),
        fixtures: nao_dialects::conformance::Fixtures::conformance_table()
            .and_demo_shop(nao_dialects::demo::DemoScale::Small),
        profile: super::profile(),
    }
}

/// The conformance table written as Parquet and registered from the file, beside the demo shop
/// from Arrow batches.
async fn from_parquet() -> DataFusionDialect {
    let fixture = Fixtures::conformance_batch().expect("the fixture batch");
    let mut bytes = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut bytes, fixture.schema(), None).expect("a writer");
    writer.write(&fixture).expect("write the fixture");
    writer.close().expect("finish the Parquet file");
    let path = fixture_file("nao_conformance.parquet", &bytes);
    DataFusionDialect::builder("datafusion_parquet")
        .and_then(|b| b.demo_shop(DemoScale::Small))
        .expect("a session with the demo shop")
        .parquet("nao_conformance", &path)
        .await
        .expect("register the Parquet file")
        .build()
}

mod parquet {
    nao_dialects::conformance_tests! {
        dialect: super::from_parquet(),
        fixtures: nao_dialects::conformance::Fixtures::conformance_table()
            .and_demo_shop(nao_dialects::demo::DemoScale::Small),
        profile: super::profile(),
    }
}

/// The conformance table as CSV text, registered from the file with its column types (CSV has
/// none of its own), beside the demo shop from Arrow batches.
async fn from_csv() -> DataFusionDialect {
    let csv = "id,name,amount\n1,alpha,10.50\n2,beta,\n3,,-0.25\n";
    let path = fixture_file("nao_conformance.csv", csv.as_bytes());
    let schema = Schema::new(vec![
        Field::new("id", DataType::Int32, false),
        Field::new("name", DataType::Utf8, true),
        Field::new("amount", DataType::Decimal128(12, 2), true),
    ]);
    DataFusionDialect::builder("datafusion_csv")
        .and_then(|b| b.demo_shop(DemoScale::Small))
        .expect("a session with the demo shop")
        .csv("nao_conformance", &path, Some(&schema))
        .await
        .expect("register the CSV file")
        .build()
}

mod csv {
    nao_dialects::conformance_tests! {
        dialect: super::from_csv(),
        fixtures: nao_dialects::conformance::Fixtures::conformance_table()
            .and_demo_shop(nao_dialects::demo::DemoScale::Small),
        profile: super::profile(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gate_two_refuses_ddl_dml_and_statements_at_the_engine() {
    let db = from_batches().await;
    for (sql, refused) in [
        ("CREATE TABLE t (x INT)", "DDL not supported"),
        ("CREATE VIEW v AS SELECT 1", "DDL not supported"),
        (
            "CREATE EXTERNAL TABLE secrets STORED AS CSV LOCATION '/etc/passwd'",
            "DDL not supported",
        ),
        ("DROP TABLE nao_conformance", "DDL not supported"),
        (
            "INSERT INTO nao_conformance VALUES (9, 'x', 1.00)",
            "DML not supported",
        ),
        ("DELETE FROM nao_conformance", "DML not supported"),
        (
            "COPY nao_conformance TO '/tmp/nao-datafusion-copied.csv'",
            "DML not supported",
        ),
        (
            "SET datafusion.execution.batch_size = 1",
            "Statement not supported",
        ),
        ("PREPARE q AS SELECT 1", "Statement not supported"),
    ] {
        // Past the guard on purpose: the engine, not the guard, judges these.
        let statement = ReadOnlySql::new_unchecked_allowing_writes(sql, db.sql_dialect());
        let error = db
            .query(&statement, &ExecOptions::default())
            .await
            .expect_err(sql);
        assert!(
            matches!(&error, DialectError::Permission { message, .. } if message.contains(refused)),
            "{sql}: {error:?}"
        );
        assert!(db.refused_as_writing(&error), "{sql}");
        // The guard refuses each of them before that.
        assert!(
            db.prepare(sql, None).is_err(),
            "the guard let {sql} through"
        );
    }
    assert!(!std::path::Path::new("/tmp/nao-datafusion-copied.csv").exists());
    let count = db
        .prepare("SELECT count(*) AS n FROM nao_conformance", None)
        .expect("a read");
    let result = db
        .query(&count, &ExecOptions::default())
        .await
        .expect("count");
    assert_eq!(result.row_count, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_statement_leaves_no_datafusion_task_running() {
    let db = from_batches().await;
    assert_eq!(db.running_tasks(), 0);
    let slow = db
        .prepare(profile().slow_sql(), None)
        .expect("the slow query");
    let cancel = cancel_after(Duration::from_millis(300));
    let outcome = db
        .query(&slow, &ExecOptions::default().with_cancel(cancel))
        .await;
    assert!(
        matches!(outcome, Err(DialectError::Cancelled { .. })),
        "{outcome:?}"
    );
    // Dropping DataFusion's stream aborts its partitions' tasks; they end at their next
    // yield. The bound only keeps a broken adapter from hanging the test.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while db.running_tasks() > 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{} DataFusion tasks still alive 30 s after the cancellation",
            db.running_tasks()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nested_and_zoned_values_stay_arrow() {
    // Instants in a named zone, registered from Arrow: the zone is kept.
    let zoned = DataType::Timestamp(TimeUnit::Microsecond, Some("Europe/Paris".into()));
    let schema = Arc::new(Schema::new(vec![Field::new("at", zoned.clone(), false)]));
    let instants =
        TimestampMicrosecondArray::from(vec![1_709_290_800_000_000]).with_timezone("Europe/Paris");
    let events = RecordBatch::try_new(schema.clone(), vec![Arc::new(instants)]).expect("a batch");
    let db = DataFusionDialect::builder("zoned")
        .and_then(|b| b.batches("events", schema, vec![events]))
        .expect("register the events")
        .build();
    let sql = db
        .prepare(
            "SELECT ARRAY[1, 2, 3] AS xs, named_struct('a', 1, 'b', 'two') AS s, at, \
             CAST('12345678901234567890.123' AS DECIMAL(38, 3)) AS big FROM events",
            None,
        )
        .expect("a read");
    let result = db
        .query(&sql, &ExecOptions::default())
        .await
        .expect("query");
    let types: Vec<&DataType> = result
        .schema
        .fields()
        .iter()
        .map(|f| f.data_type())
        .collect();
    assert!(matches!(types[0], DataType::List(_)), "{types:?}");
    assert!(matches!(types[1], DataType::Struct(_)), "{types:?}");
    assert_eq!(types[2], &zoned, "{types:?}");
    assert_eq!(types[3], &DataType::Decimal128(38, 3), "{types:?}");
    let batch = &result.batches[0];
    let at = batch
        .column(2)
        .as_any()
        .downcast_ref::<TimestampMicrosecondArray>()
        .expect("a timestamp column");
    assert_eq!(at.value(0), 1_709_290_800_000_000);
    let big = batch
        .column(3)
        .as_any()
        .downcast_ref::<Decimal128Array>()
        .expect("a decimal column");
    assert_eq!(big.value_as_string(0), "12345678901234567890.123");
}

/// A token cancelled after `delay`.
fn cancel_after(delay: Duration) -> CancellationToken {
    let cancel = CancellationToken::new();
    let fired = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(delay).await;
        fired.cancel();
    });
    cancel
}
