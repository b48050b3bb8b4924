//! The facts about a statement, without a verdict.

use crate::{Rejection, StatementKind, TableName};

/// Everything the guard found in a statement: the tables, the functions, the top-level limit,
/// and every reason to refuse it (not just the first). Made by [`analyze`](crate::analyze).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Analysis {
    pub(crate) kind: Option<StatementKind>,
    pub(crate) tables: Vec<TableName>,
    pub(crate) functions: Vec<String>,
    pub(crate) limit: Option<u64>,
    pub(crate) rejections: Vec<Rejection>,
}

impl Analysis {
    /// The kind of statement, when it parsed as one allowed kind.
    pub fn kind(&self) -> Option<StatementKind> {
        self.kind
    }

    /// The tables read, as written, deduplicated, in order of first appearance.
    pub fn tables(&self) -> &[TableName] {
        &self.tables
    }

    /// The functions called (scalar, aggregate, window and table functions), as written,
    /// deduplicated, in order of first appearance.
    pub fn functions(&self) -> &[String] {
        &self.functions
    }

    /// The query's own top-level row limit, when it is a constant.
    pub fn limit(&self) -> Option<u64> {
        self.limit
    }

    /// Every reason the statement would be refused; empty when [`check`](crate::check) accepts it.
    pub fn rejections(&self) -> &[Rejection] {
        &self.rejections
    }

    /// Whether the statement passes the guard.
    pub fn is_read_only(&self) -> bool {
        self.rejections.is_empty()
    }
}
