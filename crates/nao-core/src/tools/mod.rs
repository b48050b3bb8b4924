//! The built-in tools: execute_sql, read_query_result, list_tables, describe_table,
//! display_chart, and the turn-ending clarification and suggest_follow_ups.

mod clarification;
mod describe_table;
mod display_chart;
mod execute_sql;
mod follow_ups;
mod list_tables;
mod read_query_result;
mod story;

pub use clarification::{Clarification, ClarificationArgs, ClarificationOutput};
pub use describe_table::{DescribeTable, DescribeTableArgs, DescribeTableOutput};
pub use display_chart::{DisplayChart, DisplayChartArgs, DisplayChartOutput};
pub use execute_sql::{ExecuteSql, ExecuteSqlArgs, ExecuteSqlOutput};
pub use follow_ups::{SuggestFollowUps, SuggestFollowUpsArgs, SuggestFollowUpsOutput};
pub use list_tables::{ListTables, ListTablesArgs, ListTablesOutput, ListedTable};
pub use read_query_result::{ReadQueryResult, ReadQueryResultArgs, ReadQueryResultOutput};
pub use story::{StoryAction, StoryArgs, StoryOutput, StoryTool};

use arrow_schema::Schema;
use nao_render::Truncation;
use serde::Serialize;

use crate::ToolRegistry;

/// A registry with the four built-in SQL tools.
pub fn sql_tools() -> ToolRegistry {
    ToolRegistry::new()
        .with(ExecuteSql)
        .with(ReadQueryResult)
        .with(ListTables)
        .with(DescribeTable)
}

/// The SQL tools plus display_chart, story and the turn-ending clarification and
/// suggest_follow_ups: what the agent of `nao-agent` uses unless the host gives it another
/// registry.
pub fn default_tools() -> ToolRegistry {
    sql_tools()
        .with(DisplayChart)
        .with(StoryTool)
        .with(Clarification)
        .with(SuggestFollowUps)
}

/// A column's name and Arrow type, for structured tool output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ColumnSummary {
    /// The column's name.
    pub name: String,
    /// Its Arrow type (`Int64`, `Decimal128(12, 2)`, `Timestamp(µs, "UTC")`).
    pub data_type: String,
    /// Whether it may hold NULL.
    pub nullable: bool,
}

impl ColumnSummary {
    /// The columns of a schema.
    pub fn of(schema: &Schema) -> Vec<ColumnSummary> {
        schema
            .fields()
            .iter()
            .map(|f| ColumnSummary {
                name: f.name().clone(),
                data_type: f.data_type().to_string(),
                nullable: f.is_nullable(),
            })
            .collect()
    }
}

/// A stable code for why a result stops early.
pub(crate) fn truncation_code(truncation: &Truncation) -> &'static str {
    match truncation {
        Truncation::RowCap { .. } => "row_cap",
        Truncation::ByteCap { .. } => "byte_cap",
        Truncation::Timeout { .. } => "timeout",
        _ => "other",
    }
}
