//! Why a statement was refused, in words for the model that wrote it.

use std::fmt;

use crate::{SensitiveEntry, SensitiveKind};

/// Why a function call is refused.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FunctionClass {
    /// Changes state: sequences, configuration, large objects, notifications, caches.
    SideEffect,
    /// Sleeps or burns time on purpose (`pg_sleep`, `SLEEP`, `BENCHMARK`).
    Sleep,
    /// Takes or releases locks (`pg_advisory_lock`, `GET_LOCK`).
    Lock,
    /// Reads or lists files on the database server or its host (`pg_read_file`, `read_csv`).
    FileAccess,
    /// Reaches other servers over the network (`dblink`, `url`, `s3`, `OPENROWSET`).
    Network,
    /// Runs SQL text of its own, which the guard cannot see (`query_to_xml`, `query`, `xp_*`).
    ExecutesSql,
    /// Administers the server: sessions, backends, replication, extensions.
    Administrative,
    /// Neither a known side-effect-free built-in nor allowed by the policy, so nothing proves it
    /// safe (user-defined functions land here unless the policy names them).
    Unknown,
    /// Denied by name in the host's [`Policy`](crate::Policy).
    DeniedByPolicy,
    /// Reads a setting or variable whose name the guard cannot read (`current_setting(name)`,
    /// DuckDB's `getvariable(expr)`, PostgreSQL's `(x).current_setting`), where deployments keep
    /// credentials and paths. Settings read by a literal name, and the table functions that list
    /// them all (`duckdb_settings()`), are judged by the sensitive catalogue instead
    /// ([`RejectKind::Sensitive`]).
    Secrets,
}

impl FunctionClass {
    /// A stable snake_case code (`"side_effect"`, `"sleep"`, `"file_access"`, …).
    pub fn code(self) -> &'static str {
        match self {
            FunctionClass::SideEffect => "side_effect",
            FunctionClass::Sleep => "sleep",
            FunctionClass::Lock => "lock",
            FunctionClass::FileAccess => "file_access",
            FunctionClass::Network => "network",
            FunctionClass::ExecutesSql => "executes_sql",
            FunctionClass::Administrative => "administrative",
            FunctionClass::Unknown => "unknown",
            FunctionClass::DeniedByPolicy => "denied_by_policy",
            FunctionClass::Secrets => "secrets",
        }
    }

    /// A short phrase for messages: "sleeps", "reads server files", ….
    pub fn describe(self) -> &'static str {
        match self {
            FunctionClass::SideEffect => "changes database state",
            FunctionClass::Sleep => "sleeps or burns time on purpose",
            FunctionClass::Lock => "takes or releases locks",
            FunctionClass::FileAccess => "reads or lists files on the server",
            FunctionClass::Network => "reaches other servers over the network",
            FunctionClass::ExecutesSql => "runs SQL text the guard cannot inspect",
            FunctionClass::Administrative => "administers the server",
            FunctionClass::Unknown => "is not a known side-effect-free built-in",
            FunctionClass::DeniedByPolicy => "is denied by this deployment's policy",
            FunctionClass::Secrets => "reads settings or variables that may hold credentials",
        }
    }
}

/// The kind of a [`Rejection`]: one per reason a statement is refused.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RejectKind {
    /// The text is empty, blank, or holds only comments and semicolons.
    Empty,
    /// The text is longer than the policy allows.
    TooLong {
        /// Length of the text in bytes.
        len: usize,
        /// The limit in bytes.
        max: usize,
    },
    /// Nesting (parentheses, subqueries) or an operator chain is deeper than the policy allows.
    TooDeep {
        /// The limit that was exceeded.
        limit: usize,
    },
    /// The text holds a NUL byte or another control character outside string literals.
    ControlCharacter {
        /// The character found.
        ch: char,
    },
    /// An unquoted word uses look-alike characters (fullwidth forms, Cyrillic or Greek letters
    /// that look Latin) that some engines would read as an SQL keyword.
    Confusable {
        /// The word as written.
        word: String,
        /// What it looks like in ASCII.
        looks_like: String,
    },
    /// A comment a server executes as SQL that the guard cannot read the way every server of
    /// the dialect does: MariaDB's `/*M! … */`, TiDB's `/*T! … */`, and `/*! … */` with a version
    /// outside what MySQL and MariaDB agree on.
    ExecutableComment,
    /// The text does not parse in this dialect.
    Parse {
        /// The parser's message.
        message: String,
    },
    /// More than one statement.
    MultipleStatements {
        /// How many statements were found.
        count: usize,
    },
    /// A statement that is not a read-only query (INSERT, CREATE, SET, CALL, …).
    NotAQuery {
        /// The kind of statement, e.g. `"DELETE"`, `"CREATE TABLE"`.
        statement: String,
    },
    /// A read-only introspection statement (SHOW, DESCRIBE, PRAGMA) while the policy turns them off.
    IntrospectionDisabled {
        /// The kind of statement.
        statement: String,
    },
    /// A data-modifying statement hidden inside a query (a CTE, a set operation, EXPLAIN ANALYZE).
    WriteInQuery {
        /// What was found, e.g. `"DELETE in a common table expression"`.
        what: String,
    },
    /// `SELECT … INTO` a table, a variable or a file (`INTO OUTFILE`, `INTO DUMPFILE`).
    SelectInto,
    /// A locking clause or hint (`FOR UPDATE`, `FOR SHARE`, `WITH (UPDLOCK)`, …).
    Locking {
        /// The clause as written.
        clause: String,
    },
    /// The query changes the session: assigns a variable (`@x := 1`) or query-level settings.
    SessionChange {
        /// What was found.
        what: String,
    },
    /// A function call that may have side effects, or that nothing proves free of them.
    Function {
        /// The function name as written.
        name: String,
        /// Why it is refused.
        class: FunctionClass,
    },
    /// A name the engine may run as a function call although it is not written as one:
    /// PostgreSQL's attribute notation (`t.f` is `f(t)`, `(x).f` is `f(x)` when there is no
    /// such column or field), a user-defined operator, or a cast to a type the guard does not
    /// know (its input function and domain checks run).
    ImplicitCall {
        /// The expression as written (`t.touch`, `('/etc/hostname'::text).pg_read_file`).
        written: String,
        /// The call the engine would make (`touch(t)`).
        call: String,
        /// Why the call is refused.
        class: FunctionClass,
    },
    /// A relation that names a file, a URL or a stage instead of a table (DuckDB
    /// `FROM 'data.csv'`, Snowflake `FROM @stage`).
    FileReference {
        /// The name as written.
        path: String,
    },
    /// A table that the policy does not allow.
    TableNotAllowed {
        /// The table name as written.
        name: String,
    },
    /// A column that the policy denies, or `*` / a whole-row reference over a table that has one.
    ColumnNotAllowed {
        /// The column (or the `*` expression) as written.
        name: String,
    },
    /// A use of a masked column ([`Policy::mask_column`](crate::Policy::mask_column)) that
    /// would reveal its values: passed to a function or operator, sorted by, read as a field or
    /// through a whole row, or carried through a construct the guard cannot follow.
    MaskedColumnUse {
        /// The masked column as the policy names it (`customers.email`); `None` when the
        /// refusal is about a construct rather than one column.
        column: Option<String>,
        /// How the statement uses it, in words (`it is used in lower() in the select list`).
        usage: String,
    },
    /// A credential, secret or server-internal catalogue that the policy refuses by default
    /// (a password hash, a connection string, other sessions' statement text, server settings,
    /// the host's paths and memory): a sensitive relation, column, table function, setting read
    /// by name, or SHOW/PRAGMA statement. See [`SensitiveEntry`].
    Sensitive {
        /// What was refused, as written: the column, `*`, or the statement.
        name: String,
        /// The built-in entry that refuses it, with its reason.
        entry: &'static SensitiveEntry,
    },
    /// PostgreSQL's own parser reads the statement otherwise than the guard: another kind or
    /// number of statements, a write, a table or a function call the guard did not see, or no
    /// statement at all. Made only with the `pg-query` feature, for
    /// [`SqlDialect::Postgres`](crate::SqlDialect::Postgres); both readings are kept so that a
    /// host logs them and the disagreement becomes a test case.
    ReadingsDisagree {
        /// What differs, in words (`PostgreSQL calls f, which the guard did not see`).
        difference: String,
        /// The guard's reading (`a query reading orders, calling count`).
        guard: String,
        /// PostgreSQL's reading (`1 statement, SelectStmt, reading orders, calling count, f`),
        /// or its parse error.
        postgres: String,
    },
}

impl RejectKind {
    /// A stable snake_case code for logs, metrics and tool results (`"write_in_query"`, …).
    pub fn code(&self) -> &'static str {
        match self {
            RejectKind::Empty => "empty",
            RejectKind::TooLong { .. } => "too_long",
            RejectKind::TooDeep { .. } => "too_deep",
            RejectKind::ControlCharacter { .. } => "control_character",
            RejectKind::Confusable { .. } => "confusable",
            RejectKind::ExecutableComment => "executable_comment",
            RejectKind::Parse { .. } => "parse",
            RejectKind::MultipleStatements { .. } => "multiple_statements",
            RejectKind::NotAQuery { .. } => "not_a_query",
            RejectKind::IntrospectionDisabled { .. } => "introspection_disabled",
            RejectKind::WriteInQuery { .. } => "write_in_query",
            RejectKind::SelectInto => "select_into",
            RejectKind::Locking { .. } => "locking",
            RejectKind::SessionChange { .. } => "session_change",
            RejectKind::Function { .. } => "function",
            RejectKind::ImplicitCall { .. } => "implicit_call",
            RejectKind::FileReference { .. } => "file_reference",
            RejectKind::TableNotAllowed { .. } => "table_not_allowed",
            RejectKind::ColumnNotAllowed { .. } => "column_not_allowed",
            RejectKind::Sensitive { .. } => "sensitive",
            RejectKind::MaskedColumnUse { .. } => "masked_column_use",
            RejectKind::ReadingsDisagree { .. } => "readings_disagree",
        }
    }
}

/// A position in the SQL text: 1-based line and column, as sqlparser counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    /// Line, from 1.
    pub line: u64,
    /// Column, from 1.
    pub column: u64,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// A refused statement: the kind, where in the text (when known), and the dialect it was read as.
///
/// `Display` is one paragraph written for the language model that wrote the SQL: what was
/// refused, why, and what to write instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message())]
pub struct Rejection {
    kind: RejectKind,
    position: Option<Position>,
    dialect: crate::SqlDialect,
}

impl Rejection {
    pub(crate) fn new(kind: RejectKind, dialect: crate::SqlDialect) -> Self {
        Rejection {
            kind,
            position: None,
            dialect,
        }
    }

    pub(crate) fn at(mut self, position: Option<Position>) -> Self {
        self.position = position;
        self
    }

    /// Why the statement was refused.
    pub fn kind(&self) -> &RejectKind {
        &self.kind
    }

    /// Where in the text the offending part starts, when the parser reported it.
    pub fn position(&self) -> Option<Position> {
        self.position
    }

    /// The dialect the statement was read as.
    pub fn dialect(&self) -> crate::SqlDialect {
        self.dialect
    }

    /// The message for the model: what was refused, why, and what to write instead.
    pub fn message(&self) -> String {
        let at = match self.position {
            Some(p) => format!(" (at {p})"),
            None => String::new(),
        };
        let d = self.dialect;
        match &self.kind {
            RejectKind::Empty => format!(
                "The SQL is empty: it holds no statement, only whitespace, comments or semicolons. \
                 Write one read-only query, such as SELECT … FROM …, in the {d} dialect."
            ),
            RejectKind::TooLong { len, max } => format!(
                "The SQL is {len} bytes long, over the limit of {max} bytes, so it was not read. \
                 Write a shorter query: aggregate in SQL instead of listing values, and split the \
                 work into several smaller queries."
            ),
            RejectKind::TooDeep { limit } => format!(
                "The SQL nests too deeply or chains too many operators (limit {limit}){at}, so it \
                 was not analyzed. Flatten it: use common table expressions (WITH …) instead of \
                 deeply nested subqueries, and IN (…) lists instead of long OR chains."
            ),
            RejectKind::ControlCharacter { ch } => format!(
                "The SQL holds the control character U+{:04X}{at} outside any string literal. \
                 Remove it and send plain SQL text.",
                u32::from(*ch)
            ),
            RejectKind::Confusable { word, looks_like } => format!(
                "The word {word:?}{at} is written with look-alike Unicode characters and reads as \
                 {looks_like:?}. Write SQL keywords and identifiers in plain ASCII, or quote an \
                 identifier that really uses these characters."
            ),
            RejectKind::ExecutableComment => format!(
                "The SQL holds an executable comment{at} (/*! … */, /*M! … */ or /*T! … */ \
                 with a version the guard cannot read the way every server does), whose text a \
                 server may run as SQL. Remove it; write plain SQL and ordinary comments only."
            ),
            RejectKind::Parse { message } => format!(
                "The SQL could not be parsed as {d}: {message}. Check the syntax for the {d} \
                 dialect and send one complete read-only query."
            ),
            RejectKind::MultipleStatements { count } => format!(
                "The SQL holds {count} statements; only one statement can run per call. Send \
                 each query in its own call, or combine them into one query with WITH or UNION ALL."
            ),
            RejectKind::NotAQuery { statement } => format!(
                "{statement} statements are not allowed{at}: this connection is read-only and \
                 runs only queries (SELECT, WITH … SELECT, VALUES, EXPLAIN, SHOW, DESCRIBE). \
                 Answer the question with a SELECT instead; nothing can be created or changed."
            ),
            RejectKind::IntrospectionDisabled { statement } => format!(
                "{statement} statements are turned off for this connection{at}. Query the \
                 catalogue with SELECT instead, or use the list_tables and describe_table tools."
            ),
            RejectKind::WriteInQuery { what } => format!(
                "The query hides a write: {what}{at}. This connection is read-only; remove the \
                 data-modifying part and keep only SELECT."
            ),
            RejectKind::SelectInto => format!(
                "SELECT … INTO{at} writes the result into a table, variable or file, which is not \
                 allowed on this read-only connection. Remove the INTO clause; the result is \
                 returned to you directly."
            ),
            RejectKind::Locking { clause } => format!(
                "The locking clause {clause}{at} takes row or table locks, which a read-only \
                 query must not do. Remove it; plain SELECT reads without locking."
            ),
            RejectKind::SessionChange { what } => format!(
                "The query changes the session: {what}{at}. Variables and settings cannot be \
                 changed here; compute the value inline (for example in a WITH clause) instead."
            ),
            RejectKind::Function { name, class } => {
                let advice = match class {
                    FunctionClass::Unknown => {
                        "Use the dialect's standard built-in functions instead, or compute the \
                         value with plain expressions"
                    }
                    FunctionClass::FileAccess | FunctionClass::Network => {
                        "Query the tables of the connected database instead"
                    }
                    _ => "Remove the call; only side-effect-free expressions are allowed",
                };
                format!(
                    "The function {name}{at} is not allowed: it {}. {advice}.",
                    class.describe()
                )
            }
            RejectKind::ImplicitCall {
                written,
                call,
                class,
            } => {
                let advice = match class {
                    FunctionClass::Unknown => {
                        "If you meant a column, write it unqualified or check its name with \
                         describe_table (a derived table or CTE that names its columns makes \
                         qualified references provable); instead of a cast to a user-defined \
                         type, compare with a plain literal (status = 'shipped' needs no cast)"
                    }
                    _ => {
                        "Remove it; if you meant a column of that name, write it without the \
                         table qualifier (an unqualified name is always a column)"
                    }
                };
                format!(
                    "{written}{at} is not allowed: the engine runs it as {call}, which {}. \
                     {advice}.",
                    class.describe()
                )
            }
            RejectKind::FileReference { path } => format!(
                "{path}{at} names a file, URL or stage rather than a table; reading files from \
                 the server is not allowed. Query the tables of the connected database instead \
                 (list_tables shows them)."
            ),
            RejectKind::TableNotAllowed { name } => {
                let what = format!("The table {name}{at}");
                match crate::sensitive::relation_for_written(name) {
                    Some(entry) => sensitive_message(&what, entry, None),
                    None => format!(
                        "{what} is not available to this agent. Use only the tables that \
                         list_tables shows."
                    ),
                }
            }
            RejectKind::Sensitive { name, entry } => {
                let (what, advice) = match entry.kind() {
                    SensitiveKind::Statement => (
                        format!("{name}{at}"),
                        Some(
                            "To see the columns of a table of that name, use DESCRIBE or the \
                             describe_table tool instead.",
                        ),
                    ),
                    SensitiveKind::Relation => (format!("The table {name}{at}"), None),
                    SensitiveKind::TableFunction => (format!("{name}{at}"), None),
                    _ => (
                        format!("The column {name}{at}"),
                        Some(
                            "Name the other columns you need explicitly (no SELECT * or \
                             whole-row reference over that relation) and leave this one out.",
                        ),
                    ),
                };
                sensitive_message(&what, entry, advice)
            }
            RejectKind::MaskedColumnUse { column, usage } => {
                let allowed = "A masked column can be selected as it is (its values come back \
                               masked), compared with =, <>, IN or IS NULL, grouped by, joined \
                               on, or counted (count(col), count(DISTINCT col)); nothing else.";
                match column {
                    Some(column) => format!(
                        "The column {column} is masked by this database's policy, and here \
                         {usage}{at}, which would reveal its values. {allowed} Use it only in \
                         those ways, or leave it out."
                    ),
                    None => format!(
                        "The query reads masked columns in a way the guard cannot follow: \
                         {usage}{at}. {allowed}"
                    ),
                }
            }
            RejectKind::ReadingsDisagree {
                difference,
                guard,
                postgres,
            } => format!(
                "PostgreSQL's own parser reads this SQL differently from the guard ({difference}), \
                 so it was not run. The guard read {guard}; PostgreSQL read {postgres}. Write the \
                 query in plain standard SQL: one SELECT with ordinary function calls and plain \
                 table names, without engine-specific shortcuts or unusual quoting."
            ),
            RejectKind::ColumnNotAllowed { name } => format!(
                "The column {name}{at} is restricted and cannot be read. Name the columns you \
                 need explicitly (no SELECT * or whole-row references over that table) and leave \
                 this one out."
            ),
        }
    }
}

/// The message for a sensitive relation, column or statement: what, why, and not to retry.
fn sensitive_message(what: &str, entry: &SensitiveEntry, advice: Option<&str>) -> String {
    let advice = advice
        .unwrap_or("Answer from the database's own data tables instead (list_tables shows them).");
    format!(
        "{what} is refused: {} {} ({}). Credential, secret and server-internal catalogues are \
         never readable through this connection, in any form, so do not look for another way \
         to read it. {advice}",
        entry.name(),
        entry.reason(),
        entry.engine()
    )
}
