//! Everyday statements that sqlparser 0.64 cannot parse, read through an equivalent form.
//!
//! Only exact token shapes qualify, so nothing else can be smuggled through: `TABLE name`
//! (standard SQL, PostgreSQL, MySQL 8, DuckDB) is analyzed as `SELECT * FROM name`, also when
//! `ORDER BY`, `LIMIT`, `OFFSET` or `FETCH` follow (`TABLE t ORDER BY c LIMIT 5` means `SELECT *
//! FROM t ORDER BY c LIMIT 5`; those clauses are then parsed and walked like any other);
//! SQLite's `PRAGMA name(bare_word)` as `PRAGMA name('bare_word')`; DuckDB's `TABLESAMPLE 10%`
//! as `TABLESAMPLE 10 PERCENT`. The equivalent text is the text as written with only those
//! words exchanged (every other byte kept, trailing semicolons and comments left out). The
//! engine runs the text as written unless the row cap is spliced in, which happens in the
//! equivalent text the guard analysed.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

use crate::SqlDialect;
use crate::lexical::byte_offset;

/// The equivalent text to analyze, when the tokens of `sql` have one of the shapes above.
pub(crate) fn equivalent_text(
    sql: &str,
    tokens: &[TokenWithSpan],
    dialect: SqlDialect,
) -> Option<String> {
    let significant: Vec<&TokenWithSpan> = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_) | Token::EOF))
        .collect();
    let end = significant
        .iter()
        .rposition(|t| t.token != Token::SemiColon)
        .map_or(0, |i| i + 1);
    let significant = &significant[..end];
    let text_end = byte_offset(sql, significant.last()?.span.end);
    if dialect == SqlDialect::DuckDb
        && let Some(text) = percent_samples(sql, significant, text_end)
    {
        return Some(text);
    }
    let table_keyword = significant.first()?;
    let significant: Vec<&Token> = significant.iter().map(|t| &t.token).collect();
    match significant.as_slice() {
        [Token::Word(first), rest @ ..] if first.keyword == Keyword::TABLE => {
            let name_end = dotted_name_len(rest);
            let clauses = &rest[name_end..];
            let clauses_fit = match clauses.first() {
                None => true,
                Some(Token::Word(word)) => matches!(
                    word.keyword,
                    Keyword::ORDER | Keyword::LIMIT | Keyword::OFFSET | Keyword::FETCH
                ),
                Some(_) => false,
            };
            let keyword_end = byte_offset(sql, table_keyword.span.end);
            let keyword_start = byte_offset(sql, table_keyword.span.start);
            (name_end > 0 && clauses_fit).then(|| {
                format!(
                    "{}SELECT * FROM{}",
                    &sql[..keyword_start],
                    &sql[keyword_end..text_end]
                )
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

/// DuckDB's `TABLESAMPLE 10%` written as `TABLESAMPLE 10 PERCENT`, the same clause in the
/// words sqlparser reads; `None` when there is no such sample.
fn percent_samples(sql: &str, significant: &[&TokenWithSpan], text_end: usize) -> Option<String> {
    let percent_signs: Vec<usize> = significant
        .windows(3)
        .filter(|w| {
            matches!(&w[0].token, Token::Word(word) if word.keyword == Keyword::TABLESAMPLE)
                && matches!(w[1].token, Token::Number(..))
                && w[2].token == Token::Mod
        })
        .map(|w| byte_offset(sql, w[2].span.start))
        .collect();
    if percent_signs.is_empty() {
        return None;
    }
    let first = significant.iter().find(|t| t.token != Token::SemiColon)?;
    let mut text = String::with_capacity(text_end + 8 * percent_signs.len());
    let mut from = byte_offset(sql, first.span.start);
    for at in percent_signs {
        text.push_str(&sql[from..at]);
        text.push_str(" PERCENT");
        from = at + 1;
    }
    text.push_str(&sql[from..text_end]);
    Some(text)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn equivalent(sql: &str, dialect: SqlDialect) -> Option<String> {
        let tokens = crate::lexical::tokenize(sql, dialect).ok()?;
        equivalent_text(sql, &tokens, dialect)
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
        assert_eq!(
            equivalent("TABLE  orders\nORDER BY x = 'it''s' DESC; -- all", d).as_deref(),
            Some("SELECT * FROM  orders\nORDER BY x = 'it''s' DESC"),
            "every byte but the keyword's is kept, up to the last token"
        );
        assert_eq!(equivalent("TABLE orders WHERE id = 1", d), None);
        assert_eq!(equivalent("TABLE orders. ORDER BY id", d), None);
        assert_eq!(equivalent("TABLE ORDER BY id", d), None);
    }

    #[test]
    fn duckdb_percent_samples_read_as_percent() {
        assert_eq!(
            equivalent(
                "SELECT * FROM t TABLESAMPLE 5% WHERE '5%' <> x",
                SqlDialect::DuckDb
            )
            .as_deref(),
            Some("SELECT * FROM t TABLESAMPLE 5 PERCENT WHERE '5%' <> x")
        );
        assert_eq!(
            equivalent(
                "SELECT 'it''s' FROM t TABLESAMPLE 5%; /* done */",
                SqlDialect::DuckDb
            )
            .as_deref(),
            Some("SELECT 'it''s' FROM t TABLESAMPLE 5 PERCENT")
        );
        assert_eq!(equivalent("SELECT 10 % 3 AS m", SqlDialect::DuckDb), None);
        assert_eq!(
            equivalent("SELECT * FROM t TABLESAMPLE 5%", SqlDialect::Postgres),
            None
        );
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
