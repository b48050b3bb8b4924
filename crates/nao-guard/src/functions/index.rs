//! Every name a dialect's catalogue lists, with its verdict, in one hash map built on first use.
//!
//! Classifying a listed name is then one look-up instead of binary searches over the denied and
//! allowed lists and a scan of the denied affixes. A name the catalogue does not list (a
//! user-defined function, or a column name checked as a possible attribute call) cannot match
//! an exact list, so only the affix scan is left for it.

use std::sync::OnceLock;

use super::Catalogue;
use super::folded::FoldedName;
use crate::{FunctionClass, SqlDialect};

/// What the catalogue says about one listed name (folded to lower case).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Listed {
    /// Why the name is denied, from the exact lists or an affix: denied beats allowed.
    pub(super) denied: Option<FunctionClass>,
    /// Whether one of the dialect's allowed lists holds the name.
    pub(super) allowed: bool,
}

/// The listed names of one dialect's catalogue.
#[derive(Debug)]
pub(super) struct NameIndex {
    names: foldhash::HashMap<&'static [u8], Listed>,
}

impl NameIndex {
    /// The index of `dialect`'s catalogue, built on first use.
    pub(super) fn of(dialect: SqlDialect) -> &'static NameIndex {
        static INDEXES: [OnceLock<NameIndex>; SqlDialect::ALL.len()] =
            [const { OnceLock::new() }; SqlDialect::ALL.len()];
        // `ALL` lists the variants in declaration order (a test checks), so the discriminant
        // is the slot.
        INDEXES[dialect as usize].get_or_init(|| NameIndex::build(Catalogue::of(dialect)))
    }

    /// What the catalogue says about the folded `name`, if it lists it.
    pub(super) fn get(&self, name: &[u8]) -> Option<Listed> {
        self.names.get(name).copied()
    }

    fn build(catalogue: &Catalogue) -> NameIndex {
        let exact = super::denied::EXACT
            .iter()
            .chain(catalogue.denied.iter().flat_map(|list| list.iter()))
            .map(|(name, _)| *name);
        let allowed = catalogue
            .allowed
            .iter()
            .flat_map(|list| list.iter().copied());
        let names = exact
            .chain(allowed)
            .map(|name| {
                let listed = Listed {
                    denied: catalogue.denied(&FoldedName::new(name)),
                    allowed: catalogue.lists_as_allowed(name.as_bytes()),
                };
                (name.as_bytes(), listed)
            })
            .collect();
        NameIndex { names }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dialects_are_listed_in_declaration_order() {
        for (slot, dialect) in SqlDialect::ALL.into_iter().enumerate() {
            assert_eq!(dialect as usize, slot, "{dialect:?}");
        }
    }

    #[test]
    fn the_index_agrees_with_the_lists_for_every_listed_name() {
        for dialect in SqlDialect::ALL {
            let catalogue = Catalogue::of(dialect);
            let index = NameIndex::of(dialect);
            let listed = super::super::denied::EXACT
                .iter()
                .map(|(name, _)| *name)
                .chain(
                    catalogue
                        .allowed
                        .iter()
                        .flat_map(|list| list.iter().copied()),
                );
            for name in listed {
                let expected = Listed {
                    denied: catalogue.denied(&FoldedName::new(name)),
                    allowed: catalogue.lists_as_allowed(name.as_bytes()),
                };
                assert_eq!(
                    index.get(name.as_bytes()),
                    Some(expected),
                    "{dialect:?}: {name}"
                );
            }
            assert_eq!(index.get(b"my_udf"), None, "{dialect:?}");
        }
    }
}
