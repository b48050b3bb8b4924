//! The conformance suite as an adapter author outside this crate uses it: `run` and its report,
//! the `conformance_tests!` macro, declared capabilities and their fallbacks, and failure
//! messages that name the contract item, on SQLite and on SQLite wrapped so that it breaks
//! one contract item.
#![cfg(feature = "sqlite")]

use async_trait::async_trait;
use nao_dialects::conformance::{self, Check, Fixtures, Outcome, Profile};
use nao_dialects::core::guard::{ReadOnlySql, SqlDialect};
use nao_dialects::core::{
    BatchStream, Dialect, DialectError, ExecOptions, TableFilter, TableInfo, TableRef, TableSchema,
};
use nao_dialects::demo::DemoScale;
use nao_dialects::sqlite::SqliteDialect;

/// SQLite holding the conformance table.
fn fixture_db(name: &str) -> SqliteDialect {
    SqliteDialect::in_memory(name, |conn| {
        Fixtures::conformance_statements()
            .iter()
            .try_for_each(|sql| conn.execute_batch(sql))
    })
    .unwrap_or_else(|e| panic!("loading the fixture: {e}"))
}

/// One test per check on SQLite holding both fixtures: the conformance table, and the demo
/// shop loaded as plain batches, without its comments (declared, so the description check
/// verifies that the adapter invents none).
mod sqlite {
    use nao_dialects::conformance::{Fixtures, Profile};
    use nao_dialects::demo::DemoScale;
    use nao_dialects::sqlite::{SqliteDialect, load_batches};

    async fn open() -> SqliteDialect {
        let demo = Fixtures::demo_tables(DemoScale::Small)
            .unwrap_or_else(|e| panic!("generating the demo shop: {e}"));
        SqliteDialect::in_memory("sqlite_fixtures", |conn| {
            for sql in Fixtures::conformance_statements() {
                conn.execute_batch(sql)?;
            }
            demo.iter()
                .try_for_each(|table| load_batches(conn, table.name, &table.batches))
        })
        .unwrap_or_else(|e| panic!("loading the fixtures: {e}"))
    }

    nao_dialects::conformance_tests! {
        dialect: open(),
        fixtures: Fixtures::conformance_table().and_demo_shop(DemoScale::Small),
        profile: Profile::portable().without_comments(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_report_lists_every_check_and_skips_fixtures_not_loaded() {
    let db = fixture_db("report_db");
    let report = conformance::run(&db, &Fixtures::conformance_table()).await;
    report.assert_passed();
    assert_eq!(report.database(), "report_db");
    assert_eq!(report.checks().len(), Check::ALL.len());
    assert_eq!(report.passed(), Check::ALL.len() - 2, "{report}");
    for check in [Check::DemoShopRoundTrips, Check::DemoShopIsDescribed] {
        assert!(
            matches!(report.outcome(check), Some(Outcome::Skipped { why }) if why.contains("and_demo_shop")),
            "{report}"
        );
    }
    let text = report.to_string();
    assert!(
        text.starts_with("conformance of report_db: 9 passed, 0 failed, 2 skipped\n"),
        "{text}"
    );
    assert!(text.contains("  ok       reads_the_fixture ("), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declared_capabilities_check_their_fallbacks() {
    let db = fixture_db("fallback_db");
    let profile = Profile::portable()
        .without_engine_write_refusal()
        .without_cancellation()
        .without_not_null();
    let report = conformance::run_with(&db, &Fixtures::conformance_table(), &profile).await;
    report.assert_passed();
    for check in [
        Check::WritesAreRefused,
        Check::CancellationStopsASlowQuery,
        Check::IntrospectionListsAndDescribes,
    ] {
        assert!(
            matches!(report.outcome(check), Some(Outcome::PassedFallback { .. })),
            "{check:?}: {report}"
        );
    }
    assert_eq!(
        report.outcome(Check::ReadsTheFixture),
        Some(&Outcome::Passed)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_catalogue_declared_without_comments_must_invent_none() {
    // SQLite's demo shop has comments: declaring it without them makes the fallback check
    // see comments it should not.
    let shop = SqliteDialect::demo("commented", DemoScale::Small).unwrap_or_else(|e| panic!("{e}"));
    let fixtures = Fixtures::demo_shop_only(DemoScale::Small);
    let outcome = Check::DemoShopIsDescribed
        .run(&shop, &fixtures, &Profile::portable().without_comments())
        .await;
    let Outcome::Failed(failure) = outcome else {
        panic!("comments where none are declared must fail, got {outcome:?}");
    };
    assert!(
        failure
            .why
            .starts_with("list_tables gives customers the comment Some(")
            && failure.why.ends_with("expected None"),
        "{failure}"
    );
    let with = Check::DemoShopIsDescribed
        .run(&shop, &fixtures, &Profile::portable())
        .await;
    assert_eq!(with, Outcome::Passed);
}

/// SQLite whose errors all come back as [`DialectError::Engine`]: it breaks the error mapping
/// and nothing else.
#[derive(Debug)]
struct Unclassified(SqliteDialect);

#[async_trait]
impl Dialect for Unclassified {
    fn name(&self) -> &str {
        self.0.name()
    }

    fn sql_dialect(&self) -> SqlDialect {
        self.0.sql_dialect()
    }

    async fn execute(
        &self,
        sql: &ReadOnlySql,
        options: &ExecOptions,
    ) -> Result<BatchStream, DialectError> {
        self.0.execute(sql, options).await.map_err(|e| match e {
            e @ (DialectError::Timeout { .. } | DialectError::Cancelled { .. }) => e,
            other => DialectError::Engine {
                database: self.name().to_owned(),
                message: other.to_string(),
                code: None,
                source: None,
            },
        })
    }

    async fn list_tables(&self, filter: &TableFilter) -> Result<Vec<TableInfo>, DialectError> {
        self.0.list_tables(filter).await
    }

    async fn describe_table(&self, table: &TableRef) -> Result<TableSchema, DialectError> {
        self.0.describe_table(table).await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_contract_item_fails_alone_and_says_why() {
    let db = Unclassified(fixture_db("unclassified"));
    let report = conformance::run(&db, &Fixtures::conformance_table()).await;
    assert!(!report.is_success());
    let failures: Vec<_> = report.failures().collect();
    assert_eq!(failures.len(), 1, "{report}");
    let failure = failures[0];
    assert_eq!(failure.check, Check::ErrorsAreClassified);
    assert_eq!(failure.database, "unclassified");
    assert!(
        failure.why.starts_with(
            "a missing table must fail with DialectError::UnknownObject, got Err(Engine {"
        ),
        "{failure}"
    );
    let text = failure.to_string();
    assert!(
        text.starts_with(
            "unclassified: conformance check `errors_are_classified` failed.\n  contract: engine \
             errors map to DialectError kinds"
        ),
        "{text}"
    );
    let report_text = report.to_string();
    assert!(
        report_text.contains("  FAILED   errors_are_classified (")
            && report_text.contains("           contract: engine errors map to DialectError kinds"),
        "{report_text}"
    );
    let panic = std::panic::AssertUnwindSafe(async { report.assert_passed() });
    let caught = futures_util::FutureExt::catch_unwind(panic).await;
    assert!(caught.is_err(), "assert_passed must panic on a failure");
}

#[test]
fn checks_have_unique_names_and_contracts() {
    let mut names: Vec<&str> = Check::ALL.iter().map(|c| c.name()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), Check::ALL.len());
    for &check in Check::ALL {
        assert_eq!(Check::from_name(check.name()), Some(check));
        assert!(check.contract().len() > 40, "{check:?}");
    }
    assert_eq!(Check::from_name("no_such_check"), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_round_trip_names_a_column_read_in_the_wrong_type() {
    // SQLite reads the demo shop's money as Decimal128; a profile that expects floats sees
    // the first money column in a type it did not declare.
    let shop = SqliteDialect::demo("typed", DemoScale::Small).unwrap_or_else(|e| panic!("{e}"));
    let profile = Profile::portable().with_decimal_form(conformance::DecimalForm::Float);
    let outcome = Check::DemoShopRoundTrips
        .run(&shop, &Fixtures::demo_shop_only(DemoScale::Small), &profile)
        .await;
    let Outcome::Failed(failure) = outcome else {
        panic!("a decimal where a float is declared must fail, got {outcome:?}");
    };
    assert_eq!(
        failure.why,
        "products.price: a column of Decimal128(10, 2) came back as Decimal128(10, 2), which \
         does not hold its values exactly (the profile declares decimals as Float)"
    );
}
