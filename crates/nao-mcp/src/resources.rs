//! Tables as MCP resources: `nao://<database>/<schema.table>`, read as Markdown.

use nao_core::tools::DescribeTable;
use nao_core::{TableFilter, TableRef, ToolCall, ToolContext, ToolRegistry};
use rmcp::ErrorData;
use rmcp::model::{ReadResourceResult, Resource, ResourceContents};
use serde_json::json;

/// The URI scheme of table resources.
pub const SCHEME: &str = "nao://";

/// The URI of a table of a database.
pub fn table_uri(database: &str, table: &TableRef) -> String {
    format!("{SCHEME}{database}/{table}")
}

/// The database and table a URI names, if it is a table URI.
pub fn parse_table_uri(uri: &str) -> Option<(&str, TableRef)> {
    let rest = uri.strip_prefix(SCHEME)?;
    let (database, table) = rest.split_once('/')?;
    if database.is_empty() || table.trim().is_empty() {
        return None;
    }
    Some((database, TableRef::parse(table)))
}

/// One resource per table of every database. The context's databases apply the policy
/// ([`GovernedDialect`](nao_core::GovernedDialect)): hidden tables are not listed. A database
/// that cannot list its tables is logged and left out, so the others still show.
pub async fn list(ctx: &ToolContext) -> Vec<Resource> {
    let mut out = Vec::new();
    for database in ctx.databases().iter() {
        let tables = match database.list_tables(&TableFilter::default()).await {
            Ok(tables) => tables,
            Err(error) => {
                tracing::warn!(database = database.name(), %error, "could not list tables");
                continue;
            }
        };
        for table in tables {
            let table_ref = table.table_ref();
            let mut resource = Resource::new(
                table_uri(database.name(), &table_ref),
                format!("{}.{}", database.name(), table_ref),
            )
            .with_title(format!("Table {table_ref} ({})", database.name()))
            .with_mime_type("text/markdown");
            if let Some(comment) = table.comment.filter(|c| !c.trim().is_empty()) {
                resource = resource.with_description(comment);
            }
            out.push(resource);
        }
    }
    out
}

/// Reads a table resource: describe_table's Markdown (columns, types, nullability, comments
/// and a few sample rows), with the same policy checks the tool applies.
pub async fn read(ctx: &ToolContext, uri: &str) -> Result<ReadResourceResult, ErrorData> {
    let Some((database, table)) = parse_table_uri(uri) else {
        return Err(ErrorData::resource_not_found(
            format!(
                "{uri:?} is not a table resource; table URIs look like nao://<database>/<schema.table>"
            ),
            None,
        ));
    };
    let registry = ToolRegistry::new().with(DescribeTable);
    let call = ToolCall::new(
        "resource",
        "describe_table",
        json!({"table": table.to_string(), "database_id": database}),
    );
    let result = registry.call(&call, ctx).await;
    if result.is_error {
        return Err(ErrorData::resource_not_found(
            result.content,
            Some(json!({ "uri": uri })),
        ));
    }
    Ok(ReadResourceResult::new(vec![
        ResourceContents::text(result.content, uri).with_mime_type("text/markdown"),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip() {
        let table = TableRef::parse("main.orders");
        let uri = table_uri("shop", &table);
        assert_eq!(uri, "nao://shop/main.orders");
        assert_eq!(parse_table_uri(&uri), Some(("shop", table)));
        assert_eq!(parse_table_uri("nao://shop/"), None);
        assert_eq!(parse_table_uri("file:///etc/passwd"), None);
    }
}
