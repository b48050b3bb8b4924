//! Every entry of the catalogue, in every dialect and spelling, refused by default and allowed by
//! its override. The case table (`testdata/sensitive.toml`) holds the hand-picked hiding places
//! and look-alikes; these loops make sure no entry is left out.

use super::*;
use crate::{RejectKind, SqlDialect, check};

/// A concrete name for a pattern: `sys.x$*` becomes `sys.x$sample`.
fn sample(pattern: &str) -> String {
    pattern.replace('*', "sample")
}

/// The spellings of a relation entry that must all be refused.
fn spellings(pattern: &str, dialect: SqlDialect) -> Vec<String> {
    let concrete = sample(pattern);
    let (open, close) = dialect.identifier_quotes();
    let quoted: Vec<String> = concrete
        .split('.')
        .map(|p| format!("{open}{p}{close}"))
        .collect();
    let mut names = vec![
        concrete.clone(),
        concrete.to_ascii_uppercase(),
        quoted.join("."),
        format!("some_db.{}", quoted.join(".")),
    ];
    if !concrete.contains('.') {
        names.push(format!("pg_catalog.{concrete}"));
        names.push(format!("{open}PG_CATALOG{close}.{open}{concrete}{close}"));
    }
    names
}

fn code(sql: &str, dialect: SqlDialect, policy: &Policy) -> &'static str {
    match check(sql, dialect, policy) {
        Ok(_) => "ok",
        Err(r) => r.kind().code(),
    }
}

#[test]
fn every_relation_entry_is_refused_in_every_spelling_and_dialect() {
    let mut problems = Vec::new();
    for entry in SensitiveEntry::all().filter(|e| e.kind() == SensitiveKind::Relation) {
        let lifted = Policy::default().allow_sensitive(entry.name());
        let mut parsed = 0;
        for dialect in SqlDialect::ALL {
            for name in spellings(entry.name(), dialect) {
                let sql = format!("SELECT 1 AS one FROM {name}");
                match code(&sql, dialect, &Policy::default()) {
                    "parse" => continue,
                    "table_not_allowed" | "sensitive" => parsed += 1,
                    other => problems.push(format!("{dialect} {sql}: {other}")),
                }
                let after = code(&sql, dialect, &lifted);
                if matches!(after, "table_not_allowed" | "sensitive") {
                    problems.push(format!("{dialect} {sql}: still {after} once allowed"));
                }
            }
        }
        if parsed < SqlDialect::ALL.len() {
            problems.push(format!("{}: only {parsed} spellings parsed", entry.name()));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_generic_name_needs_its_schema() {
    for entry in SensitiveEntry::all().filter(|e| e.kind() == SensitiveKind::Relation) {
        let Some((_, name)) = entry.name().rsplit_once('.') else {
            continue;
        };
        let name = sample(name);
        for dialect in [SqlDialect::MySql, SqlDialect::Postgres, SqlDialect::DuckDb] {
            let (open, close) = dialect.identifier_quotes();
            for table in [
                format!("{open}{name}{close}"),
                format!("app.{open}{name}{close}"),
            ] {
                let sql = format!("SELECT 1 AS one FROM {table}");
                let got = code(&sql, dialect, &Policy::default());
                assert!(
                    !matches!(got, "table_not_allowed" | "sensitive"),
                    "{dialect} {sql}: {got}"
                );
            }
        }
    }
}

#[test]
fn every_column_entry_is_refused_by_name_star_and_whole_row_and_lifted_by_name() {
    for entry in SensitiveEntry::all().filter(|e| e.kind() == SensitiveKind::Column) {
        let (Some(relation), Some(column)) = (entry.relation(), entry.column()) else {
            panic!("{} has no relation or column", entry.name());
        };
        for dialect in [SqlDialect::Postgres, SqlDialect::MySql, SqlDialect::Generic] {
            let named = format!("SELECT {column} FROM {relation}");
            let star = format!("SELECT * FROM {relation}");
            let whole = format!("SELECT t FROM {relation} t");
            let count = format!("SELECT count(*) AS n FROM {relation}");
            for sql in [&named, &star] {
                match check(sql, dialect, &Policy::default()) {
                    // `*` names the relation's first sensitive column, not necessarily this one.
                    Err(r) => match r.kind() {
                        RejectKind::Sensitive { entry: got, .. } => {
                            assert_eq!(got.relation(), Some(relation), "{sql}");
                        }
                        other => panic!("{dialect} {sql}: {other:?}"),
                    },
                    Ok(_) => panic!("{dialect} {sql} passed"),
                }
            }
            assert_eq!(code(&whole, dialect, &Policy::default()), "sensitive");
            assert_eq!(code(&count, dialect, &Policy::default()), "ok", "{count}");
            for lift in [entry.name(), relation] {
                let policy = Policy::default().allow_sensitive(lift);
                assert_eq!(code(&named, dialect, &policy), "ok", "{named} with {lift}");
            }
        }
    }
}

/// A statement for each statement entry, by name.
const SHOW_SAMPLES: &[(&str, &str)] = &[
    ("SHOW GRANTS", "SHOW GRANTS FOR CURRENT_USER"),
    ("SHOW PROCESSLIST", "SHOW FULL PROCESSLIST"),
    ("SHOW ENGINE", "SHOW ENGINE INNODB STATUS"),
    ("SHOW BINLOG EVENTS", "SHOW BINLOG EVENTS"),
    ("SHOW RELAYLOG EVENTS", "SHOW RELAYLOG EVENTS"),
    ("SHOW MASTER", "SHOW MASTER STATUS"),
    ("SHOW REPLICA", "SHOW REPLICA STATUS"),
    ("SHOW ALL REPLICAS", "SHOW ALL SLAVES STATUS"),
    ("SHOW EXPLAIN FOR", "SHOW EXPLAIN FOR 7"),
    ("SHOW USER_STATISTICS", "SHOW CLIENT_STATISTICS"),
    ("SHOW USERS", "SHOW USERS"),
    ("SHOW SECRETS", "SHOW SECRETS"),
    ("SHOW ACCESS", "SHOW ACCESS"),
    ("SHOW NAMED COLLECTIONS", "SHOW NAMED COLLECTIONS"),
    ("SHOW ALL", "SHOW ALL"),
    ("SHOW *_command", "SHOW restore_command"),
    ("SHOW *conninfo*", "SHOW primary_conninfo"),
    ("SHOW *_file", "SHOW hba_file"),
    ("SHOW *memory*", "SHOW memory_limit"),
    ("SHOW *proxy*", "SHOW http_proxy"),
    ("SHOW *secret*", "SHOW app.settings.jwt_secret"),
];

#[test]
fn every_statement_entry_is_refused_with_its_reason_and_lifted_by_name() {
    let statements: Vec<_> = SensitiveEntry::all()
        .filter(|e| e.kind() == SensitiveKind::Statement)
        .collect();
    assert_eq!(statements.len(), SHOW_SAMPLES.len(), "a sample per entry");
    for (name, sql) in SHOW_SAMPLES {
        let Some(entry) = SensitiveEntry::find(name) else {
            panic!("no entry {name}");
        };
        for dialect in [SqlDialect::MySql, SqlDialect::Postgres, SqlDialect::Generic] {
            let refused = check(sql, dialect, &Policy::default()).expect_err(sql);
            match refused.kind() {
                RejectKind::Sensitive { entry: got, .. } => assert_eq!(got, &entry, "{sql}"),
                other => panic!("{dialect} {sql}: {other:?}"),
            }
            assert!(refused.message().contains(entry.reason()), "{refused}");
            let policy = Policy::default().allow_sensitive(name);
            match check(sql, dialect, &policy) {
                Ok(ok) => assert_eq!(ok.kind(), crate::StatementKind::Introspection),
                // PostgreSQL's own parser (feature `pg-query`) reads no MySQL SHOW statement.
                Err(e)
                    if cfg!(feature = "pg-query")
                        && dialect == SqlDialect::Postgres
                        && e.kind().code() == "readings_disagree" => {}
                Err(e) => panic!("{dialect} {sql}: {e}"),
            }
        }
    }
}

/// The dialects where a table function entry is a built-in once lifted.
fn engine_dialects(entry: &SensitiveEntry) -> Vec<SqlDialect> {
    let mut dialects = vec![SqlDialect::Generic];
    if entry.engine().contains("DuckDB") {
        dialects.push(SqlDialect::DuckDb);
    }
    if entry.engine().contains("SQLite") {
        dialects.push(SqlDialect::Sqlite);
    }
    dialects
}

#[test]
fn every_table_function_entry_is_refused_called_qualified_and_as_a_view_and_lifted_by_name() {
    let functions: Vec<_> = SensitiveEntry::all()
        .filter(|e| e.kind() == SensitiveKind::TableFunction)
        .collect();
    assert!(functions.len() >= 10, "{}", functions.len());
    for entry in functions {
        let name = entry.name();
        let upper = name.to_ascii_uppercase();
        let forms = [
            format!("SELECT * FROM {name}()"),
            format!("SELECT * FROM main.{name}()"),
            format!("SELECT * FROM \"{upper}\"()"),
            format!("SELECT count(*) AS n FROM {name}() AS f"),
            format!("SELECT * FROM {name}"),
            format!("SELECT * FROM system.main.{name}"),
            format!("SELECT (SELECT count(*) FROM {name}()) AS n"),
        ];
        let lifted = Policy::default().allow_sensitive(name);
        let mut callable = std::collections::HashSet::new();
        for dialect in engine_dialects(entry) {
            for sql in &forms {
                let refused = check(sql, dialect, &Policy::default()).expect_err(sql);
                match refused.kind() {
                    RejectKind::Sensitive { entry: got, .. } => {
                        assert_eq!(*got, entry, "{dialect} {sql}");
                    }
                    other => panic!("{dialect} {sql}: {other:?}"),
                }
                assert!(refused.message().contains(entry.reason()), "{refused}");
            }
            // Lifted, the view is an ordinary relation, and the unqualified call the built-in in
            // the dialects that have it (`pragma_database_list` is a view only, in DuckDB).
            assert_eq!(code(&forms[4], dialect, &lifted), "ok", "{dialect}");
            let all = Policy::default().with_sensitive_allowed(true);
            assert_eq!(code(&forms[4], dialect, &all), "ok", "{dialect}");
            for sql in [&forms[0], &forms[3]] {
                if code(sql, dialect, &lifted) == "ok" {
                    callable.insert(sql.clone());
                }
            }
        }
        assert_eq!(
            callable.len(),
            2,
            "{name} is a built-in nowhere once lifted"
        );
    }
}

#[test]
fn a_pragma_entry_refuses_the_pragma_statement_too() {
    let entry = SensitiveEntry::find("pragma_database_list").expect("entry");
    for dialect in [SqlDialect::Sqlite, SqlDialect::DuckDb, SqlDialect::Generic] {
        for sql in [
            "PRAGMA database_list",
            "PRAGMA main.database_list",
            "pragma DATABASE_LIST",
        ] {
            match check(sql, dialect, &Policy::default()).map_err(|r| r.kind().clone()) {
                Err(RejectKind::Sensitive { entry: got, .. }) => assert_eq!(got, entry),
                other => panic!("{dialect} {sql}: {other:?}"),
            }
            let lifted = Policy::default().allow_sensitive("pragma_database_list");
            assert_eq!(code(sql, dialect, &lifted), "ok", "{dialect} {sql}");
        }
    }
    // Other pragmas are no table function entry.
    assert_eq!(
        code("PRAGMA table_list", SqlDialect::Sqlite, &Policy::default()),
        "ok"
    );
}

#[test]
fn settings_that_show_the_host_are_refused_by_name() {
    for dialect in [SqlDialect::DuckDb, SqlDialect::Postgres] {
        for setting in [
            "home_directory",
            "secret_directory",
            "extension_directory",
            "extension_directories",
            "temp_directory",
            "max_temp_directory_size",
            "allowed_directories",
            "allowed_paths",
            "file_search_path",
            "log_query_path",
            "profile_output",
            "profiling_output",
            "http_logging_output",
            "custom_extension_repository",
            "autoinstall_extension_repository",
            "memory_limit",
            "max_memory",
            "http_proxy",
            "http_proxy_username",
            "HOME_DIRECTORY",
        ] {
            for sql in [
                format!("SELECT current_setting('{setting}')"),
                format!("SELECT getvariable('{setting}')"),
            ] {
                assert_eq!(
                    code(&sql, dialect, &Policy::default()),
                    "sensitive",
                    "{sql}"
                );
            }
        }
        for setting in [
            "TimeZone",
            "search_path",
            "threads",
            "access_mode",
            "Calendar",
        ] {
            let sql = format!("SELECT current_setting('{setting}')");
            assert_eq!(code(&sql, dialect, &Policy::default()), "ok", "{sql}");
        }
    }
    let computed = "SELECT getvariable(name) FROM vars";
    let refused = check(computed, SqlDialect::DuckDb, &Policy::default()).unwrap_err();
    assert!(matches!(
        refused.kind(),
        RejectKind::Function {
            class: crate::FunctionClass::Secrets,
            ..
        }
    ));
    let sql = "SELECT current_setting('memory_limit')";
    let lifted = Policy::default().allow_sensitive("SHOW *memory*");
    assert_eq!(code(sql, SqlDialect::DuckDb, &lifted), "ok");
}

#[test]
fn one_switch_allows_everything_and_turns_back() {
    let all = Policy::default().with_sensitive_allowed(true);
    let again = all.clone().with_sensitive_allowed(false);
    for sql in [
        "SELECT * FROM pg_authid",
        "SELECT query FROM pg_stat_activity",
        "SELECT * FROM pg_stat_activity",
        "SHOW GRANTS",
    ] {
        assert!(check(sql, SqlDialect::MySql, &all).is_ok(), "{sql}");
        assert!(check(sql, SqlDialect::MySql, &again).is_err(), "{sql}");
    }
    assert_eq!(again, Policy::default());
}

#[test]
fn the_allowlist_does_not_lift_a_sensitive_relation() {
    let policy = Policy::default().allow_table("pg_authid");
    let refused = check("SELECT * FROM pg_authid", SqlDialect::Postgres, &policy).unwrap_err();
    assert_eq!(refused.kind().code(), "sensitive");
    assert!(
        policy
            .sensitive_relation(&TableName::new(["pg_authid"]))
            .is_some()
    );
    let lifted = policy.allow_sensitive("pg_authid");
    assert!(check("SELECT * FROM pg_authid", SqlDialect::Postgres, &lifted).is_ok());
}

#[test]
fn refusals_say_why_and_not_to_retry() {
    for (sql, reason) in [
        ("SELECT * FROM pg_catalog.pg_authid", "password hash"),
        ("SELECT query FROM pg_stat_activity", "statement"),
        ("SHOW GRANTS", "privileges"),
    ] {
        let message = check(sql, SqlDialect::Postgres, &Policy::default())
            .unwrap_err()
            .message();
        assert!(message.contains(reason), "{message}");
        assert!(message.contains("do not look for another way"), "{message}");
    }
}

#[test]
fn host_denied_columns_keep_their_own_kind() {
    let policy = Policy::default().deny_column("customers.email");
    let sql = "SELECT * FROM customers JOIN pg_stat_activity ON true";
    let refused = check(sql, SqlDialect::Postgres, &policy).unwrap_err();
    assert_eq!(refused.kind().code(), "column_not_allowed");
}

#[test]
fn names_are_unique_findable_and_explained() {
    let mut seen = std::collections::HashSet::new();
    for entry in SensitiveEntry::all() {
        assert!(
            seen.insert(normalize(entry.name())),
            "{} twice",
            entry.name()
        );
        assert_eq!(
            SensitiveEntry::find(&entry.name().to_ascii_uppercase()),
            Some(entry)
        );
        assert!(!entry.reason().is_empty() && !entry.engine().is_empty());
        assert!(
            !entry.reason().ends_with('.'),
            "{}: reasons end without a full stop",
            entry.name()
        );
        if let Some(relation) = entry.relation() {
            // A `*` only ends a name, and names are written in lower case.
            let stars = relation.matches('*').count();
            assert!(
                stars == 0 || (stars == 1 && relation.ends_with('*')),
                "{relation}"
            );
            assert_eq!(relation, relation.to_ascii_lowercase());
            // The index files columns under their relation's exact last word.
            assert!(entry.column().is_none() || stars == 0, "{}", entry.name());
        }
    }
    assert_eq!(
        SensitiveEntry::find("show   grants").map(|e| e.name()),
        Some("SHOW GRANTS")
    );
    assert_eq!(SensitiveEntry::find("no_such_entry"), None);
}
