//! Row limits that PostgreSQL merges across parentheses.
//!
//! In `(SELECT … LIMIT 10) OFFSET 3` sqlparser reads an OFFSET applied to the result of the
//! parenthesized query (at most 7 rows), as the SQL standard does; PostgreSQL's grammar puts
//! both clauses on the one SELECT inside (`LIMIT 10 OFFSET 3`: 10 rows). The readings differ,
//! and on this shape libpg_query compiled with PostgreSQL's assertions (the `pg_query` crate
//! turns them on in debug builds) aborts the whole process (`Assert(!stmt->limitOption)` in
//! `insertSelectOptions`, PostgreSQL 18's grammar). So the second reading refuses the shape
//! from sqlparser's tree, before libpg_query sees the text, in every build alike.

use std::ops::ControlFlow;

use sqlparser::ast::{Query, SetExpr, Statement, Visit, Visitor};

/// Whether a LIMIT, OFFSET or FETCH follows a parenthesized query that has one of its own,
/// anywhere in `statement`.
pub(super) fn merges_limits(statement: &Statement) -> bool {
    statement.visit(&mut MergedLimits).is_break()
}

struct MergedLimits;

fn limits(query: &Query) -> bool {
    query.limit_clause.is_some() || query.fetch.is_some()
}

impl Visitor for MergedLimits {
    type Break = ();

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        if !limits(query) {
            return ControlFlow::Continue(());
        }
        // PostgreSQL keeps no node for parentheses: every level of them is the same SELECT.
        let mut body = query.body.as_ref();
        while let SetExpr::Query(inner) = body {
            if limits(inner) {
                return ControlFlow::Break(());
            }
            body = inner.body.as_ref();
        }
        ControlFlow::Continue(())
    }
}
