//! `check` and `analyze`: the pipeline from text to verdict.

use sqlparser::ast::Statement;
use sqlparser::parser::{Parser, ParserError};

use sqlparser::tokenizer::{Token, TokenWithSpan};

use crate::extended;
use crate::fallback;
use crate::lexical::{self, TokenFacts};
use crate::limit::{self, Capped};
use crate::lineage;
use crate::statement::{self, Root};
use crate::syntax_hints;
use crate::walker::Walker;
use crate::{Analysis, Policy, ReadOnlySql, RejectKind, Rejection, SqlDialect, StatementKind};

/// Proves `sql` read-only under `policy`, or says why not.
///
/// On success the [`ReadOnlySql`] carries the text to run (with the policy's row cap applied in
/// the dialect's own syntax), the tables it reads and its own top-level limit. On failure the
/// [`Rejection`] says what was refused and, in its `Display`, what to write instead.
///
/// ```
/// use nao_guard::{check, Policy, RejectKind, SqlDialect};
///
/// let policy = Policy::default().with_row_cap(100);
/// let ok = check("SELECT region, sum(amount) FROM sales GROUP BY 1", SqlDialect::Postgres, &policy)?;
/// assert_eq!(ok.sql(), "SELECT region, sum(amount) FROM sales GROUP BY 1 LIMIT 100");
///
/// let err = check("WITH d AS (DELETE FROM sales RETURNING *) SELECT * FROM d", SqlDialect::Postgres, &policy)
///     .unwrap_err();
/// assert!(matches!(err.kind(), RejectKind::WriteInQuery { .. }));
/// # Ok::<(), nao_guard::Rejection>(())
/// ```
pub fn check(sql: &str, dialect: SqlDialect, policy: &Policy) -> Result<ReadOnlySql, Rejection> {
    let parsed = parse_one(sql, dialect, policy)?;
    let statement = &parsed.statement;
    let mut walker = Walker::new(dialect, policy, true);
    let kind = judge(statement, policy, &mut walker);
    if let Some(rejection) = walker.rejections.into_iter().next() {
        return Err(rejection);
    }
    let Some(kind) = kind else {
        // Unreachable in practice: a statement without a kind always carries a rejection.
        let what = "a statement the guard could not classify".to_owned();
        return Err(Rejection::new(
            RejectKind::NotAQuery { statement: what },
            dialect,
        ));
    };
    let masked = match kind {
        StatementKind::Query => lineage::masked_outputs(statement, policy).map_err(|refusal| {
            let (kind, at) = refusal.into_kind();
            Rejection::new(kind, dialect).at(at)
        })?,
        _ => lineage::MaskedLineage::default(),
    };
    let (text, start) = significant_text(sql, &parsed.facts);
    let capped = match policy.row_cap {
        // DuckDB takes no LIMIT after SUMMARIZE (one inside it limits what is summarized), and
        // the guard reads no SUMMARIZE in parentheses to wrap it: it runs as written, one row
        // per column of its dataset, the adapter's fetch cap bounding what is read.
        Some(_) if parsed.summarizes => Capped::NotInText,
        // The cap goes into the text the statement was read from: the equivalent form when
        // the text as written did not parse.
        Some(cap) => match &parsed.reading {
            Reading::AsWritten => limit::cap_text(statement, text, text, start, dialect, cap),
            Reading::Equivalent(equivalent) => {
                limit::cap_text(statement, equivalent, equivalent, 0, dialect, cap)
            }
            Reading::Blanked(blanked) => {
                limit::cap_text(statement, blanked, text, start, dialect, cap)
            }
        },
        None => Capped::AsWritten,
    };
    let (sql, cap_applied) = match capped {
        Capped::Spliced(text) => (text, true),
        Capped::AsWritten | Capped::NotInText => (text[start..].to_owned(), false),
    };
    #[cfg(feature = "pg-query")]
    crate::second_reading::cross_check(
        &sql,
        dialect,
        policy,
        &crate::second_reading::GuardReading {
            statement,
            kind,
            tables: &walker.tables,
            functions: &walker.functions,
        },
    )?;
    Ok(ReadOnlySql {
        sql,
        dialect,
        kind,
        tables: walker.tables,
        limit: limit::top_level_limit(statement),
        cap_applied,
        attribute_refs: walker.attribute_refs,
        masked_outputs: masked.outputs,
        touches_masked_columns: masked.touches_masked,
        seal: None,
    })
}

/// Reports everything the guard finds in `sql`: tables, functions, the top-level limit, and
/// every reason it would be refused (where [`check`] stops at the first). Never panics.
///
/// ```
/// use nao_guard::{analyze, Policy, SqlDialect};
///
/// let analysis = analyze(
///     "SELECT pg_sleep(5), * FROM orders o JOIN customers c ON c.id = o.customer_id FOR UPDATE",
///     SqlDialect::Postgres,
///     &Policy::default(),
/// );
/// let tables: Vec<String> = analysis.tables().iter().map(|t| t.to_string()).collect();
/// assert_eq!(tables, ["orders", "customers"]);
/// assert_eq!(analysis.rejections().len(), 2); // the locking clause and pg_sleep
/// ```
pub fn analyze(sql: &str, dialect: SqlDialect, policy: &Policy) -> Analysis {
    let statement = match parse_one(sql, dialect, policy) {
        Ok(parsed) => parsed.statement,
        Err(rejection) => {
            return Analysis {
                rejections: vec![rejection],
                ..Analysis::default()
            };
        }
    };
    let mut walker = Walker::new(dialect, policy, false);
    let kind = judge(&statement, policy, &mut walker);
    if kind == Some(StatementKind::Query)
        && let Err(refusal) = lineage::masked_outputs(&statement, policy)
    {
        let (refused, at) = refusal.into_kind();
        walker
            .rejections
            .push(Rejection::new(refused, dialect).at(at));
    }
    #[cfg(feature = "pg-query")]
    if let Some(kind) = kind
        && walker.rejections.is_empty()
    {
        // What `check` would run, read as written: without the row cap it would splice in.
        let guard = crate::second_reading::GuardReading {
            statement: &statement,
            kind,
            tables: &walker.tables,
            functions: &walker.functions,
        };
        if let Err(rejection) = crate::second_reading::cross_check(sql, dialect, policy, &guard) {
            walker.rejections.push(rejection);
        }
    }
    Analysis {
        kind,
        limit: limit::top_level_limit(&statement),
        tables: walker.tables,
        functions: walker.functions,
        rejections: walker.rejections,
    }
}

/// One statement, read from the text as written or from another form of it.
pub(crate) struct Parsed {
    /// Boxed: a `Statement` is a few kilobytes, and would be copied at each move on the way
    /// from the parser to the walk.
    pub(crate) statement: Box<Statement>,
    pub(crate) facts: TokenFacts,
    pub(crate) reading: Reading,
    /// A DuckDB `SUMMARIZE`, read as a query over its dataset (see [`crate::extended`]).
    pub(crate) summarizes: bool,
}

/// The text a statement was read from.
pub(crate) enum Reading {
    /// The text as written.
    AsWritten,
    /// An equivalent text, trimmed to its last token ([`fallback::equivalent_text`]): the
    /// engine runs it when the row cap is spliced in.
    Equivalent(String),
    /// The text with clauses blanked out byte for byte ([`fallback::blanked_text`]): the engine
    /// runs the text as written, the row cap spliced in at the same offsets.
    Blanked(String),
}

/// Runs the checks that need no syntax tree, then parses exactly one statement.
pub(crate) fn parse_one(
    sql: &str,
    dialect: SqlDialect,
    policy: &Policy,
) -> Result<Parsed, Rejection> {
    lexical::check_text(sql, dialect, policy)?;
    let tokens = lexical::tokenize(sql, dialect)?;
    let facts = lexical::check_tokens(&tokens, dialect, policy)?;
    let summarizes = dialect.reads_summarize() && extended::starts_summarize(&tokens);
    let mut parsed = parse_tokens(tokens, dialect, policy);
    let mut hint = None;
    let mut reading = Reading::AsWritten;
    if parsed.is_err() {
        // The rare path pays for a second tokenizing: an equivalent form to read instead, or
        // the form to write, so statements that parse pay for neither.
        let tokens = lexical::tokenize(sql, dialect)?;
        hint = syntax_hints::hint(&tokens, dialect);
        let readings = [
            fallback::equivalent_text(sql, &tokens, dialect).map(Reading::Equivalent),
            fallback::blanked_text(sql, &tokens, dialect).map(Reading::Blanked),
        ];
        for candidate in readings.into_iter().flatten() {
            let (Reading::Equivalent(text) | Reading::Blanked(text)) = &candidate else {
                continue;
            };
            if let Ok(reparsed) =
                lexical::tokenize(text, dialect).map(|t| parse_tokens(t, dialect, policy))
                && reparsed.is_ok()
            {
                parsed = reparsed;
                reading = candidate;
                break;
            }
        }
    }
    let statements = match parsed {
        Ok(statements) => statements,
        Err(_) if facts.into_file => return Err(Rejection::new(RejectKind::SelectInto, dialect)),
        Err(ParserError::RecursionLimitExceeded) => {
            return Err(Rejection::new(
                RejectKind::TooDeep {
                    limit: policy.max_nesting,
                },
                dialect,
            ));
        }
        Err(ParserError::TokenizerError(message) | ParserError::ParserError(message)) => {
            let message = match hint {
                Some(hint) => format!("{message}; {hint}"),
                None => message,
            };
            return Err(Rejection::new(RejectKind::Parse { message }, dialect));
        }
    };
    match statements {
        Statements {
            first: Some(statement),
            count: 1,
        } => Ok(Parsed {
            statement,
            facts,
            reading,
            summarizes,
        }),
        Statements { count: 0, .. } | Statements { first: None, .. } => {
            Err(Rejection::new(RejectKind::Empty, dialect))
        }
        Statements { count, .. } => Err(Rejection::new(
            RejectKind::MultipleStatements { count },
            dialect,
        )),
    }
}

/// What the text holds: its first statement, and how many there are.
struct Statements {
    first: Option<Box<Statement>>,
    count: usize,
}

/// Every statement in `tokens`, reading every token: what follows a statement must be a
/// semicolon or the end.
///
/// Not sqlparser's `parse_statements`, which stops at the word `END` after a statement (the end
/// of a `BEGIN … END` block) and drops every token after it: `SELECT x FROM (…) end UNION
/// SELECT load_file('/etc/passwd')` read as `SELECT x FROM (…)`, while MariaDB reads `end` as
/// the derived table's alias, SQLite as any table's, and runs the rest (found by the fuzz
/// target; the live tests show both engines running such a UNION).
fn parse_tokens(
    tokens: Vec<TokenWithSpan>,
    dialect: SqlDialect,
    policy: &Policy,
) -> Result<Statements, ParserError> {
    let mut parser = Parser::new(dialect.parser_dialect())
        .with_recursion_limit(policy.max_nesting)
        .with_tokens_with_locations(tokens);
    let mut statements = Statements {
        first: None,
        count: 0,
    };
    loop {
        let mut delimited = statements.count == 0;
        while parser.consume_token(&Token::SemiColon) {
            delimited = true;
        }
        if parser.peek_token_ref().token == Token::EOF {
            return Ok(statements);
        }
        if !delimited {
            return parser.expected("the end of the statement", parser.peek_token());
        }
        // Every statement is parsed (one that does not parse is the error to report), but
        // only the first is kept: more than one is refused.
        let statement = parser.parse_statement()?;
        if statements.first.is_none() {
            statements.first = Some(Box::new(statement));
        }
        statements.count += 1;
    }
}

/// Classifies the statement and walks it; the walker holds the findings afterwards.
fn judge(statement: &Statement, policy: &Policy, walker: &mut Walker<'_>) -> Option<StatementKind> {
    let (kind, refusal) = match statement::classify(statement, policy) {
        Root::Allowed(kind) => (Some(kind), None),
        Root::Refused(kind) => (None, Some(kind)),
        Root::Explain { inner, analyze } => match statement::classify(inner, policy) {
            Root::Allowed(StatementKind::Query) => {
                walker.allow_nested(inner);
                (Some(StatementKind::Explain), None)
            }
            _ => {
                walker.allow_nested(inner);
                let name = statement::statement_name(inner);
                let refusal = if analyze {
                    RejectKind::WriteInQuery {
                        what: format!("EXPLAIN ANALYZE runs the {name} it explains"),
                    }
                } else {
                    RejectKind::NotAQuery {
                        statement: format!("EXPLAIN {name}"),
                    }
                };
                (None, Some(refusal))
            }
        },
    };
    if let Some(refusal) = refusal {
        walker
            .rejections
            .push(Rejection::new(refusal, walker.dialect()));
        if walker.stops_at_first() {
            return None;
        }
    }
    walker.walk(statement);
    if let Some(table) = statement::pragma_table(statement) {
        let _ = walker.record_table(table, None);
    }
    kind
}

/// The text up to its last significant token, without trailing semicolons and comments (which
/// some drivers refuse in a prepared statement), and the byte offset where the statement
/// starts: after any leading semicolons.
pub(crate) fn significant_text<'a>(sql: &'a str, facts: &TokenFacts) -> (&'a str, usize) {
    let end = match facts.end {
        Some(end) if facts.trailing => lexical::byte_offset(sql, end),
        _ => sql.trim_end().len(),
    };
    let start = match facts.start {
        // Leading semicolons end empty statements: the statement starts after them.
        Some(after) => {
            let offset = lexical::byte_offset(sql, after);
            offset + (sql[offset..end].len() - sql[offset..end].trim_start().len())
        }
        None => 0,
    };
    (&sql[..end], start)
}
