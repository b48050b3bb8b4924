//! The guard's API: the text it hands over, the cap rewrite in each dialect, facts and messages.

use nao_guard::{
    FunctionClass, Policy, ReadOnlySql, RejectKind, SqlDialect, StatementKind, analyze, check,
};

fn ok(sql: &str, dialect: SqlDialect, policy: &Policy) -> ReadOnlySql {
    check(sql, dialect, policy).unwrap_or_else(|e| panic!("{sql:?} in {dialect}: {e}"))
}

fn refused(sql: &str, dialect: SqlDialect, policy: &Policy) -> RejectKind {
    match check(sql, dialect, policy) {
        Ok(ok) => panic!("{sql:?} in {dialect} passed as {:?}", ok.sql()),
        Err(e) => e.kind().clone(),
    }
}

#[test]
fn text_is_handed_over_as_written_without_trailing_semicolons_or_comments() {
    let p = Policy::default();
    let d = SqlDialect::Postgres;
    assert_eq!(ok("SELECT 1 ; -- done\n", d, &p).sql(), "SELECT 1");
    assert_eq!(ok("select  x\nfrom t;;", d, &p).sql(), "select  x\nfrom t");
    assert_eq!(ok("SELECT 'é;' /* c */ ;", d, &p).sql(), "SELECT 'é;'");
    assert_eq!(ok("SELECT 1 -- note", d, &p).sql(), "SELECT 1");
    assert_eq!(ok("  SELECT 2  ", d, &p).sql(), "  SELECT 2");
}

#[test]
fn row_cap_is_added_in_each_dialects_syntax() {
    let p = Policy::default().with_row_cap(100);
    let cases = [
        (
            SqlDialect::Postgres,
            "SELECT a FROM t",
            "SELECT a FROM t LIMIT 100",
        ),
        (SqlDialect::DuckDb, "FROM t", "FROM t LIMIT 100"),
        (
            SqlDialect::MsSql,
            "SELECT a FROM t",
            "SELECT TOP (100) a FROM t",
        ),
        (
            SqlDialect::Ansi,
            "SELECT a FROM t",
            "SELECT a FROM t FETCH FIRST 100 ROWS ONLY",
        ),
        (
            SqlDialect::MySql,
            "SELECT a FROM t LIMIT 5, 1000",
            "SELECT a FROM t LIMIT 5, 100",
        ),
        (
            SqlDialect::Postgres,
            "SELECT a FROM t LIMIT 500 OFFSET 10",
            "SELECT a FROM t LIMIT 100 OFFSET 10",
        ),
        (
            SqlDialect::Postgres,
            "SELECT a FROM t FETCH FIRST 500 ROWS ONLY",
            "SELECT a FROM t FETCH FIRST 100 ROWS ONLY",
        ),
        (
            SqlDialect::MsSql,
            "SELECT a FROM t ORDER BY a OFFSET 10 ROWS",
            "SELECT a FROM t ORDER BY a OFFSET 10 ROWS FETCH NEXT 100 ROWS ONLY",
        ),
        (
            SqlDialect::MsSql,
            "SELECT TOP 5000 a FROM t",
            "SELECT TOP 100 a FROM t",
        ),
    ];
    for (dialect, sql, expected) in cases {
        let checked = ok(sql, dialect, &p);
        assert_eq!(checked.sql(), expected, "{dialect}");
        assert!(checked.cap_applied(), "{dialect}: {sql}");
    }
}

#[test]
fn a_smaller_own_limit_is_kept() {
    let p = Policy::default().with_row_cap(100);
    for (dialect, sql) in [
        (SqlDialect::Postgres, "SELECT a FROM t LIMIT 10"),
        (SqlDialect::MsSql, "SELECT TOP 10 a FROM t"),
        (
            SqlDialect::Snowflake,
            "SELECT a FROM t FETCH FIRST 10 ROWS ONLY",
        ),
    ] {
        let checked = ok(sql, dialect, &p);
        assert_eq!(checked.sql(), sql);
        assert_eq!(checked.limit(), Some(10));
        assert!(!checked.cap_applied());
        assert_eq!(checked.effective_limit(Some(100)), Some(10));
    }
}

#[test]
fn set_operations_and_odd_limits_are_wrapped() {
    let p = Policy::default().with_row_cap(100);
    let union = "WITH x AS (SELECT 1 AS a) SELECT a FROM x UNION SELECT 2";
    assert_eq!(
        ok(union, SqlDialect::MsSql, &p).sql(),
        "WITH x AS (SELECT 1 AS a) SELECT TOP (100) * FROM (SELECT a FROM x UNION SELECT 2) AS nao_capped"
    );
    assert_eq!(
        ok("SELECT a FROM t LIMIT 2 BY a", SqlDialect::ClickHouse, &p).sql(),
        "SELECT * FROM (SELECT a FROM t LIMIT 2 BY a) AS nao_capped LIMIT 100"
    );
    let percent = ok("SELECT TOP 50 PERCENT a FROM t", SqlDialect::MsSql, &p);
    assert_eq!(
        percent.sql(),
        "SELECT TOP (100) * FROM (SELECT TOP 50 PERCENT a FROM t) AS nao_capped"
    );
    assert_eq!(percent.limit(), None);
}

#[test]
fn explain_and_introspection_are_not_capped() {
    let p = Policy::default().with_row_cap(100);
    let explain = ok("EXPLAIN SELECT * FROM t", SqlDialect::Postgres, &p);
    assert_eq!(explain.kind(), StatementKind::Explain);
    assert_eq!(explain.sql(), "EXPLAIN SELECT * FROM t");
    let show = ok("SHOW TABLES", SqlDialect::MySql, &p);
    assert_eq!(show.kind(), StatementKind::Introspection);
    assert!(!show.cap_applied());
}

#[test]
fn limits_are_found_at_the_top_level_only() {
    let p = Policy::default();
    let d = SqlDialect::Postgres;
    assert_eq!(
        ok("SELECT * FROM (SELECT * FROM t LIMIT 3) s", d, &p).limit(),
        None
    );
    assert_eq!(
        ok("WITH c AS (SELECT * FROM t LIMIT 3) SELECT * FROM c", d, &p).limit(),
        None
    );
    assert_eq!(
        ok("(SELECT * FROM t LIMIT 3) ORDER BY 1", d, &p).limit(),
        Some(3)
    );
    assert_eq!(
        ok("SELECT * FROM t LIMIT 7 OFFSET 2", d, &p).limit(),
        Some(7)
    );
    assert_eq!(
        ok("SELECT * FROM t LIMIT 2, 9", SqlDialect::MySql, &p).limit(),
        Some(9)
    );
    assert_eq!(
        ok("SELECT TOP 4 * FROM t", SqlDialect::MsSql, &p).limit(),
        Some(4)
    );
}

#[test]
fn tables_are_cte_aware_and_qualified_as_written() {
    let p = Policy::default();
    let sql = "WITH orders AS (SELECT * FROM sales.orders), recent AS (SELECT * FROM orders) \
               SELECT * FROM recent r JOIN \"Customers\" c ON c.id = r.cid JOIN orders o ON o.id = r.id";
    let tables: Vec<String> = ok(sql, SqlDialect::Postgres, &p)
        .tables()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(tables, ["sales.orders", "\"Customers\""]);

    // A non-recursive CTE cannot see itself: the inner `orders` is the real table.
    let shadow = "WITH orders AS (SELECT * FROM orders) SELECT * FROM orders";
    let tables: Vec<String> = ok(shadow, SqlDialect::Postgres, &p)
        .tables()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(tables, ["orders"]);
    let denied = Policy::default().deny_table("orders");
    assert!(matches!(
        refused(shadow, SqlDialect::Postgres, &denied),
        RejectKind::TableNotAllowed { .. }
    ));

    let recursive = "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) SELECT n FROM t";
    assert!(ok(recursive, SqlDialect::Postgres, &p).tables().is_empty());
}

#[test]
fn table_lists_apply_everywhere_in_the_tree() {
    let p = Policy::default()
        .allow_table("public.orders")
        .allow_table("customers")
        .deny_table("hr.*");
    let d = SqlDialect::Postgres;
    ok(
        "SELECT * FROM orders o JOIN public.orders p ON true JOIN x.customers c ON true",
        d,
        &p,
    );
    for sql in [
        "SELECT * FROM secrets",
        "SELECT * FROM orders WHERE id IN (SELECT id FROM audit.orders)",
        "SELECT (SELECT max(salary) FROM hr.salaries) FROM orders",
        "WITH s AS (SELECT * FROM hr.salaries) SELECT * FROM s",
    ] {
        assert!(
            matches!(refused(sql, d, &p), RejectKind::TableNotAllowed { .. }),
            "{sql}"
        );
    }
}

#[test]
fn denied_columns_are_refused_through_stars_and_whole_rows() {
    let p = Policy::default().deny_column("customers.ssn");
    let d = SqlDialect::Postgres;
    ok("SELECT id, name FROM customers", d, &p);
    ok("SELECT count(*) FROM customers", d, &p);
    ok("SELECT * FROM orders", d, &p);
    ok(
        "SELECT o.* FROM orders o JOIN customers c ON c.id = o.customer_id",
        d,
        &p,
    );
    for sql in [
        "SELECT ssn FROM customers",
        "SELECT c.SSN FROM customers c",
        "SELECT * FROM customers",
        "SELECT c.* FROM orders o JOIN customers c ON c.id = o.customer_id",
        "SELECT c FROM customers c",
        "SELECT row_to_json(c) FROM customers c",
        "SELECT id FROM customers ORDER BY ssn",
    ] {
        assert!(
            matches!(refused(sql, d, &p), RejectKind::ColumnNotAllowed { .. }),
            "{sql}"
        );
    }
}

#[test]
fn functions_follow_the_policy() {
    let d = SqlDialect::Postgres;
    let sql = "SELECT my_schema.clean_phone(phone) FROM customers";
    let kind = refused(sql, d, &Policy::default());
    assert_eq!(
        kind,
        RejectKind::Function {
            name: "my_schema.clean_phone".into(),
            class: FunctionClass::Unknown
        }
    );
    ok(
        sql,
        d,
        &Policy::default().allow_function("my_schema.clean_phone"),
    );
    ok(sql, d, &Policy::default().allow_function("clean_phone"));
    ok(
        sql,
        d,
        &Policy::default().with_unknown_functions_allowed(true),
    );
    let denied = Policy::default().deny_function("upper");
    let kind = refused("SELECT UPPER(name) FROM t", d, &denied);
    assert_eq!(
        kind,
        RejectKind::Function {
            name: "UPPER".into(),
            class: FunctionClass::DeniedByPolicy
        }
    );
    // The host cannot allow what the catalogue denies.
    let kind = refused(
        "SELECT pg_sleep(1)",
        d,
        &Policy::default().allow_function("pg_sleep"),
    );
    assert_eq!(
        kind,
        RejectKind::Function {
            name: "pg_sleep".into(),
            class: FunctionClass::Sleep
        }
    );
}

#[test]
fn analyze_reports_every_reason_and_the_facts() {
    let sql = "SELECT pg_sleep(1), my_udf(x) FROM a JOIN b USING (id) FOR UPDATE";
    let analysis = analyze(sql, SqlDialect::Postgres, &Policy::default());
    let codes: Vec<&str> = analysis
        .rejections()
        .iter()
        .map(|r| r.kind().code())
        .collect();
    assert_eq!(codes, ["locking", "function", "function"]);
    assert_eq!(analysis.functions(), ["pg_sleep", "my_udf"]);
    assert_eq!(analysis.tables().len(), 2);
    assert!(!analysis.is_read_only());
    assert_eq!(analysis.kind(), Some(StatementKind::Query));
}

#[test]
fn a_sensitive_column_is_found_with_every_other_reason() {
    // Reading a relation with built-in sensitive columns makes the guard walk the statement a
    // second time noting every column reference; nothing found before or during the first
    // walk may be lost or doubled.
    let sql = "EXPLAIN ANALYZE DELETE FROM t WHERE x IN (SELECT query FROM pg_stat_activity) \
               AND pg_sleep(1) IS NULL";
    let analysis = analyze(sql, SqlDialect::Postgres, &Policy::default());
    let codes: Vec<&str> = analysis
        .rejections()
        .iter()
        .map(|r| r.kind().code())
        .collect();
    assert_eq!(codes.first(), Some(&"write_in_query"), "{codes:?}");
    assert_eq!(
        codes.iter().filter(|c| **c == "function").count(),
        1,
        "{codes:?}"
    );
    assert!(codes.contains(&"sensitive"), "{codes:?}");
    let refused = check(
        "SELECT pid, query FROM pg_stat_activity",
        SqlDialect::Postgres,
        &Policy::default(),
    )
    .unwrap_err();
    assert_eq!(refused.kind().code(), "sensitive");
}

#[test]
fn rejections_carry_positions_and_messages_for_the_model() {
    let err = check(
        "SELECT id,\n  pg_sleep(10)\nFROM t",
        SqlDialect::Postgres,
        &Policy::default(),
    )
    .unwrap_err();
    let at = err.position().expect("position");
    assert_eq!((at.line, at.column), (2, 3));
    let message = err.to_string();
    assert!(
        message.contains("pg_sleep") && message.contains("line 2, column 3"),
        "{message}"
    );
    assert_eq!(err.dialect(), SqlDialect::Postgres);

    let err = check("DROP TABLE orders", SqlDialect::DuckDb, &Policy::default()).unwrap_err();
    assert_eq!(
        err.kind(),
        &RejectKind::NotAQuery {
            statement: "DROP TABLE".into()
        }
    );
    assert!(
        err.to_string()
            .starts_with("DROP TABLE statements are not allowed")
    );
}

#[test]
fn the_escape_hatch_is_marked_unchecked() {
    let sql = ReadOnlySql::new_unchecked_allowing_writes("DELETE FROM t", SqlDialect::Sqlite);
    assert!(!sql.is_checked());
    assert_eq!(sql.kind(), StatementKind::Unchecked);
    assert_eq!(sql.sql(), "DELETE FROM t");
    assert!(ok("SELECT 1", SqlDialect::Sqlite, &Policy::default()).is_checked());
}

#[test]
fn limits_of_the_policy_are_enforced() {
    let tight = Policy::default().with_max_sql_bytes(10);
    assert_eq!(
        refused("SELECT 12345678", SqlDialect::Generic, &tight),
        RejectKind::TooLong { len: 15, max: 10 }
    );
    let shallow = Policy::default().with_max_nesting(5);
    assert!(matches!(
        refused("SELECT ((((((((1))))))))", SqlDialect::Generic, &shallow),
        RejectKind::TooDeep { .. }
    ));
    let short = Policy::default().with_max_operator_chain(3);
    assert!(matches!(
        refused("SELECT 1+1+1+1+1", SqlDialect::Generic, &short),
        RejectKind::TooDeep { .. }
    ));
    ok("SELECT 1+1, 1+1, 1+1, 1+1", SqlDialect::Generic, &short);
}

#[test]
fn relations_that_name_files_urls_or_stages_are_refused() {
    let p = Policy::default();
    for (dialect, sql) in [
        (SqlDialect::DuckDb, "SELECT * FROM 'data.csv'"),
        (SqlDialect::DuckDb, "SELECT * FROM \"orders.parquet\""),
        (SqlDialect::DuckDb, "SELECT * FROM \"s3://bucket/x\""),
        (SqlDialect::Snowflake, "SELECT * FROM @my_stage/x.csv"),
    ] {
        assert!(
            matches!(refused(sql, dialect, &p), RejectKind::FileReference { .. }),
            "{sql}"
        );
    }
    // `TABLE t` inside a set operation is a table read too.
    let denied = Policy::default().deny_table("secrets");
    let kind = refused("SELECT 1 UNION TABLE secrets", SqlDialect::DuckDb, &denied);
    assert_eq!(
        kind,
        RejectKind::TableNotAllowed {
            name: "secrets".into()
        }
    );
}

#[test]
fn sequence_advances_and_table_wrappers() {
    let p = Policy::default();
    let kind = refused("SELECT my_seq.nextval, a FROM t", SqlDialect::Snowflake, &p);
    assert_eq!(
        kind,
        RejectKind::Function {
            name: "my_seq.nextval".into(),
            class: FunctionClass::SideEffect
        }
    );
    ok(
        "SELECT * FROM TABLE(flatten(input => parse_json('[1]')))",
        SqlDialect::Snowflake,
        &p,
    );
    ok(
        "SELECT * FROM TABLE(sequence(1, 10))",
        SqlDialect::Trino,
        &p,
    );
    let kind = refused("SELECT * FROM TABLE(pg_sleep(1))", SqlDialect::Trino, &p);
    assert!(
        matches!(
            kind,
            RejectKind::Function {
                class: FunctionClass::Sleep,
                ..
            }
        ),
        "{kind:?}"
    );
}

/// Engine syntax the guard cannot read is still refused, and the refusal says what to write
/// instead (the model rewrites the query rather than the user turning the guard off).
#[test]
fn unreadable_engine_syntax_is_refused_with_the_form_to_write() {
    let p = Policy::default();
    for (sql, dialect, says) in [
        (
            "SELECT * FROM (PIVOT sales ON year USING sum(amount)) AS p",
            SqlDialect::DuckDb,
            "SELECT * FROM sales PIVOT (sum(amount) FOR year IN (2023, 2024))",
        ),
        (
            "SUMMARIZE sales AS s",
            SqlDialect::DuckDb,
            "count(DISTINCT c)",
        ),
        (
            "SELECT * FROM sales USING SAMPLE (SELECT 10) ROWS",
            SqlDialect::DuckDb,
            "TABLESAMPLE 10 PERCENT",
        ),
        (
            "WITH 10 AS n, 5 m SELECT number FROM numbers(n)",
            SqlDialect::ClickHouse,
            "put the expression in the select list",
        ),
        (
            "SELECT * FROM ROWS FROM (generate_series(1, 3), unnest(ARRAY['a'])) AS t(n, s)",
            SqlDialect::Postgres,
            "unnest(array1, array2)",
        ),
    ] {
        assert!(
            matches!(refused(sql, dialect, &p), RejectKind::Parse { .. }),
            "{sql}"
        );
        let message = check(sql, dialect, &p).unwrap_err().to_string();
        assert!(message.contains(says), "{sql}: {message}");
    }
    // The forms the hints name do pass.
    for (sql, dialect) in [
        (
            "SELECT * FROM sales PIVOT (sum(amount) FOR year IN (2023, 2024))",
            SqlDialect::DuckDb,
        ),
        (
            "SELECT * FROM sales TABLESAMPLE 10 PERCENT",
            SqlDialect::DuckDb,
        ),
        (
            "SELECT * FROM unnest(ARRAY[1, 2], ARRAY['a', 'b']) AS t(n, s)",
            SqlDialect::Postgres,
        ),
        (
            "SELECT * EXCLUDE (amount), amount AS total FROM sales",
            SqlDialect::DuckDb,
        ),
        (
            "SELECT * FROM trades t JOIN LATERAL (SELECT * FROM prices p WHERE p.sym = t.sym \
             AND p.ts <= t.ts ORDER BY p.ts DESC LIMIT 1) p ON true",
            SqlDialect::DuckDb,
        ),
        (
            "WITH params AS (SELECT 10 AS n) SELECT number FROM numbers(10), params",
            SqlDialect::ClickHouse,
        ),
    ] {
        ok(sql, dialect, &p);
    }
}
