//! The quickstart scenario end to end: the scripted model explores the demo shop, its first
//! query fails on a wrong column, the fixed query runs, and the answer quotes its numbers.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../examples/quickstart.rs"]
#[allow(dead_code)]
mod quickstart;

use std::sync::Arc;

use nao::agent::{AgentEvent, Conversation, StopReason};
use nao::core::{Message, ToolCall};
use nao::dialects::demo::DemoScale;
use quickstart::{FIXED_SQL, QUESTION, WRONG_SQL, build_agent, last_result_rows, scripted_model};

/// The error kinds of the tool calls that failed, in order.
fn failed_kinds(events: &[AgentEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolFinished {
                is_error: true,
                error_kind,
                ..
            } => error_kind.clone(),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn the_quickstart_corrects_its_sql_and_answers_with_real_numbers() {
    let model = Arc::new(scripted_model());
    let agent = build_agent(model.clone(), DemoScale::Small).unwrap();
    let mut conversation = Conversation::new();
    let outcome = agent.ask(&mut conversation, QUESTION).await;

    assert_eq!(outcome.stop, StopReason::FollowUps, "{:#?}", outcome.events);
    assert_eq!(model.remaining(), 0);
    let requests = model.requests();
    assert_eq!(requests.len(), 5);

    // The wrong column is reported by the database and shown to the model.
    let failed = failed_kinds(&outcome.events);
    assert_eq!(failed.len(), 1);
    assert!(failed[0].starts_with("database_"), "{failed:?}");
    let error = requests[3]
        .messages
        .iter()
        .rev()
        .find_map(|m| match m {
            Message::Tool {
                content,
                is_error: true,
                ..
            } => Some(content.clone()),
            _ => None,
        })
        .unwrap();
    assert!(error.contains("price"), "{error}");

    // Both queries were sent as written.
    let sql: Vec<String> = conversation
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::Assistant { tool_calls, .. } => Some(tool_calls.clone()),
            _ => None,
        })
        .flatten()
        .filter(|c: &ToolCall| c.name == "execute_sql")
        .map(|c| c.arguments["sql_query"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(sql, [WRONG_SQL, FIXED_SQL]);

    // The answer quotes the top categories of the result the model was shown.
    let rows = last_result_rows(&requests[4]);
    assert!(rows.len() >= 2, "{rows:?}");
    let answer = outcome.answer.clone().unwrap();
    for row in rows.iter().take(3) {
        let line = format!("**{}**: {} from {} orders", row[0], row[1], row[2]);
        assert!(answer.contains(&line), "{line:?} not in:\n{answer}");
    }
    let revenues: Vec<f64> = rows.iter().map(|r| r[1].parse().unwrap()).collect();
    assert!(revenues.windows(2).all(|w| w[0] >= w[1]), "{revenues:?}");
    assert!(revenues[0] > 0.0);
    assert_eq!(outcome.follow_ups().unwrap().len(), 2);
    assert_eq!(conversation.query_ids.len(), 1);
}

/// The same scenario on the servers `scripts/engines/start.sh` starts with the demo shop (Sail
/// over Flight SQL and Spark Connect, roapi over Flight SQL): the same wrong column comes back
/// as an unknown-object error and the fixed query's numbers are the same as on the embedded
/// engine's small demo.
#[cfg(any(feature = "flight-sql", feature = "spark-connect"))]
#[tokio::test]
async fn the_quickstart_runs_on_the_distributed_engines() {
    let embedded = {
        let model = Arc::new(scripted_model());
        let agent = build_agent(model.clone(), DemoScale::Small).unwrap();
        agent.ask(&mut Conversation::new(), QUESTION).await;
        last_result_rows(&model.requests()[4])
    };
    let mut servers = Vec::new();
    if cfg!(feature = "flight-sql") {
        servers.extend(["NAO_TEST_FLIGHT_SQL_URL", "NAO_TEST_ROAPI_FLIGHT_SQL_URL"]);
    }
    if cfg!(feature = "spark-connect") {
        servers.extend([
            "NAO_TEST_SPARK_CONNECT_URL",
            "NAO_TEST_APACHE_SPARK_CONNECT_URL",
        ]);
    }
    for var in servers {
        let Some(url) = std::env::var(var).ok().filter(|u| !u.is_empty()) else {
            eprintln!(
                "{var} is not set: skipping (scripts/engines/start.sh sets it; Apache Spark with NAO_ENGINES_SPARK=1)"
            );
            continue;
        };
        let shop = nao::dialects::open("shop", &url).await.unwrap();
        let model = Arc::new(scripted_model());
        let agent = quickstart::build_agent_on(model.clone(), shop);
        let outcome = agent.ask(&mut Conversation::new(), QUESTION).await;
        assert_eq!(
            outcome.stop,
            StopReason::FollowUps,
            "{var}: {:#?}",
            outcome.events
        );
        let failed = failed_kinds(&outcome.events);
        assert_eq!(failed, ["database_unknown_object"], "{var}");
        let rows = last_result_rows(&model.requests()[4]);
        assert_eq!(
            rows, embedded,
            "{var}: the same numbers as the embedded demo"
        );
    }
}
