//! What a deployment allows: limits, row cap, tables, columns and functions.

use crate::mask::{ColumnMask, MaskRule};
use crate::sensitive::{self, SensitiveEntry};
use crate::table_name::{TableName, TablePattern};

/// Default for [`Policy::max_sql_bytes`]: 100 000 bytes, far above any analyst query and small
/// enough that the parser answers in a few milliseconds.
pub const DEFAULT_MAX_SQL_BYTES: usize = 100_000;
/// Default for [`Policy::max_nesting`]: sqlparser's own recursion limit.
pub const DEFAULT_MAX_NESTING: usize = 50;
/// Default for [`Policy::max_operator_chain`].
pub const DEFAULT_MAX_OPERATOR_CHAIN: usize = 1_000;

/// A column the policy hides: `ssn` in every table, or `customers.ssn` in one table.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ColumnPattern {
    pub(crate) table: Option<TablePattern>,
    pub(crate) column: String,
    /// Stands for the built-in sensitive columns ([`SensitiveEntry`]) rather than one column,
    /// so that a policy with only those still has denied columns to look for.
    pub(crate) builtin: bool,
}

impl ColumnPattern {
    /// Parses `column`, `table.column`, `schema.table.column`, `*.column` (the column in every
    /// table, the same as `column`) or `schema.*.column` (in every table of the schema).
    pub fn new(pattern: &str) -> Self {
        let pattern = pattern.trim();
        match pattern.rsplit_once('.') {
            Some((table, column)) => ColumnPattern {
                table: Some(TablePattern::new(table)),
                column: column.to_owned(),
                builtin: false,
            },
            None => ColumnPattern {
                table: None,
                column: pattern.to_owned(),
                builtin: false,
            },
        }
    }

    /// The stand-in for the built-in sensitive columns.
    fn builtin() -> Self {
        ColumnPattern {
            table: None,
            column: String::new(),
            builtin: true,
        }
    }

    /// Whether this pattern can hide a column of `table`. A schema wildcard (`hr.*.salary`)
    /// also applies to a table written without its schema, which the engine's search path may
    /// find in that schema: a column pattern errs on the side of hiding.
    pub(crate) fn applies_to(&self, table: &TableName) -> bool {
        self.table.as_ref().is_none_or(|t| {
            t.matches(table) || (t.is_schema_wildcard() && table.schema().is_none())
        })
    }
}

impl From<&str> for ColumnPattern {
    fn from(pattern: &str) -> Self {
        ColumnPattern::new(pattern)
    }
}

/// What a deployment allows. [`Policy::default()`] is the safe default for an agent on a
/// production database: one read-only statement, built-in side-effect-free functions only, every
/// table readable except the credential, secret and server-internal catalogues
/// ([`SensitiveEntry`]), no row cap (the database adapter caps rows too).
///
/// ```
/// use nao_guard::Policy;
///
/// let policy = Policy::default()
///     .with_row_cap(1_000)
///     .deny_table("hr.*")
///     .deny_column("customers.email")
///     .allow_function("my_schema.clean_phone");
/// assert_eq!(policy.row_cap(), Some(1_000));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    pub(crate) max_sql_bytes: usize,
    pub(crate) max_nesting: usize,
    pub(crate) max_operator_chain: usize,
    pub(crate) row_cap: Option<u64>,
    pub(crate) allow_introspection: bool,
    pub(crate) allowed_tables: Option<Vec<TablePattern>>,
    pub(crate) denied_tables: Vec<TablePattern>,
    pub(crate) denied_columns: Vec<ColumnPattern>,
    pub(crate) masked_columns: Vec<ColumnMask>,
    pub(crate) allowed_functions: Vec<String>,
    pub(crate) denied_functions: Vec<String>,
    pub(crate) allow_unknown_functions: bool,
    /// Every built-in sensitive entry allowed ([`Policy::with_sensitive_allowed`]).
    pub(crate) sensitive_allowed: bool,
    /// Built-in sensitive entries allowed one by one, normalized.
    pub(crate) allowed_sensitive: Vec<String>,
    /// PostgreSQL statements read again by PostgreSQL's parser (feature `pg-query`).
    pub(crate) second_reading: bool,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            max_sql_bytes: DEFAULT_MAX_SQL_BYTES,
            max_nesting: DEFAULT_MAX_NESTING,
            max_operator_chain: DEFAULT_MAX_OPERATOR_CHAIN,
            row_cap: None,
            allow_introspection: true,
            allowed_tables: None,
            denied_tables: Vec::new(),
            denied_columns: vec![ColumnPattern::builtin()],
            masked_columns: Vec::new(),
            allowed_functions: Vec::new(),
            denied_functions: Vec::new(),
            allow_unknown_functions: false,
            sensitive_allowed: false,
            allowed_sensitive: Vec::new(),
            second_reading: true,
        }
    }
}

impl Policy {
    /// The same as [`Policy::default()`].
    pub fn new() -> Self {
        Policy::default()
    }

    /// Refuses text longer than `bytes` before parsing it (default [`DEFAULT_MAX_SQL_BYTES`]).
    pub fn with_max_sql_bytes(mut self, bytes: usize) -> Self {
        self.max_sql_bytes = bytes;
        self
    }

    /// The parser's recursion limit: how deeply parentheses, subqueries and expressions may
    /// nest (default [`DEFAULT_MAX_NESTING`]).
    pub fn with_max_nesting(mut self, depth: usize) -> Self {
        self.max_nesting = depth;
        self
    }

    /// How many binary operators or set operations may chain at one level of nesting
    /// (default [`DEFAULT_MAX_OPERATOR_CHAIN`]). Such chains parse into trees as deep as they
    /// are long, so this bounds the analyzer's stack.
    pub fn with_max_operator_chain(mut self, operators: usize) -> Self {
        self.max_operator_chain = operators;
        self
    }

    /// Adds `LIMIT rows` (or clamps a larger limit) in the dialect's own syntax.
    pub fn with_row_cap(mut self, rows: u64) -> Self {
        self.row_cap = Some(rows);
        self
    }

    /// Allows or refuses read-only introspection statements (SHOW, DESCRIBE, PRAGMA
    /// table_info, …). Allowed by default.
    pub fn with_introspection(mut self, allow: bool) -> Self {
        self.allow_introspection = allow;
        self
    }

    /// Turns the second reading of [`SqlDialect::Postgres`](crate::SqlDialect::Postgres)
    /// statements by PostgreSQL's own parser on or off. On by default; it exists only in builds
    /// with the `pg-query` feature, and without it this setting does nothing. Turn it off for an
    /// engine that speaks PostgreSQL's protocol with a grammar of its own (CockroachDB's `AS OF
    /// SYSTEM TIME`), which PostgreSQL's parser would refuse.
    pub fn with_second_reading(mut self, on: bool) -> Self {
        self.second_reading = on;
        self
    }

    /// Allows only the tables matching the given patterns (see [`TablePattern`]). Calling it
    /// again adds to the list.
    pub fn allow_table(mut self, pattern: impl Into<TablePattern>) -> Self {
        self.allowed_tables
            .get_or_insert_with(Vec::new)
            .push(pattern.into());
        self
    }

    /// Refuses the tables matching the pattern, whatever the allowlist says. The built-in
    /// sensitive relations ([`SensitiveEntry`]) are refused whatever the allowlist says too;
    /// [`Policy::allow_sensitive`] lifts that.
    pub fn deny_table(mut self, pattern: impl Into<TablePattern>) -> Self {
        self.denied_tables.push(pattern.into());
        self
    }

    /// Refuses statements that read the column, including through `SELECT *` or a whole-row
    /// reference over a table that has it.
    pub fn deny_column(mut self, pattern: impl Into<ColumnPattern>) -> Self {
        self.denied_columns.push(pattern.into());
        self
    }

    /// Masks the column: statements may read it, but its values come back under `rule`
    /// (applied by the host's result pipeline to the output columns that
    /// [`ReadOnlySql::masked_outputs`](crate::ReadOnlySql::masked_outputs) names). So that the
    /// values cannot be read some other way, a masked column may only be selected as it is
    /// (directly, through subqueries, CTEs, set operations and `*`), compared for equality
    /// (`=`, `<>`, `IN`, `IS [NOT] DISTINCT FROM`, `IS [NOT] NULL`), grouped, partitioned,
    /// joined on and counted (`count(col)`, `count(DISTINCT col)`); any other use (a function,
    /// an operator, `ORDER BY`, `LIKE`, a comparison by order, a whole-row reference) is
    /// refused with the reason. A pattern both denied and masked is denied. The first
    /// pattern that matches a column decides its rule.
    ///
    /// Patterns name relations as the statement writes them: a view (or another table) that
    /// exposes the column under its own name needs its own pattern, or a pattern for every
    /// relation (`*.email`). What masking leaves open by design: equality tells whether a
    /// value equals a guess, and an engine may return the rows of an unordered result in the
    /// order of the stored values.
    ///
    /// ```
    /// use nao_guard::{check, MaskRule, Policy, SqlDialect};
    ///
    /// let policy = Policy::default().mask_column("customers.email", MaskRule::Hash);
    /// assert!(check("SELECT id, email FROM customers", SqlDialect::Postgres, &policy).is_ok());
    /// assert!(check("SELECT lower(email) FROM customers", SqlDialect::Postgres, &policy).is_err());
    /// ```
    pub fn mask_column(mut self, pattern: impl Into<ColumnPattern>, rule: MaskRule) -> Self {
        self.masked_columns.push(ColumnMask {
            pattern: pattern.into(),
            rule,
        });
        self
    }

    /// Whether the policy masks any column.
    pub fn masks_columns(&self) -> bool {
        !self.masked_columns.is_empty()
    }

    /// The rule that masks the column `column` of `table`, if the policy masks it, with the
    /// pattern's text for notices. ASCII case-insensitive on the column name, like
    /// [`Policy::column_allowed`].
    ///
    /// ```
    /// use nao_guard::{MaskRule, Policy, TableName};
    ///
    /// let policy = Policy::default().mask_column("*.ssn", MaskRule::Partial { keep_last: 4 });
    /// let people = TableName::new(["hr", "people"]);
    /// assert_eq!(policy.column_mask(&people, "SSN"), Some(MaskRule::Partial { keep_last: 4 }));
    /// assert_eq!(policy.column_mask(&people, "name"), None);
    /// ```
    pub fn column_mask(&self, table: &TableName, column: &str) -> Option<MaskRule> {
        self.masked_columns
            .iter()
            .find(|m| m.pattern.column.eq_ignore_ascii_case(column) && m.pattern.applies_to(table))
            .map(|m| m.rule)
    }

    /// The masked columns' names (last part) that can apply to `table`, with their rules, in
    /// the policy's order.
    pub(crate) fn masks_of(&self, table: &TableName) -> impl Iterator<Item = &ColumnMask> {
        self.masked_columns
            .iter()
            .filter(move |m| m.pattern.applies_to(table))
    }

    /// Allows a function the catalogue does not know (a host's own UDF). Give the last name
    /// part (`clean_phone`) or the qualified name (`my_schema.clean_phone`). Functions the
    /// catalogue denies stay denied.
    pub fn allow_function(mut self, name: &str) -> Self {
        self.allowed_functions
            .push(name.trim().to_ascii_lowercase());
        self
    }

    /// Refuses a function even though the catalogue allows it (matched on the last name part).
    pub fn deny_function(mut self, name: &str) -> Self {
        let last = name.rsplit('.').next().unwrap_or(name);
        self.denied_functions.push(last.trim().to_ascii_lowercase());
        self
    }

    /// Allows every function that the catalogue does not know, instead of refusing it. Only for
    /// databases where no user-defined function has side effects.
    pub fn with_unknown_functions_allowed(mut self, allow: bool) -> Self {
        self.allow_unknown_functions = allow;
        self
    }

    /// Allows one built-in sensitive entry (see [`SensitiveEntry::all`]) by its name, ASCII
    /// case-insensitive: `"pg_stat_activity.query"`, `"mysql.user"`, `"performance_schema.*"`,
    /// `"SHOW GRANTS"`. The name of a relation also allows its sensitive columns
    /// (`"pg_stat_activity"` allows `pg_stat_activity.query`). A name that is no entry changes
    /// nothing; [`SensitiveEntry::find`] tells whether it is one. What several entries match
    /// (`SHOW ssl_key_file` is a path and named like a key) passes once all of them are lifted.
    ///
    /// ```
    /// use nao_guard::{check, Policy, SqlDialect};
    ///
    /// let sql = "SELECT pid, query FROM pg_stat_activity";
    /// assert!(check(sql, SqlDialect::Postgres, &Policy::default()).is_err());
    /// let dba = Policy::default().allow_sensitive("pg_stat_activity.query");
    /// assert!(check(sql, SqlDialect::Postgres, &dba).is_ok());
    /// ```
    pub fn allow_sensitive(mut self, name: &str) -> Self {
        self.allowed_sensitive.push(sensitive::normalize(name));
        self
    }

    /// Allows (`true`) or refuses (`false`, the default) every built-in sensitive relation,
    /// column and statement at once: password hashes, connection strings, other sessions'
    /// statement text, server settings ([`SensitiveEntry::all`]). Only for a host that shows
    /// these to an administrator on purpose; the role the adapter connects as should not be able
    /// to read them in the first place.
    pub fn with_sensitive_allowed(mut self, allow: bool) -> Self {
        self.sensitive_allowed = allow;
        self.denied_columns.retain(|c| !c.builtin);
        if !allow {
            self.denied_columns.push(ColumnPattern::builtin());
        }
        self
    }

    /// Whether this policy refuses a built-in sensitive entry (it does unless
    /// [`Policy::allow_sensitive`] or [`Policy::with_sensitive_allowed`] says otherwise).
    pub fn refuses_sensitive(&self, entry: &SensitiveEntry) -> bool {
        !self.sensitive_allowed && !self.allowed_sensitive.iter().any(|a| entry.named_by(a))
    }

    /// The built-in sensitive relation entry that makes this policy refuse `table`, if any.
    pub fn sensitive_relation(&self, table: &TableName) -> Option<&'static SensitiveEntry> {
        sensitive::refused_relation(self, table)
    }

    /// The row cap, if any.
    pub fn row_cap(&self) -> Option<u64> {
        self.row_cap
    }

    /// The maximum text length in bytes.
    pub fn max_sql_bytes(&self) -> usize {
        self.max_sql_bytes
    }

    /// The parser's recursion limit.
    pub fn max_nesting(&self) -> usize {
        self.max_nesting
    }

    /// The maximum length of an operator chain.
    pub fn max_operator_chain(&self) -> usize {
        self.max_operator_chain
    }

    /// Whether introspection statements are allowed.
    pub fn allows_introspection(&self) -> bool {
        self.allow_introspection
    }

    /// Whether PostgreSQL statements are read a second time by PostgreSQL's own parser, in
    /// builds with the `pg-query` feature ([`Policy::with_second_reading`]).
    pub fn second_reading(&self) -> bool {
        self.second_reading
    }

    /// Whether the policy lets `table` be read. A name computed when the statement runs
    /// (Snowflake's `IDENTIFIER($t)`) is never allowed: no list can say which table it is.
    pub fn table_allowed(&self, table: &TableName) -> bool {
        if table.is_computed() {
            return false;
        }
        let listed = self
            .allowed_tables
            .as_ref()
            .is_none_or(|list| list.iter().any(|p| p.matches(table)));
        listed
            && !self.denied_tables.iter().any(|p| p.matches(table))
            && self.sensitive_relation(table).is_none()
    }

    /// Whether the policy lets the column `column` of `table` be read: not denied by the
    /// host's column patterns nor by the built-in sensitive columns. The same rule the guard
    /// applies to statements, for catalogues and descriptions.
    ///
    /// ```
    /// use nao_guard::{Policy, TableName};
    ///
    /// let policy = Policy::default().deny_column("customers.ssn");
    /// let customers = TableName::new(["customers"]);
    /// assert!(!policy.column_allowed(&customers, "SSN"));
    /// assert!(policy.column_allowed(&customers, "name"));
    /// assert!(policy.column_allowed(&TableName::new(["orders"]), "ssn"));
    /// ```
    pub fn column_allowed(&self, table: &TableName, column: &str) -> bool {
        self.denies_column(column, &[table]).is_none()
    }

    /// Why columns of `table` may be denied: the host's own patterns first, else the first
    /// built-in sensitive column of that table.
    pub(crate) fn hides_columns_of(&self, table: &TableName) -> Option<ColumnDenial> {
        if self.host_columns().any(|c| c.applies_to(table)) {
            return Some(ColumnDenial::Policy);
        }
        sensitive::refused_column_of(self, table).map(ColumnDenial::Sensitive)
    }

    /// Why the column `name` of one of `tables` is denied, if it is.
    pub(crate) fn denies_column(&self, name: &str, tables: &[&TableName]) -> Option<ColumnDenial> {
        let host = self
            .host_columns()
            .any(|c| c.column.eq_ignore_ascii_case(name) && tables.iter().any(|t| c.applies_to(t)));
        if host {
            return Some(ColumnDenial::Policy);
        }
        sensitive::refused_column(self, name, tables).map(ColumnDenial::Sensitive)
    }

    /// Whether the host denies columns of its own (beyond the built-in sensitive ones).
    pub(crate) fn denies_host_columns(&self) -> bool {
        self.host_columns().next().is_some()
    }

    fn host_columns(&self) -> impl Iterator<Item = &ColumnPattern> {
        self.denied_columns.iter().filter(|c| !c.builtin)
    }

    /// Whether the host allowed this function by name (`parts` lower-cased, outermost first).
    pub(crate) fn function_allowed_by_name(&self, parts: &[String]) -> bool {
        let last = parts.last().map_or("", String::as_str);
        let full = parts.join(".");
        self.allowed_functions
            .iter()
            .any(|a| a == last || *a == full)
    }

    /// Whether the host denies any function by name.
    pub(crate) fn denies_functions_by_name(&self) -> bool {
        !self.denied_functions.is_empty()
    }

    /// Whether the host denied this function by its last name part (lower-cased).
    pub(crate) fn function_denied_by_name(&self, last: &str) -> bool {
        self.denied_functions.iter().any(|d| d == last)
    }
}

/// Why a column is denied: the host named it, or it is a built-in sensitive column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ColumnDenial {
    Policy,
    Sensitive(&'static SensitiveEntry),
}
