//! The agent loop on a scripted model and the real SQLite demo database: what the model is
//! shown, how errors go back to it, where the loop stops, and conversation state across turns.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use futures_util::StreamExt;
use nao::agent::{
    Agent, AgentEvent, AgentSettings, Conversation, ModelPricing, ScriptedProvider, StopReason,
};
use nao::core::{
    Approver, Completion, CompletionRequest, Dialect, FinishReason, Message, ResultStore,
    RiskLevel, Tool, ToolCall, ToolChoice, ToolContext, ToolError, ToolSpec, tools,
};
use nao::dialects::demo::{DemoScale, generate};
use nao::dialects::sqlite::{SqliteDialect, load_batches};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

fn shop() -> Arc<dyn Dialect> {
    let tables = generate(DemoScale::Small).unwrap();
    Arc::new(
        SqliteDialect::in_memory("shop", move |conn| {
            for table in &tables {
                load_batches(conn, table.name, &table.batches)?;
            }
            Ok(())
        })
        .unwrap(),
    )
}

fn agent(provider: &Arc<ScriptedProvider>, settings: AgentSettings) -> Agent {
    Agent::builder(provider.clone())
        .database(shop())
        .settings(settings)
        .build()
}

/// The tool messages of a request, in order.
fn tool_messages(request: &CompletionRequest) -> Vec<(String, String, String, bool)> {
    request
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool {
                call_id,
                name,
                content,
                is_error,
            } => Some((call_id.clone(), name.clone(), content.clone(), *is_error)),
            _ => None,
        })
        .collect()
}

fn last_tool_content(request: &CompletionRequest) -> String {
    tool_messages(request)
        .pop()
        .map(|(_, _, content, _)| content)
        .unwrap_or_default()
}

fn system_prompt(request: &CompletionRequest) -> &str {
    match &request.messages[0] {
        Message::System { content } => content,
        other => panic!("the first message is not the system prompt: {other:?}"),
    }
}

fn last_user(request: &CompletionRequest) -> &str {
    request
        .messages
        .iter()
        .rev()
        .find_map(|m| match m {
            Message::User { content } => Some(content.as_str()),
            _ => None,
        })
        .unwrap()
}

/// A markdown result row's cells: `| 1 | delivered | 412 |` → ["1", "delivered", "412"].
fn first_row(markdown: &str) -> Vec<String> {
    markdown
        .lines()
        .find(|l| l.starts_with("| 1 |"))
        .unwrap_or_else(|| panic!("no first row in:\n{markdown}"))
        .trim_matches('|')
        .split(" | ")
        .map(|c| c.trim().to_owned())
        .collect()
}

#[tokio::test]
async fn happy_path_lists_describes_queries_and_answers_with_the_numbers_shown() {
    let provider = Arc::new(
        ScriptedProvider::new()
            .call("list_tables", json!({}))
            .call("describe_table", json!({"table": "orders"}))
            .call(
                "execute_sql",
                json!({"sql_query": "SELECT status, COUNT(*) AS orders FROM orders \
                        GROUP BY status ORDER BY orders DESC, status"}),
            )
            .then(|request| {
                let row = first_row(&last_tool_content(request));
                Completion::new(
                    format!(
                        "The most common status is {} with {} orders.",
                        row[1], row[2]
                    ),
                    vec![],
                    FinishReason::Stop,
                )
            }),
    );
    let agent = agent(
        &provider,
        AgentSettings::default().with_pricing(ModelPricing::new(1.0, 0.1, 4.0)),
    );
    let mut conversation = Conversation::new();
    let outcome = agent
        .ask(&mut conversation, "Which order status is the most common?")
        .await;

    assert_eq!(outcome.stop, StopReason::Answer);
    let requests = provider.requests();
    assert_eq!(requests.len(), 4);

    // The system prompt: schema with types and samples, dialect hints.
    let prompt = system_prompt(&requests[0]);
    for expected in [
        "## Database \"shop\" (SQLite)",
        "- Limit rows with LIMIT n.",
        "strftime('%Y-%m', col)",
        "orders(id INTEGER, customer_id INTEGER, ordered_at TIMESTAMP e.g. '",
        ", status TEXT e.g. '",
        "order_items(order_id INTEGER",
        "reviews(id INTEGER",
        "customers(id INTEGER, name TEXT e.g. '",
    ] {
        assert!(
            prompt.contains(expected),
            "missing {expected:?} in:\n{prompt}"
        );
    }
    // The tools were offered.
    let offered: Vec<&str> = requests[0].tools.iter().map(|t| t.name.as_str()).collect();
    for tool in [
        "execute_sql",
        "read_query_result",
        "list_tables",
        "describe_table",
    ] {
        assert!(offered.contains(&tool), "{offered:?}");
    }
    assert!(offered.contains(&"clarification") && offered.contains(&"suggest_follow_ups"));
    // Each request carries the previous tool result as Markdown.
    assert!(last_tool_content(&requests[1]).contains("| order_items | table |"));
    assert!(last_tool_content(&requests[2]).contains("| status | TEXT |"));
    let result = last_tool_content(&requests[3]);
    assert!(
        result.contains("| # | status: Utf8 | orders: Int64 |"),
        "{result}"
    );

    // The answer quotes the database's numbers.
    let row = first_row(&result);
    let expected = format!(
        "The most common status is {} with {} orders.",
        row[1], row[2]
    );
    assert_eq!(outcome.answer.as_deref(), Some(expected.as_str()));
    let count: u64 = row[2].parse().unwrap();
    assert!(count > 0);

    // Events: tool start/end pairs, usage per turn with a cost, Finished last.
    let finished: Vec<_> = outcome
        .events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolFinished {
                tool,
                row_count,
                is_error,
                ..
            } => Some((tool.as_str(), *row_count, *is_error)),
            _ => None,
        })
        .collect();
    assert_eq!(finished.len(), 3);
    assert_eq!(finished[2].0, "execute_sql");
    assert!(finished[2].1.unwrap() >= 2 && !finished[2].2);
    let usages = outcome
        .events
        .iter()
        .filter(|e| matches!(e, AgentEvent::Usage { cost_usd: Some(c), .. } if *c > 0.0))
        .count();
    assert_eq!(usages, 4);
    assert!(matches!(
        outcome.events.last(),
        Some(AgentEvent::Finished {
            stop: StopReason::Answer,
            ..
        })
    ));
    assert!(
        outcome
            .events
            .iter()
            .any(|e| matches!(e, AgentEvent::TextDelta { .. }))
    );
    assert!(outcome.usage.input_tokens > 0 && outcome.usage.output_tokens > 0);
    assert_eq!(conversation.usage, outcome.usage);
    assert_eq!(conversation.query_ids.len(), 1);
    assert!(
        agent
            .results()
            .ids()
            .iter()
            .any(|id| id.as_str() == conversation.query_ids[0])
    );
    // user, then 3 × (assistant + tool), then the answer.
    assert_eq!(conversation.messages.len(), 8);
}

#[tokio::test]
async fn a_sql_error_goes_back_to_the_model_which_fixes_it() {
    let provider = Arc::new(
        ScriptedProvider::new()
            .call(
                "execute_sql",
                json!({"sql_query": "SELECT SUM(revenue) FROM orders"}),
            )
            .call(
                "execute_sql",
                json!({"sql_query": "SELECT ROUND(SUM(total), 2) AS revenue FROM orders"}),
            )
            .then(|request| {
                let row = first_row(&last_tool_content(request));
                Completion::new(format!("Revenue: {}.", row[1]), vec![], FinishReason::Stop)
            }),
    );
    let agent = agent(&provider, AgentSettings::default());
    let outcome = agent.ask(&mut Conversation::new(), "Total revenue?").await;
    assert_eq!(outcome.stop, StopReason::Answer);
    let requests = provider.requests();
    let (_, tool, content, is_error) = tool_messages(&requests[1]).pop().unwrap();
    assert_eq!(tool, "execute_sql");
    assert!(is_error);
    assert!(content.contains("revenue"), "{content}");
    let kinds: Vec<_> = outcome
        .events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolFinished { error_kind, .. } => Some(error_kind.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(kinds.len(), 2);
    assert!(
        kinds[0].as_deref().unwrap().starts_with("database_"),
        "{kinds:?}"
    );
    assert_eq!(kinds[1], None);
    let answer = outcome.answer.unwrap();
    assert!(
        answer.starts_with("Revenue: ") && answer != "Revenue: .",
        "{answer}"
    );
}

#[tokio::test]
async fn a_guard_rejection_goes_back_to_the_model() {
    let provider = Arc::new(
        ScriptedProvider::new()
            .call(
                "execute_sql",
                json!({"sql_query": "DELETE FROM orders WHERE status = 'cancelled'"}),
            )
            .call(
                "execute_sql",
                json!({"sql_query": "SELECT COUNT(*) AS n FROM orders WHERE status = 'cancelled'"}),
            )
            .say("I can only read data; I counted the cancelled orders instead."),
    );
    let agent = agent(&provider, AgentSettings::default());
    let outcome = agent
        .ask(&mut Conversation::new(), "Delete cancelled orders")
        .await;
    assert_eq!(outcome.stop, StopReason::Answer);
    let (_, _, content, is_error) = tool_messages(&provider.requests()[1]).pop().unwrap();
    assert!(is_error);
    assert!(content.contains("not allowed"), "{content}");
    assert!(outcome.events.iter().any(|e| matches!(e,
        AgentEvent::ToolFinished { error_kind: Some(kind), .. } if kind.starts_with("rejected_"))));
    // The database is untouched: the count query found rows.
    let (_, _, counted, is_error) = tool_messages(&provider.requests()[2]).pop().unwrap();
    assert!(!is_error && counted.contains("| n: Int64 |"), "{counted}");
}

#[tokio::test]
async fn too_many_failed_queries_ask_for_an_explanation_without_tools() {
    let provider = Arc::new(
        ScriptedProvider::new()
            .call(
                "execute_sql",
                json!({"sql_query": "SELECT revenue FROM orders"}),
            )
            .call(
                "execute_sql",
                json!({"sql_query": "SELECT revenue FROM sales"}),
            )
            .say("I could not find a revenue column; orders.total may be what you mean."),
    );
    let agent = agent(&provider, AgentSettings::default().with_max_sql_failures(2));
    let outcome = agent.ask(&mut Conversation::new(), "Revenue?").await;
    assert_eq!(outcome.stop, StopReason::SqlRetriesExhausted);
    let requests = provider.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[1].tool_choice, ToolChoice::Auto);
    assert_eq!(requests[2].tool_choice, ToolChoice::None);
    assert!(last_user(&requests[2]).contains("Your last 2 SQL queries failed"));
    assert!(
        outcome
            .events
            .contains(&AgentEvent::SqlRetriesExhausted { failures: 2 })
    );
    assert!(outcome.answer.unwrap().contains("orders.total"));
}

#[tokio::test]
async fn a_success_resets_the_failure_count() {
    let provider = Arc::new(
        ScriptedProvider::new()
            .call(
                "execute_sql",
                json!({"sql_query": "SELECT revenue FROM orders"}),
            )
            .call(
                "execute_sql",
                json!({"sql_query": "SELECT COUNT(*) FROM orders"}),
            )
            .call(
                "execute_sql",
                json!({"sql_query": "SELECT revenue FROM orders"}),
            )
            .say("done"),
    );
    let agent = agent(&provider, AgentSettings::default().with_max_sql_failures(2));
    let outcome = agent.ask(&mut Conversation::new(), "q").await;
    assert_eq!(outcome.stop, StopReason::Answer);
    assert!(
        provider
            .requests()
            .iter()
            .all(|r| r.tool_choice == ToolChoice::Auto)
    );
}

#[tokio::test]
async fn the_step_limit_asks_for_a_best_effort_answer() {
    let provider = Arc::new(
        ScriptedProvider::new()
            .call("list_tables", json!({}))
            .call("describe_table", json!({"table": "orders"}))
            .say("Best effort: orders has a total column; I did not get to sum it."),
    );
    let agent = agent(&provider, AgentSettings::default().with_max_steps(2));
    let outcome = agent.ask(&mut Conversation::new(), "Revenue?").await;
    assert_eq!(outcome.stop, StopReason::StepLimit);
    let requests = provider.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[2].tool_choice, ToolChoice::None);
    assert!(last_user(&requests[2]).contains("all 2 tool steps"));
    assert!(outcome.events.contains(&AgentEvent::StepLimit { steps: 2 }));
    assert!(outcome.answer.unwrap().starts_with("Best effort"));
}

#[tokio::test]
async fn a_spent_token_budget_asks_for_a_best_effort_answer() {
    let provider = Arc::new(
        ScriptedProvider::new()
            .call("list_tables", json!({}))
            .say("Best effort answer."),
    );
    let agent = agent(&provider, AgentSettings::default().with_token_budget(500));
    let outcome = agent.ask(&mut Conversation::new(), "Revenue?").await;
    assert_eq!(outcome.stop, StopReason::BudgetExhausted);
    let requests = provider.requests();
    // The first call alone (system prompt and tool specs) spends more than 500 tokens.
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1].tool_choice, ToolChoice::None);
    assert!(last_user(&requests[1]).contains("token budget"));
    let exhausted = outcome
        .events
        .iter()
        .find_map(|e| match e {
            AgentEvent::BudgetExhausted { used, budget } => Some((*used, *budget)),
            _ => None,
        })
        .unwrap();
    assert_eq!(exhausted.1, 500);
    assert!(exhausted.0 >= 500);
    assert_eq!(outcome.answer.as_deref(), Some("Best effort answer."));
}

#[tokio::test]
async fn a_clarification_ends_the_turn_with_the_question() {
    let provider = Arc::new(
        ScriptedProvider::new()
            // One option is too few: the registry refuses, the model tries again.
            .call(
                "clarification",
                json!({"question": "Which period?", "options": ["2024"]}),
            )
            .call(
                "clarification",
                json!({"question": "Which period?", "options": ["2023", "2024"]}),
            )
            .say("never played"),
    );
    let agent = agent(&provider, AgentSettings::default());
    let outcome = agent.ask(&mut Conversation::new(), "Revenue growth?").await;
    assert_eq!(outcome.stop, StopReason::Clarification);
    let (_, _, refused, is_error) = tool_messages(&provider.requests()[1]).pop().unwrap();
    assert!(is_error && refused.contains("options"), "{refused}");
    let (question, options) = outcome.clarification().unwrap();
    assert_eq!(question, "Which period?");
    assert_eq!(options, ["2023", "2024"]);
    assert_eq!(outcome.answer, None);
    assert_eq!(provider.remaining(), 1);
}

#[tokio::test]
async fn follow_ups_end_the_turn_after_the_answer() {
    let provider = Arc::new(
        ScriptedProvider::new()
            .call(
                "execute_sql",
                json!({"sql_query": "SELECT COUNT(*) AS n FROM orders"}),
            )
            .say_and_call(
                "There are 600 orders.",
                [(
                    "suggest_follow_ups",
                    json!({"suggestions": ["Orders by month?", "Orders by channel?"]}),
                )],
            )
            .say("never played"),
    );
    let agent = agent(&provider, AgentSettings::default());
    let outcome = agent
        .ask(&mut Conversation::new(), "How many orders?")
        .await;
    assert_eq!(outcome.stop, StopReason::FollowUps);
    assert_eq!(outcome.answer.as_deref(), Some("There are 600 orders."));
    assert_eq!(
        outcome.follow_ups().unwrap(),
        ["Orders by month?", "Orders by channel?"]
    );
    assert_eq!(provider.remaining(), 1);
}

/// A test tool that would change something.
#[derive(Debug)]
struct DropTable;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct DropArgs {
    table: String,
}

#[async_trait]
impl Tool for DropTable {
    type Args = DropArgs;
    type Output = String;

    fn name(&self) -> &str {
        "drop_table"
    }

    fn description(&self) -> &str {
        "Drops a table."
    }

    fn risk(&self) -> RiskLevel {
        RiskLevel::High
    }

    async fn call(&self, args: DropArgs, _ctx: &ToolContext) -> Result<String, ToolError> {
        Ok(format!("dropped {}", args.table))
    }

    fn render(&self, output: &String) -> String {
        output.clone()
    }
}

#[derive(Debug, Default)]
struct Refuse {
    asked: AtomicUsize,
}

#[async_trait]
impl Approver for Refuse {
    async fn approve(&self, call: &ToolCall, spec: &ToolSpec) -> bool {
        assert_eq!(
            (call.name.as_str(), spec.risk),
            ("drop_table", RiskLevel::High)
        );
        self.asked.fetch_add(1, Ordering::SeqCst);
        false
    }
}

#[tokio::test]
async fn a_refused_high_risk_call_is_reported_to_the_model() {
    let provider = Arc::new(
        ScriptedProvider::new()
            .call("drop_table", json!({"table": "orders"}))
            .say("The host did not approve dropping the table."),
    );
    let approver = Arc::new(Refuse::default());
    let agent = Agent::builder(provider.clone())
        .database(shop())
        .tools(
            tools::default_tools()
                .with(DropTable)
                .with_approver(approver.clone()),
        )
        .build();
    let outcome = agent.ask(&mut Conversation::new(), "Drop orders").await;
    assert_eq!(approver.asked.load(Ordering::SeqCst), 1);
    let kinds: Vec<&str> = outcome
        .events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolStarted { .. } => Some("started"),
            AgentEvent::ApprovalNeeded { tool, .. } if tool == "drop_table" => Some("approval"),
            AgentEvent::ToolFinished {
                error_kind: Some(kind),
                ..
            } if kind == "not_approved" => Some("refused"),
            _ => None,
        })
        .collect();
    assert_eq!(kinds, ["started", "approval", "refused"]);
    let (_, _, content, is_error) = tool_messages(&provider.requests()[1]).pop().unwrap();
    assert!(is_error && content.contains("did not approve"), "{content}");
    assert_eq!(outcome.stop, StopReason::Answer);
}

#[tokio::test]
async fn parallel_calls_run_together_and_come_back_in_call_order() {
    let provider = Arc::new(
        ScriptedProvider::new()
            .calls([
                (
                    "execute_sql",
                    json!({"sql_query": "SELECT COUNT(*) AS n FROM order_items"}),
                ),
                ("describe_table", json!({"table": "customers"})),
                ("list_tables", json!({"pattern": "pay"})),
            ])
            .say("done"),
    );
    let agent = agent(&provider, AgentSettings::default());
    let outcome = agent.ask(&mut Conversation::new(), "q").await;
    let messages = tool_messages(&provider.requests()[1]);
    let order: Vec<(&str, &str)> = messages
        .iter()
        .map(|(id, name, _, _)| (id.as_str(), name.as_str()))
        .collect();
    assert_eq!(
        order,
        [
            ("call_1", "execute_sql"),
            ("call_2", "describe_table"),
            ("call_3", "list_tables")
        ]
    );
    assert!(messages[2].2.contains("payments"));
    // All three started before any finished.
    let first_finish = outcome
        .events
        .iter()
        .position(|e| matches!(e, AgentEvent::ToolFinished { .. }))
        .unwrap();
    let starts = outcome.events[..first_finish]
        .iter()
        .filter(|e| matches!(e, AgentEvent::ToolStarted { .. }))
        .count();
    assert_eq!(starts, 3);
}

#[tokio::test]
async fn a_conversation_resumes_from_json_and_pages_an_earlier_result() {
    let results = Arc::new(ResultStore::default());
    let database = shop();
    let first = Arc::new(
        ScriptedProvider::new()
            .call(
                "execute_sql",
                json!({"sql_query": "SELECT id, name FROM customers ORDER BY id"}),
            )
            .say("Here are the customers."),
    );
    let agent = Agent::builder(first.clone())
        .database(database.clone())
        .results(results.clone())
        .build();
    let mut conversation = Conversation::new();
    agent.ask(&mut conversation, "List the customers").await;
    let saved = serde_json::to_string(&conversation).unwrap();

    // A new agent (another process, say) with the same store.
    let mut resumed: Conversation = serde_json::from_str(&saved).unwrap();
    assert_eq!(resumed, conversation);
    let query_id = resumed.last_query_id().unwrap().to_owned();
    let second = Arc::new(
        ScriptedProvider::new()
            .call(
                "read_query_result",
                json!({"query_id": query_id, "offset": 20, "limit": 3}),
            )
            .say("Customers 21 to 23 are listed above."),
    );
    let agent = Agent::builder(second.clone())
        .database(database)
        .results(results)
        .build();
    let outcome = agent.ask(&mut resumed, "Show me the next three").await;
    assert_eq!(outcome.stop, StopReason::Answer);
    let requests = second.requests();
    // The same system prompt and the earlier turn were sent.
    assert_eq!(
        system_prompt(&requests[0]),
        conversation.system_prompt.as_deref().unwrap()
    );
    assert_eq!(
        requests[0].messages.len(),
        1 + conversation.messages.len() + 1
    );
    let (_, _, page, is_error) = tool_messages(&requests[1]).pop().unwrap();
    assert!(!is_error, "{page}");
    assert!(page.contains("rows 21–23"), "{page}");
    assert!(page.contains("| 21 | 21 |"), "{page}");
    assert_eq!(resumed.runs, 2);
}

#[tokio::test]
async fn dropping_the_event_stream_stops_the_run() {
    let provider = Arc::new(
        ScriptedProvider::new()
            .call("list_tables", json!({}))
            .call("describe_table", json!({"table": "orders"}))
            .say("never played"),
    );
    let agent = agent(&provider, AgentSettings::default());
    let mut conversation = Conversation::new();
    {
        let mut run = agent.run(&mut conversation, "q");
        while let Some(event) = run.next().await {
            if matches!(event, AgentEvent::ToolFinished { .. }) {
                break;
            }
        }
    }
    // Give a runaway task, if there were one, the chance to call the model again.
    for _ in 0..10 {
        tokio::task::yield_now().await;
    }
    assert_eq!(provider.requests().len(), 1);
    assert_eq!(provider.remaining(), 2);
    // The conversation holds what happened up to the drop.
    assert!(matches!(
        conversation.messages.last(),
        Some(Message::Assistant { .. })
    ));
}

#[tokio::test]
async fn a_script_that_runs_out_is_a_provider_error() {
    let provider = Arc::new(ScriptedProvider::new().call("list_tables", json!({})));
    let agent = agent(&provider, AgentSettings::default());
    let outcome = agent.ask(&mut Conversation::new(), "q").await;
    assert_eq!(outcome.stop, StopReason::ProviderError);
    assert!(outcome.events.iter().any(|e| matches!(e,
        AgentEvent::Error { message } if message.contains("no turn left"))));
}

#[tokio::test]
async fn a_large_real_schema_prompt_stays_within_budget() {
    let provider = Arc::new(ScriptedProvider::new());
    let agent = agent(
        &provider,
        AgentSettings::default().with_schema_token_budget(120),
    );
    let prompt = agent
        .system_prompt("average review rating per product")
        .await;
    let schema = prompt
        .split("The tables most relevant to the question")
        .nth(1)
        .unwrap_or_else(|| panic!("{prompt}"));
    let described: Vec<&str> = schema.lines().skip(1).filter(|l| l.contains('(')).collect();
    assert!(described[0].starts_with("reviews("), "{schema}");
    assert!(
        schema.contains("Other tables (call describe_table before using them): "),
        "{schema}"
    );
}
