//! The columns a query produces, as far as masking is concerned: which carry a masked column's
//! values, found by position or, under a `*`, by name.

use crate::{MaskRule, MaskedOutput, OutputColumn};

/// A masked column's rule and the name of the column it comes from (`customers.email`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Masked {
    pub(super) rule: MaskRule,
    pub(super) source: String,
}

impl Masked {
    /// The mask of a column that two branches of a set operation fill: the same rule when they
    /// agree, else `Redact`, which reveals nothing either rule hides.
    fn merge(a: Option<&Masked>, b: Option<&Masked>) -> Option<Masked> {
        match (a, b) {
            (Some(a), Some(b)) if a.rule == b.rule => Some(a.clone()),
            (Some(a), Some(b)) => Some(Masked {
                rule: MaskRule::Redact,
                source: format!("{}, {}", a.source, b.source),
            }),
            (a, b) => a.or(b).cloned(),
        }
    }
}

/// One item of a select list, as it comes out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Out {
    /// One column: its name when the engine's name for it is known (an alias or a column
    /// reference), and its mask when it carries a masked column's values.
    Column {
        name: Option<String>,
        mask: Option<Masked>,
    },
    /// The columns a `*` brings in: how many is unknown; the masked ones by name. `denied`
    /// names the table when they include columns the policy denies (only while the
    /// analysis tracks denied columns, see [`Analyzer::tracking_denied`](super::Analyzer)).
    Star {
        masks: Vec<(String, Masked)>,
        denied: Option<String>,
    },
}

/// The output columns of a query, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Outputs {
    pub(super) items: Vec<Out>,
}

impl Outputs {
    /// The columns of a table the guard knows only by its masked columns.
    pub(super) fn star(masks: Vec<(String, Masked)>, denied: Option<String>) -> Self {
        Outputs {
            items: vec![Out::Star { masks, denied }],
        }
    }

    /// The same outputs, with the denied-table notes dropped (a `*` that expanded them has
    /// been reported).
    pub(super) fn without_denied(mut self) -> Self {
        for item in &mut self.items {
            if let Out::Star { denied, .. } = item {
                *denied = None;
            }
        }
        self
    }

    /// The table with denied columns that a `*` over these outputs would read, if any.
    pub(super) fn denied_table(&self) -> Option<&str> {
        self.items.iter().find_map(|item| match item {
            Out::Star { denied, .. } => denied.as_deref(),
            Out::Column { .. } => None,
        })
    }

    /// Whether any column carries a masked column's values.
    pub(super) fn has_masks(&self) -> bool {
        self.items.iter().any(|item| match item {
            Out::Column { mask, .. } => mask.is_some(),
            Out::Star { masks, .. } => !masks.is_empty(),
        })
    }

    fn has_star(&self) -> bool {
        self.items
            .iter()
            .any(|item| matches!(item, Out::Star { .. }))
    }

    /// The mask of the column called `name`, if one of the masked columns may be it.
    pub(super) fn lookup(&self, name: &str) -> Option<&Masked> {
        self.items.iter().find_map(|item| match item {
            Out::Column {
                name: Some(n),
                mask: Some(mask),
            } if n.eq_ignore_ascii_case(name) => Some(mask),
            Out::Star { masks, .. } => masks
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, mask)| mask),
            _ => None,
        })
    }

    /// Every masked column by name, for a `*` over these outputs.
    pub(super) fn masked_names(&self) -> Vec<(String, Masked)> {
        let mut names = Vec::new();
        for item in &self.items {
            match item {
                Out::Column {
                    name: Some(name),
                    mask: Some(mask),
                } => names.push((name.clone(), mask.clone())),
                Out::Star { masks, .. } => names.extend(masks.iter().cloned()),
                Out::Column { .. } => {}
            }
        }
        names
    }

    /// The outputs renamed by a column list (`AS s(a, b)`, `WITH s(a, b) AS`): by position,
    /// which needs every masked column's position.
    pub(super) fn renamed(mut self, names: &[String]) -> Result<Self, String> {
        if names.is_empty() || !self.has_masks() {
            return Ok(self);
        }
        if self.has_star() {
            return Err(
                "a column list renames the columns of a `*` by position, and the guard \
                        cannot tell which position holds the masked column: list the columns \
                        instead of `*`"
                    .to_owned(),
            );
        }
        for (item, new) in self.items.iter_mut().zip(names) {
            if let Out::Column { name, .. } = item {
                *name = Some(new.clone());
            }
        }
        Ok(self)
    }

    /// The outputs of a set operation (`UNION`, `INTERSECT`, `EXCEPT`): names from the left,
    /// masks from both sides by position.
    pub(super) fn union(left: Outputs, right: Outputs) -> Result<Self, String> {
        if !right.has_masks() {
            return Ok(left);
        }
        if left.has_star() || right.has_star() {
            return Err(
                "a `*` in a set operation over a masked column leaves the guard unable to \
                        tell which output column holds it: list the columns in each branch"
                    .to_owned(),
            );
        }
        if left.items.len() != right.items.len() {
            return Err(
                "the branches of the set operation have different numbers of columns".to_owned(),
            );
        }
        let items = left
            .items
            .into_iter()
            .zip(right.items)
            .map(|(l, r)| match (l, r) {
                (Out::Column { name, mask: a }, Out::Column { mask: b, .. }) => Out::Column {
                    name,
                    mask: Masked::merge(a.as_ref(), b.as_ref()),
                },
                (l, _) => l,
            })
            .collect();
        Ok(Outputs { items })
    }

    /// Whether the `position`-th output (from 1, as `ORDER BY 2` counts) may carry masked
    /// values.
    pub(super) fn position_masked(&self, position: usize) -> bool {
        for (i, item) in self.items.iter().enumerate() {
            match item {
                // Past a `*`, positions are unknown: any masked column may be there.
                Out::Star { .. } => return self.has_masks(),
                Out::Column { mask, .. } if i + 1 == position => return mask.is_some(),
                Out::Column { .. } => {}
            }
        }
        false
    }

    /// The masked output columns, located for the result's schema.
    pub(super) fn located(&self) -> Vec<MaskedOutput> {
        let len = self.items.len();
        let first = self
            .items
            .iter()
            .position(|i| matches!(i, Out::Star { .. }));
        let last = self
            .items
            .iter()
            .rposition(|i| matches!(i, Out::Star { .. }));
        let (before, after) = match (first, last) {
            (Some(f), Some(l)) => (f, len - 1 - l),
            _ => (len, 0),
        };
        let named = |name: &str| OutputColumn::Named {
            name: name.to_owned(),
            after_first: before,
            before_last: after,
        };
        let mut located = Vec::new();
        for (i, item) in self.items.iter().enumerate() {
            match item {
                Out::Column {
                    mask: Some(mask),
                    name,
                } => {
                    let column = if i < before {
                        OutputColumn::FromStart(i)
                    } else if i >= len - after {
                        OutputColumn::FromEnd(len - 1 - i)
                    } else {
                        // Between two stars: only the name can find it (a masked column is
                        // always named: it is a column reference or has an alias).
                        named(name.as_deref().unwrap_or(""))
                    };
                    located.push(MaskedOutput {
                        column,
                        rule: mask.rule,
                        source: mask.source.clone(),
                    });
                }
                Out::Star { masks, .. } => {
                    located.extend(masks.iter().map(|(name, mask)| MaskedOutput {
                        column: named(name),
                        rule: mask.rule,
                        source: mask.source.clone(),
                    }));
                }
                Out::Column { mask: None, .. } => {}
            }
        }
        located
    }
}
