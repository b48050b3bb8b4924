//! `execute_sql` as the benches call it: a tool context over one database whose row cap lets
//! the whole result through, the tool call itself, and the SQL the call runs (for the raw side
//! of a comparison, which must run the same statement).

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use nao::core::{Databases, Dialect, Settings, ToolCall, ToolContext, tools};
use serde_json::json;

/// A context over `database` keeping up to `rows` rows, with a five-minute statement timeout.
pub(crate) fn context(database: Arc<dyn Dialect>, rows: u64) -> ToolContext {
    let settings = Settings::default()
        .with_max_rows(rows)
        .with_timeout(Duration::from_secs(300));
    ToolContext::new(Databases::new().with(database)).with_settings(settings)
}

/// Calls `execute_sql` with `sql`; the rows it reports. The call must succeed.
pub(crate) async fn execute_sql(ctx: &ToolContext, sql: &str) -> u64 {
    let call = ToolCall::new("bench", "execute_sql", json!({ "sql_query": sql }));
    let result = tools::sql_tools().call(&call, ctx).await;
    assert!(!result.is_error, "{}", result.content);
    black_box(result.content.len());
    result.row_count.unwrap_or(0)
}

/// The text `execute_sql` sends to the engine for `sql` in `ctx` (its one database): the
/// guard's output under the context's policy with the row cap the tool adds (one row past
/// what it keeps, or the policy's own cap if lower: `Settings::sql_row_cap`).
pub(crate) fn capped_sql(ctx: &ToolContext, sql: &str) -> String {
    let settings = ctx.settings();
    let policy = settings.policy.clone().with_row_cap(settings.sql_row_cap());
    let dialect = ctx
        .databases()
        .pick(None)
        .expect("one database")
        .sql_dialect();
    nao::guard::check(sql, dialect, &policy)
        .expect("the bench's SQL is read-only")
        .sql()
        .to_owned()
}
