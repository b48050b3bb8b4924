//! The host's [`Policy`] as a layer: a [`Dialect`] that wraps a [`Dialect`] and applies the
//! policy to everything that passes through it, so no tool, prompt builder or MCP resource can
//! forget it. [`ToolContext`](crate::ToolContext) hands out its databases only wrapped.

use std::sync::Arc;

use async_trait::async_trait;
use nao_guard::{Policy, ReadOnlySql, SqlDialect, TableName};

use crate::{
    BatchStream, Dialect, DialectError, ExecOptions, TableFilter, TableInfo, TableRef, TableSchema,
};

/// A database seen through the host's policy:
/// - [`list_tables`](Dialect::list_tables) leaves out the tables the policy denies (the host's
///   allow and deny lists and the built-in sensitive catalogues);
/// - [`describe_table`](Dialect::describe_table) answers for a denied table as for a missing
///   one, and leaves out denied columns, so sample rows
///   ([`DialectExt::sample_rows`](crate::DialectExt::sample_rows), which selects the described
///   columns) never read them;
/// - [`execute`](Dialect::execute) checks every statement against the policy again, whoever
///   built it.
///
/// ```
/// # use std::sync::Arc;
/// use nao_core::guard::Policy;
/// use nao_core::{Dialect, GovernedDialect};
/// # fn wrap(database: Arc<dyn Dialect>) -> Arc<dyn Dialect> {
/// let policy = Arc::new(Policy::default().deny_column("customers.ssn"));
/// let governed: Arc<dyn Dialect> = Arc::new(GovernedDialect::new(database, policy));
/// # governed }
/// ```
#[derive(Debug)]
pub struct GovernedDialect {
    inner: Arc<dyn Dialect>,
    policy: Arc<Policy>,
}

impl GovernedDialect {
    /// `inner` seen through `policy`.
    pub fn new(inner: Arc<dyn Dialect>, policy: Arc<Policy>) -> Self {
        GovernedDialect { inner, policy }
    }

    /// The database without the policy.
    pub fn inner(&self) -> &Arc<dyn Dialect> {
        &self.inner
    }

    /// The policy.
    pub fn policy(&self) -> &Policy {
        &self.policy
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
}

/// The guard's name of a catalogue table.
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

    async fn execute(
        &self,
        sql: &ReadOnlySql,
        options: &ExecOptions,
    ) -> Result<BatchStream, DialectError> {
        // The statement may come from any tool, or from a host that built it under another
        // policy: judge it again under this one (the engine runs `sql` as it was given).
        if let Err(rejection) = nao_guard::check(sql.sql(), sql.dialect(), &self.policy) {
            return Err(DialectError::Permission {
                database: self.inner.name().to_owned(),
                message: format!("this database's policy refuses the statement: {rejection}"),
                code: None,
            });
        }
        self.inner.execute(sql, options).await
    }

    async fn list_tables(&self, filter: &TableFilter) -> Result<Vec<TableInfo>, DialectError> {
        let mut tables = self.inner.list_tables(filter).await?;
        tables.retain(|t| {
            self.policy
                .table_allowed(&guard_name(t.schema.as_deref(), &t.name))
        });
        Ok(tables)
    }

    async fn describe_table(&self, table: &TableRef) -> Result<TableSchema, DialectError> {
        let name = guard_name(table.schema.as_deref(), &table.name);
        if !self.policy.table_allowed(&name) {
            return Err(self.hidden(table));
        }
        let mut schema = self.inner.describe_table(table).await?;
        schema
            .columns
            .retain(|c| self.policy.column_allowed(&name, &c.name));
        Ok(schema)
    }
}
