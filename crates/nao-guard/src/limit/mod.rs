//! The query's own top-level row limit, and the policy's row cap written in the dialect's syntax.

use sqlparser::ast::{Expr, Fetch, LimitClause, Query, SetExpr, Statement, Top, TopQuantity};

mod splice;
#[cfg(test)]
pub(crate) mod tests;

pub(crate) use splice::{Capped, cap_text};

/// The constant row limit of the statement's top-level query (`LIMIT n`, `LIMIT a, n`,
/// `FETCH FIRST n ROWS`, `TOP n`), ignoring limits inside subqueries and CTEs.
pub(crate) fn top_level_limit(statement: &Statement) -> Option<u64> {
    match statement {
        Statement::Query(query) => query_limit(query),
        _ => None,
    }
}

fn query_limit(query: &Query) -> Option<u64> {
    let own = [
        limit_clause_rows(query),
        fetch_rows(query.fetch.as_ref()),
        top_rows(&query.body),
    ];
    let inner = match query.body.as_ref() {
        // `(SELECT … LIMIT 5) ORDER BY x`: the parenthesized query's limit bounds the result too.
        SetExpr::Query(inner) => query_limit(inner),
        _ => None,
    };
    own.into_iter().chain([inner]).flatten().min()
}

fn limit_clause_rows(query: &Query) -> Option<u64> {
    match query.limit_clause.as_ref()? {
        LimitClause::LimitOffset {
            limit: Some(limit),
            limit_by,
            ..
        } if limit_by.is_empty() => constant(limit),
        LimitClause::OffsetCommaLimit { limit, .. } => constant(limit),
        LimitClause::LimitOffset { .. } => None,
    }
}

fn fetch_rows(fetch: Option<&Fetch>) -> Option<u64> {
    let fetch = fetch?;
    if fetch.percent {
        return None;
    }
    fetch.quantity.as_ref().map_or(Some(1), constant)
}

fn top_rows(body: &SetExpr) -> Option<u64> {
    let SetExpr::Select(select) = body else {
        return None;
    };
    top_constant(select.top.as_ref()?)
}

fn top_constant(top: &Top) -> Option<u64> {
    if top.percent {
        return None;
    }
    match top.quantity.as_ref()? {
        TopQuantity::Constant(n) => Some(*n),
        TopQuantity::Expr(e) => constant(e),
    }
}

/// The value of an unsigned integer literal, possibly parenthesized.
fn constant(expr: &Expr) -> Option<u64> {
    match expr {
        Expr::Value(v) => v.value.to_string().parse().ok(),
        Expr::Nested(inner) => constant(inner),
        _ => None,
    }
}

/// Whether the query body is a `VALUES` list or a set operation whose last member is one.
fn ends_with_values(body: &SetExpr) -> bool {
    match body {
        SetExpr::Values(_) => true,
        SetExpr::SetOperation { right, .. } => ends_with_values(right),
        _ => false,
    }
}
