//! The tool registry: JSON Schemas for the model, validated calls, results the model can act on.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;
use nao_render::{ToolErrorReport, render_tool_error};
use schemars::generate::SchemaSettings;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tracing::Instrument;

use crate::error::NameList;
use crate::telemetry;
use crate::{AuditRecord, RiskLevel, Tool, ToolContext, ToolError};

/// A tool as the model sees it: name, description and the JSON Schema of its arguments (and,
/// for MCP clients, of its structured output).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ToolSpec {
    /// The name.
    pub name: String,
    /// The description, for the model.
    pub description: String,
    /// The JSON Schema (draft 2020-12, subschemas inlined) of the arguments object.
    pub parameters: Value,
    /// The JSON Schema (draft 2020-12, subschemas inlined) of the structured output of a
    /// successful call ([`ToolResult::structured`]), derived from [`Tool::Output`].
    pub output: Value,
    /// The risk level.
    pub risk: RiskLevel,
}

/// A call the model made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id for the call (echoed in the result).
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments: a JSON object, or a string holding one (as some providers send them).
    pub arguments: Value,
}

impl ToolCall {
    /// A call.
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments,
        }
    }
}

/// What goes back to the model for one call; failures are results too (`is_error`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolResult {
    /// The call's id.
    pub call_id: String,
    /// The tool's name.
    pub tool: String,
    /// Markdown for the model.
    pub content: String,
    /// The tool's output as JSON, when it succeeded.
    pub structured: Option<Value>,
    /// Whether the call failed.
    pub is_error: bool,
    /// The error's kind code, when it failed.
    pub error_kind: Option<String>,
    /// Whether retrying the same call unchanged may succeed.
    pub retryable: bool,
    /// Whether this call ends the model's turn.
    pub ends_turn: bool,
    /// Rows produced, when the tool reports them.
    pub row_count: Option<u64>,
}

/// Approves or refuses calls of [`RiskLevel::High`] tools; set on the registry by the host.
#[async_trait]
pub trait Approver: std::fmt::Debug + Send + Sync {
    /// Whether `call` may run.
    async fn approve(&self, call: &ToolCall, spec: &ToolSpec) -> bool;
}

/// Holds tools by name, gives their specs, and runs calls.
#[derive(Debug, Clone, Default)]
pub struct ToolRegistry {
    tools: BTreeMap<String, Arc<dyn ErasedTool>>,
    approver: Option<Arc<dyn Approver>>,
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        ToolRegistry::default()
    }

    /// Adds a tool (replacing one of the same name).
    pub fn register<T: Tool>(&mut self, tool: T) -> &mut Self {
        let erased = Typed::new(tool);
        self.tools
            .insert(erased.spec.name.clone(), Arc::new(erased));
        self
    }

    /// Adds a tool, builder style.
    #[must_use]
    pub fn with<T: Tool>(mut self, tool: T) -> Self {
        self.register(tool);
        self
    }

    /// Removes a tool by name (to gate a built-in off).
    pub fn remove(&mut self, name: &str) -> bool {
        self.tools.remove(name).is_some()
    }

    /// Asks `approver` before running any [`RiskLevel::High`] tool. Without an approver such
    /// tools are refused.
    #[must_use]
    pub fn with_approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.approver = Some(approver);
        self
    }

    /// The specs of every tool, sorted by name.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools.values().map(|t| t.spec().clone()).collect()
    }

    /// The names of every tool, sorted.
    pub fn names(&self) -> Vec<String> {
        self.tools.keys().cloned().collect()
    }

    /// Runs one call: validates its arguments, asks for approval if needed, calls the tool and
    /// renders the outcome. Never fails and never panics on bad input: every failure is a
    /// [`ToolResult`] with `is_error` set and a message saying what to do.
    ///
    /// Each call runs in an `execute_tool` span ([`telemetry::execute_tool_span`]): the tool's
    /// name, the call's id and, when it fails, its error kind; never its arguments.
    pub async fn call(&self, call: &ToolCall, ctx: &ToolContext) -> ToolResult {
        let span = telemetry::execute_tool_span(&call.name, &call.id);
        let started = Instant::now();
        let result = self.dispatch(call, ctx).instrument(span.clone()).await;
        if let Some(kind) = &result.error_kind {
            telemetry::record_error(&span, kind);
        }
        let outcome = result.error_kind.clone().unwrap_or_else(|| "ok".to_owned());
        tracing::debug!(tool = %call.name, %outcome, elapsed = ?started.elapsed(), "tool call finished");
        ctx.audit().record(AuditRecord {
            call_id: call.id.clone(),
            tool: call.name.clone(),
            arguments: call.arguments.clone(),
            outcome,
            latency: started.elapsed(),
            row_count: result.row_count,
        });
        result
    }

    async fn dispatch(&self, call: &ToolCall, ctx: &ToolContext) -> ToolResult {
        let Some(tool) = self.tools.get(&call.name) else {
            let available = NameList(&self.names()).to_string();
            return error_result(
                call,
                false,
                ToolError::UnknownTool {
                    name: call.name.clone(),
                    available,
                },
            );
        };
        let spec = tool.spec();
        if spec.risk == RiskLevel::High {
            let approved = match &self.approver {
                Some(approver) => approver.approve(call, spec).await,
                None => false,
            };
            if !approved {
                return error_result(
                    call,
                    false,
                    ToolError::NotApproved {
                        tool: call.name.clone(),
                    },
                );
            }
        }
        let arguments = match parse_arguments(&call.arguments, spec) {
            Ok(arguments) => arguments,
            Err(error) => return error_result(call, false, error),
        };
        match tool.call_json(arguments, ctx).await {
            Ok(output) => ToolResult {
                call_id: call.id.clone(),
                tool: call.name.clone(),
                content: output.markdown,
                structured: Some(output.structured),
                is_error: false,
                error_kind: None,
                retryable: false,
                ends_turn: tool.ends_turn(),
                row_count: output.row_count,
            },
            Err(error) => error_result(call, false, error),
        }
    }
}

/// Parses (if sent as a string) and validates arguments against the tool's schema.
fn parse_arguments(arguments: &Value, spec: &ToolSpec) -> Result<Value, ToolError> {
    let invalid = |message: String| ToolError::InvalidArguments {
        tool: spec.name.clone(),
        message,
    };
    let value = match arguments {
        Value::String(text) if text.trim().is_empty() => Value::Object(Default::default()),
        Value::String(text) => serde_json::from_str(text)
            .map_err(|e| invalid(format!("the arguments are not valid JSON: {e}")))?,
        Value::Null => Value::Object(Default::default()),
        other => other.clone(),
    };
    crate::arguments::validate(&spec.parameters, &value).map_err(invalid)?;
    Ok(value)
}

fn error_result(call: &ToolCall, ends_turn: bool, error: ToolError) -> ToolResult {
    let kind = error.kind_code();
    let report = ToolErrorReport::new(kind.clone(), error.to_string())
        .with_hint(hint(&error))
        .with_retryable(error.is_retryable());
    ToolResult {
        call_id: call.id.clone(),
        tool: call.name.clone(),
        content: render_tool_error(&report),
        structured: None,
        is_error: true,
        error_kind: Some(kind),
        retryable: error.is_retryable(),
        ends_turn,
        row_count: None,
    }
}

/// What the model should do next, by error kind.
fn hint(error: &ToolError) -> &'static str {
    match error {
        ToolError::InvalidArguments { .. } => {
            "Call the tool again with arguments that match its schema."
        }
        ToolError::UnknownTool { .. } => "Call one of the listed tools.",
        ToolError::UnknownQuery { .. } => {
            "Use a query_id returned by execute_sql in this conversation, or run the query again."
        }
        ToolError::UnknownDatabase { .. } => "Pass one of the listed database ids as database_id.",
        ToolError::Rejected(_) => {
            "Rewrite the SQL as one read-only query that follows the message above."
        }
        ToolError::Dialect(e) if e.is_retryable() => {
            "Retry the same call; the failure was not caused by the SQL."
        }
        ToolError::Dialect(_) => "Fix the SQL according to the database's message and call again.",
        ToolError::NotApproved { .. } => {
            "Do not retry; tell the user the action needs their approval."
        }
        _ => "Read the message and adjust the call.",
    }
}

/// A tool's successful outcome in erased form.
struct ErasedOutput {
    markdown: String,
    structured: Value,
    row_count: Option<u64>,
}

/// The object-safe face of a [`Tool`].
#[async_trait]
trait ErasedTool: Send + Sync + std::fmt::Debug {
    fn spec(&self) -> &ToolSpec;
    fn ends_turn(&self) -> bool;
    async fn call_json(
        &self,
        arguments: Value,
        ctx: &ToolContext,
    ) -> Result<ErasedOutput, ToolError>;
}

struct Typed<T: Tool> {
    tool: T,
    spec: ToolSpec,
}

impl<T: Tool> std::fmt::Debug for Typed<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.spec.name)
            .finish_non_exhaustive()
    }
}

/// The JSON Schema of `T`: draft 2020-12, every subschema inlined (some providers and MCP
/// clients do not follow `$ref`).
fn schema_of<T: schemars::JsonSchema>() -> Value {
    SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// `schema` without the meta keys: providers want the bare schema, and `$schema` and `title`
/// only add noise for the model.
fn bare(mut schema: Value) -> Value {
    if let Some(object) = schema.as_object_mut() {
        object.remove("$schema");
        object.remove("title");
    }
    schema
}

impl<T: Tool> Typed<T> {
    fn new(tool: T) -> Self {
        let parameters = bare(tool.args_schema().unwrap_or_else(schema_of::<T::Args>));
        let spec = ToolSpec {
            name: tool.name().to_owned(),
            description: tool.description().to_owned(),
            parameters,
            output: bare(schema_of::<T::Output>()),
            risk: tool.risk(),
        };
        Typed { tool, spec }
    }
}

#[async_trait]
impl<T: Tool> ErasedTool for Typed<T> {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn ends_turn(&self) -> bool {
        self.tool.ends_turn()
    }

    async fn call_json(
        &self,
        arguments: Value,
        ctx: &ToolContext,
    ) -> Result<ErasedOutput, ToolError> {
        let args: T::Args =
            serde_json::from_value(arguments).map_err(|e| ToolError::InvalidArguments {
                tool: self.spec.name.clone(),
                message: e.to_string(),
            })?;
        let output = self.tool.call(args, ctx).await?;
        let structured = serde_json::to_value(&output).map_err(|e| ToolError::Failed {
            message: format!("the tool's output could not be serialized: {e}"),
        })?;
        Ok(ErasedOutput {
            markdown: self.tool.render(&output),
            structured,
            row_count: self.tool.row_count(&output),
        })
    }
}
