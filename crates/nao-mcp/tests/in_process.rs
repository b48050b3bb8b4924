//! The server driven in-process through rmcp's own client, over an in-memory duplex pipe:
//! tools, calls (success, refusal, bad arguments), result paging and table resources.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod in_memory;

use in_memory::{call, text};
use nao_core::guard::Policy;
use nao_core::{Databases, Settings, ToolContext, tools};
use nao_mcp::McpServer;
use rmcp::ServiceError;
use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams};
use rmcp::service::{RoleClient, RunningService};
use serde_json::json;

async fn connect(settings: Settings) -> RunningService<RoleClient, ()> {
    let shop = nao_mcp::app::demo_database().unwrap();
    let ctx = ToolContext::new(Databases::new().with(shop)).with_settings(settings);
    in_memory::connect(McpServer::new(tools::sql_tools(), ctx)).await
}

#[tokio::test]
async fn lists_tools_with_schemas_and_annotations() {
    let client = connect(Settings::default()).await;
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "describe_table",
            "execute_sql",
            "list_tables",
            "read_query_result"
        ]
    );
    let execute_sql = tools.iter().find(|t| t.name == "execute_sql").unwrap();
    assert!(execute_sql.description.as_deref().unwrap_or("").len() > 20);
    assert_eq!(execute_sql.input_schema["type"], "object");
    assert!(execute_sql.input_schema["properties"]["sql_query"].is_object());
    // The structured content's schema: what the tool returns, as MCP's outputSchema.
    let output = execute_sql
        .output_schema
        .as_ref()
        .expect("an output schema");
    assert_eq!(output["type"], "object");
    assert!(output["properties"]["query_id"].is_object(), "{output:?}");
    assert!(
        tools.iter().all(|t| t.output_schema.is_some()),
        "every tool has one"
    );
    let hints = execute_sql.annotations.as_ref().unwrap();
    assert_eq!(hints.read_only_hint, Some(true));
    assert_eq!(hints.destructive_hint, Some(false));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn executes_sql_and_pages_the_result() {
    let client = connect(Settings::default()).await;
    let result = call(
        &client,
        "execute_sql",
        json!({"sql_query": "SELECT id, name FROM customers ORDER BY id"}),
    )
    .await;
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    assert!(text(&result).contains("| 1 |"), "{}", text(&result));
    let structured = result.structured_content.expect("structured content");
    let query_id = structured["query_id"].as_str().unwrap().to_owned();
    assert!(query_id.starts_with("q_"));

    let page = call(
        &client,
        "read_query_result",
        json!({"query_id": query_id, "offset": 5, "limit": 2}),
    )
    .await;
    assert_eq!(page.is_error, Some(false), "{}", text(&page));
    assert!(text(&page).contains("| 6 |"), "{}", text(&page));
    assert!(!text(&page).contains("| 8 |"), "{}", text(&page));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn refuses_writes_as_tool_errors() {
    let client = connect(Settings::default()).await;
    let result = call(
        &client,
        "execute_sql",
        json!({"sql_query": "DELETE FROM orders"}),
    )
    .await;
    assert_eq!(result.is_error, Some(true));
    assert!(result.structured_content.is_none());
    assert!(text(&result).contains("not allowed"), "{}", text(&result));
    // The table is still there.
    let count = call(
        &client,
        "execute_sql",
        json!({"sql_query": "SELECT count(*) AS n FROM orders"}),
    )
    .await;
    assert_eq!(count.is_error, Some(false), "{}", text(&count));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn bad_arguments_and_unknown_tools_are_tool_errors() {
    let client = connect(Settings::default()).await;
    let wrong_type = call(&client, "execute_sql", json!({"sql_query": 42})).await;
    assert_eq!(wrong_type.is_error, Some(true));
    assert!(
        text(&wrong_type).contains("sql_query"),
        "{}",
        text(&wrong_type)
    );

    let unknown_field = call(&client, "execute_sql", json!({"sql": "SELECT 1"})).await;
    assert_eq!(unknown_field.is_error, Some(true));

    let unknown_query = call(&client, "read_query_result", json!({"query_id": "q_nope"})).await;
    assert_eq!(unknown_query.is_error, Some(true));

    // rmcp answers an unknown tool before the handler sees it, or the registry does: either
    // way the client gets an answer, not a hang or a dropped connection.
    let unknown_tool = client
        .call_tool(CallToolRequestParams::new("drop_everything"))
        .await;
    match unknown_tool {
        Ok(result) => assert_eq!(result.is_error, Some(true)),
        Err(ServiceError::McpError(_)) => {}
        Err(other) => panic!("unexpected {other:?}"),
    }
    // The session still works.
    let ok = call(&client, "list_tables", json!({})).await;
    assert_eq!(ok.is_error, Some(false), "{}", text(&ok));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn tables_are_resources() {
    let client = connect(Settings::default()).await;
    let resources = client.list_all_resources().await.unwrap();
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert!(uris.contains(&"nao://shop/orders"), "{uris:?}");
    assert!(uris.contains(&"nao://shop/customers"), "{uris:?}");

    let read = client
        .read_resource(ReadResourceRequestParams::new("nao://shop/orders"))
        .await
        .unwrap();
    let body = serde_json::to_value(&read.contents[0]).unwrap();
    let markdown = body["text"].as_str().unwrap();
    assert!(markdown.contains("orders"), "{markdown}");
    assert!(markdown.contains("status"), "{markdown}");
    assert_eq!(body["mimeType"], "text/markdown");

    let missing = client
        .read_resource(ReadResourceRequestParams::new("nao://shop/no_such_table"))
        .await;
    assert!(
        matches!(missing, Err(ServiceError::McpError(_))),
        "{missing:?}"
    );
    let foreign = client
        .read_resource(ReadResourceRequestParams::new("file:///etc/passwd"))
        .await;
    assert!(
        matches!(foreign, Err(ServiceError::McpError(_))),
        "{foreign:?}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_table_allowlist_hides_tables_everywhere() {
    let settings = Settings::default().with_policy(Policy::default().allow_table("orders"));
    let client = connect(settings).await;
    let resources = client.list_all_resources().await.unwrap();
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris, ["nao://shop/orders"]);
    let hidden = client
        .read_resource(ReadResourceRequestParams::new("nao://shop/customers"))
        .await;
    assert!(hidden.is_err());
    let refused = call(
        &client,
        "execute_sql",
        json!({"sql_query": "SELECT * FROM customers"}),
    )
    .await;
    assert_eq!(refused.is_error, Some(true), "{}", text(&refused));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_denied_column_is_left_out_of_resources_and_tools() {
    let settings =
        Settings::default().with_policy(Policy::default().deny_column("customers.email"));
    let client = connect(settings).await;
    let resource = client
        .read_resource(ReadResourceRequestParams::new("nao://shop/customers"))
        .await
        .unwrap();
    let shown = serde_json::to_string(&resource).unwrap();
    assert!(shown.contains("name"), "{shown}");
    assert!(
        !shown.contains("email"),
        "the resource shows the denied column: {shown}"
    );
    assert!(
        !shown.contains("@example.com"),
        "the resource shows an email: {shown}"
    );
    let described = call(&client, "describe_table", json!({"table": "customers"})).await;
    assert!(
        !text(&described).contains("@example.com"),
        "{}",
        text(&described)
    );
    let refused = call(
        &client,
        "execute_sql",
        json!({"sql_query": "SELECT email FROM customers"}),
    )
    .await;
    assert_eq!(refused.is_error, Some(true), "{}", text(&refused));
    client.cancel().await.unwrap();
}
