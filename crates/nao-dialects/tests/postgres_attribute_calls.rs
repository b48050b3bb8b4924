//! PostgreSQL's attribute notation (`x.f` is the call `f(x)`) against a real server
//! (`NAO_TEST_POSTGRES_URL`, a superuser URL used only to set up; the adapter connects as a
//! least-privilege role of the test's own). The guard refuses every denied function in that
//! notation, and the adapter's catalogue check refuses user-defined functions on base tables.
//!
//! Without the variable the tests say so and pass.
#![cfg(feature = "postgres")]
#![allow(clippy::unwrap_used)] // Tests: a failed unwrap is a failed test.

mod support;

use nao_core::guard::{FunctionClass, Policy, RejectKind, SqlDialect, check};
use nao_core::{DialectError, DialectExt, ExecOptions};
use support::postgres::{Sandbox, connect_admin, server_url};

/// A table and a user-defined function on its rows; the role may read the table.
const TABLE_AND_FUNCTION: &str = "
    CREATE TABLE {schema}.t (id int, name text);
    INSERT INTO {schema}.t VALUES (1, 'a');
    CREATE FUNCTION {schema}.touch(r {schema}.t) RETURNS text
      LANGUAGE plpgsql AS $$ BEGIN RETURN 'called'; END $$;
    GRANT USAGE ON SCHEMA {schema} TO {role};
    GRANT SELECT ON {schema}.t TO {role};
    ALTER ROLE {role} SET search_path = {schema};";

/// The findings of the security review, each refused by the guard before anything runs; and
/// the server really does run that notation as a call (so the class is real, not theoretical).
#[tokio::test]
async fn the_reported_attribute_calls_are_refused() {
    let Some(url) = server_url() else { return };
    let admin = connect_admin(&url).await;
    let called: String = admin
        .query_one("SELECT ('x'::text).upper", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(
        called, "X",
        "the server calls upper('x') through attribute notation"
    );
    let policy = Policy::default().with_row_cap(100);
    for (sql, class) in [
        (
            "SELECT ('/etc/hostname'::text).pg_read_file",
            FunctionClass::FileAccess,
        ),
        ("SELECT ('.'::text).pg_ls_dir", FunctionClass::FileAccess),
        (
            "SELECT (pg_backend_pid()).pg_terminate_backend",
            FunctionClass::Administrative,
        ),
        (
            "SELECT ('slot'::name).pg_drop_replication_slot",
            FunctionClass::Administrative,
        ),
        (
            "SELECT (1259::oid).pg_stat_reset_single_table_counters",
            FunctionClass::SideEffect,
        ),
        ("SELECT (1.5).pg_sleep", FunctionClass::Sleep),
    ] {
        let refused = check(sql, SqlDialect::Postgres, &policy).unwrap_err();
        match refused.kind() {
            RejectKind::ImplicitCall { class: got, .. } => assert_eq!(*got, class, "{sql}"),
            other => panic!("{sql}: refused as {other:?}"),
        }
    }
}

/// `t.touch` passes the guard (it cannot know `t`'s columns) and the adapter's catalogue check
/// refuses it before it runs; real columns, including ones named like built-in functions
/// (`name`), still read.
#[tokio::test]
async fn user_functions_on_base_tables_are_refused_by_the_catalogue_check() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "attr", TABLE_AND_FUNCTION).await;
    let db = sandbox.adapter().await;
    let policy = Policy::default();
    let schema = &sandbox.schema;
    let options = ExecOptions::default();

    for sql in [
        format!("SELECT t.touch FROM {schema}.t t"),
        format!("SELECT {schema}.t.touch FROM {schema}.t"),
        "SELECT x.touch FROM t x".to_owned(),
        format!("SELECT 1 FROM {schema}.t t WHERE t.touch = 'called'"),
        "SELECT l.touch FROM t, LATERAL (SELECT * FROM t) l".to_owned(),
    ] {
        let checked = check(&sql, SqlDialect::Postgres, &policy).unwrap();
        assert!(!checked.attribute_refs().is_empty(), "{sql}");
        match db.query(&checked, &options).await {
            Err(DialectError::Permission { message, .. }) => {
                assert!(message.contains("touch"), "{sql}: {message}");
            }
            other => panic!("{sql}: expected a refusal, got {other:?}"),
        }
    }
    for sql in [
        format!("SELECT t.id, t.name FROM {schema}.t t"),
        format!("SELECT {schema}.t.name FROM {schema}.t"),
        "SELECT x.id FROM t x JOIN t y ON x.id = y.id".to_owned(),
    ] {
        let checked = check(&sql, SqlDialect::Postgres, &policy).unwrap();
        let result = db.query(&checked, &options).await.unwrap();
        assert_eq!(result.row_count, 1, "{sql}");
    }
    drop(sandbox);
}

/// Every function of the live catalogue, in attribute notation: a denied one is refused with
/// its class, an unknown one is refused on a value and reported on a base table, a built-in one
/// passes. The loop is generated from `pg_proc`, so a function the guard does not know about
/// cannot slip through by name.
#[tokio::test]
async fn every_catalogue_function_in_attribute_notation() {
    let Some(url) = server_url() else { return };
    let admin = connect_admin(&url).await;
    let names: Vec<String> = admin
        .query(
            "SELECT DISTINCT proname::text FROM pg_catalog.pg_proc ORDER BY 1",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert!(names.len() > 1_000, "only {} functions", names.len());
    let policy = Policy::default();
    let (mut denied, mut unknown, mut allowed) = (0, 0, 0);
    for name in &names {
        let quoted = name.replace('"', "\"\"");
        let call = check(
            &format!("SELECT \"{quoted}\"(1)"),
            SqlDialect::Postgres,
            &policy,
        );
        let on_value = check(
            &format!("SELECT (1).\"{quoted}\""),
            SqlDialect::Postgres,
            &policy,
        );
        let on_row = check(
            &format!("SELECT t.\"{quoted}\" FROM t"),
            SqlDialect::Postgres,
            &policy,
        );
        match call.as_ref().map_err(|r| r.kind()) {
            Err(RejectKind::Function { class, .. }) if *class != FunctionClass::Unknown => {
                denied += 1;
                for (form, verdict) in [("value", &on_value), ("row", &on_row)] {
                    match verdict.as_ref().map_err(|r| r.kind()) {
                        Err(RejectKind::ImplicitCall { class: got, .. }) => {
                            assert_eq!(got, class, "{name} on a {form}");
                        }
                        other => panic!("{name} on a {form}: {other:?}"),
                    }
                }
            }
            Err(RejectKind::Function { .. }) => {
                unknown += 1;
                assert!(
                    matches!(
                        on_value.as_ref().map_err(|r| r.kind()),
                        Err(RejectKind::ImplicitCall { .. })
                    ),
                    "{name} on a value: {on_value:?}"
                );
                let reported = on_row.unwrap_or_else(|r| panic!("{name} on a row: {r}"));
                assert!(
                    reported
                        .attribute_refs()
                        .iter()
                        .any(|r| r.folded_name() == *name),
                    "{name} on a row is not reported"
                );
            }
            Ok(_) => {
                allowed += 1;
                assert!(on_value.is_ok(), "{name} on a value: {on_value:?}");
            }
            Err(other) => panic!("{name}: the plain call is refused as {other:?}"),
        }
    }
    eprintln!("{denied} denied, {unknown} unknown, {allowed} allowed catalogue functions checked");
    assert!(denied > 50 && unknown > 100 && allowed > 100);
}
