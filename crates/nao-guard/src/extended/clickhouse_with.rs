//! ClickHouse's `WITH <expression> AS <name>`: a name for a value (a constant, a scalar
//! subquery, a lambda) beside the usual `WITH <name> AS (<query>)`, in one list.
//!
//! A `WITH` list sqlparser reads is left as it reads it. Otherwise each item is read as a CTE
//! when it has the CTE's shape and as an expression alias when not; an expression alias
//! becomes the CTE `<name> AS (SELECT <expression>)`, which holds the same expression for the
//! walk (its functions, subqueries and columns), under the same name.

use sqlparser::ast::helpers::attached_token::AttachedToken;
use sqlparser::ast::{Cte, Expr, SelectItem, SetExpr, Statement, TableAlias, With};
use sqlparser::dialect::ClickHouseDialect;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// The statement at the parser's position, when it starts with a `WITH` list sqlparser does
/// not read on its own.
pub(super) fn parse_statement(parser: &mut Parser<'_>) -> Option<Result<Statement, ParserError>> {
    let starts_with = |parser: &Parser<'_>, keyword: Keyword| matches!(&parser.peek_token_ref().token, Token::Word(w) if w.keyword == keyword);
    if !starts_with(parser, Keyword::WITH) {
        return None;
    }
    match parser.maybe_parse(|p| p.parse_query()) {
        Ok(Some(query)) => return Some(Ok(Statement::Query(query))),
        Ok(None) => {}
        Err(e) => return Some(Err(e)),
    }
    Some(parse_with_expressions(parser))
}

fn parse_with_expressions(parser: &mut Parser<'_>) -> Result<Statement, ParserError> {
    let with_token = parser.expect_keyword(Keyword::WITH)?;
    if parser.parse_keyword(Keyword::RECURSIVE) {
        return parser.expected("a query after WITH RECURSIVE", parser.peek_token());
    }
    let mut cte_tables = vec![item(parser)?];
    while parser.consume_token(&Token::Comma) {
        cte_tables.push(item(parser)?);
    }
    let mut query = parser.parse_query()?;
    if query.with.is_some() {
        return parser.expected("one WITH list", parser.peek_token());
    }
    query.with = Some(With {
        with_token: AttachedToken(with_token),
        recursive: false,
        cte_tables,
    });
    Ok(Statement::Query(query))
}

/// `<name> AS (<query>)`, or `<expression> AS <name>` read as `<name> AS (SELECT <expression>)`.
fn item(parser: &mut Parser<'_>) -> Result<Cte, ParserError> {
    let as_cte = parser.maybe_parse(|p| {
        let name = p.parse_identifier()?;
        p.expect_keyword_is(Keyword::AS)?;
        p.expect_token(&Token::LParen)?;
        let query = p.parse_query()?;
        let closing = p.expect_token(&Token::RParen)?;
        Ok(cte(name, query, AttachedToken(closing)))
    })?;
    if let Some(as_cte) = as_cte {
        return Ok(as_cte);
    }
    let expr = parser.parse_expr()?;
    parser.expect_keyword_is(Keyword::AS)?;
    let name = parser.parse_identifier()?;
    Ok(cte(name, select_of(expr)?, AttachedToken::empty()))
}

fn cte(
    name: sqlparser::ast::Ident,
    query: Box<sqlparser::ast::Query>,
    closing: AttachedToken,
) -> Cte {
    Cte {
        alias: TableAlias {
            explicit: false,
            name,
            columns: Vec::new(),
            at: None,
        },
        query,
        from: None,
        materialized: None,
        closing_paren_token: closing,
    }
}

/// `SELECT <expr>`, shaped by sqlparser itself rather than built field by field.
fn select_of(expr: Expr) -> Result<Box<sqlparser::ast::Query>, ParserError> {
    let mut query = Parser::new(&ClickHouseDialect {})
        .try_with_sql("SELECT 1")?
        .parse_query()?;
    let SetExpr::Select(select) = query.body.as_mut() else {
        return Err(ParserError::ParserError(
            "a query without a SELECT".to_owned(),
        ));
    };
    select.select_token = AttachedToken::empty();
    select.projection = vec![SelectItem::UnnamedExpr(expr)];
    Ok(query)
}
