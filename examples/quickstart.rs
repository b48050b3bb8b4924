//! The agent loop, offline: a scripted model answers a question about the demo shop on the
//! embedded SQLite engine (DuckDB with `--features duckdb`). It lists the tables, describes two
//! of them, writes SQL with a wrong column, reads the database's error, fixes the query, and
//! answers with the numbers the database returned. No network, no keys.
//!
//! ```text
//! cargo run --example quickstart
//! ```
//!
//! `--database URL` runs it on another database holding the demo shop instead (its six tables
//! under the same names), such as a Flight SQL server (`scripts/engines/start.sh` starts Sail
//! and roapi with it):
//!
//! ```text
//! cargo run --example quickstart --features flight-sql -- --database 'flightsql://127.0.0.1:PORT?dialect=spark'
//! ```
//!
//! With `OPENAI_API_KEY` (or `OPENAI_BASE_URL` for a local OpenAI-compatible server such as
//! Ollama or vLLM) or `ANTHROPIC_API_KEY` set, a real model answers instead of the script; pick
//! the model with `NAO_MODEL`.
#![allow(clippy::print_stdout)]

use std::io::Write as _;
use std::process::ExitCode;
use std::sync::Arc;

use nao::agent::{Agent, AgentEvent, Conversation, ScriptedProvider};
use nao::core::{
    Completion, CompletionRequest, Dialect, DialectError, FinishReason, Message, ModelProvider,
};
use nao::core::{ToolCall, Usage};
use nao::dialects::demo::DemoScale;
use serde_json::json;

/// The question the scripted model answers.
pub(crate) const QUESTION: &str = "Which product categories brought in the most revenue in 2024?";

/// The query with a deliberate mistake: order_items has unit_price, not price.
pub(crate) const WRONG_SQL: &str = "SELECT p.category, SUM(oi.quantity * oi.price) AS revenue \
FROM order_items oi JOIN products p ON p.id = oi.product_id GROUP BY p.category";

/// The corrected query.
pub(crate) const FIXED_SQL: &str = "SELECT p.category, \
ROUND(SUM(oi.quantity * oi.unit_price), 2) AS revenue, COUNT(DISTINCT o.id) AS orders \
FROM order_items oi \
JOIN products p ON p.id = oi.product_id \
JOIN orders o ON o.id = oi.order_id \
WHERE o.status NOT IN ('cancelled', 'refunded') \
AND o.ordered_at >= '2024-01-01' AND o.ordered_at < '2025-01-01' \
GROUP BY p.category ORDER BY revenue DESC";

/// The demo shop on the embedded engine, with its table and column comments.
pub(crate) fn demo_database(scale: DemoScale) -> Result<Arc<dyn Dialect>, DialectError> {
    #[cfg(feature = "duckdb")]
    let shop = nao::dialects::duckdb::DuckDbDialect::demo("shop", scale)?;
    #[cfg(not(feature = "duckdb"))]
    let shop = nao::dialects::sqlite::SqliteDialect::demo("shop", scale)?;
    Ok(Arc::new(shop))
}

/// The rows of the last Markdown result table the model was shown, as cells (without the
/// row-number column).
pub(crate) fn last_result_rows(request: &CompletionRequest) -> Vec<Vec<String>> {
    let Some(markdown) = request.messages.iter().rev().find_map(|m| match m {
        Message::Tool {
            content,
            is_error: false,
            ..
        } => Some(content.as_str()),
        _ => None,
    }) else {
        return Vec::new();
    };
    markdown
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| #"))
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .skip(1)
                .map(|c| c.trim().to_owned())
                .collect()
        })
        .collect()
}

/// What a model would do, scripted: explore, query (with one mistake), fix, answer.
pub(crate) fn scripted_model() -> ScriptedProvider {
    ScriptedProvider::new()
        .say_and_call(
            "Let me see which tables there are.",
            [("list_tables", json!({}))],
        )
        .say_and_call(
            "Revenue comes from order lines; categories are on products.",
            [
                ("describe_table", json!({"table": "order_items"})),
                ("describe_table", json!({"table": "products"})),
            ],
        )
        .call("execute_sql", json!({ "sql_query": WRONG_SQL }))
        .say_and_call(
            "There is no price column on order_items; it is unit_price. Fixing the query.",
            [("execute_sql", json!({ "sql_query": FIXED_SQL }))],
        )
        .then(|request| {
            let rows = last_result_rows(request);
            let mut answer = String::from(
                "In 2024, excluding cancelled and refunded orders, revenue by category was:\n\n",
            );
            for (rank, row) in rows.iter().take(3).enumerate() {
                if let [category, revenue, orders, ..] = row.as_slice() {
                    answer.push_str(&format!(
                        "{}. **{category}**: {revenue} from {orders} orders\n",
                        rank + 1
                    ));
                }
            }
            if rows.len() > 3 {
                answer.push_str(&format!("\n{} categories in all.", rows.len()));
            }
            let follow_ups = ToolCall::new(
                "call_follow_ups",
                "suggest_follow_ups",
                json!({"suggestions": [
                    "How did revenue by category change from 2023 to 2024?",
                    "Which products lead the top category?"
                ]}),
            );
            Completion::new(answer, vec![follow_ups], FinishReason::ToolCalls)
        })
}

/// A real model when the environment names one: Anthropic with `ANTHROPIC_API_KEY`, an
/// OpenAI-compatible server with `OPENAI_API_KEY` or `OPENAI_BASE_URL`; `NAO_MODEL` picks the model.
fn model_from_env() -> Option<Result<Arc<dyn ModelProvider>, String>> {
    let set = |name: &str| std::env::var(name).is_ok_and(|v| !v.trim().is_empty());
    let model = std::env::var("NAO_MODEL")
        .ok()
        .filter(|m| !m.trim().is_empty());
    if set("ANTHROPIC_API_KEY") {
        let model = model.unwrap_or_else(|| "claude-sonnet-4-5".to_owned());
        let built = nao::providers::AnthropicBuilder::from_env(model).build();
        return Some(
            built
                .map(|p| Arc::new(p) as Arc<dyn ModelProvider>)
                .map_err(|e| e.to_string()),
        );
    }
    if set("OPENAI_API_KEY") || set("OPENAI_BASE_URL") {
        let model = model.unwrap_or_else(|| "gpt-4.1-mini".to_owned());
        let built = nao::providers::OpenAiCompatibleBuilder::from_env(model).build();
        return Some(
            built
                .map(|p| Arc::new(p) as Arc<dyn ModelProvider>)
                .map_err(|e| e.to_string()),
        );
    }
    None
}

/// The agent over the demo shop.
pub(crate) fn build_agent(
    model: Arc<dyn ModelProvider>,
    scale: DemoScale,
) -> Result<Agent, DialectError> {
    Ok(build_agent_on(model, demo_database(scale)?))
}

/// The agent over `database`.
pub(crate) fn build_agent_on(model: Arc<dyn ModelProvider>, database: Arc<dyn Dialect>) -> Agent {
    Agent::builder(model).database(database).build()
}

/// The URL of `--database URL` (or `--database=URL`); `Err` for anything else on the command
/// line.
fn database_url_from_args() -> Result<Option<String>, String> {
    let mut args = std::env::args().skip(1);
    let mut url = None;
    while let Some(arg) = args.next() {
        match arg.strip_prefix("--database") {
            Some("") => url = Some(args.next().ok_or("--database wants a URL")?),
            Some(rest) if rest.starts_with('=') => url = Some(rest[1..].to_owned()),
            _ => {
                return Err(format!(
                    "unknown argument {arg:?}; the only option is --database URL"
                ));
            }
        }
    }
    Ok(url)
}

/// The agent: over the database `--database` names, else over the demo shop.
async fn agent(model: Arc<dyn ModelProvider>) -> Result<Agent, String> {
    match database_url_from_args()? {
        Some(url) => {
            let opened = nao::dialects::open("shop", &url)
                .await
                .map_err(|e| e.to_string())?;
            println!(
                "Database: {} ({})\n",
                opened.name(),
                opened.sql_dialect().display_name()
            );
            Ok(build_agent_on(model, opened))
        }
        None => build_agent(model, DemoScale::Full)
            .map_err(|e| format!("could not build the demo database: {e}")),
    }
}

/// The Markdown of the last successful execute_sql result in the conversation.
fn last_successful_result(conversation: &Conversation) -> Option<&str> {
    conversation.messages.iter().rev().find_map(|m| match m {
        Message::Tool {
            name,
            content,
            is_error: false,
            ..
        } if name == "execute_sql" => Some(content.as_str()),
        _ => None,
    })
}

fn describe(event: &AgentEvent, in_text: &mut bool) -> Option<String> {
    let line = match event {
        AgentEvent::TextDelta { text } => {
            let prefix = if *in_text { "" } else { "  model: " };
            *in_text = true;
            print!("{prefix}{text}");
            let _ = std::io::stdout().flush();
            return None;
        }
        AgentEvent::ToolStarted {
            tool, arguments, ..
        } => format!("  → {tool} {arguments}"),
        AgentEvent::ApprovalNeeded { tool, .. } => format!("  ? {tool} waits for approval"),
        AgentEvent::ToolFinished {
            tool,
            latency_ms,
            row_count,
            is_error,
            error_kind,
            ..
        } => match (is_error, error_kind) {
            (true, kind) => format!(
                "  ✗ {tool} failed ({}) in {latency_ms} ms: the error goes back to the model",
                kind.as_deref().unwrap_or("error")
            ),
            (false, _) => match row_count {
                Some(rows) => format!("  ✓ {tool}: {rows} rows in {latency_ms} ms"),
                None => format!("  ✓ {tool} in {latency_ms} ms"),
            },
        },
        AgentEvent::Usage { turn, .. } => format!(
            "  · model call: {} input + {} output tokens",
            turn.input_tokens, turn.output_tokens
        ),
        AgentEvent::Error { message } => format!("  ! {message}"),
        AgentEvent::StepLimit { steps } => format!("  ! step limit ({steps}) reached"),
        AgentEvent::BudgetExhausted { used, budget } => {
            format!("  ! token budget spent ({used} of {budget})")
        }
        _ => return None,
    };
    if *in_text {
        println!();
        *in_text = false;
    }
    Some(line)
}

#[tokio::main]
async fn main() -> ExitCode {
    let model: Arc<dyn ModelProvider> = match model_from_env() {
        Some(Ok(real)) => {
            println!(
                "Model: {} {} (from the environment)\n",
                real.name(),
                real.model()
            );
            real
        }
        Some(Err(err)) => {
            eprintln!("could not set up the model from the environment: {err}");
            return ExitCode::FAILURE;
        }
        None => {
            println!("Model: a scripted stand-in (no API key set; runs offline)\n");
            Arc::new(scripted_model())
        }
    };
    let agent = match agent(model).await {
        Ok(agent) => agent,
        Err(err) => {
            eprintln!("{err}");
            return ExitCode::FAILURE;
        }
    };
    println!("Question: {QUESTION}\n");
    let mut conversation = Conversation::new();
    let mut events = Vec::new();
    {
        let mut run = agent.run(&mut conversation, QUESTION);
        let mut in_text = false;
        while let Some(event) = run.next_event().await {
            if let Some(line) = describe(&event, &mut in_text) {
                println!("{line}");
            }
            events.push(event);
        }
    }
    if let Some(table) = last_successful_result(&conversation) {
        println!("\nWhat the model was shown for its last query:\n");
        for line in table.lines() {
            println!("    {line}");
        }
    }
    let mut usage = Usage::default();
    for event in &events {
        match event {
            AgentEvent::Answer { text } => println!("\nAnswer:\n{text}"),
            AgentEvent::FollowUps { suggestions } => {
                println!("\nYou could ask next:");
                for suggestion in suggestions {
                    println!("- {suggestion}");
                }
            }
            AgentEvent::Finished { stop, usage: total } => {
                println!("\nStopped: {stop:?}");
                usage = *total;
            }
            _ => {}
        }
    }
    println!(
        "Usage: {} input + {} output tokens (counted by the scripted model as characters / 4).",
        usage.input_tokens, usage.output_tokens
    );
    println!(
        "The conversation ({} messages, query ids {:?}) serializes to JSON to resume later.",
        conversation.messages.len(),
        conversation.query_ids
    );
    ExitCode::SUCCESS
}
