//! The registry: schemas, argument validation, approval, audit, and failures as results.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use async_trait::async_trait;
use nao_core::{
    Approver, Databases, MemoryAudit, RiskLevel, Tool, ToolCall, ToolContext, ToolError,
    ToolRegistry, ToolSpec,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RepeatArgs {
    /// The text to repeat.
    text: String,
    /// How many times.
    #[schemars(range(min = 1, max = 5))]
    times: u32,
}

#[derive(Debug, Serialize, JsonSchema)]
struct Repeated {
    text: String,
}

#[derive(Debug)]
struct Repeat;

#[async_trait]
impl Tool for Repeat {
    type Args = RepeatArgs;
    type Output = Repeated;

    fn name(&self) -> &str {
        "repeat"
    }

    fn description(&self) -> &str {
        "Repeat a text."
    }

    async fn call(&self, args: RepeatArgs, _ctx: &ToolContext) -> Result<Repeated, ToolError> {
        if args.text == "fail" {
            return Err(ToolError::Failed {
                message: "asked to fail".into(),
            });
        }
        Ok(Repeated {
            text: args.text.repeat(args.times as usize),
        })
    }

    fn render(&self, output: &Repeated) -> String {
        format!("Repeated: {}", output.text)
    }
}

#[derive(Debug)]
struct Drop;

#[async_trait]
impl Tool for Drop {
    type Args = serde_json::Map<String, serde_json::Value>;
    type Output = ();

    fn name(&self) -> &str {
        "drop_everything"
    }

    fn description(&self) -> &str {
        "A dangerous tool."
    }

    fn risk(&self) -> RiskLevel {
        RiskLevel::High
    }

    async fn call(&self, _args: Self::Args, _ctx: &ToolContext) -> Result<(), ToolError> {
        Ok(())
    }

    fn render(&self, _output: &()) -> String {
        "dropped".into()
    }
}

#[derive(Debug)]
struct Answer(bool);

#[async_trait]
impl Approver for Answer {
    async fn approve(&self, _call: &ToolCall, spec: &ToolSpec) -> bool {
        assert_eq!(spec.risk, RiskLevel::High);
        self.0
    }
}

fn ctx() -> (ToolContext, Arc<MemoryAudit>) {
    let audit = Arc::new(MemoryAudit::default());
    (
        ToolContext::new(Databases::new()).with_audit(audit.clone()),
        audit,
    )
}

#[test]
fn specs_carry_the_schema_of_the_arguments() {
    let registry = ToolRegistry::new().with(Repeat);
    let spec = &registry.specs()[0];
    assert_eq!(spec.name, "repeat");
    assert_eq!(spec.parameters["type"], "object");
    assert_eq!(spec.parameters["properties"]["times"]["maximum"], 5);
    assert_eq!(
        spec.parameters["properties"]["text"]["description"],
        "The text to repeat."
    );
    assert_eq!(spec.parameters["additionalProperties"], false);
    assert!(spec.parameters.get("$schema").is_none());
}

#[tokio::test]
async fn a_valid_call_renders_and_is_audited() {
    let (ctx, audit) = ctx();
    let registry = ToolRegistry::new().with(Repeat);
    let call = ToolCall::new("c1", "repeat", json!({"text": "ab", "times": 2}));
    let result = registry.call(&call, &ctx).await;
    assert!(!result.is_error);
    assert_eq!(result.content, "Repeated: abab");
    assert_eq!(result.structured, Some(json!({"text": "abab"})));
    let records = audit.records();
    assert_eq!(records.len(), 1);
    assert_eq!(
        (records[0].call_id.as_str(), records[0].outcome.as_str()),
        ("c1", "ok")
    );
}

#[tokio::test]
async fn arguments_may_arrive_as_a_json_string() {
    let (ctx, _) = ctx();
    let registry = ToolRegistry::new().with(Repeat);
    let call = ToolCall::new("c1", "repeat", json!("{\"text\": \"x\", \"times\": 3}"));
    assert_eq!(registry.call(&call, &ctx).await.content, "Repeated: xxx");
}

#[tokio::test]
async fn bad_arguments_come_back_as_results_that_say_what_to_fix() {
    let (ctx, audit) = ctx();
    let registry = ToolRegistry::new().with(Repeat);
    let cases = [
        (json!({"text": "x"}), "times: is required"),
        (json!({"text": "x", "times": 9}), "times: must be at most 5"),
        (json!({"text": 1, "times": 1}), "text: must be a string"),
        (
            json!({"text": "x", "times": 1, "extra": true}),
            "extra: is not an argument of this tool",
        ),
        (json!("{not json"), "the arguments are not valid JSON"),
    ];
    for (arguments, expected) in cases {
        let result = registry
            .call(&ToolCall::new("c", "repeat", arguments.clone()), &ctx)
            .await;
        assert!(result.is_error, "{arguments}");
        assert_eq!(result.error_kind.as_deref(), Some("invalid_arguments"));
        assert!(
            result.content.contains(expected),
            "{arguments}: {}",
            result.content
        );
        assert!(!result.retryable);
    }
    assert!(
        audit
            .records()
            .iter()
            .all(|r| r.outcome == "invalid_arguments")
    );
}

#[tokio::test]
async fn unknown_tools_and_tool_failures_are_results() {
    let (ctx, _) = ctx();
    let registry = ToolRegistry::new().with(Repeat);
    let unknown = registry
        .call(&ToolCall::new("c", "delete_all", json!({})), &ctx)
        .await;
    assert_eq!(unknown.error_kind.as_deref(), Some("unknown_tool"));
    assert!(
        unknown.content.contains("repeat"),
        "the message lists the tools: {}",
        unknown.content
    );
    let failed = registry
        .call(
            &ToolCall::new("c", "repeat", json!({"text": "fail", "times": 1})),
            &ctx,
        )
        .await;
    assert_eq!(failed.error_kind.as_deref(), Some("failed"));
    assert!(failed.content.contains("asked to fail"));
}

#[tokio::test]
async fn high_risk_tools_wait_for_approval() {
    let (ctx, _) = ctx();
    let call = ToolCall::new("c", "drop_everything", json!({}));
    let none = ToolRegistry::new().with(Drop).call(&call, &ctx).await;
    assert_eq!(none.error_kind.as_deref(), Some("not_approved"));
    let refused = ToolRegistry::new()
        .with(Drop)
        .with_approver(Arc::new(Answer(false)))
        .call(&call, &ctx)
        .await;
    assert_eq!(refused.error_kind.as_deref(), Some("not_approved"));
    let approved = ToolRegistry::new()
        .with(Drop)
        .with_approver(Arc::new(Answer(true)))
        .call(&call, &ctx)
        .await;
    assert!(!approved.is_error, "{}", approved.content);
}

#[tokio::test]
async fn sql_tools_explain_missing_databases() {
    let (ctx, _) = ctx();
    let registry = nao_core::tools::sql_tools();
    let result = registry
        .call(
            &ToolCall::new("c", "execute_sql", json!({"sql_query": "SELECT 1"})),
            &ctx,
        )
        .await;
    assert_eq!(result.error_kind.as_deref(), Some("unknown_database"));
    assert!(
        result.content.contains("no database is configured"),
        "{}",
        result.content
    );
    let result = registry
        .call(
            &ToolCall::new("c", "read_query_result", json!({"query_id": "q_nope"})),
            &ctx,
        )
        .await;
    assert_eq!(result.error_kind.as_deref(), Some("unknown_query"));
    assert!(result.content.contains("q_nope"));
}
