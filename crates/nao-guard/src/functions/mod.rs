//! The per-dialect function catalogue: which functions are denied (and why), which built-ins
//! are known to be free of side effects, and everything else is unknown.
//!
//! PLACEHOLDER: a minimal catalogue while the full one is written.

use sqlparser::ast::ObjectName;

use crate::{FunctionClass, SqlDialect};

/// What the catalogue says about a function name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Catalogued {
    /// Denied in every context, for this reason.
    Denied(FunctionClass),
    /// A known side-effect-free built-in of the dialect.
    Allowed,
    /// Not in the catalogue: the policy decides (denied by default).
    Unknown,
}

/// Classifies a function (or table function) name as written, in `dialect`.
pub(crate) fn classify(dialect: SqlDialect, name: &ObjectName) -> Catalogued {
    let _ = dialect;
    let last = name
        .0
        .last()
        .and_then(|p| p.as_ident())
        .map(|i| i.value.to_ascii_lowercase());
    match last.as_deref() {
        Some("pg_sleep" | "sleep") => Catalogued::Denied(FunctionClass::Sleep),
        Some("read_csv" | "pg_read_file") => Catalogued::Denied(FunctionClass::FileAccess),
        Some(
            "count" | "sum" | "avg" | "min" | "max" | "upper" | "lower" | "coalesce"
            | "generate_series" | "row_number" | "rank" | "now" | "date_trunc",
        ) => Catalogued::Allowed,
        _ => Catalogued::Unknown,
    }
}
