//! The query's own top-level row limit, and the policy's row cap written in the dialect's syntax.

use sqlparser::ast::{
    Expr, Fetch, LimitClause, Query, SetExpr, Statement, TableFactor, Top, TopQuantity,
};
use sqlparser::parser::Parser;

use crate::{RowCapSyntax, SqlDialect};

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

/// Makes the statement return at most `cap` rows, in `dialect`'s syntax: clamps a larger
/// constant limit in place, adds one where there is none, and otherwise wraps the query as
/// `SELECT * FROM (…) AS nao_capped` with the cap outside. Returns whether the text changed.
pub(crate) fn apply_cap(statement: &mut Statement, dialect: SqlDialect, cap: u64) -> bool {
    let Statement::Query(query) = statement else {
        return false;
    };
    if query_limit(query).is_some_and(|own| own <= cap) {
        return false;
    }
    let Some(cap_expr) = literal(dialect, cap) else {
        return false;
    };
    let in_place_parses = dialect.takes_limit_after_values() || !ends_with_values(&query.body);
    if in_place_parses && clamp_in_place(query, dialect, &cap_expr) {
        return true;
    }
    wrap(query, dialect, cap)
}

/// Whether the query body is a `VALUES` list or a set operation whose last member is one.
fn ends_with_values(body: &SetExpr) -> bool {
    match body {
        SetExpr::Values(_) => true,
        SetExpr::SetOperation { right, .. } => ends_with_values(right),
        _ => false,
    }
}

/// Adds or lowers the limit on the query itself; false when only wrapping can cap it.
fn clamp_in_place(query: &mut Query, dialect: SqlDialect, cap: &Expr) -> bool {
    if let Some(fetch) = query.fetch.as_mut() {
        if fetch.percent
            || fetch
                .quantity
                .as_ref()
                .is_some_and(|q| constant(q).is_none())
        {
            return false;
        }
        fetch.quantity = Some(cap.clone());
        return true;
    }
    match dialect.row_cap_syntax() {
        RowCapSyntax::Limit => match query.limit_clause.as_mut() {
            None => {
                query.limit_clause = Some(LimitClause::LimitOffset {
                    limit: Some(cap.clone()),
                    offset: None,
                    limit_by: vec![],
                });
                true
            }
            Some(LimitClause::LimitOffset {
                limit, limit_by, ..
            }) => {
                if !limit_by.is_empty() || limit.as_ref().is_some_and(|l| constant(l).is_none()) {
                    return false;
                }
                *limit = Some(cap.clone());
                true
            }
            Some(LimitClause::OffsetCommaLimit { limit, .. }) => {
                if constant(limit).is_none() {
                    return false;
                }
                *limit = cap.clone();
                true
            }
        },
        RowCapSyntax::FetchFirst => {
            if query.limit_clause.is_some() {
                return false;
            }
            query.fetch = Some(Fetch {
                with_ties: false,
                percent: false,
                quantity: Some(cap.clone()),
            });
            true
        }
        RowCapSyntax::Top => {
            let has_offset = matches!(
                &query.limit_clause,
                Some(LimitClause::LimitOffset { limit: None, offset: Some(_), limit_by }) if limit_by.is_empty()
            );
            if has_offset {
                // T-SQL: `ORDER BY … OFFSET n ROWS` takes `FETCH NEXT cap ROWS ONLY`.
                query.fetch = Some(Fetch {
                    with_ties: false,
                    percent: false,
                    quantity: Some(cap.clone()),
                });
                return true;
            }
            if query.limit_clause.is_some() {
                return false;
            }
            let SetExpr::Select(select) = query.body.as_mut() else {
                return false;
            };
            match select.top.as_mut() {
                None => {
                    select.top = Some(Top {
                        with_ties: false,
                        percent: false,
                        quantity: Some(TopQuantity::Expr(cap.clone())),
                    });
                    true
                }
                Some(top) if top_constant(top).is_some() => {
                    top.quantity = Some(TopQuantity::Expr(cap.clone()));
                    true
                }
                Some(_) => false,
            }
        }
    }
}

/// Replaces `query` by `[WITH …] SELECT * FROM (query) AS nao_capped` capped in the outer query.
/// The WITH clause moves out, since T-SQL allows none inside a derived table.
fn wrap(query: &mut Query, dialect: SqlDialect, cap: u64) -> bool {
    let template = match dialect.row_cap_syntax() {
        RowCapSyntax::Limit => format!("SELECT * FROM (SELECT 1) AS nao_capped LIMIT {cap}"),
        RowCapSyntax::Top => format!("SELECT TOP ({cap}) * FROM (SELECT 1) AS nao_capped"),
        RowCapSyntax::FetchFirst => {
            format!("SELECT * FROM (SELECT 1) AS nao_capped FETCH FIRST {cap} ROWS ONLY")
        }
    };
    let Ok(Statement::Query(mut outer)) = Parser::new(dialect.parser_dialect())
        .try_with_sql(&template)
        .and_then(|mut p| p.parse_statement())
    else {
        return false;
    };
    let SetExpr::Select(select) = outer.body.as_mut() else {
        return false;
    };
    let Some(TableFactor::Derived { subquery, .. }) =
        select.from.first_mut().map(|t| &mut t.relation)
    else {
        return false;
    };
    outer.with = query.with.take();
    std::mem::swap(subquery.as_mut(), query);
    std::mem::swap(query, outer.as_mut());
    true
}

/// The integer literal `n` as this dialect's parser builds it.
fn literal(dialect: SqlDialect, n: u64) -> Option<Expr> {
    Parser::new(dialect.parser_dialect())
        .try_with_sql(&n.to_string())
        .ok()?
        .parse_expr()
        .ok()
}
