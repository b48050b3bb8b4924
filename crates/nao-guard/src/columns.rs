//! Denied columns: which restricted columns a statement could read.
//!
//! The check is conservative, because a false "allowed" leaks data: a denied column's name used
//! anywhere, `*` while a table with denied columns is read, `t.*` and whole-row references
//! (`SELECT c FROM customers c`, `row_to_json(c)`) over such a table are all refused.
//! The built-in sensitive columns (`pg_stat_activity.query`, see [`crate::SensitiveEntry`]) are
//! denied the same way, and refused with their own kind and reason.

use sqlparser::ast::{Ident, ObjectName};

use crate::policy::ColumnDenial;
use crate::rejection::Position;
use crate::{Policy, RejectKind, TableName};

/// What a walk notes for the column check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Noting {
    /// Nothing: the policy denies no column.
    Nothing,
    /// Tables and wildcards, not column references: only the built-in sensitive columns are
    /// denied, and those belong to a few catalogue relations; when a statement reads one, the
    /// walk is repeated noting everything ([`ColumnUse::needs_every_reference`]).
    TablesFirst,
    /// Tables, wildcards and every column reference.
    Everything,
}

/// A table named in FROM, as the column check needs it.
#[derive(Debug)]
struct FromTable {
    table: TableName,
    alias: Option<String>,
    /// Why the table's columns are (partly) denied, if they are.
    hides: Option<ColumnDenial>,
}

/// The column references, wildcards and table aliases a walk has seen.
#[derive(Debug)]
pub(crate) struct ColumnUse {
    noting: Noting,
    /// The tables named in FROM: all of them when noting everything (a qualifier picks its
    /// table's denied columns), else only those that hide columns (nothing else asks).
    tables: Vec<FromTable>,
    /// `None` for a bare `*`, else the qualifier's last part.
    wildcards: Vec<Option<String>>,
    identifiers: Vec<(Vec<Ident>, Option<Position>)>,
}

impl ColumnUse {
    /// Notes what `policy` needs: column references only when it denies columns of its own.
    pub(crate) fn new(policy: &Policy) -> Self {
        let noting = if policy.denied_columns.is_empty() {
            Noting::Nothing
        } else if policy.denies_host_columns() {
            Noting::Everything
        } else {
            Noting::TablesFirst
        };
        Self::noting(noting)
    }

    /// Notes `noting`.
    pub(crate) fn noting(noting: Noting) -> Self {
        ColumnUse {
            noting,
            tables: Vec::new(),
            wildcards: Vec::new(),
            identifiers: Vec::new(),
        }
    }

    /// A table read in FROM, with its alias.
    pub(crate) fn table_alias(
        &mut self,
        policy: &Policy,
        name: &ObjectName,
        alias: Option<&Ident>,
    ) {
        if self.noting == Noting::Nothing {
            return;
        }
        let table = TableName::from_object_name(name);
        let hides = policy.hides_columns_of(&table);
        if hides.is_none() && self.noting == Noting::TablesFirst {
            return;
        }
        self.tables.push(FromTable {
            table,
            alias: alias.map(|a| a.value.clone()),
            hides,
        });
    }

    /// A `*` (no qualifier) or `qualifier.*`.
    pub(crate) fn wildcard(&mut self, qualifier: Option<&ObjectName>) {
        if self.noting != Noting::Nothing {
            let last = qualifier
                .and_then(|q| q.0.last())
                .map(|p| match p.as_ident() {
                    Some(ident) => ident.value.clone(),
                    None => p.to_string(),
                });
            self.wildcards.push(last);
        }
    }

    /// A column or whole-row reference, possibly qualified.
    pub(crate) fn identifier(&mut self, parts: &[Ident], at: Option<Position>) {
        if self.noting == Noting::Everything {
            self.identifiers.push((parts.to_vec(), at));
        }
    }

    /// Whether the walk noted tables first and the statement reads a table with denied
    /// columns (`tables`: every table it reads), so it must be walked again noting every
    /// column reference.
    pub(crate) fn needs_every_reference(&self, policy: &Policy, tables: &[TableName]) -> bool {
        // The names in FROM that are not tables read (CTE names) count too, as `denied` counts
        // them.
        self.noting == Noting::TablesFirst
            && (self.tables.iter().any(|from| from.hides.is_some())
                || tables
                    .iter()
                    .any(|table| policy.hides_columns_of(table).is_some()))
    }

    /// The reasons to refuse, given every table the statement reads. A `*` is refused when a
    /// table with denied columns is read anywhere in the statement, unless `stars_avoid_denied`
    /// (asked only then) proves that no `*` reads such a table (`SELECT * FROM (SELECT id,
    /// name FROM customers) s`).
    pub(crate) fn denied(
        &self,
        policy: &Policy,
        tables: &[TableName],
        stars_avoid_denied: impl FnOnce() -> bool,
    ) -> Vec<RejectKind> {
        let mut found = Vec::new();
        if self.noting == Noting::Nothing {
            return found;
        }
        // Names by which a table with denied columns can be referred to, and why.
        let hidden: Vec<(&str, ColumnDenial)> = self
            .tables
            .iter()
            .filter_map(|from| {
                let why = from.hides?;
                Some([Some(from.table.name()), from.alias.as_deref()].map(|n| n.map(|n| (n, why))))
            })
            .flatten()
            .flatten()
            .collect();
        let mut stars_avoid_denied = Some(stars_avoid_denied);
        let mut stars_proven = None;
        for wildcard in &self.wildcards {
            let why = match wildcard {
                // The host's own denial names the host's kind; a sensitive one its reason.
                None => hidden
                    .iter()
                    .map(|&(_, why)| why)
                    .find(|why| *why == ColumnDenial::Policy)
                    .or_else(|| hidden.first().map(|&(_, why)| why)),
                Some(q) => hidden
                    .iter()
                    .find(|(h, _)| h.eq_ignore_ascii_case(q))
                    .map(|&(_, why)| why),
            };
            if why.is_some()
                && *stars_proven
                    .get_or_insert_with(|| stars_avoid_denied.take().is_some_and(|f| f()))
            {
                continue;
            }
            if let Some(why) = why {
                let name = wildcard
                    .as_ref()
                    .map_or_else(|| "*".into(), |q| format!("{q}.*"));
                found.push(refusal(name, why));
            }
        }
        for (parts, _) in &self.identifiers {
            let Some(last) = parts.last() else { continue };
            // `q.col`: when `q` names a table (or its alias) of this statement, only that
            // table's denied columns count; otherwise any table's may.
            let qualifier = (parts.len() >= 2).then(|| &parts[parts.len() - 2].value);
            let owners: Vec<&TableName> = match qualifier {
                Some(q) => self
                    .tables
                    .iter()
                    .filter(|from| match &from.alias {
                        Some(a) => a.eq_ignore_ascii_case(q),
                        None => from.table.name().eq_ignore_ascii_case(q),
                    })
                    .map(|from| &from.table)
                    .collect(),
                None => Vec::new(),
            };
            let candidates: Vec<&TableName> = if owners.is_empty() {
                tables.iter().collect()
            } else {
                owners
            };
            let whole_row = || {
                hidden
                    .iter()
                    .find(|(h, _)| parts.len() == 1 && h.eq_ignore_ascii_case(&last.value))
                    .map(|&(_, why)| why)
            };
            if let Some(why) = policy
                .denies_column(&last.value, &candidates)
                .or_else(whole_row)
            {
                let written = parts
                    .iter()
                    .map(|p| p.to_string())
                    .collect::<Vec<_>>()
                    .join(".");
                found.push(refusal(written, why));
            }
        }
        found
    }
}

/// The rejection for a denied column: the host's kind, or the sensitive kind with its reason.
fn refusal(name: String, why: ColumnDenial) -> RejectKind {
    match why {
        ColumnDenial::Policy => RejectKind::ColumnNotAllowed { name },
        ColumnDenial::Sensitive(entry) => RejectKind::Sensitive { name, entry },
    }
}
