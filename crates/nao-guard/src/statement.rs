//! Which top-level statements are allowed, and what to call the others.

use sqlparser::ast::{Expr, ShowCreateObject, Statement, Value};

use crate::sensitive;
use crate::{Policy, RejectKind, SqlitePragma, StatementKind, TableName};

/// How the guard treats a top-level statement.
pub(crate) enum Root<'s> {
    /// Allowed; walk it.
    Allowed(StatementKind),
    /// EXPLAIN of `inner`; allowed when `inner` is.
    Explain { inner: &'s Statement, analyze: bool },
    /// Refused for this reason.
    Refused(RejectKind),
}

/// Classifies a top-level statement.
pub(crate) fn classify<'s>(statement: &'s Statement, policy: &Policy) -> Root<'s> {
    // Before the introspection switch: the refusal says why, which "turned off" would not.
    if let Some(entry) = sensitive::refused_statement(policy, statement) {
        let name = shown(statement);
        return Root::Refused(RejectKind::Sensitive { name, entry });
    }
    let introspection = |statement: &Statement| {
        if policy.allow_introspection {
            Root::Allowed(StatementKind::Introspection)
        } else {
            let statement = statement_name(statement);
            Root::Refused(RejectKind::IntrospectionDisabled { statement })
        }
    };
    match statement {
        Statement::Query(_) => Root::Allowed(StatementKind::Query),
        Statement::Explain {
            statement: inner,
            analyze,
            options,
            ..
        } => {
            let analyze_option = options
                .iter()
                .flatten()
                .any(|o| o.name.value.eq_ignore_ascii_case("analyze") && !is_false(o.arg.as_ref()));
            Root::Explain {
                inner,
                analyze: *analyze || analyze_option,
            }
        }
        Statement::ExplainTable { .. }
        | Statement::ShowFunctions { .. }
        | Statement::ShowVariable { .. }
        | Statement::ShowStatus { .. }
        | Statement::ShowVariables { .. }
        | Statement::ShowCreate { .. }
        | Statement::ShowColumns { .. }
        | Statement::ShowCatalogs { .. }
        | Statement::ShowDatabases { .. }
        | Statement::ShowSchemas { .. }
        | Statement::ShowCharset(_)
        | Statement::ShowObjects(_)
        | Statement::ShowTables { .. }
        | Statement::ShowViews { .. }
        | Statement::ShowCollation { .. }
        | Statement::ShowProcessList { .. } => introspection(statement),
        Statement::Pragma { name, value, .. } => {
            // SQLite's list ([`SqlitePragma`]), which its adapter's authorizer applies too. In
            // DuckDB only `table_info` and `database_list` (refused above as sensitive) of the
            // list are pragmas; the others fail there, and `PRAGMA x = v` is a SET, refused.
            let pragma = name
                .0
                .last()
                .map(|p| p.to_string().to_ascii_lowercase())
                .unwrap_or_default();
            let argument = value.as_ref().map(|v| v.value.to_string());
            if SqlitePragma::only_reads(&pragma, argument.as_deref()) {
                introspection(statement)
            } else {
                Root::Refused(RejectKind::NotAQuery {
                    statement: format!("PRAGMA {pragma}"),
                })
            }
        }
        _ => Root::Refused(RejectKind::NotAQuery {
            statement: statement_name(statement),
        }),
    }
}

/// SQLite pragmas whose argument is a table name.
const TABLE_PRAGMAS: &[&str] = &[
    "foreign_key_list",
    "index_list",
    "table_info",
    "table_list",
    "table_xinfo",
];

/// The table an introspection statement names outside the relations the walk visits: a
/// reporting pragma (`PRAGMA table_info('orders')`) or `SHOW CREATE TABLE|VIEW t`, so the
/// policy's table lists (and the sensitive catalogues) apply to it.
pub(crate) fn pragma_table(statement: &Statement) -> Option<TableName> {
    if let Statement::ShowCreate {
        obj_type: ShowCreateObject::Table | ShowCreateObject::View,
        obj_name,
    } = statement
    {
        return Some(TableName::from_object_name(obj_name));
    }
    let Statement::Pragma {
        name,
        value: Some(value),
        ..
    } = statement
    else {
        return None;
    };
    let pragma = name.0.last()?.as_ident()?.value.to_ascii_lowercase();
    TABLE_PRAGMAS.binary_search(&pragma.as_str()).ok()?;
    let table = match &value.value {
        Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => s.clone(),
        other => other.to_string(),
    };
    Some(TableName::new([table]))
}

/// A statement as the guard read it, cut to a length fit for a message.
fn shown(statement: &Statement) -> String {
    const MAX_CHARS: usize = 80;
    let text = statement.to_string();
    match text.char_indices().nth(MAX_CHARS) {
        Some((end, _)) => format!("{} …", &text[..end]),
        None => text,
    }
}

fn is_false(arg: Option<&Expr>) -> bool {
    match arg {
        Some(Expr::Value(v)) => match &v.value {
            Value::Boolean(b) => !b,
            Value::Number(n, _) => n == "0",
            Value::SingleQuotedString(s) => {
                s.eq_ignore_ascii_case("off") || s.eq_ignore_ascii_case("false")
            }
            _ => false,
        },
        Some(Expr::Identifier(i)) => {
            i.value.eq_ignore_ascii_case("off") || i.value.eq_ignore_ascii_case("false")
        }
        _ => false,
    }
}

/// A short upper-case name for a statement: `INSERT`, `CREATE TABLE`, `DROP VIEW`, `SET`.
pub(crate) fn statement_name(statement: &Statement) -> String {
    const MODIFIERS: &[&str] = &[
        "EXTERNAL",
        "GLOBAL",
        "IF",
        "LOCAL",
        "MATERIALIZED",
        "OR",
        "REPLACE",
        "SECURE",
        "TEMP",
        "TEMPORARY",
        "TRANSIENT",
        "UNIQUE",
        "UNLOGGED",
        "VOLATILE",
    ];
    let text = statement.to_string();
    let mut words = text.split_whitespace().map(|w| {
        w.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .to_ascii_uppercase()
    });
    let Some(first) = words.next() else {
        return "UNKNOWN".into();
    };
    if !matches!(
        first.as_str(),
        "CREATE" | "DROP" | "ALTER" | "SHOW" | "GRANT" | "REVOKE"
    ) {
        return first;
    }
    match words.find(|w| !MODIFIERS.contains(&w.as_str())) {
        Some(object) => format!("{first} {object}"),
        None => first,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_pragmas_are_sorted_and_take_an_object() {
        assert!(TABLE_PRAGMAS.windows(2).all(|w| w[0] < w[1]));
        for name in TABLE_PRAGMAS {
            let pragma = SqlitePragma::find(name).expect(name);
            assert_eq!(pragma.argument(), crate::PragmaArgument::Object, "{name}");
        }
    }
}
