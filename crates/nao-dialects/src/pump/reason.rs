//! Why the pump stops a statement: [`StopReason`], what the reader is told, and [`Stopped`],
//! what a producer is told.

use std::fmt;
use std::time::Duration;

use nao_core::DialectError;

/// Why a statement was stopped before its end: the caller cancelled it or its time ran out.
/// One enum for every adapter; the reader gets it as [`DialectError::Cancelled`] or
/// [`DialectError::Timeout`] ([`error`](Self::error)), and an adapter passes it to its error
/// mapping so that the engine's own "interrupted" error says which.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum StopReason {
    /// The caller's cancellation token fired.
    Cancelled,
    /// The time limit (this long, counted from [`channel`](fn@super::channel)) passed.
    Timeout(Duration),
}

impl StopReason {
    /// The error the reader gets for a statement on `database` stopped for this reason.
    pub fn error(self, database: &str) -> DialectError {
        match self {
            StopReason::Cancelled => DialectError::Cancelled {
                database: database.to_owned(),
            },
            StopReason::Timeout(limit) => DialectError::Timeout {
                database: database.to_owned(),
                limit,
            },
        }
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopReason::Cancelled => f.write_str("the caller cancelled the statement"),
            StopReason::Timeout(limit) => {
                write!(f, "the statement's time limit of {limit:?} passed")
            }
        }
    }
}

/// Why a [`Producer`](super::Producer) must stop reading: a [`StopReason`], which the reader
/// is told (the pump tells it; the producer need not), or a reader that went away (the stream
/// was dropped), which nobody needs to hear about.
///
/// Either way the producer stops its engine's work and returns without
/// [`finish`](super::Producer::finish).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Stopped {
    /// Cancelled or out of time.
    #[error("{0}")]
    Reason(StopReason),
    /// The reader dropped the stream (or `execute` was abandoned): nobody reads any more.
    #[error("nobody reads the statement's results any more")]
    ConsumerGone,
}

impl Stopped {
    /// The reason, when the reader is to be told one.
    pub fn reason(self) -> Option<StopReason> {
        match self {
            Stopped::Reason(reason) => Some(reason),
            Stopped::ConsumerGone => None,
        }
    }
}

impl From<StopReason> for Stopped {
    fn from(reason: StopReason) -> Self {
        Stopped::Reason(reason)
    }
}
