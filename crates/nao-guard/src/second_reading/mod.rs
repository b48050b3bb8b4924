//! A second reading of PostgreSQL statements by PostgreSQL's own parser (feature `pg-query`).
//!
//! sqlparser is not PostgreSQL's grammar: where the two read one text differently, the guard
//! could prove one statement while the server runs another. With the `pg-query` feature,
//! [`check`](crate::check) and [`analyze`](crate::analyze) read every statement of
//! [`SqlDialect::Postgres`] a second time with libpg_query (the parser of the PostgreSQL 18
//! server, compiled from C by the `pg_query` crate), and refuse it with
//! [`RejectKind::ReadingsDisagree`] when the readings differ. `check` reads the text the
//! engine will run, after the row cap is spliced in, so the splice is checked too. Both
//! readings go into the rejection, so that a host's audit log shows them and each
//! disagreement can become a test case.
//!
//! # What is compared
//! From PostgreSQL's whole parse tree (every field of every node, not only the ones
//! pg_query's `tables()` and `functions()` helpers follow; see [`tree`]):
//! - **statements**: exactly one; a `SelectStmt` for a query, an `ExplainStmt` for EXPLAIN, a
//!   `VariableShowStmt` for SHOW; every statement node inside it a `SelectStmt` (a
//!   data-modifying CTE, `WITH d AS (DELETE …)`, is a `DeleteStmt` there);
//! - **no `INTO` and no locking clause** anywhere (`SELECT … INTO t` creates a table);
//! - **relations**: every relation PostgreSQL reads is one of the guard's tables, names
//!   compared as PostgreSQL resolves them (unquoted parts folded to lower case, every part cut
//!   to 63 bytes); a bare name that is a CTE of the statement is not a relation;
//! - **function calls**: every call PostgreSQL reads is one the guard checked, by name and,
//!   when PostgreSQL's carries one, by schema. Calls the grammar makes of SQL syntax
//!   (`EXTRACT(… FROM …)`, `x AT TIME ZONE z`, `TRIM(…)`, `LIKE … ESCAPE`) name fixed
//!   `pg_catalog` functions no user can replace, so they are not compared; calls sqlparser
//!   reads as syntax of its own (`CEIL(x)`, `SUBSTRING(s, 1, 2)`, `FROM UNNEST(a)`) count as
//!   seen where its tree has that syntax ([`syntax`]).
//!
//! The guard may see more than PostgreSQL (sqlparser reads `coalesce(…)` as a call, PostgreSQL
//! as an expression): only what PostgreSQL reads and the guard did not is a disagreement.
//! [`analyze`](crate::analyze) adds the refusal to a statement the guard itself refuses
//! nothing in, reading the text as written (it splices in no row cap).
//!
//! # What is not compared
//! **Attribute notation** (`t.f` for `f(t)`, `(x).f` for `f(x)`): PostgreSQL's parser reads
//! these as a column reference and a field selection, like sqlparser; only the catalogue, when
//! the statement is planned, turns one into a call. No parser can cross-check that class; the
//! guard handles it itself ([`SqlDialect::calls_functions_through_attributes`]). Nor are
//! operators and casts (the functions behind them are a catalogue matter too), columns, or
//! which CTE a bare name refers to (a name matching any CTE of the statement is left out).
//!
//! # Which dialects
//! [`SqlDialect::Postgres`] only: that is PostgreSQL's grammar. Redshift forked PostgreSQL 8.0
//! and reads its own syntax (`QUALIFY`, `TOP`, `#` in names), and the generic dialects describe
//! text meant for any engine; a second reading by PostgreSQL's parser would refuse them
//! wholesale. An engine that speaks PostgreSQL's protocol with a grammar of its own
//! (CockroachDB's `AS OF SYSTEM TIME`) would have its extensions refused: a host turns the
//! second reading off for it with [`Policy::with_second_reading`].
//!
//! # Cost
//! `benches/guard.rs` in the repository reports it on its own line (`cargo bench --bench guard
//! --features pg-query`). On its 16-statement PostgreSQL corpus, in a release build on the
//! two-core development machine: `check` 25 µs per statement alone, 67 µs with the second
//! reading (2.7× per round, 2.5× to 3.2×); for a 97 kB statement at the default length limit,
//! 14 ms alone and 72 ms with it (5.1×). Most of it is `pg_query::parse` (about 22 µs per
//! statement when run alone: libpg_query's parse, its protobuf tree encoded in C and decoded
//! by prost, and the crate's own summary of the tree); reading the facts from the tree takes
//! 1 to 2 µs. libpg_query's C summary (`pg_query::summary`) would cost about a third, but it
//! gives no statement count, merges statement types, and drops locking clauses, catalog
//! names and which calls the grammar made of SQL syntax.
//!
//! # Safety
//! libpg_query keeps PostgreSQL's memory contexts and error state in thread-local storage,
//! turns PostgreSQL's errors into return values and checks its stack depth, so calls from many
//! threads at once are safe (the tests read the case tables on four threads) and a syntax error
//! is a refusal. The tree's protobuf decoder stops at 100 levels of nesting, and a deeper tree
//! is refused: 48 operators applied one to the result of the other (`a || b || …`, parentheses
//! change nothing) or 16 scalar subqueries nested in one another are refused where 47 and 15
//! pass (the guard alone allows more). The `pg_query` crate compiles libpg_query with
//! PostgreSQL's assertions in debug builds, where a failed one aborts the process; the one the
//! tests met (PostgreSQL 18's grammar asserts on valid SQL that merges limits across
//! parentheses) is refused before libpg_query reads the text ([`merged_limits`]). A panic in the crate's Rust code (it
//! indexes and casts tree nodes while summarizing the tree) is caught and becomes a refusal.
//!
//! Turn it on with the `pg-query` feature (`nao-guard/pg-query`; `pg-query` of the `nao`
//! crate). The build compiles libpg_query's C and runs bindgen, which needs libclang (Debian:
//! `libclang1-14 libclang-common-14-dev`; set `LIBCLANG_PATH` if bindgen does not find it).

use sqlparser::ast::Statement;

use crate::{Policy, RejectKind, Rejection, SqlDialect, StatementKind, TableName};

mod merged_limits;
mod syntax;
mod tree;

#[cfg(test)]
mod tests;

use tree::PostgresReading;

/// PostgreSQL cuts identifiers to `NAMEDATALEN - 1` bytes.
const MAX_IDENTIFIER_BYTES: usize = 63;

/// Whether statements of `dialect` get the second reading under `policy`.
pub(crate) fn applies(dialect: SqlDialect, policy: &Policy) -> bool {
    dialect == SqlDialect::Postgres && policy.second_reading
}

/// What the guard read in a statement it accepted.
pub(crate) struct GuardReading<'a> {
    /// The tree the guard walked.
    pub(crate) statement: &'a Statement,
    pub(crate) kind: StatementKind,
    pub(crate) tables: &'a [TableName],
    /// The functions the walk checked, as written (`count`, `pg_catalog.lower`, `"MyFn"`).
    pub(crate) functions: &'a [String],
}

/// Reads `sql` with PostgreSQL's parser and refuses it unless that reading agrees with the
/// guard's; does nothing where the second reading does not apply.
pub(crate) fn cross_check(
    sql: &str,
    dialect: SqlDialect,
    policy: &Policy,
    guard: &GuardReading<'_>,
) -> Result<(), Rejection> {
    if !applies(dialect, policy) {
        return Ok(());
    }
    let postgres = if merged_limits::merges_limits(guard.statement) {
        Err(NoReading {
            difference: "PostgreSQL merges a LIMIT, OFFSET or FETCH written after a \
                         parenthesized query into that query's own, where the guard reads it \
                         as applied to the query's result; put the outer clause on a derived \
                         table instead: SELECT * FROM (…) AS s OFFSET …",
            postgres: "nothing (the text was not given to libpg_query, which aborts on this \
                       shape when built with assertions)"
                .to_owned(),
        })
    } else {
        read(sql)
    };
    compare(guard, postgres).map_err(|kind| Rejection::new(kind, dialect))
}

/// Why PostgreSQL's parser gave no reading: what differs, and what it said.
pub(crate) struct NoReading {
    difference: &'static str,
    postgres: String,
}

/// PostgreSQL's reading of `sql`, or why there is none.
pub(crate) fn read(sql: &str) -> Result<PostgresReading, NoReading> {
    let no_tree = "pg_query gives no parse tree for it";
    // The crate's summary of the tree indexes and casts nodes with panics on shapes the
    // grammar does not make; should one happen, the statement is refused, not the host.
    let parsed =
        std::panic::catch_unwind(|| pg_query::parse(sql, pg_query::ParserOptions::DEFAULT))
            .map_err(|_| NoReading {
                difference: no_tree,
                postgres: "a panic in the pg_query crate".to_owned(),
            })?;
    match parsed {
        Ok(parsed) => PostgresReading::from_tree(&parsed.protobuf).map_err(|e| NoReading {
            difference: no_tree,
            postgres: e,
        }),
        Err(pg_query::Error::Parse(message)) => Err(NoReading {
            difference: "PostgreSQL's parser refuses it",
            postgres: format!("a syntax error: {message}"),
        }),
        // prost's message is a path through every level; the depth is what matters.
        Err(pg_query::Error::Decode(_)) => Err(NoReading {
            difference: no_tree,
            postgres: "a parse tree nested deeper than pg_query's protobuf decoder reads \
                       (100 levels)"
                .to_owned(),
        }),
        Err(other) => Err(NoReading {
            difference: no_tree,
            postgres: other.to_string(),
        }),
    }
}

/// Compares the two readings; the refusal names what differs and holds both.
pub(crate) fn compare(
    guard: &GuardReading<'_>,
    postgres: Result<PostgresReading, NoReading>,
) -> Result<(), RejectKind> {
    let disagree = |difference: String, postgres: String| RejectKind::ReadingsDisagree {
        difference,
        guard: describe_guard(guard),
        postgres,
    };
    let postgres = match postgres {
        Ok(reading) => reading,
        Err(none) => return Err(disagree(none.difference.to_owned(), none.postgres)),
    };
    match difference(guard, &postgres) {
        Some(difference) => Err(disagree(difference, describe_postgres(&postgres))),
        None => Ok(()),
    }
}

/// What PostgreSQL reads that the guard does not, if anything.
fn difference(guard: &GuardReading<'_>, postgres: &PostgresReading) -> Option<String> {
    let expected = match guard.kind {
        StatementKind::Query => "SelectStmt",
        StatementKind::Explain => "ExplainStmt",
        StatementKind::Introspection => "VariableShowStmt",
        StatementKind::Unchecked => return Some("the guard did not check it".to_owned()),
    };
    match postgres.statements.as_slice() {
        [] => return Some("PostgreSQL reads no statement".to_owned()),
        [one] if *one != expected => {
            return Some(format!(
                "PostgreSQL reads a {one} where the guard reads {}",
                kind_words(guard.kind)
            ));
        }
        [_] => {}
        many => return Some(format!("PostgreSQL reads {} statements", many.len())),
    }
    if let Some(nested) = postgres.nested.iter().find(|s| **s != "SelectStmt") {
        return Some(format!("PostgreSQL reads a {nested} inside the statement"));
    }
    if let Some(clause) = postgres.clauses.first() {
        let what = match *clause {
            "IntoClause" => "an INTO clause, which writes the result into a table",
            _ => "a locking clause (FOR UPDATE, FOR SHARE)",
        };
        return Some(format!("PostgreSQL reads {what}"));
    }
    let tables: Vec<Vec<String>> = guard.tables.iter().map(folded_table).collect();
    if let Some(relation) = postgres.relations.iter().find(|r| !tables.contains(r)) {
        return Some(format!(
            "PostgreSQL reads the relation {}, which the guard did not see",
            relation.join(".")
        ));
    }
    let functions: Vec<Vec<String>> = guard.functions.iter().map(|f| folded_written(f)).collect();
    let seen = |call: &[String]| {
        functions.iter().any(|f| match call {
            [name] => f.last() == Some(name),
            // The grammar names its own calls so (`json_object(…)` is
            // `pg_catalog.json_object`), and the guard judges a bare name as that built-in.
            [schema, name] if schema == "pg_catalog" => {
                f == call || matches!(f.as_slice(), [bare] if bare == name)
            }
            qualified => f == qualified,
        })
    };
    let mut syntax_calls = None;
    for call in &postgres.calls {
        if seen(call) {
            continue;
        }
        // The rare path: a call the walk did not look up may be syntax in sqlparser's tree.
        let syntax = syntax_calls.get_or_insert_with(|| syntax::syntax_calls(guard.statement));
        let bare = match call.as_slice() {
            [name] => Some(name),
            [schema, name] if schema == "pg_catalog" => Some(name),
            _ => None,
        };
        if !bare.is_some_and(|name| syntax.contains(&name.as_str())) {
            return Some(format!(
                "PostgreSQL calls {}, which the guard did not see",
                call.join(".")
            ));
        }
    }
    None
}

fn kind_words(kind: StatementKind) -> &'static str {
    match kind {
        StatementKind::Query => "a query",
        StatementKind::Explain => "an EXPLAIN of a query",
        StatementKind::Introspection => "an introspection statement",
        StatementKind::Unchecked => "unchecked text",
    }
}

/// The guard's reading in words: `a query reading orders, calling count, lower`.
fn describe_guard(guard: &GuardReading<'_>) -> String {
    let tables: Vec<String> = guard.tables.iter().map(ToString::to_string).collect();
    let mut words = kind_words(guard.kind).to_owned();
    push_list(&mut words, "reading", &tables);
    push_list(&mut words, "calling", guard.functions);
    words
}

/// PostgreSQL's reading in words: `1 statement, SelectStmt, reading orders, calling count`.
fn describe_postgres(postgres: &PostgresReading) -> String {
    let count = postgres.statements.len();
    let mut words = format!(
        "{count} statement{}, {}",
        if count == 1 { "" } else { "s" },
        postgres.statements.join(", ")
    );
    let nested: Vec<&str> = postgres
        .nested
        .iter()
        .copied()
        .filter(|s| *s != "SelectStmt")
        .collect();
    push_list(&mut words, "containing", &nested);
    push_list(&mut words, "with", &postgres.clauses);
    let relations: Vec<String> = postgres.relations.iter().map(|r| r.join(".")).collect();
    push_list(&mut words, "reading", &relations);
    let calls: Vec<String> = postgres.calls.iter().map(|c| c.join(".")).collect();
    push_list(&mut words, "calling", &calls);
    words
}

fn push_list(words: &mut String, verb: &str, items: &[impl AsRef<str>]) {
    if items.is_empty() {
        return;
    }
    let items: Vec<&str> = items.iter().map(AsRef::as_ref).collect();
    words.push_str(&format!(", {verb} {}", items.join(", ")));
}

/// A table name as PostgreSQL resolves it.
fn folded_table(table: &TableName) -> Vec<String> {
    table
        .parts()
        .iter()
        .map(|part| folded(&part.value, part.quote.is_some()))
        .collect()
}

/// A function name as written (`s."F"`), split into parts as PostgreSQL resolves them.
fn folded_written(written: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut part = String::new();
    // Whether the part being read was quoted, and whether its quotes are still open.
    let (mut was_quoted, mut open) = (false, false);
    let mut chars = written.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if part.is_empty() && !was_quoted => (was_quoted, open) = (true, true),
            '"' if open && chars.peek() == Some(&'"') => {
                chars.next();
                part.push('"');
            }
            '"' if open => open = false,
            '.' if !open => {
                parts.push(folded(&std::mem::take(&mut part), was_quoted));
                was_quoted = false;
            }
            _ => part.push(c),
        }
    }
    parts.push(folded(&part, was_quoted));
    parts
}

/// One identifier as PostgreSQL stores it: unquoted ASCII letters in lower case (in UTF-8,
/// PostgreSQL folds no other letter), then cut to 63 bytes on a character boundary.
fn folded(value: &str, quoted: bool) -> String {
    let mut value = if quoted {
        value.to_owned()
    } else {
        value.to_ascii_lowercase()
    };
    if value.len() > MAX_IDENTIFIER_BYTES {
        let mut end = MAX_IDENTIFIER_BYTES;
        while !value.is_char_boundary(end) {
            end -= 1;
        }
        value.truncate(end);
    }
    value
}
