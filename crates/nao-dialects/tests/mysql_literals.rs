//! The guard's reading of MySQL text against a real MariaDB (`NAO_TEST_MYSQL_URL`, a user that
//! may create databases and users, e.g. `mysql://root@127.0.0.1:3306/test`): string literals
//! with backslashes and quotes come back from the row-cap rewrite with the server's value, and
//! the executable comments (`/*! … */`) the guard accepts are the ones the server reads as the
//! guard does, while the server reads the refused ones otherwise.
//!
//! Without the variable each test says so and returns. Each test makes its own database
//! `nao_lit_<random>` and a user `nao_ro_<random>` that may only SELECT from it, connects the
//! adapter as that user, and drops both when it ends.
#![cfg(feature = "mysql")]
#![allow(clippy::unwrap_used)] // Tests: a failed unwrap is a failed test.

mod support;

use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use nao_core::guard::{self as nao_guard, Policy, ReadOnlySql, SqlDialect};
use nao_core::{CollectedBatches, Dialect, DialectExt, ExecOptions};
use nao_dialects::mysql::MySqlDialect;
use support::mysql::{Sandbox, server_url};

/// The row cap every statement is checked with.
const CAP: u64 = 10;

fn capped() -> Policy {
    Policy::default().with_row_cap(CAP)
}

/// The first row's first value as bytes (text as UTF-8, integers in decimal).
fn first_value(result: &CollectedBatches) -> Vec<u8> {
    let batch: &RecordBatch = result
        .batches
        .iter()
        .find(|b| b.num_rows() > 0)
        .unwrap_or_else(|| panic!("no rows"));
    let column = batch.column(0);
    assert!(!column.is_null(0), "NULL");
    match column.data_type() {
        DataType::Utf8 => column.as_string::<i32>().value(0).as_bytes().to_vec(),
        DataType::LargeUtf8 => column.as_string::<i64>().value(0).as_bytes().to_vec(),
        DataType::Utf8View => column.as_string_view().value(0).as_bytes().to_vec(),
        DataType::Binary => column.as_binary::<i32>().value(0).to_vec(),
        DataType::LargeBinary => column.as_binary::<i64>().value(0).to_vec(),
        DataType::Int64 => column
            .as_primitive::<arrow_array::types::Int64Type>()
            .value(0)
            .to_string()
            .into_bytes(),
        DataType::Int32 => column
            .as_primitive::<arrow_array::types::Int32Type>()
            .value(0)
            .to_string()
            .into_bytes(),
        other => panic!("unexpected type {other}"),
    }
}

/// Runs `sql` exactly as written (the SELECT-only user and the read-only transaction keep it
/// harmless): what the server itself makes of the text.
async fn run_as_written(db: &MySqlDialect, sql: &str) -> Result<CollectedBatches, String> {
    let unchecked = ReadOnlySql::new_unchecked_allowing_writes(sql, db.sql_dialect());
    db.query(&unchecked, &ExecOptions::default())
        .await
        .map_err(|e| e.to_string())
}

/// Literals and the value MySQL and MariaDB read in each (the first column of the first row).
const LITERALS: &[(&str, &[u8])] = &[
    (r"SELECT 'x\\\'' AS lit", br"x\'"),
    (r"SELECT 'a\\b' AS lit", br"a\b"),
    (r"SELECT 'a\\' AS lit, 'b' AS other", br"a\"),
    (r"SELECT 'it\\''s' AS lit", br"it\'s"),
    (r"SELECT 'it\'s' AS lit", b"it's"),
    (r"SELECT 'a\nb\tc' AS lit", b"a\nb\tc"),
    (r"SELECT 'a\0b' AS lit", b"a\0b"),
    (r"SELECT 'a\Zb' AS lit", b"a\x1ab"),
    (r"SELECT 'a\%b\_c' AS lit", br"a\%b\_c"),
    (r"SELECT 'a%b_c' LIKE 'a\%b\_c' AS m", b"1"),
    (r"SELECT 'axb_c' LIKE 'a\%b\_c' AS m", b"0"),
    (r"SELECT 'é\\\'日本\\' AS lit", "é\\'日本\\".as_bytes()),
    (r"SELECT 'x''''y' AS lit", b"x''y"),
    (r"SELECT 'a\'b''c\\d' AS lit", br"a'b'c\d"),
    (r#"SELECT "e\"f""g\\" AS lit"#, br#"e"f"g\"#),
    (r"SELECT _utf8mb4'x\\\'' AS lit", br"x\'"),
    (r"SELECT N'x\\\'' AS lit", br"x\'"),
    (r"SELECT X'41' AS lit", b"A"),
    (r"SELECT concat('a\\', 'b\'') AS lit", br"a\b'"),
    (r"SELECT 'a\\' AS lit LIMIT 500", br"a\"),
    (
        r"SELECT 'a\\' AS lit FROM (SELECT 1 AS one) AS t WHERE 'b\\' <> 'c' LIMIT 0, 500",
        br"a\",
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn capped_literals_return_the_values_written() {
    let Some(url) = server_url() else { return };
    let test = Sandbox::new(&url, "lit", &[]).await;
    let db = test.adapter("literals").await;
    let mut failures = Vec::new();
    for &(sql, expected) in LITERALS {
        // What the server reads in the text as written: the expectation is the server's.
        let as_written = run_as_written(&db, sql).await.map(|r| first_value(&r));
        if as_written.as_deref() != Ok(expected) {
            failures.push(format!(
                "{sql:?} as written: expected {expected:?}, got {as_written:?}"
            ));
            continue;
        }
        // Checked as MySQL (which may reach a MariaDB) and as the server's own dialect.
        for dialect in [SqlDialect::MySql, db.sql_dialect()] {
            let checked = match nao_guard::check(sql, dialect, &capped()) {
                Ok(checked) => checked,
                Err(e) => {
                    failures.push(format!("{sql:?} [{dialect}] refused: {}", e.message()));
                    continue;
                }
            };
            if !checked.cap_applied() {
                failures.push(format!(
                    "{sql:?} [{dialect}] ran uncapped: the guard fell back to the text as written"
                ));
                continue;
            }
            let got = db
                .query(&checked, &ExecOptions::default())
                .await
                .map(|r| first_value(&r))
                .map_err(|e| e.to_string());
            if got.as_deref() != Ok(expected) {
                failures.push(format!(
                    "{sql:?} [{dialect}] capped as {:?}: expected {expected:?}, got {got:?}",
                    checked.sql()
                ));
            }
        }
    }
    // Quoted names: two quotes in a row are one escaped quote each, and stay so when capped.
    let sql = "SELECT 7 AS `a````b`";
    for dialect in [SqlDialect::MySql, db.sql_dialect()] {
        let checked = nao_guard::check(sql, dialect, &capped()).unwrap();
        let result = db.query(&checked, &ExecOptions::default()).await.unwrap();
        let name = result.schema.field(0).name().clone();
        if !checked.cap_applied() || name != "a``b" {
            failures.push(format!(
                "{sql:?} [{dialect}] capped as {:?}: the column is named {name:?}",
                checked.sql()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} literals:\n{}",
        failures.len(),
        LITERALS.len(),
        failures.join("\n")
    );
}

/// Executable comments the guard accepts, and the value of the first column when the server
/// runs the text as written and when it runs the guard's reading (the capped text).
const ACCEPTED_COMMENTS: &[(&str, &[SqlDialect], &[u8])] = &[
    (
        "SELECT 7 /*! + 1 */ AS v",
        &[SqlDialect::MySql, SqlDialect::MariaDb],
        b"8",
    ),
    (
        "SELECT 7 /*!50000 + 1 */ AS v",
        &[SqlDialect::MySql, SqlDialect::MariaDb],
        b"8",
    ),
    (
        "SELECT 7 /*!40101+1*/ AS v",
        &[SqlDialect::MySql, SqlDialect::MariaDb],
        b"8",
    ),
    (
        "SELECT 7 /*!50000 + 1*//*!40000 + 1*/ AS v",
        &[SqlDialect::MySql, SqlDialect::MariaDb],
        b"9",
    ),
    (
        "SELECT 7 /*!*/ /*!50000*/ AS v",
        &[SqlDialect::MySql, SqlDialect::MariaDb],
        b"7",
    ),
    (
        "SELECT 7 /*!100000 + 1 */ AS v",
        &[SqlDialect::MariaDb],
        b"8",
    ),
    (
        "SELECT 7 /*!050000 + 1 */ AS v",
        &[SqlDialect::MariaDb],
        b"8",
    ),
];

/// Executable comments the guard refuses, in which dialects, and why: the server's reading.
const REFUSED_COMMENTS: &[(&str, &[SqlDialect], &str)] = &[
    (
        "SELECT 7 /*!1000001x , 9 */",
        &[SqlDialect::MySql, SqlDialect::MariaDb],
        "MariaDB reads the version 100000 and runs 1x , 9 (sqlparser: x , 9)",
    ),
    (
        "SELECT 7 /*!100000 + 1 */ AS v",
        &[SqlDialect::MySql],
        "MySQL before 8.1 reads the version 10000 and runs 0 + 1",
    ),
    (
        "SELECT 7 /*!50700 + 1 */ AS v",
        &[SqlDialect::MySql, SqlDialect::MariaDb],
        "MariaDB skips versions 50700-99999",
    ),
    (
        "SELECT 7 /*!123 + 1 */ AS v",
        &[SqlDialect::MySql, SqlDialect::MariaDb],
        "fewer than five digits are SQL",
    ),
    (
        "SELECT 7 /*!101100 + 1 */ AS v",
        &[SqlDialect::MariaDb],
        "MariaDB before 10.11 skips it",
    ),
    (
        "SELECT 7 /*!50000 -- */ + 1\n */ AS v",
        &[SqlDialect::MySql, SqlDialect::MariaDb],
        "the server's -- comment runs past the first */",
    ),
    (
        "SELECT 7 /*M! + 1 */ AS v",
        &[SqlDialect::MySql, SqlDialect::MariaDb],
        "MariaDB runs /*M! … */, MySQL and sqlparser read a comment",
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn executable_comments_are_read_as_the_server_reads_them() {
    let Some(url) = server_url() else { return };
    let test = Sandbox::new(&url, "lit", &[]).await;
    let db = test.adapter("literals").await;
    if db.sql_dialect() != SqlDialect::MariaDb {
        eprintln!("skipping: the server is not a MariaDB; the expectations are MariaDB's");
        return;
    }
    let mut failures = Vec::new();
    for &(sql, dialects, expected) in ACCEPTED_COMMENTS {
        let as_written = run_as_written(&db, sql).await.map(|r| first_value(&r));
        if as_written.as_deref() != Ok(expected) {
            failures.push(format!(
                "{sql:?} as written: expected {expected:?}, got {as_written:?}"
            ));
        }
        for &dialect in dialects {
            match nao_guard::check(sql, dialect, &capped()) {
                Ok(checked) => {
                    // The capped text keeps the comment as written (the cap is spliced in), and
                    // the server reads it as the guard did.
                    let got = db
                        .query(&checked, &ExecOptions::default())
                        .await
                        .map(|r| first_value(&r))
                        .map_err(|e| e.to_string());
                    if !checked.sql().starts_with(sql) || got.as_deref() != Ok(expected) {
                        failures.push(format!(
                            "{sql:?} [{dialect}] read as {:?}: expected {expected:?}, got {got:?}",
                            checked.sql()
                        ));
                    }
                }
                Err(e) => failures.push(format!("{sql:?} [{dialect}] refused: {}", e.message())),
            }
        }
    }
    for &(sql, dialects, why) in REFUSED_COMMENTS {
        for &dialect in dialects {
            match nao_guard::check(sql, dialect, &capped()) {
                Err(e) if e.kind().code() == "executable_comment" => {}
                other => failures.push(format!(
                    "{sql:?} [{dialect}] must be refused as an executable comment ({why}), got \
                     {other:?}"
                )),
            }
        }
    }
    // The server's own readings that make the refusals necessary.
    let seven = run_as_written(&db, "SELECT 7 /*!1000001x , 9 */")
        .await
        .unwrap();
    assert_eq!(
        seven.schema.field(0).name(),
        "1x",
        "MariaDB names the column 1x"
    );
    for (sql, value) in [
        ("SELECT 7 /*!50700 + 1 */ AS v", b"7"),
        ("SELECT 7 /*!50000 -- */ + 1\n */ AS v", b"7"),
        ("SELECT 7 /*M! + 1 */ AS v", b"8"),
    ] {
        let got = run_as_written(&db, sql).await.map(|r| first_value(&r));
        assert_eq!(got.as_deref(), Ok(&value[..]), "{sql:?} as written");
    }
    assert!(
        run_as_written(&db, "SELECT 7 /*!123 + 1 */ AS v")
            .await
            .is_err(),
        "MariaDB runs the digits of /*!123 as SQL: a syntax error here"
    );
    // Optimizer hints that change settings are refused in every MySQL-family dialect.
    for dialect in [SqlDialect::MySql, SqlDialect::MariaDb] {
        for sql in [
            "SELECT /*+ MAX_EXECUTION_TIME(100000000) */ 7 AS v",
            "SELECT /*+ SET_VAR(sort_buffer_size = 16M) */ 7 AS v",
        ] {
            match nao_guard::check(sql, dialect, &capped()) {
                Err(e) if e.kind().code() == "session_change" => {}
                other => failures.push(format!("{sql:?} [{dialect}]: {other:?}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
