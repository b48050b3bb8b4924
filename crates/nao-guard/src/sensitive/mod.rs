//! Credential, secret and server-internal catalogues, refused by the default [`Policy`].
//!
//! A read-only statement can still read what no data question needs and no agent should see:
//! password hashes (`pg_authid`, `mysql.user`), connection strings and foreign-server passwords
//! (`pg_user_mappings`, `pg_subscription.subconninfo`), the text of other sessions' statements
//! (`pg_stat_activity.query`, `information_schema.PROCESSLIST.INFO`, `system.query_log`),
//! server paths and settings (`pg_settings`, `SHOW data_directory`). The role the adapter
//! connects as should not be able to read them either; this list is the guard's half of that
//! promise, for the day the role is wider than it should be.
//!
//! The entries ([`SensitiveEntry::all`], listed per engine in `catalogue.rs` with a reason each)
//! are relations, columns of otherwise useful relations, table functions that show the host
//! (DuckDB's `duckdb_databases()` and its file paths, `duckdb_settings()`, SQLite's
//! `pragma_database_list`), and SHOW forms and settings read by name (`SHOW data_directory`,
//! `current_setting('home_directory')`). They apply in **every dialect**: a parser dialect is not an engine (CockroachDB parses as PostgreSQL and has
//! `system.users`; DuckDB attaches MySQL and PostgreSQL databases; Trino has a `mysql` catalog),
//! so a name is refused wherever it could reach the catalogue. Names are matched ASCII
//! case-insensitively whether quoted or not (refusing `"PG_AUTHID"`, which PostgreSQL would not
//! resolve to the catalogue, costs nothing), and a quoted part holding dots is read as several
//! parts (BigQuery's `` `region-us.INFORMATION_SCHEMA.JOBS` ``):
//! - a distinctive name (`pg_authid`, `sqlite_stat4`) matches in any schema, qualified or not;
//! - a generic name needs its schema written (`mysql.user`, `system.query_log`,
//!   `sys.sql_logins`), so the application tables `user`, `app.user` and `users` stay readable;
//! - `name*` matches by prefix (`sys.x$*`), `schema.*` a whole schema (`performance_schema.*`);
//! - a table function matches by its last name part, called (`main.duckdb_databases()`) or read
//!   as the view of the same name an engine defines over it (`FROM duckdb_databases`); one
//!   named `pragma_x` also matches the statement `PRAGMA x`, its other form in SQLite and DuckDB.
//!
//! Function entries are sensitive entries rather than a [`FunctionClass`](crate::FunctionClass)
//! of the denied tier on purpose: the denied tier is for calls that are unsafe to run at all
//! (side effects, files, network) and no policy lifts it, while these only show what an
//! administrator may want to see, so one override covers them with the catalogues: the same
//! reason in the refusal, the same [`Policy::allow_sensitive`]. A lifted table function still
//! has to be a built-in of the dialect to pass.
//!
//! A host turns entries off with [`Policy::allow_sensitive`] (one entry, by name) or
//! [`Policy::with_sensitive_allowed`] (all of them).

mod catalogue;

use foldhash::HashMap;
use std::sync::OnceLock;

use sqlparser::ast::{ObjectName, Statement};

use crate::{Policy, TableName};

/// What a [`SensitiveEntry`] refuses.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SensitiveKind {
    /// A whole relation (table or view), wherever the statement reads it.
    Relation,
    /// One column of a relation that is otherwise harmless, by name, through `*` and through
    /// whole-row references, as [`Policy::deny_column`] does.
    Column,
    /// An introspection statement (a SHOW form).
    Statement,
    /// A table function, wherever it is called and however it is qualified, and the view of the
    /// same name an engine defines over it (DuckDB's `duckdb_databases` view); for a name
    /// `pragma_x`, also the statement `PRAGMA x`.
    TableFunction,
}

/// How an entry matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Rule {
    Relation,
    Column,
    TableFunction,
    /// `SHOW w0 w1 …` whose words start with one of each set, in order.
    ShowStarts(&'static [&'static [&'static str]]),
    /// `SHOW` followed by exactly these words.
    ShowExactly(&'static [&'static str]),
    /// `SHOW [FULL] PROCESSLIST`, a statement of its own in sqlparser.
    ShowProcessList,
    /// `SHOW setting` (PostgreSQL's form, dotted for custom settings) where a part of the name
    /// ends with one of `suffixes` or contains one of `fragments` and is none of `except`; also a
    /// setting read by name (`current_setting('…')`, DuckDB's `getvariable('…')`).
    ShowSetting {
        suffixes: &'static [&'static str],
        fragments: &'static [&'static str],
        except: &'static [&'static str],
    },
}

/// One built-in denial: a credential, secret or server-internal relation, column or statement,
/// with the engine it belongs to and why it is refused.
///
/// ```
/// use nao_guard::{SensitiveEntry, SensitiveKind};
///
/// let authid = SensitiveEntry::find("pg_authid").unwrap();
/// assert_eq!(authid.kind(), SensitiveKind::Relation);
/// assert!(authid.reason().contains("password"));
/// assert!(SensitiveEntry::all().any(|e| e.name() == "SHOW GRANTS"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SensitiveEntry {
    name: &'static str,
    rule: Rule,
    engine: &'static str,
    reason: &'static str,
}

impl SensitiveEntry {
    pub(crate) const fn new(
        name: &'static str,
        rule: Rule,
        engine: &'static str,
        reason: &'static str,
    ) -> Self {
        SensitiveEntry {
            name,
            rule,
            engine,
            reason,
        }
    }

    /// Every built-in entry, grouped by engine.
    pub fn all() -> impl Iterator<Item = &'static SensitiveEntry> {
        [
            catalogue::POSTGRES,
            catalogue::REDSHIFT,
            catalogue::COCKROACH,
            catalogue::MYSQL,
            catalogue::CLICKHOUSE,
            catalogue::SNOWFLAKE,
            catalogue::WAREHOUSES,
            catalogue::MSSQL,
            catalogue::EMBEDDED,
            catalogue::STATEMENTS,
        ]
        .into_iter()
        .flatten()
    }

    /// The entry with this name (ASCII case-insensitive, spaces collapsed), as
    /// [`Policy::allow_sensitive`] takes it.
    pub fn find(name: &str) -> Option<&'static SensitiveEntry> {
        let wanted = normalize(name);
        SensitiveEntry::all().find(|e| normalize(e.name) == wanted)
    }

    /// The name: `pg_authid`, `mysql.user`, `performance_schema.*`, `pg_stat_activity.query`
    /// (a column), `SHOW GRANTS`.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// What the entry refuses.
    pub fn kind(&self) -> SensitiveKind {
        match self.rule {
            Rule::Relation => SensitiveKind::Relation,
            Rule::Column => SensitiveKind::Column,
            Rule::TableFunction => SensitiveKind::TableFunction,
            _ => SensitiveKind::Statement,
        }
    }

    /// The engines that have it, for people reading the list (`"PostgreSQL"`, `"MySQL,
    /// MariaDB"`).
    pub fn engine(&self) -> &'static str {
        self.engine
    }

    /// Why it is refused, completing "`name` …": "holds every role's password hash".
    pub fn reason(&self) -> &'static str {
        self.reason
    }

    /// The relation part of a relation or column entry (`pg_stat_activity` for
    /// `pg_stat_activity.query`), and the view of a table function entry.
    pub(crate) fn relation(&self) -> Option<&'static str> {
        match self.rule {
            Rule::Relation | Rule::TableFunction => Some(self.name),
            Rule::Column => self.name.rsplit_once('.').map(|(relation, _)| relation),
            _ => None,
        }
    }

    /// The column of a column entry.
    pub(crate) fn column(&self) -> Option<&'static str> {
        match self.rule {
            Rule::Column => self.name.rsplit_once('.').map(|(_, column)| column),
            _ => None,
        }
    }

    /// Whether this relation or column entry is about the relation with this name.
    pub(crate) fn covers_relation(&self, name: NameTail<'_>) -> bool {
        self.relation()
            .is_some_and(|pattern| relation_matches(pattern, name))
    }

    /// Whether `allowed` (normalized) names this entry, or the relation of this column entry.
    pub(crate) fn named_by(&self, allowed: &str) -> bool {
        normalize(self.name) == allowed
            || (self.rule == Rule::Column
                && self.relation().is_some_and(|r| normalize(r) == allowed))
    }
}

/// A name as [`SensitiveEntry::find`] and [`Policy::allow_sensitive`] compare it.
pub(crate) fn normalize(name: &str) -> String {
    name.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_ascii_lowercase()
}

/// The last two words of a relation's name (its name and the schema before it, if any), with
/// quoted parts that hold dots split at them: all that relation patterns look at.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NameTail<'a> {
    last: &'a str,
    before: Option<&'a str>,
}

impl<'a> NameTail<'a> {
    /// The tail of `words`, outermost first (each may hold dots).
    fn of<I>(words: I) -> Option<Self>
    where
        I: DoubleEndedIterator<Item = &'a str>,
    {
        let mut segments = words.rev().flat_map(|word| word.rsplit('.'));
        let last = segments.next()?;
        Some(NameTail {
            last,
            before: segments.next(),
        })
    }

    fn table(table: &'a TableName) -> Option<Self> {
        Self::of(table.parts().iter().map(|part| part.value.as_str()))
    }
}

/// Whether a relation pattern (`pg_authid`, `mysql.user`, `sys.x$*`, `performance_schema.*`)
/// matches a name.
fn relation_matches(pattern: &str, name: NameTail<'_>) -> bool {
    match pattern.rsplit_once('.') {
        None => word_matches(pattern, name.last),
        Some((schema, last)) => {
            word_matches(last, name.last)
                && name.before.is_some_and(|s| s.eq_ignore_ascii_case(schema))
        }
    }
}

/// Calls `f` with `word` in ASCII lower case, without allocating for a short word.
fn lowercased<R>(word: &str, f: impl FnOnce(&str) -> R) -> R {
    const SHORT: usize = 64;
    if !word.bytes().any(|b| b.is_ascii_uppercase()) {
        return f(word);
    }
    if word.len() <= SHORT {
        let mut buffer = [0u8; SHORT];
        let lower = &mut buffer[..word.len()];
        lower.copy_from_slice(word.as_bytes());
        lower.make_ascii_lowercase();
        // Lower-casing ASCII letters keeps UTF-8 valid.
        if let Ok(lower) = std::str::from_utf8(lower) {
            return f(lower);
        }
    }
    f(&word.to_ascii_lowercase())
}

/// `word` against `pattern`, ASCII case-insensitively; a trailing `*` matches any rest.
fn word_matches(pattern: &str, word: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => word
            .get(..prefix.len())
            .is_some_and(|start| start.eq_ignore_ascii_case(prefix)),
        None => word.eq_ignore_ascii_case(pattern),
    }
}

/// The entries by the word a name ends with, built once, so that a table or a column costs a
/// look-up rather than a scan of the whole list.
#[derive(Debug, Default)]
struct Index {
    /// Relation entries by their last word, lower case.
    relations: HashMap<String, Vec<&'static SensitiveEntry>>,
    /// Relation entries whose last word is a prefix (`x$*`) or a whole schema (`*`), and that
    /// name a schema (`sys.x$*`): only a qualified name can match them.
    prefixed_in_schema: Vec<&'static SensitiveEntry>,
    /// Relation entries whose one word is a prefix, whatever the schema.
    prefixed_anywhere: Vec<&'static SensitiveEntry>,
    /// Column entries by the column, lower case.
    columns: HashMap<String, Vec<&'static SensitiveEntry>>,
    /// Column entries by their relation's last word, lower case.
    column_relations: HashMap<String, Vec<&'static SensitiveEntry>>,
    /// Table function entries by name, lower case.
    functions: HashMap<String, &'static SensitiveEntry>,
}

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut index = Index::default();
        for entry in SensitiveEntry::all() {
            if entry.rule == Rule::TableFunction {
                index.functions.insert(entry.name.into(), entry);
            }
            let Some(relation) = entry.relation() else {
                continue;
            };
            let last = relation.rsplit('.').next().unwrap_or(relation);
            match entry.column() {
                Some(column) => {
                    index.columns.entry(column.into()).or_default().push(entry);
                    let by_relation = index.column_relations.entry(last.into());
                    by_relation.or_default().push(entry);
                }
                None if last.ends_with('*') && relation.contains('.') => {
                    index.prefixed_in_schema.push(entry);
                }
                None if last.ends_with('*') => index.prefixed_anywhere.push(entry),
                None => index.relations.entry(last.into()).or_default().push(entry),
            }
        }
        index
    })
}

/// The relation entries that match a name given as its parts.
fn relations_for(name: NameTail<'_>) -> impl Iterator<Item = &'static SensitiveEntry> + '_ {
    let index = index();
    let in_schema = match name.before {
        Some(_) => index.prefixed_in_schema.as_slice(),
        None => &[],
    };
    lowercased(name.last, |last| index.relations.get(last))
        .into_iter()
        .flatten()
        .chain(&index.prefixed_anywhere)
        .chain(in_schema)
        .copied()
        .filter(move |e| relation_matches(e.name, name))
}

/// The relation entry that covers a table name, among those the policy refuses.
pub(crate) fn refused_relation(
    policy: &Policy,
    table: &TableName,
) -> Option<&'static SensitiveEntry> {
    if policy.sensitive_allowed {
        return None;
    }
    NameTail::table(table)
        .and_then(|name| relations_for(name).find(|e| policy.refuses_sensitive(e)))
}

/// The relation entry for a table name as a rejection prints it (`"pg_catalog"."pg_authid"`),
/// whatever the policy: the words of a refusal message.
pub(crate) fn relation_for_written(written: &str) -> Option<&'static SensitiveEntry> {
    let parts: Vec<&str> = written
        .split('.')
        .map(|p| p.trim_matches(|c| matches!(c, '"' | '`' | '[' | ']' | '\'')))
        .collect();
    relations_for(NameTail::of(parts.into_iter())?).next()
}

/// The first sensitive column of `table` that the policy refuses.
pub(crate) fn refused_column_of(
    policy: &Policy,
    table: &TableName,
) -> Option<&'static SensitiveEntry> {
    if policy.sensitive_allowed {
        return None;
    }
    let name = NameTail::table(table)?;
    lowercased(name.last, |last| index().column_relations.get(last))?
        .iter()
        .copied()
        .find(|e| e.covers_relation(name) && policy.refuses_sensitive(e))
}

/// The sensitive column entry for the column `name` of one of `tables`, among those the policy
/// refuses.
pub(crate) fn refused_column(
    policy: &Policy,
    name: &str,
    tables: &[&TableName],
) -> Option<&'static SensitiveEntry> {
    if policy.sensitive_allowed {
        return None;
    }
    lowercased(name, |name| index().columns.get(name))?
        .iter()
        .copied()
        .filter(|e| policy.refuses_sensitive(e))
        .find(|e| {
            tables
                .iter()
                .filter_map(|t| NameTail::table(t))
                .any(|t| e.covers_relation(t))
        })
}

/// The table function entry for a call of `name` (matched on its last part, whatever the
/// qualification and quoting), among those the policy refuses.
pub(crate) fn refused_function(
    policy: &Policy,
    name: &ObjectName,
) -> Option<&'static SensitiveEntry> {
    if policy.sensitive_allowed {
        return None;
    }
    let last = &name.0.last()?.as_ident()?.value;
    lowercased(last, |last| index().functions.get(last).copied())
        .filter(|e| policy.refuses_sensitive(e))
}

/// The table function entry `pragma_x` for the statement `PRAGMA [schema.]x`, among those the
/// policy refuses.
fn refused_pragma(policy: &Policy, name: &ObjectName) -> Option<&'static SensitiveEntry> {
    let pragma = name.0.last()?.as_ident()?.value.to_ascii_lowercase();
    index()
        .functions
        .get(&format!("pragma_{pragma}"))
        .copied()
        .filter(|e| policy.refuses_sensitive(e))
}

/// Words after which a `SHOW` names a table or a pattern, not a setting (`SHOW INDEX FROM t`,
/// `SHOW TABLE STATUS LIKE 'x'`): setting rules do not apply to such statements.
const NOT_A_SETTING: &[&str] = &["FOR", "FROM", "IN", "LIKE", "LIMIT", "ON", "TO", "WHERE"];

/// The statement entry that matches a top-level statement, among those the policy refuses.
pub(crate) fn refused_statement(
    policy: &Policy,
    statement: &Statement,
) -> Option<&'static SensitiveEntry> {
    if policy.sensitive_allowed {
        return None;
    }
    if let Statement::Pragma { name, .. } = statement {
        return refused_pragma(policy, name);
    }
    let words: Vec<&str> = match statement {
        Statement::ShowVariable { variable } => variable.iter().map(|i| i.value.as_str()).collect(),
        Statement::ShowProcessList { .. } => Vec::new(),
        _ => return None,
    };
    let process_list = matches!(statement, Statement::ShowProcessList { .. });
    let form = |rule: Rule| match rule {
        Rule::ShowProcessList => process_list,
        Rule::ShowStarts(sets) => {
            words.len() >= sets.len()
                && sets
                    .iter()
                    .zip(&words)
                    .all(|(set, word)| set.iter().any(|s| s.eq_ignore_ascii_case(word)))
        }
        Rule::ShowExactly(expected) => {
            words.len() == expected.len()
                && expected
                    .iter()
                    .zip(&words)
                    .all(|(e, w)| e.eq_ignore_ascii_case(w))
        }
        _ => false,
    };
    // `SHOW SECRETS` is a statement of its own, not a setting named like a secret: lifting
    // its entry must lift it.
    let own_form = SensitiveEntry::all().any(|e| form(e.rule));
    let setting = !own_form
        && !words.is_empty()
        && !words
            .iter()
            .any(|w| NOT_A_SETTING.iter().any(|k| k.eq_ignore_ascii_case(w)));
    SensitiveEntry::all().find(|e| {
        let hit = match e.rule {
            Rule::ShowSetting {
                suffixes,
                fragments,
                except,
            } => setting && names_secret_setting(&words, suffixes, fragments, except),
            rule => form(rule),
        };
        hit && policy.refuses_sensitive(e)
    })
}

/// The setting entry that refuses reading the setting `name` (`app.settings.jwt_secret`), as
/// `current_setting('…')` and DuckDB's `getvariable('…')` do: the rules of `SHOW name`, without
/// the statement forms.
pub(crate) fn refused_setting(policy: &Policy, name: &str) -> Option<&'static SensitiveEntry> {
    if policy.sensitive_allowed {
        return None;
    }
    SensitiveEntry::all().find(|e| {
        let hit = match e.rule {
            Rule::ShowSetting {
                suffixes,
                fragments,
                except,
            } => names_secret_setting(&[name], suffixes, fragments, except),
            _ => false,
        };
        hit && policy.refuses_sensitive(e)
    })
}

/// Whether any dot-separated part of the setting name ends with one of `suffixes` or holds one
/// of `fragments`, and is none of `except` (ASCII case-insensitive).
fn names_secret_setting(
    words: &[&str],
    suffixes: &[&str],
    fragments: &[&str],
    except: &[&str],
) -> bool {
    words.iter().flat_map(|w| w.split('.')).any(|part| {
        let part = part.to_ascii_lowercase();
        (suffixes.iter().any(|s| part.ends_with(s)) || fragments.iter().any(|f| part.contains(f)))
            && !except.contains(&part.as_str())
    })
}

#[cfg(test)]
mod tests;
