//! Everyday statements that sqlparser 0.64 cannot parse, read through an equivalent form.
//!
//! Only exact token shapes qualify, so nothing else can be smuggled through: `TABLE name`
//! (standard SQL, PostgreSQL, MySQL 8, DuckDB) is analyzed as `SELECT * FROM name`, also when
//! `ORDER BY`, `LIMIT`, `OFFSET` or `FETCH` follow (`TABLE t ORDER BY c LIMIT 5` means `SELECT *
//! FROM t ORDER BY c LIMIT 5`; those clauses are then parsed and walked like any other), and
//! SQLite's `PRAGMA name(bare_word)` as `PRAGMA name('bare_word')`. The engine still runs the
//! text as written; the guard only needs a tree that means the same.

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
        [Token::Word(first), rest @ ..] if first.keyword == Keyword::TABLE => {
            let name_end = dotted_name_len(rest);
            let (name, clauses) = rest.split_at(name_end);
            let clauses_fit = match clauses.first() {
                None => true,
                Some(Token::Word(word)) => matches!(
                    word.keyword,
                    Keyword::ORDER | Keyword::LIMIT | Keyword::OFFSET | Keyword::FETCH
                ),
                Some(_) => false,
            };
            (name_end > 0 && clauses_fit).then(|| {
                let mut text = format!("SELECT * FROM {}", join(name));
                for token in clauses {
                    text.push(' ');
                    text.push_str(&token.to_string());
                }
                text
            })
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

/// How many tokens at the start of `tokens` are a name: `name`, `schema.name`,
/// `catalog.schema.name`, each part a word (0 when they do not start with one).
fn dotted_name_len(tokens: &[&Token]) -> usize {
    let mut len = 0;
    while matches!(tokens.get(len), Some(Token::Word(_))) {
        len += 1;
        if tokens.get(len) == Some(&&Token::Period) {
            len += 1;
        } else {
            return len;
        }
    }
    // A trailing period: not a name.
    0
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
        assert_eq!(
            equivalent("TABLE s.orders ORDER BY id DESC LIMIT 5 OFFSET 2", d).as_deref(),
            Some("SELECT * FROM s.orders ORDER BY id DESC LIMIT 5 OFFSET 2")
        );
        assert_eq!(
            equivalent("TABLE orders FETCH FIRST 3 ROWS ONLY", d).as_deref(),
            Some("SELECT * FROM orders FETCH FIRST 3 ROWS ONLY")
        );
        assert_eq!(equivalent("TABLE orders WHERE id = 1", d), None);
        assert_eq!(equivalent("TABLE orders. ORDER BY id", d), None);
        assert_eq!(equivalent("TABLE ORDER BY id", d), None);
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
