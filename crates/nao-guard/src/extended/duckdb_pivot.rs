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
//! `PIVOT_WIDER` and `PIVOT_LONGER` are DuckDB's other names for them. A statement that
//! starts with `WITH` is left to sqlparser (which refuses it, with a hint).

use sqlparser::ast::helpers::attached_token::AttachedToken;
use sqlparser::ast::{
    Expr, GroupByExpr, Ident, LimitClause, Offset, OffsetRows, PivotValueSource, SetExpr,
    Statement, TableFactor,
};
use sqlparser::dialect::DuckDbDialect;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// The statement at the parser's position, when it is a PIVOT or UNPIVOT statement.
pub(super) fn parse_statement(parser: &mut Parser<'_>) -> Option<Result<Statement, ParserError>> {
    let is = |word: &str| matches!(&parser.peek_token_ref().token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word));
    let pivot = if is("pivot") || is("pivot_wider") {
        true
    } else if is("unpivot") || is("pivot_longer") {
        false
    } else {
        return None;
    };
    parser.next_token();
    Some(if pivot {
        parse_pivot(parser)
    } else {
        parse_unpivot(parser)
    })
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
