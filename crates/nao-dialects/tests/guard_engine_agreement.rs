//! The guard and the embedded engines agree: what the guard approves, the engine runs, and what
//! the engine's own read-only gate refuses, the guard refused first.
//!
//! SQLite: every pragma SQLite knows (its own `pragma_list`), in both forms (`PRAGMA x` and the
//! table-valued `pragma_x`), through `guard::check` and the real adapter, whose authorizer
//! applies the guard's `SqlitePragma` list. DuckDB: the host-revealing catalogue
//! (`SensitiveEntry` table functions and settings) against what DuckDB 1.5 really has and
//! prints, and the row-cap rewrite of method calls and other re-printed forms.
#![allow(clippy::unwrap_used, clippy::print_stdout)] // Tests: a failed unwrap is a failed test.

#[cfg(feature = "sqlite")]
mod sqlite {
    use nao_core::guard::{
        Policy, PragmaArgument, ReadOnlySql, RejectKind, SqlDialect, SqlitePragma, check,
    };
    use nao_core::{CollectedBatches, DialectError, DialectExt, ExecOptions};
    use nao_dialects::sqlite::SqliteDialect;

    fn database() -> SqliteDialect {
        SqliteDialect::in_memory("lite", |conn| {
            conn.execute_batch(
                "CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT REFERENCES t (a));
                 CREATE INDEX i ON t (b);
                 INSERT INTO t VALUES (1, NULL), (2, 1);",
            )
        })
        .unwrap()
    }

    async fn run(db: &SqliteDialect, sql: &ReadOnlySql) -> Result<CollectedBatches, DialectError> {
        db.query(sql, &ExecOptions::default()).await
    }

    /// Runs `sql` on the engine without the guard: the engine's own verdict.
    async fn engine(db: &SqliteDialect, sql: &str) -> Result<CollectedBatches, DialectError> {
        let unchecked = ReadOnlySql::new_unchecked_allowing_writes(sql, SqlDialect::Sqlite);
        run(db, &unchecked).await
    }

    /// Every pragma SQLite knows, from the engine itself (a reading pragma, so the authorizer
    /// lets it through).
    async fn engine_pragmas(db: &SqliteDialect) -> Vec<String> {
        let listed = engine(db, "SELECT name FROM pragma_pragma_list ORDER BY name")
            .await
            .unwrap();
        let mut names = Vec::new();
        for batch in &listed.batches {
            let column = batch.column(0);
            let strings = arrow_array::cast::AsArray::as_string_opt::<i32>(column)
                .map(|a| a.iter().flatten().map(str::to_owned).collect::<Vec<_>>())
                .or_else(|| {
                    arrow_array::cast::AsArray::as_string_view_opt(column)
                        .map(|a| a.iter().flatten().map(str::to_owned).collect())
                })
                .unwrap();
            names.extend(strings);
        }
        names
    }

    /// The argument a pragma reports on: the index for `index_*`, else the table.
    fn object(name: &str) -> &'static str {
        if name.starts_with("index_") { "i" } else { "t" }
    }

    /// The well-formed statement and table-valued forms of a pragma: bare, and with the object
    /// it reports on for those that take one. (The table-valued form of a setting takes at most
    /// a schema, and SQLite refuses any other argument as it refuses `upper(1, 2)`: an arity
    /// error, which the guard does not model for any function.)
    fn forms(name: &str) -> Vec<String> {
        let mut forms = vec![
            format!("PRAGMA {name}"),
            format!("PRAGMA main.{name}"),
            format!("SELECT * FROM pragma_{name}"),
            format!("SELECT * FROM pragma_{name}()"),
        ];
        if SqlitePragma::find(name).is_none_or(|p| p.argument() == PragmaArgument::Object) {
            let arg = object(name);
            forms.push(format!("PRAGMA {name}({arg})"));
            forms.push(format!("PRAGMA {name} = {arg}"));
            forms.push(format!("SELECT * FROM pragma_{name}('{arg}')"));
        }
        forms
    }

    #[tokio::test]
    async fn every_pragma_the_guard_approves_runs_in_both_forms() {
        let db = database();
        let pragmas = engine_pragmas(&db).await;
        assert!(pragmas.len() > 50, "pragma_list: {pragmas:?}");
        let lifted = Policy::default().with_sensitive_allowed(true);
        let mut approved = 0;
        let mut problems = Vec::new();
        for name in &pragmas {
            for sql in forms(name) {
                for policy in [&Policy::default(), &lifted] {
                    let Ok(checked) = check(&sql, SqlDialect::Sqlite, policy) else {
                        continue;
                    };
                    approved += 1;
                    if let Err(e) = run(&db, &checked).await {
                        problems.push(format!("{sql}: guard approved, engine: {e}"));
                    }
                }
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
        // Each pragma of the list is approved in its bare forms (two statements, and two
        // table-valued ones when it has them), under both policies (`database_list` under the
        // lifted one only).
        let forms: usize = SqlitePragma::all()
            .map(|p| if p.table_valued() { 4 } else { 2 })
            .sum();
        let expected = 2 * forms - 4;
        assert!(
            approved >= expected,
            "{approved} approvals, {expected} expected"
        );
    }

    #[tokio::test]
    async fn the_guard_and_the_authorizer_decide_each_pragma_alike() {
        let db = database();
        let mut problems = Vec::new();
        let lifted = Policy::default().with_sensitive_allowed(true);
        for name in engine_pragmas(&db).await {
            for (sql, argument) in [
                (format!("PRAGMA {name}"), None),
                (
                    format!("PRAGMA {name}({})", object(&name)),
                    Some(object(&name)),
                ),
            ] {
                let listed = SqlitePragma::only_reads(&name, argument);
                let guard = check(&sql, SqlDialect::Sqlite, &lifted).is_ok();
                let engine = match engine(&db, &sql).await {
                    Ok(_) => true,
                    Err(DialectError::Permission { .. }) => false,
                    // Refused for another reason (a missing object): not a gate's decision.
                    Err(_) => continue,
                };
                if guard != listed || engine != listed {
                    problems.push(format!(
                        "{sql}: list {listed}, guard {guard}, authorizer {engine}"
                    ));
                }
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[tokio::test]
    async fn pragmas_with_effects_are_refused_by_both() {
        let db = database();
        for sql in [
            "PRAGMA optimize",
            "PRAGMA wal_checkpoint",
            "PRAGMA wal_checkpoint(TRUNCATE)",
            "PRAGMA integrity_check",
            "PRAGMA quick_check",
            "PRAGMA foreign_key_check",
            "PRAGMA shrink_memory",
            "PRAGMA incremental_vacuum(10)",
            "PRAGMA query_only = 0",
            "PRAGMA query_only(false)",
            "PRAGMA writable_schema = ON",
            "PRAGMA journal_mode = WAL",
            "PRAGMA user_version = 7",
            "PRAGMA cache_size = 10",
            "PRAGMA case_sensitive_like = 1",
            "PRAGMA temp_store_directory",
            "PRAGMA temp_store_directory = '/tmp'",
            "PRAGMA trusted_schema = 1",
            "SELECT * FROM pragma_optimize",
            "SELECT * FROM pragma_integrity_check",
            "SELECT * FROM pragma_quick_check('t')",
            "SELECT * FROM pragma_foreign_key_check",
        ] {
            let guard = check(sql, SqlDialect::Sqlite, &Policy::default());
            assert!(guard.is_err(), "{sql}: the guard approved it");
            match engine(&db, sql).await {
                Err(DialectError::Permission { .. }) => {}
                other => panic!("{sql}: the authorizer did not refuse it: {other:?}"),
            }
        }
    }

    #[tokio::test]
    async fn database_list_shows_paths_and_is_sensitive_in_both_forms() {
        let db = database();
        for sql in [
            "PRAGMA database_list",
            "SELECT file FROM pragma_database_list",
            "SELECT * FROM pragma_database_list()",
        ] {
            let refused = check(sql, SqlDialect::Sqlite, &Policy::default()).unwrap_err();
            assert!(
                matches!(refused.kind(), RejectKind::Sensitive { entry, .. } if entry.name() == "pragma_database_list"),
                "{sql}: {refused:?}"
            );
            let lifted = Policy::default().allow_sensitive("pragma_database_list");
            let approved = check(sql, SqlDialect::Sqlite, &lifted).unwrap();
            let rows = run(&db, &approved).await.unwrap();
            assert!(rows.row_count > 0, "{sql}");
        }
    }
}

#[cfg(feature = "duckdb")]
mod duckdb {
    use nao_core::guard::{
        Policy, ReadOnlySql, RejectKind, SensitiveEntry, SensitiveKind, SqlDialect, check,
    };
    use nao_core::{CollectedBatches, DialectError, DialectExt, ExecOptions};

    use arrow_array::Array;
    use arrow_array::cast::AsArray;
    use arrow_schema::DataType;
    use nao_dialects::duckdb::DuckDbDialect;

    fn database() -> DuckDbDialect {
        DuckDbDialect::in_memory("duck", |connection| {
            connection.execute_batch(
                "CREATE TABLE t (x VARCHAR, n INTEGER, s STRUCT(a INTEGER), l INTEGER[]);
                 INSERT INTO t VALUES ('col', 1, {'a': 1}, [1, 2, 3]);",
            )
        })
        .unwrap()
    }

    async fn engine(db: &DuckDbDialect, sql: &str) -> Result<CollectedBatches, DialectError> {
        let unchecked = ReadOnlySql::new_unchecked_allowing_writes(sql, SqlDialect::DuckDb);
        db.query(&unchecked, &ExecOptions::default()).await
    }

    /// Every value of a result as text (NULL as `None`), row by row.
    fn cells(result: &CollectedBatches) -> Vec<Vec<Option<String>>> {
        let mut rows = Vec::new();
        for batch in &result.batches {
            for row in 0..batch.num_rows() {
                let mut values = Vec::new();
                for column in batch.columns() {
                    let value = (!column.is_null(row)).then(|| text(column.as_ref(), row));
                    values.push(value);
                }
                rows.push(values);
            }
        }
        rows
    }

    fn text(column: &dyn Array, row: usize) -> String {
        match column.data_type() {
            DataType::Utf8 => column.as_string::<i32>().value(row).to_owned(),
            DataType::LargeUtf8 => column.as_string::<i64>().value(row).to_owned(),
            DataType::Utf8View => column.as_string_view().value(row).to_owned(),
            _ => arrow_cast_display(column, row),
        }
    }

    /// Any other value, as Arrow's debug form of a one-row slice (enough to compare).
    fn arrow_cast_display(column: &dyn Array, row: usize) -> String {
        format!("{:?}", column.slice(row, 1))
    }

    /// The rows of a one-column text query, run without the guard.
    async fn strings(db: &DuckDbDialect, sql: &str) -> Vec<String> {
        let result = engine(db, sql).await.unwrap();
        cells(&result)
            .into_iter()
            .filter_map(|row| row.into_iter().next().flatten())
            .collect()
    }

    #[tokio::test]
    async fn every_host_revealing_table_function_exists_in_duckdb_and_is_refused_until_lifted() {
        let db = database();
        let functions = strings(
            &db,
            "SELECT DISTINCT function_name FROM duckdb_functions() \
             WHERE function_type IN ('table', 'table_macro')",
        )
        .await;
        let views = strings(&db, "SELECT view_name FROM duckdb_views() WHERE internal").await;
        let entries: Vec<_> = SensitiveEntry::all()
            .filter(|e| e.kind() == SensitiveKind::TableFunction && e.engine().contains("DuckDB"))
            .collect();
        assert!(entries.len() >= 10, "{}", entries.len());
        for entry in entries {
            let name = entry.name();
            let called = functions.iter().any(|f| f == name);
            let viewed = views.iter().any(|v| v == name);
            assert!(
                called || viewed,
                "{name} is neither a table function nor a view"
            );
            let sql = if called {
                format!("SELECT * FROM {name}()")
            } else {
                format!("SELECT * FROM {name}")
            };
            // `duckdb_logs_parsed` takes the log type.
            let sql = if name == "duckdb_logs_parsed" {
                format!("SELECT * FROM {name}('QueryLog')")
            } else {
                sql
            };
            let refused = check(&sql, SqlDialect::DuckDb, &Policy::default()).unwrap_err();
            assert!(
                matches!(refused.kind(), RejectKind::Sensitive { entry: got, .. } if *got == entry),
                "{sql}: {refused:?}"
            );
            let lifted = Policy::default().allow_sensitive(name);
            let approved = check(&sql, SqlDialect::DuckDb, &lifted).unwrap();
            match db.query(&approved, &ExecOptions::default()).await {
                Ok(_) => {}
                // `duckdb_extensions()` lists the extension directory, which the adapter's
                // `enable_external_access = false` forbids: the engine is stricter still.
                Err(DialectError::Permission { .. }) if name == "duckdb_extensions" => {}
                Err(e) => panic!("{sql}: {e}"),
            }
        }
    }

    async fn engine_runs(db: &DuckDbDialect, sql: &ReadOnlySql) {
        db.query(sql, &ExecOptions::default())
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", sql.sql()));
    }

    #[tokio::test]
    async fn no_setting_the_guard_lets_current_setting_read_shows_a_path_or_the_hosts_size() {
        let db = database();
        let dir = db
            .path()
            .parent()
            .and_then(|p| p.to_str())
            .unwrap()
            .to_owned();
        // DuckDB's own words pick the settings that hold paths or sizes taken from the host;
        // their values in this adapter are checked too.
        let settings = engine(
            &db,
            "SELECT name, coalesce(value, '') FROM duckdb_settings() \
             WHERE description ILIKE '%director%' OR description ILIKE '%path to which%' \
                OR description ILIKE '%file to which%' OR description ILIKE '%list of files%' \
                OR description ILIKE '%memory of the system%' \
                OR description ILIKE '%physical memory%' OR description ILIKE '%of memory limit%' \
                OR contains(value, '/') OR contains(value, '% of ')",
        )
        .await
        .unwrap();
        let rows = cells(&settings);
        let names: Vec<&str> = rows.iter().filter_map(|r| r[0].as_deref()).collect();
        for expected in [
            "home_directory",
            "secret_directory",
            "temp_directory",
            "extension_directory",
            "memory_limit",
            "max_temp_directory_size",
        ] {
            assert!(
                names.contains(&expected),
                "{expected} not found in {names:?}"
            );
        }
        assert!(
            rows.iter()
                .any(|r| r[1].as_deref().is_some_and(|v| v.contains(&dir))),
            "no setting shows the database's directory {dir}: {rows:?}"
        );
        let problems: Vec<String> = rows
            .iter()
            .filter(|row| {
                let name = row[0].as_deref().unwrap_or_default();
                ["current_setting", "getvariable"].iter().any(|f| {
                    let sql = format!("SELECT {f}('{name}')");
                    check(&sql, SqlDialect::DuckDb, &Policy::default()).is_ok()
                })
            })
            .map(|row| format!("{:?} = {:?}", row[0], row[1]))
            .collect();
        assert!(
            problems.is_empty(),
            "the guard lets these be read:\n{}",
            problems.join("\n")
        );
    }

    #[tokio::test]
    async fn no_table_function_the_guard_lets_through_shows_a_host_path() {
        let db = database();
        let dir = db
            .path()
            .parent()
            .and_then(|p| p.to_str())
            .unwrap()
            .to_owned();
        let functions = strings(
            &db,
            "SELECT DISTINCT function_name FROM duckdb_functions() \
             WHERE function_type = 'table' AND parameters = []",
        )
        .await;
        let mut approved = 0;
        let mut problems = Vec::new();
        for name in functions {
            let sql = format!("SELECT * FROM {name}()");
            let Ok(checked) = check(&sql, SqlDialect::DuckDb, &Policy::default()) else {
                continue;
            };
            approved += 1;
            let Ok(result) = db.query(&checked, &ExecOptions::default()).await else {
                continue;
            };
            for row in cells(&result) {
                if let Some(value) = row.iter().flatten().find(|v| v.contains(&dir)) {
                    problems.push(format!("{name}() shows {value:?}"));
                }
            }
        }
        assert!(approved >= 10, "only {approved} table functions approved");
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[tokio::test]
    async fn harmless_introspection_stays_readable() {
        let db = database();
        for sql in [
            "SELECT version(), current_database(), current_schema()",
            "SELECT current_setting('TimeZone'), current_setting('threads')",
            "SELECT * FROM pragma_version()",
            "SELECT * FROM pragma_platform()",
            "SELECT * FROM pragma_table_info('t')",
            "SELECT table_name FROM duckdb_tables()",
            "SELECT column_name FROM duckdb_columns() WHERE table_name = 't'",
            "SELECT * FROM duckdb_tables",
            "PRAGMA table_info('t')",
            "SHOW DATABASES",
            "DESCRIBE t",
        ] {
            let approved = check(sql, SqlDialect::DuckDb, &Policy::default())
                .unwrap_or_else(|e| panic!("{sql}: {e}"));
            engine_runs(&db, &approved).await;
        }
        // SHOW DATABASES prints names, not the path the database file has.
        let dir = db.path().to_str().unwrap().to_owned();
        let shown = engine(&db, "SHOW DATABASES").await.unwrap();
        assert!(
            cells(&shown)
                .iter()
                .flatten()
                .flatten()
                .all(|v| !v.contains(&dir)),
            "{:?}",
            cells(&shown)
        );
    }
}
