//! The guard and the embedded engines agree: what the guard approves, the engine runs, and what
//! the engine's own read-only gate refuses, the guard refused first.
//!
//! SQLite: every pragma SQLite knows (its own `pragma_list`), in both forms (`PRAGMA x` and the
//! table-valued `pragma_x`), through `guard::check` and the real adapter, whose authorizer
//! applies the guard's `SqlitePragma` list. DuckDB: the host-revealing catalogue
//! (`SensitiveEntry` table functions and settings) against what DuckDB 1.5 really has and
//! prints. And the row-cap rewrite, which prints the statement again, against each engine: the
//! capped text returns what the text as written returns (method calls, lambdas, struct and list
//! literals, hex numbers, VALUES, dollar quoting), and what the engine does not parse the way
//! sqlparser does is refused (`'abc'.upper()` in DuckDB, `x ISNULL` read as an alias); and
//! DuckDB syntax the guard reads beyond sqlparser (PIVOT/UNPIVOT statements, ASOF, USING
//! SAMPLE) runs with the cap spliced in.
//! PostgreSQL runs when `NAO_TEST_POSTGRES_URL` is set (a superuser URL, used to set up).
#![allow(clippy::unwrap_used, clippy::print_stdout)] // Tests: a failed unwrap is a failed test.

#[cfg(feature = "postgres")]
mod support;

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

    /// sqlparser's statement loop stops at the word `END` after a statement and drops the rest;
    /// SQLite reads `end` as an alias and runs the rest: a UNION over a table the policy denies
    /// went past the table deny list. Refused now (the guard reads every token).
    #[tokio::test]
    async fn end_after_a_statement_is_no_place_to_hide_sql() {
        let db = database();
        let sql = "SELECT b FROM t end UNION SELECT name FROM sqlite_schema";
        let policy = Policy::default().deny_table("sqlite_schema");
        let refused = check(sql, SqlDialect::Sqlite, &policy).unwrap_err();
        assert_eq!(refused.kind().code(), "parse", "{refused}");
        let ran = engine(&db, sql).await.unwrap();
        assert!(
            ran.row_count > 2,
            "SQLite ran the UNION the guard was not shown"
        );
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

    /// The first value of a result, with its Arrow type (a slice's debug form), so that an
    /// integer and a blob of the same bytes differ.
    fn first_value(result: &CollectedBatches) -> String {
        let batch = result.batches.first().expect("a batch");
        format!("{:?}", batch.column(0).slice(0, 1))
    }

    #[tokio::test]
    async fn the_capped_text_returns_what_the_text_as_written_returns() {
        let db = database();
        let policy = Policy::default().with_row_cap(100);
        for sql in [
            "SELECT 0x1f + 1 AS v",
            "SELECT 0x1F AS v",
            "VALUES (7), (8)",
            "SELECT 1 UNION VALUES (2)",
            "SELECT x'41' AS v",
            "SELECT 'it''s' AS v",
            "SELECT b NOTNULL AS v FROM t ORDER BY a",
        ] {
            let capped = check(sql, SqlDialect::Sqlite, &policy).unwrap();
            assert!(capped.cap_applied(), "{sql}");
            let as_written = engine(&db, sql).await.unwrap();
            let ran = run(&db, &capped)
                .await
                .unwrap_or_else(|e| panic!("{}: {e}", capped.sql()));
            assert_eq!(
                first_value(&ran),
                first_value(&as_written),
                "{sql} capped as {}",
                capped.sql()
            );
        }
    }

    #[tokio::test]
    async fn postfix_isnull_is_refused_because_sqlite_reads_an_operator() {
        let db = database();
        let sql = "SELECT b ISNULL FROM t ORDER BY a";
        // SQLite reads `b ISNULL` as `b IS NULL`, not as an alias of b.
        let read = first_value(&engine(&db, sql).await.unwrap());
        let test = "SELECT b IS NULL FROM t ORDER BY a";
        assert_eq!(read, first_value(&engine(&db, test).await.unwrap()));
        let alias = "SELECT b AS x FROM t ORDER BY a";
        assert_ne!(read, first_value(&engine(&db, alias).await.unwrap()));
        let refused = check(sql, SqlDialect::Sqlite, &Policy::default()).unwrap_err();
        assert!(
            matches!(refused.kind(), RejectKind::Parse { .. }),
            "{refused:?}"
        );
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

    /// Whether DuckDB's parser refused the statement.
    fn parser_refused(result: &Result<CollectedBatches, DialectError>) -> bool {
        matches!(result, Err(DialectError::Syntax { code: Some(code), .. }) if code == "Parser Error")
    }

    /// The first row of a result, each value with its Arrow type.
    fn first_row(result: &CollectedBatches) -> Vec<String> {
        let batch = result.batches.first().expect("a batch");
        batch
            .columns()
            .iter()
            .map(|c| format!("{:?}", c.slice(0, 1)))
            .collect()
    }

    /// Method calls, lambdas, literals and other forms sqlparser prints again for the row cap.
    /// The guard refuses as a parse error exactly those DuckDB's parser refuses; the others,
    /// capped, return what the text as written returns.
    #[tokio::test]
    async fn method_calls_and_reprinted_forms_agree_with_duckdb() {
        let db = database();
        let policy = Policy::default().with_row_cap(100);
        let mut refused = 0;
        let mut capped = 0;
        let mut problems = Vec::new();
        for sql in [
            // Receivers DuckDB does not parse a method call after.
            "SELECT 'abc'.upper()",
            "SELECT 1.5.abs()",
            "SELECT NULL.upper()",
            "SELECT TRUE.to_json()",
            "SELECT DATE '2024-01-02'.year()",
            "SELECT l[1].abs() FROM t",
            "SELECT l[1:2].length() FROM t",
            "SELECT (SELECT 1).abs()",
            "SELECT - 1 .abs()",
            "SELECT 'abc'.upper().lower()",
            // Receivers it does.
            "SELECT ('abc').upper()",
            "SELECT (1.5).abs()",
            "SELECT (DATE '2024-01-02').year()",
            "SELECT (x).upper().lower() FROM t",
            "SELECT (x).upper() FROM t",
            "SELECT upper('a').lower()",
            "SELECT [1, 2, 3].length()",
            "SELECT [1, 2][1].abs()",
            "SELECT {'k': 'v'}.k.upper()",
            "SELECT MAP {'k': 1}['k'].abs()",
            "SELECT CASE WHEN true THEN 'a' END.upper()",
            "SELECT CAST(1 AS INTEGER).abs()",
            "SELECT TRY_CAST('1' AS INTEGER).abs()",
            "SELECT (l[1]).abs() FROM t",
            "SELECT s.a FROM t",
            // Lambdas, struct and list literals, COLUMNS, literals that print otherwise.
            "SELECT list_transform([1, 2], x -> x + 1)",
            "SELECT list_transform([1, 2], lambda x: x + 1)",
            "SELECT list_reduce([1, 2, 3], (a, b) -> a + b)",
            "SELECT [1, 2].list_transform(x -> x * 2)",
            "SELECT list_filter([1, 2], x -> x > 1).length()",
            "SELECT COLUMNS('^x$') FROM t",
            "SELECT COLUMNS(c -> c = 'n') FROM t",
            "SELECT {'a': 1, 'b': [1, 2]}",
            "SELECT struct_pack(a := 1).a",
            "SELECT 0x1f + 1 AS v",
            "SELECT X'41'",
            "SELECT '\\x41'::BLOB",
            "SELECT $$a'b$$",
            "SELECT $q$x $$ y$q$",
            "SELECT 'a\\b'",
            "SELECT 1_000, 1e3, .5",
            "VALUES (1), (2)",
            "FROM t SELECT x",
            "SELECT * EXCLUDE (s, l) FROM t",
            "SELECT * REPLACE (upper(x) AS x) FROM t",
        ] {
            let as_written = engine(&db, sql).await;
            match check(sql, SqlDialect::DuckDb, &policy) {
                Err(rejection) => {
                    let parse = matches!(rejection.kind(), RejectKind::Parse { .. });
                    if parse && parser_refused(&as_written) {
                        refused += 1;
                    } else {
                        problems.push(format!(
                            "{sql}: guard {rejection}, engine {:?}",
                            as_written.map(|r| r.row_count)
                        ));
                    }
                }
                Ok(checked) => {
                    let ran = db.query(&checked, &ExecOptions::default()).await;
                    match (&ran, &as_written) {
                        (Ok(ran), Ok(written)) if first_row(ran) == first_row(written) => {
                            capped += usize::from(checked.cap_applied());
                        }
                        _ => problems.push(format!(
                            "{sql}: capped as {} gives {:?}, as written {:?}",
                            checked.sql(),
                            ran.as_ref().map(first_row),
                            as_written.as_ref().map(first_row)
                        )),
                    }
                }
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
        assert_eq!(refused, 11, "refused as DuckDB's parser refuses");
        assert!(capped >= 30, "only {capped} capped");
    }

    /// DuckDB's SUMMARIZE, read by the guard as a query over its dataset, runs as written: one
    /// row of statistics per column of the table or query it summarizes.
    #[tokio::test]
    async fn summarize_runs_as_written() {
        let db = DuckDbDialect::in_memory("duck", |connection| {
            connection.execute_batch(
                "CREATE TABLE cities AS SELECT * FROM (VALUES ('NL', 2000, 1005), ('US', 2010, 608))
                   c(country, year, population)",
            )
        })
        .unwrap();
        let policy = Policy::default().with_row_cap(100);
        for (sql, columns) in [
            ("SUMMARIZE cities", vec!["country", "year", "population"]),
            (
                "SUMMARIZE SELECT year FROM cities WHERE year > 2000",
                vec!["year"],
            ),
            (
                "summarize from cities;",
                vec!["country", "year", "population"],
            ),
        ] {
            let checked = check(sql, SqlDialect::DuckDb, &policy).unwrap();
            assert!(!checked.cap_applied(), "{sql}");
            let result = db.query(&checked, &ExecOptions::default()).await.unwrap();
            let names = cells(&result)
                .into_iter()
                .map(|row| row[0].clone().unwrap_or_default())
                .collect::<Vec<_>>();
            assert_eq!(names, columns, "{sql}");
        }
    }

    /// DuckDB syntax sqlparser does not read and the guard does (PIVOT/UNPIVOT statements, also
    /// after WITH, ASOF
    /// joins, USING SAMPLE, `* RENAME`): with the row cap spliced in, DuckDB runs the text and
    /// returns the first rows of what the text as written returns.
    #[tokio::test]
    async fn engine_syntax_runs_capped_as_written() {
        const TABLES: &str = "CREATE TABLE cities AS SELECT * FROM (VALUES ('NL', 2000, 1005), ('NL', 2010, 1065),
               ('US', 2000, 564), ('US', 2010, 608), ('FR', 2000, 2100)) c(country, year, population);
             CREATE TABLE monthly AS SELECT * FROM (VALUES ('NL', 1, 2), ('US', 3, 4), ('FR', 5, 6)) m(country, jan, feb);
             CREATE TABLE trades AS SELECT * FROM (VALUES ('a', 5), ('a', 9), ('b', 7)) t(sym, ts);
             CREATE TABLE prices AS SELECT * FROM (VALUES ('a', 1, 10.0), ('a', 8, 11.0), ('b', 2, 20.0)) p(sym, ts, price);";
        let db = DuckDbDialect::in_memory("duck", |connection| connection.execute_batch(TABLES))
            .unwrap();
        // The text as written runs on a plain DuckDB connection to the same tables: through the
        // adapter's escape hatch DuckDB's reading refuses PIVOT statements (to DuckDB's parser
        // they are not one SELECT).
        let plain = nao_dialects::duckdb::driver::Connection::open_in_memory().unwrap();
        plain.execute_batch(TABLES).unwrap();
        let written = |sql: &str| -> Result<(usize, Vec<String>), String> {
            let mut statement = plain.prepare(sql).map_err(|e| e.to_string())?;
            let batches: Vec<_> = statement
                .query_arrow([])
                .map_err(|e| e.to_string())?
                .collect();
            let rows = batches.iter().map(|b| b.num_rows()).sum();
            let first = batches
                .iter()
                .find(|b| b.num_rows() > 0)
                .map_or_else(Vec::new, |b| {
                    b.columns()
                        .iter()
                        .map(|c| format!("{:?}", c.slice(0, 1)))
                        .collect()
                });
            Ok((rows, first))
        };
        let policy = Policy::default().with_row_cap(2);
        let mut problems = Vec::new();
        for sql in [
            "PIVOT cities ON year USING sum(population) GROUP BY country ORDER BY country",
            "PIVOT cities ON year IN (2000, 2010) USING sum(population) AS total GROUP BY country ORDER BY country LIMIT 5",
            "UNPIVOT monthly ON COLUMNS(* EXCLUDE (country)) INTO NAME month VALUE sales ORDER BY country, month",
            "PIVOT_LONGER (SELECT * FROM monthly WHERE jan > 0) ON jan, feb ORDER BY ALL",
            "WITH big AS (SELECT * FROM cities WHERE population > 600) PIVOT big ON year USING sum(population) GROUP BY country ORDER BY country",
            "WITH m AS (SELECT * FROM monthly) UNPIVOT m ON jan, feb INTO NAME month VALUE sales ORDER BY ALL",
            "SELECT t.sym, t.ts, p.price FROM trades t ASOF JOIN prices p ON t.sym = p.sym AND t.ts >= p.ts ORDER BY t.sym, t.ts",
            "SELECT t.sym, p.price FROM trades t ASOF LEFT JOIN prices p ON t.sym = p.sym AND t.ts >= p.ts ORDER BY ALL",
            "SELECT count(*) FROM cities USING SAMPLE 100 PERCENT (bernoulli)",
            // A sample of every row, so that both runs return the same rows.
            "SELECT country FROM cities USING SAMPLE 100 PERCENT (system) ORDER BY country",
            "SELECT * RENAME (population AS people) FROM cities ORDER BY ALL",
        ] {
            let checked = match check(sql, SqlDialect::DuckDb, &policy) {
                Ok(checked) => checked,
                Err(e) => {
                    problems.push(format!("{sql}: refused: {e}"));
                    continue;
                }
            };
            let as_written = written(sql);
            let ran = db.query(&checked, &ExecOptions::default()).await;
            match (&ran, &as_written) {
                (Ok(ran), Ok((rows, first)))
                    if ran.row_count <= 2
                        && ran.row_count == (*rows as u64).min(2)
                        && &first_row(ran) == first =>
                {
                    assert!(checked.cap_applied() || *rows <= 2, "{sql}");
                }
                _ => problems.push(format!(
                    "{sql}: capped as {} gives {:?}, as written {:?}",
                    checked.sql(),
                    ran.as_ref().map(|r| (r.row_count, first_row(r))),
                    as_written
                )),
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    /// `x.f().g()`: DuckDB calls the function `f` of a schema `x` when there is one, as it
    /// does for `x.f()` alone, so the guard judges the head of the chain as the qualified name.
    #[tokio::test]
    async fn a_chain_headed_by_a_name_calls_the_schemas_function() {
        let db = DuckDbDialect::in_memory("duck", |connection| {
            connection.execute_batch(
                "CREATE TABLE t (x VARCHAR); INSERT INTO t VALUES ('COLUMN');
                 CREATE SCHEMA x; CREATE MACRO x.upper() AS 'MACRO';",
            )
        })
        .unwrap();
        for sql in ["SELECT x.upper().lower() FROM t", "SELECT x.upper() FROM t"] {
            let ran = engine(&db, sql).await.unwrap();
            let value = cells(&ran)[0][0].clone().unwrap();
            assert!(value.eq_ignore_ascii_case("macro"), "{sql}: {value}");
            let refused = check(sql, SqlDialect::DuckDb, &Policy::default()).unwrap_err();
            assert!(
                matches!(refused.kind(), RejectKind::Function { name, .. } if name == "x.upper"),
                "{sql}: {refused:?}"
            );
        }
        // In parentheses it is the column's value, whatever the schemas.
        let sql = "SELECT (x).upper().lower() FROM t";
        let approved = check(sql, SqlDialect::DuckDb, &Policy::default()).unwrap();
        let ran = db.query(&approved, &ExecOptions::default()).await.unwrap();
        assert_eq!(cells(&ran)[0][0].as_deref(), Some("column"));
    }

    #[tokio::test]
    async fn a_number_glued_to_a_name_is_refused_because_duckdb_splits_it_otherwise() {
        let db = database();
        // DuckDB reads `0x1F` as 0 named x1F (sqlparser: the hex string X'1F'), and `0X1F` the
        // same way (sqlparser: 0 named X1F); the guard refuses both.
        let hex = engine(&db, "SELECT 0x1F").await.unwrap();
        assert_eq!(hex.schema.field(0).name(), "x1F");
        for sql in ["SELECT 0x1F", "SELECT 0X1F", "SELECT 1e3x", "SELECT 0b101"] {
            let refused = check(sql, SqlDialect::DuckDb, &Policy::default()).unwrap_err();
            assert!(
                matches!(refused.kind(), RejectKind::Parse { .. }),
                "{sql}: {refused:?}"
            );
        }
    }
}

#[cfg(feature = "postgres")]
mod postgres {
    use nao_core::guard::{Policy, RejectKind, SqlDialect, check};
    use nao_core::{DialectExt, ExecOptions};

    use super::support::postgres::{READER, Sandbox, server_url};

    /// Literals and operators sqlparser prints again for the row cap, on a live server: the
    /// capped text, run by the adapter as a read-only role, returns what the server returns
    /// for the text as written; and `x ISNULL`, which the server reads as `x IS NULL` and
    /// sqlparser as an alias, is refused.
    #[tokio::test]
    async fn the_capped_text_returns_what_the_text_as_written_returns() {
        let Some(url) = server_url() else { return };
        let sandbox = Sandbox::new(&url, "reprint", READER).await;
        let db = sandbox.adapter().await;
        let policy = Policy::default().with_row_cap(100);
        for sql in [
            "SELECT $$a'b\\c$$::text AS v",
            "SELECT $q$x $$ y$q$::text AS v",
            "SELECT E'a\\\\b\\'c'::text AS v",
            "SELECT U&'d\\0061t\\+000061'::text AS v",
            "SELECT B'101'::text AS v",
            "SELECT X'1F'::text AS v",
            "SELECT 'a' || 'b' AS v",
            "SELECT (ARRAY[1, 2])[2]::text AS v",
            "SELECT ('{\"a\": 1}'::jsonb ->> 'a') AS v",
            "SELECT (1 IS NOT NULL)::text AS v",
            "SELECT (NULL NOTNULL)::text AS v",
            "SELECT 'x' AS \"a\"\"b\"",
            "SELECT (1e-3)::text AS v",
        ] {
            let capped = check(sql, SqlDialect::Postgres, &policy).unwrap();
            let ran = db
                .query(&capped, &ExecOptions::default())
                .await
                .unwrap_or_else(|e| panic!("{}: {e}", capped.sql()));
            let value = format!("{:?}", ran.batches[0].column(0).slice(0, 1));
            let expected: Option<String> = sandbox.admin.query_one(sql, &[]).await.unwrap().get(0);
            let expected = expected.unwrap();
            assert!(
                value.contains(&format!("{expected:?}")) || value.contains(&expected),
                "{sql} capped as {}: {value}, as written {expected:?}",
                capped.sql()
            );
        }
        let isnull: bool = sandbox
            .admin
            .query_one("SELECT NULL ISNULL", &[])
            .await
            .unwrap()
            .get(0);
        assert!(isnull, "the server reads ISNULL as the null test");
        let refused = check("SELECT NULL ISNULL", SqlDialect::Postgres, &policy).unwrap_err();
        assert!(
            matches!(refused.kind(), RejectKind::Parse { .. }),
            "{refused:?}"
        );
    }
}
