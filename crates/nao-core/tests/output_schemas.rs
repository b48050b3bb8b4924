//! Every built-in tool's structured output, from a real call on the demo shop, conforms to the
//! output schema the registry derives for it (what MCP clients get as `outputSchema` and may
//! check every result against).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;

use common::DemoTools;
use serde_json::{Value, json};

const MONTHLY: &str = "SELECT strftime('%Y-%m', ordered_at) AS month, SUM(total) AS revenue \
     FROM orders GROUP BY 1 ORDER BY 1";

#[tokio::test]
async fn every_tool_output_conforms_to_its_schema() {
    let tools = DemoTools::new();
    let monthly = tools.query(MONTHLY).await;
    let calls = [
        ("list_tables", json!({})),
        ("describe_table", json!({"table": "customers"})),
        (
            "execute_sql",
            json!({"sql_query": "SELECT id, name FROM customers LIMIT 3"}),
        ),
        (
            "read_query_result",
            json!({"query_id": monthly, "offset": 1, "limit": 2}),
        ),
        (
            "display_chart",
            json!({"query_id": monthly, "chart_type": "line", "x_axis_key": "month",
                   "x_axis_type": "date", "series": [{"data_key": "revenue"}],
                   "title": "Monthly revenue"}),
        ),
        (
            "story",
            json!({"action": "create", "id": "schema-check", "title": "Check",
                   "code": format!("# Check\n\n<table query_id=\"{monthly}\" />\n")}),
        ),
        (
            "clarification",
            json!({"question": "Which year?", "options": ["2024", "2025"]}),
        ),
        (
            "suggest_follow_ups",
            json!({"suggestions": ["Revenue by channel?"]}),
        ),
    ];
    let specs = tools.registry.specs();
    let mut covered = BTreeSet::new();
    for (name, args) in calls {
        let spec = specs
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("no tool {name}"));
        assert!(spec.output.is_object(), "{name}: {}", spec.output);
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&spec.output)
            .unwrap_or_else(|e| panic!("{name}: the output schema does not compile: {e}"));
        let output = tools.ok(name, args).await;
        let errors: Vec<String> = validator
            .iter_errors(&output)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:?}\n{output}");
        // The schema is not vacuous: an output missing a required field fails it.
        if let (Some(required), Value::Object(fields)) = (
            spec.output.get("required").and_then(Value::as_array),
            &output,
        ) && let Some(first) = required.first().and_then(Value::as_str)
        {
            let mut broken = fields.clone();
            broken.remove(first);
            assert!(
                !validator.is_valid(&Value::Object(broken)),
                "{name}: valid without {first}"
            );
        }
        covered.insert(name.to_owned());
    }
    let all: BTreeSet<String> = specs.iter().map(|s| s.name.clone()).collect();
    assert_eq!(covered, all, "every built-in tool is called once");
}
