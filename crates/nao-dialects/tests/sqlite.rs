//! The SQLite adapter against real SQLite databases: files in a temporary directory and sealed
//! in-memory databases.
#![cfg(feature = "sqlite")]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float64Type, Int64Type, TimestampMicrosecondType,
};
use arrow_array::{
    Array, BinaryArray, BooleanArray, Date32Array, Decimal128Array, Float64Array, Int32Array,
    Int64Array, RecordBatch, StringArray, TimestampMicrosecondArray,
};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use futures_util::StreamExt;
use nao_dialects::conformance::{self, FIXTURE_STATEMENTS};
use nao_dialects::core::guard::{Policy, ReadOnlySql, SqlDialect, check};
use nao_dialects::core::render::Truncation;
use nao_dialects::core::{Dialect, DialectError, DialectExt, ExecOptions, TableFilter, TableRef};
use nao_dialects::sqlite::rusqlite::Connection;
use nao_dialects::sqlite::{SqliteDialect, load_batches};

/// A directory under the system temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let dir =
            std::env::temp_dir().join(format!("nao-sqlite-{label}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }

    fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A database file created through a writable connection running `statements`.
fn create_file(path: &Path, statements: &[&str]) {
    let conn = Connection::open(path).expect("create database file");
    for statement in statements {
        conn.execute_batch(statement)
            .unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
}

fn read(dialect: &dyn Dialect, sql: &str) -> ReadOnlySql {
    check(sql, dialect.sql_dialect(), &Policy::default())
        .unwrap_or_else(|e| panic!("guard refused {sql:?}: {e}"))
}

/// All rows of a small query (they fit one batch of the default size).
async fn one_batch(dialect: &dyn Dialect, sql: &str) -> RecordBatch {
    let result = dialect
        .query(&read(dialect, sql), &ExecOptions::default())
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    assert_eq!(result.batches.len(), 1, "{sql}: one batch");
    result.batches[0].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conformance_on_a_file_database() {
    let dir = TempDir::new("conformance");
    let path = dir.path("fixture.db");
    create_file(&path, FIXTURE_STATEMENTS);
    let db = SqliteDialect::open("file_db", &path).expect("open read-only");
    conformance::run_all(&db).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conformance_on_a_sealed_in_memory_database() {
    let db = SqliteDialect::in_memory("memory_db", |conn| {
        FIXTURE_STATEMENTS
            .iter()
            .try_for_each(|s| conn.execute_batch(s))
    })
    .expect("load and seal");
    conformance::run_all(&db).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conformance_on_a_database_opened_by_url() {
    let dir = TempDir::new("url");
    let path = dir.path("fixture.db");
    create_file(&path, FIXTURE_STATEMENTS);
    let url = format!("sqlite://{}", path.display());
    let db = nao_dialects::open("url_db", &url)
        .await
        .expect("open by URL");
    assert_eq!(db.name(), "url_db");
    assert_eq!(db.sql_dialect(), SqlDialect::Sqlite);
    conformance::run_all(db.as_ref()).await;
}

const TYPES_TABLE: &str = "CREATE TABLE typed (
    i INTEGER, r REAL, t TEXT, v VARCHAR(10), b BLOB, d DECIMAL(38,10), m NUMERIC(12,2),
    flag BOOLEAN, day DATE, at TIMESTAMP, dt DATETIME, anything)";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declared_types_read_back_as_exact_arrow_values() {
    let dir = TempDir::new("types");
    let path = dir.path("types.db");
    create_file(
        &path,
        &[
            TYPES_TABLE,
            "INSERT INTO typed VALUES
              (-9223372036854775808, -0.0, '😀 non-BMP', 'abc', x'00FF00',
               '1234567.1234567890', 10.5, 1, '2024-02-29', '2024-02-29 13:45:10.123456',
               '2024-02-29T13:45:10', 42),
              (9223372036854775807, 1e308, '', '', x'', -0.25, '-7', 0, '1970-01-01',
               '1969-12-31 23:59:59', '2000-01-01 00:00:00.5', 'text'),
              (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
        ],
    );
    // SQLite has no NaN: writing one stores NULL.
    let conn = Connection::open(&path).expect("writable");
    conn.execute("INSERT INTO typed (i, r) VALUES (4, ?1)", [f64::NAN])
        .expect("insert NaN");
    let stored_nan: Option<f64> = conn
        .query_row("SELECT r FROM typed WHERE i = 4", [], |r| r.get(0))
        .expect("read NaN back");
    assert_eq!(stored_nan, None, "SQLite stores NaN as NULL");
    drop(conn);

    let db = SqliteDialect::open("types", &path).expect("open");
    let batch = one_batch(&db, "SELECT * FROM typed WHERE i IS NOT 4 ORDER BY rowid").await;
    let types: Vec<DataType> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.data_type().clone())
        .collect();
    assert_eq!(
        types,
        [
            DataType::Int64,
            DataType::Float64,
            DataType::Utf8,
            DataType::Utf8,
            DataType::Binary,
            DataType::Decimal128(38, 10),
            DataType::Decimal128(12, 2),
            DataType::Boolean,
            DataType::Date32,
            DataType::Timestamp(TimeUnit::Microsecond, None),
            DataType::Timestamp(TimeUnit::Microsecond, None),
            // No declared type: INTEGER and TEXT in the first batch make it text.
            DataType::Utf8,
        ]
    );
    assert_eq!(batch.num_rows(), 3);

    let col = |i: usize| batch.column(i);
    assert_eq!(
        col(0).as_primitive::<Int64Type>(),
        &Int64Array::from(vec![Some(i64::MIN), Some(i64::MAX), None])
    );
    let reals = col(1).as_primitive::<Float64Type>();
    // SQLite stores a whole REAL as an integer on disk, so -0.0 comes back as 0.0.
    assert!(
        reals.value(0) == 0.0 && reals.value(0).is_sign_positive(),
        "{}",
        reals.value(0)
    );
    assert_eq!(reals.value(1), 1e308);
    assert!(reals.is_null(2));
    assert_eq!(
        col(2).as_string::<i32>(),
        &StringArray::from(vec![Some("😀 non-BMP"), Some(""), None]),
        "empty string and NULL stay distinct"
    );
    assert_eq!(
        col(3).as_string::<i32>(),
        &StringArray::from(vec![Some("abc"), Some(""), None])
    );
    assert_eq!(
        col(4).as_binary::<i32>(),
        &BinaryArray::from(vec![Some(&b"\x00\xff\x00"[..]), Some(&b""[..]), None])
    );
    let expected_decimal = Decimal128Array::from(vec![
        Some(12_345_671_234_567_890_i128),
        Some(-2_500_000_000),
        None,
    ])
    .with_precision_and_scale(38, 10)
    .expect("decimal type");
    assert_eq!(col(5).as_primitive::<Decimal128Type>(), &expected_decimal);
    let expected_numeric = Decimal128Array::from(vec![Some(1050_i128), Some(-700), None])
        .with_precision_and_scale(12, 2)
        .expect("numeric type");
    assert_eq!(col(6).as_primitive::<Decimal128Type>(), &expected_numeric);
    assert_eq!(
        col(7).as_boolean(),
        &BooleanArray::from(vec![Some(true), Some(false), None])
    );
    assert_eq!(
        col(8).as_primitive::<Date32Type>(),
        &Date32Array::from(vec![Some(19_782), Some(0), None])
    );
    let day_micros = 19_782_i64 * 86_400 * 1_000_000;
    assert_eq!(
        col(9).as_primitive::<TimestampMicrosecondType>(),
        &TimestampMicrosecondArray::from(vec![
            Some(day_micros + (13 * 3600 + 45 * 60 + 10) * 1_000_000 + 123_456),
            Some(-1_000_000),
            None
        ])
    );
    assert_eq!(
        col(10).as_primitive::<TimestampMicrosecondType>(),
        &TimestampMicrosecondArray::from(vec![
            Some(day_micros + (13 * 3600 + 45 * 60 + 10) * 1_000_000),
            Some(946_684_800_500_000),
            None
        ])
    );
    assert_eq!(
        col(11).as_string::<i32>(),
        &StringArray::from(vec![Some("42"), Some("text"), None])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expressions_take_their_type_from_the_first_batch() {
    let db = SqliteDialect::in_memory("exprs", |_| Ok(())).expect("empty db");
    let batch = one_batch(
        &db,
        "SELECT 1 AS i, 1.5 AS r, 'x' AS t, x'01' AS b, NULL AS n, date('2024-01-02') AS d",
    )
    .await;
    let types: Vec<DataType> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.data_type().clone())
        .collect();
    assert_eq!(
        types,
        [
            DataType::Int64,
            DataType::Float64,
            DataType::Utf8,
            DataType::Binary,
            DataType::Utf8,
            // Dates stay text unless a column declares DATE.
            DataType::Utf8
        ]
    );
    assert_eq!(batch.column(5).as_string::<i32>().value(0), "2024-01-02");
    assert!(batch.column(4).is_null(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_value_that_does_not_fit_its_column_fails_naming_it() {
    let db = SqliteDialect::in_memory("misfit", |conn| {
        conn.execute_batch(
            "CREATE TABLE t (day DATE, n INTEGER);
             INSERT INTO t VALUES ('2024-01-01', 1), ('next tuesday', 2), ('2024-01-03', 'x');",
        )
    })
    .expect("load");
    let outcome = db
        .query(&read(&db, "SELECT day FROM t"), &ExecOptions::default())
        .await;
    let Err(DialectError::Unsupported { what, .. }) = outcome else {
        panic!("a non-date in a DATE column must fail: {outcome:?}");
    };
    assert!(what.contains("\"day\"") && what.contains("row 2"), "{what}");
    assert!(
        what.contains("'next tuesday'") && what.contains("CAST(\"day\" AS TEXT)"),
        "{what}"
    );

    // A later batch with another storage class than the first fixed fails the stream.
    let sql = read(
        &db,
        "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 10) \
         SELECT CASE WHEN n < 5 THEN n ELSE n + 0.5 END AS v FROM s",
    );
    let mut stream = db
        .execute(&sql, &ExecOptions::default().with_batch_size(2))
        .await
        .expect("the first batches are integers");
    assert_eq!(stream.schema().field(0).data_type(), &DataType::Int64);
    let mut failure = None;
    while let Some(batch) = stream.next().await {
        if let Err(e) = batch {
            failure = Some(e);
            break;
        }
    }
    let failure = failure.expect("the REAL at row 5 must fail the stream");
    assert!(failure.to_string().contains("row 5"), "{failure}");
    assert_eq!(failure.kind_code(), "unsupported");
    // CAST gives a column every value fits.
    let batch = one_batch(&db, "SELECT CAST(day AS TEXT) AS day FROM t").await;
    assert_eq!(batch.column(0).as_string::<i32>().value(1), "next tuesday");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engine_refuses_writes_on_a_writable_file() {
    let dir = TempDir::new("writes");
    let path = dir.path("writable.db");
    create_file(&path, FIXTURE_STATEMENTS);
    // An index gives REINDEX something to write (with none, it is a no-op SQLite allows).
    create_file(&path, &["CREATE INDEX nao_name ON nao_conformance (name)"]);
    let other = dir.path("other.db");
    let db = SqliteDialect::open("writes", &path).expect("open");
    let attach = format!("ATTACH DATABASE '{}' AS other", other.display());
    let vacuumed = dir.path("vacuumed.db");
    let vacuum_into = format!("VACUUM INTO '{}'", vacuumed.display());
    for write in [
        attach.as_str(),
        "DETACH DATABASE main",
        "PRAGMA journal_mode=DELETE",
        "PRAGMA query_only = OFF",
        "PRAGMA user_version = 7",
        "CREATE TEMP TABLE scratch (x INTEGER)",
        "CREATE TEMP VIEW v AS SELECT 1",
        "CREATE INDEX i ON nao_conformance (id)",
        "ALTER TABLE nao_conformance ADD COLUMN y INTEGER",
        "VACUUM",
        vacuum_into.as_str(),
        "REINDEX",
        "REINDEX nao_name",
        "ANALYZE",
        "BEGIN",
        "SAVEPOINT s",
        "CREATE VIRTUAL TABLE vt USING fts5(x)",
        "SELECT load_extension('libnothing')",
        "REPLACE INTO nao_conformance (id) VALUES (1)",
        "WITH x AS (SELECT 1) INSERT INTO nao_conformance (id) SELECT * FROM x",
    ] {
        let sql = ReadOnlySql::new_unchecked_allowing_writes(write, SqlDialect::Sqlite);
        let outcome = db.query(&sql, &ExecOptions::default()).await;
        match outcome {
            Err(error @ DialectError::Permission { .. }) => assert!(
                db.refused_as_writing(&error),
                "{write:?}: a read-only layer refusing it is the readings disagreeing: {error:?}"
            ),
            other => panic!("{write:?} must be refused as a permission error, got {other:?}"),
        }
    }
    // The temp table could not be created, so an insert into it fails before the authorizer.
    let temp_insert = ReadOnlySql::new_unchecked_allowing_writes(
        "INSERT INTO temp.scratch VALUES (1)",
        SqlDialect::Sqlite,
    );
    let outcome = db.query(&temp_insert, &ExecOptions::default()).await;
    assert!(
        matches!(outcome, Err(DialectError::UnknownObject { .. })),
        "{outcome:?}"
    );
    assert!(!other.exists(), "ATTACH must not create a file");
    assert!(!vacuumed.exists(), "VACUUM INTO must not create a file");
    // Nothing changed, checked through an ordinary writable connection.
    let conn = Connection::open(&path).expect("writable");
    let rows: i64 = conn
        .query_row("SELECT count(*) FROM nao_conformance", [], |r| r.get(0))
        .expect("count");
    assert_eq!(rows, 3);
    let objects: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))
        .expect("schema");
    assert_eq!(objects, 2, "no index, view or table was created");
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .expect("journal mode");
    assert_eq!(mode, "delete");
    // Reading pragmas stay allowed.
    let info = one_batch(&db, "SELECT name FROM pragma_table_info('nao_conformance')").await;
    assert_eq!(info.num_rows(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_series_stops_at_the_cap() {
    let db = SqliteDialect::in_memory("series", |_| Ok(())).expect("empty db");
    let sql = read(&db, &conformance::series_sql(1_000_000));
    let result = db
        .query(&sql, &ExecOptions::default().with_max_rows(1_000))
        .await
        .expect("capped query");
    assert_eq!(result.row_count, 1_000);
    assert_eq!(result.truncation, Some(Truncation::RowCap { cap: 1_000 }));
    assert_eq!(
        result.batches.len(),
        1,
        "1001 rows fit one default batch, cut to 1000"
    );
    let values = result.batches[0].column(0).as_primitive::<Int64Type>();
    assert_eq!((values.value(0), values.value(999)), (1, 1_000));

    // The adapter itself reads only cap + 1 rows.
    let mut stream = db
        .execute(&sql, &ExecOptions::default().with_max_rows(1_000))
        .await
        .expect("stream");
    let mut rows = 0;
    while let Some(batch) = stream.next().await {
        rows += batch.expect("batch").num_rows();
    }
    assert_eq!(rows, 1_001);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_a_stream_releases_its_connection_and_lock() {
    let dir = TempDir::new("drop");
    let path = dir.path("locks.db");
    create_file(&path, FIXTURE_STATEMENTS);
    let db = SqliteDialect::open("locks", &path).expect("open");
    let writer = Connection::open(&path).expect("writer");
    writer.busy_timeout(Duration::ZERO).expect("no wait");

    let sql = read(
        &db,
        "SELECT a.id FROM nao_conformance a, nao_conformance b, nao_conformance c, nao_conformance d, nao_conformance e, nao_conformance f, nao_conformance g, nao_conformance h, nao_conformance i, nao_conformance j, nao_conformance k, nao_conformance l, nao_conformance m",
    );
    let options = ExecOptions::default()
        .with_batch_size(10)
        .with_max_rows(10_000_000);
    let mut stream = db.execute(&sql, &options).await.expect("stream");
    let first = stream.next().await.expect("a first batch").expect("ok");
    assert_eq!(first.num_rows(), 10);
    // While the statement is open it holds a shared lock: a writer cannot commit.
    let blocked = writer.execute("INSERT INTO nao_conformance (id) VALUES (100)", []);
    assert!(
        blocked.is_err(),
        "the open read must block the writer: {blocked:?}"
    );

    drop(stream);
    // Once the stream is dropped the statement ends and the lock goes.
    writer.busy_timeout(Duration::from_secs(30)).expect("wait");
    writer
        .execute("INSERT INTO nao_conformance (id) VALUES (101)", [])
        .expect("the writer commits once the stream is dropped");
    let batch = one_batch(&db, "SELECT group_concat(id) AS ids FROM nao_conformance").await;
    assert_eq!(
        batch.column(0).as_string::<i32>().value(0),
        "1,2,3,101",
        "the blocked insert never committed; the later one did"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opening_by_url_names_missing_files_and_opens_memory() {
    let missing = nao_dialects::open("db", "sqlite:///missing/file.db").await;
    match missing {
        Err(nao_dialects::OpenError::Dialect(DialectError::Connection { message, .. })) => {
            assert!(message.contains("/missing/file.db"), "{message}");
        }
        other => panic!("a missing file must be a connection error: {other:?}"),
    }
    let memory = nao_dialects::open("mem", "sqlite::memory:")
        .await
        .expect("memory opens");
    assert_eq!(memory.name(), "mem");
    let tables = memory
        .list_tables(&TableFilter::default())
        .await
        .expect("list");
    assert!(tables.is_empty(), "{tables:?}");
    let batch = one_batch(memory.as_ref(), "SELECT 40 + 2 AS answer").await;
    assert_eq!(batch.column(0).as_primitive::<Int64Type>().value(0), 42);

    let dir = TempDir::new("notdb");
    let junk = dir.path("junk.db");
    std::fs::write(
        &junk,
        b"this is not a database, just some bytes that are long enough to be a header",
    )
    .expect("write junk");
    let junk = SqliteDialect::open("junk", &junk);
    assert!(
        matches!(junk, Err(DialectError::Connection { .. })),
        "{junk:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_load_and_read_back_unchanged() {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int32, false),
        Field::new("score", DataType::Float64, true),
        Field::new("name", DataType::Utf8, true),
        Field::new("price", DataType::Decimal128(12, 4), true),
        Field::new("day", DataType::Date32, true),
        Field::new("at", DataType::Timestamp(TimeUnit::Microsecond, None), true),
        Field::new("ok", DataType::Boolean, true),
        Field::new("raw", DataType::Binary, true),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(Int32Array::from(vec![1, 2])),
            Arc::new(Float64Array::from(vec![Some(0.1), None])),
            Arc::new(StringArray::from(vec![Some("a \"quoted\" name"), None])),
            Arc::new(
                Decimal128Array::from(vec![Some(123_456_789_i128), Some(-1)])
                    .with_precision_and_scale(12, 4)
                    .expect("decimal"),
            ),
            Arc::new(Date32Array::from(vec![Some(-365), None])),
            Arc::new(TimestampMicrosecondArray::from(vec![
                Some(1_700_000_000_000_001),
                None,
            ])),
            Arc::new(BooleanArray::from(vec![Some(true), None])),
            Arc::new(BinaryArray::from(vec![Some(&b"\0x"[..]), None])),
        ],
    )
    .expect("batch");
    let db = SqliteDialect::from_batches("loaded", &[("my \"table\"", &[batch.clone()][..])])
        .expect("load");
    let tables = db.list_tables(&TableFilter::default()).await.expect("list");
    assert_eq!(tables.len(), 1);
    assert_eq!(tables[0].name, "my \"table\"");
    let described = db
        .describe_table(&tables[0].table_ref())
        .await
        .expect("describe");
    let declared = conformance::declared_columns(&described);
    assert_eq!(
        declared,
        [
            ("id", "INTEGER", false),
            ("score", "REAL", true),
            ("name", "TEXT", true),
            ("price", "DECIMAL(12,4)", true),
            ("day", "DATE", true),
            ("at", "TIMESTAMP", true),
            ("ok", "BOOLEAN", true),
            ("raw", "BLOB", true),
        ]
    );
    let back = one_batch(&db, "SELECT * FROM \"my \"\"table\"\"\"").await;
    // With no batches there is no schema to create the table from.
    let conn = Connection::open_in_memory().expect("scratch");
    let empty = load_batches(&conn, "t", &[]);
    assert!(empty.is_err_and(|e| e.to_string().contains("columns are unknown")));
    // Int32 comes back as Int64 (SQLite integers are 64-bit); everything else is unchanged.
    assert_eq!(back.column(0).as_primitive::<Int64Type>().values(), &[1, 2]);
    for i in 1..batch.num_columns() {
        assert_eq!(
            back.column(i).as_ref(),
            batch.column(i).as_ref(),
            "column {i}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn introspection_filters_and_skips_internal_tables() {
    let db = SqliteDialect::in_memory("catalog", |conn| {
        conn.execute_batch(
            "CREATE TABLE orders (id INTEGER PRIMARY KEY, note TEXT);
             CREATE TABLE order_items (order_id INTEGER NOT NULL, sku TEXT);
             CREATE VIEW big_orders AS SELECT * FROM orders WHERE id > 10;
             CREATE TABLE seq (id INTEGER PRIMARY KEY AUTOINCREMENT);
             INSERT INTO seq DEFAULT VALUES;
             ANALYZE;",
        )
    })
    .expect("load");
    let all = db.list_tables(&TableFilter::default()).await.expect("list");
    let names: Vec<&str> = all.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        ["big_orders", "order_items", "orders", "seq"],
        "no sqlite_* tables"
    );
    assert_eq!(all[0].kind, nao_dialects::core::TableKind::View);
    let filtered = db
        .list_tables(&TableFilter::default().with_pattern("ORDER%item"))
        .await
        .expect("filter");
    assert_eq!(filtered.len(), 1);
    let main = db
        .list_tables(&TableFilter::default().with_schema("main"))
        .await
        .expect("main");
    assert_eq!(main.len(), 4);
    let other = db
        .list_tables(&TableFilter::default().with_schema("sales"))
        .await
        .expect("other schema");
    assert!(other.is_empty());
    let orders = db
        .describe_table(&TableRef::parse("main.ORDERS"))
        .await
        .expect("describe");
    assert!(
        !orders.columns[0].nullable,
        "an INTEGER PRIMARY KEY is the rowid"
    );
    assert!(orders.columns[1].nullable);
    assert_eq!(orders.comment, None);
    let missing = db.describe_table(&TableRef::parse("sales.orders")).await;
    assert!(
        matches!(missing, Err(DialectError::UnknownObject { .. })),
        "{missing:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancellation_before_the_first_batch_stops_execute() {
    let db = SqliteDialect::in_memory("cancel", |_| Ok(())).expect("empty db");
    let cancel = tokio_util::sync::CancellationToken::new();
    cancel.cancel();
    let sql = read(&db, &conformance::slow_sql());
    let outcome = db
        .execute(&sql, &ExecOptions::default().with_cancel(cancel))
        .await;
    assert!(
        matches!(outcome, Err(DialectError::Cancelled { .. })),
        "{outcome:?}"
    );
    // A timeout on the raw stream (no collect wrapper) is the adapter's own.
    let outcome = db
        .execute(
            &sql,
            &ExecOptions::default().with_timeout(Duration::from_millis(50)),
        )
        .await;
    assert!(
        matches!(outcome, Err(DialectError::Timeout { .. })),
        "{outcome:?}"
    );
    let batch = one_batch(&db, "SELECT 1 AS one").await;
    assert_eq!(batch.num_rows(), 1, "the adapter serves the next query");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_queries_share_the_sealed_database() {
    let db = Arc::new(
        SqliteDialect::in_memory("shared", |conn| {
            FIXTURE_STATEMENTS
                .iter()
                .try_for_each(|s| conn.execute_batch(s))
        })
        .expect("load"),
    );
    let sql = read(db.as_ref(), &conformance::series_sql(20_000));
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let (db, sql) = (db.clone(), sql.clone());
        tasks.push(tokio::spawn(async move {
            let options = ExecOptions::default()
                .with_max_rows(50_000)
                .with_batch_size(500);
            db.query(&sql, &options).await.map(|r| r.row_count)
        }));
    }
    for task in tasks {
        let rows = task.await.expect("task").expect("query");
        assert_eq!(rows, 20_000);
    }
}

#[tokio::test]
async fn the_demo_shop_describes_itself() {
    let shop = SqliteDialect::demo("shop", nao_dialects::demo::DemoScale::Small)
        .unwrap_or_else(|e| panic!("{e}"));
    conformance::demo_is_described(&shop).await;
}
