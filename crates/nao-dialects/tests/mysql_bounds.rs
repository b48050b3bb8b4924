//! Memory bounds of the MySQL/MariaDB adapter, against a real server (`NAO_TEST_MYSQL_URL`, a
//! user that may create databases and users, e.g. `mysql://root@127.0.0.1:3306/test`): a row
//! larger than the byte cap is a clear error, and wide rows come in batches that fit the cap.
//!
//! Each test makes its own database and a user that may only read it, connects the adapter as
//! that user, and drops both at the end. Without the variable the tests say so and pass.
#![cfg(feature = "mysql")]
#![allow(clippy::unwrap_used)] // Tests: a failed unwrap is a failed test.

mod support;

use nao_core::guard::{ReadOnlySql, SqlDialect};
use nao_core::{DialectError, DialectExt};
use nao_dialects::mysql::MySqlDialect;
use support::capped;
use support::mysql::{Sandbox, server_url};

fn sql(text: &str) -> ReadOnlySql {
    ReadOnlySql::new_unchecked_allowing_writes(text, SqlDialect::MariaDb)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_larger_than_the_byte_cap_is_a_clear_error() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "bounds", &[]).await;
    let db = sandbox.adapter("mysql").await;
    // 10 MB: under the server's default max_allowed_packet (16 MiB), over a 4 MiB cap.
    for (text, column) in [
        ("SELECT 1 AS id, repeat('x', 10000000) AS big", "big"),
        (
            "SELECT repeat('y', 3000000) AS a, repeat('z', 3000000) AS b",
            "a",
        ),
    ] {
        let error = db.query(&sql(text), &capped(4 << 20)).await.unwrap_err();
        let message = error.to_string();
        assert!(
            matches!(error, DialectError::Unsupported { .. }),
            "{text}: {error:?}"
        );
        assert!(
            message.contains(&format!("`{column}`"))
                && message.contains("LENGTH(")
                && message.contains("4 MiB"),
            "the message names the column, the cap and what to select instead: {message}"
        );
    }
    // The adapter goes on serving, and the same row fits a larger cap.
    let result = db
        .query(
            &sql("SELECT 1 AS id, repeat('x', 10000000) AS big"),
            &capped(64 << 20),
        )
        .await
        .unwrap();
    assert_eq!(result.row_count, 1);
    assert_eq!(result.truncation, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wide_rows_fill_the_byte_cap_in_batches_that_fit_it() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "bounds", &[]).await;
    let db = sandbox.adapter("mysql").await;
    let wide = sql("SELECT seq, repeat('x', 1000000) AS v FROM seq_1_to_200");
    support::wide_rows_fill_the_byte_cap_in_batches_that_fit_it(&db, &wide).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_url_max_allowed_packet_refuses_a_longer_row() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "bounds", &[]).await;
    let url = sandbox.url_as(
        &sandbox.user,
        &sandbox.password,
        "?max_allowed_packet=4194304",
    );
    let db = MySqlDialect::connect("mysql", &url).await.unwrap();
    // Over the connection's packet limit, under the call's byte cap.
    let error = db
        .query(
            &sql("SELECT repeat('x', 10000000) AS big"),
            &capped(64 << 20),
        )
        .await
        .unwrap_err();
    let message = error.to_string();
    assert!(
        matches!(error, DialectError::Unsupported { .. })
            && message.contains("max_allowed_packet")
            && message.contains("LENGTH("),
        "{error:?}"
    );
    // The adapter goes on serving.
    let small = db
        .query(
            &sql("SELECT repeat('x', 1000000) AS small"),
            &capped(64 << 20),
        )
        .await
        .unwrap();
    assert_eq!(small.row_count, 1);
}
