//! The row cap spliced into the text the guard analysed, at the cost of no second parse.
//!
//! The guard never prints its tree back to text: a printer gives back another text than the one
//! it read (literals, quoted names, hex numbers, DuckDB's method calls each had their own
//! finding), and proving the printed text took a second full check. Instead the cap goes into
//! the analysed text at a place the tree locates, every other byte kept as written:
//!
//! - the query's own constant limit (`LIMIT n`, `LIMIT a, n`, `FETCH … n`, `TOP n`) is larger:
//!   its number token becomes the cap;
//! - it has none: a clause is appended after its last token (`LIMIT n`, `FETCH FIRST n ROWS
//!   ONLY`, T-SQL's `FETCH NEXT n ROWS ONLY` after an `OFFSET`, BigQuery's `|> LIMIT n` after pipe
//!   operators), or T-SQL's `TOP (n)` goes after `SELECT` and any `DISTINCT`/`ALL`;
//! - otherwise (a limit that is not a constant, `LIMIT … BY`, SQLite's `VALUES`): the query is
//!   wrapped, `SELECT * FROM (<text>) AS nao_capped LIMIT n`, T-SQL's `WITH` staying outside.
//!
//! Why that is sound without a second parse: the analysed text reaches the engine byte for byte
//! (a number token only changes digits, which no parser decision depends on), and what is added
//! is a keyword clause with a number, or the wrapper around balanced text, none of which can read
//! a table, call a function or write. A reading of the added tokens other than the intended one
//! could only fail to cap (the adapter's fetch cap still bounds the rows). The unit tests in
//! `tests.rs` show that, for every case of the case tables and a generated set of query shapes in
//! every dialect, the spliced text parses to the analysed tree with exactly the cap added.
//!
//! Queries with a clause that must stay last (T-SQL `FOR JSON/XML`, ClickHouse `FORMAT`) when
//! the cap cannot go before it, are run as written ([`Capped::NotInText`]).

use std::ops::Range;

use sqlparser::ast::{Distinct, Expr, LimitClause, Query, Select, SetExpr, Statement, TopQuantity};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Location, Span, Token, Tokenizer};

use super::{constant, ends_with_values, query_limit, top_constant};
use crate::lexical::byte_offset;
use crate::{RowCapSyntax, SqlDialect};

/// The text to run under a row cap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Capped {
    /// The query already returns at most the cap, or is not a query: run it as written.
    AsWritten,
    /// The analysed text with the cap spliced in.
    Spliced(String),
    /// No shape this module proves caps the query in its text; run it as written (the adapter
    /// bounds the rows it fetches).
    NotInText,
}

/// Where and how the cap goes into the text (the decision, apart from the text edit, so that
/// the tests can apply the same decision to the tree).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Splice {
    /// The query's own constant limit is within the cap, or the statement is not a query.
    Nothing,
    /// The number token of the query's own constant limit, at these bytes, becomes the cap.
    Number(Range<usize>),
    /// A clause after the query's last token.
    Append(Clause),
    /// T-SQL's `TOP (cap)` at this byte offset.
    Top(usize),
    /// The query inside `SELECT * FROM (…) AS nao_capped`, capped outside; the WITH clause,
    /// when it ends at this offset, stays outside (T-SQL has none in a derived table).
    Wrap {
        /// Where the WITH clause that stays outside ends.
        with_end: Option<usize>,
    },
    /// The query ends with a clause the cap cannot follow, and cannot be wrapped.
    Unsupported,
}

/// A clause appended to cap a query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Clause {
    /// `LIMIT n`.
    Limit,
    /// `FETCH FIRST n ROWS ONLY`.
    FetchFirst,
    /// `FETCH NEXT n ROWS ONLY`, after an `OFFSET … ROWS`.
    FetchNext,
    /// `|> LIMIT n`, after pipe operators.
    PipeLimit,
}

/// The text to run for `statement` so that it returns at most `cap` rows: `text` (up to its
/// last significant token; the statement starts at byte `start`, after any leading semicolons)
/// with the cap spliced in. The tree's positions are located in `read`, the text the statement
/// was parsed from: `text` itself, or `text` with clauses blanked out byte for byte.
pub(crate) fn cap_text(
    statement: &Statement,
    read: &str,
    text: &str,
    start: usize,
    dialect: SqlDialect,
    cap: u64,
) -> Capped {
    match plan(statement, read, dialect, cap) {
        Splice::Nothing => Capped::AsWritten,
        splice if !splice.lies_within(text, start) => Capped::NotInText,
        Splice::Unsupported => Capped::NotInText,
        splice => Capped::Spliced(apply(&splice, text, start, dialect, cap)),
    }
}

impl Splice {
    /// Whether the offsets of this splice lie on character boundaries of the statement, which
    /// starts at `start` in `text` (they do: tokens of the statement give them; checked so that
    /// splicing can never panic).
    fn lies_within(&self, text: &str, start: usize) -> bool {
        let at = |offset: usize| offset >= start && text.is_char_boundary(offset);
        match self {
            Splice::Number(range) => at(range.start) && at(range.end) && range.start <= range.end,
            Splice::Top(offset) => at(*offset),
            Splice::Wrap {
                with_end: Some(end),
            } => at(*end),
            _ => at(start),
        }
    }
}

/// Decides where the cap goes.
pub(crate) fn plan(statement: &Statement, text: &str, dialect: SqlDialect, cap: u64) -> Splice {
    let Statement::Query(query) = statement else {
        return Splice::Nothing;
    };
    if query_limit(query).is_some_and(|own| own <= cap) {
        return Splice::Nothing;
    }
    if let Some(fetch) = &query.fetch {
        return match fetch.quantity.as_ref() {
            Some(quantity) if !fetch.percent => {
                number(quantity, text).unwrap_or_else(|| wrap(query, dialect, text))
            }
            _ => wrap(query, dialect, text),
        };
    }
    match &query.limit_clause {
        Some(LimitClause::LimitOffset {
            limit: Some(limit),
            limit_by,
            ..
        }) if limit_by.is_empty() => {
            return number(limit, text).unwrap_or_else(|| wrap(query, dialect, text));
        }
        Some(LimitClause::OffsetCommaLimit { limit, .. }) => {
            return number(limit, text).unwrap_or_else(|| wrap(query, dialect, text));
        }
        Some(LimitClause::LimitOffset {
            limit: None,
            offset: Some(_),
            limit_by,
        }) if limit_by.is_empty() && dialect.row_cap_syntax() != RowCapSyntax::Limit => {
            return append(query, Clause::FetchNext);
        }
        Some(_) => return wrap(query, dialect, text),
        None => {}
    }
    let select = match query.body.as_ref() {
        SetExpr::Select(select) => Some(select.as_ref()),
        _ => None,
    };
    if let Some(select) = select
        && let Some(top) = &select.top
    {
        return match top_constant(top) {
            Some(_) => top_number(select, text, dialect).unwrap_or(Splice::Unsupported),
            None => wrap(query, dialect, text),
        };
    }
    if ends_with_lateral_view_without_columns(&query.body) {
        // `… LATERAL VIEW explode(arr) e` may go on with column names, `AS` optional in
        // sqlparser and in Spark's grammar: an appended `LIMIT n` would read as the column
        // `LIMIT` and a stray number (found by the fuzz target).
        return wrap(query, dialect, text);
    }
    if ends_with_all_keyword(text) {
        // sqlparser reads a bare `LIMIT ALL` as no limit clause at all; a clause appended
        // after it would be a second limit, which PostgreSQL's grammar refuses.
        return wrap(query, dialect, text);
    }
    match dialect.row_cap_syntax() {
        RowCapSyntax::Limit
            if ends_with_values(&query.body) && !dialect.takes_limit_after_values() =>
        {
            wrap(query, dialect, text)
        }
        RowCapSyntax::Limit => append(query, Clause::Limit),
        RowCapSyntax::FetchFirst => append(query, Clause::FetchFirst),
        RowCapSyntax::Top => match select {
            Some(select) => {
                top_place(select, text, dialect).map_or(Splice::Unsupported, Splice::Top)
            }
            None => wrap(query, dialect, text),
        },
    }
}

/// Appends `clause`, or `|> LIMIT` after pipe operators; unsupported when a clause that must
/// stay last ends the query.
fn append(query: &Query, clause: Clause) -> Splice {
    if has_final_clause(query) {
        return Splice::Unsupported;
    }
    if !query.pipe_operators.is_empty() {
        return Splice::Append(Clause::PipeLimit);
    }
    Splice::Append(clause)
}

/// Whether the query ends with a clause that neither a cap may follow nor a derived table may
/// hold (`FOR XML/JSON`, `FORMAT`, `SETTINGS`, locking clauses; the last two are refused anyway).
fn has_final_clause(query: &Query) -> bool {
    query.for_clause.is_some()
        || query.format_clause.is_some()
        || query.settings.is_some()
        || !query.locks.is_empty()
}

/// Whether the last SELECT of `body` ends its FROM with a `LATERAL VIEW` that names no
/// columns (what follows it, if anything, is not checked: wrapping is sound either way).
fn ends_with_lateral_view_without_columns(body: &SetExpr) -> bool {
    match body {
        SetExpr::Select(select) => select
            .lateral_views
            .last()
            .is_some_and(|view| view.lateral_col_alias.is_empty()),
        SetExpr::SetOperation { right, .. } => ends_with_lateral_view_without_columns(right),
        _ => false,
    }
}

/// Whether the text ends with the words `LIMIT ALL` (blanks between them), which sqlparser
/// reads as no limit clause at all. `ORDER BY ALL` and `GROUP BY ALL` (DuckDB) end in `ALL`
/// too and take the appended clause as usual (wrapping a sorted query would lose its order).
fn ends_with_all_keyword(text: &str) -> bool {
    let word_before = |text: &str, word: &str| -> Option<usize> {
        let at = text.len().checked_sub(word.len())?;
        let head = text.get(..at)?;
        let ends_word = text.get(at..)?.eq_ignore_ascii_case(word);
        let boundary = head
            .bytes()
            .last()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80));
        (ends_word && boundary).then_some(at)
    };
    word_before(text, "ALL")
        .and_then(|at| word_before(text[..at].trim_end(), "LIMIT"))
        .is_some()
}

/// Wraps the query, keeping a T-SQL WITH clause outside.
fn wrap(query: &Query, dialect: SqlDialect, text: &str) -> Splice {
    if has_final_clause(query) {
        return Splice::Unsupported;
    }
    let with_end = match &query.with {
        Some(with) if dialect.row_cap_syntax() == RowCapSyntax::Top => {
            let Some(last) = with.cte_tables.last() else {
                return Splice::Unsupported;
            };
            if with.cte_tables.iter().any(|cte| cte.from.is_some()) {
                return Splice::Unsupported;
            }
            match offset(text, last.closing_paren_token.0.span.end) {
                Some(end) if text[..end].ends_with(')') => Some(end),
                _ => return Splice::Unsupported,
            }
        }
        _ => None,
    };
    Splice::Wrap { with_end }
}

/// The number token of a constant limit, when its text reads as that constant.
fn number(expr: &Expr, text: &str) -> Option<Splice> {
    let value = constant(expr)?;
    let span = value_span(expr)?;
    let range = offset(text, span.start)?..offset(text, span.end)?;
    let written = text.get(range.clone())?;
    (written.parse::<u64>().ok() == Some(value)).then_some(Splice::Number(range))
}

fn value_span(expr: &Expr) -> Option<Span> {
    match expr {
        Expr::Value(value) => Some(value.span),
        Expr::Nested(inner) => value_span(inner),
        _ => None,
    }
}

/// The number token of `TOP n` (its tree keeps no position for an unparenthesized number).
fn top_number(select: &Select, text: &str, dialect: SqlDialect) -> Option<Splice> {
    let top = select.top.as_ref()?;
    if let Some(TopQuantity::Expr(expr)) = &top.quantity {
        return number(expr, text);
    }
    let start = offset(text, select.select_token.0.span.end)?;
    let tokens = significant_tokens(text, start, dialect)?;
    let at = tokens
        .iter()
        .position(|(token, _)| matches!(token, Token::Word(w) if w.keyword == Keyword::TOP))?;
    let (token, range) = tokens.get(at + 1)?;
    let value = top_constant(top)?;
    match token {
        Token::Number(n, _) if n.parse::<u64>().ok() == Some(value) => {
            Some(Splice::Number(range.clone()))
        }
        _ => None,
    }
}

/// Where T-SQL's `TOP` goes: after `SELECT` and its `DISTINCT` or `ALL`.
fn top_place(select: &Select, text: &str, dialect: SqlDialect) -> Option<usize> {
    let after_select = offset(text, select.select_token.0.span.end)?;
    let Some(distinct) = &select.distinct else {
        return Some(after_select);
    };
    let keyword = match distinct {
        Distinct::Distinct => Keyword::DISTINCT,
        Distinct::All => Keyword::ALL,
        Distinct::On(_) => return None,
    };
    let tokens = significant_tokens(text, after_select, dialect)?;
    match tokens.first() {
        Some((Token::Word(w), range)) if w.keyword == keyword => Some(range.end),
        _ => None,
    }
}

/// The tokens of `text[from..]` that are not whitespace or comments, with their byte ranges in
/// `text`. Only the rare T-SQL shapes (`TOP n` to lower, `DISTINCT` to step over) need it.
fn significant_tokens(
    text: &str,
    from: usize,
    dialect: SqlDialect,
) -> Option<Vec<(Token, Range<usize>)>> {
    let rest = text.get(from..)?;
    let tokens = Tokenizer::new(dialect.parser_dialect(), rest)
        .tokenize_with_location()
        .ok()?;
    let mut significant = Vec::new();
    for token in tokens {
        if matches!(token.token, Token::Whitespace(_) | Token::EOF) {
            continue;
        }
        let start = from + byte_offset(rest, token.span.start);
        let end = from + byte_offset(rest, token.span.end);
        significant.push((token.token, start..end));
        if significant.len() == 3 {
            break;
        }
    }
    Some(significant)
}

/// The byte offset of `location` in `text`; `None` for an empty span's location (line 0).
fn offset(text: &str, location: Location) -> Option<usize> {
    (location.line > 0).then(|| byte_offset(text, location))
}

/// The text from `start` with the cap spliced in as `splice` says.
pub(crate) fn apply(
    splice: &Splice,
    text: &str,
    start: usize,
    dialect: SqlDialect,
    cap: u64,
) -> String {
    let statement = &text[start..];
    match splice {
        Splice::Nothing | Splice::Unsupported => statement.to_owned(),
        Splice::Number(range) => {
            format!("{}{cap}{}", &text[start..range.start], &text[range.end..])
        }
        Splice::Append(clause) => {
            let clause = match clause {
                Clause::Limit => format!("LIMIT {cap}"),
                Clause::FetchFirst => format!("FETCH FIRST {cap} ROWS ONLY"),
                Clause::FetchNext => format!("FETCH NEXT {cap} ROWS ONLY"),
                Clause::PipeLimit => format!("|> LIMIT {cap}"),
            };
            format!("{statement} {clause}")
        }
        Splice::Top(at) => format!("{} TOP ({cap}){}", &text[start..*at], &text[*at..]),
        Splice::Wrap { with_end } => {
            let (with, query) = statement.split_at(with_end.map_or(0, |end| end - start));
            let (space, query) = if with.is_empty() {
                ("", query)
            } else {
                (" ", query.trim_start())
            };
            match dialect.row_cap_syntax() {
                RowCapSyntax::Limit => {
                    format!("{with}{space}SELECT * FROM ({query}) AS nao_capped LIMIT {cap}")
                }
                RowCapSyntax::FetchFirst => format!(
                    "{with}{space}SELECT * FROM ({query}) AS nao_capped FETCH FIRST {cap} ROWS ONLY"
                ),
                RowCapSyntax::Top => {
                    format!("{with}{space}SELECT TOP ({cap}) * FROM ({query}) AS nao_capped")
                }
            }
        }
    }
}
