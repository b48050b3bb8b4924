//! Attribute notation: in PostgreSQL, `x.f` is a call `f(x)` whenever `x` has no column or field
//! named `f` (`SELECT t.touch FROM t`, `('/etc/hostname'::text).pg_read_file`). The guard cannot
//! tell a column from a function by the name alone, so for the dialects that
//! [call functions through attributes](crate::SqlDialect::calls_functions_through_attributes):
//! - a name that is a denied function is refused wherever it is used as an attribute;
//! - a name that is a known side-effect-free built-in is harmless either way;
//! - any other name must be proven a column: the relation is a CTE or derived table whose
//!   columns the statement spells out, or a base table, in which case the name is reported
//!   ([`AttributeRef`]) for the adapter to check against the catalogue before the statement runs;
//!   a field selection on an expression (`(expr).name`) whose fields the guard cannot know is
//!   refused.
//!
//! The walk meets a column reference before the FROM clause that defines its qualifier, so the
//! references are collected first and resolved once the whole statement has been seen.

use sqlparser::ast::{
    Expr, Ident, ObjectName, Query, SelectItem, SetExpr, TableAlias, TableFactor,
};

use std::sync::Arc;

use crate::TableName;
use crate::rejection::Position;
use crate::table_name::NamePart;

/// A qualified name the statement uses as a column (`t.customer_id`, `s.t.customer_id`) that
/// PostgreSQL would run as the function call `customer_id(t)` if the relation had no such column.
/// The guard proves what it can from the statement itself; these are the references to base
/// tables (or relations whose columns the statement does not spell out) that only the database's
/// catalogue can prove. [`ReadOnlySql::attribute_refs`](crate::ReadOnlySql::attribute_refs) lists
/// them; the PostgreSQL adapter refuses the statement when a function of that name exists and the
/// relation has no such column.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AttributeRef {
    /// Shared with the binding it resolved through: a table's references share one name.
    relation: Option<Arc<TableName>>,
    name: NamePart,
}

impl AttributeRef {
    /// The base table the reference qualifies, as written (after resolving its alias); `None`
    /// when the guard cannot name it (a derived table with `*`, a table function, an alias used
    /// for several relations).
    pub fn relation(&self) -> Option<&TableName> {
        self.relation.as_deref()
    }

    /// The attribute as written.
    pub fn name(&self) -> &NamePart {
        &self.name
    }

    /// The attribute as PostgreSQL looks it up: unquoted names fold to lower case.
    pub fn folded_name(&self) -> String {
        match self.name.quote {
            Some(_) => self.name.value.clone(),
            None => self.name.value.to_ascii_lowercase(),
        }
    }
}

/// What a relation name in the statement stands for.
#[derive(Debug, Clone, PartialEq)]
enum Binding {
    /// A base table (or view).
    Table(Arc<TableName>),
    /// A CTE or derived table whose output columns the statement spells out.
    Columns(Vec<Ident>),
    /// Something whose columns the guard cannot know.
    Opaque,
}

/// A reference waiting for the whole statement to be seen.
#[derive(Debug)]
enum Pending {
    /// `q.name` or `schema.table.name`.
    Qualified {
        qualifier: Vec<Ident>,
        name: Ident,
        at: Option<Position>,
    },
    /// `(root).name`, where `root` may be a whole-row reference to a relation.
    Field {
        root: Option<Ident>,
        name: Ident,
        at: Option<Position>,
    },
}

/// How a pending reference resolved.
#[derive(Debug)]
pub(crate) enum Resolved {
    /// Provably a column or field.
    Column,
    /// Only the catalogue can tell.
    Report(AttributeRef),
    /// Provably not a column: a call of `name`, which nothing proves harmless.
    Call {
        written: String,
        call: String,
        at: Option<Position>,
    },
}

/// The attribute references and relation bindings of one statement.
#[derive(Debug, Default)]
pub(crate) struct Attributes {
    bindings: Vec<(Ident, Binding)>,
    ctes: Vec<(Ident, Option<Vec<Ident>>)>,
    pending: Vec<Pending>,
}

impl Attributes {
    /// Remembers the output columns of the CTEs `query` defines.
    pub(crate) fn define_ctes(&mut self, query: &Query) {
        let Some(with) = &query.with else { return };
        for cte in &with.cte_tables {
            let columns = aliased_columns(&cte.alias, output_columns(&cte.query));
            self.ctes.push((cte.alias.name.clone(), columns));
        }
    }

    /// Binds the name a FROM item is known by. `is_cte` tells whether a one-part table name
    /// refers to a CTE at this point of the walk.
    pub(crate) fn bind(&mut self, factor: &TableFactor, is_cte: bool) {
        let (key, binding) = match factor {
            TableFactor::Table {
                name, alias, args, ..
            } => {
                let Some(last) = name.0.last().and_then(|p| p.as_ident()) else {
                    return;
                };
                let key = alias.as_ref().map_or(last, |a| &a.name).clone();
                let binding = if args.is_some() {
                    Binding::Opaque
                } else if is_cte {
                    let columns = self
                        .ctes
                        .iter()
                        .rev()
                        .find(|(cte, _)| same_name(cte, last))
                        .and_then(|(_, columns)| columns.clone());
                    let columns = match alias {
                        Some(alias) => aliased_columns(alias, columns),
                        None => columns,
                    };
                    columns.map_or(Binding::Opaque, Binding::Columns)
                } else if alias.as_ref().is_some_and(|a| !a.columns.is_empty()) {
                    // `FROM t AS x(a, b)` renames the table's first columns: the rest are unknown.
                    Binding::Opaque
                } else {
                    Binding::Table(Arc::new(TableName::from_object_name(name)))
                };
                (key, binding)
            }
            TableFactor::Derived {
                subquery,
                alias: Some(alias),
                ..
            } => {
                let columns = aliased_columns(alias, output_columns(subquery));
                let binding = columns.map_or(Binding::Opaque, Binding::Columns);
                (alias.name.clone(), binding)
            }
            other => match table_factor_alias(other) {
                Some(alias) => (alias.name.clone(), Binding::Opaque),
                None => return,
            },
        };
        self.bindings.push((key, binding));
    }

    /// A qualified column reference `q.name` / `s.t.name`.
    pub(crate) fn qualified(&mut self, parts: &[Ident], at: Option<Position>) {
        if let Some((name, qualifier)) = parts.split_last() {
            self.pending.push(Pending::Qualified {
                qualifier: qualifier.to_vec(),
                name: name.clone(),
                at,
            });
        }
    }

    /// A field selection `(root).name`.
    pub(crate) fn field(&mut self, root: Option<&Expr>, name: &Ident, at: Option<Position>) {
        let root = root.map(strip_nesting);
        if root.is_some_and(|r| is_record_field(r, name)) {
            return;
        }
        let root = match root {
            Some(Expr::Identifier(ident)) => Some(ident.clone()),
            _ => None,
        };
        self.pending.push(Pending::Field {
            root,
            name: name.clone(),
            at,
        });
    }

    /// Resolves every pending reference against the bindings of the whole statement.
    pub(crate) fn resolve(&self) -> Vec<Resolved> {
        let mut resolved = Vec::with_capacity(self.pending.len());
        for pending in &self.pending {
            self.resolve_one(pending, &mut resolved);
        }
        resolved
    }

    /// Scopes are not tracked, so an alias bound in several places (`orders o` outside,
    /// `order_items o` in a subquery) must be a proven column, or a reported one, in each.
    fn resolve_one(&self, pending: &Pending, out: &mut Vec<Resolved>) {
        match pending {
            Pending::Qualified {
                qualifier,
                name,
                at,
            } => match qualifier.as_slice() {
                [alias] => {
                    let bindings = self.bindings_of(alias);
                    if bindings.is_empty() {
                        out.push(report(None, name));
                        return;
                    }
                    out.extend(bindings.into_iter().map(|binding| match binding {
                        Binding::Table(table) => report(Some(Arc::clone(table)), name),
                        Binding::Columns(columns) if has(columns, name) => Resolved::Column,
                        Binding::Columns(_) => {
                            call(&format!("{alias}.{name}"), name, &alias.to_string(), *at)
                        }
                        Binding::Opaque => report(None, name),
                    }));
                }
                // `schema.table.name`: only a base table has a qualified name.
                _ => {
                    let relation = ObjectName::from(qualifier.clone());
                    let table = TableName::from_object_name(&relation);
                    out.push(report(Some(Arc::new(table)), name));
                }
            },
            Pending::Field { root, name, at } => {
                let proven = root.as_ref().is_some_and(|r| {
                    let bindings = self.bindings_of(r);
                    !bindings.is_empty()
                        && bindings
                            .iter()
                            .all(|b| matches!(b, Binding::Columns(c) if has(c, name)))
                });
                if proven {
                    out.push(Resolved::Column);
                    return;
                }
                let value = root.as_ref().map_or("…".to_owned(), ToString::to_string);
                out.push(call(&format!("({value}).{name}"), name, &value, *at));
            }
        }
    }

    /// The distinct bindings of `alias` in the statement.
    fn bindings_of(&self, alias: &Ident) -> Vec<&Binding> {
        let mut found: Vec<&Binding> = Vec::new();
        for (key, binding) in &self.bindings {
            if same_name(key, alias) && !found.contains(&binding) {
                found.push(binding);
            }
        }
        found
    }
}

fn has(columns: &[Ident], name: &Ident) -> bool {
    columns.iter().any(|c| same_name(c, name))
}

fn report(relation: Option<Arc<TableName>>, name: &Ident) -> Resolved {
    Resolved::Report(AttributeRef {
        relation,
        name: NamePart::from_ident(name),
    })
}

fn call(written: &str, name: &Ident, argument: &str, at: Option<Position>) -> Resolved {
    Resolved::Call {
        written: written.to_owned(),
        call: format!("{name}({argument}) when {argument} has no column or field {name}"),
        at,
    }
}

/// Built-in functions that return a record, with the names of its fields:
/// `(json_each(j)).key` is a field, not a call.
const RECORD_FUNCTIONS: &[(&str, &[&str])] = &[
    (
        "aclexplode",
        &["grantor", "grantee", "privilege_type", "is_grantable"],
    ),
    ("json_each", &["key", "value"]),
    ("json_each_text", &["key", "value"]),
    ("jsonb_each", &["key", "value"]),
    ("jsonb_each_text", &["key", "value"]),
    ("pg_options_to_table", &["option_name", "option_value"]),
];

/// Whether `(root).name` selects a field of a built-in function's record result.
fn is_record_field(root: &Expr, name: &Ident) -> bool {
    let Expr::Function(function) = root else {
        return false;
    };
    let Some(called) = function.name.0.last().and_then(|p| p.as_ident()) else {
        return false;
    };
    let qualified_ok = match function.name.0.as_slice() {
        [_] => true,
        [schema, _] => schema.as_ident().is_some_and(|s| fold(s) == "pg_catalog"),
        _ => false,
    };
    qualified_ok
        && RECORD_FUNCTIONS.iter().any(|(f, fields)| {
            fold(called) == *f && fields.iter().any(|field| fold(name) == *field)
        })
}

fn strip_nesting(mut expr: &Expr) -> &Expr {
    while let Expr::Nested(inner) = expr {
        expr = inner;
    }
    expr
}

fn table_factor_alias(factor: &TableFactor) -> Option<&TableAlias> {
    match factor {
        TableFactor::Function { alias, .. }
        | TableFactor::UNNEST { alias, .. }
        | TableFactor::JsonTable { alias, .. }
        | TableFactor::OpenJsonTable { alias, .. }
        | TableFactor::TableFunction { alias, .. }
        | TableFactor::NestedJoin { alias, .. }
        | TableFactor::Pivot { alias, .. }
        | TableFactor::Unpivot { alias, .. }
        | TableFactor::MatchRecognize { alias, .. }
        | TableFactor::XmlTable { alias, .. }
        | TableFactor::SemanticView { alias, .. } => alias.as_ref(),
        _ => None,
    }
}

/// `AS x(a, b)` renames the first output columns; the rest keep their names.
fn aliased_columns(alias: &TableAlias, columns: Option<Vec<Ident>>) -> Option<Vec<Ident>> {
    if alias.columns.is_empty() {
        return columns;
    }
    let mut columns = columns?;
    for (i, renamed) in alias.columns.iter().enumerate() {
        match columns.get_mut(i) {
            Some(slot) => *slot = renamed.name.clone(),
            None => columns.push(renamed.name.clone()),
        }
    }
    Some(columns)
}

/// The output column names of a query, when each is certain: a column reference, an alias, or
/// a VALUES list (`column1`, …). `None` when any is not (`*`, an unaliased expression).
fn output_columns(query: &Query) -> Option<Vec<Ident>> {
    body_columns(&query.body)
}

fn body_columns(body: &SetExpr) -> Option<Vec<Ident>> {
    match body {
        SetExpr::Select(select) => select
            .projection
            .iter()
            .map(|item| match item {
                SelectItem::ExprWithAlias { alias, .. } => Some(alias.clone()),
                SelectItem::UnnamedExpr(Expr::Identifier(ident)) => Some(ident.clone()),
                SelectItem::UnnamedExpr(Expr::CompoundIdentifier(parts)) => parts.last().cloned(),
                _ => None,
            })
            .collect(),
        SetExpr::Query(query) => output_columns(query),
        SetExpr::SetOperation { left, .. } => body_columns(left),
        SetExpr::Values(values) => {
            let width = values.rows.first().map(|row| row.len())?;
            Some(
                (1..=width)
                    .map(|i| Ident::new(format!("column{i}")))
                    .collect(),
            )
        }
        _ => None,
    }
}

/// Whether two identifiers surely name the same thing in PostgreSQL (unquoted names fold to
/// lower case; quoted ones are exact). Compares in place: this runs for every qualified column
/// reference.
fn same_name(a: &Ident, b: &Ident) -> bool {
    match (a.quote_style, b.quote_style) {
        (None, None) => a.value.eq_ignore_ascii_case(&b.value),
        (Some(_), Some(_)) => a.value == b.value,
        (None, Some(_)) => folds_to(&a.value, &b.value),
        (Some(_), None) => folds_to(&b.value, &a.value),
    }
}

/// Whether the unquoted name `unquoted` folds to exactly `quoted`.
fn folds_to(unquoted: &str, quoted: &str) -> bool {
    unquoted.len() == quoted.len()
        && unquoted
            .bytes()
            .zip(quoted.bytes())
            .all(|(u, q)| u.to_ascii_lowercase() == q)
}

fn fold(ident: &Ident) -> std::borrow::Cow<'_, str> {
    match ident.quote_style {
        Some(_) => std::borrow::Cow::Borrowed(ident.value.as_str()),
        None => std::borrow::Cow::Owned(ident.value.to_ascii_lowercase()),
    }
}

#[cfg(test)]
mod tests {
    use crate::functions::testing::denied_names;
    use crate::{FunctionClass, Policy, RejectKind, SqlDialect, check};

    /// Every denied function, in every attribute position, is refused as the call it is, with
    /// the class the catalogue gives its ordinary call, in each dialect of the family.
    #[test]
    fn every_denied_function_is_refused_as_an_attribute() {
        let policy = Policy::default();
        let mut checked = 0;
        for dialect in SqlDialect::ALL
            .into_iter()
            .filter(|d| d.calls_functions_through_attributes())
        {
            for name in denied_names() {
                let class = match check(&format!("SELECT \"{name}\"(1)"), dialect, &policy) {
                    Err(r) => match r.kind() {
                        RejectKind::Function { class, .. } => *class,
                        other => panic!("{dialect}: {name}(1) refused as {other:?}"),
                    },
                    Ok(_) => continue,
                };
                if class == FunctionClass::Unknown {
                    continue; // Denied only in other engines (DuckDB's `glob`).
                }
                for form in [
                    "SELECT (1).\"{}\"",
                    "SELECT ('/etc/passwd'::text).\"{}\"",
                    "SELECT (SELECT 1).\"{}\"",
                    "SELECT t.\"{}\" FROM t",
                    "SELECT s.t.\"{}\" FROM s.t",
                    "SELECT 1 FROM t WHERE t.\"{}\" IS NULL",
                    "SELECT 1 FROM t GROUP BY t.\"{}\"",
                    "SELECT 1 FROM a JOIN b ON a.id = b.\"{}\"",
                    "WITH c AS (SELECT 1 AS a) SELECT c.\"{}\" FROM c",
                    "SELECT d.\"{}\" FROM (SELECT 1 AS a) d",
                    "SELECT (SELECT x.\"{}\" FROM t x)",
                    "SELECT (x).a.\"{}\" FROM t",
                ] {
                    let sql = form.replace("{}", &name);
                    match check(&sql, dialect, &policy) {
                        Err(r) => match r.kind() {
                            RejectKind::ImplicitCall { class: got, .. } => {
                                assert_eq!(*got, class, "{dialect}: {sql}");
                            }
                            other => panic!("{dialect}: {sql}: refused as {other:?}"),
                        },
                        Ok(ok) => panic!("{dialect}: {sql} passed as {:?}", ok.sql()),
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 1_000, "only {checked} statements checked");
    }

    /// Unknown names on base tables pass the guard and are reported for the catalogue check;
    /// proven columns are not reported.
    #[test]
    fn base_table_attributes_are_reported() {
        let sql = "SELECT t.touch, o.id, s.x.total, c.id, d.a \
                   FROM s.t t JOIN orders o ON o.id = t.id, s.x, \
                   (SELECT 1 AS a) d, LATERAL (SELECT * FROM y) c";
        let ok = check(sql, SqlDialect::Postgres, &Policy::default()).expect("passes");
        let reported: Vec<(Option<String>, String)> = ok
            .attribute_refs()
            .iter()
            .map(|r| (r.relation().map(ToString::to_string), r.folded_name()))
            .collect();
        let expected = [
            (Some("s.t"), "touch"),
            (Some("orders"), "id"),
            (Some("s.x"), "total"),
            (None, "id"),
            (Some("s.t"), "id"),
        ];
        let expected: Vec<(Option<String>, String)> = expected
            .iter()
            .map(|(t, n)| (t.map(str::to_owned), (*n).to_owned()))
            .collect();
        assert_eq!(reported, expected);
        let mysql = check(
            sql.replace("LATERAL ", "").as_str(),
            SqlDialect::MySql,
            &Policy::default(),
        );
        assert!(mysql.expect("passes").attribute_refs().is_empty());
    }

    /// Quoted attribute names keep their case; unquoted ones fold as PostgreSQL folds them.
    #[test]
    fn reported_names_fold_like_postgres() {
        let ok = check(
            r#"SELECT t."Touch", t.TOUCH FROM t"#,
            SqlDialect::Postgres,
            &Policy::default(),
        )
        .expect("passes");
        let names: Vec<String> = ok
            .attribute_refs()
            .iter()
            .map(|r| r.folded_name())
            .collect();
        assert_eq!(names, ["Touch", "touch"]);
    }
}
