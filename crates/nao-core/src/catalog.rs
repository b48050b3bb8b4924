//! What adapters report about the database's tables and columns.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Which tables [`Dialect::list_tables`](crate::Dialect::list_tables) returns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TableFilter {
    /// Only tables in this schema (dataset, database), compared case-insensitively.
    pub schema: Option<String>,
    /// Only tables whose name contains this text, case-insensitively (`*` and `%` match any
    /// run of characters).
    pub pattern: Option<String>,
}

impl TableFilter {
    /// Only tables in `schema`.
    #[must_use]
    pub fn with_schema(mut self, schema: impl Into<String>) -> Self {
        self.schema = Some(schema.into());
        self
    }

    /// Only tables whose name matches `pattern`.
    #[must_use]
    pub fn with_pattern(mut self, pattern: impl Into<String>) -> Self {
        self.pattern = Some(pattern.into());
        self
    }

    /// Whether a table passes the filter.
    pub fn matches(&self, schema: Option<&str>, name: &str) -> bool {
        let schema_ok = match (&self.schema, schema) {
            (None, _) => true,
            (Some(want), Some(have)) => want.eq_ignore_ascii_case(have),
            (Some(_), None) => false,
        };
        schema_ok
            && self
                .pattern
                .as_deref()
                .is_none_or(|p| wildcard_contains(name, p))
    }
}

/// Case-insensitive "contains", where `*` and `%` in the pattern match any run of characters.
fn wildcard_contains(name: &str, pattern: &str) -> bool {
    let name = name.to_lowercase();
    let pattern = pattern.to_lowercase();
    let mut rest = name.as_str();
    for piece in pattern.split(['*', '%']).filter(|p| !p.is_empty()) {
        match rest.find(piece) {
            Some(i) => rest = &rest[i + piece.len()..],
            None => return false,
        }
    }
    true
}

/// A table or view as a catalogue lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TableInfo {
    /// The schema (dataset, database), when the engine has schemas.
    pub schema: Option<String>,
    /// The table's name.
    pub name: String,
    /// Table, view, …
    pub kind: TableKind,
    /// The table's comment, when it has one.
    pub comment: Option<String>,
    /// Rows, when the engine knows without counting (statistics may be stale).
    pub estimated_rows: Option<u64>,
}

impl TableInfo {
    /// A table with a name only.
    pub fn new(schema: Option<String>, name: impl Into<String>, kind: TableKind) -> Self {
        TableInfo {
            schema,
            name: name.into(),
            kind,
            comment: None,
            estimated_rows: None,
        }
    }

    /// With its comment (`None` or blank: none).
    #[must_use]
    pub fn with_comment(mut self, comment: Option<String>) -> Self {
        self.comment = non_blank(comment);
        self
    }

    /// With the engine's row estimate.
    #[must_use]
    pub fn with_estimated_rows(mut self, rows: Option<u64>) -> Self {
        self.estimated_rows = rows;
        self
    }

    /// The reference to this table.
    pub fn table_ref(&self) -> TableRef {
        TableRef {
            schema: self.schema.clone(),
            name: self.name.clone(),
        }
    }
}

/// The kind of a relation in the catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TableKind {
    /// A base table.
    Table,
    /// A view.
    View,
    /// A materialized view.
    MaterializedView,
    /// Anything else the engine lists (foreign tables, system tables, …).
    Other,
}

impl fmt::Display for TableKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TableKind::Table => "table",
            TableKind::View => "view",
            TableKind::MaterializedView => "materialized view",
            TableKind::Other => "other",
        })
    }
}

/// A table named by the model or the host: `name` or `schema.name`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TableRef {
    /// The schema, when given.
    pub schema: Option<String>,
    /// The table's name.
    pub name: String,
}

impl TableRef {
    /// Parses `name` or `schema.name` (the last dot splits; no quoting is interpreted).
    pub fn parse(text: &str) -> Self {
        let text = text.trim();
        match text.rsplit_once('.') {
            Some((schema, name)) if !schema.is_empty() && !name.is_empty() => TableRef {
                schema: Some(schema.to_owned()),
                name: name.to_owned(),
            },
            _ => TableRef {
                schema: None,
                name: text.to_owned(),
            },
        }
    }
}

impl fmt::Display for TableRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.schema {
            Some(schema) => write!(f, "{schema}.{}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

/// A table's columns, as [`Dialect::describe_table`](crate::Dialect::describe_table) reports them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TableSchema {
    /// The table.
    pub table: TableRef,
    /// Its comment, when it has one.
    pub comment: Option<String>,
    /// Its columns, in order.
    pub columns: Vec<ColumnInfo>,
}

impl TableSchema {
    /// A table schema without a comment.
    pub fn new(table: TableRef, columns: Vec<ColumnInfo>) -> Self {
        TableSchema {
            table,
            comment: None,
            columns,
        }
    }

    /// With the table's comment (`None` or blank: none).
    #[must_use]
    pub fn with_comment(mut self, comment: Option<String>) -> Self {
        self.comment = non_blank(comment);
        self
    }
}

/// One column of a table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct ColumnInfo {
    /// The column's name.
    pub name: String,
    /// The engine's type name as declared (`numeric(12,2)`, `TEXT`, `TIMESTAMP WITH TIME ZONE`).
    pub engine_type: String,
    /// Whether the column may hold NULL (`true` when the engine does not say).
    pub nullable: bool,
    /// The column's comment, when it has one.
    pub comment: Option<String>,
    /// How the host's policy masks the column's values in results
    /// ([`Policy::mask_column`](nao_guard::Policy::mask_column)); set by the policy layer
    /// ([`GovernedDialect`](crate::GovernedDialect)), `None` from adapters. Serialized as
    /// the rule's text (`"hash"`, `"partial:4"`).
    #[serde(
        default,
        with = "mask_rule_text",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<String>")]
    pub mask: Option<nao_guard::MaskRule>,
}

impl ColumnInfo {
    /// A column without a comment.
    pub fn new(name: impl Into<String>, engine_type: impl Into<String>, nullable: bool) -> Self {
        ColumnInfo {
            name: name.into(),
            engine_type: engine_type.into(),
            nullable,
            comment: None,
            mask: None,
        }
    }

    /// With its comment (`None` or blank: none).
    #[must_use]
    pub fn with_comment(mut self, comment: Option<String>) -> Self {
        self.comment = non_blank(comment);
        self
    }
}

/// Engines report a missing comment as NULL or as an empty string: both are none.
fn non_blank(comment: Option<String>) -> Option<String> {
    comment.filter(|c| !c.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_comments_are_no_comments() {
        let info = TableInfo::new(None, "t", TableKind::Table)
            .with_comment(Some("  ".into()))
            .with_estimated_rows(Some(3));
        assert_eq!((info.comment, info.estimated_rows), (None, Some(3)));
        let column = ColumnInfo::new("c", "TEXT", true).with_comment(Some("the c".into()));
        assert_eq!(column.comment.as_deref(), Some("the c"));
        let schema =
            TableSchema::new(TableRef::parse("t"), vec![column]).with_comment(Some(String::new()));
        assert_eq!(schema.comment, None);
    }

    #[test]
    fn filter_matches_schema_and_wildcard_pattern() {
        let f = TableFilter::default()
            .with_schema("Sales")
            .with_pattern("ord*item");
        assert!(f.matches(Some("sales"), "order_items"));
        assert!(!f.matches(Some("hr"), "order_items"));
        assert!(!f.matches(None, "order_items"));
        assert!(!f.matches(Some("sales"), "items_order"));
        assert!(
            TableFilter::default()
                .with_pattern("CUST")
                .matches(None, "customers")
        );
    }

    #[test]
    fn table_refs_parse_and_display() {
        assert_eq!(TableRef::parse("sales.orders").to_string(), "sales.orders");
        assert_eq!(
            TableRef::parse("orders"),
            TableRef {
                schema: None,
                name: "orders".into()
            }
        );
        assert_eq!(TableRef::parse(".orders").schema, None);
    }
}

/// A masking rule as its text in JSON (nao-guard has no serde).
mod mask_rule_text {
    use nao_guard::MaskRule;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(
        rule: &Option<MaskRule>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match rule {
            Some(rule) => serializer.collect_str(rule),
            None => serializer.serialize_none(),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<MaskRule>, D::Error> {
        Option::<String>::deserialize(deserializer)?
            .map(|text| text.parse().map_err(serde::de::Error::custom))
            .transpose()
    }
}
