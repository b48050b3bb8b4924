//! The trait every database adapter implements, and the helpers every adapter gets.

use std::fmt::Debug;

use async_trait::async_trait;
use nao_guard::{Policy, ReadOnlySql, Rejection, SqlDialect};

use crate::{
    Admitted, BatchStream, CollectedBatches, DialectError, ExecOptions, TableFilter, TableInfo,
    TableRef, TableSchema, collect_capped,
};

/// A database the agent can query: an engine behind a connection or a pool.
///
/// Adapters (in `nao-dialects`) are read-only at the engine too, stream batches and stop at the
/// cap, and honour the timeout and cancellation of [`ExecOptions`]. Only [`ReadOnlySql`] can be
/// executed, so the SQL guard has always run first.
#[async_trait]
pub trait Dialect: Debug + Send + Sync + 'static {
    /// The `database_id` the model uses to pick this database.
    fn name(&self) -> &str;

    /// The SQL dialect: the guard parses with it and the prompt describes it.
    fn sql_dialect(&self) -> SqlDialect;

    /// Starts the statement and returns its batches as they come.
    async fn execute(
        &self,
        sql: &ReadOnlySql,
        options: &ExecOptions,
    ) -> Result<BatchStream, DialectError>;

    /// Lists the tables and views the connection can read.
    async fn list_tables(&self, filter: &TableFilter) -> Result<Vec<TableInfo>, DialectError>;

    /// Describes one table's columns.
    async fn describe_table(&self, table: &TableRef) -> Result<TableSchema, DialectError>;

    /// How many statements the adapter itself can run at once (its pool of connections or
    /// worker processes), if it has such a bound: [`AdmittedDialect`](crate::AdmittedDialect)
    /// lets no more than that run, so a statement never waits inside the adapter on its own
    /// time. `None` (the default): no bound of its own.
    fn max_concurrent_statements(&self) -> Option<usize> {
        None
    }

    /// Whether `error` is one of this engine's own read-only layers refusing a statement (a
    /// write, above all): a read-only transaction or server, a database opened read-only,
    /// SQLite's authorizer and its reading of the prepared statement. Statements reach an
    /// engine only after the
    /// guard read them as read-only (or through the escape hatch), so such a refusal means the
    /// two readings of the text disagreed: [`GovernedDialect`](crate::GovernedDialect)
    /// reports it to the audit ([`PolicyAction::ReadingsDisagree`](crate::PolicyAction)), so
    /// that it becomes a test case. The default: no error is one (an engine without such a
    /// gate, or an adapter that cannot tell).
    fn refused_as_writing(&self, error: &DialectError) -> bool {
        let _ = error;
        false
    }

    /// Waits for this database's turn to run a statement (see
    /// [`AdmittedDialect`](crate::AdmittedDialect)); the turn lasts until the returned value is
    /// dropped. The default admits at once: a bare adapter does not count its statements.
    async fn admit(&self, options: &ExecOptions) -> Result<Admitted, DialectError> {
        let _ = options;
        Ok(Admitted::free())
    }

    /// Checks `sql` for this database and adds `row_cap` as a limit (or keeps a smaller one):
    /// the guard under the policy that governs the database. A bare adapter has only the
    /// guard's defaults ([`Policy::default()`]); a [`GovernedDialect`](crate::GovernedDialect)
    /// applies the host's policy and reports a refusal to the audit. Tools prepare their SQL
    /// here, so that the policy lives in one place.
    fn prepare(&self, sql: &str, row_cap: Option<u64>) -> Result<ReadOnlySql, Rejection> {
        let policy = match row_cap {
            Some(cap) => Policy::default().with_row_cap(cap),
            None => Policy::default(),
        };
        nao_guard::check(sql, self.sql_dialect(), &policy)
    }
}

/// Helpers on every [`Dialect`]: collecting with caps, sampling rows.
#[async_trait]
pub trait DialectExt: Dialect {
    /// Executes and collects under the caps, timeout and cancellation of `options`.
    async fn query(
        &self,
        sql: &ReadOnlySql,
        options: &ExecOptions,
    ) -> Result<CollectedBatches, DialectError> {
        // Waiting for a turn is not running: the time limit starts once admitted.
        let turn = self.admit(options).await?;
        let started = tokio::time::Instant::now();
        let deadline = started + options.timeout;
        // A child token lets the timeout stop the adapter without cancelling the caller's token.
        let options = options
            .clone()
            .with_cancel(options.cancel.child_token())
            .with_turn(turn);
        let stream = match tokio::time::timeout_at(deadline, self.execute(sql, &options)).await {
            Ok(stream) => stream?,
            Err(_) => {
                options.cancel.cancel();
                return Err(DialectError::Timeout {
                    database: self.name().to_owned(),
                    limit: options.timeout,
                });
            }
        };
        collect_capped(stream, &options, self.name(), started).await
    }

    /// The first `rows` rows of a table: its columns as [`describe_table`](Dialect::describe_table)
    /// lists them, by name (`SELECT "a", "b" FROM table LIMIT rows` in the engine's syntax), so
    /// a dialect that hides columns (a [`GovernedDialect`](crate::GovernedDialect)) samples
    /// only the ones it shows.
    async fn sample_rows(
        &self,
        table: &TableRef,
        rows: u64,
        options: &ExecOptions,
    ) -> Result<CollectedBatches, DialectError> {
        let dialect = self.sql_dialect();
        let described = self.describe_table(table).await?;
        if described.columns.is_empty() {
            return Err(DialectError::Unsupported {
                database: self.name().to_owned(),
                what: format!("no column of {table} can be read, so there is nothing to sample"),
            });
        }
        let columns = described
            .columns
            .iter()
            .map(|c| dialect.quote_identifier(&c.name))
            .collect::<Vec<_>>()
            .join(", ");
        let name = quote_table(table, dialect);
        let sql = self
            .prepare(&format!("SELECT {columns} FROM {name}"), Some(rows))
            .map_err(|e| DialectError::Unsupported {
                database: self.name().to_owned(),
                what: e.to_string(),
            })?;
        self.query(&sql, &options.clone().with_max_rows(rows)).await
    }
}

impl<T: Dialect + ?Sized> DialectExt for T {}

/// Quotes a table reference for `dialect`, doubling embedded quote characters.
pub fn quote_table(table: &TableRef, dialect: SqlDialect) -> String {
    match &table.schema {
        Some(schema) => format!(
            "{}.{}",
            dialect.quote_identifier(schema),
            dialect.quote_identifier(&table.name)
        ),
        None => dialect.quote_identifier(&table.name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_quoted_in_each_dialects_style() {
        let t = TableRef::parse("sales.order\"s");
        assert_eq!(
            quote_table(&t, SqlDialect::Postgres),
            "\"sales\".\"order\"\"s\""
        );
        assert_eq!(
            quote_table(&TableRef::parse("a`b"), SqlDialect::MySql),
            "`a``b`"
        );
        assert_eq!(
            quote_table(&TableRef::parse("x]y"), SqlDialect::MsSql),
            "[x]]y]"
        );
    }
}
