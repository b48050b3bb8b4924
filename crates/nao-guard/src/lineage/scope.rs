//! What names mean inside a query: the relations in FROM, the CTEs, and the enclosing queries.

use sqlparser::ast::Ident;

use super::outputs::{Masked, Outputs};

/// A relation in FROM: the name it is referred to by (its alias, or the table's last name
/// part), and its columns.
#[derive(Debug, Clone)]
pub(super) struct Source {
    pub(super) name: Option<String>,
    pub(super) outputs: Outputs,
}

/// What a column reference stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Resolved {
    /// Not a masked column (or the guard cannot tell it is one of them).
    Plain,
    /// A masked column, as is.
    Column(Masked),
    /// A field or member of a masked column (`email.domain`): a value derived from it.
    Field(Masked),
    /// A whole row of a relation that has masked columns (`SELECT c FROM customers c`).
    WholeRow(String),
}

/// The names visible at one level of a query, and the enclosing levels.
#[derive(Debug, Default)]
pub(super) struct Scope<'p> {
    pub(super) sources: Vec<Source>,
    pub(super) ctes: Vec<(String, Outputs)>,
    parent: Option<&'p Scope<'p>>,
}

impl<'p> Scope<'p> {
    /// A level inside `parent`.
    pub(super) fn child(parent: &'p Scope<'p>) -> Self {
        Scope {
            sources: Vec::new(),
            ctes: Vec::new(),
            parent: Some(parent),
        }
    }

    fn chain(&self) -> impl Iterator<Item = &Scope<'p>> {
        std::iter::successors(Some(self), |s| s.parent)
    }

    /// The CTE called `name`, innermost first.
    pub(super) fn cte(&self, name: &str) -> Option<&Outputs> {
        self.chain().find_map(|s| {
            s.ctes
                .iter()
                .rev()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, o)| o)
        })
    }

    /// The relations called `name` at the innermost level that has one.
    pub(super) fn sources_named(&self, name: &str) -> Vec<&Source> {
        for scope in self.chain() {
            let found: Vec<&Source> = scope
                .sources
                .iter()
                .filter(|s| {
                    s.name
                        .as_deref()
                        .is_some_and(|n| n.eq_ignore_ascii_case(name))
                })
                .collect();
            if !found.is_empty() {
                return found;
            }
        }
        Vec::new()
    }

    /// What the column reference `parts` stands for. Conservative: an unqualified name is a
    /// masked column if any visible relation masks a column of that name (the guard does not
    /// know every column of a table, so it cannot tell which relation the engine picks).
    pub(super) fn resolve(&self, parts: &[Ident]) -> Resolved {
        let Some((first, _)) = parts.split_first() else {
            return Resolved::Plain;
        };
        // `col`, `col.field…`: an unqualified column, maybe with fields.
        if let Some(mask) = self.unqualified(&first.value) {
            return if parts.len() == 1 {
                Resolved::Column(mask)
            } else {
                Resolved::Field(mask)
            };
        }
        // `…rel.col`, `…rel.col.field…`: a relation named by the part before the column.
        for split in 1..parts.len() {
            let qualifier = &parts[split - 1].value;
            let column = &parts[split].value;
            for source in self.sources_named(qualifier) {
                if let Some(mask) = source.outputs.lookup(column) {
                    return if split + 1 == parts.len() {
                        Resolved::Column(mask.clone())
                    } else {
                        Resolved::Field(mask.clone())
                    };
                }
            }
        }
        // `rel`, `schema.rel`: a whole row.
        let last = &parts[parts.len() - 1].value;
        let whole = self
            .sources_named(last)
            .into_iter()
            .find(|s| s.outputs.has_masks());
        if let Some(source) = whole {
            return Resolved::WholeRow(source.name.clone().unwrap_or_default());
        }
        Resolved::Plain
    }

    fn unqualified(&self, name: &str) -> Option<Masked> {
        self.chain()
            .flat_map(|s| &s.sources)
            .find_map(|s| s.outputs.lookup(name))
            .cloned()
    }
}
