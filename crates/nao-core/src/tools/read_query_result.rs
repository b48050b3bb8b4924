//! read_query_result: a page of a stored result, sliced in place.

use async_trait::async_trait;
use nao_render::render_page;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{Tool, ToolContext, ToolError};

fn default_limit() -> u64 {
    20
}

/// Arguments of read_query_result.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadQueryResultArgs {
    /// The query_id that execute_sql returned.
    #[schemars(length(min = 1))]
    pub query_id: String,
    /// The first row to show, counting from 0.
    #[serde(default)]
    pub offset: u64,
    /// How many rows to show (at most 200).
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1, max = 200))]
    pub limit: u64,
}

/// What read_query_result returns.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct ReadQueryResultOutput {
    /// The result's id.
    pub query_id: String,
    /// The first row shown.
    pub offset: u64,
    /// Rows the page asked for (after the settings' bound).
    pub limit: u64,
    /// Rows in the stored result.
    pub total_rows: u64,
    #[serde(skip)]
    markdown: String,
}

/// The read_query_result tool.
#[derive(Debug, Clone, Default)]
pub struct ReadQueryResult;

#[async_trait]
impl Tool for ReadQueryResult {
    type Args = ReadQueryResultArgs;
    type Output = ReadQueryResultOutput;

    fn name(&self) -> &str {
        "read_query_result"
    }

    fn description(&self) -> &str {
        "Show more rows of a result that execute_sql stored, without running the query again: \
         rows offset to offset+limit-1 (offset counts from 0). Use it when execute_sql says more \
         rows exist."
    }

    async fn call(
        &self,
        args: ReadQueryResultArgs,
        ctx: &ToolContext,
    ) -> Result<ReadQueryResultOutput, ToolError> {
        let result = ctx.result(&args.query_id).await?;
        let settings = ctx.settings();
        let limit = args.limit.clamp(1, settings.max_page_rows.max(1));
        let page_limit = usize::try_from(limit).unwrap_or(usize::MAX);
        let budget = settings.render.with_max_rows(page_limit);
        let markdown = render_page(
            &result.schema,
            &result.batches,
            &result.facts(),
            args.offset,
            page_limit,
            &budget,
        );
        Ok(ReadQueryResultOutput {
            query_id: result.id.to_string(),
            offset: args.offset,
            limit,
            total_rows: result.row_count,
            markdown,
        })
    }

    fn render(&self, output: &ReadQueryResultOutput) -> String {
        output.markdown.clone()
    }
}
