//! The catalogue's half of the attribute-notation check. PostgreSQL runs `t.name` as the call
//! `name(t)` when `t` has no column `name`; the guard proves what it can from the statement and
//! lists the rest ([`ReadOnlySql::attribute_refs`]). Before the statement runs, in the same
//! transaction (so with the same snapshot), one query asks the catalogue which of those names
//! could be such a call: a function of that name exists (in any schema: the check does not try
//! to follow PostgreSQL's overload resolution) and the relation has no column of that name (or
//! the guard could not name the relation). Any such name refuses the statement.
//!
//! The query rides in the batch that starts the transaction, so it costs no round trip.

use nao_core::DialectError;
use nao_core::guard::{AttributeRef, ReadOnlySql};
use tokio_postgres::SimpleQueryMessage;

/// The references of one statement, as the check needs them.
#[derive(Debug, Clone, Default)]
pub(super) struct AttributeCheck {
    /// (relation as written, or none; the attribute as PostgreSQL looks it up).
    refs: Vec<(Option<String>, String)>,
}

impl AttributeCheck {
    pub(super) fn of(sql: &ReadOnlySql) -> Self {
        let refs = sql.attribute_refs().iter().map(pair).collect();
        AttributeCheck { refs }
    }

    /// The query that takes the transaction's snapshot: it returns the names that could be
    /// calls (no rows when there is nothing to check).
    pub(super) fn snapshot_query(&self) -> String {
        if self.refs.is_empty() {
            return "SELECT 1 WHERE false".to_owned();
        }
        let relations: Vec<String> = self
            .refs
            .iter()
            .map(|(relation, _)| relation.as_deref().map_or("NULL".to_owned(), literal))
            .collect();
        let names: Vec<String> = self.refs.iter().map(|(_, name)| literal(name)).collect();
        format!(
            "SELECT a.rel, a.name \
             FROM unnest(ARRAY[{}]::text[], ARRAY[{}]::text[]) AS a(rel, name) \
             WHERE EXISTS (SELECT 1 FROM pg_catalog.pg_proc p WHERE p.proname = a.name) \
               AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute c \
                 WHERE a.rel IS NOT NULL \
                   AND c.attrelid = pg_catalog.to_regclass(a.rel) \
                   AND c.attname = a.name AND c.attnum > 0 AND NOT c.attisdropped)",
            relations.join(", "),
            names.join(", ")
        )
    }

    /// The refusal, when the snapshot query found a name that could be a call.
    pub(super) fn verdict(
        &self,
        database: &str,
        messages: &[SimpleQueryMessage],
    ) -> Result<(), DialectError> {
        let found = messages.iter().find_map(|m| match m {
            SimpleQueryMessage::Row(row) => Some((row.get(0), row.get(1).unwrap_or("?"))),
            _ => None,
        });
        let Some((relation, name)) = found else {
            return Ok(());
        };
        let written = match relation {
            Some(relation) => format!("{relation}.{name}"),
            None => format!("….{name}"),
        };
        Err(DialectError::Permission {
            database: database.to_owned(),
            message: format!(
                "{written} is not a column there, and PostgreSQL would run it as a call of the \
                 function {name}() on the row (attribute notation), which is not allowed. Check \
                 the column names with describe_table; to use a function, call it explicitly."
            ),
            code: None,
        })
    }
}

fn pair(reference: &AttributeRef) -> (Option<String>, String) {
    (
        reference.relation().map(ToString::to_string),
        reference.folded_name(),
    )
}

/// A string literal, with `standard_conforming_strings = on` (set on every connection).
fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}
