//! The agent and its builder: a provider, tools, databases and settings.

use std::fmt;
use std::sync::Arc;

use nao_core::{
    AuditSink, Databases, Dialect, ModelProvider, ResultStore, Settings, ToolContext, ToolRegistry,
    ToolSpec, tools,
};
use tokio::sync::OnceCell;

use crate::AgentSettings;
use crate::prompt::{PromptDatabase, build_system_prompt};
use crate::schema_context::{TableContext, add_samples, load_catalog, select_tables};

/// Builds an [`Agent`].
#[must_use]
pub struct AgentBuilder {
    provider: Arc<dyn ModelProvider>,
    registry: Option<ToolRegistry>,
    databases: Databases,
    tool_settings: Settings,
    results: Option<Arc<ResultStore>>,
    audit: Option<Arc<dyn AuditSink>>,
    settings: AgentSettings,
}

impl fmt::Debug for AgentBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentBuilder")
            .field("provider", &self.provider.name())
            .field("databases", &self.databases.names())
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl AgentBuilder {
    /// An agent on `provider`, with the [default tools](tools::default_tools), no database
    /// yet, default settings and a fresh result store.
    pub fn new(provider: Arc<dyn ModelProvider>) -> Self {
        AgentBuilder {
            provider,
            registry: None,
            databases: Databases::new(),
            tool_settings: Settings::default(),
            results: None,
            audit: None,
            settings: AgentSettings::default(),
        }
    }

    /// Uses these tools (set an [`Approver`](nao_core::Approver) on the registry for
    /// high-risk tools).
    pub fn tools(mut self, registry: ToolRegistry) -> Self {
        self.registry = Some(registry);
        self
    }

    /// Adds a database.
    pub fn database(mut self, database: Arc<dyn Dialect>) -> Self {
        self.databases.insert(database);
        self
    }

    /// Uses these databases (replacing any added before).
    pub fn databases(mut self, databases: Databases) -> Self {
        self.databases = databases;
        self
    }

    /// Limits of the tools: row caps, timeouts, the guard's policy.
    pub fn tool_settings(mut self, settings: Settings) -> Self {
        self.tool_settings = settings;
        self
    }

    /// Stores query results here; share one store between agents that resume each other's
    /// conversations, so query ids stay pageable.
    pub fn results(mut self, results: Arc<ResultStore>) -> Self {
        self.results = Some(results);
        self
    }

    /// Sends an audit record of every tool call to `audit`.
    pub fn audit(mut self, audit: Arc<dyn AuditSink>) -> Self {
        self.audit = Some(audit);
        self
    }

    /// The run's limits and prompt settings.
    pub fn settings(mut self, settings: AgentSettings) -> Self {
        self.settings = settings;
        self
    }

    /// The agent.
    pub fn build(self) -> Agent {
        let registry = self.registry.unwrap_or_else(tools::default_tools);
        let mut ctx = ToolContext::new(self.databases).with_settings(self.tool_settings);
        if let Some(results) = self.results {
            ctx = ctx.with_results(results);
        }
        if let Some(audit) = self.audit {
            ctx = ctx.with_audit(audit);
        }
        Agent {
            inner: Arc::new(AgentInner {
                provider: self.provider,
                specs: registry.specs(),
                registry,
                ctx,
                settings: self.settings,
                catalog: OnceCell::new(),
            }),
        }
    }
}

/// An LLM data agent: a model provider, tools, databases and limits. Cheap to clone; one agent
/// serves any number of [`Conversation`](crate::Conversation)s.
///
/// See [`Agent::run`] for the loop and [`Agent::ask`] for the non-streaming form.
#[derive(Clone)]
pub struct Agent {
    pub(super) inner: Arc<AgentInner>,
}

pub(super) struct AgentInner {
    pub(super) provider: Arc<dyn ModelProvider>,
    pub(super) registry: ToolRegistry,
    pub(super) specs: Vec<ToolSpec>,
    pub(super) ctx: ToolContext,
    pub(super) settings: AgentSettings,
    catalog: OnceCell<Vec<TableContext>>,
}

impl fmt::Debug for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Agent")
            .field("provider", &self.inner.provider.name())
            .field("model", &self.inner.provider.model())
            .field("tools", &self.inner.registry.names())
            .field("databases", &self.inner.ctx.databases().names())
            .field("settings", &self.inner.settings)
            .finish_non_exhaustive()
    }
}

impl Agent {
    /// Starts building an agent on `provider`.
    pub fn builder(provider: Arc<dyn ModelProvider>) -> AgentBuilder {
        AgentBuilder::new(provider)
    }

    /// The result store the tools write to.
    pub fn results(&self) -> &Arc<ResultStore> {
        self.inner.ctx.results()
    }

    /// The tools.
    pub fn registry(&self) -> &ToolRegistry {
        &self.inner.registry
    }

    /// The settings.
    pub fn settings(&self) -> &AgentSettings {
        &self.inner.settings
    }

    /// The system prompt a new conversation starting with `question` gets: the catalogue is
    /// read once per agent (and cached), sample values are read for the tables shown.
    pub async fn system_prompt(&self, question: &str) -> String {
        self.inner.system_prompt(question, &self.inner.ctx).await
    }
}

impl AgentInner {
    pub(super) async fn system_prompt(&self, question: &str, ctx: &ToolContext) -> String {
        let databases = ctx.databases();
        let mut catalog = self
            .catalog
            .get_or_init(|| load_catalog(databases, self.settings.max_catalog_tables))
            .await
            .clone();
        let budget = self.settings.schema_token_budget;
        if self.settings.sample_values > 0 {
            // Sample only the tables that may be shown: those that fit without samples.
            let options = ctx.exec_options();
            for (index, _) in select_tables(&catalog, question, budget).described {
                let table = &mut catalog[index];
                if let Ok(database) = databases.pick(Some(&table.database_id)) {
                    let database = database.clone();
                    add_samples(
                        table,
                        database.as_ref(),
                        self.settings.sample_values,
                        &options,
                    )
                    .await;
                }
            }
        }
        let prompt_databases: Vec<PromptDatabase> = databases
            .iter()
            .map(|d| PromptDatabase::new(d.name(), d.sql_dialect()))
            .collect();
        build_system_prompt(
            &catalog,
            &prompt_databases,
            question,
            &self.registry.names(),
            &self.settings,
        )
    }
}
