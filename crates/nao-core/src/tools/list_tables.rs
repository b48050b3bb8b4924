//! list_tables: the tables and views the agent can query.

use async_trait::async_trait;
use nao_render::{MarkdownTable, RenderBudget};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{TableFilter, TableKind, Tool, ToolContext, ToolError};

/// The most tables one call lists; the rest are counted.
const MAX_LISTED: usize = 300;
/// The most bytes of the rendered list (table names and comments come from the database).
const MAX_RENDERED_BYTES: usize = 24 * 1024;
/// The longest name or comment shown, in characters.
const MAX_CELL_CHARS: usize = 200;

/// Arguments of list_tables.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListTablesArgs {
    /// Which database to list; every database when omitted.
    #[serde(default)]
    pub database_id: Option<String>,
    /// Only tables in this schema.
    #[serde(default)]
    pub schema: Option<String>,
    /// Only tables whose name contains this text (`*` matches anything).
    #[serde(default)]
    pub pattern: Option<String>,
}

/// One listed table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ListedTable {
    /// The database it is in.
    pub database_id: String,
    /// The qualified name to use in SQL (`schema.name` or `name`).
    pub table: String,
    /// Table, view, …
    pub kind: TableKind,
    /// Its comment.
    pub comment: Option<String>,
}

/// What list_tables returns.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct ListTablesOutput {
    /// The tables listed (at most 300).
    pub tables: Vec<ListedTable>,
    /// How many matched in all.
    pub total: usize,
}

/// The list_tables tool.
#[derive(Debug, Clone, Default)]
pub struct ListTables;

#[async_trait]
impl Tool for ListTables {
    type Args = ListTablesArgs;
    type Output = ListTablesOutput;

    fn name(&self) -> &str {
        "list_tables"
    }

    fn description(&self) -> &str {
        "List the tables and views you can query, with their comments. Filter by database_id, \
         schema, or a name pattern when there are many. Then use describe_table for columns."
    }

    async fn call(
        &self,
        args: ListTablesArgs,
        ctx: &ToolContext,
    ) -> Result<ListTablesOutput, ToolError> {
        let databases: Vec<_> = match args.database_id.as_deref() {
            Some(id) => vec![ctx.databases().pick(Some(id))?.clone()],
            None => ctx.databases().iter().cloned().collect(),
        };
        if databases.is_empty() {
            ctx.databases().pick(None)?;
        }
        let mut filter = TableFilter::default();
        filter.schema = args.schema.filter(|s| !s.trim().is_empty());
        filter.pattern = args.pattern.filter(|p| !p.trim().is_empty());
        let mut tables = Vec::new();
        for database in databases {
            for info in database.list_tables(&filter).await? {
                tables.push(ListedTable {
                    database_id: database.name().to_owned(),
                    table: info.table_ref().to_string(),
                    kind: info.kind,
                    comment: info.comment,
                });
            }
        }
        let total = tables.len();
        tables.truncate(MAX_LISTED);
        Ok(ListTablesOutput { tables, total })
    }

    fn render(&self, output: &ListTablesOutput) -> String {
        if output.total == 0 {
            return "No tables match. Call list_tables without schema and pattern to see all.\n"
                .into();
        }
        let several = output
            .tables
            .iter()
            .any(|t| t.database_id != output.tables[0].database_id);
        let mut headers = vec!["table", "kind", "comment"];
        if several {
            headers.insert(0, "database_id");
        }
        let budget = RenderBudget::default()
            .with_max_rows(MAX_LISTED)
            .with_max_bytes(MAX_RENDERED_BYTES)
            .with_max_cell_chars(MAX_CELL_CHARS);
        let mut table = MarkdownTable::new(headers, &budget)
            .with_row_noun("table", "tables")
            .with_more_rows_hint("narrow the list with schema or pattern")
            .with_total_rows(output.total as u64);
        for t in &output.tables {
            let kind = t.kind.to_string();
            let comment = t.comment.as_deref().unwrap_or_default();
            if several {
                table.push_row([t.database_id.as_str(), &t.table, &kind, comment]);
            } else {
                table.push_row([t.table.as_str(), &kind, comment]);
            }
        }
        let tables = if output.total == 1 { "table" } else { "tables" };
        let mut out = format!("{} {tables}.\n\n", output.total);
        out.push_str(&table.finish());
        out
    }
}
