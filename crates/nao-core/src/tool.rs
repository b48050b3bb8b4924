//! The typed tool trait: what a model can call.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::{ToolContext, ToolError};

/// How much a tool can do, so hosts can ask a person before the risky ones run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RiskLevel {
    /// Reads only, bounded: runs without asking.
    Safe,
    /// Reads more broadly or costs more; hosts may log or rate-limit it.
    Caution,
    /// Can change something: runs only after the host's approver says yes.
    High,
}

/// A tool with typed arguments and output. Register it in a
/// [`ToolRegistry`](crate::ToolRegistry), which derives its JSON Schema from `Args`, validates
/// the model's arguments against it, and turns every failure into a result the model can act on.
///
/// ```
/// use async_trait::async_trait;
/// use nao_core::schemars::JsonSchema;
/// use nao_core::{Tool, ToolContext, ToolError, ToolRegistry};
/// use serde::{Deserialize, Serialize};
///
/// /// Counts the characters of a text.
/// struct CountChars;
///
/// #[derive(Deserialize, JsonSchema)]
/// #[schemars(crate = "nao_core::schemars")]
/// #[serde(deny_unknown_fields)]
/// struct Text {
///     /// The text to count.
///     text: String,
/// }
///
/// #[derive(Serialize, JsonSchema)]
/// #[schemars(crate = "nao_core::schemars")]
/// struct Count {
///     chars: usize,
/// }
///
/// #[async_trait]
/// impl Tool for CountChars {
///     type Args = Text;
///     type Output = Count;
///
///     fn name(&self) -> &str {
///         "count_chars"
///     }
///
///     fn description(&self) -> &str {
///         "Counts the characters of a text."
///     }
///
///     async fn call(&self, args: Text, _ctx: &ToolContext) -> Result<Count, ToolError> {
///         Ok(Count { chars: args.text.chars().count() })
///     }
///
///     fn render(&self, output: &Count) -> String {
///         format!("{} characters", output.chars)
///     }
/// }
///
/// let registry = ToolRegistry::new().with(CountChars);
/// let spec = &registry.specs()[0];
/// assert_eq!(spec.parameters["required"][0], "text");
/// assert_eq!(spec.output["properties"]["chars"]["type"], "integer");
/// ```
#[async_trait]
pub trait Tool: Send + Sync + 'static {
    /// The arguments, as the model sends them (JSON). Use `#[serde(deny_unknown_fields)]`.
    type Args: DeserializeOwned + JsonSchema + Send;
    /// What the tool returns; also sent as structured content, whose JSON Schema the registry
    /// derives from this type ([`ToolSpec::output`](crate::ToolSpec::output)) and MCP servers
    /// publish as the tool's `outputSchema`: derive `JsonSchema` next to `Serialize` and keep
    /// the two in agreement (`#[schemars(with = …)]` for fields serialized by hand).
    type Output: Serialize + JsonSchema + Send + Sync;

    /// The name the model calls it by (`execute_sql`).
    fn name(&self) -> &str;

    /// What it does and when to use it, written for the model.
    fn description(&self) -> &str;

    /// How risky it is (default [`RiskLevel::Safe`]).
    fn risk(&self) -> RiskLevel {
        RiskLevel::Safe
    }

    /// Whether a successful call ends the model's turn (clarification, follow-up suggestions).
    fn ends_turn(&self) -> bool {
        false
    }

    /// The JSON Schema of the arguments, for a tool whose arguments are only known at run time
    /// (a query an operator configured, with its own parameters). Default `None`: the registry
    /// derives the schema from [`Tool::Args`]. The registry lists and validates against the
    /// schema given here, so `Args` must deserialize every object it accepts (a
    /// `serde_json::Map`, say).
    fn args_schema(&self) -> Option<serde_json::Value> {
        None
    }

    /// Runs the tool.
    async fn call(&self, args: Self::Args, ctx: &ToolContext) -> Result<Self::Output, ToolError>;

    /// Markdown for the model.
    fn render(&self, output: &Self::Output) -> String;

    /// How many rows the output holds, for audit records (default none).
    fn row_count(&self, _output: &Self::Output) -> Option<u64> {
        None
    }
}
