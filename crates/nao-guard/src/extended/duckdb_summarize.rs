//! DuckDB's `SUMMARIZE <table>` and `SUMMARIZE <query>`, read as `SELECT *, min(*) FROM
//! <dataset>`: one row of statistics per column of the dataset (its min and max among them), so
//! the reading reads every column (`*`: a denied column is refused, as in a `SELECT *`) and
//! computes over every column (`min(*)`: the lineage refuses it over a masked column, whose
//! minimum and maximum would otherwise leave unmasked). The dataset is a table name or a query;
//! anything else (a file path string, a table function) is a parse error here.
//!
//! DuckDB takes no `LIMIT` after `SUMMARIZE` (one inside its query limits the rows summarized,
//! not the statistics), and the guard reads no `SUMMARIZE` in parentheses, so the statement
//! runs as written ([`starts_summarize`] tells the guard which statements these are): it
//! returns one row per column of its dataset, and the adapter's fetch cap bounds what is read.

use sqlparser::ast::{Query, SetExpr, Statement, TableFactor};
use sqlparser::dialect::DuckDbDialect;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// The shape of the reading, from sqlparser itself rather than built field by field: the
/// relation is replaced by the dataset.
const OVER_TABLE: &str = "SELECT *, min(*) FROM t";
const OVER_QUERY: &str = "SELECT *, min(*) FROM (SELECT 1)";

/// Whether `word` is the SUMMARIZE keyword (unquoted: a quoted name starts no statement).
fn is_summarize(token: &Token) -> bool {
    matches!(token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("summarize"))
}

/// Whether the statement in `tokens` is a SUMMARIZE (its first token, past blanks, comments
/// and empty statements).
pub(crate) fn starts_summarize(tokens: &[TokenWithSpan]) -> bool {
    tokens
        .iter()
        .find(|t| !matches!(t.token, Token::Whitespace(_) | Token::SemiColon))
        .is_some_and(|t| is_summarize(&t.token))
}

/// The statement at the parser's position, when it is a SUMMARIZE.
pub(super) fn parse_statement(parser: &mut Parser<'_>) -> Option<Result<Statement, ParserError>> {
    if !is_summarize(&parser.peek_token_ref().token) {
        return None;
    }
    parser.next_token();
    Some(parse_dataset(parser))
}

fn parse_dataset(parser: &mut Parser<'_>) -> Result<Statement, ParserError> {
    let is_query = match &parser.peek_token_ref().token {
        Token::LParen => true,
        Token::Word(w) => matches!(
            w.keyword,
            Keyword::SELECT | Keyword::WITH | Keyword::FROM | Keyword::VALUES
        ),
        _ => false,
    };
    if is_query {
        let dataset = parser.parse_query()?;
        reading(OVER_QUERY, |relation| match relation {
            TableFactor::Derived { subquery, .. } => {
                *subquery = dataset;
                Ok(())
            }
            _ => Err(unexpected()),
        })
    } else {
        let name = parser.parse_object_name(true)?;
        // `SUMMARIZE t AS x`, `SUMMARIZE f(…)`: not DuckDB's grammar, not read here.
        if !matches!(parser.peek_token_ref().token, Token::EOF | Token::SemiColon) {
            return parser.expected("the end of the SUMMARIZE statement", parser.peek_token());
        }
        reading(OVER_TABLE, |relation| match relation {
            TableFactor::Table { name: table, .. } => {
                *table = name;
                Ok(())
            }
            _ => Err(unexpected()),
        })
    }
}

/// The reading `template` with its relation set by `dataset`.
fn reading(
    template: &str,
    dataset: impl FnOnce(&mut TableFactor) -> Result<(), ParserError>,
) -> Result<Statement, ParserError> {
    let mut query: Box<Query> = Parser::new(&DuckDbDialect {})
        .try_with_sql(template)?
        .parse_query()?;
    let SetExpr::Select(select) = query.body.as_mut() else {
        return Err(unexpected());
    };
    let from = select.from.first_mut().ok_or_else(unexpected)?;
    dataset(&mut from.relation)?;
    Ok(Statement::Query(query))
}

fn unexpected() -> ParserError {
    ParserError::ParserError("the SUMMARIZE reading lost its shape".to_owned())
}
