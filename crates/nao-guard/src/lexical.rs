//! Checks on the raw text and its tokens, before anything is parsed.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Location, Token, TokenWithSpan, Tokenizer, Whitespace};

use crate::comments;
use crate::confusable::{ascii_lookalike, imitated_keyword};
use crate::rejection::Position;
use crate::{Policy, RejectKind, Rejection, SqlDialect};

/// How many chain-forming operators a whole statement may hold, as a multiple of the per-level
/// limit. Chains nested in parentheses add up to one deep tree, so the total needs a bound too.
const TOTAL_CHAIN_FACTOR: usize = 10;

/// Refuses text that is too long or holds control characters, without tokenizing it.
pub(crate) fn check_text(sql: &str, dialect: SqlDialect, policy: &Policy) -> Result<(), Rejection> {
    if sql.len() > policy.max_sql_bytes {
        let kind = RejectKind::TooLong {
            len: sql.len(),
            max: policy.max_sql_bytes,
        };
        return Err(Rejection::new(kind, dialect));
    }
    let control = sql
        .bytes()
        .position(|b| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0C)) || b == 0x7F);
    if let Some(offset) = control {
        let ch = char::from(sql.as_bytes()[offset]);
        return Err(Rejection::new(RejectKind::ControlCharacter { ch }, dialect)
            .at(Some(position_of(sql, offset))));
    }
    Ok(())
}

/// Tokenizes the text as the parser would, and refuses executable comments (`/*! … */`) that
/// the parser reads otherwise than the server (see [`crate::comments`]).
pub(crate) fn tokenize(sql: &str, dialect: SqlDialect) -> Result<Vec<TokenWithSpan>, Rejection> {
    let mut tokens = Tokenizer::new(dialect.parser_dialect(), sql)
        .tokenize_with_location()
        .map_err(|e| {
            let position = Position {
                line: e.location.line,
                column: e.location.column,
            };
            Rejection::new(RejectKind::Parse { message: e.message }, dialect).at(Some(position))
        })?;
    comments::check_expanded(sql, &mut tokens, dialect)?;
    Ok(tokens)
}

/// What the token scan learned, for the steps after parsing.
#[derive(Debug, Default)]
pub(crate) struct TokenFacts {
    /// Where the last semicolon before the statement ends, if any (`; SELECT 1` parses as one
    /// statement).
    pub(crate) start: Option<Location>,
    /// Where the last token that is not whitespace, a comment or a semicolon ends.
    pub(crate) end: Option<Location>,
    /// Whether anything but whitespace follows `end` (semicolons, comments).
    pub(crate) trailing: bool,
    /// Whether `INTO OUTFILE` or `INTO DUMPFILE` appears (MySQL; the parser does not know it).
    pub(crate) into_file: bool,
}

/// Refuses token streams that are empty, use look-alike keywords, hide executable comments or
/// settings in comments, hold strings whose end depends on backslash escapes the parser does not
/// read, or chain more operators than the policy allows.
pub(crate) fn check_tokens(
    tokens: &[TokenWithSpan],
    dialect: SqlDialect,
    policy: &Policy,
) -> Result<TokenFacts, Rejection> {
    let reject = |kind: RejectKind, at: Location| {
        Err(Rejection::new(kind, dialect).at(Some(Position {
            line: at.line,
            column: at.column,
        })))
    };
    if let Some((number, word)) = glued_number(tokens) {
        let message = format!(
            "the number {number} runs straight into the name {word}, and engines do not agree \
             where such a number ends (SQLite reads 0X1F as 31 where the guard reads 0 named \
             X1F; DuckDB reads 0x1F as 0 named x1F where the guard reads a hex string). Put a \
             space or AS between the number and the name, or write the number in decimal"
        );
        return reject(RejectKind::Parse { message }, number.span.start);
    }
    if !dialect.reads_hex_numbers()
        && let Some(hex) = tokens.iter().find(|t| is_hex_number(t))
    {
        let digits = match &hex.token {
            Token::HexStringLiteral(digits) => digits.as_str(),
            _ => "",
        };
        let message = format!(
            "{dialect} reads 0x{digits} as the number 0 followed by the name x{digits}, not as a \
             hex number; write the number in decimal, or a blob as '\\x..'::BLOB"
        );
        return reject(RejectKind::Parse { message }, hex.span.start);
    }
    let mut chains = ChainCounter::new(policy.max_operator_chain);
    let mut facts = TokenFacts::default();
    let mut previous_word = Keyword::NoKeyword;
    for t in tokens {
        match &t.token {
            Token::Whitespace(Whitespace::MultiLineComment(text)) => {
                if let Some(kind) = comments::check_comment(text, dialect) {
                    return reject(kind, t.span.start);
                }
                facts.trailing = true;
                continue;
            }
            Token::Whitespace(Whitespace::Space | Whitespace::Tab | Whitespace::Newline)
            | Token::EOF => continue,
            Token::Whitespace(_) | Token::SemiColon => {
                if facts.end.is_none() && t.token == Token::SemiColon {
                    facts.start = Some(t.span.end);
                }
                facts.trailing = true;
                continue;
            }
            Token::Word(word)
                if word.quote_style == Some('[') && dialect == SqlDialect::Redshift =>
            {
                // sqlparser reads `[…]` as a quoted name in Redshift, where the engine reads it
                // as a subscript: the two would see different statements.
                let message = "square brackets quote names in T-SQL, not in Redshift; quote \
                               names with double quotes"
                    .to_owned();
                return reject(RejectKind::Parse { message }, t.span.start);
            }
            Token::Word(word) if word.quote_style.is_none() => {
                if previous_word == Keyword::INTO
                    && (word.value.eq_ignore_ascii_case("outfile")
                        || word.value.eq_ignore_ascii_case("dumpfile"))
                {
                    facts.into_file = true;
                }
                previous_word = word.keyword;
                if let Some(keyword) = imitated_keyword(&word.value) {
                    let kind = RejectKind::Confusable {
                        word: word.value.clone(),
                        looks_like: keyword,
                    };
                    return reject(kind, t.span.start);
                }
            }
            token if reads_unparsed_escapes(dialect) && backslash_moves_end(token) => {
                let message = format!(
                    "a string literal holds a backslash before a quote or at its end; {dialect} \
                     reads backslash escapes, so the string would end elsewhere than where the \
                     guard reads it. Write the backslash as two, or drop it"
                );
                return reject(RejectKind::Parse { message }, t.span.start);
            }
            Token::Char(c) => {
                if let Some(ascii) = ascii_lookalike(*c) {
                    let kind = RejectKind::Confusable {
                        word: c.to_string(),
                        looks_like: ascii.to_string(),
                    };
                    return reject(kind, t.span.start);
                }
            }
            _ => {}
        }
        if !matches!(&t.token, Token::Word(w) if w.quote_style.is_none()) {
            previous_word = Keyword::NoKeyword;
        }
        facts.end = Some(t.span.end);
        facts.trailing = false;
        if !chains.feed(&t.token) {
            return reject(
                RejectKind::TooDeep {
                    limit: policy.max_operator_chain,
                },
                t.span.start,
            );
        }
    }
    if facts.end.is_none() {
        return Err(Rejection::new(RejectKind::Empty, dialect));
    }
    Ok(facts)
}

/// A number (or `0x…` hex literal) and an unquoted name that starts right where it ends
/// (`0X1F`, `1e3x`, `0x1Fg`): sqlparser splits them, while engines read hex, binary and octal
/// prefixes, exponents and digit separators their own way, so the guard and the engine would
/// see different literals, or a literal where the other sees a name.
fn glued_number(tokens: &[TokenWithSpan]) -> Option<(&TokenWithSpan, String)> {
    tokens.windows(2).find_map(|pair| {
        let [number, next] = pair else { return None };
        let is_number = matches!(number.token, Token::Number(..) | Token::HexStringLiteral(_));
        match &next.token {
            Token::Word(word)
                if is_number
                    && word.quote_style.is_none()
                    && next.span.start == number.span.end =>
            {
                Some((number, word.value.clone()))
            }
            _ => None,
        }
    })
}

/// Whether the token is a hex literal written `0x…` (sqlparser reads `0x1F` and `X'1F'` as the
/// same token; the written form is two characters longer than the digits, against three).
fn is_hex_number(token: &TokenWithSpan) -> bool {
    let Token::HexStringLiteral(digits) = &token.token else {
        return false;
    };
    let (start, end) = (token.span.start, token.span.end);
    start.line == end.line
        && usize::try_from(end.column.saturating_sub(start.column))
            .is_ok_and(|len| len == digits.chars().count() + 2)
}

/// Whether the engine reads backslash escapes in strings where sqlparser's dialect does not
/// (Spark, Hive), or may (Generic: the text may go to a MySQL).
fn reads_unparsed_escapes(dialect: SqlDialect) -> bool {
    matches!(
        dialect,
        SqlDialect::Spark | SqlDialect::Hive | SqlDialect::Generic
    )
}

/// Whether reading backslash escapes in this string token (read without them) would end it
/// elsewhere: a backslash before a quote, or an odd one at the end, escapes that quote. In
/// Spark, `'x\' AS a, ' , f() , '` is one string then a call, where sqlparser reads two strings.
fn backslash_moves_end(token: &Token) -> bool {
    let (value, quote) = match token {
        Token::SingleQuotedString(v)
        | Token::NationalStringLiteral(v)
        | Token::HexStringLiteral(v)
        | Token::SingleQuotedByteStringLiteral(v) => (v, '\''),
        Token::DoubleQuotedString(v) | Token::DoubleQuotedByteStringLiteral(v) => (v, '"'),
        _ => return false,
    };
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                None => return true,
                Some(next) if next == quote => return true,
                Some(_) => {}
            }
        }
    }
    false
}

/// The byte offset of a location (1-based line and column, in characters) in `sql`.
pub(crate) fn byte_offset(sql: &str, at: Location) -> usize {
    let mut line_start = 0;
    for _ in 1..at.line {
        match sql[line_start..].find('\n') {
            Some(i) => line_start += i + 1,
            None => return sql.len(),
        }
    }
    let skip = usize::try_from(at.column.saturating_sub(1)).unwrap_or(usize::MAX);
    sql[line_start..]
        .char_indices()
        .nth(skip)
        .map_or(sql.len(), |(i, _)| line_start + i)
}

/// Counts operators that the parser chains into left-deep trees without recursing (binary
/// operators, postfix casts, set operations), per level of parentheses and in total.
struct ChainCounter {
    limit: usize,
    /// In the innermost open parenthesis (or at the top): (expression operators since the last
    /// reset, set operations).
    current: (usize, usize),
    /// The same counts for each enclosing level, saved when a parenthesis opened (no allocation
    /// for a statement without parentheses).
    outer: Vec<(usize, usize)>,
    total: usize,
}

impl ChainCounter {
    fn new(limit: usize) -> Self {
        ChainCounter {
            limit,
            current: (0, 0),
            outer: Vec::new(),
            total: 0,
        }
    }

    /// Feeds one token; false when a limit is exceeded.
    fn feed(&mut self, token: &Token) -> bool {
        let (ops, sets) = &mut self.current;
        match token {
            Token::LParen | Token::LBracket => {
                *ops += 1;
                self.total += 1;
                self.outer.push(std::mem::take(&mut self.current));
            }
            Token::RParen | Token::RBracket => {
                if let Some(enclosing) = self.outer.pop() {
                    self.current = enclosing;
                }
            }
            Token::Comma => *ops = 0,
            Token::Word(word) => match word.keyword {
                Keyword::UNION | Keyword::EXCEPT | Keyword::INTERSECT | Keyword::MINUS => {
                    *sets += 1;
                    self.total += 1;
                }
                Keyword::AND
                | Keyword::OR
                | Keyword::XOR
                | Keyword::IS
                | Keyword::LIKE
                | Keyword::ILIKE
                | Keyword::RLIKE
                | Keyword::REGEXP
                | Keyword::SIMILAR
                | Keyword::COLLATE
                | Keyword::AT
                | Keyword::DIV
                | Keyword::MOD
                | Keyword::BETWEEN
                | Keyword::IN
                | Keyword::NOT => {
                    *ops += 1;
                    self.total += 1;
                }
                Keyword::SELECT
                | Keyword::FROM
                | Keyword::WHERE
                | Keyword::WHEN
                | Keyword::THEN
                | Keyword::ELSE
                | Keyword::END
                | Keyword::ON
                | Keyword::HAVING
                | Keyword::QUALIFY
                | Keyword::BY
                | Keyword::AS
                | Keyword::CASE
                | Keyword::JOIN
                | Keyword::USING
                | Keyword::LIMIT
                | Keyword::OFFSET
                | Keyword::VALUES => *ops = 0,
                _ => {}
            },
            Token::Number(..)
            | Token::Period
            | Token::Placeholder(_)
            | Token::LBrace
            | Token::RBrace
            | Token::Whitespace(_)
            | Token::SemiColon
            | Token::EOF => {}
            t if is_string_literal(t) => {}
            _ => {
                *ops += 1;
                self.total += 1;
            }
        }
        let (ops, sets) = self.current;
        ops <= self.limit && sets <= self.limit && self.total <= self.limit * TOTAL_CHAIN_FACTOR
    }
}

/// Whether the token is a string literal of any of sqlparser's kinds (quoted, byte, raw,
/// national, escaped, Unicode, hex, dollar- and quote-delimited): a value, never a name or an
/// operator.
pub(crate) fn is_string_literal(token: &Token) -> bool {
    matches!(
        token,
        Token::SingleQuotedString(_)
            | Token::DoubleQuotedString(_)
            | Token::TripleSingleQuotedString(_)
            | Token::TripleDoubleQuotedString(_)
            | Token::DollarQuotedString(_)
            | Token::SingleQuotedByteStringLiteral(_)
            | Token::DoubleQuotedByteStringLiteral(_)
            | Token::TripleSingleQuotedByteStringLiteral(_)
            | Token::TripleDoubleQuotedByteStringLiteral(_)
            | Token::SingleQuotedRawStringLiteral(_)
            | Token::DoubleQuotedRawStringLiteral(_)
            | Token::TripleSingleQuotedRawStringLiteral(_)
            | Token::TripleDoubleQuotedRawStringLiteral(_)
            | Token::NationalStringLiteral(_)
            | Token::QuoteDelimitedStringLiteral(_)
            | Token::NationalQuoteDelimitedStringLiteral(_)
            | Token::EscapedStringLiteral(_)
            | Token::UnicodeStringLiteral(_)
            | Token::HexStringLiteral(_)
    )
}

/// The line and column (1-based, in characters) of a byte offset.
pub(crate) fn position_of(sql: &str, offset: usize) -> Position {
    let before = &sql[..offset.min(sql.len())];
    let line = before.bytes().filter(|&b| b == b'\n').count() as u64 + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() as u64 + 1;
    Position { line, column }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_lines_and_characters() {
        let sql = "SELECT 'é'\nFROM t\0";
        assert_eq!(
            position_of(sql, sql.len() - 1),
            Position { line: 2, column: 7 }
        );
        assert_eq!(position_of(sql, 0), Position { line: 1, column: 1 });
    }
}
