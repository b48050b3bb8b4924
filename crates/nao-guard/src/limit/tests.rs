//! The spliced text parses to the analysed tree with exactly the cap added, over every case of
//! the case tables and a generated set of query shapes, in every dialect.
//!
//! For each statement the guard passes under a row cap, the test applies the guard's own
//! decision ([`Splice`]) to the analysed tree, independently of the text edit, and compares that
//! tree with a fresh parse of the text the guard returned (sqlparser's trees compare without
//! their source positions). It also checks that the returned text has the cap as its top-level
//! limit, and that every query left uncapped in its text is one with a final clause.

use sqlparser::ast::{
    Expr, Fetch, LimitClause, PipeOperator, Query, SetExpr, Statement, TableFactor, Top,
    TopQuantity, Value,
};
use sqlparser::parser::Parser;

use super::splice::{Clause, Splice, apply, plan};
use super::{constant, top_level_limit};
use crate::guard::{Reading, parse_one, significant_text};
use crate::{Policy, RowCapSyntax, SqlDialect, check};

const CAPS: [u64; 3] = [1, 100, 1_000_000];

/// What checking one statement under one cap showed.
#[derive(Debug, Default)]
struct Tally {
    spliced: usize,
    within: usize,
    failures: Vec<String>,
}

impl Tally {
    fn assert_no_failures(&self) {
        assert!(
            self.failures.is_empty(),
            "{} of the capped statements do not parse to their tree capped:\n{}",
            self.failures.len(),
            self.failures.join("\n")
        );
    }

    /// Checks `sql` in `dialect` under each cap.
    fn run(&mut self, sql: &str, dialect: SqlDialect) {
        for cap in CAPS {
            if let Err(failure) = self.one(sql, dialect, cap) {
                self.failures
                    .push(format!("{dialect} cap {cap}: {sql}\n    {failure}"));
            }
        }
    }

    fn one(&mut self, sql: &str, dialect: SqlDialect, cap: u64) -> Result<(), String> {
        let policy = Policy::default().with_row_cap(cap);
        let Ok(checked) = check(sql, dialect, &policy) else {
            return Ok(());
        };
        let parsed = parse_one(sql, dialect, &policy).map_err(|e| e.to_string())?;
        let tree = *parsed.statement;
        let (text, start) = significant_text(sql, &parsed.facts);
        let (read, analysed, start) = match &parsed.reading {
            Reading::AsWritten => (text.to_owned(), text.to_owned(), start),
            Reading::Equivalent(equivalent) => (equivalent.clone(), equivalent.clone(), 0),
            Reading::Blanked(blanked) => (blanked.clone(), text.to_owned(), start),
        };
        if parsed.summarizes {
            // DuckDB's SUMMARIZE takes no cap in its text: it runs as written.
            if checked.cap_applied() || checked.sql() != &analysed[start..] {
                return Err(format!("SUMMARIZE not run as written: {}", checked.sql()));
            }
            return Ok(());
        }
        let splice = plan(&tree, &read, dialect, cap);
        if !checked.cap_applied() {
            return match splice {
                Splice::Nothing => {
                    self.within += 1;
                    Ok(())
                }
                Splice::Unsupported if has_final_clause(&tree) => Ok(()),
                other => Err(format!("not capped, but the plan is {other:?}")),
            };
        }
        self.spliced += 1;
        let text = checked.sql();
        if apply(&splice, &analysed, start, dialect, cap) != text {
            return Err(format!("the guard's text differs from the plan {splice:?}"));
        }
        // Blanked clauses stay blanked: the text the engine runs is the one checked, with them.
        let read_back = match &parsed.reading {
            Reading::Blanked(blanked) => {
                apply(&splice, &blanked[..analysed.len()], start, dialect, cap)
            }
            _ => text.to_owned(),
        };
        let reparsed = reparse(&read_back, dialect)?;
        if top_level_limit(&reparsed) != Some(cap) {
            return Err(format!(
                "{text}\n    reads with the top-level limit {:?}",
                top_level_limit(&reparsed)
            ));
        }
        let expected = capped_tree(tree, &splice, &reparsed, dialect, cap)?;
        if reparsed != expected {
            return Err(format!(
                "{text}\n    parses to {reparsed}\n    not to the analysed tree capped: {expected}"
            ));
        }
        Ok(())
    }
}

fn reparse(text: &str, dialect: SqlDialect) -> Result<Statement, String> {
    let mut statements = Parser::parse_sql(dialect.parser_dialect(), text)
        .map_err(|e| format!("{text}\n    does not parse: {e}"))?;
    match statements.len() {
        1 => Ok(statements.remove(0)),
        n => Err(format!("{text}\n    parses to {n} statements")),
    }
}

fn has_final_clause(statement: &Statement) -> bool {
    let Statement::Query(query) = statement else {
        return false;
    };
    query.for_clause.is_some() || query.format_clause.is_some()
}

fn number(cap: u64) -> Expr {
    Expr::value(Value::Number(cap.to_string(), false))
}

/// The analysed tree with the splice applied as a tree edit.
fn capped_tree(
    tree: Statement,
    splice: &Splice,
    reparsed: &Statement,
    dialect: SqlDialect,
    cap: u64,
) -> Result<Statement, String> {
    let Statement::Query(mut query) = tree else {
        return Err("a splice on a statement that is not a query".to_owned());
    };
    match splice {
        Splice::Nothing | Splice::Unsupported => {
            return Err(format!("{splice:?} changed the text"));
        }
        Splice::Number(_) => lower_own_limit(&mut query, cap)?,
        Splice::Append(Clause::Limit) => {
            query.limit_clause = Some(LimitClause::LimitOffset {
                limit: Some(number(cap)),
                offset: None,
                limit_by: vec![],
            });
        }
        Splice::Append(Clause::FetchFirst | Clause::FetchNext) => {
            query.fetch = Some(Fetch {
                with_ties: false,
                percent: false,
                quantity: Some(number(cap)),
            });
        }
        Splice::Append(Clause::PipeLimit) => query.pipe_operators.push(PipeOperator::Limit {
            expr: number(cap),
            offset: None,
        }),
        Splice::Top(_) => {
            let SetExpr::Select(select) = query.body.as_mut() else {
                return Err("TOP on a query that is not a SELECT".to_owned());
            };
            select.top = Some(Top {
                with_ties: false,
                percent: false,
                quantity: Some(TopQuantity::Expr(number(cap))),
            });
            // Where TOP stands relative to DISTINCT is a matter of printing only.
            if let Statement::Query(q) = reparsed
                && let SetExpr::Select(s) = q.body.as_ref()
            {
                select.top_before_distinct = s.top_before_distinct;
            }
        }
        Splice::Wrap { with_end } => {
            wrap(&mut query, dialect, cap, with_end.is_some())?;
        }
    }
    Ok(Statement::Query(query))
}

/// Lowers the query's own constant limit to the cap, where the splice finds it first.
fn lower_own_limit(query: &mut Query, cap: u64) -> Result<(), String> {
    if let Some(fetch) = query.fetch.as_mut() {
        fetch.quantity = Some(number(cap));
        return Ok(());
    }
    match query.limit_clause.as_mut() {
        Some(LimitClause::LimitOffset {
            limit: Some(limit), ..
        })
        | Some(LimitClause::OffsetCommaLimit { limit, .. }) => {
            *limit = renumbered(limit, cap);
            return Ok(());
        }
        _ => {}
    }
    let SetExpr::Select(select) = query.body.as_mut() else {
        return Err("a number splice without a limit".to_owned());
    };
    match select.top.as_mut().and_then(|t| t.quantity.as_mut()) {
        Some(TopQuantity::Constant(n)) => *n = cap,
        Some(TopQuantity::Expr(e)) => *e = renumbered(e, cap),
        None => return Err("a number splice without a limit".to_owned()),
    }
    Ok(())
}

/// The constant `expr` (possibly parenthesized) with its number replaced.
fn renumbered(expr: &Expr, cap: u64) -> Expr {
    match expr {
        Expr::Nested(inner) => Expr::Nested(Box::new(renumbered(inner, cap))),
        _ => {
            debug_assert!(constant(expr).is_some());
            number(cap)
        }
    }
}

fn wrap(query: &mut Query, dialect: SqlDialect, cap: u64, hoist_with: bool) -> Result<(), String> {
    let template = match dialect.row_cap_syntax() {
        RowCapSyntax::Limit => format!("SELECT * FROM (SELECT 1) AS nao_capped LIMIT {cap}"),
        RowCapSyntax::Top => format!("SELECT TOP ({cap}) * FROM (SELECT 1) AS nao_capped"),
        RowCapSyntax::FetchFirst => {
            format!("SELECT * FROM (SELECT 1) AS nao_capped FETCH FIRST {cap} ROWS ONLY")
        }
    };
    let Statement::Query(mut outer) = reparse(&template, dialect)? else {
        return Err("the template is not a query".to_owned());
    };
    let SetExpr::Select(select) = outer.body.as_mut() else {
        return Err("the template is not a SELECT".to_owned());
    };
    let Some(TableFactor::Derived { subquery, .. }) =
        select.from.first_mut().map(|t| &mut t.relation)
    else {
        return Err("the template has no derived table".to_owned());
    };
    if hoist_with {
        outer.with = query.with.take();
    }
    std::mem::swap(subquery.as_mut(), query);
    std::mem::swap(query, outer.as_mut());
    Ok(())
}

#[test]
fn every_case_table_statement_capped_in_its_text_parses_to_its_tree_capped() {
    let mut tally = Tally::default();
    for (sql, dialects) in crate::test_cases::statements() {
        for dialect in dialects {
            tally.run(&sql, dialect);
        }
    }
    tally.assert_no_failures();
    assert!(tally.spliced > 1_000, "{tally:?}");
    assert!(tally.within > 100, "{tally:?}");
}

/// Query shapes built from parts: each head, body, ordering and limit, with one of the endings.
pub(crate) fn generated_statements() -> Vec<String> {
    let heads = ["", "WITH c AS (SELECT a FROM t) ", "/* lead */ ", " ;; "];
    let bodies = [
        "SELECT a FROM t",
        "select distinct a from t",
        "SELECT ALL a FROM t",
        "SELECT a FROM t UNION ALL SELECT a FROM u",
        "(SELECT a FROM t LIMIT 5000)",
        "VALUES (1), (2)",
        "SELECT TOP 5000 a FROM t",
        "SELECT TOP (5000) a FROM t",
        "SELECT DISTINCT TOP 5000 a FROM t",
        "FROM t",
        "SELECT a FROM t WHERE a IN (SELECT b FROM u LIMIT 5000)",
        "SELECT\n  a,\n  'x''y' AS \"q\"\"n\"\nFROM t",
    ];
    let orderings = ["", " ORDER BY a", " ORDER BY a DESC NULLS LAST"];
    let limits = [
        "",
        " LIMIT 5",
        " LIMIT 5000",
        " LIMIT (5000)",
        " LIMIT 20, 5000",
        " LIMIT 5000 OFFSET 2",
        " OFFSET 3",
        " OFFSET 3 ROWS",
        " OFFSET 0 ROWS FETCH NEXT 5000 ROWS ONLY",
        " FETCH FIRST 5000 ROWS ONLY",
        " FETCH FIRST 5000 ROWS WITH TIES",
        " LIMIT ALL",
        " LIMIT 10 * 10",
        " LIMIT 2 BY a",
    ];
    let endings = ["", ";", " -- the end", "\n/* c */ ;  "];
    let mut statements = Vec::new();
    for head in heads {
        for body in bodies {
            for ordering in orderings {
                for limit in limits {
                    // The endings take turns: they only decide where the text ends.
                    let ending = endings[statements.len() % endings.len()];
                    statements.push(format!("{head}{body}{ordering}{limit}{ending}"));
                }
            }
        }
    }
    statements
}

#[test]
fn every_generated_shape_capped_in_its_text_parses_to_its_tree_capped() {
    let mut tally = Tally::default();
    for sql in generated_statements() {
        for dialect in SqlDialect::ALL {
            tally.run(&sql, dialect);
        }
    }
    tally.assert_no_failures();
    assert!(tally.spliced > 40_000, "{tally:?}");
}

#[test]
fn the_text_keeps_every_byte_as_written() {
    let policy = Policy::default().with_row_cap(100);
    let cases = [
        (
            SqlDialect::MySql,
            "SELECT 'x\\\\\\'' AS a, `b``c` FROM t  -- note",
            "SELECT 'x\\\\\\'' AS a, `b``c` FROM t LIMIT 100",
        ),
        (
            SqlDialect::MsSql,
            "SELECT DISTINCT /* why */ [a]]b] FROM t",
            "SELECT DISTINCT TOP (100) /* why */ [a]]b] FROM t",
        ),
        (
            SqlDialect::MsSql,
            "WITH x AS (SELECT 1 AS a) SELECT a FROM x UNION SELECT 2",
            "WITH x AS (SELECT 1 AS a) SELECT TOP (100) * FROM (SELECT a FROM x UNION SELECT 2) AS nao_capped",
        ),
        (
            SqlDialect::Postgres,
            "select e'\\n' from t limit 5000 offset 3;",
            "select e'\\n' from t limit 100 offset 3",
        ),
        (
            SqlDialect::Sqlite,
            "VALUES (1)",
            "SELECT * FROM (VALUES (1)) AS nao_capped LIMIT 100",
        ),
    ];
    for (dialect, sql, expected) in cases {
        let checked = check(sql, dialect, &policy).unwrap_or_else(|e| panic!("{sql}: {e}"));
        assert_eq!(checked.sql(), expected, "{dialect}");
        assert!(checked.cap_applied());
    }
}
