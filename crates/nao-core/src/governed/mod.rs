//! The host's [`Policy`] as a layer: a [`Dialect`] that wraps a [`Dialect`] and applies the
//! policy to everything that passes through it, so no tool, prompt builder or MCP resource can
//! forget it. [`ToolContext`](crate::ToolContext) hands out its databases only wrapped.

use std::borrow::Cow;
use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use futures_util::StreamExt;
use nao_guard::{
    MaskedOutput, OutputColumn, Policy, ReadOnlySql, Rejection, Seal, SqlDialect, StatementKind,
    TableName,
};

mod protect;
mod scrub;

use protect::{Protect, process_key, withheld};

use crate::masking::{BatchMasker, Detections, MaskError, MaskKey, MaskedColumn, ValueDetector};
use crate::{
    Admitted, AuditSink, BatchStream, Dialect, DialectError, ExecOptions, NoAudit, PolicyAction,
    PolicyEvent, TableFilter, TableInfo, TableRef, TableSchema,
};

/// A database seen through the host's policy:
/// - [`list_tables`](Dialect::list_tables) leaves out the tables the policy denies (the host's
///   allow and deny lists and the built-in sensitive catalogues);
/// - [`describe_table`](Dialect::describe_table) answers for a denied table as for a missing
///   one, leaves out denied columns, so sample rows
///   ([`DialectExt::sample_rows`](crate::DialectExt::sample_rows), which selects the described
///   columns) never read them, and marks masked columns with their rule;
/// - [`execute`](Dialect::execute) checks every statement against the policy again, whoever
///   built it, and masks the result columns that carry a masked column's values
///   ([`Policy::mask_column`]) before any batch leaves the layer: keyed hashes, redaction,
///   partial text or NULL, with the reason in the field's
///   [`MASKED_FIELD_METADATA`](nao_render::MASKED_FIELD_METADATA) so every reader is told;
///   with a [`ValueDetector`] ([`with_value_detector`](Self::with_value_detector)), personal
///   values in the other text columns (email addresses, phone and card numbers, …) are
///   replaced by labels such as `[email]`, and the columns where it found some are marked the
///   same way once the result has been read ([`BatchStream::read_schema`]).
///
/// What it hid, refused and masked goes to the [`AuditSink`] as [`PolicyEvent`]s.
///
/// ```
/// # use std::sync::Arc;
/// use nao_core::guard::{MaskRule, Policy};
/// use nao_core::{Dialect, GovernedDialect};
/// # fn wrap(database: Arc<dyn Dialect>) -> Arc<dyn Dialect> {
/// let policy = Arc::new(
///     Policy::default()
///         .deny_column("customers.ssn")
///         .mask_column("customers.email", MaskRule::Hash),
/// );
/// let governed: Arc<dyn Dialect> = Arc::new(GovernedDialect::new(database, policy));
/// # governed }
/// ```
#[derive(Debug)]
pub struct GovernedDialect {
    inner: Arc<dyn Dialect>,
    policy: Arc<Policy>,
    mask_key: Option<MaskKey>,
    detector: Option<Arc<ValueDetector>>,
    audit: Arc<dyn AuditSink>,
    /// Marks the statements [`prepare`](Dialect::prepare) proved under `policy`, so that
    /// `execute` does not check them a second time.
    seal: Seal,
}

impl GovernedDialect {
    /// `inner` seen through `policy`, hashing masked values with this process's random key
    /// (see [`with_mask_key`](Self::with_mask_key)) and reporting to no audit sink.
    pub fn new(inner: Arc<dyn Dialect>, policy: Arc<Policy>) -> Self {
        GovernedDialect {
            inner,
            policy,
            mask_key: None,
            detector: None,
            audit: Arc::new(NoAudit),
            seal: Seal::new(),
        }
    }

    /// Hashes masked values with `key` instead of this process's random key: hashes then stay
    /// the same across restarts and hosts that share the key (and can be compared across
    /// results), at the price of a secret to keep.
    #[must_use]
    pub fn with_mask_key(mut self, key: MaskKey) -> Self {
        self.mask_key = Some(key);
        self
    }

    /// Also looks for personal values in the text columns no rule masks, and replaces each
    /// with its label (`[email]`): for columns nobody declared, such as free-text notes. It
    /// costs a pass over every text cell of every result.
    #[must_use]
    pub fn with_value_detector(mut self, detector: ValueDetector) -> Self {
        self.detector = Some(Arc::new(detector));
        self
    }

    /// Reports what the policy hid, refused and masked to `audit`.
    #[must_use]
    pub fn with_audit(mut self, audit: Arc<dyn AuditSink>) -> Self {
        self.audit = audit;
        self
    }

    /// The database without the policy.
    pub fn inner(&self) -> &Arc<dyn Dialect> {
        &self.inner
    }

    /// The policy.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    fn event(&self, action: PolicyAction) {
        self.audit.policy_event(PolicyEvent {
            database: self.inner.name().to_owned(),
            action,
        });
    }

    /// The error for a table the policy hides: the same words as for a missing table, so the
    /// answer does not say that it exists.
    fn hidden(&self, table: &TableRef) -> DialectError {
        DialectError::UnknownObject {
            database: self.inner.name().to_owned(),
            message: format!("there is no table {table} available here"),
            code: None,
        }
    }

    /// Reports a refused statement to the audit.
    fn audit_refusal(&self, rejection: &Rejection) {
        self.event(PolicyAction::StatementRefused {
            code: rejection.kind().code().to_owned(),
            reason: rejection.to_string(),
        });
    }

    /// The error for a statement the policy refuses at execution, reported to the audit.
    fn refused(&self, rejection: &Rejection) -> DialectError {
        self.audit_refusal(rejection);
        DialectError::Permission {
            database: self.inner.name().to_owned(),
            message: format!("this database's policy refuses the statement: {rejection}"),
            code: None,
        }
    }

    /// The masker for a result of `schema` with `masks`, or `None` when nothing is masked.
    fn masker(
        &self,
        schema: &arrow_schema::SchemaRef,
        masks: &[MaskedOutput],
    ) -> Result<Option<BatchMasker>, MaskError> {
        if masks.is_empty() {
            return Ok(None);
        }
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        let mut columns = Vec::new();
        let mut audit = Vec::new();
        for mask in masks {
            let found = mask.column().resolve(&names);
            if found.is_empty() && !matches!(mask.column(), OutputColumn::Named { .. }) {
                // A column the statement lists by position is missing: the result does not
                // have the shape the guard read, so no column can be trusted to be unmasked.
                return Err(MaskError::SchemaMismatch {
                    reason: format!(
                        "the statement selects the masked column {} at {:?}, but the result \
                         has {} columns",
                        mask.source(),
                        mask.column(),
                        names.len()
                    ),
                });
            }
            for index in found {
                audit.push(format!(
                    "{} <- {} ({})",
                    names[index],
                    mask.source(),
                    mask.rule().name()
                ));
                columns.push(MaskedColumn::new(index, mask.rule(), mask.source()));
            }
        }
        if columns.is_empty() {
            return Ok(None);
        }
        let key = match &self.mask_key {
            Some(key) => key.clone(),
            None => process_key()?,
        };
        self.event(PolicyAction::ColumnsMasked { columns: audit });
        BatchMasker::new(schema, columns, key).map(Some)
    }
}

/// The guard's name of a catalogue table.
/// The guard's reading of a statement, in words.
fn guard_reading(kind: StatementKind) -> &'static str {
    match kind {
        StatementKind::Query => "a read-only query",
        StatementKind::Explain => "an EXPLAIN of a read-only query",
        StatementKind::Introspection => "a read-only introspection statement",
        _ => "a statement the guard did not read",
    }
}

fn guard_name(schema: Option<&str>, name: &str) -> TableName {
    TableName::new(
        schema
            .map(str::to_owned)
            .into_iter()
            .chain([name.to_owned()]),
    )
}

#[async_trait]
impl Dialect for GovernedDialect {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn sql_dialect(&self) -> SqlDialect {
        self.inner.sql_dialect()
    }

    async fn admit(&self, options: &ExecOptions) -> Result<Admitted, DialectError> {
        self.inner.admit(options).await
    }

    fn max_concurrent_statements(&self) -> Option<usize> {
        self.inner.max_concurrent_statements()
    }

    fn refused_as_writing(&self, error: &DialectError) -> bool {
        self.inner.refused_as_writing(error)
    }

    async fn execute(
        &self,
        sql: &ReadOnlySql,
        options: &ExecOptions,
    ) -> Result<BatchStream, DialectError> {
        // A statement this layer's `prepare` proved under its policy carries the layer's seal
        // and its verdict (the columns to mask) already. Any other may come from a host that
        // built it under another policy, or under none: judge it again under this one (the
        // engine runs `sql` as it was given), and take the columns to mask from this
        // judgement, never from the caller's.
        let checked = if sql.is_sealed_by(&self.seal) {
            Cow::Borrowed(sql)
        } else {
            Cow::Owned(
                nao_guard::check(sql.sql(), sql.dialect(), &self.policy)
                    .map_err(|rejection| self.refused(&rejection))?,
            )
        };
        let touches_masked = checked.touches_masked_columns();
        let scrubbed = move |error: DialectError| {
            if touches_masked {
                scrub::scrub_error(error)
            } else {
                error
            }
        };
        let stream = match self.inner.execute(sql, options).await {
            Ok(stream) => stream,
            Err(error) => {
                if self.inner.refused_as_writing(&error) {
                    // The guard read the text as read-only, the engine as a write: both
                    // readings go to the audit, so that the gap becomes a test case.
                    self.event(PolicyAction::ReadingsDisagree {
                        statement: sql.sql().to_owned(),
                        guard: guard_reading(checked.kind()).to_owned(),
                        engine: error.to_string(),
                    });
                }
                return Err(scrubbed(error));
            }
        };
        let masker = self
            .masker(stream.schema(), checked.masked_outputs())
            .map_err(|e| withheld(self.inner.name(), &e))?;
        if masker.is_none() && self.detector.is_none() && !touches_masked {
            return Ok(stream);
        }
        let schema = match &masker {
            Some(masker) => masker.output_schema().clone(),
            None => stream.schema().clone(),
        };
        let found = Arc::new(Mutex::new(Detections::default()));
        let protect = Protect {
            database: self.inner.name().to_owned(),
            masker,
            detector: self.detector.clone(),
            found: Arc::clone(&found),
        };
        let batches = stream.map(move |batch| protect.batch(batch.map_err(scrubbed)?));
        let database = self.inner.name().to_owned();
        let audit = Arc::clone(&self.audit);
        Ok(
            BatchStream::new(schema, batches).with_schema_marks(move |schema| {
                let found =
                    std::mem::take(&mut *found.lock().unwrap_or_else(PoisonError::into_inner));
                if found.is_empty() {
                    return schema.clone();
                }
                audit.policy_event(PolicyEvent {
                    database,
                    action: PolicyAction::ValuesDetected {
                        findings: found.iter().map(ToString::to_string).collect(),
                    },
                });
                found.mark_schema(schema)
            }),
        )
    }

    fn prepare(&self, sql: &str, row_cap: Option<u64>) -> Result<ReadOnlySql, Rejection> {
        let capped;
        let policy = match (row_cap, self.policy.row_cap()) {
            (Some(cap), own) if own.is_none_or(|own| cap < own) => {
                capped = self.policy.as_ref().clone().with_row_cap(cap);
                &capped
            }
            _ => self.policy.as_ref(),
        };
        // The row cap only adds a limit: what the policy allows, refuses and masks is the
        // same with or without it, so `execute` may trust this verdict (sealed) as its own.
        nao_guard::check(sql, self.inner.sql_dialect(), policy)
            .map(|checked| checked.sealed(&self.seal))
            .inspect_err(|rejection| self.audit_refusal(rejection))
    }

    async fn list_tables(&self, filter: &TableFilter) -> Result<Vec<TableInfo>, DialectError> {
        let mut tables = self.inner.list_tables(filter).await?;
        let mut hidden = Vec::new();
        tables.retain(|t| {
            let allowed = self
                .policy
                .table_allowed(&guard_name(t.schema.as_deref(), &t.name));
            if !allowed {
                hidden.push(match &t.schema {
                    Some(schema) => format!("{schema}.{}", t.name),
                    None => t.name.clone(),
                });
            }
            allowed
        });
        if !hidden.is_empty() {
            self.event(PolicyAction::TablesHidden { tables: hidden });
        }
        Ok(tables)
    }

    async fn describe_table(&self, table: &TableRef) -> Result<TableSchema, DialectError> {
        let name = guard_name(table.schema.as_deref(), &table.name);
        if !self.policy.table_allowed(&name) {
            self.event(PolicyAction::TableHidden {
                table: table.to_string(),
            });
            return Err(self.hidden(table));
        }
        let mut schema = self.inner.describe_table(table).await?;
        let mut hidden = Vec::new();
        schema.columns.retain(|c| {
            let allowed = self.policy.column_allowed(&name, &c.name);
            if !allowed {
                hidden.push(c.name.clone());
            }
            allowed
        });
        for column in &mut schema.columns {
            column.mask = self.policy.column_mask(&name, &column.name);
        }
        if !hidden.is_empty() {
            self.event(PolicyAction::ColumnsHidden {
                table: table.to_string(),
                columns: hidden,
            });
        }
        Ok(schema)
    }
}
