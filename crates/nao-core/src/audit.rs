//! Audit records of tool invocations, for hosts that log, meter or review them.

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

/// Receives audit records. Implementations must not block: the registry calls `record` inline,
/// and a sink that fails must swallow its error (the audit never fails a call).
pub trait AuditSink: Debug + Send + Sync {
    /// Takes one record.
    fn record(&self, record: AuditRecord);
}

/// Discards every record.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoAudit;

impl AuditSink for NoAudit {
    fn record(&self, _record: AuditRecord) {}
}

/// Keeps records in memory, for tests and small hosts.
#[derive(Debug, Default)]
pub struct MemoryAudit {
    records: Mutex<Vec<AuditRecord>>,
}

impl MemoryAudit {
    /// The records so far.
    pub fn records(&self) -> Vec<AuditRecord> {
        self.records
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

impl AuditSink for MemoryAudit {
    fn record(&self, record: AuditRecord) {
        self.records
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(record);
    }
}
