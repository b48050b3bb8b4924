//! Comments a server runs as SQL, read the way the server reads them or refused.
//!
//! **`/*! … */` (MySQL, MariaDB).** The server runs the text of the comment, after an optional
//! version: MySQL up to 8.0 reads exactly five digits as the version; MySQL 8.1 and later read six
//! when a blank follows them, else five; MariaDB reads six when there are six, else five, and
//! skips `/*!` versions 50700–99999 (MySQL 5.7 syntax it may not know) whatever its own version.
//! Fewer than five digits are no version: the server runs them as SQL. A version newer than the
//! server skips the whole comment. sqlparser's MySQL and generic dialects instead drop *every*
//! digit after the `!` and always read the rest as SQL, so `SELECT 7 /*!1000001x , 9 */` would be
//! checked as `SELECT 7 x, 9` where MariaDB runs `SELECT 7 1x, 9`. The guard therefore accepts an
//! executable comment only where its reading and the server's agree for every server it may
//! reach: no version, or a version of exactly the length the server reads that every supported
//! server has (see [`OLDEST_MYSQL`], [`OLDEST_MARIADB`]). Everything else is refused, as is a
//! comment inside one (a `--` or `#` comment there runs past the `*/` for the server, not for
//! sqlparser). In the generic dialects (Generic, Trino) `/*!` is refused outright: the engine
//! may read it as code or as a comment.
//!
//! **`/*M! … */` (MariaDB) and `/*T! … */` (TiDB)** are plain comments to sqlparser and to MySQL,
//! and SQL to MariaDB and TiDB: refused in the MySQL, MariaDB and generic dialects, since a text
//! checked as MySQL may still be sent to a MariaDB or a TiDB.
//!
//! **Optimizer hints `/*+ … */` (MySQL; MariaDB 12; StarRocks and Doris)** are harmless except
//! those that change settings for the statement: `SET_VAR(…)` sets a session variable,
//! `MAX_EXECUTION_TIME(…)` overrides the adapter's server-side time limit, `RESOURCE_GROUP(…)`
//! moves the session's thread. Those are refused as session changes. (Hints in other engines —
//! Spark's join and partition hints, pg_hint_plan's planner-time `Set` — change plans only.)

use std::ops::{Range, RangeInclusive};

use sqlparser::tokenizer::{Location, Span, Token, TokenWithSpan, Whitespace};

use crate::lexical::position_of;
use crate::source_index::SourceIndex;
use crate::{RejectKind, Rejection, SqlDialect};

/// The oldest MySQL the guard assumes (5.7.0, as a comment version): a `/*!` version no newer
/// runs on every MySQL.
pub(crate) const OLDEST_MYSQL: u32 = 50_700;

/// The oldest MariaDB the guard assumes (10.0.0): a `/*!` version no newer, outside
/// [`MARIADB_SKIPPED`], runs on every MariaDB.
pub(crate) const OLDEST_MARIADB: u32 = 100_000;

/// `/*!` versions MariaDB never runs, whatever its own version.
const MARIADB_SKIPPED: RangeInclusive<u32> = 50_700..=99_999;

/// Optimizer hints that change settings rather than plans (matched case-insensitively).
const SESSION_HINTS: [&str; 3] = ["set_var", "max_execution_time", "resource_group"];

/// Refuses what an ordinary comment token (`text` between `/*` and `*/`) makes the server do,
/// in the dialects where sqlparser leaves it a comment.
pub(crate) fn check_comment(text: &str, dialect: SqlDialect) -> Option<RejectKind> {
    let mysql_family = matches!(
        dialect,
        SqlDialect::MySql | SqlDialect::MariaDb | SqlDialect::Generic
    );
    if !mysql_family {
        return None;
    }
    let prefix = text.get(..2).unwrap_or_default();
    if prefix.eq_ignore_ascii_case("m!") || prefix.eq_ignore_ascii_case("t!") {
        return Some(RejectKind::ExecutableComment);
    }
    let hint = text.strip_prefix('+')?.to_ascii_lowercase();
    SESSION_HINTS
        .iter()
        .find(|name| hint.contains(*name))
        .map(|name| RejectKind::SessionChange {
            what: format!(
                "the optimizer hint {}(…) changes settings for the statement",
                name.to_ascii_uppercase()
            ),
        })
}

/// Refuses the `/*! … */` comments that sqlparser expanded into tokens, unless the server reads
/// them as the guard does (see the module docs). Only the dialects whose sqlparser dialect
/// expands them have any.
///
/// The tokens of an accepted comment's text come at made-up locations (sqlparser counts their
/// columns from the `/*`, not from after the `!` and version): each gets the whole comment's
/// span instead, so that nothing downstream (the end of the statement, the row cap's splice)
/// takes a made-up location for a place in the text.
pub(crate) fn check_expanded(
    sql: &str,
    tokens: &mut [TokenWithSpan],
    dialect: SqlDialect,
) -> Result<(), Rejection> {
    if !expands_comments(dialect) || !sql.contains("/*!") {
        return Ok(());
    }
    let refuse = |kind: RejectKind, offset: usize| {
        Err(Rejection::new(kind, dialect).at(Some(position_of(sql, offset))))
    };
    let index = SourceIndex::new(sql);
    let Some(comments) = expanded_comments(&index, tokens) else {
        let message = "the guard could not line up the tokens of an executable comment (/*! … */) \
                       with the text; write the SQL without it"
            .to_owned();
        return refuse(RejectKind::Parse { message }, 0);
    };
    for comment in &comments {
        // The text after `/*!`, before `*/`.
        let text = sql.get(comment.range.start + 3..comment.range.end - 2);
        let agrees = match (dialect, text) {
            (SqlDialect::MySql | SqlDialect::MariaDb, Some(text)) => {
                !comment.holds_comment && runs_as_read(text, dialect)
            }
            _ => false,
        };
        if !agrees {
            return refuse(RejectKind::ExecutableComment, comment.range.start);
        }
    }
    let location = |offset: usize| {
        let at = position_of(sql, offset);
        Location::new(at.line, at.column)
    };
    for comment in comments {
        let span = Span::new(location(comment.range.start), location(comment.range.end));
        for &index in &comment.tokens {
            if let Some(token) = tokens.get_mut(index) {
                token.span = span;
            }
        }
    }
    Ok(())
}

/// Whether sqlparser reads `/*! … */` as code in this dialect (its `supports_multiline_comment_hints`).
fn expands_comments(dialect: SqlDialect) -> bool {
    matches!(
        dialect,
        SqlDialect::MySql | SqlDialect::MariaDb | SqlDialect::Generic | SqlDialect::Trino
    )
}

/// Whether every server of the dialect runs the text after `/*!` (`after_bang`) as sqlparser
/// reads it: with no version, or with a version of exactly the length the server reads, old
/// enough for every supported server and not one MariaDB skips.
fn runs_as_read(after_bang: &str, dialect: SqlDialect) -> bool {
    let digits = after_bang.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return true;
    }
    let version: u32 = match after_bang.get(..digits.min(6)).and_then(|d| d.parse().ok()) {
        Some(v) => v,
        None => return false,
    };
    match dialect {
        // MySQL 8.1+ would read six digits before a blank, older MySQL five: only five agree.
        // The text may reach a MariaDB too, which skips 50700–99999.
        SqlDialect::MySql => {
            digits == 5 && version <= OLDEST_MYSQL && !MARIADB_SKIPPED.contains(&version)
        }
        SqlDialect::MariaDb => {
            matches!(digits, 5 | 6)
                && version <= OLDEST_MARIADB
                && !MARIADB_SKIPPED.contains(&version)
        }
        _ => false,
    }
}

/// One `/*! … */` comment in the text.
#[derive(Debug, PartialEq)]
struct ExpandedComment {
    /// Its bytes, from `/*!` to `*/` inclusive.
    range: Range<usize>,
    /// Whether sqlparser found a comment among its tokens.
    holds_comment: bool,
    /// The indexes of its tokens (at made-up locations).
    tokens: Vec<usize>,
}

/// Finds the comments sqlparser expanded: the tokenizer emits no token for them, only the tokens
/// of their text, which sit at made-up locations inside the comment (or nothing, when the text is
/// empty). Every other token starts where the previous one ended, so a comment shows as text
/// that no token starts at. `None` when the tokens do not line up with the text that way.
fn expanded_comments(
    index: &SourceIndex<'_>,
    tokens: &[TokenWithSpan],
) -> Option<Vec<ExpandedComment>> {
    let sql = index.sql();
    let mut found: Vec<ExpandedComment> = Vec::new();
    // The text before `covered` is accounted for, by tokens or by expanded comments.
    let mut covered = 0;
    // The tokens, then the end of the text (as if a token started there), so that comments at
    // the end are found too.
    let ends = std::iter::once(None);
    for (position, t) in tokens.iter().map(Some).chain(ends).enumerate() {
        let (start, token) = match t {
            Some(t) if t.token == Token::EOF => continue,
            Some(t) => (index.offset(t.span.start)?, &t.token),
            None => (sql.len(), &Token::EOF),
        };
        if start >= covered {
            // Text before `start` that no token covers, or a comment start where this token is
            // not that comment, is an expanded comment (several, when they follow each other).
            while start > covered
                || (sql.get(covered..)?.starts_with("/*") && !is_block_comment(token))
            {
                let rest = sql.get(covered..)?;
                if !rest.starts_with("/*!") {
                    return None;
                }
                let end = covered + 3 + rest.get(3..)?.find("*/")? + 2;
                found.push(ExpandedComment {
                    range: covered..end,
                    holds_comment: false,
                    tokens: Vec::new(),
                });
                covered = end;
                if start < covered {
                    break;
                }
            }
        }
        if start < covered {
            // A token of the text of the last comment found, at a made-up location inside it.
            let last = found.last_mut()?;
            if !last.range.contains(&start) {
                return None;
            }
            last.holds_comment |= is_comment(token);
            last.tokens.push(position);
            continue;
        }
        if let Some(t) = t {
            covered = index.offset(t.span.end)?;
        }
    }
    Some(found)
}

fn is_block_comment(token: &Token) -> bool {
    matches!(token, Token::Whitespace(Whitespace::MultiLineComment(_)))
}

fn is_comment(token: &Token) -> bool {
    matches!(
        token,
        Token::Whitespace(Whitespace::SingleLineComment { .. } | Whitespace::MultiLineComment(_))
    )
}

#[cfg(test)]
mod tests {
    use sqlparser::tokenizer::Tokenizer;

    use super::*;

    /// The expanded comments of `sql` as (text, holds a comment), or `None` when they do not
    /// line up.
    fn expanded(sql: &str, dialect: SqlDialect) -> Option<Vec<(&str, bool)>> {
        let tokens = Tokenizer::new(dialect.parser_dialect(), sql)
            .tokenize_with_location()
            .ok()?;
        let found = expanded_comments(&SourceIndex::new(sql), &tokens)?;
        Some(
            found
                .into_iter()
                .map(|c| (&sql[c.range], c.holds_comment))
                .collect(),
        )
    }

    #[test]
    fn expanded_comments_are_found_with_or_without_text() {
        let d = SqlDialect::MySql;
        assert_eq!(
            expanded("SELECT 7 /*!1000001x , 9 */", d),
            Some(vec![("/*!1000001x , 9 */", false)])
        );
        assert_eq!(
            expanded("SELECT 7 /*!50000*//*!*/ /*!1 + 1*/ AS v /*!*/", d),
            Some(vec![
                ("/*!50000*/", false),
                ("/*!*/", false),
                ("/*!1 + 1*/", false),
                ("/*!*/", false)
            ])
        );
        assert_eq!(
            expanded("SELECT 'é' /*!50000 -- x */ + 1\n, '日本'", d),
            Some(vec![("/*!50000 -- x */", true)])
        );
        assert_eq!(
            expanded("SELECT 1\n/*!50000\n, 2\n*/ /* /*!1 */ '/*!2 */' # /*!3", d),
            Some(vec![("/*!50000\n, 2\n*/", false)])
        );
        assert_eq!(expanded("SELECT 1 /*M!2 */", d), Some(vec![]));
        assert_eq!(
            expanded("SELECT 1 /*!50000 + 1 */", SqlDialect::Generic),
            Some(vec![("/*!50000 + 1 */", false)])
        );
    }

    #[test]
    fn versions_are_read_as_each_server_reads_them() {
        use SqlDialect::{MariaDb, MySql};
        for (text, mysql, mariadb) in [
            ("! + 1 ", true, true),
            ("!50000 + 1", true, true),
            ("!40101+1", true, true),
            ("!50699 x", true, true),
            ("!50700 x", false, false),
            ("!99999 x", false, false),
            ("!100000 x", false, true),
            ("!050000 x", false, true),
            ("!100001 x", false, false),
            ("!1000001x", false, false),
            ("!1234 x", false, false),
            ("!0", false, false),
        ] {
            let after_bang = &text[1..];
            assert_eq!(runs_as_read(after_bang, MySql), mysql, "mysql {text:?}");
            assert_eq!(
                runs_as_read(after_bang, MariaDb),
                mariadb,
                "mariadb {text:?}"
            );
        }
    }

    #[test]
    fn comments_that_run_elsewhere_are_refused_in_the_mysql_family() {
        let code = |text: &str, d| check_comment(text, d).map(|k| k.code());
        assert_eq!(code("M! x ", SqlDialect::MySql), Some("executable_comment"));
        assert_eq!(
            code("m!100000 x", SqlDialect::MariaDb),
            Some("executable_comment")
        );
        assert_eq!(
            code("T![clustered_index] x", SqlDialect::Generic),
            Some("executable_comment")
        );
        assert_eq!(code("M! x ", SqlDialect::Postgres), None);
        assert_eq!(code("+ BKA(t) ", SqlDialect::MySql), None);
        assert_eq!(
            code("+ Set_Var(x=1) ", SqlDialect::MariaDb),
            Some("session_change")
        );
        assert_eq!(
            code("+ MAX_EXECUTION_TIME(9) ", SqlDialect::MySql),
            Some("session_change")
        );
        assert_eq!(code("+ SET_VAR(x=1) ", SqlDialect::Spark), None);
        assert_eq!(code(" a plain comment ", SqlDialect::MySql), None);
    }

    /// Outside executable comments, every token starts where the previous one ended: the case
    /// table's statements (those that tokenize) line up in every dialect that expands comments.
    #[test]
    fn the_case_table_lines_up_with_its_tokens() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
        let mut checked = 0;
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let Ok(text) = std::fs::read_to_string(entry.path()) else {
                continue;
            };
            let Ok(table) = text.parse::<toml::Table>() else {
                continue;
            };
            let cases = table.get("case").and_then(|c| c.as_array());
            for sql in cases
                .into_iter()
                .flatten()
                .filter_map(|c| c.get("sql")?.as_str())
            {
                for d in [SqlDialect::MySql, SqlDialect::Generic] {
                    let tokens = Tokenizer::new(d.parser_dialect(), sql).tokenize_with_location();
                    let Ok(tokens) = tokens else { continue };
                    let found = expanded_comments(&SourceIndex::new(sql), &tokens);
                    assert!(found.is_some(), "{d}: {sql:?} does not line up");
                    if !sql.contains("/*!") {
                        assert_eq!(found, Some(vec![]), "{d}: {sql:?}");
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 1_000, "only {checked} statements checked");
    }
}
