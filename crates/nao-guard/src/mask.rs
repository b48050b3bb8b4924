//! Column masking rules: which columns come back masked, and how.
//!
//! The guard decides which output columns of a statement carry a masked column's values
//! ([`ReadOnlySql::masked_outputs`](crate::ReadOnlySql::masked_outputs)) and refuses the uses
//! of a masked column that would reveal its values some other way; the host's result pipeline
//! (nao-core's policy layer) applies the [`MaskRule`] to those output columns.

use crate::policy::ColumnPattern;

/// How a masked column's values are shown.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MaskRule {
    /// Every non-NULL value becomes one constant (`[masked]`); NULL stays NULL (whether a
    /// value exists is no secret where `count(col)` and `IS NULL` are allowed; use `Null` to
    /// hide that too).
    Redact,
    /// Every non-NULL value becomes a keyed hash: equal values give equal hashes, so
    /// `GROUP BY`, `COUNT(DISTINCT …)` and joins over the masked values keep their counts, but
    /// the value cannot be read back.
    Hash,
    /// Keeps the last `keep_last` characters of a text and replaces the rest with `*`
    /// (card and phone numbers: `************4242`).
    Partial {
        /// Characters kept at the end.
        keep_last: u8,
    },
    /// Every value becomes NULL.
    Null,
}

impl MaskRule {
    /// The rule's name as a person or a model reads it: `redact`, `hash`, `partial`, `null`.
    pub fn name(&self) -> &'static str {
        match self {
            MaskRule::Redact => "redact",
            MaskRule::Hash => "hash",
            MaskRule::Partial { .. } => "partial",
            MaskRule::Null => "null",
        }
    }
}

impl std::fmt::Display for MaskRule {
    /// The rule as [`FromStr`](std::str::FromStr) reads it: `redact`, `hash`, `partial:4`,
    /// `null`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MaskRule::Partial { keep_last } => write!(f, "partial:{keep_last}"),
            other => f.write_str(other.name()),
        }
    }
}

impl std::str::FromStr for MaskRule {
    type Err = String;

    /// Reads `redact`, `hash`, `null`, `partial` (keeps 4) or `partial:N` (N from 0 to 255),
    /// ASCII case-insensitive; the error says what is accepted.
    ///
    /// ```
    /// use nao_guard::MaskRule;
    ///
    /// assert_eq!("hash".parse(), Ok(MaskRule::Hash));
    /// assert_eq!("partial:2".parse(), Ok(MaskRule::Partial { keep_last: 2 }));
    /// assert!("blur".parse::<MaskRule>().is_err());
    /// ```
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim().to_ascii_lowercase();
        let (name, argument) = match text.split_once(':') {
            Some((name, argument)) => (name, Some(argument)),
            None => (text.as_str(), None),
        };
        let rule = match (name, argument) {
            ("redact", None) => MaskRule::Redact,
            ("hash", None) => MaskRule::Hash,
            ("null", None) => MaskRule::Null,
            ("partial", None) => MaskRule::Partial { keep_last: 4 },
            ("partial", Some(n)) => MaskRule::Partial {
                keep_last: n.parse().map_err(|_| {
                    format!("partial:{n}: the number of characters kept must be 0 to 255")
                })?,
            },
            _ => {
                return Err(format!(
                    "unknown masking rule {text:?}: use redact, hash, null, partial or partial:N"
                ));
            }
        };
        Ok(rule)
    }
}

/// A column pattern and the rule for the columns it matches.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct ColumnMask {
    pub(crate) pattern: ColumnPattern,
    pub(crate) rule: MaskRule,
}

/// One output column of a statement that carries a masked column's values.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MaskedOutput {
    pub(crate) column: OutputColumn,
    pub(crate) rule: MaskRule,
    pub(crate) source: String,
}

impl MaskedOutput {
    /// Which output column it is.
    pub fn column(&self) -> &OutputColumn {
        &self.column
    }

    /// The rule to apply.
    pub fn rule(&self) -> MaskRule {
        self.rule
    }

    /// The masked column it comes from, as the policy names it (`customers.email`), for the
    /// notice that tells the reader why the values are masked.
    pub fn source(&self) -> &str {
        &self.source
    }
}

/// Where a masked output column is in the result.
///
/// Columns listed one by one are found by position. Columns that a `*` brings in can only be
/// found by name, since the guard does not know how many columns a table has: the result
/// column whose name matches (ASCII case-insensitively, also with a `_1`, `:1`, `(1)`-style
/// suffix some engines add to repeated names) inside the stretch of columns that the stars
/// cover, `after_first`..`len - before_last`.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum OutputColumn {
    /// The `n`-th output column (from 0), counted from the start.
    FromStart(usize),
    /// The `n`-th output column counted from the end (0 is the last).
    FromEnd(usize),
    /// A column named `name` among the columns between the first `after_first` and the last
    /// `before_last` output columns.
    Named {
        /// The name.
        name: String,
        /// Output columns before the stretch.
        after_first: usize,
        /// Output columns after the stretch.
        before_last: usize,
    },
}

impl OutputColumn {
    /// The indexes of the result columns this one can be, given the result's column names.
    pub fn resolve(&self, names: &[&str]) -> Vec<usize> {
        let len = names.len();
        match self {
            OutputColumn::FromStart(n) => (*n < len).then_some(*n).into_iter().collect(),
            OutputColumn::FromEnd(n) => len.checked_sub(n + 1).into_iter().collect(),
            OutputColumn::Named {
                name,
                after_first,
                before_last,
            } => {
                let end = len.saturating_sub(*before_last);
                (*after_first..end)
                    .filter(|&i| same_output_name(names[i], name))
                    .collect()
            }
        }
    }
}

/// Whether an engine's output name stands for `name`: equal (ASCII case-insensitive), or equal
/// with the suffix engines add to repeated names (`email_1`, `email:1`, `email (1)`).
fn same_output_name(output: &str, name: &str) -> bool {
    if output.eq_ignore_ascii_case(name) {
        return true;
    }
    let Some(head) = output.get(..name.len()) else {
        return false;
    };
    if !head.eq_ignore_ascii_case(name) {
        return false;
    }
    let rest = &output[name.len()..];
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    rest.strip_prefix('_').is_some_and(digits)
        || rest.strip_prefix(':').is_some_and(digits)
        || rest
            .strip_prefix(" (")
            .and_then(|r| r.strip_suffix(')'))
            .is_some_and(digits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_resolve_from_either_end() {
        let names = ["id", "email", "name"];
        assert_eq!(OutputColumn::FromStart(1).resolve(&names), [1]);
        assert_eq!(OutputColumn::FromEnd(0).resolve(&names), [2]);
        assert!(OutputColumn::FromStart(3).resolve(&names).is_empty());
        assert!(OutputColumn::FromEnd(3).resolve(&names).is_empty());
    }

    #[test]
    fn names_resolve_inside_the_stretch_with_engine_suffixes() {
        let names = [
            "email",
            "id",
            "EMAIL",
            "email_1",
            "email:2",
            "email (3)",
            "emails",
            "email",
        ];
        let named = OutputColumn::Named {
            name: "email".into(),
            after_first: 1,
            before_last: 1,
        };
        assert_eq!(named.resolve(&names), [2, 3, 4, 5]);
        let short = OutputColumn::Named {
            name: "email".into(),
            after_first: 9,
            before_last: 9,
        };
        assert!(short.resolve(&names).is_empty());
    }
}
