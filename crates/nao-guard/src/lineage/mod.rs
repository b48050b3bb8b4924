//! Masked-column lineage: which output columns of a query carry a masked column's values
//! ([`Policy::mask_column`](crate::Policy::mask_column)), and the refusal of every other use
//! of a masked column that could reveal its values.
//!
//! The rule is an allowlist of positions, so that syntax the walk does not know is refused
//! rather than let through: a masked column may stand as it is in the select list (at any
//! level: subqueries, CTEs, set operations and `*` carry it to the top, where its values are
//! masked), as an operand of `=`, `<>`, `<=>`, `IS [NOT] DISTINCT FROM`, `IN`, `IS [NOT] NULL`
//! and `CASE x WHEN`, in `GROUP BY`, `PARTITION BY`, `DISTINCT ON`, join conditions and
//! `USING`, and as the argument of `count`. Anywhere else (a function, an operator, `LIKE`,
//! `ORDER BY`, a cast, a field access, a whole-row reference, a subquery used as a value) it is
//! refused, since the result would carry its value (or its order) unmasked.
//!
//! What the rule leaves open, by design: equality reveals whether a value equals a guess
//! (`WHERE email = 'a@b.c'`), as it does in every masking system that keeps joins working.

mod outputs;
mod query;
mod scope;
#[cfg(test)]
mod tests;
mod uses;

use sqlparser::ast::{Ident, Statement};

use crate::rejection::Position;
use crate::{MaskedOutput, Policy, RejectKind};

pub(crate) use query::Analyzer;

/// Why a statement is refused: a masked column and how it is used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// The masked column, as the policy names it; `None` when the refusal is about a construct.
    column: Option<String>,
    usage: String,
    at: Option<Position>,
}

impl Refusal {
    fn new(column: String, usage: String, at: Option<&Ident>) -> Self {
        let at = at
            .map(|i| i.span.start)
            .filter(|l| l.line > 0)
            .map(|l| Position {
                line: l.line,
                column: l.column,
            });
        Refusal {
            column: Some(column),
            usage,
            at,
        }
    }

    /// A refusal about a construct the guard cannot follow masked columns through.
    fn construct(usage: String) -> Self {
        Refusal {
            column: None,
            usage,
            at: None,
        }
    }

    /// The rejection kind and where it is.
    pub(crate) fn into_kind(self) -> (RejectKind, Option<Position>) {
        (
            RejectKind::MaskedColumnUse {
                column: self.column,
                usage: self.usage,
            },
            self.at,
        )
    }
}

/// What a statement does with masked columns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct MaskedLineage {
    /// The output columns to mask.
    pub(crate) outputs: Vec<MaskedOutput>,
    /// Whether it reads a masked column anywhere (so an engine's error may quote its values).
    pub(crate) touches_masked: bool,
}

/// The masked output columns of `statement` under `policy`, or why it must be refused.
/// Statements other than queries return no values of a column, so they have none.
pub(crate) fn masked_outputs(
    statement: &Statement,
    policy: &Policy,
) -> Result<MaskedLineage, Refusal> {
    if !policy.masks_columns() {
        return Ok(MaskedLineage::default());
    }
    match statement {
        Statement::Query(query) => {
            let analyzer = Analyzer::new(policy);
            let outputs = analyzer.query(query, &scope::Scope::default())?;
            Ok(MaskedLineage {
                outputs: outputs.located(),
                touches_masked: analyzer.touched(),
            })
        }
        _ => Ok(MaskedLineage::default()),
    }
}

/// Whether every `*` of `statement` reads only relations without denied columns (a subquery
/// or CTE that lists the allowed ones, say), as far as the lineage can follow it. `false` when
/// a `*` reads a table with denied columns, or the statement has constructs the lineage
/// cannot follow: the caller then keeps its conservative refusal.
pub(crate) fn stars_avoid_denied(statement: &Statement, policy: &Policy) -> bool {
    let Statement::Query(query) = statement else {
        return false;
    };
    let analyzer = Analyzer::tracking_denied(policy);
    analyzer.query(query, &scope::Scope::default()).is_ok() && analyzer.star_over_denied().is_none()
}
