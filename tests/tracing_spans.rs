//! The spans of a quickstart run, as a tracing subscriber sees them: `invoke_agent` over the
//! `chat` and `execute_tool` spans, a `db_query` span under each execute_sql call, with the
//! OpenTelemetry attributes the scripted run implies, and never a SQL literal, a cell value, a
//! prompt, an answer or an API key in any field.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../examples/quickstart.rs"]
#[allow(dead_code)]
mod quickstart;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use nao::agent::{Agent, AgentEvent, AgentOutcome, Conversation, StopReason};
use nao::core::telemetry::{self, TracedQueryText};
use nao::core::{ModelProvider, Settings, Usage};
use nao::dialects::demo::DemoScale;
use nao::providers::OpenAiCompatible;
use quickstart::{FIXED_SQL, QUESTION, WRONG_SQL, last_result_rows, scripted_model};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::{Layer, Registry};

/// One span as the capturing layer saw it.
#[derive(Debug, Clone)]
struct SpanRecord {
    name: &'static str,
    /// The parent's index in the capture, if the span had one.
    parent: Option<usize>,
    fields: BTreeMap<&'static str, String>,
}

impl SpanRecord {
    fn field(&self, key: &str) -> Option<&str> {
        self.fields.get(key).map(String::as_str)
    }

    fn number(&self, key: &str) -> u64 {
        let value = self
            .field(key)
            .unwrap_or_else(|| panic!("no {key} in {self:?}"));
        value
            .parse()
            .unwrap_or_else(|_| panic!("{key} = {value:?}"))
    }
}

#[derive(Debug, Default)]
struct Captured {
    spans: Vec<SpanRecord>,
    /// The live span ids (ids are reused once a span closes) and their index in `spans`.
    live: BTreeMap<u64, usize>,
    /// The fields of every event.
    events: Vec<BTreeMap<&'static str, String>>,
}

/// A layer that keeps every span with its parent and fields, and every event's fields.
#[derive(Debug, Clone, Default)]
struct Capture(Arc<Mutex<Captured>>);

impl Capture {
    fn spans(&self) -> Vec<SpanRecord> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .spans
            .clone()
    }

    /// Every value of every span and event field.
    fn values(&self) -> Vec<String> {
        let captured = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let spans = captured.spans.iter().flat_map(|s| s.fields.values());
        let events = captured.events.iter().flat_map(|e| e.values());
        spans.chain(events).cloned().collect()
    }
}

struct Fields<'a>(&'a mut BTreeMap<&'static str, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name(), format!("{value:?}"));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name(), value.to_owned());
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Capture {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut fields = BTreeMap::new();
        attrs.record(&mut Fields(&mut fields));
        let parent_id = ctx.span(id).and_then(|s| s.parent()).map(|p| p.id());
        let mut captured = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let parent = parent_id.and_then(|p| captured.live.get(&p.into_u64()).copied());
        captured.spans.push(SpanRecord {
            name: attrs.metadata().name(),
            parent,
            fields,
        });
        let index = captured.spans.len() - 1;
        captured.live.insert(id.into_u64(), index);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _ctx: Context<'_, S>) {
        let mut captured = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(&index) = captured.live.get(&id.into_u64()) {
            values.record(&mut Fields(&mut captured.spans[index].fields));
        }
    }

    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .events
            .push(fields);
    }

    fn on_close(&self, id: Id, _ctx: Context<'_, S>) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .live
            .remove(&id.into_u64());
    }
}

/// Runs the quickstart question on `agent` with a capturing subscriber as the default.
async fn traced_run(agent: &Agent) -> (AgentOutcome, Capture) {
    let capture = Capture::default();
    let _default = tracing::subscriber::set_default(Registry::default().with(capture.clone()));
    let outcome = agent.ask(&mut Conversation::new(), QUESTION).await;
    (outcome, capture)
}

fn quickstart_agent(model: Arc<dyn ModelProvider>, settings: Settings) -> Agent {
    let shop = quickstart::demo_database(DemoScale::Small).unwrap();
    Agent::builder(model)
        .database(shop)
        .tool_settings(settings)
        .build()
}

/// The keys each span may carry: everything in a span comes from this list.
fn allowed_keys(name: &str) -> &'static [&'static str] {
    use telemetry::*;
    match name {
        INVOKE_AGENT => &[
            OTEL_NAME,
            OTEL_KIND,
            GEN_AI_OPERATION_NAME,
            GEN_AI_PROVIDER_NAME,
            GEN_AI_REQUEST_MODEL,
            GEN_AI_USAGE_INPUT_TOKENS,
            GEN_AI_USAGE_OUTPUT_TOKENS,
            NAO_AGENT_STOP_REASON,
            ERROR_TYPE,
            OTEL_STATUS_CODE,
        ],
        CHAT => &[
            OTEL_NAME,
            OTEL_KIND,
            GEN_AI_OPERATION_NAME,
            GEN_AI_PROVIDER_NAME,
            GEN_AI_REQUEST_MODEL,
            GEN_AI_REQUEST_MAX_TOKENS,
            GEN_AI_REQUEST_TEMPERATURE,
            GEN_AI_RESPONSE_MODEL,
            GEN_AI_RESPONSE_FINISH_REASONS,
            GEN_AI_USAGE_INPUT_TOKENS,
            GEN_AI_USAGE_OUTPUT_TOKENS,
            GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
            SERVER_ADDRESS,
            SERVER_PORT,
            ERROR_TYPE,
            OTEL_STATUS_CODE,
        ],
        EXECUTE_TOOL => &[
            OTEL_NAME,
            OTEL_KIND,
            GEN_AI_OPERATION_NAME,
            GEN_AI_TOOL_NAME,
            GEN_AI_TOOL_CALL_ID,
            GEN_AI_TOOL_TYPE,
            ERROR_TYPE,
            OTEL_STATUS_CODE,
        ],
        DB_QUERY => &[
            OTEL_NAME,
            OTEL_KIND,
            DB_SYSTEM_NAME,
            DB_NAMESPACE,
            DB_OPERATION_NAME,
            NAO_DB_STATEMENT_KIND,
            DB_QUERY_TEXT,
            DB_RESPONSE_RETURNED_ROWS,
            NAO_DB_RESPONSE_BYTES,
            NAO_DB_RESPONSE_TRUNCATED,
            NAO_DB_RESPONSE_TRUNCATED_BY,
            ERROR_TYPE,
            OTEL_STATUS_CODE,
        ],
        _ => &[],
    }
}

/// The spans of nao-rs (the ones named in `telemetry`), each carrying only documented keys.
fn nao_spans(capture: &Capture) -> Vec<SpanRecord> {
    let spans: Vec<SpanRecord> = capture
        .spans()
        .into_iter()
        .filter(|s| !allowed_keys(s.name).is_empty())
        .collect();
    for span in &spans {
        for key in span.fields.keys() {
            assert!(
                allowed_keys(span.name).contains(key),
                "{} carries an undocumented field {key}",
                span.name
            );
        }
    }
    spans
}

/// The literals of the quickstart's SQL.
const LITERALS: [&str; 4] = ["cancelled", "refunded", "2024-01-01", "2025-01-01"];

#[tokio::test]
async fn a_quickstart_run_is_a_tree_of_agent_model_tool_and_database_spans() {
    let model = Arc::new(scripted_model());
    let agent = quickstart_agent(model.clone(), Settings::default());
    let (outcome, capture) = traced_run(&agent).await;
    assert_eq!(outcome.stop, StopReason::FollowUps, "{:#?}", outcome.events);
    let all = capture.spans();
    let spans = nao_spans(&capture);

    // One run: the root of everything nao-rs traced.
    let agents: Vec<usize> = (0..all.len())
        .filter(|&i| all[i].name == "invoke_agent")
        .collect();
    assert_eq!(agents.len(), 1, "{spans:#?}");
    let run_index = agents[0];
    let run = &all[run_index];
    assert_eq!(run.parent, None);
    assert_eq!(run.field("gen_ai.operation.name"), Some("invoke_agent"));
    assert_eq!(run.field("gen_ai.provider.name"), Some("scripted"));
    assert_eq!(run.field("gen_ai.request.model"), Some("scripted"));
    assert_eq!(run.field("otel.name"), Some("invoke_agent"));
    assert_eq!(run.field("nao.agent.stop_reason"), Some("follow_ups"));
    assert_eq!(
        run.number("gen_ai.usage.input_tokens"),
        outcome.usage.input_tokens
    );
    assert_eq!(
        run.number("gen_ai.usage.output_tokens"),
        outcome.usage.output_tokens
    );
    assert_eq!(run.field("error.type"), None);

    // A chat span per model call, under the run, with the tokens the script counted.
    let turns: Vec<Usage> = outcome
        .events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Usage { turn, .. } => Some(*turn),
            _ => None,
        })
        .collect();
    let chats: Vec<&SpanRecord> = spans.iter().filter(|s| s.name == "chat").collect();
    assert_eq!(chats.len(), model.requests().len());
    assert_eq!(chats.len(), turns.len());
    for (chat, turn) in chats.iter().zip(&turns) {
        assert_eq!(chat.parent, Some(run_index), "{chat:?}");
        assert_eq!(chat.field("otel.name"), Some("chat scripted"));
        assert_eq!(chat.field("otel.kind"), Some("client"));
        assert_eq!(chat.field("gen_ai.operation.name"), Some("chat"));
        assert_eq!(chat.field("gen_ai.provider.name"), Some("scripted"));
        assert_eq!(chat.field("gen_ai.request.model"), Some("scripted"));
        assert_eq!(chat.field("gen_ai.response.model"), Some("scripted"));
        assert_eq!(
            chat.field("gen_ai.response.finish_reasons"),
            Some("tool_calls")
        );
        assert_eq!(chat.number("gen_ai.usage.input_tokens"), turn.input_tokens);
        assert_eq!(
            chat.number("gen_ai.usage.output_tokens"),
            turn.output_tokens
        );
        assert!(turn.input_tokens > 0 && turn.output_tokens > 0);
    }

    // An execute_tool span per tool call, under the run, with the call's id.
    let started: Vec<(String, String)> = outcome
        .events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolStarted { call_id, tool, .. } => Some((tool.clone(), call_id.clone())),
            _ => None,
        })
        .collect();
    let tools: Vec<&SpanRecord> = spans.iter().filter(|s| s.name == "execute_tool").collect();
    let mut traced: Vec<(String, String)> = tools
        .iter()
        .map(|t| {
            assert_eq!(t.parent, Some(run_index), "{t:?}");
            assert_eq!(t.field("gen_ai.operation.name"), Some("execute_tool"));
            assert_eq!(t.field("gen_ai.tool.type"), Some("function"));
            let name = t.field("gen_ai.tool.name").unwrap().to_owned();
            assert_eq!(
                t.field("otel.name"),
                Some(format!("execute_tool {name}").as_str())
            );
            (name, t.field("gen_ai.tool.call.id").unwrap().to_owned())
        })
        .collect();
    let mut expected = started.clone();
    traced.sort();
    expected.sort();
    assert_eq!(traced, expected);
    let finished: BTreeMap<String, (Option<u64>, Option<String>)> = outcome
        .events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolFinished {
                call_id,
                row_count,
                error_kind,
                ..
            } => Some((call_id.clone(), (*row_count, error_kind.clone()))),
            _ => None,
        })
        .collect();
    for tool in &tools {
        let (_, error_kind) = &finished[tool.field("gen_ai.tool.call.id").unwrap()];
        assert_eq!(tool.field("error.type"), error_kind.as_deref(), "{tool:?}");
        let status = error_kind.as_ref().map(|_| "ERROR");
        assert_eq!(tool.field("otel.status_code"), status);
    }

    // A database span under each execute_sql span: the wrong query failed, the fixed one
    // returned the rows the model was shown.
    let queries: Vec<&SpanRecord> = spans.iter().filter(|s| s.name == "db_query").collect();
    assert_eq!(queries.len(), 2, "{queries:#?}");
    let shop = quickstart::demo_database(DemoScale::Small).unwrap();
    let system = telemetry::db_system_name(shop.sql_dialect());
    for query in &queries {
        let tool = &all[query.parent.expect("a db span has a parent")];
        assert_eq!(tool.name, "execute_tool");
        assert_eq!(tool.field("gen_ai.tool.name"), Some("execute_sql"));
        assert_eq!(query.field("db.system.name"), Some(system));
        assert_eq!(query.field("db.namespace"), Some("shop"));
        assert_eq!(query.field("db.operation.name"), Some("SELECT"));
        assert_eq!(query.field("nao.db.statement.kind"), Some("query"));
        assert_eq!(query.field("otel.name"), Some("SELECT shop"));
        assert_eq!(query.field("otel.kind"), Some("client"));
        assert_eq!(query.field("db.query.text"), None, "no SQL text by default");
    }
    let (failed, answered) = (queries[0], queries[1]);
    let failed_tool = &all[failed.parent.unwrap()];
    let tool_kind = failed_tool.field("error.type").unwrap();
    assert_eq!(
        Some(tool_kind),
        failed
            .field("error.type")
            .map(|k| format!("database_{k}"))
            .as_deref(),
    );
    assert_eq!(failed.field("otel.status_code"), Some("ERROR"));
    assert_eq!(failed.field("db.response.returned_rows"), None);

    let call_id = all[answered.parent.unwrap()]
        .field("gen_ai.tool.call.id")
        .unwrap();
    let (row_count, _) = finished[call_id];
    let shown = last_result_rows(&model.requests()[4]);
    assert!(shown.len() >= 2, "{shown:?}");
    assert_eq!(
        answered.number("db.response.returned_rows"),
        shown.len() as u64
    );
    assert_eq!(
        Some(answered.number("db.response.returned_rows")),
        row_count
    );
    assert!(answered.number("nao.db.response.bytes") > 0);
    assert_eq!(answered.field("nao.db.response.truncated"), Some("false"));
    assert_eq!(answered.field("error.type"), None);

    // Nothing of the SQL's values, the results, the question or the answer in any field.
    let answer = outcome.answer.clone().unwrap();
    let mut forbidden: Vec<String> = LITERALS.iter().map(|l| (*l).to_owned()).collect();
    forbidden.extend(shown.iter().map(|row| row[0].clone()));
    forbidden.extend([
        QUESTION.to_owned(),
        answer,
        FIXED_SQL.to_owned(),
        WRONG_SQL.to_owned(),
    ]);
    forbidden.push("unit_price".to_owned());
    for value in capture.values() {
        for secret in &forbidden {
            assert!(
                !value.contains(secret.as_str()),
                "{secret:?} in a field: {value:?}"
            );
        }
    }
}

#[tokio::test]
async fn the_query_text_is_traced_with_its_literals_masked_when_the_host_opts_in() {
    let model = Arc::new(scripted_model());
    let settings = Settings::default().with_traced_query_text(TracedQueryText::LiteralsMasked);
    let agent = quickstart_agent(model, settings);
    let (outcome, capture) = traced_run(&agent).await;
    assert_eq!(outcome.stop, StopReason::FollowUps, "{:#?}", outcome.events);
    let texts: Vec<String> = nao_spans(&capture)
        .iter()
        .filter(|s| s.name == "db_query")
        .map(|s| {
            s.field("db.query.text")
                .expect("the text, opted in")
                .to_owned()
        })
        .collect();
    assert_eq!(
        texts,
        [
            "SELECT p.category, SUM(oi.quantity * oi.price) AS revenue FROM order_items oi \
             JOIN products p ON p.id = oi.product_id GROUP BY p.category LIMIT ?",
            "SELECT p.category, ROUND(SUM(oi.quantity * oi.unit_price), ?) AS revenue, \
             COUNT(DISTINCT o.id) AS orders FROM order_items oi \
             JOIN products p ON p.id = oi.product_id JOIN orders o ON o.id = oi.order_id \
             WHERE o.status NOT IN (?, ?) AND o.ordered_at >= ? AND o.ordered_at < ? \
             GROUP BY p.category ORDER BY revenue DESC LIMIT ?",
        ]
    );
    for value in capture.values() {
        for literal in LITERALS {
            assert!(
                !value.contains(literal),
                "{literal:?} in a field: {value:?}"
            );
        }
    }
}

/// The API key of the stand-in model server: it must reach the server and no span.
const API_KEY: &str = "sk-nao-test-4f1b9c27e8d3a605";

/// Serves each response in turn to one request each, over plain HTTP on loopback, and hands
/// back what the requests were.
async fn serve(responses: Vec<String>) -> (String, tokio::task::JoinHandle<Vec<String>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        let mut requests = Vec::new();
        for body in responses {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut seen = Vec::new();
            let mut buf = [0u8; 8192];
            loop {
                let n = socket.read(&mut buf).await.unwrap();
                assert!(n > 0, "the client closed before its request ended");
                seen.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&seen).to_string();
                if let Some(end) = text.find("\r\n\r\n") {
                    let length = text[..end]
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .and_then(|v| v.trim().parse::<usize>().ok())
                        })
                        .unwrap_or(0);
                    if seen.len() >= end + 4 + length {
                        break;
                    }
                }
            }
            requests.push(String::from_utf8_lossy(&seen).to_string());
            let reply = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\
                 connection: close\r\n\r\n{body}",
                body.len()
            );
            socket.write_all(reply.as_bytes()).await.unwrap();
        }
        requests
    });
    (format!("http://{address}/v1"), server)
}

/// A streamed Chat Completions answer: `delta`, then the finish reason and the usage.
fn sse(delta: serde_json::Value, finish: &str, input: u64, output: u64) -> String {
    let chunk = |choices: serde_json::Value, usage: serde_json::Value| {
        let mut chunk = serde_json::json!({
            "id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "gpt-test-2025",
            "choices": choices,
        });
        if !usage.is_null() {
            chunk["usage"] = usage;
        }
        format!("data: {chunk}\n\n")
    };
    [
        chunk(
            serde_json::json!([{"index": 0, "delta": delta}]),
            serde_json::Value::Null,
        ),
        chunk(
            serde_json::json!([{"index": 0, "delta": {}, "finish_reason": finish}]),
            serde_json::Value::Null,
        ),
        chunk(
            serde_json::json!([]),
            serde_json::json!({"prompt_tokens": input, "completion_tokens": output}),
        ),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat()
}

#[tokio::test]
async fn a_real_provider_adds_its_server_and_never_its_key() {
    let sql = "SELECT count(*) AS n FROM orders WHERE status = 'delivered'";
    let call = serde_json::json!({"role": "assistant", "tool_calls": [{
        "index": 0, "id": "call_sql", "type": "function",
        "function": {"name": "execute_sql", "arguments": serde_json::json!({"sql_query": sql}).to_string()},
    }]});
    let answer = "Most orders are delivered: the count is in the table above.";
    let (base_url, server) = serve(vec![
        sse(call, "tool_calls", 1_200, 40),
        sse(
            serde_json::json!({"role": "assistant", "content": answer}),
            "stop",
            1_300,
            15,
        ),
    ])
    .await;
    let port = base_url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/v1")
        .to_owned();
    let model = OpenAiCompatible::builder("gpt-test")
        .base_url(base_url)
        .api_key(API_KEY)
        .no_proxy()
        .build()
        .unwrap();
    let agent = quickstart_agent(Arc::new(model), Settings::default());
    let (outcome, capture) = traced_run(&agent).await;
    assert_eq!(outcome.stop, StopReason::Answer, "{:#?}", outcome.events);
    let requests = server.await.unwrap();
    assert!(
        requests.iter().all(|r| r.contains(API_KEY)),
        "the key went to the server"
    );

    let spans = nao_spans(&capture);
    let chats: Vec<&SpanRecord> = spans.iter().filter(|s| s.name == "chat").collect();
    assert_eq!(chats.len(), 2);
    for (chat, (input, output, finish)) in chats
        .iter()
        .zip([(1_200, 40, "tool_calls"), (1_300, 15, "stop")])
    {
        assert_eq!(chat.field("otel.name"), Some("chat gpt-test"));
        assert_eq!(chat.field("gen_ai.provider.name"), Some("openai"));
        assert_eq!(chat.field("gen_ai.request.model"), Some("gpt-test"));
        assert_eq!(chat.field("gen_ai.response.model"), Some("gpt-test-2025"));
        assert_eq!(chat.field("gen_ai.response.finish_reasons"), Some(finish));
        assert_eq!(chat.number("gen_ai.usage.input_tokens"), input);
        assert_eq!(chat.number("gen_ai.usage.output_tokens"), output);
        assert_eq!(chat.field("server.address"), Some("127.0.0.1"));
        assert_eq!(chat.field("server.port"), Some(port.as_str()));
    }
    let run = spans.iter().find(|s| s.name == "invoke_agent").unwrap();
    assert_eq!(run.number("gen_ai.usage.input_tokens"), 2_500);
    assert_eq!(run.number("gen_ai.usage.output_tokens"), 55);
    let query = spans.iter().find(|s| s.name == "db_query").unwrap();
    assert_eq!(query.number("db.response.returned_rows"), 1);

    for value in capture.values() {
        for secret in [API_KEY, "Bearer", "delivered", QUESTION, answer, sql] {
            assert!(!value.contains(secret), "{secret:?} in a field: {value:?}");
        }
    }
}

#[tokio::test]
async fn a_failed_model_call_marks_its_chat_span_and_the_run() {
    // A script with no turn: the first model call fails for good (not retried).
    let model = Arc::new(nao::agent::ScriptedProvider::new());
    let agent = quickstart_agent(model, Settings::default());
    let (outcome, capture) = traced_run(&agent).await;
    assert_eq!(outcome.stop, StopReason::ProviderError);
    let spans = nao_spans(&capture);
    let chats: Vec<&SpanRecord> = spans.iter().filter(|s| s.name == "chat").collect();
    assert_eq!(chats.len(), 1);
    assert_eq!(chats[0].field("error.type"), Some("permanent"));
    assert_eq!(chats[0].field("otel.status_code"), Some("ERROR"));
    assert_eq!(chats[0].field("gen_ai.usage.input_tokens"), None);
    let run = spans.iter().find(|s| s.name == "invoke_agent").unwrap();
    assert_eq!(run.field("error.type"), Some("permanent"));
    assert_eq!(run.field("nao.agent.stop_reason"), Some("provider_error"));
    assert_eq!(run.number("gen_ai.usage.input_tokens"), 0);
}
