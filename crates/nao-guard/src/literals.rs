//! String literals and quoted names through the row-cap rewrite, which prints the tree back to
//! text.
//!
//! sqlparser keeps a literal's value unescaped and prints it escaping only its quotes (and a
//! quote after a backslash not even those). In the dialects that read backslash escapes —
//! MySQL and MariaDB, BigQuery, Snowflake, ClickHouse, Databricks, Redshift — a backslash comes
//! back unescaped: `'x\\\''` (the value `x\'`) prints as `'x\''` (the value `x'`), `'a\\b'` as
//! `'a\b'` (a backspace), `'a\\'` as the unterminated `'a\'`; `N'…'`, `"…"` and `_utf8mb4'…'`
//! alike. `'it\'s'` prints as `'it''s'`, which BigQuery refuses and Databricks reads as two
//! adjacent strings (`its`); `'\%'`, which Databricks and MySQL keep as `\%` (a literal percent
//! sign in a LIKE pattern), reaches some dialects' trees as `%`. Triple-quoted strings (BigQuery)
//! print their value with no escapes at all. And in every dialect the printer takes two quotes
//! in a value for an escaped one: the value `x''y` (written `'x''''y'`) prints as `'x''y'`, the
//! name `a""b` (written `"a""""b"`) as `"a""b"`, another column. T-SQL's `[…]` names print
//! with a `]` inside undoubled.
//!
//! Hex numbers change too: `0x1F` (31 in SQLite, ClickHouse, BigQuery, Trino) prints as the
//! blob `X'1F'`.
//!
//! So before printing, [`prepare_for_print`] gives each literal and quoted name taken from the
//! text that would print otherwise its own text back (the printer writes that verbatim), doubles
//! `]` in `[…]` names, and notes what the tree holds; after printing, [`reads_back_as`] checks that the printed text
//! holds the same literal values and quoted names: the guard sends the printed text only when
//! it does. (The check reads the text as sqlparser does, so it cannot see what sqlparser's
//! reading loses, such as `\%` read as `%`; restoring the text as written is what covers that.)

use std::ops::ControlFlow;

use sqlparser::ast::{
    Ident, Statement, Value, ValueWithSpan, Visit, VisitMut, Visitor, VisitorMut,
};
use sqlparser::tokenizer::{Span, Token, Tokenizer};

use crate::SqlDialect;
use crate::source_index::SourceIndex;

/// What the printed text must read back as: the tree's literal values and the values of its
/// quoted names, each in visiting order.
#[derive(Debug, Default)]
pub(crate) struct Intended {
    values: Vec<Value>,
    quoted_names: Vec<String>,
}

/// Whether the tree holds the `intended` literal values and quoted names, in visiting order.
pub(crate) fn reads_back_as(statement: &Statement, intended: &Intended) -> bool {
    struct Compare<'e> {
        values: std::slice::Iter<'e, Value>,
        quoted_names: std::slice::Iter<'e, String>,
    }
    impl Visitor for Compare<'_> {
        type Break = ();
        fn pre_visit_value(&mut self, value: &ValueWithSpan) -> ControlFlow<()> {
            match self.values.next() {
                Some(v) if *v == value.value => ControlFlow::Continue(()),
                _ => ControlFlow::Break(()),
            }
        }
        fn pre_visit_ident(&mut self, ident: &Ident) -> ControlFlow<()> {
            if ident.quote_style.is_none() {
                return ControlFlow::Continue(());
            }
            match self.quoted_names.next() {
                Some(name) if *name == ident.value => ControlFlow::Continue(()),
                _ => ControlFlow::Break(()),
            }
        }
    }
    let mut compare = Compare {
        values: intended.values.iter(),
        quoted_names: intended.quoted_names.iter(),
    };
    statement.visit(&mut compare).is_continue()
        && compare.values.next().is_none()
        && compare.quoted_names.next().is_none()
}

/// Readies the tree for printing in one pass: notes what the printed text must read back as,
/// and gives each string literal and quoted name parsed from `sql` that would print otherwise
/// than written its raw text between the quotes back, where the printer writes that back
/// exactly and it reads as the same value.
pub(crate) fn prepare_for_print(
    statement: &mut Statement,
    sql: &str,
    dialect: SqlDialect,
) -> Intended {
    struct Prepare<'a> {
        sql: &'a str,
        /// Built for the first literal or name to restore.
        index: Option<SourceIndex<'a>>,
        restore: bool,
        dialect: SqlDialect,
        intended: Intended,
    }
    impl<'a> Prepare<'a> {
        /// The text at `span`.
        fn written(&mut self, span: Span) -> Option<&'a str> {
            let sql = self.sql;
            let index = self.index.get_or_insert_with(|| SourceIndex::new(sql));
            let (start, end) = (index.offset(span.start)?, index.offset(span.end)?);
            index.sql().get(start..end)
        }
    }
    impl VisitorMut for Prepare<'_> {
        type Break = ();
        fn pre_visit_value(&mut self, value: &mut ValueWithSpan) -> ControlFlow<()> {
            self.intended.values.push(value.value.clone());
            if self.restore
                && matches!(value.value, Value::HexStringLiteral(_))
                && let Some(number) = self.written(value.span).and_then(hex_number_as_written)
            {
                value.value = number;
                return ControlFlow::Continue(());
            }
            if self.restore && !printed_as_written(value) {
                let dialect = self.dialect;
                if let Some(raw) = self
                    .written(value.span)
                    .and_then(|w| raw_form(&value.value, w, dialect))
                {
                    value.value = raw;
                }
            }
            ControlFlow::Continue(())
        }
        fn pre_visit_ident(&mut self, ident: &mut Ident) -> ControlFlow<()> {
            let Some(quote) = ident.quote_style else {
                return ControlFlow::Continue(());
            };
            self.intended.quoted_names.push(ident.value.clone());
            if quote == '[' {
                // The printer writes `[…]` names as they are, `]` included (T-SQL doubles it).
                if ident.value.contains(']') {
                    ident.value = ident.value.replace(']', "]]");
                }
                return ControlFlow::Continue(());
            }
            // The printer doubles a lone quote but keeps two in a row as they are.
            if self.restore && matches!(quote, '"' | '`') && ident.value.contains(quote) {
                let dialect = self.dialect;
                if let Some(raw) = self
                    .written(ident.span)
                    .and_then(|w| raw_name(ident, w, dialect))
                {
                    ident.value = raw;
                }
            }
            ControlFlow::Continue(())
        }
    }
    let mut prepare = Prepare {
        sql,
        index: None,
        // sqlparser reads `/*! … */` as code in some dialects, giving the tokens inside
        // made-up locations: leave those as they are, and let the comparison judge.
        restore: !sql.contains("/*!"),
        dialect,
        intended: Intended::default(),
    };
    let _ = statement.visit(&mut prepare);
    prepare.intended
}

/// `0x1F` as written, for a hex literal the tokenizer read from it: sqlparser reads `0x1F` as
/// the hex string `X'1F'` and prints it so, but the engines do not read the two alike (SQLite,
/// ClickHouse, BigQuery and Trino take `0x1F` for the integer 31 and `X'1F'` for a blob; DuckDB
/// takes `0x1F` for the number 0 named `x1F`; T-SQL has no `X'…'`). A number literal prints its
/// text verbatim, and the text reads back as the same hex literal.
fn hex_number_as_written(written: &str) -> Option<Value> {
    let digits = written.strip_prefix("0x")?;
    digits
        .bytes()
        .all(|b| b.is_ascii_hexdigit())
        .then(|| Value::Number(written.to_owned(), false))
}

/// The raw text between the quotes of the quoted name `ident`, written as `written`, when the
/// printer prints that back as `written` and the dialect reads `written` as `ident`.
fn raw_name(ident: &Ident, written: &str, dialect: SqlDialect) -> Option<String> {
    let quote = ident.quote_style?;
    let content = written.strip_prefix(quote)?.strip_suffix(quote)?;
    let raw = Ident::with_quote(quote, content);
    let reads_as = match Tokenizer::new(dialect.parser_dialect(), written)
        .tokenize()
        .as_deref()
    {
        Ok([Token::Word(word)]) => word.quote_style == Some(quote) && word.value == ident.value,
        _ => false,
    };
    (reads_as && raw.to_string() == written).then(|| content.to_owned())
}

/// Whether the printer writes the literal exactly as it was written, so that it needs no
/// restoring: a value with no quote, backslash or control character (which the printer writes
/// by its own rules), spanning as many characters as its printed form (an escape or a doubled
/// quote in the text, even one that left no trace in the value — `'\%'` read as `%` — makes
/// the text longer than the value). Literals that are not strings print as written.
fn printed_as_written(literal: &ValueWithSpan) -> bool {
    let (Some(value), Some(layout)) = (string_of(&literal.value), layout(&literal.value)) else {
        return true;
    };
    let (start, end) = (literal.span.start, literal.span.end);
    let printed_chars = layout.prefix + 2 * layout.quotes + value.chars().count();
    !value
        .chars()
        .any(|c| matches!(c, '\'' | '"' | '\\') || c.is_control())
        && start.line == end.line
        && end.column.checked_sub(start.column) == u64::try_from(printed_chars).ok()
}

/// How the printer writes a string literal: a prefix (`N`, `X`, `B`, `R`), then the value
/// between one or three quotes on each side.
struct Layout {
    /// The literal of the same kind holding another string.
    rebuild: fn(String) -> Value,
    /// Characters before the first quote.
    prefix: usize,
    /// Quotes on each side.
    quotes: usize,
}

/// The layout of the string literals this module restores; `None` for every other value
/// (numbers, `E'…'` and `U&'…'`, whose printers escape backslashes themselves, dollar quotes).
fn layout(value: &Value) -> Option<Layout> {
    let (rebuild, prefix, quotes): (fn(String) -> Value, usize, usize) = match value {
        Value::SingleQuotedString(_) => (Value::SingleQuotedString, 0, 1),
        Value::DoubleQuotedString(_) => (Value::DoubleQuotedString, 0, 1),
        Value::NationalStringLiteral(_) => (Value::NationalStringLiteral, 1, 1),
        Value::HexStringLiteral(_) => (Value::HexStringLiteral, 1, 1),
        Value::SingleQuotedByteStringLiteral(_) => (Value::SingleQuotedByteStringLiteral, 1, 1),
        Value::DoubleQuotedByteStringLiteral(_) => (Value::DoubleQuotedByteStringLiteral, 1, 1),
        Value::SingleQuotedRawStringLiteral(_) => (Value::SingleQuotedRawStringLiteral, 1, 1),
        Value::DoubleQuotedRawStringLiteral(_) => (Value::DoubleQuotedRawStringLiteral, 1, 1),
        Value::TripleSingleQuotedString(_) => (Value::TripleSingleQuotedString, 0, 3),
        Value::TripleDoubleQuotedString(_) => (Value::TripleDoubleQuotedString, 0, 3),
        Value::TripleSingleQuotedByteStringLiteral(_) => {
            (Value::TripleSingleQuotedByteStringLiteral, 1, 3)
        }
        Value::TripleDoubleQuotedByteStringLiteral(_) => {
            (Value::TripleDoubleQuotedByteStringLiteral, 1, 3)
        }
        Value::TripleSingleQuotedRawStringLiteral(_) => {
            (Value::TripleSingleQuotedRawStringLiteral, 1, 3)
        }
        Value::TripleDoubleQuotedRawStringLiteral(_) => {
            (Value::TripleDoubleQuotedRawStringLiteral, 1, 3)
        }
        _ => return None,
    };
    Some(Layout {
        rebuild,
        prefix,
        quotes,
    })
}

/// The literal `value` holding the raw content of its source text `written`, when the printer
/// prints that back as `written` and the dialect reads `written` as `value`.
fn raw_form(value: &Value, written: &str, dialect: SqlDialect) -> Option<Value> {
    let Layout {
        rebuild, quotes, ..
    } = layout(value)?;
    let prefix = written.find(['\'', '"'])?;
    let content = written.get(prefix + quotes..written.len().checked_sub(quotes)?)?;
    if Some(content) == string_of(value) {
        // Nothing was unescaped: the printer writes the value as it was written.
        return None;
    }
    let raw = rebuild(content.to_owned());
    let printed = raw.to_string();
    let same_text = printed.len() == written.len()
        && printed
            .get(..prefix)
            .is_some_and(|p| p.eq_ignore_ascii_case(&written[..prefix]))
        && printed.get(prefix..) == written.get(prefix..);
    (same_text && reads_as(written, value, dialect)).then_some(raw)
}

/// Whether `written` is one token that the dialect reads as the string of `value`.
fn reads_as(written: &str, value: &Value, dialect: SqlDialect) -> bool {
    let Ok(tokens) = Tokenizer::new(dialect.parser_dialect(), written).tokenize() else {
        return false;
    };
    match tokens.as_slice() {
        [token] => token_string(token).is_some_and(|s| Some(s) == string_of(value)),
        _ => false,
    }
}

fn string_of(value: &Value) -> Option<&str> {
    match value {
        Value::SingleQuotedString(s)
        | Value::DoubleQuotedString(s)
        | Value::NationalStringLiteral(s)
        | Value::HexStringLiteral(s)
        | Value::SingleQuotedByteStringLiteral(s)
        | Value::DoubleQuotedByteStringLiteral(s)
        | Value::SingleQuotedRawStringLiteral(s)
        | Value::DoubleQuotedRawStringLiteral(s)
        | Value::TripleSingleQuotedString(s)
        | Value::TripleDoubleQuotedString(s)
        | Value::TripleSingleQuotedByteStringLiteral(s)
        | Value::TripleDoubleQuotedByteStringLiteral(s)
        | Value::TripleSingleQuotedRawStringLiteral(s)
        | Value::TripleDoubleQuotedRawStringLiteral(s) => Some(s),
        _ => None,
    }
}

fn token_string(token: &Token) -> Option<&str> {
    match token {
        Token::SingleQuotedString(s)
        | Token::DoubleQuotedString(s)
        | Token::NationalStringLiteral(s)
        | Token::HexStringLiteral(s)
        | Token::SingleQuotedByteStringLiteral(s)
        | Token::DoubleQuotedByteStringLiteral(s)
        | Token::SingleQuotedRawStringLiteral(s)
        | Token::DoubleQuotedRawStringLiteral(s)
        | Token::TripleSingleQuotedString(s)
        | Token::TripleDoubleQuotedString(s)
        | Token::TripleSingleQuotedByteStringLiteral(s)
        | Token::TripleDoubleQuotedByteStringLiteral(s)
        | Token::TripleSingleQuotedRawStringLiteral(s)
        | Token::TripleDoubleQuotedRawStringLiteral(s) => Some(s),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use sqlparser::parser::Parser;

    use super::*;

    fn parse(sql: &str, dialect: SqlDialect) -> Statement {
        Parser::new(dialect.parser_dialect())
            .try_with_sql(sql)
            .and_then(|mut p| p.parse_statement())
            .unwrap_or_else(|e| panic!("{sql:?}: {e}"))
    }

    /// The text printed after [`prepare_for_print`], and whether it reads back as the same
    /// values.
    fn round_trip(sql: &str, dialect: SqlDialect) -> (String, bool) {
        let mut statement = parse(sql, dialect);
        let intended = prepare_for_print(&mut statement, sql, dialect);
        let printed = statement.to_string();
        let same = reads_back_as(&parse(&printed, dialect), &intended);
        (printed, same)
    }

    #[test]
    fn literals_print_as_written() {
        let mysql = SqlDialect::MySql;
        for sql in [
            r"SELECT 'x\\\'' AS a",
            r"SELECT n'a\\' AS a, _latin1'b\'' AS b, x'41' AS c",
            r#"SELECT "a\"""\\" AS a"#,
            "SELECT 'é\\\\日本' AS a",
        ] {
            assert_eq!(
                round_trip(sql, mysql).0.to_lowercase(),
                sql.to_lowercase().replace("_latin1'", "_latin1 '")
            );
            assert!(round_trip(sql, mysql).1, "{sql}");
        }
        let bigquery = SqlDialect::BigQuery;
        assert_eq!(
            round_trip(r"SELECT '''a\\''' AS a, b'\\' AS b", bigquery).0,
            r"SELECT '''a\\''' AS a, B'\\' AS b"
        );
    }

    #[test]
    fn values_and_quoted_names_are_compared_in_order_and_in_full() {
        let d = SqlDialect::Postgres;
        let sql = r#"SELECT 'a', 1, "x" FROM t"#;
        let mut tree = parse(sql, d);
        let intended = prepare_for_print(&mut tree, sql, d);
        assert!(reads_back_as(&tree, &intended));
        for other in [
            r#"SELECT 'a', 1, "x" FROM t WHERE 2 = 2"#,
            "SELECT 'a', 1 FROM t",
            r#"SELECT 1, 'a', "x" FROM t"#,
            r#"SELECT 'a', 1, "y" FROM t"#,
            r#"SELECT 'a', 1, "x" FROM "t""#,
        ] {
            assert!(!reads_back_as(&parse(other, d), &intended), "{other}");
        }
        // Unquoted names are not compared: the printer writes them as they are.
        assert!(reads_back_as(
            &parse(r#"SELECT 'a', 1, "x" FROM u"#, d),
            &intended
        ));
    }

    #[test]
    fn doubled_quotes_in_values_and_names_print_as_written() {
        for (sql, d) in [
            (
                r#"SELECT 'x''''y' AS "a""""b" FROM t"#,
                SqlDialect::Postgres,
            ),
            ("SELECT `a````b` FROM t", SqlDialect::MySql),
        ] {
            let mut tree = parse(sql, d);
            let printed_as_parsed = tree.to_string();
            let intended = prepare_for_print(&mut tree, sql, d);
            assert!(
                !reads_back_as(&parse(&printed_as_parsed, d), &intended),
                "{sql}"
            );
            assert_eq!(tree.to_string(), sql);
            assert!(reads_back_as(&parse(sql, d), &intended), "{sql}");
        }
    }

    #[test]
    fn a_span_that_does_not_hold_the_literal_restores_nothing() {
        let d = SqlDialect::MySql;
        let mut statement = parse(r"SELECT 'a\\b'", d);
        // The same tree against another text: the span now covers other characters.
        prepare_for_print(&mut statement, r"SELECT 'c\\d'", d);
        assert_eq!(statement.to_string(), r"SELECT 'a\b'");
        prepare_for_print(&mut statement, "", d);
        assert_eq!(statement.to_string(), r"SELECT 'a\b'");
    }
}
