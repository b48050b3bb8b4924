//! describe_table: a table's columns, types, nullability and comments, with a few sample rows.

use async_trait::async_trait;
use nao_render::{
    MarkdownTable, RenderBudget, ResultFacts, code_block, escape_cell, render_result,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{ColumnInfo, DialectExt, TableRef, Tool, ToolContext, ToolError};

/// The most columns listed.
const MAX_LISTED_COLUMNS: usize = 1_000;
/// The most bytes of the column list (names, types and comments come from the database).
const MAX_COLUMN_LIST_BYTES: usize = 32 * 1024;
/// The longest name, type or column comment shown, in characters.
const MAX_CELL_CHARS: usize = 200;
/// The longest table name and table comment shown, in characters.
const MAX_TABLE_NAME_CHARS: usize = 200;
const MAX_TABLE_COMMENT_CHARS: usize = 500;
/// The longest error message of the sample query shown, in characters.
const MAX_SAMPLE_ERROR_CHARS: usize = 2_000;

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
#[derive(Debug, Clone, Serialize, JsonSchema)]
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
            let options = ctx.exec_options();
            match database.sample_rows(&table, rows, &options).await {
                Ok(sample) => {
                    let facts = ResultFacts::new("sample", sample.row_count);
                    let budget = settings
                        .render
                        .with_max_rows(usize::try_from(rows).unwrap_or(usize::MAX));
                    Some(render_result(
                        &sample.schema,
                        &sample.batches,
                        &facts,
                        &budget,
                    ))
                }
                // The engine's message may quote names and values: quoted, never prose.
                Err(error) => Some(format!(
                    "Sample rows could not be read:\n\n{}",
                    code_block(&error.to_string(), MAX_SAMPLE_ERROR_CHARS)
                )),
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
        let columns = output.columns.len();
        let mut out = format!(
            "Table {} ({columns} column{})",
            escape_cell(&output.table, MAX_TABLE_NAME_CHARS),
            if columns == 1 { "" } else { "s" }
        );
        let mut ends_sentence = false;
        if let Some(comment) = &output.comment {
            let comment = escape_cell(comment, MAX_TABLE_COMMENT_CHARS);
            ends_sentence = comment.ends_with(['.', '!', '?']);
            out.push_str(": ");
            out.push_str(&comment);
        }
        out.push_str(if ends_sentence { "\n\n" } else { ".\n\n" });
        let budget = RenderBudget::default()
            .with_max_rows(MAX_LISTED_COLUMNS)
            .with_max_bytes(MAX_COLUMN_LIST_BYTES)
            .with_max_cell_chars(MAX_CELL_CHARS);
        let mut table = MarkdownTable::new(["column", "type", "nullable", "comment"], &budget)
            .with_row_noun("column", "columns");
        for c in &output.columns {
            let nullable = if c.nullable { "yes" } else { "no" };
            // A masked column says so where the model reads about the column.
            let comment = match (c.comment.as_deref(), c.mask) {
                (comment, Some(rule)) => {
                    let note = format!("[values masked by the host's policy: {}]", rule.name());
                    match comment {
                        Some(comment) => format!("{comment} {note}"),
                        None => note,
                    }
                }
                (comment, None) => comment.unwrap_or_default().to_owned(),
            };
            table.push_row([c.name.as_str(), &c.engine_type, nullable, &comment]);
        }
        out.push_str(&table.finish());
        if let Some(samples) = &output.samples {
            out.push_str("\nSample rows:\n\n");
            out.push_str(samples);
        }
        out
    }
}
