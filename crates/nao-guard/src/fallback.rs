//! Everyday statements that sqlparser 0.64 cannot parse, read through an equivalent form.
//!
//! Only exact token shapes qualify, so nothing else can be smuggled through: `TABLE name`
//! (standard SQL, PostgreSQL, MySQL 8, DuckDB) is analyzed as `SELECT * FROM name`, and SQLite's
//! `PRAGMA name(bare_word)` as `PRAGMA name('bare_word')`. The engine still runs the text as
//! written; the guard only needs a tree that means the same.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

use crate::SqlDialect;

/// The equivalent text to analyze, when the tokens have one of the shapes above.
pub(crate) fn equivalent_text(tokens: &[TokenWithSpan], dialect: SqlDialect) -> Option<String> {
    let significant: Vec<&Token> = tokens
        .iter()
        .map(|t| &t.token)
        .filter(|t| !matches!(t, Token::Whitespace(_) | Token::EOF))
        .collect();
    let end = significant
        .iter()
        .rposition(|t| **t != Token::SemiColon)
        .map_or(0, |i| i + 1);
    let significant = &significant[..end];
    match significant {
        [Token::Word(first), name @ ..]
            if first.keyword == Keyword::TABLE && is_dotted_name(name) =>
        {
            Some(format!("SELECT * FROM {}", join(name)))
        }
        [
            Token::Word(first),
            Token::Word(pragma),
            Token::LParen,
            Token::Word(arg),
            Token::RParen,
        ] if dialect == SqlDialect::Sqlite
            && first.keyword == Keyword::PRAGMA
            && pragma.quote_style.is_none()
            && arg.quote_style.is_none() =>
        {
            let arg = arg.value.replace('\'', "''");
            Some(format!("PRAGMA {}('{arg}')", pragma.value))
        }
        _ => None,
    }
}

/// `name`, `schema.name`, `catalog.schema.name`, each part a word.
fn is_dotted_name(tokens: &[&Token]) -> bool {
    !tokens.is_empty()
        && tokens.len() % 2 == 1
        && tokens.iter().enumerate().all(|(i, t)| match i % 2 {
            0 => matches!(t, Token::Word(_)),
            _ => **t == Token::Period,
        })
}

fn join(tokens: &[&Token]) -> String {
    tokens.iter().map(ToString::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn equivalent(sql: &str, dialect: SqlDialect) -> Option<String> {
        let tokens = crate::lexical::tokenize(sql, dialect).ok()?;
        equivalent_text(&tokens, dialect)
    }

    #[test]
    fn table_statements_read_as_select_star() {
        let d = SqlDialect::Postgres;
        assert_eq!(
            equivalent("TABLE orders;", d).as_deref(),
            Some("SELECT * FROM orders")
        );
        assert_eq!(
            equivalent("table \"S\".t", d).as_deref(),
            Some("SELECT * FROM \"S\".t")
        );
        assert_eq!(equivalent("TABLE orders; DROP TABLE x", d), None);
        assert_eq!(equivalent("TABLE orders o", d), None);
    }

    #[test]
    fn sqlite_pragmas_with_bare_names_read_as_quoted() {
        let d = SqlDialect::Sqlite;
        assert_eq!(
            equivalent("PRAGMA table_info(orders)", d).as_deref(),
            Some("PRAGMA table_info('orders')")
        );
        assert_eq!(
            equivalent("PRAGMA table_info(orders)", SqlDialect::DuckDb),
            None
        );
        assert_eq!(equivalent("PRAGMA table_info(orders, x)", d), None);
    }
}
