//! What the governance tests share, in the facade's `tests/governance_layers.rs` and, by path,
//! nao-mcp's `tests/governance.rs`: the planted shop and its leak checks ([`planted`]), and a
//! sandbox with the planted shop and a least-privilege login on the live PostgreSQL
//! ([`postgres`]) and MySQL/MariaDB ([`mysql`]) servers the `NAO_TEST_*_URL` variables name.
//!
//! It names only `nao_core`, `nao_dialects`, `tokio` and `std`, which both test crates depend
//! on under those names, and the `postgres` and `mysql` features, which both crates have.
//! Each including file uses a part of it, hence `dead_code` (and `unwrap_used`: a failed unwrap
//! is a failed test).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

#[cfg(feature = "mysql")]
pub(crate) mod mysql;
pub(crate) mod planted;
#[cfg(feature = "postgres")]
pub(crate) mod postgres;
pub(crate) mod test_dir;

use std::fmt::Debug;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use nao_core::arrow::array::cast::AsArray;
use nao_core::arrow::array::{Array, RecordBatch};
use nao_core::arrow::datatypes::DataType;

/// The URL in the variable `var`, or `None`, saying why the test skips, when it is unset or
/// blank.
pub(crate) fn url_from_env(var: &str, example: &str) -> Option<String> {
    let url = std::env::var(var).ok().filter(|u| !u.trim().is_empty());
    if url.is_none() {
        eprintln!("{var} is not set: skipping this engine (set it to a URL such as {example})");
    }
    url
}

/// A lowercase word no other test or process uses at the same time: the process, a counter
/// and the clock. At most 22 characters, so names built from it fit MySQL's 32.
pub(crate) fn unique() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{:x}{n}{nanos:x}", std::process::id())
}

/// Runs `cleanup` to its end on a thread and runtime of its own, and reports (without
/// panicking) when it fails: it runs from a `Drop`, maybe inside the test's runtime, where it
/// may not block, and must be over before the test is.
pub(crate) fn clean_up<E: Debug + Send + 'static>(
    what: &str,
    cleanup: impl Future<Output = Result<(), E>> + Send + 'static,
) {
    let done = std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(cleanup)
    })
    .join();
    if !matches!(done, Ok(Ok(()))) {
        eprintln!("cleanup of {what} failed: {done:?}");
    }
}

/// Every text (and binary, read as UTF-8) value of `batches`, NULL left out: what a stored
/// result could show of a planted value.
pub(crate) fn texts(batches: &[RecordBatch]) -> Vec<String> {
    let mut out = Vec::new();
    for batch in batches {
        for column in batch.columns() {
            let column: &dyn Array = column.as_ref();
            for row in 0..column.len() {
                if column.is_null(row) {
                    continue;
                }
                let text = match column.data_type() {
                    DataType::Utf8 => column.as_string::<i32>().value(row).to_owned(),
                    DataType::LargeUtf8 => column.as_string::<i64>().value(row).to_owned(),
                    DataType::Utf8View => column.as_string_view().value(row).to_owned(),
                    DataType::Binary => {
                        String::from_utf8_lossy(column.as_binary::<i32>().value(row)).into_owned()
                    }
                    DataType::LargeBinary => {
                        String::from_utf8_lossy(column.as_binary::<i64>().value(row)).into_owned()
                    }
                    DataType::BinaryView => {
                        String::from_utf8_lossy(column.as_binary_view().value(row)).into_owned()
                    }
                    _ => continue,
                };
                out.push(text);
            }
        }
    }
    out
}
