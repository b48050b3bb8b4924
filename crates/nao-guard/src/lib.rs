//! # nao-guard
//!
//! Proves SQL read-only before it runs. A language model writes the SQL; this crate parses it
//! with [sqlparser](https://docs.rs/sqlparser) in the engine's dialect, walks the **whole** syntax
//! tree and refuses anything it cannot prove free of side effects. What passes comes back as a
//! [`ReadOnlySql`], the only type the database adapters of nao-rs accept.
//!
//! ```
//! use nao_guard::{check, Policy, RejectKind, SqlDialect};
//!
//! let policy = Policy::default().with_row_cap(1_000).deny_table("hr.*");
//!
//! let sql = check("SELECT * FROM orders WHERE status = 'shipped'", SqlDialect::DuckDb, &policy)?;
//! assert_eq!(sql.sql(), "SELECT * FROM orders WHERE status = 'shipped' LIMIT 1000");
//! assert!(sql.cap_applied());
//!
//! let refused = check("SELECT pg_read_file('/etc/passwd')", SqlDialect::Postgres, &policy).unwrap_err();
//! assert!(matches!(refused.kind(), RejectKind::Function { .. }));
//! println!("{refused}"); // a paragraph for the model: what was refused and what to do instead
//! # Ok::<(), nao_guard::Rejection>(())
//! ```
//!
//! ## Usage
//! - [`check`] gives a verdict: `Ok(ReadOnlySql)` or the first [`Rejection`].
//! - [`analyze`] gives the facts (tables, functions, top-level limit) and every rejection.
//! - [`Policy`] sets limits, the row cap, table allow/deny lists, denied columns, extra
//!   allowed functions and the built-in sensitive catalogues it lifts. [`SqlDialect`] names the
//!   engine family.
//!
//! ## What is allowed, and why
//! Exactly one statement (trailing semicolons and comments are fine), of these kinds:
//! - **Queries**: SELECT, set operations, VALUES, `TABLE t`, DuckDB's `FROM t`, with CTEs
//!   (including recursive ones), subqueries, joins, windows and dialect syntax, including
//!   engine syntax sqlparser does not read: DuckDB's `PIVOT`/`UNPIVOT` statements, `SUMMARIZE`
//!   (read as a query computing over every column of its dataset) and `* RENAME` (through
//!   sqlparser's dialect hooks), `ASOF` joins and `USING SAMPLE` (read with the clause
//!   blanked out, since it reads no table and calls no function). Other engine forms it cannot
//!   read are refused with the equivalent form to write.
//! - **EXPLAIN** of a query (EXPLAIN ANALYZE runs it, which is fine for a query; EXPLAIN of
//!   anything else is refused: EXPLAIN ANALYZE of a DELETE deletes).
//! - **Introspection**: SHOW …, DESCRIBE …, SQLite's PRAGMAs that only read ([`SqlitePragma`],
//!   the same list the SQLite adapter's authorizer allows), unless the policy turns it off.
//!
//! Everything else is refused by kind ([`RejectKind`]): deny by default. Inside an allowed
//! statement the guard refuses, wherever they hide: data-modifying statements (in CTEs, set
//! operations, EXPLAIN ANALYZE); `SELECT … INTO` and `INTO OUTFILE`; locking clauses and T-SQL
//! locking hints; session variable assignment (`@x := …`) and ClickHouse `SETTINGS`; and every
//! function that is not a known side-effect-free built-in of the dialect. Functions come in three
//! tiers: a catalogue of **denied** functions (side effects, sleeping, locks, file and network
//! access, SQL execution, administration — `pg_sleep`, `pg_read_file`, `dblink`, `read_csv`,
//! `LOAD_FILE`, `xp_cmdshell`, `url`, …) always refused; a catalogue of **built-ins** known to be
//! free of side effects, allowed; and **everything else** (user-defined functions, anything
//! unknown) refused, because nothing proves it harmless — a host names its own safe functions
//! with [`Policy::allow_function`]. Lexical tricks get their own kinds too: NUL and control
//! characters, keywords written with look-alike Unicode (`ＤＥＬＥＴＥ`, a Cyrillic `Е`),
//! executable comments read differently by MySQL and MariaDB (`/*!1000001x …*/`, `/*M! …*/`),
//! optimizer hints that change the session (`SET_VAR`, `MAX_EXECUTION_TIME`), and, in Spark and
//! Hive, string literals whose end moves when backslashes are read as escapes.
//!
//! Calls that are not written as calls are calls too. PostgreSQL runs `t.f` and `(x).f` as
//! `f(t)` / `f(x)` when there is no such column or field (attribute notation), the function
//! behind an operator, and a type's input, cast and check functions on a cast. In that family
//! ([`SqlDialect::calls_functions_through_attributes`]) a denied function is refused in every
//! attribute position, a name that is not a built-in must be proven a column (CTEs and derived
//! tables that name their columns), and what only the database's catalogue can prove, a column
//! of a base table, is listed in [`ReadOnlySql::attribute_refs`] for the adapter to check before
//! the statement runs (the PostgreSQL adapter of nao-dialects does, in the same snapshot);
//! user-defined operators and casts to types that are not built in are refused
//! ([`RejectKind::ImplicitCall`]). DuckDB's `x.f()` method calls and T-SQL's `t.col.Method()`
//! are ordinary calls to the function tiers; lambda bodies are walked like any expression.
//!
//! What the engine would read otherwise than sqlparser is refused as a parse error, so that the
//! guard never proves one statement while the engine runs another (or fails on it): a method
//! call where DuckDB's grammar takes none (`'abc'.upper()`, `l[1].abs()`,
//! [`SqlDialect::restricts_method_call_receivers`]), `x ISNULL` (a null test to PostgreSQL,
//! DuckDB and SQLite, an alias to sqlparser), a number glued to a name (`0X1F` is 31 to SQLite,
//! 0 named `X1F` to sqlparser), `0x1F` in DuckDB ([`SqlDialect::reads_hex_numbers`]).
//!
//! Tables are found CTE-aware and alias-aware and reported as written; the policy's allowlist and
//! denylist apply to each. Denied columns are refused by name, through `*`, `t.*` and whole-row
//! references.
//!
//! Credential, secret and server-internal catalogues are refused by default in every dialect,
//! however they are qualified, quoted or hidden ([`SensitiveEntry`]): password hashes
//! (`pg_authid`, `mysql.user`, `sys.sql_logins`), connection strings and foreign-server options,
//! other sessions' statement text (`pg_stat_activity.query`, `information_schema.PROCESSLIST`,
//! `system.query_log`, `INFORMATION_SCHEMA.JOBS`), server settings and paths (`pg_settings`,
//! `SHOW ALL`, `SHOW data_directory`), the host's paths and memory as the embedded engines show
//! them (DuckDB's `duckdb_databases()`, `duckdb_settings()`, `duckdb_memory()`,
//! `current_setting('home_directory')`, SQLite's `PRAGMA database_list`), and `SHOW GRANTS`,
//! `SHOW PROCESSLIST`, `SHOW ENGINE … STATUS`, `SHOW BINLOG EVENTS`. The refusal says why, so
//! the model does not try another way round. A host that shows them to an administrator on purpose lifts one entry with
//! [`Policy::allow_sensitive`], or all with [`Policy::with_sensitive_allowed`].
//!
//! The guard is the first of two gates: the adapters also open connections read-only at the
//! engine, so a statement the guard wrongly passed still cannot write.
//!
//! ## Features
//! - `pg-query` (off by default): PostgreSQL's own parser (libpg_query, through the
//!   [`pg_query`](https://docs.rs/pg_query) crate) reads every [`SqlDialect::Postgres`]
//!   statement a second time, the text [`check`] returns with the row cap spliced in, and the
//!   statement is refused with [`RejectKind::ReadingsDisagree`], which carries both readings
//!   for the host's logs, when PostgreSQL reads other statements, a write, an `INTO` or locking
//!   clause, or a relation or function call the guard did not see. Attribute notation is not
//!   compared: PostgreSQL's parser reads `t.f` as a column too, and only its catalogue makes it
//!   a call, so the guard's own handling above stays the defence there. It roughly triples the
//!   cost of a check (about 42 µs more per statement, `benches/guard.rs`), refuses trees
//!   nested deeper than 100 levels (48 chained operators), and builds libpg_query's C with
//!   bindgen, which needs libclang. [`Policy::with_second_reading`] turns it off for an engine
//!   whose grammar is not PostgreSQL's (CockroachDB).
//!
//! ## Untrusted input
//! Every input gets a verdict: nothing panics, overflows the stack or runs long.
//! - Text longer than [`Policy::with_max_sql_bytes`] (default 100 000 bytes) is refused
//!   before it is tokenized, in constant time.
//! - Nesting is bounded by the parser's recursion limit ([`Policy::with_max_nesting`], default
//!   50); chains of operators and set operations, which parse into trees as deep as they are
//!   long, by [`Policy::with_max_operator_chain`] (default 1 000 per level, 10 000 in all). The
//!   walk over the tree stops at a depth derived from both. So memory and time are linear in the
//!   text and the stack is bounded; a 1 MB text or 10 000 nested parentheses come back at once.
//! - The crate has no `unsafe` code and is fuzzed (`fuzz/` in the repository).
//!
//! ## Performance
//! The analyzer adds one walk over the tree to sqlparser's own tokenizing and parsing; function
//! look-ups are binary searches over static sorted lists, with no allocation; the sensitive
//! catalogue costs a hash look-up per table and column name (about a tenth of a check).
//! A row cap costs no second parse: it is spliced into the text the guard analysed, at a place
//! the tree locates (the number of the query's own larger limit, a clause after its last token,
//! T-SQL's `TOP` after `SELECT`, or a `SELECT * FROM (…) AS nao_capped` wrapper where nothing
//! else reads right), and every other byte reaches the engine as written. The crate's tests
//! show, for every statement of its case tables and thousands of generated shapes in every
//! dialect, that the spliced text parses to the analysed tree with exactly the cap added.
//! `benches/guard.rs` in the repository compares the guard with a bare parse of the same
//! statements.
#![forbid(unsafe_code)]

mod analysis;
mod attributes;
mod columns;
mod comments;
mod confusable;
mod dialect;
mod extended;
mod fallback;
mod functions;
mod guard;
mod implicit;
mod lexical;
mod limit;
mod lineage;
mod literals;
mod mask;
mod policy;
mod pragma;
mod read_only_sql;
mod rejection;
mod scope;
#[cfg(feature = "pg-query")]
mod second_reading;
mod sensitive;
mod source_index;
mod statement;
mod syntax_hints;
mod table_name;
#[cfg(test)]
mod test_cases;
mod walker;

pub use analysis::Analysis;
pub use attributes::AttributeRef;
pub use dialect::{RowCapSyntax, SqlDialect, UnknownDialect};
pub use guard::{analyze, check};
pub use literals::mask_literals;
pub use mask::{MaskRule, MaskedOutput, OutputColumn};
pub use policy::{
    ColumnPattern, DEFAULT_MAX_NESTING, DEFAULT_MAX_OPERATOR_CHAIN, DEFAULT_MAX_SQL_BYTES, Policy,
};
pub use pragma::{PragmaArgument, SqlitePragma};
pub use read_only_sql::{ReadOnlySql, Seal, StatementKind};
pub use rejection::{FunctionClass, Position, RejectKind, Rejection};
pub use sensitive::{SensitiveEntry, SensitiveKind};
pub use table_name::{NamePart, TableName, TablePattern};
