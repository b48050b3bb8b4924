//! What the live-server tests share: the server URL from the environment (or the reason they
//! skip), a sandbox per test with a least-privilege login of its own ([`postgres::Sandbox`],
//! [`mysql::Sandbox`]), and the checks the bounds and privilege tests of both engines make.
//!
//! Each test file that declares `mod support;` compiles this module again, and no file uses
//! every part of it, hence `dead_code` (and `unwrap_used`: a failed unwrap is a failed test).
#![allow(dead_code, clippy::unwrap_used)]

#[cfg(feature = "mysql")]
pub(crate) mod mysql;
#[cfg(feature = "postgres")]
pub(crate) mod postgres;
#[cfg(any(feature = "flight-sql", feature = "spark-connect"))]
pub(crate) mod spark_types;
pub(crate) mod temp_dir;
pub(crate) mod tls_front;

use std::fmt::Debug;
use std::future::Future;
use std::time::Duration;

use arrow_array::RecordBatch;
use futures_util::StreamExt;
use nao_core::guard::ReadOnlySql;
use nao_core::render::Truncation;
use nao_core::{Dialect, DialectError, DialectExt, ExecOptions};

/// The URL in the variable `var`, or `None`, saying so, when it is unset or blank: the test
/// then returns (and passes) without a server.
fn url_from_env(var: &str, example: &str) -> Option<String> {
    let url = std::env::var(var).ok().filter(|u| !u.trim().is_empty());
    if url.is_none() {
        eprintln!("{var} is not set: skipping this test (set it to a URL such as {example})");
    }
    url
}

/// Runs `cleanup` to its end on a runtime and a thread of its own, and reports (without
/// panicking) when it fails: a `Drop` may run inside the test's runtime, where it may not
/// block, and the cleanup must be over before the test is.
fn clean_up<E: Debug + Send + 'static>(
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

/// The refusal `opened` must be, with its message.
pub(crate) fn refused<D: Debug>(opened: Result<D, DialectError>, context: &str) -> String {
    match opened {
        Err(error @ DialectError::Permission { .. }) => error.to_string(),
        Err(other) => panic!("{context}: expected a permission refusal, got {other:?}"),
        Ok(db) => panic!("{context}: opened a privileged connection: {db:?}"),
    }
}

/// The password the secret tests plant in URLs.
pub(crate) const SECRET: &str = "Pl4nted-S3cret-xyzzy";

/// [`SECRET`] shows nowhere in `error`: not in its message, its `Debug` or any source's.
pub(crate) fn assert_secret_absent(context: &str, error: &dyn std::error::Error) {
    let mut texts = vec![error.to_string(), format!("{error:?}")];
    let mut source = error.source();
    while let Some(inner) = source {
        texts.push(inner.to_string());
        texts.push(format!("{inner:?}"));
        source = inner.source();
    }
    for text in texts {
        assert!(
            !text.contains(SECRET),
            "{context}: the password leaked: {text}"
        );
    }
}

/// Options for a call capped at `bytes`, with the row cap and the time limit far off.
pub(crate) fn capped(bytes: usize) -> ExecOptions {
    ExecOptions::default()
        .with_max_bytes(bytes)
        .with_max_rows(1_000_000)
        .with_timeout(Duration::from_secs(60))
}

/// `wide` (200 rows of about 1 MB) under an 8 MiB byte cap: the rows up to the cap are kept,
/// and every batch the adapter streams holds a share of the cap, never the whole fetch.
pub(crate) async fn wide_rows_fill_the_byte_cap_in_batches_that_fit_it(
    db: &dyn Dialect,
    wide: &ReadOnlySql,
) {
    let cap = 8 << 20;
    let result = db.query(wide, &capped(cap)).await.unwrap();
    assert_eq!(
        result.truncation,
        Some(Truncation::ByteCap { cap: cap as u64 })
    );
    assert!(
        (4..=8).contains(&result.row_count),
        "rows up to the cap are kept: {}",
        result.row_count
    );

    let mut stream = db.execute(wide, &capped(cap)).await.unwrap();
    let mut seen = 0usize;
    while let Some(batch) = stream.next().await {
        let batch: RecordBatch = batch.unwrap();
        let size = batch.get_array_memory_size();
        assert!(
            size <= cap,
            "a batch of {} rows holds {size} bytes, more than the {cap}-byte cap",
            batch.num_rows()
        );
        seen += size;
        if seen > 2 * cap {
            break;
        }
    }
}
