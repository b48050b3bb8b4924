//! Table names as the statement wrote them, and the patterns a policy matches them with.

use std::fmt;

use sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, ObjectNamePart, ObjectNamePartFunction, Value,
};

/// One part of a possibly qualified name, with whether it was quoted.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NamePart {
    /// The identifier without its quotes.
    pub value: String,
    /// The quote character, when the identifier was quoted (`"`, `` ` ``, `[`).
    pub quote: Option<char>,
}

impl NamePart {
    pub(crate) fn from_ident(ident: &sqlparser::ast::Ident) -> Self {
        NamePart {
            value: ident.value.clone(),
            quote: ident.quote_style,
        }
    }

    /// Whether this part names `name`: exact for quoted identifiers, ASCII case-insensitive
    /// for unquoted ones (the way engines fold unquoted names).
    pub fn matches(&self, name: &str) -> bool {
        match self.quote {
            Some(_) => self.value == name,
            None => self.value.eq_ignore_ascii_case(name),
        }
    }
}

impl fmt::Display for NamePart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.quote {
            None => f.write_str(&self.value),
            Some(open) => {
                let close = if open == '[' { ']' } else { open };
                write!(f, "{open}")?;
                for c in self.value.chars() {
                    if c == close {
                        write!(f, "{c}")?;
                    }
                    write!(f, "{c}")?;
                }
                write!(f, "{close}")
            }
        }
    }
}

/// A relation a statement reads, qualified exactly as written (`orders`, `sales.orders`,
/// `"Sales"."Orders"`). Common table expressions are not tables and never appear here.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TableName {
    parts: Vec<NamePart>,
}

impl TableName {
    pub(crate) fn from_object_name(name: &sqlparser::ast::ObjectName) -> Self {
        let mut parts = Vec::with_capacity(name.0.len());
        for part in &name.0 {
            match part {
                ObjectNamePart::Identifier(ident) => parts.push(NamePart::from_ident(ident)),
                ObjectNamePart::Function(function) => match identifier_literal(function) {
                    // Snowflake's `IDENTIFIER('db.schema.t')` names `db.schema.t`: read it so,
                    // or the policy's lists would never see the table.
                    Some(literal) => parts.extend(literal.split('.').map(|p| {
                        match p.strip_prefix('"').and_then(|p| p.strip_suffix('"')) {
                            Some(quoted) => NamePart {
                                value: quoted.replace("\"\"", "\""),
                                quote: Some('"'),
                            },
                            None => NamePart {
                                value: p.to_owned(),
                                quote: None,
                            },
                        }
                    })),
                    None => parts.push(NamePart {
                        value: part.to_string(),
                        quote: None,
                    }),
                },
            }
        }
        TableName { parts }
    }

    /// Whether a part of the name is computed when the statement runs (`IDENTIFIER($table)`),
    /// so no list can say which table it is.
    pub(crate) fn is_computed(&self) -> bool {
        // An unquoted identifier never holds a parenthesis; a printed name function does.
        self.parts
            .iter()
            .any(|p| p.quote.is_none() && p.value.contains('('))
    }

    /// A name from unquoted parts, outermost first (`["sales", "orders"]`).
    pub fn new<S: Into<String>>(parts: impl IntoIterator<Item = S>) -> Self {
        let parts = parts
            .into_iter()
            .map(|p| NamePart {
                value: p.into(),
                quote: None,
            })
            .collect();
        TableName { parts }
    }

    /// All parts, outermost first (`[catalog, schema, table]`).
    pub fn parts(&self) -> &[NamePart] {
        &self.parts
    }

    /// The last part: the table's own name.
    pub fn name(&self) -> &str {
        self.parts.last().map_or("", |p| p.value.as_str())
    }

    /// The part before the name (the schema or dataset), when the name is qualified.
    pub fn schema(&self) -> Option<&str> {
        let n = self.parts.len();
        (n >= 2).then(|| self.parts[n - 2].value.as_str())
    }
}

/// The string of `IDENTIFIER('…')` when it is a literal.
fn identifier_literal(function: &ObjectNamePartFunction) -> Option<&str> {
    if !function.name.value.eq_ignore_ascii_case("identifier") {
        return None;
    }
    match function.args.as_slice() {
        [FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(v)))] => match &v.value {
            Value::SingleQuotedString(s) => Some(s),
            _ => None,
        },
        _ => None,
    }
}

impl fmt::Display for TableName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, part) in self.parts.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            write!(f, "{part}")?;
        }
        Ok(())
    }
}

/// A table in a policy's allowlist or denylist: `orders`, `sales.orders` or `sales.*`.
///
/// Matching is ASCII case-insensitive and looks at the trailing parts the pattern names:
/// `orders` matches `orders` in any schema; `sales.orders` matches `sales.orders`,
/// `db.sales.orders`, and the unqualified `orders` (the engine's search path may resolve it
/// there); `sales.*` matches every table written with the schema `sales`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TablePattern {
    schema: Option<String>,
    table: Option<String>,
}

impl TablePattern {
    /// Parses `table`, `schema.table`, `schema.*` or `*` (every table). Surrounding quotes
    /// are not interpreted.
    pub fn new(pattern: &str) -> Self {
        let pattern = pattern.trim();
        if pattern == "*" {
            return TablePattern {
                schema: None,
                table: None,
            };
        }
        match pattern.rsplit_once('.') {
            Some((schema, table)) => TablePattern {
                schema: Some(schema.rsplit('.').next().unwrap_or(schema).to_owned()),
                table: (table != "*").then(|| table.to_owned()),
            },
            None => TablePattern {
                schema: None,
                table: Some(pattern.to_owned()),
            },
        }
    }

    /// Whether the pattern names every table of a schema (`sales.*`).
    pub(crate) fn is_schema_wildcard(&self) -> bool {
        self.schema.is_some() && self.table.is_none()
    }

    /// Whether `name` is one of the tables this pattern names.
    pub fn matches(&self, name: &TableName) -> bool {
        let table_ok = match &self.table {
            Some(table) => name.name().eq_ignore_ascii_case(table),
            None => true,
        };
        let schema_ok = match (&self.schema, name.schema()) {
            (None, _) => true,
            (Some(want), Some(have)) => have.eq_ignore_ascii_case(want),
            // An unqualified reference may resolve into the pattern's schema; a wildcard pattern
            // (`sales.*`) cannot know, so it matches only names that spell the schema out.
            (Some(_), None) => self.table.is_some(),
        };
        table_ok && schema_ok
    }
}

impl fmt::Display for TablePattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(schema) = &self.schema {
            write!(f, "{schema}.")?;
        }
        f.write_str(self.table.as_deref().unwrap_or("*"))
    }
}

impl From<&str> for TablePattern {
    fn from(pattern: &str) -> Self {
        TablePattern::new(pattern)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(parts: &[&str]) -> TableName {
        TableName {
            parts: parts
                .iter()
                .map(|p| NamePart {
                    value: (*p).to_owned(),
                    quote: None,
                })
                .collect(),
        }
    }

    #[test]
    fn bare_pattern_matches_the_name_in_any_schema() {
        let p = TablePattern::new("Orders");
        assert!(p.matches(&name(&["orders"])));
        assert!(p.matches(&name(&["sales", "ORDERS"])));
        assert!(!p.matches(&name(&["orders_archive"])));
    }

    #[test]
    fn qualified_pattern_matches_its_schema_and_unqualified_names() {
        let p = TablePattern::new("sales.orders");
        assert!(p.matches(&name(&["db", "sales", "orders"])));
        assert!(p.matches(&name(&["orders"])));
        assert!(!p.matches(&name(&["public", "orders"])));
    }

    #[test]
    fn schema_wildcard_matches_only_that_schema() {
        let p = TablePattern::new("hr.*");
        assert!(p.matches(&name(&["hr", "salaries"])));
        assert!(!p.matches(&name(&["salaries"])));
        assert_eq!(p.to_string(), "hr.*");
    }

    #[test]
    fn quoted_parts_display_with_their_quotes_escaped() {
        let n = TableName {
            parts: vec![
                NamePart {
                    value: "My \"Schema\"".into(),
                    quote: Some('"'),
                },
                NamePart {
                    value: "t]x".into(),
                    quote: Some('['),
                },
            ],
        };
        assert_eq!(n.to_string(), "\"My \"\"Schema\"\"\".[t]]x]");
    }
}
