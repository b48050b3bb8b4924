//! Audit records of tool invocations and of what the policy layer hid, refused or masked, for
//! hosts that log, meter or review them.

use std::fmt::Debug;
use std::sync::Mutex;
use std::time::Duration;

use serde::Serialize;

/// One tool invocation, as it ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct AuditRecord {
    /// The call's id (from the model's tool call, or generated).
    pub call_id: String,
    /// The tool's name.
    pub tool: String,
    /// The arguments as the model sent them.
    pub arguments: serde_json::Value,
    /// `"ok"` or the error kind (`"rejected_write_in_query"`, `"database_timeout"`, …).
    pub outcome: String,
    /// How long the call took.
    pub latency: Duration,
    /// Rows produced, when the tool reports them.
    pub row_count: Option<u64>,
}

/// Something the host's policy did to what a caller asked for
/// ([`GovernedDialect`](crate::GovernedDialect) reports them): the names it hid, the statement it
/// refused, the columns it masked. For the host's eyes only: it names what the model was not
/// shown (never values).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct PolicyEvent {
    /// The database it happened on.
    pub database: String,
    /// What the policy did.
    pub action: PolicyAction,
}

/// What the policy did, with the names involved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum PolicyAction {
    /// Tables left out of a catalogue listing.
    TablesHidden {
        /// The hidden tables, qualified as the catalogue names them.
        tables: Vec<String>,
    },
    /// A description of a table the policy hides was asked for (and answered as missing).
    TableHidden {
        /// The table asked for.
        table: String,
    },
    /// Columns left out of a table's description.
    ColumnsHidden {
        /// The table.
        table: String,
        /// The hidden columns.
        columns: Vec<String>,
    },
    /// A statement the policy refused.
    StatementRefused {
        /// The guard's code for the reason (`table_not_allowed`, `masked_column_use`, …).
        code: String,
        /// The reason, as the caller was told.
        reason: String,
    },
    /// The engine's read-only layers refused a statement the guard had read as read-only (see
    /// [`Dialect::refused_as_writing`](crate::Dialect::refused_as_writing)): the two readings
    /// of the same text disagree. The statement was not run; the event carries both readings
    /// so that the host can turn it into a test case.
    ReadingsDisagree {
        /// The statement as it reached the engine.
        statement: String,
        /// The guard's reading (`a read-only query`).
        guard: String,
        /// The engine's refusal.
        engine: String,
    },
    /// Result columns whose values were masked.
    ColumnsMasked {
        /// `output column <- masked column (rule)` for each, such as
        /// `contact <- customers.email (hash)`.
        columns: Vec<String>,
    },
    /// Values the value detector recognised and masked, in columns no rule named.
    ValuesDetected {
        /// `column: count kind` for each, such as `notes: 3 email`.
        findings: Vec<String>,
    },
}

/// Receives audit records. Implementations must not block: the registry and the policy layer
/// call them inline, and a sink that fails must swallow its error (the audit never fails a
/// call).
pub trait AuditSink: Debug + Send + Sync {
    /// Takes one record.
    fn record(&self, record: AuditRecord);

    /// Takes one policy event. The default drops it, so sinks written before policy events
    /// existed keep working.
    fn policy_event(&self, event: PolicyEvent) {
        let _ = event;
    }
}

/// Discards every record.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoAudit;

impl AuditSink for NoAudit {
    fn record(&self, _record: AuditRecord) {}
}

/// Keeps records and policy events in memory, for tests and small hosts.
#[derive(Debug, Default)]
pub struct MemoryAudit {
    records: Mutex<Vec<AuditRecord>>,
    events: Mutex<Vec<PolicyEvent>>,
}

impl MemoryAudit {
    /// The records so far.
    pub fn records(&self) -> Vec<AuditRecord> {
        lock(&self.records).clone()
    }

    /// The policy events so far.
    pub fn policy_events(&self) -> Vec<PolicyEvent> {
        lock(&self.events).clone()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl AuditSink for MemoryAudit {
    fn record(&self, record: AuditRecord) {
        lock(&self.records).push(record);
    }

    fn policy_event(&self, event: PolicyEvent) {
        lock(&self.events).push(event);
    }
}
