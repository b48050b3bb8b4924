//! The guard's built-in denial of credential, secret and server-internal catalogues, against a
//! real PostgreSQL server (`NAO_TEST_POSTGRES_URL`, a superuser URL such as
//! `postgres://postgres@127.0.0.1:5432/test`).
//!
//! - Every PostgreSQL entry of `nao_guard::SensitiveEntry::all()` is refused by the default
//!   policy, and names a relation and column this server really has (or is one of the few that
//!   only other versions or extensions have): lifted with `Policy::allow_sensitive`, the same
//!   statement runs through the adapter, connected as a fresh login-only role, without a syntax
//!   or unknown-object error. Some of them the login-only role can read, which is why the guard
//!   refuses them.
//! - Every relation of `pg_catalog` and `information_schema` whose name or columns look like
//!   secrets (passwords, connection strings, user-mapping and server options, statement text,
//!   sampled values, settings) is refused, so the list cannot silently miss one on this server
//!   version.
//!
//! Each test makes its own schema and role and drops them at the end, even when it fails.
//! Without the variable the tests say so and pass.
#![cfg(feature = "postgres")]
#![allow(clippy::unwrap_used)] // Tests: a failed unwrap is a failed test.

mod support;

use nao_core::guard::{Policy, SensitiveEntry, SensitiveKind, SqlDialect, check};
use nao_core::{Dialect, DialectExt, ExecOptions};
use support::postgres::{LOGIN_ONLY, Sandbox, server_url};

/// What only this file asks of the sandbox.
impl Sandbox {
    /// The adapter opened from a URL, as the login-only role (it may read what PUBLIC may).
    async fn opened_adapter(&self) -> std::sync::Arc<dyn Dialect> {
        nao_dialects::open("pg", &self.url_as(&self.role, ""))
            .await
            .unwrap()
    }

    /// The schema of a catalogue relation on this server, when it has one of that name.
    async fn schema_of(&self, relation: &str) -> Option<String> {
        self.admin
            .query_opt(
                "SELECT n.nspname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
                 WHERE c.relname = $1 \
                 ORDER BY n.nspname IN ('pg_catalog', 'information_schema') DESC, n.nspname LIMIT 1",
                &[&relation],
            )
            .await
            .unwrap()
            .map(|row| row.get(0))
    }
}

/// Whether the default policy refuses `sql` as a sensitive relation or column.
fn refused(sql: &str) -> bool {
    match check(sql, SqlDialect::Postgres, &Policy::default()) {
        Ok(_) => false,
        Err(r) => matches!(
            r.kind().code(),
            "table_not_allowed" | "sensitive" | "implicit_call"
        ),
    }
}

/// The relation an entry is about, and a statement that reads what the entry refuses.
fn probe(entry: &SensitiveEntry) -> (&'static str, Option<&'static str>) {
    let name = entry.name();
    match entry.kind() {
        SensitiveKind::Column => {
            let (relation, column) = name.rsplit_once('.').unwrap();
            (relation, Some(column))
        }
        _ => (name, None),
    }
}

/// Relations of the list that this PostgreSQL 15 server cannot have: newer versions or an
/// extension that is not installed.
const ELSEWHERE: &[&str] = &["pg_ident_file_mappings", "pg_stat_statements"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_postgres_entry_is_refused_and_names_what_the_server_has() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "entries", LOGIN_ONLY).await;
    let db = sandbox.opened_adapter().await;
    let entries: Vec<_> = SensitiveEntry::all()
        .filter(|e| e.engine().contains("PostgreSQL"))
        .filter(|e| e.kind() != SensitiveKind::Statement)
        .collect();
    assert!(entries.len() >= 30, "{} PostgreSQL entries", entries.len());
    let mut readable = Vec::new();
    let mut problems = Vec::new();
    for entry in entries {
        let (written, column) = probe(entry);
        let bare = written.rsplit('.').next().unwrap();
        let Some(schema) = sandbox.schema_of(bare).await else {
            if !ELSEWHERE.contains(&bare) {
                problems.push(format!(
                    "{}: no relation {bare} on this server",
                    entry.name()
                ));
            }
            continue;
        };
        let select = column.unwrap_or("*");
        let qualified = format!("SELECT {select} FROM {schema}.{bare}");
        for sql in [
            qualified.clone(),
            format!("SELECT {select} FROM {}", written.to_ascii_uppercase()),
            format!("SELECT {select} FROM \"{schema}\".\"{bare}\""),
        ] {
            if !refused(&sql) {
                problems.push(format!("{sql}: not refused"));
            }
        }
        // Lifted, the statement is real SQL for this server: it runs, or the role lacks the
        // privilege; it never fails as a syntax error or an unknown relation or column.
        let lifted = Policy::default().allow_sensitive(entry.name());
        let Ok(statement) = check(&qualified, SqlDialect::Postgres, &lifted) else {
            problems.push(format!(
                "{qualified}: refused once {} is lifted",
                entry.name()
            ));
            continue;
        };
        match db.query(&statement, &ExecOptions::default()).await {
            Ok(_) => readable.push(entry.name()),
            Err(e) if e.kind_code() == "permission" => {}
            Err(e) => problems.push(format!("{qualified}: {} {e}", e.kind_code())),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    eprintln!("a login-only role can read: {readable:?}");
    // The role alone does not protect these: PUBLIC may read them.
    for expected in [
        "pg_settings",
        "pg_db_role_setting",
        "pg_stat_activity.query",
        "pg_user_mappings",
    ] {
        assert!(readable.contains(&expected), "{expected}: {readable:?}");
    }
}

/// Columns whose names match the patterns below but hold nothing secret.
const HARMLESS: &[(&str, &str, &str)] = &[(
    "pg_extension",
    "extconfig",
    "the OIDs of an extension's configuration tables",
)];

/// Column names that say "secret, statement text, sampled values or settings".
const SECRET_COLUMNS: &str = "passw|conninfo|umoptions|srvoptions|^query$|config$|stavalues|\
                              most_common_vals|most_common_elems|histogram_bounds|stxdmcv|\
                              auth_method|sourcefile|^ident$|secret|^setting$";

/// Relation names that say "credentials or server configuration".
const SECRET_RELATIONS: &str = "authid|shadow|hba|ident_file|passw|secret|user_mapping|\
                                file_settings|^pg_statistic|largeobject$|^pg_config$";

/// Relations matching `SECRET_RELATIONS` that hold nothing secret.
const HARMLESS_RELATIONS: &[(&str, &str)] = &[
    (
        "pg_statistic_ext",
        "the definitions of extended statistics, no values",
    ),
    (
        "user_mappings",
        "information_schema's list of mappings, without their options",
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_list_covers_every_secret_looking_relation_of_this_server() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "catalogue", LOGIN_ONLY).await;
    // pg_stat_statements, when the server has it, in the test's schema (dropped with it).
    let extension = format!(
        "CREATE EXTENSION IF NOT EXISTS pg_stat_statements SCHEMA {}",
        sandbox.schema
    );
    let statements = match sandbox.admin.batch_execute(&extension).await {
        Ok(()) => true,
        Err(e) => {
            eprintln!("pg_stat_statements not checked live: {e}");
            false
        }
    };
    let rows = sandbox
        .admin
        .query(
            "SELECT n.nspname::text, c.relname::text, a.attname::text \
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
             JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped \
             WHERE c.relkind IN ('r', 'v', 'm', 'f', 'p') \
               AND (n.nspname IN ('pg_catalog', 'information_schema') \
                    OR c.relname = 'pg_stat_statements') \
               AND (a.attname ~ $1 OR c.relname ~ $2) \
             ORDER BY 1, 2, 3",
            &[&SECRET_COLUMNS, &SECRET_RELATIONS],
        )
        .await
        .unwrap();
    let mut checked = Vec::new();
    let mut missed = Vec::new();
    for row in &rows {
        let (schema, relation, column): (String, String, String) =
            (row.get(0), row.get(1), row.get(2));
        let by_column = regex_lite_match(SECRET_COLUMNS, &column);
        if by_column
            && HARMLESS
                .iter()
                .any(|(r, c, _)| *r == relation && *c == column)
        {
            continue;
        }
        if !by_column && HARMLESS_RELATIONS.iter().any(|(r, _)| *r == relation) {
            continue;
        }
        let star = format!("SELECT * FROM {schema}.{relation}");
        let named = format!("SELECT \"{column}\" FROM {schema}.{relation}");
        let bare = format!("SELECT \"{column}\" FROM {relation}");
        for sql in [star, named, bare] {
            if !refused(&sql) {
                missed.push(sql);
            }
        }
        checked.push(format!("{relation}.{column}"));
    }
    assert!(
        missed.is_empty(),
        "not refused (add them to the guard's sensitive catalogue, or to HARMLESS with a \
         reason):\n{}",
        missed.join("\n")
    );
    for expected in [
        "pg_authid.rolpassword",
        "pg_stat_activity.query",
        "pg_user_mappings.umoptions",
        "pg_subscription.subconninfo",
        "pg_settings.setting",
    ]
    .into_iter()
    .chain(statements.then_some("pg_stat_statements.query"))
    {
        assert!(
            checked.iter().any(|c| c == expected),
            "{expected} not seen: {checked:?}"
        );
    }
}

/// The few regular-expression forms `SECRET_COLUMNS` uses (`a|b`, `^x`, `x$`), matched the way
/// PostgreSQL's `~` does, so the test can tell which pattern picked a row.
fn regex_lite_match(pattern: &str, text: &str) -> bool {
    pattern
        .split('|')
        .any(|alt| match (alt.strip_prefix('^'), alt.strip_suffix('$')) {
            (Some(rest), _) if rest.ends_with('$') => text == &rest[..rest.len() - 1],
            (Some(rest), _) => text.starts_with(rest),
            (None, Some(rest)) => text.ends_with(rest),
            (None, None) => text.contains(alt),
        })
}
