//! What every tool call shares: databases, stored results, settings, artifacts, audit.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nao_guard::Policy;
use nao_render::RenderBudget;
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::error::NameList;
use crate::governed::GovernedDialect;
use crate::masking::{MaskKey, ValueDetector};
use crate::story::{MemoryStoryStore, StoryStore};
use crate::telemetry::TracedQueryText;
use crate::{
    AdmissionLimits, AdmittedDialect, AuditSink, Dialect, ExecOptions, NoAudit, QueryId,
    QueryResult, ResultStore, RowsRead, ToolError,
};

/// The databases an agent can query, by `database_id`.
#[derive(Debug, Clone, Default)]
pub struct Databases {
    by_name: BTreeMap<String, Arc<dyn Dialect>>,
}

impl Databases {
    /// No databases.
    pub fn new() -> Self {
        Databases::default()
    }

    /// Adds a database under its [`Dialect::name`], replacing one of the same name.
    #[must_use]
    pub fn with(mut self, dialect: Arc<dyn Dialect>) -> Self {
        self.insert(dialect);
        self
    }

    /// Adds a database under its [`Dialect::name`], replacing one of the same name.
    pub fn insert(&mut self, dialect: Arc<dyn Dialect>) {
        self.by_name.insert(dialect.name().to_owned(), dialect);
    }

    /// The names, sorted.
    pub fn names(&self) -> Vec<String> {
        self.by_name.keys().cloned().collect()
    }

    /// Every database, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Dialect>> {
        self.by_name.values()
    }

    /// Every database behind its queue ([`AdmittedDialect`], the settings' admission limits)
    /// and wrapped in a [`GovernedDialect`] applying the settings' policy and masking key,
    /// reporting to `audit`.
    pub fn governed_by(&self, settings: &Settings, audit: &Arc<dyn AuditSink>) -> Databases {
        let policy = Arc::new(settings.policy.clone());
        let by_name = self
            .by_name
            .iter()
            .map(|(name, dialect)| {
                let admitted: Arc<dyn Dialect> = Arc::new(AdmittedDialect::new(
                    Arc::clone(dialect),
                    settings.admission,
                ));
                let mut governed = GovernedDialect::new(admitted, Arc::clone(&policy))
                    .with_audit(Arc::clone(audit));
                if let Some(key) = &settings.mask_key {
                    governed = governed.with_mask_key(key.clone());
                }
                if let Some(detector) = &settings.value_detector {
                    governed = governed.with_value_detector(detector.clone());
                }
                let governed: Arc<dyn Dialect> = Arc::new(governed);
                (name.clone(), governed)
            })
            .collect();
        Databases { by_name }
    }

    /// Picks the database a call names. With exactly one configured, `None` picks it; with
    /// several, the id is required. The error lists the names either way.
    pub fn pick(&self, database_id: Option<&str>) -> Result<&Arc<dyn Dialect>, ToolError> {
        let names = self.names();
        match database_id {
            Some(id) => self
                .by_name
                .get(id)
                .ok_or_else(|| ToolError::UnknownDatabase {
                    message: format!(
                        "there is no database {id:?}; the databases are: {}",
                        NameList(&names)
                    ),
                }),
            None if self.by_name.len() == 1 => self
                .by_name
                .values()
                .next()
                .ok_or_else(|| unreachable_empty(&names)),
            None if self.by_name.is_empty() => Err(ToolError::UnknownDatabase {
                message: "no database is configured for this agent".into(),
            }),
            None => Err(ToolError::UnknownDatabase {
                message: format!(
                    "several databases are configured, so database_id is required; pass one of: {}",
                    NameList(&names)
                ),
            }),
        }
    }
}

fn unreachable_empty(names: &[String]) -> ToolError {
    ToolError::UnknownDatabase {
        message: format!("no database could be picked from: {}", NameList(names)),
    }
}

/// Limits and switches for tool calls.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Settings {
    /// The guard's policy for every statement. Its row cap is also written into the SQL.
    pub policy: Policy,
    /// Rows kept from one result (the engine stops reading one row later).
    pub max_rows: u64,
    /// Arrow bytes kept from one result.
    pub max_bytes: usize,
    /// Time limit of one statement.
    pub timeout: Duration,
    /// How much of a result the model is shown at once.
    pub render: RenderBudget,
    /// The most rows one read_query_result call may ask for.
    pub max_page_rows: u64,
    /// Sample rows shown by describe_table.
    pub describe_sample_rows: u64,
    /// The key that hash-masked values are hashed with
    /// ([`MaskRule::Hash`](nao_guard::MaskRule::Hash)). `None`: one random key per process, so hashes agree
    /// across the results of one process and nowhere else.
    pub mask_key: Option<MaskKey>,
    /// Looks for personal values (email addresses, phone and card numbers, IBANs, national
    /// ids) in text columns no rule masks and replaces them with labels (`[email]`). Off
    /// (`None`) by default: it costs a pass over every text cell.
    pub value_detector: Option<ValueDetector>,
    /// How many statements each database runs at once and how many may wait, for how long
    /// (see [`AdmittedDialect`]).
    pub admission: AdmissionLimits,
    /// Whether the database spans of execute_sql carry the statement's text, its literals
    /// replaced by `?` ([`TracedQueryText::LiteralsMasked`]). Off by default: no SQL text in
    /// traces (see [`telemetry`](crate::telemetry)).
    pub traced_query_text: TracedQueryText,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            policy: Policy::default(),
            max_rows: crate::exec::DEFAULT_MAX_ROWS,
            max_bytes: crate::exec::DEFAULT_MAX_BYTES,
            timeout: crate::exec::DEFAULT_TIMEOUT,
            render: RenderBudget::default(),
            max_page_rows: 200,
            describe_sample_rows: 3,
            mask_key: None,
            value_detector: None,
            admission: AdmissionLimits::default(),
            traced_query_text: TracedQueryText::Omitted,
        }
    }
}

impl Settings {
    /// Sets the guard policy.
    #[must_use]
    pub fn with_policy(mut self, policy: Policy) -> Self {
        self.policy = policy;
        self
    }

    /// Sets the row cap of one result.
    #[must_use]
    pub fn with_max_rows(mut self, rows: u64) -> Self {
        self.max_rows = rows;
        self
    }

    /// Sets the time limit of one statement.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Hashes masked values with `key` (see [`Settings::mask_key`]).
    #[must_use]
    pub fn with_mask_key(mut self, key: MaskKey) -> Self {
        self.mask_key = Some(key);
        self
    }

    /// Sets the admission limits of every database.
    #[must_use]
    pub fn with_admission(mut self, limits: AdmissionLimits) -> Self {
        self.admission = limits;
        self
    }

    /// Turns on the value detector (see [`Settings::value_detector`]).
    #[must_use]
    pub fn with_value_detector(mut self, detector: ValueDetector) -> Self {
        self.value_detector = Some(detector);
        self
    }

    /// Sets whether database spans carry the statement's text with literals masked (see
    /// [`Settings::traced_query_text`]).
    #[must_use]
    pub fn with_traced_query_text(mut self, text: TracedQueryText) -> Self {
        self.traced_query_text = text;
        self
    }

    /// Sets the render budget.
    #[must_use]
    pub fn with_render_budget(mut self, budget: RenderBudget) -> Self {
        self.render = budget;
        self
    }

    /// The row cap `execute_sql` writes into a statement's SQL: one row past what it keeps (so
    /// that a cut result can be told from an exact one), or the policy's own cap if lower.
    pub fn sql_row_cap(&self) -> u64 {
        let past_kept = self.max_rows.saturating_add(1);
        self.policy
            .row_cap()
            .map_or(past_kept, |own| own.min(past_kept))
    }

    /// Execution options for one statement, stopped by `cancel`.
    pub fn exec_options(&self, cancel: CancellationToken) -> ExecOptions {
        ExecOptions::default()
            .with_max_rows(self.max_rows)
            .with_max_bytes(self.max_bytes)
            .with_timeout(self.timeout)
            .with_cancel(cancel)
    }
}

/// Something a tool produced for the host to show: a chart, a story, a table.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Artifact {
    /// What kind (`"chart"`, `"story"`, …).
    pub kind: String,
    /// Its id.
    pub id: String,
    /// Its content, as JSON.
    pub content: serde_json::Value,
}

impl Artifact {
    /// An artifact.
    pub fn new(kind: impl Into<String>, id: impl Into<String>, content: serde_json::Value) -> Self {
        Artifact {
            kind: kind.into(),
            id: id.into(),
            content,
        }
    }
}

/// The state every tool call of a conversation shares.
///
/// Its databases are handed out only through the settings' policy
/// ([`GovernedDialect`]): catalogues, descriptions, samples and statements, whichever tool,
/// prompt or resource asks.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// The databases as the host gave them.
    raw_databases: Databases,
    /// The same, seen through the settings' policy; the only ones handed out.
    databases: Databases,
    results: Arc<ResultStore>,
    settings: Arc<Settings>,
    artifacts: Arc<Mutex<Vec<Artifact>>>,
    audit: Arc<dyn AuditSink>,
    cancel: CancellationToken,
    stories: Arc<dyn StoryStore>,
    rows_read: Option<RowsRead>,
}

impl ToolContext {
    /// A context over `databases` with default settings, a default result store and no audit.
    pub fn new(databases: Databases) -> Self {
        let settings = Settings::default();
        let audit: Arc<dyn AuditSink> = Arc::new(NoAudit);
        ToolContext {
            databases: databases.governed_by(&settings, &audit),
            raw_databases: databases,
            results: Arc::new(ResultStore::default()),
            settings: Arc::new(settings),
            artifacts: Arc::default(),
            audit,
            cancel: CancellationToken::new(),
            stories: Arc::new(MemoryStoryStore::new()),
            rows_read: None,
        }
    }

    /// Uses these settings.
    #[must_use]
    pub fn with_settings(mut self, settings: Settings) -> Self {
        self.databases = self.raw_databases.governed_by(&settings, &self.audit);
        self.settings = Arc::new(settings);
        self
    }

    /// Uses this result store (share one across turns to keep query ids pageable).
    #[must_use]
    pub fn with_results(mut self, results: Arc<ResultStore>) -> Self {
        self.results = results;
        self
    }

    /// A context for one more conversation served beside this one (an MCP session, say): the
    /// same databases, settings, audit and story store; the same result store seen as a new
    /// [session](ResultStore#sessions) (it pages only its own results, shares the budget
    /// fairly, and its results are dropped with the last clone of the context returned); and
    /// an artifact list of its own.
    #[must_use]
    pub fn for_session(&self) -> ToolContext {
        let mut ctx = self.clone();
        ctx.results = Arc::new(self.results.session());
        ctx.artifacts = Arc::default();
        ctx
    }

    /// Sends audit records to `audit`.
    #[must_use]
    pub fn with_audit(mut self, audit: Arc<dyn AuditSink>) -> Self {
        self.databases = self.raw_databases.governed_by(&self.settings, &audit);
        self.audit = audit;
        self
    }

    /// Stops running statements when `cancel` is cancelled.
    #[must_use]
    pub fn with_cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// Keeps stories in `stories` (default: a [`MemoryStoryStore`] of this context).
    #[must_use]
    pub fn with_story_store(mut self, stories: Arc<dyn StoryStore>) -> Self {
        self.stories = stories;
        self
    }

    /// The story store.
    pub fn story_store(&self) -> &Arc<dyn StoryStore> {
        &self.stories
    }

    /// The databases, each seen through the settings' policy.
    pub fn databases(&self) -> &Databases {
        &self.databases
    }

    /// The stored results.
    pub fn results(&self) -> &Arc<ResultStore> {
        &self.results
    }

    /// The stored result a tool argument names (surrounding blanks ignored).
    ///
    /// # Errors
    /// [`ToolError::UnknownQuery`] naming the id as given, when no result has it (it never
    /// existed, or was evicted).
    pub async fn result(&self, query_id: &str) -> Result<Arc<QueryResult>, ToolError> {
        self.results
            .get(&QueryId::from_model(query_id.trim()))
            .await
            .ok_or_else(|| ToolError::UnknownQuery {
                query_id: query_id.to_owned(),
            })
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The audit sink.
    pub fn audit(&self) -> &Arc<dyn AuditSink> {
        &self.audit
    }

    /// Counts the rows the statements of this context keep into `rows_read`, for a host that
    /// reports progress while a call runs.
    #[must_use]
    pub fn with_rows_read(mut self, rows_read: RowsRead) -> Self {
        self.rows_read = Some(rows_read);
        self
    }

    /// Execution options for one statement of this context: the settings' limits, stopped by
    /// this context's cancellation token, its rows counted if [`with_rows_read`](Self::with_rows_read)
    /// asked for it.
    pub fn exec_options(&self) -> ExecOptions {
        let options = self.settings.exec_options(self.cancel.clone());
        match &self.rows_read {
            Some(rows_read) => options.with_rows_read(rows_read.clone()),
            None => options,
        }
    }

    /// The cancellation token of this conversation.
    pub fn cancel(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Adds an artifact for the host.
    pub fn push_artifact(&self, artifact: Artifact) {
        self.artifacts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(artifact);
    }

    /// The artifacts produced so far.
    pub fn artifacts(&self) -> Vec<Artifact> {
        self.artifacts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}
