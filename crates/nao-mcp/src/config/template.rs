//! The SQL of a named query: a statement with `:name` placeholders where values go, and the
//! substitution of a model's values into it.
//!
//! The template is the operator's (trusted); the values are the model's (untrusted). The
//! engines take no bind parameters through [`nao_core::Dialect`], so each value is written into
//! the SQL as a literal, and three things keep it a literal:
//!
//! 1. **Rendering.** Numbers and booleans are written by this module from typed values (an
//!    `i64`, a finite `f64`, a `bool`), never from the model's text; a negative number is
//!    parenthesized, so `1-:n` cannot become the comment `1--1`. Strings are written by
//!    [`SqlDialect::quote_string_literal`], which knows each engine's escapes.
//! 2. **Reading back.** Each string literal is parsed alone in the database's dialect and must
//!    read back as exactly the value given.
//! 3. **Same shape.** The whole statement is parsed again after the substitution and must equal
//!    the template's parse with each placeholder replaced by its literal: the same statements,
//!    the same clauses, the literals where the placeholders were and nowhere else. Whatever a
//!    value held, if it ended its literal early or opened a comment, the parse would differ.
//!
//! The result then goes through the guard, the policy and the row cap like any `execute_sql`
//! call. Placeholders are found by sqlparser, so one inside a string literal, a quoted name or a
//! comment is not a placeholder, and one where no value may stand (a table or column name)
//! does not parse.

use std::collections::BTreeMap;
use std::ops::{ControlFlow, Range};

use nao_core::guard::SqlDialect;
use sqlparser::ast::{
    Expr, Statement, Value, ValueWithSpan, Visit, Visitor, visit_expressions_mut,
};
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Location, Token};

/// How deep the template's and the substituted SQL's expressions may nest (the guard's own
/// bound applies again when the query runs).
const RECURSION_LIMIT: usize = 64;

/// A value to put where a placeholder stands.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Literal {
    /// `NULL` (an optional parameter the model left out).
    Null,
    /// A boolean.
    Boolean(bool),
    /// A whole number.
    Integer(i64),
    /// A finite number.
    Number(f64),
    /// A string.
    String(String),
}

impl Literal {
    /// The literal's SQL in `dialect`, or why it has none.
    fn render(&self, dialect: SqlDialect) -> Result<String, String> {
        Ok(match self {
            Literal::Null => "NULL".to_owned(),
            Literal::Boolean(b) => dialect.boolean_literal(*b).to_owned(),
            Literal::Integer(n) if *n < 0 => format!("(-{})", n.unsigned_abs()),
            Literal::Integer(n) => n.to_string(),
            Literal::Number(x) if !x.is_finite() => {
                return Err("is not a finite number".to_owned());
            }
            // `{:?}` writes the shortest text that reads back as the same f64 (`0.1`, `1e300`).
            Literal::Number(x) if x.is_sign_negative() => format!("(-{:?})", x.abs()),
            Literal::Number(x) => format!("{x:?}"),
            Literal::String(s) => dialect.quote_string_literal(s).ok_or_else(|| {
                let what = if s.contains('\0') {
                    "a NUL character"
                } else if s.contains('\\') {
                    "a backslash where its meaning depends on the engine"
                } else {
                    "a backslash before a line break"
                };
                format!(
                    "holds {what}, which a {} string literal cannot carry exactly",
                    dialect.display_name()
                )
            })?,
        })
    }
}

/// Where a placeholder stands in the template's text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Slot {
    /// The parameter's name (without the colon).
    name: String,
    /// Its bytes in the template, colon included.
    range: Range<usize>,
}

/// A parsed template.
#[derive(Debug, Clone)]
pub(crate) struct Template {
    sql: String,
    dialect: SqlDialect,
    /// The template's parse: one statement, placeholders as `Value::Placeholder`.
    statements: Vec<Statement>,
    /// Every placeholder, in the order of the text.
    slots: Vec<Slot>,
}

impl Template {
    /// Parses `sql` in `dialect` and finds its placeholders. Fails when it does not parse, is
    /// not one statement, or has a placeholder that is not `:name` or that stands where no
    /// value expression may.
    pub(crate) fn parse(sql: &str, dialect: SqlDialect) -> Result<Template, String> {
        let statements = parse(sql, dialect)
            .map_err(|e| format!("does not parse as {} SQL: {e}", dialect.display_name()))?;
        if statements.len() != 1 {
            return Err(format!(
                "holds {} statements; a named query is exactly one",
                statements.len()
            ));
        }
        let mut finder = PlaceholderFinder::default();
        let _ = statements.visit(&mut finder);
        let lines = LineStarts::of(sql);
        let mut slots = Vec::new();
        for (text, start, end) in finder.found {
            let name = text
                .strip_prefix(':')
                .filter(|name| is_parameter_name(name))
                .ok_or_else(|| {
                    format!(
                        "has the placeholder {text}; write parameters as :name (a letter or _ \
                         then letters, digits or _)"
                    )
                })?;
            let range = lines.offset(sql, start)..lines.offset(sql, end);
            if sql.get(range.clone()) != Some(text.as_str()) {
                return Err(format!(
                    "could not locate the placeholder {text} in the SQL"
                ));
            }
            slots.push(Slot {
                name: name.to_owned(),
                range,
            });
        }
        slots.sort_by_key(|s| s.range.start);
        slots.dedup();
        // A placeholder the parser took as a bare token where only a literal can stand (not a
        // value expression) could not be checked like the others.
        let mut in_expressions = 0;
        let mut copy = statements.clone();
        let _ = visit_expressions_mut(&mut copy, |expr: &mut Expr| {
            if placeholder_of(expr).is_some() {
                in_expressions += 1;
            }
            ControlFlow::<()>::Continue(())
        });
        if in_expressions != slots.len() {
            return Err(
                "has a placeholder where only a literal token may stand, not a value (TOP n, \
                 a type's length, …); use parameters in expressions (WHERE, LIMIT, SELECT lists)"
                    .to_owned(),
            );
        }
        Ok(Template {
            sql: sql.to_owned(),
            dialect,
            statements,
            slots,
        })
    }

    /// The distinct parameter names the SQL uses, sorted.
    pub(crate) fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.slots.iter().map(|s| s.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// The SQL with every placeholder replaced by its value's literal, checked to read back as
    /// the template's statement with those values (see the module docs). `values` must hold
    /// every name the template uses. The error names the parameter when one is at fault.
    pub(crate) fn render(&self, values: &BTreeMap<String, Literal>) -> Result<String, String> {
        let mut literals: BTreeMap<&str, (String, Expr)> = BTreeMap::new();
        for name in self.names() {
            let value = values
                .get(name)
                .ok_or_else(|| format!("parameter {name}: no value"))?;
            let text = value
                .render(self.dialect)
                .map_err(|why| format!("parameter {name}: the value {why}"))?;
            let expr = self.read_back(name, value, &text)?;
            literals.insert(name, (text, expr));
        }
        let mut sql = String::with_capacity(self.sql.len() + 64);
        let mut at = 0;
        for slot in &self.slots {
            sql.push_str(&self.sql[at..slot.range.start]);
            sql.push_str(&literals[slot.name.as_str()].0);
            at = slot.range.end;
        }
        sql.push_str(&self.sql[at..]);

        let mut expected = self.statements.clone();
        let _ = visit_expressions_mut(&mut expected, |expr: &mut Expr| {
            if let Some(name) = placeholder_of(expr).map(str::to_owned)
                && let Some((_, literal)) = literals.get(name.as_str())
            {
                *expr = literal.clone();
            }
            ControlFlow::<()>::Continue(())
        });
        let changed = || {
            "a value changed how the query parses once written into it; send plain values"
                .to_owned()
        };
        let actual = parse(&sql, self.dialect).map_err(|_| changed())?;
        if actual != expected {
            return Err(changed());
        }
        Ok(sql)
    }

    /// The expression `text` (the literal of `value`) parses to alone, checked to be one
    /// literal that holds exactly `value` when it is a string.
    fn read_back(&self, name: &str, value: &Literal, text: &str) -> Result<Expr, String> {
        let unreadable = || {
            format!(
                "parameter {name}: the value does not read back as itself in {} SQL; send a \
                 plainer value",
                self.dialect.display_name()
            )
        };
        let mut parser = Parser::new(self.dialect.parser_dialect())
            .with_recursion_limit(RECURSION_LIMIT)
            .try_with_sql(text)
            .map_err(|_| unreadable())?;
        let expr = parser.parse_expr().map_err(|_| unreadable())?;
        if parser.peek_token().token != Token::EOF {
            return Err(unreadable());
        }
        if let Literal::String(s) = value {
            let read = match &expr {
                Expr::Value(ValueWithSpan {
                    value:
                        Value::SingleQuotedString(read)
                        | Value::EscapedStringLiteral(read)
                        | Value::NationalStringLiteral(read),
                    ..
                }) => read,
                _ => return Err(unreadable()),
            };
            if read != s {
                return Err(unreadable());
            }
        }
        Ok(expr)
    }
}

/// Parses `sql` in `dialect` with the module's recursion limit.
fn parse(sql: &str, dialect: SqlDialect) -> Result<Vec<Statement>, sqlparser::parser::ParserError> {
    Parser::new(dialect.parser_dialect())
        .with_recursion_limit(RECURSION_LIMIT)
        .try_with_sql(sql)?
        .parse_statements()
}

/// The placeholder text (`:name`) of an expression that is only a placeholder.
fn placeholder_of(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::Value(ValueWithSpan {
            value: Value::Placeholder(text),
            ..
        }) => text.strip_prefix(':'),
        _ => None,
    }
}

/// A parameter name: a letter or `_`, then letters, digits or `_`.
pub(crate) fn is_parameter_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Collects every placeholder value with its span.
#[derive(Default)]
struct PlaceholderFinder {
    found: Vec<(String, Location, Location)>,
}

impl Visitor for PlaceholderFinder {
    type Break = ();

    fn pre_visit_value(&mut self, value: &ValueWithSpan) -> ControlFlow<()> {
        if let Value::Placeholder(text) = &value.value {
            self.found
                .push((text.clone(), value.span.start, value.span.end));
        }
        ControlFlow::Continue(())
    }
}

/// The byte offset where each line of a text starts (sqlparser counts lines from 1 at each
/// `\n` and columns from 1 in characters).
struct LineStarts(Vec<usize>);

impl LineStarts {
    fn of(text: &str) -> LineStarts {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineStarts(starts)
    }

    /// The byte offset of `location` in `text` (its end when the location is past it).
    fn offset(&self, text: &str, location: Location) -> usize {
        let line = usize::try_from(location.line.saturating_sub(1)).unwrap_or(usize::MAX);
        let Some(&start) = self.0.get(line) else {
            return text.len();
        };
        let column = usize::try_from(location.column.saturating_sub(1)).unwrap_or(usize::MAX);
        text[start..]
            .char_indices()
            .nth(column)
            .map_or(text.len(), |(i, _)| start + i)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn values(pairs: &[(&str, Literal)]) -> BTreeMap<String, Literal> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    }

    #[test]
    fn finds_placeholders_and_substitutes_them() {
        let sql = "SELECT ':not_me' AS a, \"x:y\" -- :nor_me\nFROM t\r\nWHERE é = :name AND n > :n OR m = :n LIMIT :limit";
        let template = Template::parse(sql, SqlDialect::Sqlite).unwrap();
        assert_eq!(template.names(), ["limit", "n", "name"]);
        let sql = template
            .render(&values(&[
                ("name", Literal::String("it's".into())),
                ("n", Literal::Integer(-3)),
                ("limit", Literal::Integer(5)),
            ]))
            .unwrap();
        assert_eq!(
            sql,
            "SELECT ':not_me' AS a, \"x:y\" -- :nor_me\nFROM t\r\nWHERE é = 'it''s' AND n > (-3) OR m = (-3) LIMIT 5"
        );
    }

    #[test]
    fn renders_typed_values() {
        let template = Template::parse("SELECT 1-:x", SqlDialect::Postgres).unwrap();
        let render = |v: Literal| template.render(&values(&[("x", v)]));
        assert_eq!(render(Literal::Integer(-1)).unwrap(), "SELECT 1-(-1)");
        assert_eq!(render(Literal::Number(-0.5)).unwrap(), "SELECT 1-(-0.5)");
        assert_eq!(render(Literal::Number(1e300)).unwrap(), "SELECT 1-1e300");
        assert_eq!(render(Literal::Boolean(true)).unwrap(), "SELECT 1-TRUE");
        assert_eq!(render(Literal::Null).unwrap(), "SELECT 1-NULL");
        assert!(render(Literal::Number(f64::NAN)).is_err());
        assert_eq!(
            render(Literal::Integer(i64::MIN)).unwrap(),
            "SELECT 1-(-9223372036854775808)"
        );
    }

    #[test]
    fn startup_errors() {
        let parse = |sql: &str| Template::parse(sql, SqlDialect::Sqlite).unwrap_err();
        assert!(parse("SELECT * FROM :table").contains("does not parse"));
        assert!(parse("SELECT 1; SELECT 2").contains("2 statements"));
        assert!(parse("SELECT ?").contains("write parameters as :name"));
        assert!(parse("SELECT $1").contains("write parameters as :name"));
        assert!(parse("SELECT FROM WHERE").contains("does not parse"));
    }

    #[test]
    fn strings_that_try_to_break_out_stay_one_literal() {
        let attacks = [
            "' OR '1'='1",
            "x'; DROP TABLE t; --",
            "x' --",
            "x' /*",
            "\\' OR 1=1 -- ",
            "\\\\'; SELECT 1; --",
            "x\u{2019} OR 1=1 --",
            "x\u{FF07} OR 1=1 --",
            "a\nb\r\nc",
            "\u{0}",
        ];
        for dialect in SqlDialect::ALL {
            let template =
                Template::parse("SELECT a FROM t WHERE b = :s AND c = 1", dialect).unwrap();
            for attack in attacks {
                match template.render(&values(&[("s", Literal::String(attack.into()))])) {
                    Ok(sql) => {
                        // One statement whose only string literal is the value.
                        let parsed = parse(&sql, dialect).unwrap();
                        assert_eq!(parsed.len(), 1, "{dialect}: {sql}");
                        assert!(sql.ends_with(" AND c = 1"), "{dialect}: {sql}");
                    }
                    Err(why) => assert!(
                        why.contains("parameter s") && (attack.contains(['\\', '\0', '\''])),
                        "{dialect}: {attack:?}: {why}"
                    ),
                }
            }
        }
    }
}
