//! Engine syntax that sqlparser 0.64 cannot parse and that has no exact equivalent the guard
//! could read instead (see `fallback`): the parse error then says what the guard does understand
//! that means the same, so the model rewrites the query rather than the user turning the guard
//! off. Only the wording of a refusal changes here; nothing is accepted that was refused.
//!
//! Each hint matches a token shape of one dialect (upstream sqlparser changes that would make
//! them parse are listed in issue 16's notes):
//! - DuckDB's simplified `PIVOT`/`UNPIVOT` statements where the guard does not read them (in
//!   parentheses; see `extended`) → the SQL-standard `PIVOT (…)` clause;
//! - DuckDB's `SUMMARIZE` of something other than a table name or a query (see `extended`) →
//!   those forms, or aggregates;
//! - DuckDB's `USING SAMPLE` with a size that is not a number (see `fallback`) → `TABLESAMPLE
//!   n PERCENT`;
//! - DuckDB's `ASOF JOIN` where blanking `ASOF` does not leave a join sqlparser reads → a
//!   `LATERAL` subquery taking the latest earlier row;
//! - DuckDB's `* RENAME (…)` where sqlparser does not read it → `* EXCLUDE (…)` plus the renamed
//!   columns;
//! - ClickHouse's `WITH <expression> AS <name>` → the expression in the select list, or a CTE;
//! - PostgreSQL's `ROWS FROM (…)` → `unnest` of several arrays, or functions joined on their
//!   ordinality.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

use crate::SqlDialect;

/// What to write instead, when `tokens` (which did not parse) show a known shape.
pub(crate) fn hint(tokens: &[TokenWithSpan], dialect: SqlDialect) -> Option<&'static str> {
    let words: Vec<&Token> = tokens
        .iter()
        .map(|t| &t.token)
        .filter(|t| !matches!(t, Token::Whitespace(_) | Token::EOF))
        .collect();
    let is = |i: usize, keyword: Keyword| matches!(words.get(i), Some(Token::Word(w)) if w.keyword == keyword);
    let any = |f: &dyn Fn(usize) -> bool| (0..words.len()).any(f);
    match dialect {
        SqlDialect::DuckDb => {
            if any(&|i| {
                (is(i, Keyword::PIVOT) || is(i, Keyword::UNPIVOT))
                    && words.get(i + 1) != Some(&&Token::LParen)
            }) {
                return Some(DUCKDB_PIVOT);
            }
            if matches!(words.first(), Some(Token::Word(w)) if w.value.eq_ignore_ascii_case("summarize"))
            {
                return Some(DUCKDB_SUMMARIZE);
            }
            if any(&|i| is(i, Keyword::USING) && is(i + 1, Keyword::SAMPLE)) {
                return Some(DUCKDB_SAMPLE);
            }
            if any(&|i| is(i, Keyword::ASOF)) {
                return Some(DUCKDB_ASOF);
            }
            if any(&|i| words.get(i) == Some(&&Token::Mul) && is(i + 1, Keyword::RENAME)) {
                return Some(DUCKDB_RENAME);
            }
            None
        }
        SqlDialect::ClickHouse => {
            // A CTE: `name AS (` or `name (columns) AS (`; anything else is an expression.
            let after_name = match words.get(2) {
                Some(Token::LParen) => closing_paren(&words, 2).map(|i| i + 1),
                _ => Some(2),
            };
            let cte = matches!(words.get(1), Some(Token::Word(_)))
                && after_name.is_some_and(|i| {
                    is(i, Keyword::AS) && words.get(i + 1) == Some(&&Token::LParen)
                });
            (is(0, Keyword::WITH) && !is(1, Keyword::RECURSIVE) && !cte)
                .then_some(CLICKHOUSE_WITH_EXPRESSION)
        }
        SqlDialect::Postgres | SqlDialect::Redshift => any(&|i| {
            is(i, Keyword::ROWS)
                && is(i + 1, Keyword::FROM)
                && words.get(i + 2) == Some(&&Token::LParen)
        })
        .then_some(POSTGRES_ROWS_FROM),
        _ => None,
    }
}

/// The index of the `)` closing the `(` at `open`.
fn closing_paren(words: &[&Token], open: usize) -> Option<usize> {
    let mut depth = 0_usize;
    for (i, token) in words.iter().enumerate().skip(open) {
        match token {
            Token::LParen => depth += 1,
            Token::RParen => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

const DUCKDB_PIVOT: &str = "the guard does not read DuckDB's simplified PIVOT/UNPIVOT \
    statement; write the SQL-standard clause DuckDB also runs: SELECT * FROM sales PIVOT \
    (sum(amount) FOR year IN (2023, 2024)), or SELECT * FROM sales UNPIVOT (amount FOR \
    quarter IN (q1, q2, q3, q4))";

const DUCKDB_SUMMARIZE: &str = "the guard reads SUMMARIZE of a table name (SUMMARIZE sales) or \
    of a query (SUMMARIZE SELECT region, amount FROM sales), nothing else; or ask for the \
    figures with aggregates (SELECT count(*), count(DISTINCT c), min(c), max(c), avg(c) FROM t)";

const DUCKDB_SAMPLE: &str = "the guard does not read USING SAMPLE; sample the table with \
    TABLESAMPLE instead: FROM t TABLESAMPLE 10 PERCENT, or TABLESAMPLE (100 ROWS)";

const DUCKDB_ASOF: &str = "the guard does not read DuckDB's ASOF JOIN; take the latest \
    earlier row with a LATERAL subquery: FROM trades t JOIN LATERAL (SELECT * FROM prices p \
    WHERE p.sym = t.sym AND p.ts <= t.ts ORDER BY p.ts DESC LIMIT 1) p ON true";

const DUCKDB_RENAME: &str = "the guard does not read * RENAME; exclude the column and select \
    it under its new name: SELECT * EXCLUDE (amount), amount AS total FROM t";

const CLICKHOUSE_WITH_EXPRESSION: &str = "the guard does not read ClickHouse's WITH \
    <expression> AS <name>; put the expression in the select list, or in a CTE joined in: WITH \
    params AS (SELECT 10 AS n) SELECT … FROM t, params";

const POSTGRES_ROWS_FROM: &str = "the guard does not read ROWS FROM (…); for arrays side by \
    side use unnest(array1, array2) AS t(a, b), and for functions join them WITH ORDINALITY \
    on the ordinality";

#[cfg(test)]
mod tests {
    use super::*;

    fn hint_for(sql: &str, dialect: SqlDialect) -> Option<&'static str> {
        let tokens = crate::lexical::tokenize(sql, dialect).ok()?;
        hint(&tokens, dialect)
    }

    #[test]
    fn known_shapes_get_their_hint_and_nothing_else_does() {
        use SqlDialect::{ClickHouse, DuckDb, Postgres};
        for (sql, dialect, expected) in [
            (
                "PIVOT sales ON year USING sum(amount)",
                DuckDb,
                Some(DUCKDB_PIVOT),
            ),
            (
                "FROM (UNPIVOT t ON q1, q2 INTO NAME k VALUE v)",
                DuckDb,
                Some(DUCKDB_PIVOT),
            ),
            ("SELECT * FROM t PIVOT (sum(x) FOR y IN (1))", DuckDb, None),
            ("SUMMARIZE 'sales.csv'", DuckDb, Some(DUCKDB_SUMMARIZE)),
            (
                "SELECT * FROM t USING SAMPLE 10%",
                DuckDb,
                Some(DUCKDB_SAMPLE),
            ),
            (
                "SELECT * FROM a ASOF JOIN b ON a.t >= b.t",
                DuckDb,
                Some(DUCKDB_ASOF),
            ),
            (
                "SELECT * RENAME (a AS b) FROM t",
                DuckDb,
                Some(DUCKDB_RENAME),
            ),
            (
                "WITH 10 AS n SELECT n",
                ClickHouse,
                Some(CLICKHOUSE_WITH_EXPRESSION),
            ),
            (
                "WITH sum(x) AS s SELECT s FROM t",
                ClickHouse,
                Some(CLICKHOUSE_WITH_EXPRESSION),
            ),
            ("WITH c AS (SELECT 1) SELECT * FROM c", ClickHouse, None),
            ("WITH c(x) AS (SELECT 1) SELECT * FROM c", ClickHouse, None),
            (
                "SELECT * FROM ROWS FROM (f(), g()) AS t(a, b)",
                Postgres,
                Some(POSTGRES_ROWS_FROM),
            ),
            (
                "SELECT * FROM t ORDER BY a ROWS BETWEEN 1 PRECEDING AND CURRENT ROW",
                Postgres,
                None,
            ),
            ("PIVOT sales ON year USING sum(amount)", Postgres, None),
        ] {
            assert_eq!(hint_for(sql, dialect), expected, "{sql}");
        }
    }
}
