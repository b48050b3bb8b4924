//! The extended dialects read everything their engine's sqlparser dialect reads, the same way.

use sqlparser::dialect::{ClickHouseDialect, Dialect, DuckDbDialect};
use sqlparser::parser::Parser;
use sqlparser::tokenizer::Tokenizer;

use super::{ClickHouseExtended, DuckDbExtended};
use crate::SqlDialect;

/// Every statement of the case tables and the generated query shapes that `base` reads is read
/// by `extended` into the same tree, from the same tokens.
fn reads_as(base: &dyn Dialect, extended: &dyn Dialect) {
    let statements = crate::test_cases::statements()
        .into_iter()
        .map(|(sql, _)| sql)
        .chain(crate::limit::tests::generated_statements());
    let mut compared = 0;
    let mut differences = Vec::new();
    for sql in statements {
        let tokens = Tokenizer::new(base, &sql).tokenize();
        if tokens != Tokenizer::new(extended, &sql).tokenize() {
            differences.push(format!("tokens differ: {sql}"));
            continue;
        }
        let Ok(tree) = Parser::parse_sql(base, &sql) else {
            continue;
        };
        compared += 1;
        match Parser::parse_sql(extended, &sql) {
            Ok(extended_tree) if extended_tree == tree => {}
            Ok(other) => differences.push(format!("{sql}\n    reads as {other:?}")),
            Err(e) => differences.push(format!("{sql}\n    does not parse: {e}")),
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
    assert!(compared > 1_000, "{compared}");
}

#[test]
fn duckdb_extended_reads_what_duckdb_reads_the_same_way() {
    reads_as(&DuckDbDialect {}, &DuckDbExtended);
    // The guard parses DuckDB with it, and the parser's dialect checks still see DuckDB.
    assert_eq!(
        SqlDialect::DuckDb.parser_dialect().dialect(),
        std::any::TypeId::of::<DuckDbDialect>()
    );
}

#[test]
fn duckdb_pivot_statements_read_as_pivot_queries() {
    let parse = |sql: &str| Parser::parse_sql(&DuckDbExtended, sql);
    let standard = |sql: &str| Parser::parse_sql(&DuckDbDialect {}, sql);
    // The simplified statement reads as the standard clause over the same table and aggregate.
    let simplified = parse("PIVOT cities ON year USING sum(population) GROUP BY country").unwrap();
    let text = simplified[0].to_string();
    assert!(
        text.starts_with("SELECT * FROM cities PIVOT(sum(population) FOR year IN (ANY))"),
        "{text}"
    );
    assert!(text.ends_with("GROUP BY country"), "{text}");
    let unpivot = parse("UNPIVOT monthly ON jan, feb INTO NAME month VALUE sales LIMIT 3").unwrap();
    let text = unpivot[0].to_string();
    assert!(
        text.starts_with("SELECT * FROM monthly UNPIVOT(sales FOR month IN (jan, feb))"),
        "{text}"
    );
    assert!(text.ends_with("LIMIT 3"), "{text}");
    // The plain dialect reads neither; malformed statements stay errors.
    assert!(standard("PIVOT cities ON year").is_err());
    for bad in [
        "PIVOT cities",
        "PIVOT cities ON",
        "UNPIVOT t ON a INTO NAME",
        "PIVOT cities ON year USING",
        "PIVOT cities ON year; DROP TABLE t",
    ] {
        let parsed = parse(bad);
        assert!(
            parsed.is_err() || parsed.as_ref().is_ok_and(|s| s.len() > 1),
            "{bad}: {parsed:?}"
        );
    }
}

#[test]
fn clickhouse_extended_reads_what_clickhouse_reads_the_same_way() {
    reads_as(&ClickHouseDialect {}, &ClickHouseExtended);
    assert_eq!(
        SqlDialect::ClickHouse.parser_dialect().dialect(),
        std::any::TypeId::of::<ClickHouseDialect>()
    );
}

#[test]
fn clickhouse_with_expressions_read_as_ctes() {
    let parse = |sql: &str| Parser::parse_sql(&ClickHouseExtended, sql);
    let read = parse(
        "WITH 10 AS n, (SELECT max(x) FROM t) AS m, s AS (SELECT 1 AS a) SELECT number FROM numbers(n)",
    )
    .unwrap();
    assert_eq!(
        read[0].to_string(),
        "WITH n AS (SELECT 10), m AS (SELECT (SELECT max(x) FROM t)), s AS (SELECT 1 AS a) \
         SELECT number FROM numbers(n)"
    );
    assert!(Parser::parse_sql(&ClickHouseDialect {}, "WITH 10 AS n SELECT n").is_err());
    for bad in [
        "WITH 10 AS SELECT 1",
        "WITH 10 n SELECT 1",
        "WITH RECURSIVE 10 AS n SELECT 1",
        "WITH 10 AS n WITH 2 AS m SELECT 1",
        "WITH 10 AS n",
    ] {
        assert!(parse(bad).is_err(), "{bad}");
    }
}
