//! The proof that a statement passed the guard.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::{AttributeRef, MaskedOutput, SqlDialect, TableName};

/// What kind of read-only statement passed the guard.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StatementKind {
    /// A query: SELECT, a set operation, VALUES, `TABLE t`, DuckDB's `FROM t`.
    Query,
    /// EXPLAIN of a query (EXPLAIN ANALYZE runs it).
    Explain,
    /// A read-only introspection statement: SHOW, DESCRIBE, a read-only PRAGMA.
    Introspection,
    /// Text a host vouched for through [`ReadOnlySql::new_unchecked_allowing_writes`]; it may
    /// write.
    Unchecked,
}

/// SQL text that the guard proved read-only under a [`Policy`](crate::Policy), ready to run.
///
/// Only [`check`](crate::check) makes one (and the loudly named
/// [`ReadOnlySql::new_unchecked_allowing_writes`]), so a database adapter whose `execute` takes
/// `&ReadOnlySql` cannot be handed text that skipped the gate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOnlySql {
    pub(crate) sql: String,
    pub(crate) dialect: SqlDialect,
    pub(crate) kind: StatementKind,
    pub(crate) tables: Vec<TableName>,
    pub(crate) limit: Option<u64>,
    pub(crate) cap_applied: bool,
    pub(crate) attribute_refs: Vec<AttributeRef>,
    pub(crate) masked_outputs: Vec<MaskedOutput>,
    pub(crate) touches_masked_columns: bool,
    /// The [`Seal`] of the checker that proved it, if one sealed it.
    pub(crate) seal: Option<u64>,
}

/// The private mark of one checker, such as a policy layer, on the statements it proved, so
/// that it can tell them apart from statements proved elsewhere (under another policy, or by
/// none) without checking them again.
///
/// Each `Seal` is unique in the process and cannot be cloned or built from a number: only its
/// holder can [seal](ReadOnlySql::sealed) a statement with it, and
/// [`ReadOnlySql::is_sealed_by`] is true only for statements that holder sealed.
///
/// ```
/// use nao_guard::{Policy, Seal, SqlDialect, check};
///
/// let mine = Seal::new();
/// let sql = check("SELECT 1", SqlDialect::Sqlite, &Policy::default())?.sealed(&mine);
/// assert!(sql.is_sealed_by(&mine));
/// assert!(!sql.is_sealed_by(&Seal::new()));
/// # Ok::<(), nao_guard::Rejection>(())
/// ```
#[derive(Debug)]
pub struct Seal(u64);

impl Seal {
    /// A seal no other in this process equals.
    pub fn new() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        // A u64 counter does not wrap in the life of a process.
        Seal(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

impl Default for Seal {
    fn default() -> Self {
        Seal::new()
    }
}

impl ReadOnlySql {
    /// Wraps text the guard has **not** checked, for hosts that deliberately let an agent write
    /// (behind human approval, say). The database adapters' own read-only settings still apply,
    /// so a write through this path is refused by the engine unless the adapter was configured to
    /// allow writes. [`kind`](Self::kind) is [`StatementKind::Unchecked`].
    pub fn new_unchecked_allowing_writes(sql: impl Into<String>, dialect: SqlDialect) -> Self {
        ReadOnlySql {
            sql: sql.into(),
            dialect,
            kind: StatementKind::Unchecked,
            tables: Vec::new(),
            limit: None,
            cap_applied: false,
            attribute_refs: Vec::new(),
            masked_outputs: Vec::new(),
            touches_masked_columns: false,
            seal: None,
        }
    }

    /// The same statement marked with `seal` (replacing any earlier mark): its holder proved
    /// it. Sealing a statement the holder did not check defeats the purpose; a policy layer
    /// seals only what its own [`check`](crate::check) returned.
    #[must_use]
    pub fn sealed(mut self, seal: &Seal) -> Self {
        self.seal = Some(seal.0);
        self
    }

    /// Whether the holder of `seal` [sealed](Self::sealed) this statement.
    pub fn is_sealed_by(&self, seal: &Seal) -> bool {
        self.seal == Some(seal.0)
    }

    /// The text to execute: the original text (without leading or trailing semicolons and
    /// trailing comments), with the policy's row cap spliced in when it added or lowered a
    /// limit (every other byte as written).
    pub fn sql(&self) -> &str {
        &self.sql
    }

    /// The dialect the text was checked in.
    pub fn dialect(&self) -> SqlDialect {
        self.dialect
    }

    /// What kind of statement it is.
    pub fn kind(&self) -> StatementKind {
        self.kind
    }

    /// Whether the guard checked it (false only for the unchecked escape hatch).
    pub fn is_checked(&self) -> bool {
        self.kind != StatementKind::Unchecked
    }

    /// The tables the statement reads, as written, deduplicated, in order of first appearance.
    pub fn tables(&self) -> &[TableName] {
        &self.tables
    }

    /// The query's own top-level row limit as written (`LIMIT n`, `FETCH FIRST n`, `TOP n`),
    /// before any cap. `None` when there is none or it is not a constant. A result with exactly
    /// this many rows is probably cut by the query itself, so it is not a total.
    pub fn limit(&self) -> Option<u64> {
        self.limit
    }

    /// Whether the policy's row cap added a limit or lowered the query's own.
    pub fn cap_applied(&self) -> bool {
        self.cap_applied
    }

    /// Qualified column references that the engine would run as function calls if they were
    /// not columns, and that only the database's catalogue can prove to be columns (see
    /// [`AttributeRef`]). Empty except in the dialects that
    /// [call functions through attributes](SqlDialect::calls_functions_through_attributes).
    /// An adapter for such an engine checks them before running the statement.
    pub fn attribute_refs(&self) -> &[AttributeRef] {
        &self.attribute_refs
    }

    /// The output columns that carry a masked column's values
    /// ([`Policy::mask_column`](crate::Policy::mask_column)), with the rule to apply to each. Empty when the policy
    /// masks nothing or the statement selects no masked column. Whoever runs the statement
    /// applies the rules before anyone reads the result (nao-core's policy layer does).
    pub fn masked_outputs(&self) -> &[MaskedOutput] {
        &self.masked_outputs
    }

    /// Whether the statement reads a masked column anywhere: selects, compares, groups or
    /// counts it. An engine's error about such a statement may quote the column's values
    /// (DuckDB: `Could not convert string '…' to INT32` for `email = 5`), so whoever shows
    /// errors to a reader scrubs them (nao-core's policy layer does).
    pub fn touches_masked_columns(&self) -> bool {
        self.touches_masked_columns
    }

    /// The limit the text now carries: the smaller of the query's own and the cap, when either
    /// applies.
    pub fn effective_limit(&self, cap: Option<u64>) -> Option<u64> {
        match (self.limit, cap.filter(|_| self.cap_applied)) {
            (Some(own), Some(cap)) => Some(own.min(cap)),
            (own, cap) => own.or(cap),
        }
    }
}

impl AsRef<str> for ReadOnlySql {
    fn as_ref(&self) -> &str {
        &self.sql
    }
}
