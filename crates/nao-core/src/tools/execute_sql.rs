//! execute_sql: the guard proves the SQL read-only, the database runs it under caps, the result
//! is stored under a new query id and shown to the model as Markdown.

use async_trait::async_trait;
use nao_render::{Truncation, render_result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tracing::Instrument;

use super::ColumnSummary;
use crate::telemetry;
use crate::{DialectExt, QueryId, QueryResult, Tool, ToolContext, ToolError};

/// Arguments of execute_sql.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExecuteSqlArgs {
    /// One read-only SQL query (SELECT, WITH … SELECT, VALUES, EXPLAIN, SHOW, DESCRIBE) in the
    /// database's dialect.
    #[schemars(length(min = 1))]
    pub sql_query: String,
    /// Which database to query; required when several are configured.
    #[serde(default)]
    pub database_id: Option<String>,
}

/// What execute_sql returns.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct ExecuteSqlOutput {
    /// The id to page (read_query_result) or chart the result with.
    pub query_id: String,
    /// The database that ran it.
    pub database_id: String,
    /// The SQL that ran (with the row cap the guard wrote into it).
    pub executed_sql: String,
    /// The columns and their types.
    pub columns: Vec<ColumnSummary>,
    /// Rows stored.
    pub row_count: u64,
    /// Why the rows stop early (`row_cap`, `byte_cap`, `timeout`), if they do.
    pub truncated_by: Option<String>,
    /// The query's own top-level LIMIT, if any.
    pub query_limit: Option<u64>,
    /// Milliseconds the database took.
    pub elapsed_ms: u64,
    #[serde(skip)]
    markdown: String,
}

/// The execute_sql tool.
#[derive(Debug, Clone, Default)]
pub struct ExecuteSql;

const DESCRIPTION: &str = "Run one read-only SQL query on a database and get the first rows as a \
Markdown table, the column types, the row count and a query_id. Only queries are allowed \
(SELECT, WITH, VALUES, EXPLAIN, SHOW, DESCRIBE); writes, DDL, side-effecting functions and \
several statements per call are refused with an explanation. Results are capped: when the \
result says more rows exist, page with read_query_result instead of re-running the query, and \
use COUNT(*) to count rather than reading rows.";

#[async_trait]
impl Tool for ExecuteSql {
    type Args = ExecuteSqlArgs;
    type Output = ExecuteSqlOutput;

    fn name(&self) -> &str {
        "execute_sql"
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    async fn call(
        &self,
        args: ExecuteSqlArgs,
        ctx: &ToolContext,
    ) -> Result<ExecuteSqlOutput, ToolError> {
        let database = ctx.databases().pick(args.database_id.as_deref())?.clone();
        let settings = ctx.settings();
        // Cap the SQL one row past what is kept, so the collector can tell "cut" from "exact".
        let cap = settings.sql_row_cap();
        // The database checks it under the policy that governs it (the settings' policy: the
        // context hands out its databases governed).
        let checked = database.prepare(&args.sql_query, Some(cap))?;
        let options = ctx.exec_options();
        let span = telemetry::db_query_span(database.name(), &checked, settings.traced_query_text);
        let collected = match database
            .query(&checked, &options)
            .instrument(span.clone())
            .await
        {
            Ok(collected) => collected,
            Err(error) => {
                telemetry::record_error(&span, error.kind_code());
                return Err(error.into());
            }
        };
        let mut truncation = collected.truncation;
        if truncation.is_none()
            && checked.cap_applied()
            && cap <= settings.max_rows
            && collected.row_count == cap
        {
            // The host's own SQL cap is below the collector's: reaching it means rows were cut.
            truncation = Some(Truncation::RowCap { cap });
        }
        telemetry::record_db_response(
            &span,
            &collected.batches,
            collected.row_count,
            truncation.as_ref(),
        );
        let result = QueryResult {
            id: QueryId::random(),
            database: database.name().to_owned(),
            sql: checked.sql().to_owned(),
            schema: collected.schema,
            batches: collected.batches,
            row_count: collected.row_count,
            truncation,
            detected_limit: checked.limit(),
            elapsed: collected.elapsed,
        };
        let result = ctx.results().insert(result).await;
        let markdown = render_result(
            &result.schema,
            &result.batches,
            &result.facts(),
            &settings.render,
        );
        Ok(ExecuteSqlOutput {
            query_id: result.id.to_string(),
            database_id: result.database.clone(),
            executed_sql: result.sql.clone(),
            columns: ColumnSummary::of(&result.schema),
            row_count: result.row_count,
            truncated_by: result
                .truncation
                .map(|t| super::truncation_code(&t).to_owned()),
            query_limit: result.detected_limit,
            elapsed_ms: u64::try_from(result.elapsed.as_millis()).unwrap_or(u64::MAX),
            markdown,
        })
    }

    fn render(&self, output: &ExecuteSqlOutput) -> String {
        output.markdown.clone()
    }

    fn row_count(&self, output: &ExecuteSqlOutput) -> Option<u64> {
        Some(output.row_count)
    }
}
