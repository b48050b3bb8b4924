//! The `tracing` spans of nao-rs, named and attributed after the OpenTelemetry semantic
//! conventions for generative AI (agent, model and tool spans) and for database client calls.
//!
//! One place for the span names and attribute keys: the agent loop (`nao-agent`), the tool
//! registry, execute_sql and the model providers (`nao-providers`) all build their spans here.
//!
//! | span | made by | `otel.name` | parent |
//! |---|---|---|---|
//! | [`INVOKE_AGENT`] | `Agent::run` (nao-agent) | `invoke_agent` | the host's current span |
//! | [`CHAT`] | each model call of a run | `chat {gen_ai.request.model}` | `invoke_agent` |
//! | [`EXECUTE_TOOL`] | [`ToolRegistry::call`](crate::ToolRegistry::call) | `execute_tool {gen_ai.tool.name}` | `invoke_agent`, or the host's span |
//! | [`DB_QUERY`] | execute_sql, for the statement it runs | `{db.operation.name} {db.namespace}` | `execute_tool execute_sql` |
//!
//! A `tracing` span's name is static, so each span also carries its OpenTelemetry name in
//! [`OTEL_NAME`] and its kind in [`OTEL_KIND`], the fields `tracing-opentelemetry` reads; a
//! failure sets [`ERROR_TYPE`] and [`OTEL_STATUS_CODE`]. Every span is at level `INFO` with the
//! target `nao_core::telemetry`, so `RUST_LOG=nao_core::telemetry=info` selects exactly them.
//!
//! # What spans never hold
//! No prompt, no completion text, no tool arguments, no cell value, no API key, no connection
//! URL: names, ids, counts, kinds and codes only. The SQL of a query is left out unless the
//! host opts in with [`Settings::traced_query_text`](crate::Settings::traced_query_text), and
//! even then its literals are replaced by `?` ([`nao_guard::mask_literals`]).
//!
//! # Cost
//! Spans are cheap when no subscriber listens: the field values are not evaluated, and the
//! values known only at the end (tokens, rows, bytes) are computed only for an enabled span.

use arrow_array::RecordBatch;
use nao_guard::{ReadOnlySql, SqlDialect, StatementKind};
use nao_render::Truncation;
use tracing::Span;
use tracing::field::Empty;

use crate::{Completion, CompletionRequest, FinishReason, ProviderError, Usage};

/// The span of one agent run (one question), parent of its model and tool calls.
pub const INVOKE_AGENT: &str = "invoke_agent";
/// The span of one model call.
pub const CHAT: &str = "chat";
/// The span of one tool call.
pub const EXECUTE_TOOL: &str = "execute_tool";
/// The span of one statement run on a database.
pub const DB_QUERY: &str = "db_query";

/// The span's name for OpenTelemetry (`tracing-opentelemetry` renames the span to it).
pub const OTEL_NAME: &str = "otel.name";
/// The span's kind for OpenTelemetry: `client` for model and database calls, `internal` for
/// the rest.
pub const OTEL_KIND: &str = "otel.kind";
/// `ERROR` when the operation failed.
pub const OTEL_STATUS_CODE: &str = "otel.status_code";
/// A low-cardinality code of the failure (`auth`, `rate_limited`, `database_syntax`,
/// `unknown_object`, …), never a message.
pub const ERROR_TYPE: &str = "error.type";

/// The GenAI operation: `invoke_agent`, `chat` or `execute_tool`.
pub const GEN_AI_OPERATION_NAME: &str = "gen_ai.operation.name";
/// The model provider ([`ModelProvider::name`](crate::ModelProvider::name): `openai`,
/// `anthropic`, `scripted`, …).
pub const GEN_AI_PROVIDER_NAME: &str = "gen_ai.provider.name";
/// The model asked for.
pub const GEN_AI_REQUEST_MODEL: &str = "gen_ai.request.model";
/// The output token limit of the request, when set.
pub const GEN_AI_REQUEST_MAX_TOKENS: &str = "gen_ai.request.max_tokens";
/// The sampling temperature of the request, when set.
pub const GEN_AI_REQUEST_TEMPERATURE: &str = "gen_ai.request.temperature";
/// The model that answered, as the provider names it.
pub const GEN_AI_RESPONSE_MODEL: &str = "gen_ai.response.model";
/// Why the model stopped (`stop`, `tool_calls`, `length`, `content_filter`, or the provider's
/// own word). The convention's type is a list; a `tracing` field holds the one reason of the
/// call as a string.
pub const GEN_AI_RESPONSE_FINISH_REASONS: &str = "gen_ai.response.finish_reasons";
/// Prompt tokens (cached ones included); on `invoke_agent`, the run's total.
pub const GEN_AI_USAGE_INPUT_TOKENS: &str = "gen_ai.usage.input_tokens";
/// Generated tokens; on `invoke_agent`, the run's total.
pub const GEN_AI_USAGE_OUTPUT_TOKENS: &str = "gen_ai.usage.output_tokens";
/// Prompt tokens served from the provider's cache.
pub const GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS: &str = "gen_ai.usage.cache_read.input_tokens";
/// The tool's name.
pub const GEN_AI_TOOL_NAME: &str = "gen_ai.tool.name";
/// The model's id for the tool call.
pub const GEN_AI_TOOL_CALL_ID: &str = "gen_ai.tool.call.id";
/// The tool's type: always `function` (a function declared to the model, which the
/// application runs with the arguments the model wrote).
pub const GEN_AI_TOOL_TYPE: &str = "gen_ai.tool.type";

/// The model API's host name, recorded by the providers of `nao-providers` on the `chat`
/// span.
pub const SERVER_ADDRESS: &str = "server.address";
/// The model API's port, recorded with [`SERVER_ADDRESS`].
pub const SERVER_PORT: &str = "server.port";

/// The database engine (`postgresql`, `sqlite`, `duckdb`, …; see [`db_system_name`]).
pub const DB_SYSTEM_NAME: &str = "db.system.name";
/// The database's name in nao-rs ([`Dialect::name`](crate::Dialect::name), the model's
/// `database_id`).
pub const DB_NAMESPACE: &str = "db.namespace";
/// The statement's command: `SELECT` for every query form, `EXPLAIN`, or the introspection
/// command (`SHOW`, `DESCRIBE`, `PRAGMA`).
pub const DB_OPERATION_NAME: &str = "db.operation.name";
/// The statement's text with its literals replaced by `?`; only when the host opts in.
pub const DB_QUERY_TEXT: &str = "db.query.text";
/// Rows kept from the result.
pub const DB_RESPONSE_RETURNED_ROWS: &str = "db.response.returned_rows";
/// The guard's kind of statement: `query`, `explain`, `introspection` or `unchecked`.
pub const NAO_DB_STATEMENT_KIND: &str = "nao.db.statement.kind";
/// Arrow memory of the rows kept, in bytes.
pub const NAO_DB_RESPONSE_BYTES: &str = "nao.db.response.bytes";
/// Whether rows were cut (a cap or the time limit).
pub const NAO_DB_RESPONSE_TRUNCATED: &str = "nao.db.response.truncated";
/// What cut them: `row_cap`, `byte_cap` or `timeout`.
pub const NAO_DB_RESPONSE_TRUNCATED_BY: &str = "nao.db.response.truncated_by";
/// Why an agent run ended (`answer`, `follow_ups`, `step_limit`, `provider_error`, …).
pub const NAO_AGENT_STOP_REASON: &str = "nao.agent.stop_reason";

/// Whether database spans carry the statement's text ([`DB_QUERY_TEXT`]).
///
/// Off by default: a statement's literals are values (names, emails, amounts the model copied
/// from a question or a result), and traces often go where those must not.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TracedQueryText {
    /// No text (the default).
    #[default]
    Omitted,
    /// The text with every literal replaced by `?` and comments removed
    /// ([`nao_guard::mask_literals`]); nothing when the text cannot be masked.
    LiteralsMasked,
}

/// The span of one agent run: [`INVOKE_AGENT`], with the provider and the model; the run's
/// usage and stop reason come at the end ([`record_agent_end`]).
pub fn invoke_agent_span(provider: &str, model: &str) -> Span {
    tracing::info_span!(
        INVOKE_AGENT,
        { OTEL_NAME } = INVOKE_AGENT,
        { OTEL_KIND } = "internal",
        { GEN_AI_OPERATION_NAME } = INVOKE_AGENT,
        { GEN_AI_PROVIDER_NAME } = provider,
        { GEN_AI_REQUEST_MODEL } = model,
        { GEN_AI_USAGE_INPUT_TOKENS } = Empty,
        { GEN_AI_USAGE_OUTPUT_TOKENS } = Empty,
        { NAO_AGENT_STOP_REASON } = Empty,
        { ERROR_TYPE } = Empty,
        { OTEL_STATUS_CODE } = Empty,
    )
}

/// Records how a run ended on its [`invoke_agent_span`]: the tokens of all its model calls, the
/// stop reason (snake_case) and, if it failed, the failure's code.
pub fn record_agent_end(span: &Span, usage: Usage, stop_reason: &str, error_type: Option<&str>) {
    span.record(GEN_AI_USAGE_INPUT_TOKENS, usage.input_tokens);
    span.record(GEN_AI_USAGE_OUTPUT_TOKENS, usage.output_tokens);
    span.record(NAO_AGENT_STOP_REASON, stop_reason);
    if let Some(error_type) = error_type {
        record_error(span, error_type);
    }
}

/// The span of one model call: [`CHAT`], named `chat {model}`, with the request's model and
/// limits. The answer's model, tokens and finish reason come with [`record_completion`], a
/// failure with [`record_error`] and [`provider_error_type`]. Never the messages.
pub fn chat_span(provider: &str, model: &str, request: &CompletionRequest) -> Span {
    let span = tracing::info_span!(
        CHAT,
        { OTEL_NAME } = %format_args!("{CHAT} {model}"),
        { OTEL_KIND } = "client",
        { GEN_AI_OPERATION_NAME } = CHAT,
        { GEN_AI_PROVIDER_NAME } = provider,
        { GEN_AI_REQUEST_MODEL } = model,
        { GEN_AI_REQUEST_MAX_TOKENS } = Empty,
        { GEN_AI_REQUEST_TEMPERATURE } = Empty,
        { GEN_AI_RESPONSE_MODEL } = Empty,
        { GEN_AI_RESPONSE_FINISH_REASONS } = Empty,
        { GEN_AI_USAGE_INPUT_TOKENS } = Empty,
        { GEN_AI_USAGE_OUTPUT_TOKENS } = Empty,
        { GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS } = Empty,
        { SERVER_ADDRESS } = Empty,
        { SERVER_PORT } = Empty,
        { ERROR_TYPE } = Empty,
        { OTEL_STATUS_CODE } = Empty,
    );
    if let Some(max_tokens) = request.max_output_tokens {
        span.record(GEN_AI_REQUEST_MAX_TOKENS, max_tokens);
    }
    if let Some(temperature) = request.temperature {
        span.record(GEN_AI_REQUEST_TEMPERATURE, f64::from(temperature));
    }
    span
}

/// Records a model's answer on its [`chat_span`]: the model that answered, the tokens and
/// the finish reason (not the text, not the tool calls).
pub fn record_completion(span: &Span, completion: &Completion) {
    if span.is_disabled() {
        return;
    }
    if !completion.model.is_empty() {
        span.record(GEN_AI_RESPONSE_MODEL, completion.model.as_str());
    }
    span.record(
        GEN_AI_RESPONSE_FINISH_REASONS,
        finish_reason_name(&completion.finish_reason),
    );
    let usage = completion.usage;
    span.record(GEN_AI_USAGE_INPUT_TOKENS, usage.input_tokens);
    span.record(GEN_AI_USAGE_OUTPUT_TOKENS, usage.output_tokens);
    if usage.cached_input_tokens > 0 {
        span.record(
            GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
            usage.cached_input_tokens,
        );
    }
}

/// Marks `span` failed with `error_type` ([`ERROR_TYPE`] and [`OTEL_STATUS_CODE`]).
pub fn record_error(span: &Span, error_type: &str) {
    span.record(ERROR_TYPE, error_type);
    span.record(OTEL_STATUS_CODE, "ERROR");
}

/// The [`ERROR_TYPE`] of a provider failure: its class, never its message.
pub fn provider_error_type(error: &ProviderError) -> &'static str {
    match error {
        ProviderError::ContextLength { .. } => "context_length",
        ProviderError::RateLimited { .. } => "rate_limited",
        ProviderError::Transient { .. } => "transient",
        ProviderError::Auth { .. } => "auth",
        ProviderError::InvalidRequest { .. } => "invalid_request",
        ProviderError::Permanent { .. } => "permanent",
    }
}

/// The convention's word for a finish reason (`stop`, `tool_calls`, `length`,
/// `content_filter`), or the provider's own.
pub fn finish_reason_name(reason: &FinishReason) -> &str {
    match reason {
        FinishReason::Stop => "stop",
        FinishReason::ToolCalls => "tool_calls",
        FinishReason::Length => "length",
        FinishReason::ContentFilter => "content_filter",
        FinishReason::Other(other) => other,
    }
}

/// The span of one tool call: [`EXECUTE_TOOL`], named `execute_tool {tool}`, with the tool's
/// name and the call's id (never its arguments). A failure's kind comes with [`record_error`].
pub fn execute_tool_span(tool: &str, call_id: &str) -> Span {
    tracing::info_span!(
        EXECUTE_TOOL,
        { OTEL_NAME } = %format_args!("{EXECUTE_TOOL} {tool}"),
        { OTEL_KIND } = "internal",
        { GEN_AI_OPERATION_NAME } = EXECUTE_TOOL,
        { GEN_AI_TOOL_NAME } = tool,
        { GEN_AI_TOOL_CALL_ID } = call_id,
        { GEN_AI_TOOL_TYPE } = "function",
        { ERROR_TYPE } = Empty,
        { OTEL_STATUS_CODE } = Empty,
    )
}

/// The span of one statement on the database `database`: [`DB_QUERY`], named
/// `{operation} {database}` (`SELECT shop`), with the engine, the statement's kind and, when
/// `text` says so, its text with literals masked. The response comes with
/// [`record_db_response`], a failure with [`record_error`] and
/// [`DialectError::kind_code`](crate::DialectError::kind_code).
pub fn db_query_span(database: &str, sql: &ReadOnlySql, text: TracedQueryText) -> Span {
    let dialect = sql.dialect();
    // The field values are evaluated only when the span is enabled.
    let span = tracing::info_span!(
        DB_QUERY,
        { OTEL_NAME } = %format_args!(
            "{} {database}",
            operation_name(sql).unwrap_or(db_system_name(dialect))
        ),
        { OTEL_KIND } = "client",
        { DB_SYSTEM_NAME } = db_system_name(dialect),
        { DB_NAMESPACE } = database,
        { DB_OPERATION_NAME } = operation_name(sql),
        { NAO_DB_STATEMENT_KIND } = statement_kind_name(sql.kind()),
        { DB_QUERY_TEXT } = Empty,
        { DB_RESPONSE_RETURNED_ROWS } = Empty,
        { NAO_DB_RESPONSE_BYTES } = Empty,
        { NAO_DB_RESPONSE_TRUNCATED } = Empty,
        { NAO_DB_RESPONSE_TRUNCATED_BY } = Empty,
        { ERROR_TYPE } = Empty,
        { OTEL_STATUS_CODE } = Empty,
    );
    if text == TracedQueryText::LiteralsMasked
        && !span.is_disabled()
        && let Some(masked) = nao_guard::mask_literals(sql.sql(), dialect)
    {
        span.record(DB_QUERY_TEXT, masked.as_str());
    }
    span
}

/// Records a statement's response on its [`db_query_span`]: the rows kept, their Arrow memory,
/// and whether and why rows were cut. Nothing is computed for a disabled span.
pub fn record_db_response(
    span: &Span,
    batches: &[RecordBatch],
    rows: u64,
    truncation: Option<&Truncation>,
) {
    if span.is_disabled() {
        return;
    }
    let bytes: usize = batches.iter().map(RecordBatch::get_array_memory_size).sum();
    span.record(DB_RESPONSE_RETURNED_ROWS, rows);
    span.record(
        NAO_DB_RESPONSE_BYTES,
        u64::try_from(bytes).unwrap_or(u64::MAX),
    );
    span.record(NAO_DB_RESPONSE_TRUNCATED, truncation.is_some());
    if let Some(truncation) = truncation {
        span.record(
            NAO_DB_RESPONSE_TRUNCATED_BY,
            crate::tools::truncation_code(truncation),
        );
    }
}

/// The convention's [`DB_SYSTEM_NAME`] of the engine family a dialect names (its well-known
/// value where there is one: `postgresql`, `mysql`, `mariadb`, `sqlite`, `clickhouse`,
/// `trino`, `microsoft.sql_server`, `aws.redshift`, …; else the dialect's own name; `other_sql`
/// for generic SQL). Wire-compatible engines report their family, as the convention asks.
pub fn db_system_name(dialect: SqlDialect) -> &'static str {
    match dialect {
        SqlDialect::Postgres => "postgresql",
        SqlDialect::Redshift => "aws.redshift",
        SqlDialect::MySql => "mysql",
        SqlDialect::MariaDb => "mariadb",
        SqlDialect::Sqlite => "sqlite",
        SqlDialect::MsSql => "microsoft.sql_server",
        SqlDialect::ClickHouse => "clickhouse",
        SqlDialect::Trino => "trino",
        SqlDialect::Hive => "hive",
        SqlDialect::Generic | SqlDialect::Ansi => "other_sql",
        other => other.name(),
    }
}

/// The statement's command for [`DB_OPERATION_NAME`]: `SELECT` for every query form,
/// `EXPLAIN`, or an introspection statement's leading command. `None` when it cannot be told
/// (text a host vouched for, an unknown leading word).
fn operation_name(sql: &ReadOnlySql) -> Option<&'static str> {
    match sql.kind() {
        StatementKind::Query => Some("SELECT"),
        StatementKind::Explain => Some("EXPLAIN"),
        StatementKind::Introspection => introspection_command(sql.sql()),
        _ => None,
    }
}

/// The leading command of an introspection statement, from a fixed list (so that nothing of
/// the text but a known keyword is ever recorded).
fn introspection_command(sql: &str) -> Option<&'static str> {
    let word = leading_word(sql)?;
    [
        ("SHOW", "SHOW"),
        ("DESCRIBE", "DESCRIBE"),
        ("DESC", "DESCRIBE"),
        ("PRAGMA", "PRAGMA"),
        ("EXPLAIN", "EXPLAIN"),
        ("LIST", "LIST"),
    ]
    .into_iter()
    .find(|(keyword, _)| keyword.eq_ignore_ascii_case(word))
    .map(|(_, command)| command)
}

/// The first word of `sql` after blanks and comments.
fn leading_word(sql: &str) -> Option<&str> {
    let mut rest = sql;
    loop {
        rest = rest.trim_start();
        if let Some(comment) = rest.strip_prefix("--") {
            rest = comment.split_once('\n').map_or("", |(_, after)| after);
        } else if let Some(comment) = rest.strip_prefix("/*") {
            rest = comment.split_once("*/").map_or("", |(_, after)| after);
        } else {
            break;
        }
    }
    let end = rest
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

fn statement_kind_name(kind: StatementKind) -> &'static str {
    match kind {
        StatementKind::Query => "query",
        StatementKind::Explain => "explain",
        StatementKind::Introspection => "introspection",
        StatementKind::Unchecked => "unchecked",
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nao_guard::{Policy, check};

    fn checked(sql: &str, dialect: SqlDialect) -> ReadOnlySql {
        match check(sql, dialect, &Policy::default()) {
            Ok(checked) => checked,
            Err(rejection) => panic!("{sql:?} was refused: {rejection}"),
        }
    }

    #[test]
    fn operations_name_the_command_never_the_text() {
        let cases = [
            (
                "WITH t AS (SELECT 1) SELECT * FROM t",
                SqlDialect::Sqlite,
                "SELECT",
            ),
            ("VALUES (1)", SqlDialect::Postgres, "SELECT"),
            ("EXPLAIN SELECT 1", SqlDialect::Postgres, "EXPLAIN"),
            ("/* why */ -- note\n show tables", SqlDialect::MySql, "SHOW"),
            ("DESC orders", SqlDialect::MySql, "DESCRIBE"),
            ("PRAGMA table_info('orders')", SqlDialect::Sqlite, "PRAGMA"),
        ];
        for (sql, dialect, operation) in cases {
            assert_eq!(
                operation_name(&checked(sql, dialect)),
                Some(operation),
                "{sql}"
            );
        }
        let vouched =
            ReadOnlySql::new_unchecked_allowing_writes("DELETE FROM t", SqlDialect::Sqlite);
        assert_eq!(operation_name(&vouched), None);
        assert_eq!(introspection_command("SHOWX"), None);
        assert_eq!(leading_word("/* open"), None);
        assert_eq!(leading_word("  -- only a comment"), None);
    }

    #[test]
    fn engines_have_their_convention_names() {
        assert_eq!(db_system_name(SqlDialect::Postgres), "postgresql");
        assert_eq!(db_system_name(SqlDialect::Sqlite), "sqlite");
        assert_eq!(db_system_name(SqlDialect::DuckDb), "duckdb");
        assert_eq!(db_system_name(SqlDialect::MsSql), "microsoft.sql_server");
        assert_eq!(db_system_name(SqlDialect::Generic), "other_sql");
        for dialect in SqlDialect::ALL {
            let name = db_system_name(dialect);
            assert!(
                !name.is_empty()
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b == b'.' || b == b'_'),
                "{dialect:?}: {name}"
            );
        }
    }

    #[test]
    fn finish_reasons_and_provider_errors_have_codes() {
        assert_eq!(finish_reason_name(&FinishReason::ToolCalls), "tool_calls");
        assert_eq!(
            finish_reason_name(&FinishReason::Other("pause_turn".into())),
            "pause_turn"
        );
        let error = ProviderError::Auth {
            provider: "openai".into(),
            message: "invalid key sk-secret".into(),
        };
        assert_eq!(provider_error_type(&error), "auth");
    }
}
