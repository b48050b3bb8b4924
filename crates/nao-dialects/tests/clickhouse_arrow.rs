//! The ClickHouse adapter's ArrowStream path, end to end through its HTTP client, against
//! answers of a modern ClickHouse (26.9, chDB) recorded by
//! `scripts/clickhouse/record-arrow-fixtures.py` (`tests/fixtures/clickhouse`), served by a
//! local HTTP server of the test's own: the `DESCRIBE` answers and the ArrowStream bodies are
//! the server's bytes. Only the connect probe's one line (version, zone, readonly=2, and that
//! the server writes ArrowStream) is written here, since 18.16 (the live server) has no
//! ArrowStream. Always runs: no network, no variables.
#![cfg(feature = "clickhouse")]
#![allow(clippy::unwrap_used)] // Tests: a failed unwrap is a failed test.

use std::sync::{Arc, Mutex};

use arrow_array::cast::AsArray;
use arrow_array::types::{TimestampSecondType, UInt64Type};
use arrow_schema::{DataType, TimeUnit};
use nao_core::guard::ReadOnlySql;
use nao_core::render::Truncation;
use nao_core::{Dialect, DialectError, DialectExt, ExecOptions};
use nao_dialects::clickhouse::ClickHouseDialect;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/clickhouse");

/// One request the server got: its target (path and query string) and body.
#[derive(Debug, Clone)]
struct Request {
    target: String,
    body: String,
}

/// A local HTTP server answering as the recorded ClickHouse did; `late_error` is appended to
/// the `numbers` body after its first half (an error written after rows).
async fn serve(late_error: Option<&'static str>) -> (String, Arc<Mutex<Vec<Request>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let log = Arc::clone(&log);
            tokio::spawn(async move {
                let Some(request) = read_request(&mut socket).await else {
                    return;
                };
                log.lock().unwrap().push(request.clone());
                let body = answer(&request, late_error);
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(&body).await;
            });
        }
    });
    (
        format!("clickhouse://reader:secret@{address}/default"),
        seen,
    )
}

async fn read_request(socket: &mut tokio::net::TcpStream) -> Option<Request> {
    let mut data = Vec::new();
    let mut buf = [0_u8; 8192];
    let header_end = loop {
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        data.extend_from_slice(&buf[..n]);
        if let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break end + 4;
        }
    };
    let head = String::from_utf8_lossy(&data[..header_end]).into_owned();
    let length: usize = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().parse().unwrap())
        })
        .unwrap_or(0);
    while data.len() < header_end + length {
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        data.extend_from_slice(&buf[..n]);
    }
    let target = head.split_whitespace().nth(1)?.to_owned();
    let body = String::from_utf8_lossy(&data[header_end..header_end + length]).into_owned();
    Some(Request { target, body })
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{FIXTURES}/{name}")).unwrap()
}

fn answer(request: &Request, late_error: Option<&str>) -> Vec<u8> {
    let sql = &request.body;
    if sql.contains("SELECT version()") {
        // version, zone, readonly, system.tables has comments, the database exists, ArrowStream.
        return b"26.9.2.1\tUTC\t2\t1\t1\t1\n".to_vec();
    }
    if sql.starts_with("KILL QUERY") {
        return Vec::new();
    }
    let name = ["types", "numbers", "empty"]
        .into_iter()
        .find(|n| sql.contains(&format!("fixture_{n}")))
        .unwrap_or("types");
    if sql.starts_with("DESCRIBE") {
        return fixture(&format!("{name}.describe.tsv"));
    }
    let mut body = fixture(&format!("{name}.arrows"));
    if let Some(error) = late_error {
        body.truncate(body.len() / 2);
        body.extend_from_slice(error.as_bytes());
    }
    body
}

fn sql(db: &dyn Dialect, text: &str) -> ReadOnlySql {
    ReadOnlySql::new_unchecked_allowing_writes(text, db.sql_dialect())
}

#[tokio::test]
async fn recorded_arrow_answers_through_the_adapter() {
    let (url, seen) = serve(None).await;
    let db = ClickHouseDialect::open_url("modern", &url).await.unwrap();
    assert!(
        db.reads_arrow(),
        "a server listing ArrowStream is read in it"
    );
    assert_eq!(db.server_version(), "26.9.2.1");

    let result = db
        .query(
            &sql(&db, "SELECT * FROM fixture_types"),
            &ExecOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(result.row_count, 1);
    let schema = &result.schema;
    assert_eq!(
        schema.field_with_name("tokyo").unwrap().data_type(),
        &DataType::Timestamp(TimeUnit::Second, Some("Asia/Tokyo".into()))
    );
    let batch = &result.batches[0];
    let tokyo = batch.column(schema.index_of("tokyo").unwrap());
    assert_eq!(
        tokyo.as_primitive::<TimestampSecondType>().value(0),
        1_577_836_800
    );
    let e = batch.column(schema.index_of("e").unwrap());
    assert_eq!(e.as_string::<i32>().value(0), "green");
    let u64s = batch.column(schema.index_of("u64").unwrap());
    assert_eq!(u64s.as_primitive::<UInt64Type>().value(0), u64::MAX);

    // The statement asked for ArrowStream with the adapter's settings, after a DESCRIBE.
    let requests = seen.lock().unwrap().clone();
    let describe = requests
        .iter()
        .position(|r| r.body.starts_with("DESCRIBE"))
        .unwrap();
    let statement = requests
        .iter()
        .position(|r| r.target.contains("default_format=ArrowStream"))
        .unwrap();
    assert!(describe < statement);
    let target = &requests[statement].target;
    for setting in [
        "max_block_size=2048",
        "output_format_arrow_string_as_string=1",
        "output_format_arrow_low_cardinality_as_dictionary=0",
        "output_format_arrow_compression_method=none",
        "max_result_rows=10001",
        "result_overflow_mode=break",
    ] {
        assert!(target.contains(setting), "{setting} missing from {target}");
    }
    assert!(
        !target.contains("readonly="),
        "a readonly=2 user may not send readonly"
    );
    assert!(
        !target.contains("secret"),
        "the password never goes in the URL"
    );
}

#[tokio::test]
async fn a_capped_arrow_result_is_cut_and_killed() {
    let (url, seen) = serve(None).await;
    let db = ClickHouseDialect::open_url("modern", &url).await.unwrap();
    let result = db
        .query(
            &sql(&db, "SELECT * FROM fixture_numbers"),
            &ExecOptions::default().with_max_rows(1_500),
        )
        .await
        .unwrap();
    assert_eq!(result.row_count, 1_500);
    assert_eq!(result.truncation, Some(Truncation::RowCap { cap: 1_500 }));
    // The reader has its rows before the adapter's KILL QUERY is sent: wait for it (the
    // bound only keeps a broken adapter from hanging the test).
    let killed = |requests: &[Request]| requests.iter().any(|r| r.body.starts_with("KILL QUERY"));
    for _ in 0..100 {
        if killed(&seen.lock().unwrap()) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let requests = seen.lock().unwrap().clone();
    let statement = requests
        .iter()
        .find(|r| r.target.contains("default_format=ArrowStream"))
        .unwrap();
    let id = statement
        .target
        .split(['?', '&'])
        .find_map(|p| p.strip_prefix("query_id="))
        .unwrap();
    assert!(
        requests
            .iter()
            .any(|r| r.body == format!("KILL QUERY WHERE query_id = '{id}' SYNC")),
        "the cut statement is killed on the server: {requests:?}"
    );

    let empty = db
        .query(
            &sql(&db, "SELECT * FROM fixture_empty"),
            &ExecOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(empty.row_count, 0);
    assert_eq!(
        empty.schema.field(1).data_type(),
        &DataType::Timestamp(TimeUnit::Second, Some("UTC".into()))
    );
}

#[tokio::test]
async fn an_error_written_into_an_arrow_answer_is_the_servers_error() {
    // The tail as ClickHouse 24+ writes an exception after rows (written here: chDB raises
    // it in Python instead of returning the bytes).
    let (url, _) = serve(Some(
        "Code: 395. DB::Exception: Value passed to 'throwIf' function is non-zero: \
         while executing 'FUNCTION throwIf(...)'. (FUNCTION_THROW_IF_VALUE_IS_NON_ZERO) (version 26.9.2.1)\n",
    ))
    .await;
    let db = ClickHouseDialect::open_url("modern", &url).await.unwrap();
    let outcome = db
        .query(
            &sql(&db, "SELECT * FROM fixture_numbers"),
            &ExecOptions::default().with_max_rows(100_000),
        )
        .await;
    let Err(error) = outcome else {
        panic!("a broken answer must fail: {outcome:?}");
    };
    assert!(matches!(error, DialectError::Engine { .. }), "{error:?}");
    assert_eq!(error.code(), Some("395"), "{error}");
}
