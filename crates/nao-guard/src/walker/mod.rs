//! The walk over the whole syntax tree: every nested statement, query, table, function and
//! expression is looked at, and anything not proven read-only is refused.

use std::ops::ControlFlow;

use sqlparser::ast::{
    BinaryOperator, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, JoinConstraint,
    JoinOperator, ObjectName, PipeOperator, Query, Select, SelectItem,
    SelectItemQualifiedWildcardKind, SetExpr, Spanned, Statement, TableAlias, TableFactor,
    TableVersion, TableWithJoins, TypedString, Visit, Visitor,
};
use sqlparser::tokenizer::Span;

use crate::attributes::Attributes;
use crate::columns::{ColumnUse, Noting};
use crate::functions::{self, Catalogued};
use crate::implicit;
use crate::rejection::Position;
use crate::scope::CteScopes;
use crate::{AttributeRef, FunctionClass, Policy, RejectKind, Rejection, SqlDialect, TableName};

mod calls;

/// T-SQL table hints that only choose how to read; every other hint may lock.
const READ_ONLY_TABLE_HINTS: &[&str] = &[
    "FORCESCAN",
    "FORCESEEK",
    "INDEX",
    "NOEXPAND",
    "NOLOCK",
    "READCOMMITTED",
    "READUNCOMMITTED",
];

/// Walks one statement, collecting its tables and functions and the reasons to refuse it.
pub(crate) struct Walker<'p> {
    dialect: SqlDialect,
    policy: &'p Policy,
    /// Stop at the first rejection (`check`) or collect them all (`analyze`).
    stop_at_first: bool,
    pub(crate) rejections: Vec<Rejection>,
    pub(crate) tables: Vec<TableName>,
    pub(crate) functions: Vec<String>,
    /// Keep the functions' names: for `analyze`, and for `check` when the second reading
    /// compares them with PostgreSQL's (otherwise a name is built only for a refusal).
    keeps_function_names: bool,
    columns: ColumnUse,
    /// Attribute references the engine may read as calls (`t.f` is `f(t)` in PostgreSQL).
    attributes: Attributes,
    /// The references only the catalogue can prove columns, for the adapter.
    pub(crate) attribute_refs: Vec<AttributeRef>,
    scopes: CteScopes,
    /// Statements allowed to appear nested: the one EXPLAIN explains (by address).
    allowed_nested_statement: Option<usize>,
    statement_depth: usize,
    expr_depth: usize,
    max_expr_depth: usize,
    /// The name of a table function whose relation visit comes next (by address).
    table_function_name: Option<usize>,
    /// Table-hint expressions, which look like function calls but are not (by address).
    hint_exprs: Vec<usize>,
    /// The names ClickHouse's `ARRAY JOIN` unnests, which sqlparser reads as relations but
    /// are array columns of the tables before it (by address).
    array_join_columns: Vec<usize>,
}

/// The clauses of Snowflake's time travel and change tracking, which sqlparser writes as calls.
const TIME_TRAVEL_CLAUSES: &[&str] = &["AT", "BEFORE", "CHANGES", "END"];

/// File extensions that DuckDB's replacement scans read as files when a quoted table name ends
/// with them.
const FILE_EXTENSIONS: &[&str] = &[
    ".arrow", ".csv", ".db", ".duckdb", ".gz", ".json", ".jsonl", ".ndjson", ".parquet", ".sqlite",
    ".tsv", ".txt", ".xlsx", ".zst",
];

/// Whether a relation names a file, URL or stage rather than a table.
fn names_a_file(table: &TableName, dialect: SqlDialect) -> bool {
    table.parts().iter().any(|part| {
        let value = part.value.as_str();
        part.quote == Some('\'')
            || value.contains("://")
            || value.starts_with('@')
            || (part.quote.is_some() && value.contains('/'))
            || (dialect == SqlDialect::DuckDb
                && FILE_EXTENSIONS.iter().any(|ext| {
                    value.len() > ext.len()
                        && value.is_char_boundary(value.len() - ext.len())
                        && value[value.len() - ext.len()..].eq_ignore_ascii_case(ext)
                }))
    })
}

/// Whether a table function is the `TABLE(f(…))` wrapper around one call.
fn is_table_wrapper(name: &ObjectName, args: &[FunctionArg]) -> bool {
    let [part] = name.0.as_slice() else {
        return false;
    };
    let is_table = part
        .as_ident()
        .is_some_and(|i| i.quote_style.is_none() && i.value.eq_ignore_ascii_case("table"));
    is_table
        && matches!(
            args,
            [FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Function(
                _
            )))]
        )
}

fn addr<T>(value: &T) -> usize {
    std::ptr::from_ref(value) as usize
}

fn position(span: Span) -> Option<Position> {
    (span.start.line > 0).then_some(Position {
        line: span.start.line,
        column: span.start.column,
    })
}

impl<'p> Walker<'p> {
    pub(crate) fn new(dialect: SqlDialect, policy: &'p Policy, stop_at_first: bool) -> Self {
        #[cfg(feature = "pg-query")]
        let second_reading = crate::second_reading::applies(dialect, policy);
        #[cfg(not(feature = "pg-query"))]
        let second_reading = false;
        Walker {
            dialect,
            policy,
            stop_at_first,
            rejections: Vec::new(),
            tables: Vec::new(),
            functions: Vec::new(),
            keeps_function_names: !stop_at_first || second_reading,
            columns: ColumnUse::new(policy),
            attributes: Attributes::default(),
            attribute_refs: Vec::new(),
            scopes: CteScopes::default(),
            allowed_nested_statement: None,
            statement_depth: 0,
            expr_depth: 0,
            // Operator chains are bounded by the token scan; this bounds everything else.
            max_expr_depth: policy.max_operator_chain + 4 * policy.max_nesting,
            table_function_name: None,
            hint_exprs: Vec::new(),
            array_join_columns: Vec::new(),
        }
    }

    pub(crate) fn dialect(&self) -> SqlDialect {
        self.dialect
    }

    pub(crate) fn stops_at_first(&self) -> bool {
        self.stop_at_first
    }

    /// Lets `inner` (the statement an EXPLAIN explains) appear nested.
    pub(crate) fn allow_nested(&mut self, inner: &Statement) {
        self.allowed_nested_statement = Some(addr(inner));
    }

    /// Walks `statement`; afterwards `rejections`, `tables` and `functions` hold the findings.
    pub(crate) fn walk(&mut self, statement: &Statement) {
        let before_walk = self.rejections.len();
        let _ = statement.visit(self);
        if self
            .columns
            .needs_every_reference(self.policy, &self.tables)
        {
            // A table with built-in sensitive columns is read (rare): walk again, this time
            // noting every column reference, which the common path does without.
            let mut again = Walker::new(self.dialect, self.policy, self.stop_at_first);
            again.columns = ColumnUse::noting(Noting::Everything);
            again.allowed_nested_statement = self.allowed_nested_statement;
            again.rejections = std::mem::take(&mut self.rejections);
            again.rejections.truncate(before_walk);
            *self = again;
            let _ = statement.visit(self);
        }
        if self.rejections.is_empty() || !self.stop_at_first {
            self.resolve_attributes();
        }
        if self.rejections.is_empty() || !self.stop_at_first {
            let policy = self.policy;
            let findings = self.columns.denied(policy, &self.tables, || {
                crate::lineage::stars_avoid_denied(statement, policy)
            });
            for kind in findings {
                if self.reject(kind, None).is_break() {
                    break;
                }
            }
        }
    }

    fn reject(&mut self, kind: RejectKind, at: Option<Position>) -> ControlFlow<()> {
        self.rejections
            .push(Rejection::new(kind, self.dialect).at(at));
        if self.stop_at_first {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }

    fn check_function(&mut self, name: &ObjectName) -> ControlFlow<()> {
        // The common path (a built-in under a policy that names no functions) allocates
        // nothing: the written name is built for a refusal or for the kept list only.
        if self.keeps_function_names {
            let written = name.to_string();
            if !self.functions.contains(&written) {
                self.functions.push(written);
            }
        }
        let lower_parts = || -> Vec<String> {
            name.0
                .iter()
                .map(|p| {
                    p.as_ident()
                        .map_or_else(|| p.to_string(), |i| i.value.clone())
                        .to_ascii_lowercase()
                })
                .collect()
        };
        let catalogued = functions::classify(self.dialect, name);
        let denied_by_policy = self.policy.denies_functions_by_name()
            && self
                .policy
                .function_denied_by_name(lower_parts().last().map_or("", String::as_str));
        let class = if denied_by_policy {
            Some(FunctionClass::DeniedByPolicy)
        } else if let Catalogued::Denied(class) = catalogued {
            Some(class)
        } else if let Some(entry) = crate::sensitive::refused_function(self.policy, name) {
            // Shows the host or other sessions: refused with its reason unless lifted.
            let kind = RejectKind::Sensitive {
                name: name.to_string(),
                entry,
            };
            return self.reject(kind, position(name.span()));
        } else if catalogued == Catalogued::Allowed
            || self.policy.allow_unknown_functions
            || self.policy.function_allowed_by_name(&lower_parts())
        {
            None
        } else {
            Some(FunctionClass::Unknown)
        };
        match class {
            Some(class) => self.reject(
                RejectKind::Function {
                    name: name.to_string(),
                    class,
                },
                position(name.span()),
            ),
            None => ControlFlow::Continue(()),
        }
    }

    /// Records a table the statement reads and checks it against the policy.
    pub(crate) fn record_table(
        &mut self,
        table: TableName,
        at: Option<Position>,
    ) -> ControlFlow<()> {
        if names_a_file(&table, self.dialect) {
            let path = table.to_string();
            return self.reject(RejectKind::FileReference { path }, at);
        }
        let refusal = (!self.policy.table_allowed(&table)).then(|| {
            let name = table.to_string();
            match self.policy.sensitive_relation(&table) {
                Some(entry) => RejectKind::Sensitive { name, entry },
                None => RejectKind::TableNotAllowed { name },
            }
        });
        if !self.tables.contains(&table) {
            self.tables.push(table);
        }
        match refusal {
            Some(kind) => self.reject(kind, at),
            None => ControlFlow::Continue(()),
        }
    }

    /// `FROM ONLY t`: PostgreSQL and DuckDB read the table `t`, other parsers a table named
    /// `ONLY` with the alias `t`; the guard would check the wrong table, so it refuses.
    fn check_only_keyword(
        &mut self,
        name: &ObjectName,
        alias: Option<&TableAlias>,
    ) -> ControlFlow<()> {
        let [part] = name.0.as_slice() else {
            return ControlFlow::Continue(());
        };
        let is_only = part
            .as_ident()
            .is_some_and(|i| i.quote_style.is_none() && i.value.eq_ignore_ascii_case("only"));
        match alias {
            Some(alias) if is_only && !alias.explicit => {
                let message = format!(
                    "`FROM ONLY {}` is read as the table {} by some engines and as a table named \
                     ONLY by others; write `FROM {}` without ONLY",
                    alias.name, alias.name, alias.name
                );
                self.reject(RejectKind::Parse { message }, position(name.span()))
            }
            _ => ControlFlow::Continue(()),
        }
    }

    /// `TABLE t` (alone or in a set operation) names a table without the relation hook.
    fn check_table_queries(&mut self, query: &Query) -> ControlFlow<()> {
        let mut pending = vec![query.body.as_ref()];
        while let Some(body) = pending.pop() {
            match body {
                SetExpr::SetOperation { left, right, .. } => {
                    pending.push(right);
                    pending.push(left);
                }
                SetExpr::Table(table) => {
                    let Some(name) = &table.table_name else {
                        continue;
                    };
                    let parts = table.schema_name.iter().chain([name]).cloned();
                    let object = ObjectName::from(parts.collect::<Vec<_>>());
                    if !self.scopes.is_cte(&object) {
                        self.record_table(TableName::from_object_name(&object), None)?;
                    }
                }
                _ => {}
            }
        }
        ControlFlow::Continue(())
    }

    /// Snowflake's time travel and change tracking (`t AT(TIMESTAMP => …)`, `BEFORE(STATEMENT =>
    /// …)`, `CHANGES(INFORMATION => …) AT(…) END(…)`) reach the AST as calls of functions named
    /// like the clause. They read the table as it was; their arguments are expressions the walk
    /// checks as any other, but the clause itself is not a function to look up.
    fn skip_time_travel_clauses(&mut self, version: &TableVersion) {
        let clauses: Vec<&Expr> = match version {
            TableVersion::Function(clause) => vec![clause],
            TableVersion::Changes { changes, at, end } => [Some(changes), Some(at), end.as_ref()]
                .into_iter()
                .flatten()
                .collect(),
            _ => Vec::new(),
        };
        for clause in clauses {
            if let Expr::Function(call) = clause
                && TIME_TRAVEL_CLAUSES
                    .contains(&call.name.to_string().to_ascii_uppercase().as_str())
            {
                self.hint_exprs.push(addr(clause));
            }
        }
    }

    fn check_table_hints(&mut self, hints: &[Expr]) -> ControlFlow<()> {
        for hint in hints {
            self.hint_exprs.push(addr(hint));
            let word = match hint {
                Expr::Identifier(ident) => ident.value.to_ascii_uppercase(),
                Expr::Function(f) => f.name.to_string().to_ascii_uppercase(),
                other => other.to_string().to_ascii_uppercase(),
            };
            if READ_ONLY_TABLE_HINTS.binary_search(&word.as_str()).is_err() {
                let clause = format!("WITH ({hint})");
                self.reject(RejectKind::Locking { clause }, position(hint.span()))?;
            }
        }
        ControlFlow::Continue(())
    }

    fn check_query_clauses(&mut self, query: &Query) -> ControlFlow<()> {
        if let Some(lock) = query.locks.first() {
            let clause = lock.to_string();
            self.reject(RejectKind::Locking { clause }, None)?;
        }
        if query.settings.is_some() {
            let what = "a SETTINGS clause, which overrides the server's query limits".to_owned();
            self.reject(RejectKind::SessionChange { what }, None)?;
        }
        for pipe in &query.pipe_operators {
            if let PipeOperator::Call { function, .. } = pipe {
                self.check_function(&function.name)?;
            }
        }
        ControlFlow::Continue(())
    }

    /// `JOIN … USING (col)` compares `col` in both tables; `NATURAL JOIN` compares every
    /// shared column, which may be a denied one.
    fn check_join_columns(&mut self, tables: &[TableWithJoins]) {
        for join in tables.iter().flat_map(|t| &t.joins) {
            if let (
                JoinOperator::ArrayJoin
                | JoinOperator::LeftArrayJoin
                | JoinOperator::InnerArrayJoin,
                TableFactor::Table {
                    name, args: None, ..
                },
            ) = (&join.join_operator, &join.relation)
            {
                // `ARRAY JOIN arr` unnests the column `arr`: a column read, not a table.
                self.array_join_columns.push(addr(name));
                let idents: Vec<_> = name
                    .0
                    .iter()
                    .filter_map(|p| p.as_ident().cloned())
                    .collect();
                self.columns.identifier(&idents, position(name.span()));
                continue;
            }
            let constraint = match &join.join_operator {
                JoinOperator::Join(c)
                | JoinOperator::Inner(c)
                | JoinOperator::Left(c)
                | JoinOperator::LeftOuter(c)
                | JoinOperator::Right(c)
                | JoinOperator::RightOuter(c)
                | JoinOperator::FullOuter(c)
                | JoinOperator::CrossJoin(c)
                | JoinOperator::Semi(c)
                | JoinOperator::LeftSemi(c)
                | JoinOperator::RightSemi(c)
                | JoinOperator::Anti(c)
                | JoinOperator::LeftAnti(c)
                | JoinOperator::RightAnti(c)
                | JoinOperator::StraightJoin(c) => c,
                _ => continue,
            };
            match constraint {
                JoinConstraint::Using(columns) => {
                    for column in columns {
                        let idents: Vec<_> = column
                            .0
                            .iter()
                            .filter_map(|p| p.as_ident().cloned())
                            .collect();
                        self.columns.identifier(&idents, None);
                    }
                }
                JoinConstraint::Natural => self.columns.wildcard(None),
                _ => {}
            }
        }
    }

    fn check_select(&mut self, select: &Select) -> ControlFlow<()> {
        self.check_join_columns(&select.from);
        if let Some(into) = &select.into {
            self.reject(
                RejectKind::SelectInto,
                into.targets.first().and_then(|t| position(t.span())),
            )?;
        }
        for item in &select.projection {
            match item {
                SelectItem::Wildcard(_) => self.columns.wildcard(None),
                SelectItem::QualifiedWildcard(
                    SelectItemQualifiedWildcardKind::ObjectName(n),
                    _,
                ) => self.columns.wildcard(Some(n)),
                SelectItem::QualifiedWildcard(SelectItemQualifiedWildcardKind::Expr(_), _) => {
                    self.columns.wildcard(None)
                }
                SelectItem::ExprWithAlias { expr, alias } if is_postfix_null_test(alias) => {
                    // `x ISNULL` is `x IS NULL` in PostgreSQL, DuckDB and SQLite; sqlparser
                    // reads an alias, and prints `x AS ISNULL`, which they refuse.
                    let operator = alias.value.to_ascii_uppercase();
                    let test = if operator == "ISNULL" {
                        "IS NULL"
                    } else {
                        "IS NOT NULL"
                    };
                    let message = format!(
                        "engines read `{expr} {operator}` as `{expr} {test}`, where the guard \
                         reads a column named {operator}; write `{expr} {test}`, or quote the \
                         name if you meant one"
                    );
                    self.reject(RejectKind::Parse { message }, position(alias.span))?;
                }
                _ => {}
            }
        }
        ControlFlow::Continue(())
    }

    fn check_function_args(&mut self, args: &FunctionArguments) {
        if let FunctionArguments::List(list) = args {
            for arg in &list.args {
                let (FunctionArg::Unnamed(e)
                | FunctionArg::Named { arg: e, .. }
                | FunctionArg::ExprNamed { arg: e, .. }) = arg;
                if let FunctionArgExpr::QualifiedWildcard(name) = e {
                    self.columns.wildcard(Some(name));
                }
            }
        }
    }
}

impl Visitor for Walker<'_> {
    type Break = ();

    fn pre_visit_statement(&mut self, statement: &Statement) -> ControlFlow<()> {
        self.statement_depth += 1;
        if self.statement_depth > 1 && self.allowed_nested_statement != Some(addr(statement)) {
            let name = crate::statement::statement_name(statement);
            let what = format!("{name} inside a query");
            return self.reject(RejectKind::WriteInQuery { what }, None);
        }
        ControlFlow::Continue(())
    }

    fn post_visit_statement(&mut self, _statement: &Statement) -> ControlFlow<()> {
        self.statement_depth -= 1;
        ControlFlow::Continue(())
    }

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        self.scopes
            .enter_query(query, self.dialect.ctes_are_implicitly_recursive());
        if self.dialect.calls_functions_through_attributes() {
            self.attributes.define_ctes(query);
        }
        self.check_query_clauses(query)?;
        self.check_table_queries(query)
    }

    fn post_visit_query(&mut self, _query: &Query) -> ControlFlow<()> {
        self.scopes.leave_query();
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, select: &Select) -> ControlFlow<()> {
        self.check_select(select)
    }

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
        if self.dialect.calls_functions_through_attributes() {
            let is_cte = match factor {
                TableFactor::Table { name, .. } => self.scopes.is_cte(name),
                _ => false,
            };
            self.attributes.bind(factor, is_cte);
        }
        match factor {
            TableFactor::Table {
                name,
                args,
                with_hints,
                alias,
                version,
                ..
            } => {
                self.check_table_hints(with_hints)?;
                if let Some(version) = version {
                    self.skip_time_travel_clauses(version);
                }
                self.check_only_keyword(name, alias.as_ref())?;
                if let Some(args) = args {
                    self.table_function_name = Some(addr(name));
                    if is_table_wrapper(name, &args.args) {
                        // `TABLE(f(…))`: the call inside is an expression the walk checks.
                        return ControlFlow::Continue(());
                    }
                    return self.check_function(name);
                }
                if !self.scopes.is_cte(name) {
                    self.columns
                        .table_alias(self.policy, name, alias.as_ref().map(|a| &a.name));
                    // `FROM t AS a(c1, c2, …)` renames the table's columns by position, so a
                    // restricted column can be read under another name: like `a.*`.
                    if let Some(alias) = alias.as_ref().filter(|a| !a.columns.is_empty()) {
                        let qualifier = ObjectName::from(vec![alias.name.clone()]);
                        self.columns.wildcard(Some(&qualifier));
                    }
                }
            }
            TableFactor::Function { name, .. } => return self.check_function(name),
            TableFactor::NestedJoin {
                table_with_joins, ..
            } => {
                self.check_join_columns(std::slice::from_ref(table_with_joins.as_ref()));
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_relation(&mut self, relation: &ObjectName) -> ControlFlow<()> {
        if self.table_function_name.take() == Some(addr(relation)) || self.scopes.is_cte(relation) {
            return ControlFlow::Continue(());
        }
        if let Some(i) = self
            .array_join_columns
            .iter()
            .position(|&a| a == addr(relation))
        {
            self.array_join_columns.swap_remove(i);
            return ControlFlow::Continue(());
        }
        if functions::names_a_pragma(self.dialect, relation) {
            self.check_function(relation)?;
        }
        let table = TableName::from_object_name(relation);
        self.record_table(table, position(relation.span()))
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        self.expr_depth += 1;
        if self.expr_depth > self.max_expr_depth {
            // Always stop here, even when collecting: this bounds the walk's recursion.
            let limit = self.max_expr_depth;
            self.rejections
                .push(Rejection::new(RejectKind::TooDeep { limit }, self.dialect));
            return ControlFlow::Break(());
        }
        match expr {
            Expr::Function(function) => {
                if let Some(i) = self.hint_exprs.iter().position(|&a| a == addr(expr)) {
                    self.hint_exprs.swap_remove(i);
                    return ControlFlow::Continue(());
                }
                self.check_function_args(&function.args);
                if is_columns_expression(&function.name) {
                    // DuckDB/ClickHouse `COLUMNS('regex')` selects columns by pattern: like `*`.
                    self.columns.wildcard(None);
                }
                self.check_setting_read(function)?;
                self.check_function(&function.name)
            }
            Expr::BinaryOp {
                op: BinaryOperator::Assignment,
                left,
                ..
            } => {
                let what = format!("it assigns {left} with :=");
                self.reject(RejectKind::SessionChange { what }, position(expr.span()))
            }
            Expr::BinaryOp { op, .. }
                if self.dialect.runs_functions_behind_operators_and_casts() =>
            {
                match implicit::user_operator(op) {
                    Some(symbol) => {
                        self.check_implicit(expr, &symbol, "the function behind operator")
                    }
                    None => ControlFlow::Continue(()),
                }
            }
            Expr::Cast { data_type, .. } | Expr::TypedString(TypedString { data_type, .. })
                if self.dialect.runs_functions_behind_operators_and_casts() =>
            {
                match implicit::user_type(data_type) {
                    Some(name) => {
                        let name = name.to_string();
                        self.check_implicit(
                            expr,
                            &name,
                            "the input, cast and check functions of type",
                        )
                    }
                    None => ControlFlow::Continue(()),
                }
            }
            Expr::Identifier(ident) => {
                self.columns
                    .identifier(std::slice::from_ref(ident), position(ident.span));
                ControlFlow::Continue(())
            }
            Expr::CompoundIdentifier(idents)
                if idents.last().is_some_and(|i| {
                    i.quote_style.is_none() && i.value.eq_ignore_ascii_case("nextval")
                }) =>
            {
                // Snowflake's `seq.nextval` advances a sequence, like `nextval('seq')`.
                let name = idents
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(".");
                let kind = RejectKind::Function {
                    name,
                    class: FunctionClass::SideEffect,
                };
                self.reject(kind, idents.first().and_then(|i| position(i.span)))
            }
            Expr::CompoundIdentifier(idents) => {
                let at = idents.first().and_then(|i| position(i.span));
                self.columns.identifier(idents, at);
                if self.dialect.calls_functions_through_attributes() {
                    return self.check_qualified_attribute(idents);
                }
                ControlFlow::Continue(())
            }
            Expr::CompoundFieldAccess { root, access_chain }
                if self.dialect.calls_functions_through_attributes() =>
            {
                self.check_field_access(root, access_chain)
            }
            Expr::CompoundFieldAccess { root, access_chain }
                if self.dialect.restricts_method_call_receivers() =>
            {
                self.check_method_receiver(root, access_chain)
            }
            Expr::JsonAccess { value, path }
                if self.dialect.calls_functions_through_attributes() =>
            {
                self.check_json_path(value, path)
            }
            Expr::QualifiedWildcard(name, _) => {
                self.columns.wildcard(Some(name));
                ControlFlow::Continue(())
            }
            _ => ControlFlow::Continue(()),
        }
    }

    fn post_visit_expr(&mut self, _expr: &Expr) -> ControlFlow<()> {
        self.expr_depth -= 1;
        ControlFlow::Continue(())
    }
}

/// An unquoted `ISNULL` or `NOTNULL`, the postfix null tests of PostgreSQL, DuckDB and SQLite,
/// which sqlparser may read as a column alias.
fn is_postfix_null_test(alias: &sqlparser::ast::Ident) -> bool {
    alias.quote_style.is_none()
        && (alias.value.eq_ignore_ascii_case("isnull")
            || alias.value.eq_ignore_ascii_case("notnull"))
}

/// `COLUMNS(…)`, the star expression of DuckDB and ClickHouse.
fn is_columns_expression(name: &ObjectName) -> bool {
    matches!(name.0.as_slice(), [part]
        if part.as_ident().is_some_and(|i| i.value.eq_ignore_ascii_case("columns")))
}
