//! Errors of database adapters, in words a person and a model can act on.

use std::error::Error as StdError;
use std::fmt;
use std::time::Duration;

/// A boxed error from a driver, kept as the `source` of a [`DialectError`].
pub type BoxError = Box<dyn StdError + Send + Sync + 'static>;

/// What went wrong when a database adapter ran a statement or read its catalogue.
///
/// Each variant keeps the engine's own message and, where the engine has one, its error code
/// (SQLSTATE for PostgreSQL, the numeric code for MySQL, the extended result code for SQLite).
/// `Display` is one sentence for the model plus what to do about it.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum DialectError {
    /// The engine could not parse or plan the statement.
    #[error("{database}: syntax error: {message}. Fix the SQL for this engine and try again.")]
    Syntax {
        /// The database (its `database_id`).
        database: String,
        /// The engine's message.
        message: String,
        /// The engine's error code.
        code: Option<String>,
    },
    /// A table, view, column or function the statement names does not exist.
    #[error(
        "{database}: {message}. Check the names with list_tables and describe_table, then try again."
    )]
    UnknownObject {
        /// The database.
        database: String,
        /// The engine's message.
        message: String,
        /// The engine's error code.
        code: Option<String>,
    },
    /// The engine refused for lack of privileges, or because the connection is read-only.
    #[error("{database}: not permitted: {message}. This connection can only read.")]
    Permission {
        /// The database.
        database: String,
        /// The engine's message.
        message: String,
        /// The engine's error code.
        code: Option<String>,
    },
    /// The statement ran longer than the time limit and was stopped.
    #[error(
        "{database}: the query ran longer than {limit:?} and was stopped. Make it cheaper: filter \
         earlier, aggregate, or add a LIMIT."
    )]
    Timeout {
        /// The database.
        database: String,
        /// The time limit.
        limit: Duration,
    },
    /// The database had no turn for the statement: as many statements as it runs at once
    /// were running and this one waited as long as it may (or the queue was full). Nothing is
    /// wrong with the statement.
    #[error(
        "{database}: the database is busy ({running} statements running, {waiting} more \
         waiting) and this query got no turn after waiting {waited:.1?}. The query is fine: \
         retry the same call in about {retry_after:?}."
    )]
    Busy {
        /// The database.
        database: String,
        /// Statements it runs at once.
        running: usize,
        /// Statements waiting beside this one when it gave up.
        waiting: usize,
        /// How long this one waited.
        waited: Duration,
        /// When a retry has a fair chance.
        retry_after: Duration,
    },
    /// The caller cancelled the statement.
    #[error("{database}: the query was cancelled.")]
    Cancelled {
        /// The database.
        database: String,
    },
    /// The connection failed or was lost.
    #[error("{database}: connection failed: {message}")]
    Connection {
        /// The database.
        database: String,
        /// What failed.
        message: String,
        /// The driver's error.
        #[source]
        source: Option<BoxError>,
    },
    /// The statement needed more of a resource than the engine is allowed to use: memory,
    /// spill space, or the size of one value. The SQL is valid; it must ask for less.
    #[error(
        "{database}: the query needed more than the {limit} allowed here: {message}. Ask for \
         less: filter or aggregate first, select fewer or narrower columns, or return \
         length()/substr() of large values instead of the values."
    )]
    ResourceLimit {
        /// The database.
        database: String,
        /// Which limit, with its size ("memory limit of 512 MiB", "largest value of 64 MiB").
        limit: String,
        /// The engine's message, without host paths.
        message: String,
        /// The engine's error code.
        code: Option<String>,
    },
    /// A value or type the adapter cannot represent in Arrow.
    #[error("{database}: unsupported: {what}")]
    Unsupported {
        /// The database.
        database: String,
        /// What is unsupported.
        what: String,
    },
    /// Any other engine error.
    #[error("{database}: {message}")]
    Engine {
        /// The database.
        database: String,
        /// The engine's message.
        message: String,
        /// The engine's error code.
        code: Option<String>,
        /// The driver's error.
        #[source]
        source: Option<BoxError>,
    },
}

impl DialectError {
    /// The same error with `rewrite` applied to the engine's text it shows (its message), for
    /// layers that must take something out of that text: the host's paths, masked values. The
    /// database name, codes, limits and the driver's error (`source`, for the host's logs;
    /// see [`without_source`](Self::without_source)) are kept.
    #[must_use]
    pub fn map_message(self, mut rewrite: impl FnMut(&str) -> String) -> DialectError {
        use DialectError as E;
        match self {
            E::Syntax {
                database,
                message,
                code,
            } => E::Syntax {
                database,
                message: rewrite(&message),
                code,
            },
            E::UnknownObject {
                database,
                message,
                code,
            } => E::UnknownObject {
                database,
                message: rewrite(&message),
                code,
            },
            E::Permission {
                database,
                message,
                code,
            } => E::Permission {
                database,
                message: rewrite(&message),
                code,
            },
            E::Connection {
                database,
                message,
                source,
            } => E::Connection {
                database,
                message: rewrite(&message),
                source,
            },
            E::ResourceLimit {
                database,
                limit,
                message,
                code,
            } => E::ResourceLimit {
                database,
                limit,
                message: rewrite(&message),
                code,
            },
            E::Unsupported { database, what } => E::Unsupported {
                database,
                what: rewrite(&what),
            },
            E::Engine {
                database,
                message,
                code,
                source,
            } => E::Engine {
                database,
                message: rewrite(&message),
                code,
                source,
            },
            other @ (E::Timeout { .. } | E::Cancelled { .. } | E::Busy { .. }) => other,
        }
    }

    /// The same error without the driver's error, whose text is the engine's own and may hold
    /// what [`map_message`](Self::map_message) took out.
    #[must_use]
    pub fn without_source(self) -> DialectError {
        match self {
            DialectError::Connection {
                database, message, ..
            } => DialectError::Connection {
                database,
                message,
                source: None,
            },
            DialectError::Engine {
                database,
                message,
                code,
                ..
            } => DialectError::Engine {
                database,
                message,
                code,
                source: None,
            },
            other => other,
        }
    }

    /// A stable snake_case code for tool results and metrics.
    pub fn kind_code(&self) -> &'static str {
        match self {
            DialectError::Syntax { .. } => "syntax",
            DialectError::UnknownObject { .. } => "unknown_object",
            DialectError::Permission { .. } => "permission",
            DialectError::Timeout { .. } => "timeout",
            DialectError::Busy { .. } => "busy",
            DialectError::Cancelled { .. } => "cancelled",
            DialectError::Connection { .. } => "connection",
            DialectError::ResourceLimit { .. } => "resource_limit",
            DialectError::Unsupported { .. } => "unsupported",
            DialectError::Engine { .. } => "engine",
        }
    }

    /// The engine's error code, when it gave one.
    pub fn code(&self) -> Option<&str> {
        match self {
            DialectError::Syntax { code, .. }
            | DialectError::UnknownObject { code, .. }
            | DialectError::Permission { code, .. }
            | DialectError::ResourceLimit { code, .. }
            | DialectError::Engine { code, .. } => code.as_deref(),
            _ => None,
        }
    }

    /// Whether the same call may succeed if retried unchanged (lost connections, a busy
    /// database); SQL mistakes are not retryable: the SQL must change.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            DialectError::Connection { .. } | DialectError::Busy { .. }
        )
    }
}

/// An error of the tool layer: arguments, unknown ids, and failures of the tools themselves.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The model's arguments do not fit the tool's schema.
    #[error("invalid arguments for {tool}: {message}")]
    InvalidArguments {
        /// The tool.
        tool: String,
        /// What is wrong, as serde and the schema say it.
        message: String,
    },
    /// No tool has this name.
    #[error("there is no tool named {name:?}; the tools are: {available}")]
    UnknownTool {
        /// The name the model used.
        name: String,
        /// The registered names, comma-separated.
        available: String,
    },
    /// No stored result has this id (never existed, or evicted and not spilled).
    #[error(
        "no query result has the id {query_id:?}. Run the query again with execute_sql to get a \
         new query_id."
    )]
    UnknownQuery {
        /// The id the model used.
        query_id: String,
    },
    /// No database has this id, or several are configured and none was named.
    #[error("{message}")]
    UnknownDatabase {
        /// The message, listing the configured databases.
        message: String,
    },
    /// The SQL guard refused the statement.
    #[error(transparent)]
    Rejected(#[from] nao_guard::Rejection),
    /// The database failed.
    #[error(transparent)]
    Dialect(#[from] DialectError),
    /// The host did not approve a high-risk call.
    #[error("the host did not approve this call to {tool}")]
    NotApproved {
        /// The tool.
        tool: String,
    },
    /// Any other failure of a tool, with a message for the model.
    #[error("{message}")]
    Failed {
        /// What failed and what to do.
        message: String,
    },
}

impl ToolError {
    /// A stable snake_case kind for tool results (`"invalid_arguments"`, `"rejected"`, …).
    pub fn kind_code(&self) -> String {
        match self {
            ToolError::InvalidArguments { .. } => "invalid_arguments".into(),
            ToolError::UnknownTool { .. } => "unknown_tool".into(),
            ToolError::UnknownQuery { .. } => "unknown_query".into(),
            ToolError::UnknownDatabase { .. } => "unknown_database".into(),
            ToolError::Rejected(r) => format!("rejected_{}", r.kind().code()),
            ToolError::Dialect(e) => format!("database_{}", e.kind_code()),
            ToolError::NotApproved { .. } => "not_approved".into(),
            ToolError::Failed { .. } => "failed".into(),
        }
    }

    /// Whether the model may retry the same call unchanged.
    pub fn is_retryable(&self) -> bool {
        matches!(self, ToolError::Dialect(e) if e.is_retryable())
    }
}

/// Displays a list of names as `a, b, c`, or `(none)`.
pub(crate) struct NameList<'a>(pub(crate) &'a [String]);

impl fmt::Display for NameList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("(none)");
        }
        f.write_str(&self.0.join(", "))
    }
}
