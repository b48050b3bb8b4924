//! describe_table: a table's columns, types, nullability and comments, with a few sample rows.

use async_trait::async_trait;
use nao_render::{RenderBudget, ResultFacts, render_result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::markdown_table;
use crate::{ColumnInfo, DialectExt, TableRef, Tool, ToolContext, ToolError};

/// Arguments of describe_table.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DescribeTableArgs {
    /// The table, as list_tables shows it (`name` or `schema.name`).
    #[schemars(length(min = 1))]
    pub table: String,
    /// Which database; required when several are configured.
    #[serde(default)]
    pub database_id: Option<String>,
}

/// What describe_table returns.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct DescribeTableOutput {
    /// The database.
    pub database_id: String,
    /// The table.
    pub table: String,
    /// The table's comment.
    pub comment: Option<String>,
    /// The columns.
    pub columns: Vec<ColumnInfo>,
    #[serde(skip)]
    samples: Option<String>,
}

/// The describe_table tool.
#[derive(Debug, Clone, Default)]
pub struct DescribeTable;

#[async_trait]
impl Tool for DescribeTable {
    type Args = DescribeTableArgs;
    type Output = DescribeTableOutput;

    fn name(&self) -> &str {
        "describe_table"
    }

    fn description(&self) -> &str {
        "Show a table's columns with their types, nullability and comments, and a few sample \
         rows, before writing SQL against it."
    }

    async fn call(
        &self,
        args: DescribeTableArgs,
        ctx: &ToolContext,
    ) -> Result<DescribeTableOutput, ToolError> {
        let database = ctx.databases().pick(args.database_id.as_deref())?.clone();
        let table = TableRef::parse(&args.table);
        // The context's databases apply the policy: a hidden table is described as a missing
        // one, hidden columns are left out, and the samples select only the columns shown.
        let schema = database.describe_table(&table).await?;
        let settings = ctx.settings();
        let rows = settings.describe_sample_rows;
        let samples = if rows == 0 {
            None
        } else {
            let options = settings.exec_options(ctx.cancel().clone());
            match database.sample_rows(&table, rows, &options).await {
                Ok(sample) => {
                    let facts = ResultFacts::new("sample", sample.row_count);
                    let budget = RenderBudget::default()
                        .with_max_rows(usize::try_from(rows).unwrap_or(usize::MAX));
                    Some(render_result(
                        &sample.schema,
                        &sample.batches,
                        &facts,
                        &budget,
                    ))
                }
                Err(error) => Some(format!("Sample rows could not be read: {error}\n")),
            }
        };
        Ok(DescribeTableOutput {
            database_id: database.name().to_owned(),
            table: schema.table.to_string(),
            comment: schema.comment,
            columns: schema.columns,
            samples,
        })
    }

    fn render(&self, output: &DescribeTableOutput) -> String {
        let mut out = format!("Table {} ({} columns)", output.table, output.columns.len());
        if let Some(comment) = &output.comment {
            out.push_str(&format!(": {}", nao_render::escape_cell(comment, 500)));
        }
        out.push_str(".\n\n");
        let rows: Vec<Vec<String>> = output
            .columns
            .iter()
            .map(|c| {
                vec![
                    c.name.clone(),
                    c.engine_type.clone(),
                    if c.nullable { "yes" } else { "no" }.to_owned(),
                    c.comment.clone().unwrap_or_default(),
                ]
            })
            .collect();
        out.push_str(&markdown_table(
            &["column", "type", "nullable", "comment"],
            &rows,
            200,
        ));
        if let Some(samples) = &output.samples {
            out.push_str("\nSample rows:\n\n");
            out.push_str(samples);
        }
        out
    }
}
