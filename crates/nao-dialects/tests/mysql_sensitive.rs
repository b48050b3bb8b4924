//! The guard's built-in denial of credential, secret and server-internal catalogues, against a
//! real MySQL or MariaDB server (`NAO_TEST_MYSQL_URL`, a user that may create databases and
//! users, e.g. `mysql://root@127.0.0.1:3306/test`).
//!
//! - Every MySQL-family entry of `nao_guard::SensitiveEntry::all()` is refused by the default
//!   policy, and names a table this server has (or one only other versions or TiDB have):
//!   lifted with `Policy::allow_sensitive`, the same statement runs through the adapter,
//!   connected as a fresh SELECT-only user, without a syntax or unknown-table error.
//! - Every table of `mysql`, `performance_schema`, `sys` and `information_schema` with a column
//!   that looks like a secret (passwords, authentication strings, privileges, statement text) is
//!   refused, so the list cannot silently miss one on this server version.
//!
//! Each test makes its own database and user and drops them at the end, even when it fails.
//! Without the variable the tests say so and pass.
#![cfg(feature = "mysql")]
#![allow(clippy::unwrap_used)] // Tests: a failed unwrap is a failed test.

mod support;

use mysql_async::prelude::Queryable;
use nao_core::guard::{Policy, SensitiveEntry, SensitiveKind, SqlDialect, check};
use nao_core::{Dialect, DialectExt, ExecOptions};
use support::mysql::{Sandbox, server_url};

/// What only this file asks of the sandbox.
impl Sandbox {
    /// The adapter opened from a URL, as the SELECT-only user.
    async fn opened_adapter(&self) -> std::sync::Arc<dyn Dialect> {
        nao_dialects::open("my", &self.ro_url()).await.unwrap()
    }

    /// A table of `schema` whose name matches `pattern` (a LIKE pattern), when the server has
    /// one.
    async fn table_like(&self, schema: &str, pattern: &str) -> Option<String> {
        let mut conn = self.root_conn().await;
        let found: Option<String> = conn
            .exec_first(
                "SELECT TABLE_NAME FROM information_schema.TABLES \
                 WHERE TABLE_SCHEMA = ? AND TABLE_NAME LIKE ? ORDER BY TABLE_NAME LIMIT 1",
                (schema, pattern),
            )
            .await
            .unwrap();
        let _ = conn.disconnect().await;
        found
    }
}

/// Whether the default policy refuses `sql` as a sensitive table or column, in both MySQL
/// dialects.
fn refused(sql: &str) -> bool {
    [SqlDialect::MySql, SqlDialect::MariaDb]
        .into_iter()
        .all(|d| {
            check(sql, d, &Policy::default())
                .is_err_and(|r| matches!(r.kind().code(), "table_not_allowed" | "sensitive"))
        })
}

/// Whether an entry is about the MySQL family's catalogue.
fn mysql_family(entry: &SensitiveEntry) -> bool {
    ["MySQL", "MariaDB", "TiDB"]
        .iter()
        .any(|e| entry.engine().contains(e))
        && entry.kind() != SensitiveKind::Statement
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_mysql_entry_is_refused_and_names_what_the_server_has() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "sens", &[]).await;
    let db = sandbox.opened_adapter().await;
    let mut version: String = String::new();
    if let Ok(Some(v)) = sandbox
        .root_conn()
        .await
        .query_first("SELECT VERSION()")
        .await
    {
        version = v;
    }
    let mariadb = version.contains("MariaDB");
    let entries: Vec<_> = SensitiveEntry::all().filter(|e| mysql_family(e)).collect();
    assert!(
        entries.len() >= 25,
        "{} MySQL-family entries",
        entries.len()
    );
    let mut problems = Vec::new();
    for entry in entries {
        let (relation, column) = match entry.kind() {
            SensitiveKind::Column => {
                let (relation, column) = entry.name().rsplit_once('.').unwrap();
                (relation, Some(column))
            }
            _ => (entry.name(), None),
        };
        let (schema, pattern) = relation.rsplit_once('.').unwrap();
        let like = pattern.replace('_', "\\_").replace('*', "%");
        let Some(table) = sandbox.table_like(schema, &like).await else {
            // Tables only MySQL (on MariaDB) or TiDB have.
            let elsewhere = entry.engine() == "TiDB"
                || (mariadb
                    && !entry.engine().contains("MariaDB")
                    && entry.engine() != "MySQL sys schema");
            if !elsewhere {
                problems.push(format!("{}: no such table on {version}", entry.name()));
            }
            continue;
        };
        let select = column.map_or("*".to_owned(), |c| format!("`{c}`"));
        let sql = format!("SELECT {select} FROM `{schema}`.`{table}`");
        for spelled in [
            sql.clone(),
            format!(
                "SELECT {select} FROM {}.{}",
                schema.to_ascii_uppercase(),
                table.to_ascii_uppercase()
            ),
        ] {
            if !refused(&spelled) {
                problems.push(format!("{spelled}: not refused"));
            }
        }
        let lifted = Policy::default().allow_sensitive(entry.name());
        let Ok(statement) = check(&sql, SqlDialect::MariaDb, &lifted) else {
            problems.push(format!("{sql}: refused once {} is lifted", entry.name()));
            continue;
        };
        // Real SQL for this server: it runs, or the user lacks the privilege.
        match db.query(&statement, &ExecOptions::default()).await {
            Ok(_) => {}
            Err(e) if e.kind_code() == "permission" => {}
            Err(e) => problems.push(format!("{sql}: {} {e}", e.kind_code())),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Column names that say "password, authentication, privileges or statement text".
const SECRET_COLUMNS: &[&str] = &[
    "argument",
    "authentication_string",
    "current_statement",
    "digest_text",
    "info",
    "info_binary",
    "last_statement",
    "priv",
    "processlist_info",
    "query",
    "query_sample_text",
    "sql_text",
];

/// Columns found by the patterns that hold nothing another session wrote.
const HARMLESS: &[(&str, &str, &str)] = &[(
    "information_schema",
    "optimizer_trace",
    "the trace of this session's own last statement",
)];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_list_covers_every_secret_looking_table_of_this_server() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "sens", &[]).await;
    let mut conn = sandbox.root_conn().await;
    let placeholders = vec!["?"; SECRET_COLUMNS.len()].join(", ");
    let params: Vec<mysql_async::Value> = SECRET_COLUMNS.iter().map(|c| (*c).into()).collect();
    // By column name; in the `mysql` schema also every grant table (a Host and a User column)
    // and every password column.
    let rows: Vec<(String, String, String)> = conn
        .exec(
            format!(
                "SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME FROM information_schema.COLUMNS c \
                 WHERE TABLE_SCHEMA IN ('mysql', 'performance_schema', 'sys', 'information_schema') \
                   AND (LOWER(COLUMN_NAME) IN ({placeholders}) \
                        OR LOWER(COLUMN_NAME) LIKE '%password%' \
                        OR (TABLE_SCHEMA = 'mysql' AND LOWER(COLUMN_NAME) = 'host' \
                            AND EXISTS (SELECT 1 FROM information_schema.COLUMNS u \
                                        WHERE u.TABLE_SCHEMA = c.TABLE_SCHEMA \
                                          AND u.TABLE_NAME = c.TABLE_NAME \
                                          AND LOWER(u.COLUMN_NAME) IN ('user', 'username')))) \
                 ORDER BY 1, 2, 3"
            ),
            mysql_async::Params::Positional(params),
        )
        .await
        .unwrap();
    let _ = conn.disconnect().await;
    let mut missed = Vec::new();
    let mut checked = Vec::new();
    for (schema, table, column) in &rows {
        let harmless = HARMLESS
            .iter()
            .any(|(s, t, _)| s.eq_ignore_ascii_case(schema) && t.eq_ignore_ascii_case(table));
        if harmless {
            continue;
        }
        for sql in [
            format!("SELECT `{column}` FROM `{schema}`.`{table}`"),
            format!("SELECT * FROM {schema}.{table}"),
        ] {
            if !refused(&sql) {
                missed.push(sql);
            }
        }
        checked.push(format!("{schema}.{table}.{column}").to_ascii_lowercase());
    }
    assert!(
        missed.is_empty(),
        "not refused (add them to the guard's sensitive catalogue, or to HARMLESS with a \
         reason):\n{}",
        missed.join("\n")
    );
    for expected in [
        "mysql.user.authentication_string",
        "mysql.global_priv.priv",
        "mysql.servers.password",
        "mysql.general_log.argument",
        "information_schema.processlist.info",
        "performance_schema.events_statements_current.sql_text",
        "sys.processlist.current_statement",
    ] {
        assert!(
            checked.iter().any(|c| c == expected),
            "{expected} not seen: {checked:?}"
        );
    }
}
