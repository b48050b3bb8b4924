//! What a conformance run found: one [`CheckReport`] per [`Check`], gathered in a [`Report`].

use std::fmt;
use std::time::Duration;

use super::Check;

/// How one check ended.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The adapter fulfils the contract item.
    Passed,
    /// The engine lacks the capability (the [`Profile`](super::Profile) declares it), and the
    /// adapter's fallback behaves as the contract asks instead.
    PassedFallback {
        /// Which fallback was checked.
        fallback: String,
    },
    /// The check did not run: a fixture it reads is not loaded.
    Skipped {
        /// Why, and how to run it.
        why: String,
    },
    /// The adapter breaks the contract item.
    Failed(Failure),
}

impl Outcome {
    /// Whether the check passed, directly or through a declared fallback.
    pub fn is_pass(&self) -> bool {
        matches!(self, Outcome::Passed | Outcome::PassedFallback { .. })
    }
}

/// A broken contract item: which check, which duty of the [`Dialect`](nao_core::Dialect)
/// contract it checks, and what the adapter did instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The database's name (its `database_id`).
    pub database: String,
    /// The check that failed.
    pub check: Check,
    /// What the adapter did, against what the contract asks.
    pub why: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: conformance check `{}` failed.\n  contract: {}\n  why: {}",
            self.database,
            self.check.name(),
            self.check.contract(),
            self.why
        )
    }
}

impl std::error::Error for Failure {}

/// One check's result within a [`Report`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CheckReport {
    /// The check.
    pub check: Check,
    /// How it ended.
    pub outcome: Outcome,
    /// How long it took.
    pub elapsed: Duration,
}

/// The outcome of every check of a conformance run, in the order they ran.
///
/// `Display` writes one line per check and, for each failure, the contract item and why it
/// failed; [`assert_passed`](Self::assert_passed) panics with that text, for tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    database: String,
    checks: Vec<CheckReport>,
}

impl Report {
    pub(super) fn new(database: &str) -> Self {
        Report {
            database: database.to_owned(),
            checks: Vec::new(),
        }
    }

    pub(super) fn push(&mut self, check: Check, outcome: Outcome, elapsed: Duration) {
        self.checks.push(CheckReport {
            check,
            outcome,
            elapsed,
        });
    }

    /// The database the checks ran on.
    pub fn database(&self) -> &str {
        &self.database
    }

    /// Every check's result, in the order they ran.
    pub fn checks(&self) -> &[CheckReport] {
        &self.checks
    }

    /// The outcome of `check`, if it ran.
    pub fn outcome(&self, check: Check) -> Option<&Outcome> {
        self.checks
            .iter()
            .find(|c| c.check == check)
            .map(|c| &c.outcome)
    }

    /// The failures.
    pub fn failures(&self) -> impl Iterator<Item = &Failure> {
        self.checks.iter().filter_map(|c| match &c.outcome {
            Outcome::Failed(failure) => Some(failure),
            _ => None,
        })
    }

    /// How many checks passed, directly or through a declared fallback.
    pub fn passed(&self) -> usize {
        self.checks.iter().filter(|c| c.outcome.is_pass()).count()
    }

    /// Whether no check failed and at least one passed (a run where every check was skipped
    /// proves nothing).
    pub fn is_success(&self) -> bool {
        self.failures().next().is_none() && self.passed() > 0
    }

    /// Panics with the whole report unless it [is a success](Self::is_success): what a test
    /// calls.
    #[track_caller]
    pub fn assert_passed(&self) {
        assert!(self.is_success(), "{self}");
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let failed = self.failures().count();
        let skipped = self
            .checks
            .iter()
            .filter(|c| matches!(c.outcome, Outcome::Skipped { .. }))
            .count();
        writeln!(
            f,
            "conformance of {}: {} passed, {failed} failed, {skipped} skipped",
            self.database,
            self.passed()
        )?;
        for report in &self.checks {
            let name = report.check.name();
            let took = report.elapsed;
            match &report.outcome {
                Outcome::Passed => writeln!(f, "  ok       {name} ({took:.1?})")?,
                Outcome::PassedFallback { fallback } => {
                    writeln!(f, "  ok       {name} ({took:.1?}; fallback: {fallback})")?;
                }
                Outcome::Skipped { why } => writeln!(f, "  skipped  {name}: {why}")?,
                Outcome::Failed(failure) => {
                    writeln!(f, "  FAILED   {name} ({took:.1?})")?;
                    writeln!(f, "           contract: {}", report.check.contract())?;
                    writeln!(f, "           why: {}", failure.why)?;
                }
            }
        }
        if self.passed() == 0 {
            writeln!(f, "no check passed: load a fixture (see Fixtures)")?;
        }
        Ok(())
    }
}
