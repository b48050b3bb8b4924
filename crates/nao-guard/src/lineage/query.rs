//! The walk over queries: CTEs, set operations, FROM, the select list and every clause.

use std::cell::{Cell, RefCell};

use sqlparser::ast::{
    Distinct, Expr, GroupByExpr, NamedWindowExpr, ObjectName, OrderBy, OrderByKind, Query,
    RenameSelectItem, Select, SelectFlavor, SelectItem, SelectItemQualifiedWildcardKind, SetExpr,
    TableAlias, TableFactor, TableWithJoins, Value, WildcardAdditionalOptions,
};

use super::Refusal;
use super::outputs::{Masked, Out, Outputs};
use super::scope::{Resolved, Scope, Source};
use super::uses::Uses;
use crate::{Policy, TableName};

/// Rounds a recursive CTE may take to settle its masked columns before the guard gives up.
const RECURSIVE_ROUNDS: usize = 4;

/// The analysis of one statement under a policy.
#[derive(Debug)]
pub(crate) struct Analyzer<'a> {
    policy: &'a Policy,
    /// Whether `*` over a table with denied columns is looked for
    /// ([`star_over_denied`](Self::star_over_denied)).
    tracking_denied: bool,
    /// Whether the statement reads a masked column anywhere (selected, compared, grouped…).
    touched: Cell<bool>,
    /// The first table with denied columns that a `*` reads.
    star_over_denied: RefCell<Option<String>>,
}

/// A refusal that names no single column (a construct the guard cannot follow).
fn construct(what: &str, detail: String) -> Refusal {
    Refusal::construct(format!("{what}: {detail}"))
}

impl<'a> Analyzer<'a> {
    pub(crate) fn new(policy: &'a Policy) -> Self {
        Analyzer {
            policy,
            tracking_denied: false,
            touched: Cell::new(false),
            star_over_denied: RefCell::new(None),
        }
    }

    /// An analysis that also finds every `*` over a table with denied columns, so that a `*`
    /// over a subquery or CTE that leaves them out can pass.
    pub(crate) fn tracking_denied(policy: &'a Policy) -> Self {
        Analyzer {
            tracking_denied: true,
            ..Analyzer::new(policy)
        }
    }

    /// Notes that the statement reads a masked column.
    pub(super) fn touch(&self) {
        self.touched.set(true);
    }

    /// Whether the statement reads a masked column anywhere.
    pub(crate) fn touched(&self) -> bool {
        self.touched.get()
    }

    /// The first table with denied columns that a `*` of the statement reads.
    pub(crate) fn star_over_denied(&self) -> Option<String> {
        self.star_over_denied.borrow().clone()
    }

    /// Notes a `*` (or `TABLE t`) that expands `outputs`.
    pub(super) fn expand(&self, outputs: &Outputs) {
        if let Some(table) = outputs.denied_table() {
            self.star_over_denied
                .borrow_mut()
                .get_or_insert_with(|| table.to_owned());
        }
        if outputs.has_masks() {
            self.touch();
        }
    }

    /// The outputs of `query`, read inside `outer` (correlated names resolve there).
    pub(super) fn query(&self, query: &Query, outer: &Scope<'_>) -> Result<Outputs, Refusal> {
        let mut scope = Scope::child(outer);
        if let Some(with) = &query.with {
            for cte in &with.cte_tables {
                let name = cte.alias.name.value.clone();
                let columns = alias_columns(Some(&cte.alias));
                let outputs = if with.recursive {
                    self.recursive_cte(&name, &cte.query, &columns, &mut scope)?
                } else {
                    self.query(&cte.query, &scope)?
                        .renamed(&columns)
                        .map_err(|why| construct(&format!("the CTE {name}"), why))?
                };
                scope.ctes.push((name, outputs));
            }
        }
        if !query.pipe_operators.is_empty() && self.policy.masks_columns() {
            return Err(construct(
                "pipe syntax",
                "the guard does not follow masked columns through |> operators: write the \
                 query without pipe syntax"
                    .to_owned(),
            ));
        }
        let outputs = self.set_expr(&query.body, &scope, query.order_by.as_ref())?;
        for (node, clause) in [
            (
                query.limit_clause.as_ref().map(|l| l as &dyn VisitNode),
                "LIMIT",
            ),
            (query.fetch.as_ref().map(|f| f as &dyn VisitNode), "FETCH"),
        ] {
            if let Some(node) = node {
                node.check(Uses::new(self, &scope, clause))?;
            }
        }
        Ok(outputs)
    }

    /// A recursive CTE's outputs: analysed with its own name bound to the outputs of the last
    /// round until they stop changing.
    fn recursive_cte(
        &self,
        name: &str,
        query: &Query,
        columns: &[String],
        scope: &mut Scope<'_>,
    ) -> Result<Outputs, Refusal> {
        let mut current = Outputs::default();
        for _ in 0..RECURSIVE_ROUNDS {
            scope.ctes.push((name.to_owned(), current.clone()));
            let next = self.query(query, scope);
            scope.ctes.pop();
            let next = next?
                .renamed(columns)
                .map_err(|why| construct(&format!("the CTE {name}"), why))?;
            if next == current {
                return Ok(next);
            }
            current = next;
        }
        Err(construct(
            &format!("the recursive CTE {name}"),
            "the guard could not settle which of its columns carry masked values".to_owned(),
        ))
    }

    fn set_expr(
        &self,
        body: &SetExpr,
        scope: &Scope<'_>,
        order_by: Option<&OrderBy>,
    ) -> Result<Outputs, Refusal> {
        let outputs = match body {
            SetExpr::Select(select) => return self.select(select, scope, order_by),
            SetExpr::Query(query) => self.query(query, scope)?,
            SetExpr::SetOperation { left, right, .. } => {
                let left = self.set_expr(left, scope, None)?;
                let right = self.set_expr(right, scope, None)?;
                Outputs::union(left, right).map_err(|why| construct("a set operation", why))?
            }
            SetExpr::Values(values) => {
                Uses::new(self, scope, "VALUES").check(values)?;
                let width = values.rows.first().map_or(0, |row| row.content.len());
                Outputs {
                    items: vec![
                        Out::Column {
                            name: None,
                            mask: None
                        };
                        width
                    ],
                }
            }
            SetExpr::Table(table) => match &table.table_name {
                Some(name) => {
                    let parts = table
                        .schema_name
                        .iter()
                        .chain([name])
                        .map(|i| i.value.clone());
                    let outputs = self.relation_outputs(&TableName::new(parts), scope);
                    self.expand(&outputs);
                    outputs.without_denied()
                }
                None => Outputs::default(),
            },
            // Writes never pass the guard; nothing to follow.
            _ => Outputs::default(),
        };
        if let Some(order_by) = order_by {
            self.order_by(order_by, &outputs, scope)?;
        }
        Ok(outputs)
    }

    /// The columns of the table or CTE called `name`, as far as masking goes.
    fn relation_outputs(&self, name: &TableName, scope: &Scope<'_>) -> Outputs {
        if name.parts().len() == 1
            && let Some(cte) = scope.cte(name.name())
        {
            return cte.clone();
        }
        let plain = name
            .parts()
            .iter()
            .map(|p| p.value.as_str())
            .collect::<Vec<_>>()
            .join(".");
        let mut masks: Vec<(String, Masked)> = Vec::new();
        for mask in self.policy.masks_of(name) {
            let column = &mask.pattern.column;
            if masks.iter().any(|(n, _)| n.eq_ignore_ascii_case(column)) {
                continue; // the first pattern decides
            }
            masks.push((
                column.clone(),
                Masked {
                    rule: mask.rule,
                    source: format!("{plain}.{column}"),
                },
            ));
        }
        let denied =
            (self.tracking_denied && self.policy.hides_columns_of(name).is_some()).then_some(plain);
        Outputs::star(masks, denied)
    }

    fn select(
        &self,
        select: &Select,
        outer: &Scope<'_>,
        order_by: Option<&OrderBy>,
    ) -> Result<Outputs, Refusal> {
        let mut scope = Scope::child(outer);
        for from in &select.from {
            self.from(from, outer, &mut scope)?;
        }
        let scope = scope;
        for from in &select.from {
            for join in &from.joins {
                Uses::new(self, &scope, "a join condition").check(&join.join_operator)?;
                if natural(&join.join_operator) {
                    // NATURAL joins on every column the two sides share, as a `*` reads them.
                    for source in &scope.sources {
                        self.expand(&source.outputs);
                    }
                }
            }
        }
        Uses::new(self, &scope, "LATERAL VIEW").check(&select.lateral_views)?;
        for (clause, expr) in [
            ("PREWHERE", &select.prewhere),
            ("WHERE", &select.selection),
            ("HAVING", &select.having),
            ("QUALIFY", &select.qualify),
        ] {
            Uses::new(self, &scope, clause).check(expr)?;
        }
        Uses::new(self, &scope, "CONNECT BY").check(&select.connect_by)?;
        Uses::new(self, &scope, "TOP").check(&select.top)?;
        Uses::new(self, &scope, "SORT BY").check(&select.sort_by)?;
        // Grouping splits rows by equality: a masked column may stand there as it is.
        let grouping: Vec<&Expr> = match &select.group_by {
            GroupByExpr::Expressions(exprs, _) => exprs.iter().collect(),
            GroupByExpr::All(_) => Vec::new(),
        };
        let distinct_on: Vec<&Expr> = match &select.distinct {
            Some(Distinct::On(exprs)) => exprs.iter().collect(),
            _ => Vec::new(),
        };
        for (clause, exprs) in [
            ("GROUP BY", grouping),
            ("DISTINCT ON", distinct_on),
            ("CLUSTER BY", select.cluster_by.iter().collect()),
            ("DISTRIBUTE BY", select.distribute_by.iter().collect()),
        ] {
            for expr in exprs {
                let mut uses = Uses::new(self, &scope, clause);
                uses.allow(expr);
                uses.check(expr)?;
            }
        }
        for window in &select.named_window {
            let mut uses = Uses::new(self, &scope, "WINDOW");
            if let NamedWindowExpr::WindowSpec(spec) = &window.1 {
                spec.partition_by.iter().for_each(|e| uses.allow(e));
            }
            uses.check(window)?;
        }
        let mut outputs = Outputs::default();
        let whole =
            select.projection.is_empty() && select.flavor == SelectFlavor::FromFirstNoSelect;
        if whole {
            outputs.items.push(self.star(&scope.sources, None, &scope)?);
        }
        for item in &select.projection {
            outputs.items.push(self.item(item, &scope)?);
        }
        if select.value_table_mode.is_some() && outputs.has_masks() {
            return Err(construct(
                "SELECT AS STRUCT/VALUE",
                "the masked column would be packed into one value; select the columns instead"
                    .to_owned(),
            ));
        }
        if let Some(order_by) = order_by {
            self.order_by(order_by, &outputs, &scope)?;
        }
        Ok(outputs)
    }

    /// Adds the relations of one FROM item (with its joins) to `scope`.
    fn from(
        &self,
        from: &TableWithJoins,
        outer: &Scope<'_>,
        scope: &mut Scope<'_>,
    ) -> Result<(), Refusal> {
        for factor in std::iter::once(&from.relation).chain(from.joins.iter().map(|j| &j.relation))
        {
            let sources = self.factor(factor, outer, scope)?;
            scope.sources.extend(sources);
        }
        Ok(())
    }

    /// The relations one table factor brings into scope.
    fn factor(
        &self,
        factor: &TableFactor,
        outer: &Scope<'_>,
        siblings: &Scope<'_>,
    ) -> Result<Vec<Source>, Refusal> {
        let source = |alias: &Option<TableAlias>, outputs: Outputs| Source {
            name: alias.as_ref().map(|a| a.name.value.clone()),
            outputs,
        };
        match factor {
            TableFactor::Table {
                name, alias, args, ..
            } => {
                if let Some(args) = args {
                    Uses::new(self, siblings, "a table function's arguments").check(args)?;
                    return Ok(vec![source(alias, Outputs::default())]);
                }
                let table = TableName::from_object_name(name);
                let outputs = self.relation_outputs(&table, outer);
                let columns = alias_columns(alias.as_ref());
                if !columns.is_empty() {
                    // `AS t(a, b)` renames every column by position, as a `*` reads them.
                    self.expand(&outputs);
                }
                let outputs = outputs
                    .renamed(&columns)
                    .map_err(|why| construct(&format!("{name}"), why))?;
                let name = match alias {
                    Some(alias) => alias.name.value.clone(),
                    None => table.name().to_owned(),
                };
                Ok(vec![Source {
                    name: Some(name),
                    outputs,
                }])
            }
            TableFactor::Derived {
                lateral,
                subquery,
                alias,
                ..
            } => {
                let inner = if *lateral { siblings } else { outer };
                let outputs = self
                    .query(subquery, inner)?
                    .renamed(&alias_columns(alias.as_ref()))
                    .map_err(|why| construct("a subquery in FROM", why))?;
                Ok(vec![source(alias, outputs)])
            }
            TableFactor::NestedJoin {
                table_with_joins,
                alias,
            } => {
                let mut inner = Scope::child(outer);
                self.from(table_with_joins, outer, &mut inner)?;
                for join in &table_with_joins.joins {
                    Uses::new(self, &inner, "a join condition").check(&join.join_operator)?;
                }
                let sources = std::mem::take(&mut inner.sources);
                match alias {
                    None => Ok(sources),
                    Some(_) => {
                        let mut outputs = Outputs::default();
                        for s in sources {
                            outputs.items.push(Out::Star {
                                masks: s.outputs.masked_names(),
                                denied: s.outputs.denied_table().map(str::to_owned),
                            });
                        }
                        Ok(vec![source(alias, outputs)])
                    }
                }
            }
            TableFactor::TableFunction { alias, .. }
            | TableFactor::Function { alias, .. }
            | TableFactor::UNNEST { alias, .. }
            | TableFactor::JsonTable { alias, .. }
            | TableFactor::OpenJsonTable { alias, .. }
            | TableFactor::XmlTable { alias, .. } => {
                // Their arguments may read earlier relations (LATERAL): a masked column there
                // is a value passed to a function.
                Uses::new(self, siblings, "a table function's arguments").check(factor)?;
                Ok(vec![source(alias, Outputs::default())])
            }
            TableFactor::Pivot { table, alias, .. }
            | TableFactor::Unpivot { table, alias, .. }
            | TableFactor::MatchRecognize { table, alias, .. } => {
                let inner = self.factor(table, outer, siblings)?;
                if inner.iter().any(|s| s.outputs.has_masks()) {
                    return Err(construct(
                        "PIVOT, UNPIVOT or MATCH_RECOGNIZE",
                        "it reshapes a relation with a masked column, and the guard cannot \
                         follow the column through it: select from the relation directly"
                            .to_owned(),
                    ));
                }
                Uses::new(self, siblings, "PIVOT, UNPIVOT or MATCH_RECOGNIZE").check(factor)?;
                Ok(vec![source(alias, Outputs::default())])
            }
            other => {
                Uses::new(self, siblings, "FROM").check(other)?;
                Ok(vec![Source {
                    name: None,
                    outputs: Outputs::default(),
                }])
            }
        }
    }

    /// One select-list item.
    fn item(&self, item: &SelectItem, scope: &Scope<'_>) -> Result<Out, Refusal> {
        let (expr, alias) = match item {
            SelectItem::UnnamedExpr(expr) => (expr, None),
            SelectItem::ExprWithAlias { expr, alias } => (expr, Some(alias.value.clone())),
            SelectItem::ExprWithAliases { expr, .. } => (expr, None),
            SelectItem::Wildcard(options) => {
                return self.star(&scope.sources, Some(options), scope);
            }
            SelectItem::QualifiedWildcard(kind, options) => {
                return match kind {
                    SelectItemQualifiedWildcardKind::ObjectName(name) => {
                        let last = last_part(name);
                        let sources: Vec<Source> =
                            scope.sources_named(&last).into_iter().cloned().collect();
                        self.star(&sources, Some(options), scope)
                    }
                    SelectItemQualifiedWildcardKind::Expr(expr) => {
                        // `(expr).*`: the guard cannot tell which relation; as `*` over all.
                        for source in &scope.sources {
                            self.expand(&source.outputs);
                        }
                        Uses::new(self, scope, "the select list").check(expr)?;
                        Ok(Out::Star {
                            masks: Vec::new(),
                            denied: None,
                        })
                    }
                };
            }
        };
        let bare = strip_nested(expr);
        let parts = match bare {
            Expr::Identifier(ident) => Some(std::slice::from_ref(ident)),
            Expr::CompoundIdentifier(parts) => Some(parts.as_slice()),
            _ => None,
        };
        if let Some(parts) = parts
            && let Resolved::Column(mask) = scope.resolve(parts)
        {
            if matches!(item, SelectItem::ExprWithAliases { .. }) {
                return Err(Refusal::new(
                    mask.source,
                    "it is split into several aliases in the select list".to_owned(),
                    parts.first(),
                ));
            }
            let name = alias.unwrap_or_else(|| parts[parts.len() - 1].value.clone());
            return Ok(Out::Column {
                name: Some(name),
                mask: Some(mask),
            });
        }
        Uses::new(self, scope, "the select list").check(expr)?;
        let name = alias.or_else(|| parts.map(|p| p[p.len() - 1].value.clone()));
        Ok(Out::Column { name, mask: None })
    }

    /// A `*` (or `rel.*`) over `sources`, with DuckDB's and Snowflake's options.
    fn star(
        &self,
        sources: &[Source],
        options: Option<&WildcardAdditionalOptions>,
        scope: &Scope<'_>,
    ) -> Result<Out, Refusal> {
        for source in sources {
            self.expand(&source.outputs);
        }
        let mut masks: Vec<(String, Masked)> = sources
            .iter()
            .flat_map(|s| s.outputs.masked_names())
            .collect();
        if let Some(options) = options {
            if let Some(replace) = &options.opt_replace {
                for element in &replace.items {
                    Uses::new(self, scope, "* REPLACE").check(&element.expr)?;
                }
            }
            if let Some(rename) = &options.opt_rename {
                let pairs = match rename {
                    RenameSelectItem::Single(one) => std::slice::from_ref(one),
                    RenameSelectItem::Multiple(many) => many.as_slice(),
                };
                // A renamed masked column keeps its mask under both names (over-masking is
                // harmless; a missed name would leak).
                for pair in pairs {
                    let renamed: Vec<(String, Masked)> = masks
                        .iter()
                        .filter(|(n, _)| n.eq_ignore_ascii_case(&pair.ident.value))
                        .map(|(_, m)| (pair.alias.value.clone(), m.clone()))
                        .collect();
                    masks.extend(renamed);
                }
            }
            if options.opt_alias.is_some() && !masks.is_empty() {
                return Err(construct(
                    "`* AS name`",
                    "it packs the columns, the masked one with them, into one value".to_owned(),
                ));
            }
        }
        Ok(Out::Star {
            masks,
            denied: None,
        })
    }

    /// `ORDER BY` sorts by a value: a masked column there would leak its order.
    fn order_by(
        &self,
        order_by: &OrderBy,
        outputs: &Outputs,
        scope: &Scope<'_>,
    ) -> Result<(), Refusal> {
        let sorts_masked = |column: String| {
            Refusal::new(
                column,
                "the result is sorted by it in ORDER BY".to_owned(),
                None,
            )
        };
        match &order_by.kind {
            OrderByKind::All(_) => {
                if let Some((_, mask)) = outputs.masked_names().into_iter().next() {
                    return Err(sorts_masked(mask.source));
                }
                if outputs.has_masks() {
                    return Err(construct(
                        "ORDER BY ALL",
                        "it sorts by masked columns".to_owned(),
                    ));
                }
            }
            OrderByKind::Expressions(exprs) => {
                for item in exprs {
                    match strip_nested(&item.expr) {
                        Expr::Value(v) => {
                            if let Value::Number(n, _) = &v.value {
                                let position = n.parse::<usize>().unwrap_or(0);
                                if outputs.position_masked(position) {
                                    return Err(construct(
                                        &format!("ORDER BY {n}"),
                                        "the output column at that position may be masked, and \
                                         sorting by it would reveal its order"
                                            .to_owned(),
                                    ));
                                }
                            }
                        }
                        Expr::Identifier(ident) => {
                            if let Some(mask) = outputs.lookup(&ident.value) {
                                return Err(sorts_masked(mask.source.clone()));
                            }
                        }
                        _ => {}
                    }
                    Uses::new(self, scope, "ORDER BY").check(item)?;
                }
            }
        }
        Ok(())
    }
}

/// Something the expression walk can check.
trait VisitNode {
    fn check(&self, uses: Uses<'_, '_>) -> Result<(), Refusal>;
}

impl<T: sqlparser::ast::Visit> VisitNode for T {
    fn check(&self, uses: Uses<'_, '_>) -> Result<(), Refusal> {
        uses.check(self)
    }
}

/// Whether a join is NATURAL.
fn natural(operator: &sqlparser::ast::JoinOperator) -> bool {
    use sqlparser::ast::{JoinConstraint, JoinOperator as J};
    let constraint = match operator {
        J::Join(c)
        | J::Inner(c)
        | J::Left(c)
        | J::LeftOuter(c)
        | J::Right(c)
        | J::RightOuter(c)
        | J::FullOuter(c)
        | J::CrossJoin(c)
        | J::Semi(c)
        | J::LeftSemi(c)
        | J::RightSemi(c)
        | J::Anti(c)
        | J::LeftAnti(c)
        | J::RightAnti(c)
        | J::StraightJoin(c)
        | J::AsOf { constraint: c, .. } => c,
        _ => return false,
    };
    matches!(constraint, JoinConstraint::Natural)
}

fn strip_nested(mut expr: &Expr) -> &Expr {
    while let Expr::Nested(inner) = expr {
        expr = inner;
    }
    expr
}

fn alias_columns(alias: Option<&TableAlias>) -> Vec<String> {
    alias.map_or_else(Vec::new, |a| {
        a.columns.iter().map(|c| c.name.value.clone()).collect()
    })
}

fn last_part(name: &ObjectName) -> String {
    name.0
        .last()
        .map(|p| match p.as_ident() {
            Some(ident) => ident.value.clone(),
            None => p.to_string(),
        })
        .unwrap_or_default()
}
