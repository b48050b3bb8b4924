//! Everyday statements that sqlparser 0.64 cannot parse, read through an equivalent form.
//!
//! Two kinds of reading: words exchanged for equivalent ones ([`equivalent_text`]), and clauses
//! blanked out byte for byte ([`blanked_text`]) where what they say reads no table and calls no
//! function, so the tree without them proves the same.
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

/// The text with DuckDB's `ASOF` join keyword and `USING SAMPLE …` clauses blanked out, every
/// other byte (and every line break) kept in place; `None` when there is neither.
///
/// `a ASOF JOIN b ON …` reads the same tables and expressions as `a JOIN b ON …` (it keeps the
/// nearest match rather than every match), and a sample clause holds only numbers, a unit and a
/// method name (`USING SAMPLE 10%`, `USING SAMPLE 50 ROWS`, `USING SAMPLE 10 PERCENT
/// (bernoulli, 42)`, `USING SAMPLE reservoir(5%) REPEATABLE (7)`): the guard proves the text
/// without them, and the engine runs the text as written (the row cap spliced in at the same
/// byte offsets, which blanking keeps).
pub(crate) fn blanked_text(
    sql: &str,
    tokens: &[TokenWithSpan],
    dialect: SqlDialect,
) -> Option<String> {
    if dialect != SqlDialect::DuckDb {
        return None;
    }
    let significant: Vec<&TokenWithSpan> = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_) | Token::EOF))
        .collect();
    let is = |i: usize, keyword: Keyword| matches!(significant.get(i), Some(t) if matches!(&t.token, Token::Word(w) if w.keyword == keyword && w.quote_style.is_none()));
    let mut blanks = Vec::new();
    let mut i = 0;
    while i < significant.len() {
        if is(i, Keyword::ASOF) && (is(i + 1, Keyword::JOIN) || is(i + 1, Keyword::LEFT)) {
            blanks.push((i, i));
        } else if is(i, Keyword::USING) && is(i + 1, Keyword::SAMPLE) {
            let end = sample_clause_end(&significant, i + 2)?;
            blanks.push((i, end));
            i = end;
        }
        i += 1;
    }
    if blanks.is_empty() {
        return None;
    }
    let mut text = sql.as_bytes().to_vec();
    for (first, last) in blanks {
        let start = byte_offset(sql, significant[first].span.start);
        let end = byte_offset(sql, significant[last].span.end);
        for byte in &mut text[start..end] {
            if *byte != b'\n' {
                *byte = b' ';
            }
        }
    }
    // Whole characters were blanked (token boundaries), each byte by an ASCII space.
    String::from_utf8(text).ok()
}

/// The index of the last token of a sample clause whose size starts at `at`, or `None` when
/// the tokens there are not exactly one of the clause's forms.
fn sample_clause_end(tokens: &[&TokenWithSpan], at: usize) -> Option<usize> {
    let token = |i: usize| tokens.get(i).map(|t| &t.token);
    let word = |i: usize, words: &[&str]| matches!(token(i), Some(Token::Word(w)) if w.quote_style.is_none() && words.iter().any(|x| w.value.eq_ignore_ascii_case(x)));
    const METHODS: &[&str] = &["bernoulli", "system", "reservoir"];
    // A size: a number, then `%`, `PERCENT` or `ROWS` (or nothing: a row count).
    let size = |i: usize| -> Option<usize> {
        if !matches!(token(i), Some(Token::Number(..))) {
            return None;
        }
        if token(i + 1) == Some(&Token::Mod) || word(i + 1, &["percent", "rows"]) {
            Some(i + 1)
        } else {
            Some(i)
        }
    };
    let mut end = if word(at, METHODS) && token(at + 1) == Some(&Token::LParen) {
        // `reservoir(10%)`
        let inner = size(at + 2)?;
        (token(inner + 1) == Some(&Token::RParen)).then_some(inner + 1)?
    } else {
        let size_end = size(at)?;
        if token(size_end + 1) == Some(&Token::LParen) {
            // `10% (bernoulli)` or `10% (bernoulli, 42)`
            if !word(size_end + 2, METHODS) {
                return None;
            }
            match token(size_end + 3) {
                Some(Token::RParen) => size_end + 3,
                Some(Token::Comma)
                    if matches!(token(size_end + 4), Some(Token::Number(..)))
                        && token(size_end + 5) == Some(&Token::RParen) =>
                {
                    size_end + 5
                }
                _ => return None,
            }
        } else {
            size_end
        }
    };
    if word(end + 1, &["repeatable"]) {
        if token(end + 2) == Some(&Token::LParen)
            && matches!(token(end + 3), Some(Token::Number(..)))
            && token(end + 4) == Some(&Token::RParen)
        {
            end += 4;
        } else {
            return None;
        }
    }
    Some(end)
}

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

    fn blanked(sql: &str) -> Option<String> {
        let tokens = crate::lexical::tokenize(sql, SqlDialect::DuckDb).ok()?;
        blanked_text(sql, &tokens, SqlDialect::DuckDb)
    }

    #[test]
    fn duckdb_asof_and_sample_clauses_are_blanked_in_place() {
        assert_eq!(
            blanked("SELECT * FROM a ASOF LEFT JOIN b ON a.t >= b.t").as_deref(),
            Some("SELECT * FROM a      LEFT JOIN b ON a.t >= b.t")
        );
        assert_eq!(
            blanked("SELECT * FROM t USING SAMPLE 10%\nORDER BY 1").as_deref(),
            Some("SELECT * FROM t                 \nORDER BY 1")
        );
        for sql in [
            "SELECT * FROM t USING SAMPLE 50 ROWS",
            "SELECT * FROM t USING SAMPLE 10 PERCENT (bernoulli, 42)",
            "SELECT * FROM t USING SAMPLE reservoir(5%) REPEATABLE (7)",
            "SELECT * FROM t USING SAMPLE 10% (system)",
        ] {
            let text = blanked(sql).unwrap_or_else(|| panic!("{sql}"));
            assert_eq!(text.len(), sql.len());
            assert_eq!(text.trim_end(), "SELECT * FROM t", "{sql}");
        }
        // Anything else in the clause, or elsewhere, is left for the parser to refuse.
        for sql in [
            "SELECT * FROM t USING SAMPLE f(10)",
            "SELECT * FROM t USING SAMPLE 10% (bernoulli, x)",
            "SELECT * FROM t USING SAMPLE (SELECT 1)",
            "SELECT * FROM t USING SAMPLE 10% REPEATABLE (now())",
            "SELECT * FROM t JOIN u USING (id)",
        ] {
            assert_eq!(blanked(sql), None, "{sql}");
        }
        let tokens = crate::lexical::tokenize("SELECT 1 USING SAMPLE 1%", SqlDialect::Postgres);
        assert_eq!(
            blanked_text(
                "SELECT 1 USING SAMPLE 1%",
                &tokens.unwrap(),
                SqlDialect::Postgres
            ),
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
