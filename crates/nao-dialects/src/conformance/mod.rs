//! The conformance suite: the checks every adapter must pass against its real engine, for the
//! adapters of this crate and for adapters written anywhere else.
//!
//! # Running it on your adapter
//! From your adapter crate's tests (with `nao-dialects = { features = ["conformance"] }` in
//! `[dev-dependencies]`):
//! 1. load a **fixture** into your engine through a writable path of your own (a second
//!    connection, files the engine serves, batches it registers): the conformance table
//!    ([`Fixtures::conformance_statements`] as SQL, [`Fixtures::conformance_batch`] as Arrow),
//!    and, for the type round-trip and catalogue comment checks, the demo shop
//!    ([`Fixtures::demo_tables`]);
//! 2. open your adapter **read-only** on the same data;
//! 3. describe the engine with a [`Profile`]: its SQL for generated rows and for a slow
//!    query, and the **capabilities it lacks** (no read-only mode, no cancellation, no `NOT
//!    NULL` in its catalogue, no comments, decimals as text or floats), so that the checks
//!    verify the fallback instead;
//! 4. call [`run_with`] (or [`run`], for a [portable](Profile::portable) engine) and assert on
//!    the [`Report`], or let [`conformance_tests!`](crate::conformance_tests) make one
//!    `#[test]` per [`Check`].
//!
//! A failure names the check, the contract item it holds the adapter to
//! ([`Check::contract`]) and what the adapter did instead:
//!
//! ```text
//! conformance of shop: 8 passed, 1 failed, 2 skipped
//!   ok       reads_the_fixture (4.1ms)
//!   FAILED   row_cap_marks_truncation (2.0ms)
//!            contract: the stream stops one row past ExecOptions::max_rows, so a cut result is marked Truncation::RowCap and a result that fits exactly is not
//!            why: a result cut at a cap of 10 rows must be marked RowCap { cap: 10 }, got None (the adapter must read one row past the cap to know)
//! ```
//!
//! ```
//! # #[cfg(feature = "sqlite")] {
//! use nao_dialects::conformance::{self, Check, Fixtures, Outcome};
//! use nao_dialects::sqlite::SqliteDialect;
//!
//! # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
//! // 1. and 2.: SQLite loads the fixture through the connection it then seals read-only.
//! let db = SqliteDialect::in_memory("fixture_db", |conn| {
//!     Fixtures::conformance_statements()
//!         .iter()
//!         .try_for_each(|sql| conn.execute_batch(sql))
//! })?;
//! // 3. and 4.: SQLite is a portable engine.
//! let report = conformance::run(&db, &Fixtures::conformance_table()).await;
//! report.assert_passed();
//! assert_eq!(report.outcome(Check::WritesAreRefused), Some(&Outcome::Passed));
//! // The demo shop is not loaded: its checks are skipped, not failed.
//! assert!(matches!(report.outcome(Check::DemoShopRoundTrips), Some(Outcome::Skipped { .. })));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! # }
//! ```
//!
//! The [guide](crate::guide) walks through a whole adapter and its conformance run; the
//! repository's `examples/datafusion-adapter` is one, written outside this crate.
//!
//! Engines that serve files rather than take writes load the same table another way: the
//! `demo_parquet` example writes it as Parquet for Sail, Spark and roapi. The individual
//! checks are also functions here ([`reads_the_fixture`], …) that panic with the failure, for
//! tests that run some of them.

use nao_core::guard::ReadOnlySql;
use nao_core::{Dialect, DialectExt, ExecOptions, TableSchema};

mod check;
mod core_checks;
mod demo_checks;
mod fixtures;
mod macros;
mod profile;
mod report;

pub use check::Check;
pub use fixtures::Fixtures;
pub use profile::{DecimalForm, Profile};
pub use report::{CheckReport, Failure, Outcome, Report};

/// Runs every [`Check`] on `dialect`, an engine of the [portable](Profile::portable) profile
/// holding `fixtures`; the checks of a fixture it does not hold are skipped.
pub async fn run(dialect: &dyn Dialect, fixtures: &Fixtures) -> Report {
    run_with(dialect, fixtures, &Profile::portable()).await
}

/// Runs every [`Check`] on `dialect`, an engine of `profile` holding `fixtures`, one after the
/// other, and reports each; a misbehaving adapter makes failures, never a panic. Each check
/// bounds its waits (a minute), so a hung adapter fails rather than hangs.
pub async fn run_with(dialect: &dyn Dialect, fixtures: &Fixtures, profile: &Profile) -> Report {
    let mut report = Report::new(dialect.name());
    for &check in Check::ALL {
        let (outcome, elapsed) = check.run_timed(dialect, fixtures, profile).await;
        report.push(check, outcome, elapsed);
    }
    report
}

/// What [`conformance_tests!`](crate::conformance_tests) expands to; not a stable API.
#[doc(hidden)]
pub mod __private {
    use std::future::Future;

    use nao_core::Dialect;

    use super::{Check, Fixtures, Outcome, Profile};

    /// Runs one check in a runtime of its own, after making the adapter with `open`, and
    /// panics with the failure; a check whose fixture is not loaded says so on stderr.
    pub fn run_one<D, F>(
        check: Check,
        open: impl FnOnce() -> F,
        fixtures: Fixtures,
        profile: Profile,
    ) where
        D: Dialect,
        F: Future<Output = D>,
    {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap_or_else(|e| {
                panic!("the conformance test could not start a tokio runtime: {e}")
            });
        runtime.block_on(async {
            let dialect = open().await;
            match check.run(&dialect, &fixtures, &profile).await {
                Outcome::Failed(failure) => panic!("{failure}"),
                // A test cannot mark itself ignored at run time: it says why it passes.
                Outcome::Skipped { why } => {
                    eprintln!("{}: {} skipped: {why}", dialect.name(), check.name());
                }
                _ => {}
            }
        });
    }
}

/// The fixture table's name.
pub const FIXTURE_TABLE: &str = "nao_conformance";

/// Creates and fills the fixture table (portable SQL; run through a writable connection).
pub const FIXTURE_STATEMENTS: &[&str] = &[
    "CREATE TABLE nao_conformance (id INTEGER NOT NULL, name VARCHAR(40), amount DECIMAL(12, 2))",
    "INSERT INTO nao_conformance (id, name, amount) VALUES (1, 'alpha', 10.50), (2, 'beta', NULL), (3, NULL, -0.25)",
];

/// A described table's columns as `(name, declared type, nullable)`, for comparing with what a
/// test created.
pub fn declared_columns(schema: &TableSchema) -> Vec<(&str, &str, bool)> {
    schema
        .columns
        .iter()
        .map(|c| (c.name.as_str(), c.engine_type.as_str(), c.nullable))
        .collect()
}

/// A query yielding `n` rows (1..=n) in any engine with recursive CTEs.
pub fn series_sql(n: u64) -> String {
    format!(
        "WITH RECURSIVE series(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM series WHERE n < {n}) \
         SELECT n FROM series"
    )
}

/// A query yielding a million rows that engines can stream (a cross join of two 1 000-row
/// series; a million-step recursive CTE is computed whole before the first row by some
/// engines).
pub fn million_rows_sql() -> String {
    "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 1000) \
     SELECT a.n * 1000 + b.n AS n FROM s AS a, s AS b"
        .to_owned()
}

/// A query that runs for a long time and returns nothing until it is done: counting to
/// ten billion through a recursive CTE.
pub fn slow_sql() -> String {
    "WITH RECURSIVE series(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM series WHERE n < 10000000000) \
     SELECT count(*) FROM series"
        .to_owned()
}

/// Runs every check of the conformance table on an engine of the
/// [portable](Profile::portable) profile, and panics with the [`Report`] if one fails (what
/// the shipped adapters' tests call; [`run`] returns the report instead).
pub async fn run_all(dialect: &dyn Dialect) {
    run_all_with(dialect, &Profile::portable()).await;
}

/// Runs every check of the conformance table on an engine of `profile`, and panics with the
/// [`Report`] if one fails.
pub async fn run_all_with(dialect: &dyn Dialect, profile: &Profile) {
    run_with(dialect, &Fixtures::conformance_table(), profile)
        .await
        .assert_passed();
}

/// Runs `check` on the conformance table and panics with its [`Failure`] if it fails.
async fn expect_pass(check: Check, dialect: &dyn Dialect, fixtures: &Fixtures, profile: &Profile) {
    if let Outcome::Failed(failure) = check.run(dialect, fixtures, profile).await {
        panic!("{failure}");
    }
}

/// [`Check::ReadsTheFixture`], panicking with the failure.
pub async fn reads_the_fixture(dialect: &dyn Dialect, profile: &Profile) {
    expect_pass(
        Check::ReadsTheFixture,
        dialect,
        &Fixtures::conformance_table(),
        profile,
    )
    .await;
}

/// [`Check::RowCapMarksTruncation`], panicking with the failure.
pub async fn row_cap_marks_truncation(dialect: &dyn Dialect, profile: &Profile) {
    expect_pass(
        Check::RowCapMarksTruncation,
        dialect,
        &Fixtures::conformance_table(),
        profile,
    )
    .await;
}

/// [`Check::EmptyResultKeepsItsSchema`], panicking with the failure.
pub async fn empty_result_keeps_its_schema(dialect: &dyn Dialect) {
    let profile = Profile::portable();
    expect_pass(
        Check::EmptyResultKeepsItsSchema,
        dialect,
        &Fixtures::conformance_table(),
        &profile,
    )
    .await;
}

/// [`Check::TimeoutStopsASlowQuery`], panicking with the failure.
pub async fn timeout_stops_a_slow_query(dialect: &dyn Dialect, profile: &Profile) {
    expect_pass(
        Check::TimeoutStopsASlowQuery,
        dialect,
        &Fixtures::conformance_table(),
        profile,
    )
    .await;
}

/// [`Check::CancellationStopsASlowQuery`], panicking with the failure.
pub async fn cancellation_stops_a_slow_query(dialect: &dyn Dialect, profile: &Profile) {
    let fixtures = Fixtures::conformance_table();
    expect_pass(
        Check::CancellationStopsASlowQuery,
        dialect,
        &fixtures,
        profile,
    )
    .await;
}

/// [`Check::WritesAreRefused`], panicking with the failure.
pub async fn writes_are_refused(dialect: &dyn Dialect, profile: &Profile) {
    expect_pass(
        Check::WritesAreRefused,
        dialect,
        &Fixtures::conformance_table(),
        profile,
    )
    .await;
}

/// [`Check::IntrospectionListsAndDescribes`], panicking with the failure.
pub async fn introspection_lists_and_describes(dialect: &dyn Dialect, profile: &Profile) {
    let fixtures = Fixtures::conformance_table();
    expect_pass(
        Check::IntrospectionListsAndDescribes,
        dialect,
        &fixtures,
        profile,
    )
    .await;
}

/// [`Check::ErrorsAreClassified`], panicking with the failure.
pub async fn errors_are_classified(dialect: &dyn Dialect) {
    let profile = Profile::portable();
    expect_pass(
        Check::ErrorsAreClassified,
        dialect,
        &Fixtures::conformance_table(),
        &profile,
    )
    .await;
}

/// [`Check::DroppingTheStreamStopsTheQuery`], panicking with the failure.
pub async fn dropping_the_stream_stops_the_query(dialect: &dyn Dialect, profile: &Profile) {
    let fixtures = Fixtures::conformance_table();
    expect_pass(
        Check::DroppingTheStreamStopsTheQuery,
        dialect,
        &fixtures,
        profile,
    )
    .await;
}

/// [`Check::DemoShopIsDescribed`] on an adapter that loaded the demo shop at
/// [`DemoScale::Small`](crate::demo::DemoScale::Small) with its comments, panicking with the
/// failure.
pub async fn demo_is_described(dialect: &dyn Dialect) {
    let fixtures = Fixtures::demo_shop_only(crate::demo::DemoScale::Small);
    expect_pass(
        Check::DemoShopIsDescribed,
        dialect,
        &fixtures,
        &Profile::portable(),
    )
    .await;
}

/// Each `(sql, kind, code)`: the statement, run through the guard's escape hatch (so the
/// engine, not the guard, judges it), fails with that [`DialectError::kind_code`](nao_core::DialectError::kind_code) and that
/// engine code (SQLSTATE, MySQL error number, …).
pub async fn errors_carry_kind_and_code(dialect: &dyn Dialect, cases: &[(&str, &str, &str)]) {
    for &(sql, kind, code) in cases {
        let statement = ReadOnlySql::new_unchecked_allowing_writes(sql, dialect.sql_dialect());
        let Err(error) = dialect.query(&statement, &ExecOptions::default()).await else {
            panic!("{}: {sql} should fail with {kind} {code}", dialect.name());
        };
        assert_eq!(
            (error.kind_code(), error.code()),
            (kind, Some(code)),
            "{}: {sql}: {error}",
            dialect.name()
        );
    }
}
