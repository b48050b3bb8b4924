//! The MCP server: a [`ToolRegistry`] and a [`ToolContext`] behind rmcp's [`ServerHandler`].

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use nao_core::{RiskLevel, RowsRead, ToolCall, ToolContext, ToolRegistry, ToolResult, ToolSpec};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam,
    ProgressToken, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::drain::Drain;
use crate::resources;

/// Instructions sent to the client at initialization, for the model.
const INSTRUCTIONS: &str = "Answer questions from the configured SQL databases. Use list_tables \
and describe_table (or the nao:// table resources) to learn the schema, then execute_sql with one \
read-only query; page large results with read_query_result and the query_id it returns. Every \
query is checked read-only before it runs and results are capped.";

/// How often a call whose request carries a progress token is reported as still running
/// (see [`McpServer::with_progress_interval`]).
pub const DEFAULT_PROGRESS_INTERVAL: Duration = Duration::from_secs(1);

/// The longest a progress notification may hold up the call it reports on: a client that reads
/// slowly loses notifications, never the call's time.
const PROGRESS_SEND_LIMIT: Duration = Duration::from_millis(100);

/// An MCP server over a [`ToolRegistry`]: every registered tool becomes an MCP tool (its JSON
/// Schema as the input schema, its output's as the output schema, its risk level as
/// read-only/destructive hints, its Markdown as text content and its output as structured
/// content), and every table of every database
/// becomes a resource `nao://<database>/<schema.table>`.
///
/// Cloning is cheap; clones share the registry, the context (and so the stored results) and
/// the [`Drain`] of running calls. [`for_session`](Self::for_session) is a clone whose results
/// are its own: what the streamable HTTP transport serves each session with, all of them shut
/// down gracefully together.
#[derive(Debug, Clone)]
pub struct McpServer {
    registry: Arc<ToolRegistry>,
    ctx: ToolContext,
    tools: Arc<Vec<Tool>>,
    info: Implementation,
    drain: Drain,
    progress_interval: Duration,
}

impl McpServer {
    /// A server over `registry`, running calls in `ctx`.
    pub fn new(registry: ToolRegistry, ctx: ToolContext) -> Self {
        let tools = registry.specs().iter().map(mcp_tool).collect();
        McpServer {
            registry: Arc::new(registry),
            ctx,
            tools: Arc::new(tools),
            info: Implementation::new("nao-mcp", env!("CARGO_PKG_VERSION")),
            drain: Drain::new(),
            progress_interval: DEFAULT_PROGRESS_INTERVAL,
        }
    }

    /// Reports a call whose request carries a progress token (`_meta.progressToken`) as still
    /// running every `interval` (default [`DEFAULT_PROGRESS_INTERVAL`]) until it ends, with a
    /// `notifications/progress` whose progress is the seconds elapsed and whose message says
    /// how many rows its statements have read so far: clients that restart
    /// their request timeout on progress then wait for a long query instead of giving up on
    /// it. Calls without a token hear nothing. A zero interval is taken as one millisecond.
    #[must_use]
    pub fn with_progress_interval(mut self, interval: Duration) -> Self {
        self.progress_interval = interval.max(Duration::from_millis(1));
        self
    }

    /// The same server for one more session: its calls run in
    /// [`ToolContext::for_session`] of this server's context, so the session pages only its
    /// own results, shares the result budget fairly, and its results are dropped when the
    /// session ends. The streamable HTTP transport makes one per session.
    #[must_use]
    pub fn for_session(&self) -> McpServer {
        McpServer {
            ctx: self.ctx.for_session(),
            ..self.clone()
        }
    }

    /// The running calls, and their graceful shutdown ([`Drain::shut_down`]).
    pub fn drain(&self) -> &Drain {
        &self.drain
    }

    /// The MCP tools this server lists.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The context calls run in.
    pub fn context(&self) -> &ToolContext {
        &self.ctx
    }

    /// The registry calls go to.
    pub fn registry(&self) -> &ToolRegistry {
        &self.registry
    }

    /// Runs one `tools/call`: the registry validates and runs it; failures come back as tool
    /// results with `is_error` set and the text the model would see.
    pub async fn call(&self, name: &str, arguments: Option<Value>, call_id: &str) -> ToolResult {
        let call = ToolCall::new(call_id, name, arguments.unwrap_or(Value::Null));
        self.registry.call(&call, &self.ctx).await
    }
}

/// The MCP tool of a registry spec.
pub fn mcp_tool(spec: &ToolSpec) -> Tool {
    let schema = match &spec.parameters {
        Value::Object(object) => object.clone(),
        _ => serde_json::Map::new(),
    };
    let mut annotations = ToolAnnotations::new();
    match spec.risk {
        RiskLevel::Safe => annotations = annotations.read_only(true).destructive(false),
        RiskLevel::High => annotations = annotations.read_only(false).destructive(true),
        // Caution and any later level: no claim either way.
        _ => {}
    }
    // Every built-in tool only reads from databases it is configured with.
    annotations = annotations.open_world(false);
    let mut tool = Tool::new(
        spec.name.clone(),
        spec.description.clone(),
        Arc::new(schema),
    )
    .with_annotations(annotations);
    tool.output_schema = Some(Arc::new(output_schema(&spec.output)));
    tool
}

/// The schema of a tool's structured content, which MCP wants to be an object schema:
/// [`mcp_result`] sends an object output as it is and wraps any other value as
/// `{"result": …}`. So an object schema stays as it is; a schema that allows no object
/// describes the wrapper; one that allows objects and other values (`Option<T>`, an untagged
/// enum) allows either form.
fn output_schema(output: &Value) -> serde_json::Map<String, Value> {
    let allows_object = match output.get("type") {
        Some(Value::String(name)) => name == "object",
        Some(Value::Array(names)) => names.iter().any(|name| name == "object"),
        _ => true,
    };
    if output.get("type").and_then(Value::as_str) == Some("object")
        && let Value::Object(object) = output
    {
        return object.clone();
    }
    let mut properties = serde_json::Map::new();
    properties.insert("result".to_owned(), output.clone());
    let mut wrapped = serde_json::Map::new();
    wrapped.insert("type".to_owned(), "object".into());
    wrapped.insert("properties".to_owned(), Value::Object(properties));
    wrapped.insert("required".to_owned(), serde_json::json!(["result"]));
    if !allows_object {
        return wrapped;
    }
    let mut either = serde_json::Map::new();
    either.insert("type".to_owned(), "object".into());
    either.insert(
        "anyOf".to_owned(),
        Value::Array(vec![Value::Object(wrapped), output.clone()]),
    );
    either
}

/// The MCP result of a registry result.
pub fn mcp_result(result: ToolResult) -> CallToolResult {
    let content = vec![ContentBlock::text(result.content)];
    let mut out = if result.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    // MCP wants structured content to be an object; wrap anything else.
    out.structured_content = result.structured.map(|value| match value {
        Value::Object(_) => value,
        other => serde_json::json!({ "result": other }),
    });
    out
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(self.info.clone())
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let slot = self.drain.enter().ok_or_else(crate::drain::refused_error)?;
        // The statement stops when the request is cancelled (`notifications/cancelled`, an
        // HTTP client that went away, a stdio peer that closed its end) or the shutdown cuts
        // running calls.
        let cancel = slot.cancel_token();
        let mut ctx = self.ctx.clone().with_cancel(cancel.clone());
        let progress = context.meta.get_progress_token().map(|token| {
            let rows = RowsRead::default();
            ctx = ctx.clone().with_rows_read(rows.clone());
            (token, rows)
        });
        let call = ToolCall::new(
            context.id.to_string(),
            request.name.as_ref(),
            request.arguments.map(Value::Object).unwrap_or(Value::Null),
        );
        let started = Instant::now();
        let work = reporting_progress(
            self.registry.call(&call, &ctx),
            progress.map(|(token, rows)| Progress {
                token,
                rows,
                peer: &context.peer,
                every: self.progress_interval,
                tool: &call.name,
            }),
        );
        let result = until_done(work, &context.ct, &cancel).await;
        let outcome = call_outcome(&context.ct, &self.drain, result.is_error);
        // The transport tests watch this line to see a statement end on a disconnect.
        tracing::debug!(
            tool = %call.name,
            id = %context.id,
            elapsed_ms = started.elapsed().as_millis(),
            outcome,
            "call ended"
        );
        if outcome == "cut" {
            return Err(crate::drain::cut_error());
        }
        Ok(mcp_result(result).into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let list = resources::list(&self.ctx).await;
        Ok(ListResourcesResult::with_all_items(list))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let slot = self.drain.enter().ok_or_else(crate::drain::refused_error)?;
        let cancel = slot.cancel_token();
        let ctx = self.ctx.clone().with_cancel(cancel.clone());
        let result = until_done(resources::read(&ctx, &request.uri), &context.ct, &cancel).await;
        if result.is_err() && call_outcome(&context.ct, &self.drain, true) == "cut" {
            return Err(crate::drain::cut_error());
        }
        result.map(Into::into)
    }
}

/// Runs `work` to its end, cancelling `cancel` (which its statements listen to) as soon as the
/// request's own token `request` is cancelled. `cancel` is the call's child of the shutdown's
/// token, so either cause stops the statement.
async fn until_done<T>(
    work: impl Future<Output = T>,
    request: &CancellationToken,
    cancel: &CancellationToken,
) -> T {
    let mut work = std::pin::pin!(work);
    tokio::select! {
        out = &mut work => out,
        () = request.cancelled() => {
            cancel.cancel();
            work.await
        }
    }
}

/// Where and how often to report a running call.
struct Progress<'a> {
    token: ProgressToken,
    /// The rows the call's statements have kept so far.
    rows: RowsRead,
    peer: &'a Peer<RoleServer>,
    every: Duration,
    tool: &'a str,
}

/// Runs `work`, sending a progress notification every `progress.every` until it ends; none
/// once it has ended (each is sent before the call's result, never after it).
async fn reporting_progress<T>(work: impl Future<Output = T>, progress: Option<Progress<'_>>) -> T {
    let Some(progress) = progress else {
        return work.await;
    };
    let started = tokio::time::Instant::now();
    let mut ticks = tokio::time::interval_at(started + progress.every, progress.every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut work = std::pin::pin!(work);
    loop {
        tokio::select! {
            biased;
            out = &mut work => return out,
            _ = ticks.tick() => {
                let elapsed = started.elapsed();
                let note = ProgressNotificationParam::new(
                    progress.token.clone(),
                    elapsed.as_secs_f64(),
                )
                .with_message(format!(
                    "{} still running after {:.1} s, {} rows read",
                    progress.tool,
                    elapsed.as_secs_f64(),
                    progress.rows.get()
                ));
                // A client that has gone or reads slowly misses the note; the call goes on.
                let _ = tokio::time::timeout(PROGRESS_SEND_LIMIT, progress.peer.notify_progress(note))
                    .await;
            }
        }
    }
}

/// How a call ended, for the log and to tell a call the shutdown cut from other failures.
fn call_outcome(request: &CancellationToken, drain: &Drain, is_error: bool) -> &'static str {
    match (is_error, request.is_cancelled(), drain.is_cut()) {
        (false, _, _) => "ok",
        (true, true, _) => "cancelled",
        (true, false, true) => "cut",
        (true, false, false) => "error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn output_schemas_describe_the_structured_content_as_sent() {
        let object = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
        assert_eq!(Value::Object(output_schema(&object)), object);
        // A tool returning a string has its output wrapped (`mcp_result`), and so has its schema.
        let wrapped = Value::Object(output_schema(&json!({"type": "string"})));
        assert_eq!(
            wrapped,
            json!({"type": "object", "properties": {"result": {"type": "string"}},
                   "required": ["result"]})
        );
        // An optional object: the object as it is, or null wrapped.
        let optional =
            json!({"type": ["object", "null"], "properties": {"n": {"type": "integer"}}});
        let either = Value::Object(output_schema(&optional));
        assert_eq!(either["type"], "object");
        assert_eq!(either["anyOf"][1], optional);
        assert_eq!(either["anyOf"][0]["properties"]["result"], optional);
        let result: ToolResult = serde_json::from_value(json!({
            "call_id": "1", "tool": "t", "content": "text", "structured": "text",
            "is_error": false, "error_kind": null, "retryable": false, "ends_turn": false,
            "row_count": null
        }))
        .expect("a tool result");
        let result = mcp_result(result);
        assert_eq!(result.structured_content, Some(json!({"result": "text"})));
    }
}
