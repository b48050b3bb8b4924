//! Helpers shared by the integration tests of nao-charts (each test file uses some of them).
#![allow(dead_code)]

pub(crate) mod chromium;
pub(crate) mod demo_queries;

use std::sync::Arc;

use nao_core::{Databases, QueryId, QueryResult, ToolCall, ToolContext, tools};
use nao_dialects::demo::DemoScale;
use nao_dialects::sqlite::SqliteDialect;
use serde_json::json;

/// A context over the small demo shop (SQLite, in memory).
pub(crate) fn demo_context() -> ToolContext {
    let shop = SqliteDialect::demo("shop", DemoScale::Small).unwrap();
    ToolContext::new(Databases::new().with(Arc::new(shop)))
}

/// Runs `sql` with execute_sql in `ctx` and returns the stored result.
pub(crate) async fn query_in(ctx: &ToolContext, sql: &str) -> Arc<QueryResult> {
    let call = ToolCall::new("q", "execute_sql", json!({ "sql_query": sql }));
    let result = tools::sql_tools().call(&call, ctx).await;
    assert!(!result.is_error, "{}", result.content);
    let id = result.structured.unwrap()["query_id"]
        .as_str()
        .unwrap()
        .to_owned();
    ctx.results().get(&QueryId::from_model(id)).await.unwrap()
}

/// Runs `sql` over a fresh demo shop and returns the stored result.
pub(crate) async fn query(sql: &str) -> Arc<QueryResult> {
    query_in(&demo_context(), sql).await
}

/// Checks that elements balance (every opened element is closed in order; `<?…>`, `<!…>` and
/// self-closed elements stand alone), that quotes in tags balance, and that no text holds a raw
/// `&` that is not an entity; returns the element names in order.
pub(crate) fn elements(svg: &str) -> Vec<String> {
    let mut stack: Vec<String> = Vec::new();
    let mut names = Vec::new();
    let mut rest = svg;
    while let Some(start) = rest.find('<') {
        let end = rest[start..].find('>').expect("unclosed tag") + start;
        let tag = &rest[start + 1..end];
        assert!(!tag.contains('<'), "'<' inside a tag: {tag}");
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(
                stack.pop().as_deref(),
                Some(name.trim()),
                "mismatched </{name}>"
            );
        } else if !tag.starts_with('?') && !tag.starts_with('!') {
            let name: String = tag
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != '/')
                .collect();
            assert_eq!(tag.matches('"').count() % 2, 0, "unbalanced quotes: {tag}");
            names.push(name.clone());
            if !tag.ends_with('/') {
                stack.push(name);
            }
        }
        // Text between tags must not hold a raw '&' that is not an entity.
        let text_end = rest[end + 1..]
            .find('<')
            .map_or(rest.len(), |i| i + end + 1);
        let text = &rest[end + 1..text_end];
        for (i, _) in text.match_indices('&') {
            let entity = &text[i..];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;", "&#"]
                    .iter()
                    .any(|e| entity.starts_with(e)),
                "raw & in text: {text}"
            );
        }
        rest = &rest[end + 1..];
    }
    assert!(stack.is_empty(), "unclosed elements: {stack:?}");
    names
}
