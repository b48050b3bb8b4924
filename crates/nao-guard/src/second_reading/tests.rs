use sqlparser::ast::Statement;
use sqlparser::parser::Parser;

use super::*;
use crate::{Policy, analyze, check};

/// The policies the case tables run under here: the default, a row cap (so the splice is read
/// too), and one that lets through what only a policy refuses (unknown functions, sensitive
/// catalogues), so that more statements reach the second reading.
fn policies() -> [(&'static str, Policy); 3] {
    [
        ("default", Policy::default()),
        ("row cap", Policy::default().with_row_cap(1_000)),
        (
            "permissive",
            Policy::default()
                .with_row_cap(10)
                .with_unknown_functions_allowed(true)
                .with_sensitive_allowed(true),
        ),
    ]
}

#[test]
fn the_case_tables_postgres_reads_agree() {
    let mut agreed = 0;
    let mut failures = Vec::new();
    for (sql, dialects) in crate::test_cases::statements() {
        if !dialects.contains(&SqlDialect::Postgres) {
            continue;
        }
        for (name, policy) in policies() {
            match check(&sql, SqlDialect::Postgres, &policy) {
                Ok(_) => agreed += 1,
                Err(e) if e.kind().code() == "readings_disagree" => {
                    failures.push(format!("check, {name} policy: {sql}\n  {e}"));
                }
                Err(_) => {}
            }
            let analysis = analyze(&sql, SqlDialect::Postgres, &policy);
            for e in analysis.rejections() {
                if e.kind().code() == "readings_disagree" {
                    failures.push(format!("analyze, {name} policy: {sql}\n  {e}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Most PostgreSQL cases pass the guard, so most were read twice.
    assert!(agreed > 500, "only {agreed} statements passed");
}

/// The guard's tree of `sql`, or of `SELECT 1` where sqlparser does not read it (the tree only
/// serves to find calls sqlparser reads as syntax).
fn tree(sql: &str) -> Statement {
    let dialect = SqlDialect::Postgres.parser_dialect();
    Parser::parse_sql(dialect, sql)
        .ok()
        .and_then(|mut statements| (statements.len() == 1).then(|| statements.remove(0)))
        .unwrap_or_else(|| {
            Parser::parse_sql(dialect, "SELECT 1")
                .expect("SELECT 1 parses")
                .remove(0)
        })
}

/// Compares PostgreSQL's reading of `sql` with a guard reading made up of `tables` and
/// `functions` (as written) over the guard's own tree of `guard_sql`.
fn compare_with(
    sql: &str,
    guard_sql: &str,
    kind: StatementKind,
    tables: &[TableName],
    functions: &[&str],
) -> Result<(), RejectKind> {
    let statement = tree(guard_sql);
    let functions: Vec<String> = functions.iter().map(|f| (*f).to_owned()).collect();
    let guard = GuardReading {
        statement: &statement,
        kind,
        tables,
        functions: &functions,
    };
    compare(&guard, read(sql))
}

fn tables(names: &[&str]) -> Vec<TableName> {
    names.iter().map(|n| TableName::new(n.split('.'))).collect()
}

/// Asserts that the readings of a query disagree on what `expected` says, and that the
/// rejection's message (what a host logs) holds both readings.
fn assert_disagree(
    sql: &str,
    kind: StatementKind,
    guard_tables: &[&str],
    functions: &[&str],
    expected: &str,
) {
    let result = compare_with(sql, sql, kind, &tables(guard_tables), functions);
    let Err(refused) = result else {
        panic!("{sql}: the readings agree");
    };
    let RejectKind::ReadingsDisagree {
        difference,
        guard,
        postgres,
    } = &refused
    else {
        panic!("{sql}: {refused:?}");
    };
    assert!(
        difference.contains(expected),
        "{sql}: {difference:?} does not say {expected:?}"
    );
    assert_eq!(refused.code(), "readings_disagree");
    let message = Rejection::new(refused.clone(), SqlDialect::Postgres).to_string();
    for reading in [difference, guard, postgres] {
        assert!(
            message.contains(reading.as_str()),
            "{message}\nlacks {reading}"
        );
    }
    for table in guard_tables {
        assert!(guard.contains(table), "{guard} lacks {table}");
    }
}

#[test]
fn a_relation_the_guard_did_not_see_is_refused() {
    assert_disagree(
        "SELECT * FROM orders JOIN customers ON true",
        StatementKind::Query,
        &["orders"],
        &[],
        "reads the relation customers, which the guard did not see",
    );
}

#[test]
fn a_call_the_guard_did_not_see_is_refused() {
    assert_disagree(
        "SELECT lower(name), upper(name) FROM t",
        StatementKind::Query,
        &["t"],
        &["lower"],
        "calls upper, which the guard did not see",
    );
}

#[test]
fn more_than_one_statement_is_refused() {
    assert_disagree(
        "SELECT 1; SELECT 2",
        StatementKind::Query,
        &[],
        &[],
        "reads 2 statements",
    );
}

#[test]
fn a_write_is_refused() {
    assert_disagree(
        "DELETE FROM orders",
        StatementKind::Query,
        &["orders"],
        &[],
        "reads a DeleteStmt where the guard reads a query",
    );
    assert_disagree(
        "WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d",
        StatementKind::Query,
        &["orders"],
        &[],
        "reads a DeleteStmt inside the statement",
    );
    assert_disagree(
        "EXPLAIN ANALYZE UPDATE orders SET total = 0",
        StatementKind::Explain,
        &["orders"],
        &[],
        "reads a UpdateStmt inside the statement",
    );
    assert_disagree(
        "SELECT * INTO copy FROM orders",
        StatementKind::Query,
        &["orders"],
        &[],
        "reads an INTO clause",
    );
    assert_disagree(
        "SELECT * FROM orders FOR UPDATE",
        StatementKind::Query,
        &["orders"],
        &[],
        "reads a locking clause",
    );
}

#[test]
fn another_kind_of_statement_is_refused() {
    assert_disagree(
        "SHOW search_path",
        StatementKind::Query,
        &[],
        &[],
        "reads a VariableShowStmt where the guard reads a query",
    );
    assert_disagree(
        "SELECT 1",
        StatementKind::Introspection,
        &[],
        &[],
        "reads a SelectStmt where the guard reads an introspection statement",
    );
}

#[test]
fn text_postgresql_does_not_parse_is_refused() {
    assert_disagree(
        "SELECT 1 +",
        StatementKind::Query,
        &[],
        &[],
        "PostgreSQL's parser refuses it",
    );
    // sqlparser reads DESCRIBE in its PostgreSQL dialect; PostgreSQL has no such statement.
    let refused = check("DESCRIBE orders", SqlDialect::Postgres, &Policy::default())
        .expect_err("PostgreSQL does not parse DESCRIBE");
    assert_eq!(refused.kind().code(), "readings_disagree");
    assert!(refused.to_string().contains("syntax error"), "{refused}");
}

#[test]
fn calls_where_pg_query_s_own_helpers_do_not_look_are_read() {
    // pg_query's `functions()` follows only some fields of some nodes: these calls are not in
    // its list, and the whole-tree walk finds each.
    for (sql, seen) in [
        ("VALUES (f(1))", &[][..]),
        ("SELECT * FROM t LIMIT f()", &[][..]),
        ("SELECT count(*) FILTER (WHERE f(x)) FROM t", &["count"][..]),
        ("SELECT sum(x) OVER (ORDER BY f(x)) FROM t", &["sum"][..]),
        ("SELECT x FROM t WINDOW w AS (PARTITION BY f(x))", &[][..]),
        ("SELECT ARRAY[f(1)]", &[][..]),
    ] {
        let helpers = pg_query::parse(sql, pg_query::ParserOptions::DEFAULT)
            .expect("PostgreSQL parses it")
            .functions();
        assert!(!helpers.contains(&"f".to_owned()), "{sql}: {helpers:?}");
        let guard_tables = if sql.contains(" t") {
            &["t"][..]
        } else {
            &[][..]
        };
        assert_disagree(
            sql,
            StatementKind::Query,
            guard_tables,
            seen,
            "calls f, which the guard did not see",
        );
    }
}

#[test]
fn names_are_compared_as_postgresql_resolves_them() {
    let query = StatementKind::Query;
    // Unquoted names fold to lower case; quoted ones keep their case.
    let upper = [TableName::new(["Sales", "Orders"])];
    assert_eq!(
        compare_with("SELECT * FROM Sales.Orders", "SELECT 1", query, &upper, &[]),
        Ok(())
    );
    assert_disagree(
        r#"SELECT * FROM "Orders""#,
        query,
        &["orders"],
        &[],
        "reads the relation Orders",
    );
    assert_eq!(
        compare_with(
            r#"SELECT "MyFn"(1)"#,
            "SELECT 1",
            query,
            &[],
            &[r#""MyFn""#]
        ),
        Ok(())
    );
    assert_disagree(r#"SELECT "MyFn"(1)"#, query, &[], &["myfn"], "calls MyFn");
    // A schema PostgreSQL reads must be the guard's too.
    assert_disagree(
        "SELECT evil.lower('A')",
        query,
        &[],
        &["lower"],
        "calls evil.lower",
    );
    assert_eq!(
        compare_with(
            "SELECT Pg_Catalog.LOWER('A')",
            "SELECT 1",
            query,
            &[],
            &["pg_catalog.lower"]
        ),
        Ok(())
    );
    // PostgreSQL cuts names to 63 bytes.
    let long = "a".repeat(80);
    let sql = format!("SELECT * FROM {long}");
    assert_eq!(
        compare_with(&sql, "SELECT 1", query, &tables(&[&long]), &[]),
        Ok(())
    );
    // A bare name that is a CTE of the statement is not a relation.
    let sql = "WITH c AS (SELECT 1) SELECT * FROM c";
    assert_eq!(compare_with(sql, sql, query, &[], &[]), Ok(()));
}

#[test]
fn written_function_names_split_and_fold_like_postgresql() {
    let cases: [(&str, &[&str]); 5] = [
        ("lower", &["lower"]),
        ("Pg_Catalog.LOWER", &["pg_catalog", "lower"]),
        (r#"s."F""#, &["s", "F"]),
        (r#""a""b""#, &[r#"a"b"#]),
        (r#""x.Y".z"#, &["x.Y", "z"]),
    ];
    for (written, parts) in cases {
        assert_eq!(folded_written(written), parts, "{written}");
    }
}

#[test]
fn calls_the_grammar_makes_of_syntax_are_not_compared() {
    let sql = "SELECT extract(year FROM d), trim(s), position('a' IN s), d AT TIME ZONE 'UTC', \
               s LIKE 'a' ESCAPE '!', s SIMILAR TO 'b', overlay(s PLACING 'x' FROM 2), \
               substring(s FROM 2), s IS NORMALIZED FROM t";
    assert_eq!(
        compare_with(sql, "SELECT 1", StatementKind::Query, &tables(&["t"]), &[]),
        Ok(())
    );
}

#[test]
fn calls_sqlparser_reads_as_syntax_count_only_where_its_tree_has_that_syntax() {
    let sql = "SELECT ceil(x), floor(x), substring(s, 1, 2) FROM t CROSS JOIN unnest(a) AS u(v)";
    let query = StatementKind::Query;
    assert_eq!(compare_with(sql, sql, query, &tables(&["t"]), &[]), Ok(()));
    // Over a tree without that syntax, the same calls are calls the guard did not see.
    let refused = compare_with(sql, "SELECT 1", query, &tables(&["t"]), &[]);
    assert!(
        matches!(&refused, Err(RejectKind::ReadingsDisagree { difference, .. })
            if difference.contains("calls ceil")),
        "{refused:?}"
    );
}

#[test]
fn trees_deeper_than_the_decoder_reads_are_refused() {
    let chain = |n: usize| format!("SELECT {}", vec!["x"; n].join(" || "));
    let policy = Policy::default();
    assert!(check(&chain(40), SqlDialect::Postgres, &policy).is_ok());
    let refused = check(&chain(60), SqlDialect::Postgres, &policy).expect_err("too deep");
    assert_eq!(refused.kind().code(), "readings_disagree");
    assert!(refused.to_string().contains("nested deeper"), "{refused}");
}

#[test]
fn only_postgres_gets_the_second_reading_unless_the_policy_turns_it_off() {
    let policy = Policy::default();
    let off = Policy::default().with_second_reading(false);
    for dialect in SqlDialect::ALL {
        assert_eq!(
            applies(dialect, &policy),
            dialect == SqlDialect::Postgres,
            "{dialect}"
        );
        assert!(!applies(dialect, &off), "{dialect}");
    }
    // The guard reads DESCRIBE in the generic dialect too; no second reading refuses it there,
    // nor in PostgreSQL with the second reading off.
    for (dialect, policy) in [(SqlDialect::Generic, &policy), (SqlDialect::Postgres, &off)] {
        let ok = check("DESCRIBE orders", dialect, policy);
        assert_eq!(ok.map(|ok| ok.kind()), Ok(StatementKind::Introspection));
    }
}

#[test]
fn readings_on_many_threads_agree_with_one() {
    let statements: Vec<String> = crate::test_cases::statements()
        .into_iter()
        .filter(|(_, dialects)| dialects.contains(&SqlDialect::Postgres))
        .map(|(sql, _)| sql)
        .collect();
    let verdicts = |statements: &[String]| -> Vec<String> {
        statements
            .iter()
            .map(|sql| match read(sql) {
                Ok(reading) => format!("{reading:?}"),
                Err(none) => none.postgres,
            })
            .collect()
    };
    let alone = verdicts(&statements);
    std::thread::scope(|scope| {
        let threads: Vec<_> = (0..4)
            .map(|_| scope.spawn(|| verdicts(&statements)))
            .collect();
        for thread in threads {
            assert_eq!(thread.join().expect("a reading thread"), alone);
        }
    });
}

#[test]
fn limits_postgresql_merges_across_parentheses_are_refused_before_it_reads_them() {
    let policy = Policy::default().with_row_cap(100);
    for sql in [
        "(SELECT a FROM t LIMIT 10) OFFSET 3",
        "((SELECT a FROM t OFFSET 3)) FETCH FIRST 5 ROWS ONLY",
        "SELECT * FROM ((SELECT a FROM t LIMIT 10) OFFSET 3) AS s",
    ] {
        // With PostgreSQL's assertions compiled in (debug builds), reading these aborts.
        let refused = check(sql, SqlDialect::Postgres, &policy).expect_err(sql);
        assert_eq!(refused.kind().code(), "readings_disagree", "{sql}");
        assert!(refused.to_string().contains("derived table"), "{refused}");
    }
    for sql in [
        "SELECT * FROM (SELECT a FROM t LIMIT 10) AS s OFFSET 3",
        "(SELECT a FROM t LIMIT 10) UNION SELECT a FROM u OFFSET 3",
        "(SELECT a FROM t) LIMIT 10",
    ] {
        assert!(check(sql, SqlDialect::Postgres, &policy).is_ok(), "{sql}");
    }
}
