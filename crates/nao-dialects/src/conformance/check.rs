//! [`Check`]: each item of the [`Dialect`](nao_core::Dialect) contract the suite checks, with its
//! name, what it asks of an adapter, and the fixture it reads.

use std::time::Instant;

use nao_core::Dialect;

use super::report::{Failure, Outcome};
use super::{Fixtures, Profile, core_checks, demo_checks};

/// One item of the [`Dialect`](nao_core::Dialect) contract, checked against a real engine.
///
/// [`Check::ALL`] lists them in the order [`run`](super::run) runs them; the
/// [`conformance_tests!`](crate::conformance_tests) macro makes one test of each, named by
/// [`name`](Self::name).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Check {
    /// The conformance table reads back with its row count, NULLs and exact values.
    ReadsTheFixture,
    /// The row cap keeps exactly the cap and marks the result as cut.
    RowCapMarksTruncation,
    /// A result without rows keeps its columns.
    EmptyResultKeepsItsSchema,
    /// A slow statement stops at its time limit with a timeout error.
    TimeoutStopsASlowQuery,
    /// Cancelling the caller's token stops a statement with a cancellation error.
    CancellationStopsASlowQuery,
    /// Writes are refused (by the engine, or by the guard where the engine refuses none).
    WritesAreRefused,
    /// The catalogue lists, filters and describes the tables.
    IntrospectionListsAndDescribes,
    /// Engine errors map to their [`DialectError`](nao_core::DialectError) kinds.
    ErrorsAreClassified,
    /// A dropped stream frees the adapter for the next statement.
    DroppingTheStreamStopsTheQuery,
    /// Every demo shop table reads back whole: row counts, exact types, every value.
    DemoShopRoundTrips,
    /// The catalogue gives the demo shop's table and column comments.
    DemoShopIsDescribed,
}

impl Check {
    /// Every check, in the order a run takes them.
    pub const ALL: &'static [Check] = &[
        Check::ReadsTheFixture,
        Check::RowCapMarksTruncation,
        Check::EmptyResultKeepsItsSchema,
        Check::TimeoutStopsASlowQuery,
        Check::CancellationStopsASlowQuery,
        Check::WritesAreRefused,
        Check::IntrospectionListsAndDescribes,
        Check::ErrorsAreClassified,
        Check::DroppingTheStreamStopsTheQuery,
        Check::DemoShopRoundTrips,
        Check::DemoShopIsDescribed,
    ];

    /// The check's name (snake_case; the test's name under
    /// [`conformance_tests!`](crate::conformance_tests)).
    pub fn name(self) -> &'static str {
        match self {
            Check::ReadsTheFixture => "reads_the_fixture",
            Check::RowCapMarksTruncation => "row_cap_marks_truncation",
            Check::EmptyResultKeepsItsSchema => "empty_result_keeps_its_schema",
            Check::TimeoutStopsASlowQuery => "timeout_stops_a_slow_query",
            Check::CancellationStopsASlowQuery => "cancellation_stops_a_slow_query",
            Check::WritesAreRefused => "writes_are_refused",
            Check::IntrospectionListsAndDescribes => "introspection_lists_and_describes",
            Check::ErrorsAreClassified => "errors_are_classified",
            Check::DroppingTheStreamStopsTheQuery => "dropping_the_stream_stops_the_query",
            Check::DemoShopRoundTrips => "demo_shop_round_trips",
            Check::DemoShopIsDescribed => "demo_shop_is_described",
        }
    }

    /// The contract item the check holds an adapter to, in one sentence (what a failure
    /// message quotes).
    pub fn contract(self) -> &'static str {
        match self {
            Check::ReadsTheFixture => {
                "execute returns every row with its NULLs and exact values; DECIMAL(p, s) comes \
                 back as Decimal128(p, s) (or the form the profile declares), never rounded"
            }
            Check::RowCapMarksTruncation => {
                "the stream stops one row past ExecOptions::max_rows, so a cut result is marked \
                 Truncation::RowCap and a result that fits exactly is not"
            }
            Check::EmptyResultKeepsItsSchema => {
                "a statement without rows still reports its columns (BatchStream::schema)"
            }
            Check::TimeoutStopsASlowQuery => {
                "a statement running past ExecOptions::timeout fails with DialectError::Timeout, \
                 soon after the limit"
            }
            Check::CancellationStopsASlowQuery => {
                "cancelling ExecOptions::cancel stops the statement with DialectError::Cancelled"
            }
            Check::WritesAreRefused => {
                "the engine itself refuses writes (gate 2: a read-only session, connection or \
                 statement check), or, for an engine declared without one, the guard does; the \
                 data is never changed"
            }
            Check::IntrospectionListsAndDescribes => {
                "list_tables lists and filters the tables; describe_table gives the columns in \
                 order with their nullability, and DialectError::UnknownObject for a missing table"
            }
            Check::ErrorsAreClassified => {
                "engine errors map to DialectError kinds: unknown table or column to \
                 UnknownObject, unparsable SQL to Syntax"
            }
            Check::DroppingTheStreamStopsTheQuery => {
                "dropping a BatchStream stops the statement and frees the adapter for the next one"
            }
            Check::DemoShopRoundTrips => {
                "every value reads back exactly: integers, text (including pipes, newlines, \
                 quotes, emoji), exact decimals, dates, timestamps and booleans, in Arrow types \
                 that hold them without loss"
            }
            Check::DemoShopIsDescribed => {
                "list_tables and describe_table give the comments the catalogue holds on tables \
                 and columns, and invent none"
            }
        }
    }

    /// The check of this name, if there is one.
    pub fn from_name(name: &str) -> Option<Check> {
        Check::ALL.iter().copied().find(|c| c.name() == name)
    }

    /// Whether the check reads the conformance table (else the demo shop).
    pub fn reads_conformance_table(self) -> bool {
        !matches!(self, Check::DemoShopRoundTrips | Check::DemoShopIsDescribed)
    }

    /// Runs this check on `dialect`, whose engine holds `fixtures` and behaves as `profile`
    /// says. Never panics on a misbehaving adapter: what it did comes back as
    /// [`Outcome::Failed`].
    pub async fn run(
        self,
        dialect: &dyn Dialect,
        fixtures: &Fixtures,
        profile: &Profile,
    ) -> Outcome {
        self.run_timed(dialect, fixtures, profile).await.0
    }

    pub(super) async fn run_timed(
        self,
        dialect: &dyn Dialect,
        fixtures: &Fixtures,
        profile: &Profile,
    ) -> (Outcome, std::time::Duration) {
        let started = Instant::now();
        let outcome = if self.reads_conformance_table() {
            if !fixtures.has_conformance_table() {
                let why = "the conformance table is not loaded (Fixtures::conformance_table)";
                return (Outcome::Skipped { why: why.into() }, started.elapsed());
            }
            core_checks::run(self, dialect, profile).await
        } else {
            let Some(scale) = fixtures.demo_shop() else {
                let why = "the demo shop is not loaded (Fixtures::and_demo_shop)";
                return (Outcome::Skipped { why: why.into() }, started.elapsed());
            };
            demo_checks::run(self, dialect, profile, scale).await
        };
        let outcome = match outcome {
            Ok(Pass::Plain) => Outcome::Passed,
            Ok(Pass::Fallback(fallback)) => Outcome::PassedFallback { fallback },
            Err(why) => Outcome::Failed(Failure {
                database: dialect.name().to_owned(),
                check: self,
                why,
            }),
        };
        (outcome, started.elapsed())
    }
}

/// How a check passed.
#[derive(Debug)]
pub(super) enum Pass {
    /// As the contract asks.
    Plain,
    /// Through the declared fallback, described.
    Fallback(String),
}
