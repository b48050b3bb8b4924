//! The uses of masked columns inside expressions: which are allowed (selected as they are,
//! compared for equality, grouped, counted) and which would reveal their values.

use std::collections::HashSet;
use std::ops::ControlFlow;

use sqlparser::ast::{
    BinaryOperator, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, InTarget, ObjectName,
    Query, Visit, Visitor, WindowType,
};

use super::scope::{Resolved, Scope};
use super::{Analyzer, Refusal};

/// How a subquery's result is used by the expression around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SubqueryUse {
    /// As a value: masked outputs would flow into it.
    Value,
    /// Compared for equality (`x IN (SELECT …)`, `x = (SELECT …)`).
    Compared,
    /// Only whether it has rows (`EXISTS`).
    Exists,
}

/// Walks one clause's expressions and refuses the first use of a masked column that is not
/// allowed. Subqueries are analysed as queries of their own, inside `scope`.
pub(super) struct Uses<'a, 'p> {
    analyzer: &'a Analyzer<'a>,
    scope: &'a Scope<'p>,
    /// Where the walk is ("the select list", "WHERE"), for the refusal.
    clause: &'a str,
    /// Expressions in a position where a masked column may stand as it is.
    allowed: HashSet<*const Expr>,
    subqueries: Vec<(*const Query, SubqueryUse)>,
    /// Nesting of subqueries below the clause (0: the clause itself).
    depth: usize,
    /// What encloses the current expression, for the refusal ("lower()", "the LIKE operator").
    enclosing: Vec<String>,
    refusal: Option<Refusal>,
}

impl<'a, 'p> Uses<'a, 'p> {
    pub(super) fn new(analyzer: &'a Analyzer<'a>, scope: &'a Scope<'p>, clause: &'a str) -> Self {
        Uses {
            analyzer,
            scope,
            clause,
            allowed: HashSet::new(),
            subqueries: Vec::new(),
            depth: 0,
            enclosing: Vec::new(),
            refusal: None,
        }
    }

    /// Lets a masked column stand as it is at `expr` (through parentheses).
    pub(super) fn allow(&mut self, mut expr: &Expr) {
        loop {
            self.allowed.insert(expr);
            match expr {
                Expr::Nested(inner) => expr = inner,
                Expr::Subquery(query) => {
                    self.subqueries.push((&**query, SubqueryUse::Compared));
                    return;
                }
                _ => return,
            }
        }
    }

    /// Walks `node`; the first refusal, if any.
    pub(super) fn check<T: Visit>(mut self, node: &T) -> Result<(), Refusal> {
        let _ = node.visit(&mut self);
        match self.refusal {
            Some(refusal) => Err(refusal),
            None => Ok(()),
        }
    }

    fn refuse(&mut self, column: String, usage: String, at: Option<&sqlparser::ast::Ident>) {
        if self.refusal.is_none() {
            self.refusal = Some(Refusal::new(column, usage, at));
        }
    }

    fn refuse_construct(&mut self, usage: String) {
        if self.refusal.is_none() {
            self.refusal = Some(Refusal::construct(usage));
        }
    }

    fn where_(&self) -> String {
        match self.enclosing.last() {
            Some(what) => format!("it is used in {what} in {}", self.clause),
            None => format!("it is used in {}", self.clause),
        }
    }

    fn reference(&mut self, expr: &Expr, parts: &[sqlparser::ast::Ident]) {
        let allowed = self.allowed.contains(&(expr as *const Expr));
        match self.scope.resolve(parts) {
            Resolved::Plain => {}
            Resolved::Column(_) if allowed => self.analyzer.touch(),
            Resolved::Column(mask) => {
                let usage = self.where_();
                self.refuse(mask.source, usage, parts.first());
            }
            Resolved::Field(mask) => {
                let usage = format!("a field of it is read in {}", self.clause);
                self.refuse(mask.source, usage, parts.first());
            }
            Resolved::WholeRow(relation) => {
                let usage = format!(
                    "the whole row of {relation}, which has a masked column, is read in {}",
                    self.clause
                );
                self.refuse_construct(usage);
            }
        }
    }

    /// The relations a `*` (`qualifier.*`, or every relation at this level) reads.
    fn starred(&self, qualifier: Option<&ObjectName>) -> Vec<&super::scope::Source> {
        match qualifier {
            Some(name) => {
                let last = name
                    .0
                    .last()
                    .and_then(|p| p.as_ident())
                    .map(|i| i.value.as_str());
                last.map_or_else(Vec::new, |l| self.scope.sources_named(l))
            }
            None => self.scope.sources.iter().collect(),
        }
    }

    /// `f(t.*)`, `f(*)`, `COLUMNS(…)`: reads every column of the relations, which is refused
    /// when one has masked columns (unless only counted) and noted when one has denied ones.
    fn wildcard_argument(&mut self, function: &str, qualifier: Option<&ObjectName>, counted: bool) {
        let starred = self.starred(qualifier);
        for source in &starred {
            self.analyzer.expand(&source.outputs);
        }
        let masked = starred
            .iter()
            .find(|s| s.outputs.has_masks())
            .map(|s| s.name.clone().unwrap_or_else(|| "a subquery".to_owned()));
        if let (Some(relation), false) = (masked, counted) {
            let usage = format!(
                "{function} reads every column of {relation}, which has a masked column, in {}",
                self.clause
            );
            self.refuse_construct(usage);
        }
    }

    fn function(&mut self, f: &sqlparser::ast::Function) {
        let parts: Vec<&sqlparser::ast::Ident> =
            f.name.0.iter().filter_map(|p| p.as_ident()).collect();
        let name = parts
            .last()
            .map_or(String::new(), |i| i.value.to_ascii_lowercase());
        // `email.lower()`: DuckDB's method call on a column.
        if parts.len() > 1 {
            let receiver: Vec<_> = parts[..parts.len() - 1]
                .iter()
                .map(|&i| i.clone())
                .collect();
            if let Resolved::Column(mask) | Resolved::Field(mask) = self.scope.resolve(&receiver) {
                let usage = format!("{name}() is called on it in {}", self.clause);
                self.refuse(mask.source, usage, receiver.first());
            }
        }
        if let FunctionArguments::List(list) = &f.args {
            for arg in &list.args {
                let arg = match arg {
                    FunctionArg::Named { arg, .. }
                    | FunctionArg::ExprNamed { arg, .. }
                    | FunctionArg::Unnamed(arg) => arg,
                };
                let counted = name == "count";
                match arg {
                    // count(col), count(DISTINCT col): how many, never which.
                    FunctionArgExpr::Expr(e) if counted => self.allow(e),
                    FunctionArgExpr::Expr(_) => {}
                    FunctionArgExpr::QualifiedWildcard(q) => {
                        self.wildcard_argument(&format!("{name}()"), Some(q), counted)
                    }
                    // count(*) counts rows.
                    FunctionArgExpr::Wildcard | FunctionArgExpr::WildcardWithOptions(_)
                        if counted => {}
                    FunctionArgExpr::Wildcard | FunctionArgExpr::WildcardWithOptions(_) => {
                        self.wildcard_argument(&format!("{name}()"), None, false)
                    }
                }
            }
        }
        // DuckDB's and ClickHouse's `COLUMNS('regex')` selects columns by pattern, like `*`.
        if name == "columns" {
            self.wildcard_argument("COLUMNS(…)", None, false);
        }
        // PARTITION BY splits rows by equality; ORDER BY in a window sorts by the value, which
        // stays refused.
        if let Some(WindowType::WindowSpec(spec)) = &f.over {
            for e in &spec.partition_by {
                self.allow(e);
            }
        }
    }

    fn label(expr: &Expr) -> String {
        match expr {
            Expr::Function(f) => format!("{}()", f.name),
            Expr::BinaryOp { op, .. } => format!("the {op} operator"),
            Expr::UnaryOp { op, .. } => format!("the {op} operator"),
            Expr::Like { .. } | Expr::ILike { .. } => "LIKE".to_owned(),
            Expr::SimilarTo { .. } | Expr::RLike { .. } => "a pattern match".to_owned(),
            Expr::Between { .. } => "BETWEEN".to_owned(),
            Expr::Cast { .. } => "a cast".to_owned(),
            Expr::Case { .. } => "CASE".to_owned(),
            Expr::Collate { .. } => "COLLATE".to_owned(),
            Expr::Substring { .. } => "SUBSTRING".to_owned(),
            Expr::Position { .. } => "POSITION".to_owned(),
            Expr::Trim { .. } => "TRIM".to_owned(),
            Expr::Extract { .. } => "EXTRACT".to_owned(),
            _ => "an expression".to_owned(),
        }
    }
}

impl Visitor for Uses<'_, '_> {
    type Break = ();

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        if self.depth == 0 {
            let key: *const Query = query;
            let usage = self
                .subqueries
                .iter()
                .find(|(q, _)| *q == key)
                .map_or(SubqueryUse::Value, |(_, u)| *u);
            match self.analyzer.query(query, self.scope) {
                Err(refusal) => {
                    if self.refusal.is_none() {
                        self.refusal = Some(refusal);
                    }
                }
                Ok(outputs) if usage == SubqueryUse::Value => {
                    if let Some((_, mask)) = outputs.masked_names().into_iter().next() {
                        let usage = format!(
                            "a subquery that returns it is used as a value in {}",
                            self.clause
                        );
                        self.refuse(mask.source, usage, None);
                    }
                }
                Ok(_) => {}
            }
        }
        self.depth += 1;
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _query: &Query) -> ControlFlow<()> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        if self.depth > 0 {
            return ControlFlow::Continue(());
        }
        let allowed = self.allowed.contains(&(expr as *const Expr));
        match expr {
            Expr::BinaryOp {
                left,
                op: BinaryOperator::Eq | BinaryOperator::NotEq | BinaryOperator::Spaceship,
                right,
            }
            | Expr::IsDistinctFrom(left, right)
            | Expr::IsNotDistinctFrom(left, right) => {
                self.allow(left);
                self.allow(right);
            }
            Expr::IsNull(e) | Expr::IsNotNull(e) => self.allow(e),
            Expr::In {
                expr: e, target, ..
            } => {
                self.allow(e);
                match target {
                    InTarget::List(list) => list.iter().for_each(|item| self.allow(item)),
                    InTarget::Subquery(query) => {
                        self.subqueries.push((&**query, SubqueryUse::Compared))
                    }
                    _ => {}
                }
            }
            Expr::Exists { subquery, .. } => {
                self.subqueries.push((&**subquery, SubqueryUse::Exists));
            }
            Expr::Case {
                operand: Some(operand),
                conditions,
                ..
            } => {
                // `CASE email WHEN 'x' THEN …` compares for equality.
                self.allow(operand);
                conditions.iter().for_each(|c| self.allow(&c.condition));
            }
            Expr::GroupingSets(sets) | Expr::Cube(sets) | Expr::Rollup(sets) => {
                sets.iter().flatten().for_each(|e| self.allow(e));
            }
            Expr::Function(f) => self.function(f),
            Expr::Identifier(ident) => self.reference(expr, std::slice::from_ref(ident)),
            Expr::CompoundIdentifier(parts) => self.reference(expr, parts),
            Expr::QualifiedWildcard(name, _) => self.wildcard_argument("`*`", Some(name), false),
            Expr::Wildcard(_) => self.wildcard_argument("`*`", None, false),
            _ => {}
        }
        if allowed && let Expr::Nested(inner) = expr {
            self.allow(inner);
        }
        self.enclosing.push(Self::label(expr));
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, _expr: &Expr) -> ControlFlow<()> {
        if self.depth == 0 {
            self.enclosing.pop();
        }
        ControlFlow::Continue(())
    }
}
