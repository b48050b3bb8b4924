//! [`conformance_tests!`](crate::conformance_tests): one `#[test]` per check.

/// Makes one `#[test]` function per conformance [`Check`](crate::conformance::Check), named
/// after it ([`Check::name`](crate::conformance::Check::name)), so that `cargo test` lists
/// each contract item and a failure names it.
///
/// - `dialect:` an expression giving a future of the adapter under test (an `async fn` call);
///   each test opens its own, in a multi-threaded tokio runtime of its own (the tests need no
///   tokio of their own).
/// - `fixtures:` the [`Fixtures`](crate::conformance::Fixtures) the adapter's engine holds;
///   a test whose fixture is not loaded passes and prints why it checked nothing (`cargo test
///   -- --nocapture` shows it).
/// - `profile:` (optional) the engine's [`Profile`](crate::conformance::Profile), portable by
///   default.
///
/// Invoke it inside a module of its own, since it defines functions named after the checks:
///
/// ```
/// # #[cfg(feature = "sqlite")]
/// mod conformance {
///     use nao_dialects::conformance::{Fixtures, Profile};
///     use nao_dialects::sqlite::SqliteDialect;
///
///     async fn open() -> SqliteDialect {
///         SqliteDialect::in_memory("fixture_db", |conn| {
///             Fixtures::conformance_statements()
///                 .iter()
///                 .try_for_each(|sql| conn.execute_batch(sql))
///         })
///         .expect("the fixture loads")
///     }
///
///     nao_dialects::conformance_tests! {
///         dialect: open(),
///         fixtures: Fixtures::conformance_table(),
///         profile: Profile::portable(),
///     }
/// }
/// ```
#[macro_export]
macro_rules! conformance_tests {
    (dialect: $dialect:expr, fixtures: $fixtures:expr $(,)?) => {
        $crate::conformance_tests! {
            dialect: $dialect,
            fixtures: $fixtures,
            profile: $crate::conformance::Profile::portable(),
        }
    };
    (dialect: $dialect:expr, fixtures: $fixtures:expr, profile: $profile:expr $(,)?) => {
        $crate::conformance_tests! {
            @tests ($dialect) ($fixtures) ($profile)
            reads_the_fixture => ReadsTheFixture,
            row_cap_marks_truncation => RowCapMarksTruncation,
            empty_result_keeps_its_schema => EmptyResultKeepsItsSchema,
            timeout_stops_a_slow_query => TimeoutStopsASlowQuery,
            cancellation_stops_a_slow_query => CancellationStopsASlowQuery,
            writes_are_refused => WritesAreRefused,
            introspection_lists_and_describes => IntrospectionListsAndDescribes,
            errors_are_classified => ErrorsAreClassified,
            dropping_the_stream_stops_the_query => DroppingTheStreamStopsTheQuery,
            demo_shop_round_trips => DemoShopRoundTrips,
            demo_shop_is_described => DemoShopIsDescribed,
        }
    };
    (@tests ($dialect:expr) ($fixtures:expr) ($profile:expr) $($name:ident => $check:ident,)+) => {
        $(
            #[test]
            fn $name() {
                $crate::conformance::__private::run_one(
                    $crate::conformance::Check::$check,
                    || $dialect,
                    $fixtures,
                    $profile,
                );
            }
        )+
    };
}
