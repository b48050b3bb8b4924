//! SQL text without its values, for logs and traces: every literal becomes `?`.

use sqlparser::tokenizer::{Token, Tokenizer};

use crate::lexical::is_string_literal;
use crate::{DEFAULT_MAX_SQL_BYTES, SqlDialect};

/// `sql` with every literal (string, number, byte, hex, dollar-quoted…) replaced by `?` and
/// every comment removed, on one line, for logs and traces that must show a statement's shape
/// but none of its values (OpenTelemetry's `db.query.text`, sanitized).
///
/// Identifiers, keywords, operators and parameter placeholders are kept as written; runs of
/// blanks become one space. Comments go entirely, because a comment can hold anything (and
/// MySQL's `/*! … */` and optimizer hints hold SQL). The text is tokenized in `dialect`, so
/// `"x"` stays an identifier in PostgreSQL and becomes `?` in MySQL, where it is a string.
///
/// `None` when the text does not tokenize (an unterminated string, say) or is longer than
/// [`DEFAULT_MAX_SQL_BYTES`]: nothing is better than a text that might hold a value. It never
/// panics, and its time and memory are linear in the text.
///
/// ```
/// use nao_guard::{SqlDialect, mask_literals};
///
/// let sql = "SELECT name FROM customers -- VIP list\nWHERE email = 'ada@example.com' AND age > 42";
/// assert_eq!(
///     mask_literals(sql, SqlDialect::Postgres).as_deref(),
///     Some("SELECT name FROM customers WHERE email = ? AND age > ?"),
/// );
/// assert_eq!(mask_literals("SELECT 'unterminated", SqlDialect::Postgres), None);
/// ```
pub fn mask_literals(sql: &str, dialect: SqlDialect) -> Option<String> {
    if sql.len() > DEFAULT_MAX_SQL_BYTES {
        return None;
    }
    // Escapes kept as written, so that a quoted identifier is shown as it was typed.
    let tokens = Tokenizer::new(dialect.parser_dialect(), sql)
        .with_unescape(false)
        .tokenize()
        .ok()?;
    let mut masked = String::with_capacity(sql.len());
    let mut blank = false;
    for token in &tokens {
        match token {
            Token::Whitespace(_) => blank = true,
            Token::EOF => {}
            token => {
                if blank && !masked.is_empty() {
                    masked.push(' ');
                }
                blank = false;
                if holds_value(token) {
                    masked.push('?');
                } else {
                    masked.push_str(&token.to_string());
                }
            }
        }
    }
    Some(masked)
}

/// Whether the token carries a value written in the statement (as opposed to a name, a
/// keyword, an operator or a parameter placeholder).
fn holds_value(token: &Token) -> bool {
    matches!(token, Token::Number(..) | Token::CopyData { .. }) || is_string_literal(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn masked(sql: &str, dialect: SqlDialect) -> String {
        mask_literals(sql, dialect).unwrap_or_else(|| format!("<none for {sql:?}>"))
    }

    #[test]
    fn strings_numbers_and_typed_literals_become_placeholders() {
        let sql = "SELECT p.category, SUM(oi.quantity * 1.5) AS revenue FROM order_items oi \
                   WHERE o.status NOT IN ('cancelled', 'refunded') \
                   AND o.ordered_at >= DATE '2024-01-01' AND x < -3e5 LIMIT 10001";
        assert_eq!(
            masked(sql, SqlDialect::Sqlite),
            "SELECT p.category, SUM(oi.quantity * ?) AS revenue FROM order_items oi \
             WHERE o.status NOT IN (?, ?) AND o.ordered_at >= DATE ? AND x < -? LIMIT ?"
        );
    }

    #[test]
    fn dialect_specific_literals_are_masked() {
        let cases = [
            (
                SqlDialect::Postgres,
                "SELECT E'a\\'b', $$secret$$, $tag$x$tag$, X'ff', U&'d'",
            ),
            (SqlDialect::MySql, "SELECT \"secret\", x'ff', N'nat', b'01'"),
            (
                SqlDialect::BigQuery,
                "SELECT r'raw', b'bytes', '''triple''', \"\"\"triple\"\"\"",
            ),
            (SqlDialect::MsSql, "SELECT N'secret', 0x1F"),
        ];
        for (dialect, sql) in cases {
            let out = masked(sql, dialect);
            for secret in [
                "secret", "raw", "bytes", "triple", "nat", "ff", "a\\'b", "'",
            ] {
                assert!(
                    !out.contains(secret),
                    "{dialect:?}: {secret:?} left in {out:?}"
                );
            }
            assert!(out.starts_with("SELECT ?"), "{dialect:?}: {out:?}");
        }
    }

    #[test]
    fn identifiers_keywords_and_placeholders_stay() {
        assert_eq!(
            masked(
                "SELECT \"Order Id\", `x` FROM t WHERE a = $1 AND b = ? AND c IS NULL",
                SqlDialect::Postgres
            ),
            "SELECT \"Order Id\", `x` FROM t WHERE a = $1 AND b = ? AND c IS NULL"
        );
        assert_eq!(
            masked(
                "SELECT \"Order Id\" FROM t WHERE TRUE",
                SqlDialect::Postgres
            ),
            "SELECT \"Order Id\" FROM t WHERE TRUE"
        );
    }

    #[test]
    fn comments_go_and_blanks_collapse() {
        let sql = "/* by ada@example.com */ SELECT\n\t1 -- 'the answer'\n, /*+ SET_VAR(x=1) */ a # hash\nFROM t";
        let out = masked(sql, SqlDialect::MySql);
        assert_eq!(out, "SELECT ? , a FROM t");
    }

    #[test]
    fn text_that_does_not_tokenize_or_is_too_long_gives_nothing() {
        assert_eq!(mask_literals("SELECT 'open", SqlDialect::Sqlite), None);
        assert_eq!(mask_literals("SELECT $$open", SqlDialect::Postgres), None);
        let long = format!("SELECT '{}'", "x".repeat(DEFAULT_MAX_SQL_BYTES));
        assert_eq!(mask_literals(&long, SqlDialect::Sqlite), None);
        assert_eq!(mask_literals("", SqlDialect::Sqlite).as_deref(), Some(""));
    }

    /// Over every statement of the case tables, in each of its dialects: whatever tokenizes
    /// masks, and the masked text holds no value a second reading could find.
    #[test]
    fn no_case_statement_keeps_a_value() {
        let mut masked_count = 0;
        for (sql, dialects) in crate::test_cases::statements() {
            for dialect in dialects {
                let tokenizes = Tokenizer::new(dialect.parser_dialect(), &sql)
                    .with_unescape(false)
                    .tokenize()
                    .is_ok();
                let Some(out) = mask_literals(&sql, dialect) else {
                    assert!(
                        !tokenizes || sql.len() > DEFAULT_MAX_SQL_BYTES,
                        "{dialect:?}: {sql:?}"
                    );
                    continue;
                };
                masked_count += 1;
                let again = Tokenizer::new(dialect.parser_dialect(), &out)
                    .with_unescape(false)
                    .tokenize()
                    .unwrap_or_default();
                assert!(
                    !again.iter().any(holds_value),
                    "{dialect:?}: {sql:?} masked to {out:?}"
                );
            }
        }
        assert!(masked_count > 1_000, "{masked_count} statements masked");
    }

    #[test]
    fn every_dialect_masks_a_plain_string() {
        for dialect in SqlDialect::ALL {
            let out = masked("SELECT 'ada@example.com' AS email, 7 AS n", dialect);
            assert_eq!(out, "SELECT ? AS email, ? AS n", "{dialect:?}");
        }
    }
}
