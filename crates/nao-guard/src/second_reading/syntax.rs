//! Calls that sqlparser reads as syntax of its own and PostgreSQL's grammar as ordinary calls.
//!
//! `CEIL(x)`, `FLOOR(x)`, `SUBSTRING(s, 1, 3)`, `CONVERT(…)` and `FROM UNNEST(a)` are
//! expressions and table factors of their own in sqlparser's tree, which the walk does not look
//! up as functions; PostgreSQL's parser reads calls of `ceil`, `floor`, `substring`, `convert`
//! and `unnest`. Such a call counts as seen by the guard when its tree holds that syntax.

use std::ops::ControlFlow;

use sqlparser::ast::{Expr, Statement, TableFactor, Visit, Visitor};

/// The names of the calls PostgreSQL reads where `statement` has syntax of sqlparser's own.
pub(super) fn syntax_calls(statement: &Statement) -> Vec<&'static str> {
    let mut finder = SyntaxCalls(Vec::new());
    let _ = statement.visit(&mut finder);
    finder.0
}

struct SyntaxCalls(Vec<&'static str>);

impl SyntaxCalls {
    fn note(&mut self, name: &'static str) {
        if !self.0.contains(&name) {
            self.0.push(name);
        }
    }
}

impl Visitor for SyntaxCalls {
    type Break = ();

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        match expr {
            Expr::Ceil { .. } => self.note("ceil"),
            Expr::Floor { .. } => self.note("floor"),
            Expr::Substring { .. } => self.note("substring"),
            Expr::Convert { .. } => self.note("convert"),
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
        if let TableFactor::UNNEST { .. } = factor {
            self.note("unnest");
        }
        ControlFlow::Continue(())
    }
}
