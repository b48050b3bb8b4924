//! DuckDB's simplified `PIVOT` and `UNPIVOT` statements, read as queries over the standard
//! table factors with the same dataset, expressions and aggregates:
//!
//! - `PIVOT <dataset> ON <expr>, … [USING <aggregate> [AS name], …] [GROUP BY …] [ORDER BY …]
//!   [LIMIT n] [OFFSET m]` as `SELECT * FROM <dataset> PIVOT (<aggregates> FOR <exprs> IN ANY)
//!   GROUP BY … ORDER BY … LIMIT n OFFSET m` (an `ON x IN (…)` list is read as the expression
//!   it is);
//! - `UNPIVOT <dataset> ON <expr> [AS name], … [INTO NAME <name> VALUE <column>, …] [ORDER BY …]
//!   [LIMIT n] [OFFSET m]` as `SELECT * FROM <dataset> UNPIVOT (<columns> FOR <name> IN
//!   (<exprs>)) …`.
//!
//! `PIVOT_WIDER` and `PIVOT_LONGER` are DuckDB's other names for them. A WITH clause may come
//! first (`WITH c AS (…) PIVOT c ON …`); its CTEs are the query's. In parentheses (a subquery
//! or a table factor) the statements are not read: sqlparser has no hook there (refused with a
//! hint).

use sqlparser::ast::helpers::attached_token::AttachedToken;
use sqlparser::ast::{
    Expr, GroupByExpr, Ident, LimitClause, Offset, OffsetRows, PivotValueSource, SetExpr,
    Statement, TableFactor, With,
};
use sqlparser::dialect::DuckDbDialect;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// Which statement a word starts: `Some(true)` a PIVOT, `Some(false)` an UNPIVOT.
fn pivots(token: &Token) -> Option<bool> {
    let Token::Word(w) = token else {
        return None;
    };
    if w.quote_style.is_some() {
        return None;
    }
    let word = w.value.to_ascii_lowercase();
    match word.as_str() {
        "pivot" | "pivot_wider" => Some(true),
        "unpivot" | "pivot_longer" => Some(false),
        _ => None,
    }
}

/// The statement at the parser's position, when it is a PIVOT or UNPIVOT statement, with or
/// without a WITH clause before it.
pub(super) fn parse_statement(parser: &mut Parser<'_>) -> Option<Result<Statement, ParserError>> {
    if matches!(&parser.peek_token_ref().token, Token::Word(w) if w.keyword == Keyword::WITH) {
        return with_then_pivot(parser);
    }
    let pivot = pivots(&parser.peek_token_ref().token)?;
    parser.next_token();
    Some(statement(parser, pivot))
}

fn statement(parser: &mut Parser<'_>, pivot: bool) -> Result<Statement, ParserError> {
    if pivot {
        parse_pivot(parser)
    } else {
        parse_unpivot(parser)
    }
}

/// `WITH <ctes> PIVOT …` / `WITH <ctes> UNPIVOT …`: the statement read as above, with the CTEs.
/// Any other WITH statement is left to sqlparser, after a scan of its tokens that consumes
/// nothing (see [`statement_after_ctes`]).
fn with_then_pivot(parser: &mut Parser<'_>) -> Option<Result<Statement, ParserError>> {
    statement_after_ctes(parser)?;
    Some((|| {
        let with_token = AttachedToken(parser.next_token());
        let recursive = parser.parse_keyword(Keyword::RECURSIVE);
        let cte_tables = parser.parse_comma_separated(Parser::parse_cte)?;
        // The scan only chose this path: the parse decides what follows the CTEs.
        let next = parser.next_token();
        let Some(pivot) = pivots(&next.token) else {
            return parser.expected("PIVOT or UNPIVOT after the WITH clause", next);
        };
        let mut read = statement(parser, pivot)?;
        if let Statement::Query(query) = &mut read {
            query.with = Some(With {
                with_token,
                recursive,
                cte_tables,
            });
        }
        Ok(read)
    })())
}

/// Which statement follows the CTEs of the WITH clause at the parser's position, when it is
/// a PIVOT (`Some(true)`) or an UNPIVOT (`Some(false)`): the first word at depth 0 after a
/// closing parenthesis that does not go on with a CTE (`AS`, `NOT MATERIALIZED`, DuckDB's
/// `USING KEY`). Reads the tokens by reference and rewinds, so a WITH query costs one pass
/// over its CTEs' tokens and no parse.
fn statement_after_ctes(parser: &mut Parser<'_>) -> Option<bool> {
    let mut found = None;
    let _rewound = parser.maybe_parse(|p| -> Result<(), ParserError> {
        let mut depth = 0usize;
        let mut after_paren = false;
        while let Some(t) = p.next_token_no_skip() {
            match &t.token {
                Token::EOF | Token::SemiColon => break,
                Token::Whitespace(_) => continue,
                Token::LParen => depth += 1,
                Token::RParen => {
                    depth = depth.saturating_sub(1);
                    after_paren = depth == 0;
                    continue;
                }
                Token::Word(w) if depth == 0 && after_paren => {
                    let goes_on = matches!(
                        w.keyword,
                        Keyword::AS
                            | Keyword::NOT
                            | Keyword::MATERIALIZED
                            | Keyword::USING
                            | Keyword::KEY
                    );
                    if !goes_on {
                        found = pivots(&t.token);
                        break;
                    }
                }
                _ => {}
            }
            after_paren = false;
        }
        // Always an error, so that the parser rewinds to the WITH.
        Err(ParserError::ParserError(String::new()))
    });
    found
}

fn parse_pivot(parser: &mut Parser<'_>) -> Result<Statement, ParserError> {
    let table = parser.parse_table_factor()?;
    parser.expect_keyword_is(Keyword::ON)?;
    let value_column = parser.parse_comma_separated(Parser::parse_expr)?;
    // Without USING, DuckDB counts the rows (`count(*)`).
    let aggregate_functions = if parser.parse_keyword(Keyword::USING) {
        parser.parse_comma_separated(Parser::parse_expr_with_alias)?
    } else {
        Vec::new()
    };
    let group_by = parser.parse_optional_group_by()?;
    let factor = TableFactor::Pivot {
        table: Box::new(table),
        aggregate_functions,
        value_column,
        value_source: PivotValueSource::Any(Vec::new()),
        default_on_null: None,
        alias: None,
    };
    query_over(parser, factor, group_by)
}

fn parse_unpivot(parser: &mut Parser<'_>) -> Result<Statement, ParserError> {
    let table = parser.parse_table_factor()?;
    parser.expect_keyword_is(Keyword::ON)?;
    let columns = parser.parse_comma_separated(Parser::parse_expr_with_alias)?;
    let (name, values) = if parser.parse_keyword(Keyword::INTO) {
        parser.expect_keyword_is(Keyword::NAME)?;
        let name = parser.parse_identifier()?;
        parser.expect_keyword_is(Keyword::VALUE)?;
        (
            name,
            parser.parse_comma_separated(Parser::parse_identifier)?,
        )
    } else {
        // DuckDB's default column names.
        (Ident::new("name"), vec![Ident::new("value")])
    };
    let value = match <[Ident; 1]>::try_from(values) {
        Ok([value]) => Expr::Identifier(value),
        Err(values) => Expr::Tuple(values.into_iter().map(Expr::Identifier).collect()),
    };
    let factor = TableFactor::Unpivot {
        table: Box::new(table),
        value,
        name,
        columns,
        null_inclusion: None,
        alias: None,
    };
    query_over(parser, factor, None)
}

/// `SELECT * FROM <factor> [GROUP BY …]` with the statement's own ORDER BY, LIMIT and OFFSET.
fn query_over(
    parser: &mut Parser<'_>,
    factor: TableFactor,
    group_by: Option<GroupByExpr>,
) -> Result<Statement, ParserError> {
    let order_by = parser.parse_optional_order_by()?;
    let limit = match parser.parse_keyword(Keyword::LIMIT) {
        true => Some(parser.parse_expr()?),
        false => None,
    };
    let offset = match parser.parse_keyword(Keyword::OFFSET) {
        true => Some(Offset {
            value: parser.parse_expr()?,
            rows: OffsetRows::None,
        }),
        false => None,
    };
    // The shape of a plain query, from sqlparser itself rather than built field by field.
    let mut query = Parser::new(&DuckDbDialect {})
        .try_with_sql("SELECT * FROM t")?
        .parse_query()?;
    let SetExpr::Select(select) = query.body.as_mut() else {
        return Err(ParserError::ParserError(
            "a query without a SELECT".to_owned(),
        ));
    };
    let Some(from) = select.from.first_mut() else {
        return Err(ParserError::ParserError("a query without FROM".to_owned()));
    };
    from.relation = factor;
    select.select_token = AttachedToken::empty();
    if let Some(group_by) = group_by {
        select.group_by = group_by;
    }
    query.order_by = order_by;
    query.limit_clause = (limit.is_some() || offset.is_some()).then(|| LimitClause::LimitOffset {
        limit,
        offset,
        limit_by: Vec::new(),
    });
    Ok(Statement::Query(query))
}
