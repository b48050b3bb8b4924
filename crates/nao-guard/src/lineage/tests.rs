//! Masked-column lineage: what passes (and which outputs are masked) and what is refused.

use crate::{MaskRule, OutputColumn, Policy, RejectKind, SqlDialect, check};

fn policy() -> Policy {
    Policy::default()
        .mask_column("customers.email", MaskRule::Hash)
        .mask_column("*.ssn", MaskRule::Partial { keep_last: 4 })
}

/// The masked outputs of `sql` as (column, rule, source).
fn masked(sql: &str, dialect: SqlDialect) -> Vec<(OutputColumn, MaskRule, String)> {
    let checked =
        check(sql, dialect, &policy()).unwrap_or_else(|e| panic!("{sql} should pass: {e}"));
    checked
        .masked_outputs()
        .iter()
        .map(|m| (m.column().clone(), m.rule(), m.source().to_owned()))
        .collect()
}

fn refused(sql: &str, dialect: SqlDialect) -> String {
    match check(sql, dialect, &policy()) {
        Ok(_) => panic!("{sql} should be refused"),
        Err(e) => {
            assert!(
                matches!(e.kind(), RejectKind::MaskedColumnUse { .. }),
                "{sql}: refused for another reason: {e}"
            );
            e.to_string()
        }
    }
}

fn start(n: usize) -> OutputColumn {
    OutputColumn::FromStart(n)
}

fn named(name: &str, after_first: usize, before_last: usize) -> OutputColumn {
    OutputColumn::Named {
        name: name.into(),
        after_first,
        before_last,
    }
}

const HASH: MaskRule = MaskRule::Hash;

#[test]
fn direct_selection_is_masked_by_position() {
    let pg = SqlDialect::Postgres;
    assert_eq!(
        masked("SELECT id, email FROM customers", pg),
        [(start(1), HASH, "customers.email".into())]
    );
    assert_eq!(
        masked("SELECT c.email AS e, c.id FROM customers c", pg),
        [(start(0), HASH, "customers.email".into())]
    );
    assert_eq!(masked("SELECT id, name FROM customers", pg), []);
    assert_eq!(masked("SELECT email FROM orders", pg), []);
}

#[test]
fn masks_follow_subqueries_ctes_and_set_operations() {
    let pg = SqlDialect::Postgres;
    let email = |n| vec![(start(n), HASH, "customers.email".to_owned())];
    assert_eq!(
        masked("SELECT s.e FROM (SELECT email AS e FROM customers) s", pg),
        email(0)
    );
    assert_eq!(
        masked(
            "WITH c AS (SELECT id, email FROM customers) SELECT email, id FROM c",
            pg
        ),
        email(0)
    );
    assert_eq!(
        masked(
            "WITH c(a, b) AS (SELECT id, email FROM customers) SELECT a, b FROM c",
            pg
        ),
        email(1)
    );
    assert_eq!(
        masked(
            "SELECT name FROM products UNION ALL SELECT email FROM customers",
            pg
        ),
        email(0)
    );
    assert_eq!(
        masked(
            "SELECT x FROM (SELECT * FROM (SELECT email AS x FROM customers) a) b",
            pg
        ),
        email(0)
    );
}

#[test]
fn stars_mask_by_name_between_the_listed_columns() {
    let pg = SqlDialect::Postgres;
    assert_eq!(
        masked("SELECT * FROM customers", pg),
        [
            (named("email", 0, 0), HASH, "customers.email".into()),
            (
                named("ssn", 0, 0),
                MaskRule::Partial { keep_last: 4 },
                "customers.ssn".into()
            )
        ]
    );
    assert_eq!(
        masked(
            "SELECT 1 AS one, c.email, c.*, 2 AS two FROM customers c",
            pg
        )[..2],
        [
            (start(1), HASH, "customers.email".into()),
            (named("email", 2, 1), HASH, "customers.email".into())
        ]
    );
    let all = masked("SELECT * FROM customers c JOIN people p ON p.id = c.id", pg);
    assert_eq!(all.len(), 3, "{all:?}"); // email, customers.ssn, people.ssn
    // `*.ssn` masks an `ssn` in every table; customers' email is not in `p.*`.
    assert_eq!(
        masked(
            "SELECT p.* FROM customers c JOIN products p ON p.id = c.id",
            pg
        ),
        [(
            named("ssn", 0, 0),
            MaskRule::Partial { keep_last: 4 },
            "products.ssn".into()
        )]
    );
    assert_eq!(
        masked(
            "SELECT * FROM (SELECT email AS contact FROM customers) s",
            pg
        ),
        [(named("contact", 0, 0), HASH, "customers.email".into())]
    );
    let renamed = masked(
        "SELECT * RENAME (email AS contact) FROM customers",
        SqlDialect::Snowflake,
    );
    assert!(
        renamed.iter().any(|(c, ..)| *c == named("contact", 0, 0)),
        "{renamed:?}"
    );
}

#[test]
fn opaque_uses_pass() {
    let pg = SqlDialect::Postgres;
    for sql in [
        "SELECT count(email), count(DISTINCT email) FROM customers",
        "SELECT email, count(*) FROM customers GROUP BY email",
        "SELECT id FROM customers WHERE email = 'a@b.c' OR email IS NULL",
        "SELECT id FROM customers WHERE email IN ('a@b.c', 'd@e.f')",
        "SELECT o.id FROM orders o JOIN customers c ON c.email = o.email",
        "SELECT o.id FROM orders o JOIN customers c USING (email)",
        "SELECT id FROM customers WHERE email IN (SELECT email FROM customers WHERE id = 1)",
        "SELECT id FROM customers c WHERE EXISTS (SELECT email FROM customers d WHERE d.email = c.email)",
        "SELECT row_number() OVER (PARTITION BY email ORDER BY id) FROM customers",
        "SELECT CASE email WHEN 'a' THEN 1 ELSE 0 END FROM customers",
        "SELECT DISTINCT ON (email) id FROM customers ORDER BY email IS NULL, id",
        "SELECT id FROM customers ORDER BY id",
    ] {
        check(sql, pg, &policy()).unwrap_or_else(|e| panic!("{sql} should pass: {e}"));
    }
}

#[test]
fn value_revealing_uses_are_refused_with_the_reason() {
    let pg = SqlDialect::Postgres;
    let message = refused("SELECT lower(email) FROM customers", pg);
    assert!(message.contains("customers.email"), "{message}");
    assert!(message.contains("lower()"), "{message}");
    for sql in [
        "SELECT email || '' FROM customers",
        "SELECT substr(email, 1, 1) FROM customers",
        "SELECT CAST(email AS TEXT) FROM customers",
        "SELECT id FROM customers WHERE email LIKE 'a%'",
        "SELECT id FROM customers WHERE email > 'm'",
        "SELECT id FROM customers WHERE length(email) = 10",
        "SELECT id FROM customers ORDER BY email",
        "SELECT email FROM customers ORDER BY 1",
        "SELECT email AS e FROM customers ORDER BY e",
        "SELECT max(email) FROM customers",
        "SELECT string_agg(email, ',') FROM customers",
        "SELECT row_number() OVER (ORDER BY email) FROM customers",
        "SELECT (SELECT email FROM customers LIMIT 1)",
        "SELECT c FROM customers c",
        "SELECT row_to_json(c) FROM customers c",
        "SELECT to_json(c.*) FROM customers c",
        "SELECT coalesce(email, 'none') FROM customers",
        "SELECT CASE WHEN id = 1 THEN email END FROM customers",
        "SELECT ARRAY[email] FROM customers",
        "SELECT x FROM customers, unnest(string_to_array(email, '@')) AS x",
        "SELECT * FROM customers UNION ALL SELECT * FROM customers",
        "SELECT id, name FROM products UNION ALL SELECT * FROM customers",
        "SELECT a FROM (SELECT * FROM customers) AS s(a, b)",
        "SELECT a FROM customers AS c(a, b)",
        "SELECT lower(s.e) FROM (SELECT email AS e FROM customers) s",
        "SELECT email FROM customers UNION SELECT 'x' ORDER BY 1",
        "SELECT id FROM customers WHERE ssn BETWEEN '1' AND '2'",
    ] {
        refused(sql, pg);
    }
    let duck = SqlDialect::DuckDb;
    for sql in [
        "SELECT * FROM customers ORDER BY ALL",
        "SELECT list_transform([1], x -> email) FROM customers",
        "SELECT * REPLACE (upper(email) AS email) FROM customers",
    ] {
        refused(sql, duck);
    }
}

#[test]
fn correlated_and_lateral_references_resolve_outward() {
    let pg = SqlDialect::Postgres;
    refused(
        "SELECT (SELECT upper(c.email) FROM orders o WHERE o.customer_id = c.id LIMIT 1) FROM customers c",
        pg,
    );
    refused(
        "SELECT l.x FROM customers c, LATERAL (SELECT lower(c.email) AS x) l",
        pg,
    );
    assert_eq!(
        masked(
            "SELECT l.x FROM customers c, LATERAL (SELECT c.email AS x) l",
            pg
        ),
        [(start(0), HASH, "customers.email".into())]
    );
}

#[test]
fn recursive_ctes_settle() {
    let pg = SqlDialect::Postgres;
    let sql = "WITH RECURSIVE r(n, e) AS (SELECT 1, email FROM customers UNION ALL \
               SELECT n + 1, e FROM r WHERE n < 3) SELECT e FROM r";
    assert_eq!(
        masked(sql, pg),
        [(start(0), HASH, "customers.email".into())]
    );
    let leak = "WITH RECURSIVE r(n, e) AS (SELECT 1, email FROM customers UNION ALL \
                SELECT n + 1, upper(e) FROM r WHERE n < 3) SELECT n FROM r";
    refused(leak, pg);
}

#[test]
fn policies_without_masks_are_untouched() {
    let sql = "SELECT lower(email) FROM customers ORDER BY email";
    let checked = check(sql, SqlDialect::Postgres, &Policy::default()).expect("passes");
    assert!(checked.masked_outputs().is_empty());
}

#[test]
fn analyze_reports_the_refusal_too() {
    let analysis = crate::analyze(
        "SELECT lower(email) FROM customers",
        SqlDialect::Postgres,
        &policy(),
    );
    assert!(
        analysis
            .rejections()
            .iter()
            .any(|r| matches!(r.kind(), RejectKind::MaskedColumnUse { .. }))
    );
}

#[test]
fn every_embedded_and_server_dialect_follows_the_same_rule() {
    for dialect in [
        SqlDialect::Sqlite,
        SqlDialect::DuckDb,
        SqlDialect::MySql,
        SqlDialect::MariaDb,
        SqlDialect::Postgres,
    ] {
        assert_eq!(
            masked(
                "SELECT id, email FROM customers WHERE email IS NOT NULL",
                dialect
            ),
            [(start(1), HASH, "customers.email".into())],
            "{dialect:?}"
        );
        refused("SELECT upper(email) FROM customers", dialect);
    }
    assert_eq!(
        masked("FROM customers", SqlDialect::DuckDb)[0],
        (named("email", 0, 0), HASH, "customers.email".into())
    );
    assert_eq!(
        masked("TABLE customers", SqlDialect::Postgres)[0],
        (named("email", 0, 0), HASH, "customers.email".into())
    );
}

#[test]
fn long_chains_and_deep_nesting_stay_within_the_stack() {
    let chain = format!(
        "SELECT id FROM customers WHERE {}",
        vec!["email = 'x'"; 450].join(" OR ")
    );
    check(&chain, SqlDialect::Postgres, &policy()).expect("an equality chain passes");
    let leak = format!("{} OR lower(email) = 'x'", chain);
    refused(&leak, SqlDialect::Postgres);
    let mut nested = "SELECT email FROM customers".to_owned();
    for _ in 0..20 {
        nested = format!("SELECT email FROM ({nested}) AS s");
    }
    assert_eq!(masked(&nested, SqlDialect::Postgres).len(), 1);
}

#[test]
fn a_star_over_a_subquery_that_leaves_out_a_denied_column_is_masked() {
    let policy = Policy::default()
        .mask_column("customers.email", MaskRule::Hash)
        .deny_column("customers.ssn");
    let sql = "SELECT * FROM (SELECT email FROM customers) s";
    let checked = check(sql, SqlDialect::Postgres, &policy).expect("passes");
    assert_eq!(checked.masked_outputs().len(), 1);
    assert!(checked.touches_masked_columns());
    let refused = check(
        "SELECT * FROM (SELECT * FROM customers) s",
        SqlDialect::Postgres,
        &policy,
    );
    assert!(matches!(
        refused.map_err(|e| e.kind().code()),
        Err("column_not_allowed")
    ));
    let untouched = check("SELECT id FROM customers", SqlDialect::Postgres, &policy).expect("ok");
    assert!(!untouched.touches_masked_columns());
    let compared = check(
        "SELECT id FROM customers WHERE email = 'x'",
        SqlDialect::Postgres,
        &policy,
    )
    .expect("ok");
    assert!(compared.touches_masked_columns() && compared.masked_outputs().is_empty());
}

/// DuckDB's SUMMARIZE gives the minimum and maximum of every column of its dataset: refused
/// when the dataset may hold a masked column (any table may have a `*.ssn`), allowed over
/// named columns that are not.
#[test]
fn summarize_never_reveals_a_masked_column() {
    for sql in [
        "SUMMARIZE customers",
        "SUMMARIZE orders",
        "SUMMARIZE SELECT * FROM customers",
        "SUMMARIZE SELECT id, email FROM customers",
        "SUMMARIZE FROM customers c JOIN orders o ON o.customer_id = c.id",
    ] {
        let refusal = refused(sql, SqlDialect::DuckDb);
        assert!(refusal.contains("masked"), "{sql}: {refusal}");
    }
    for sql in [
        "SUMMARIZE SELECT id, amount FROM orders",
        "SUMMARIZE SELECT id, name FROM customers",
        "SUMMARIZE SELECT count(email) AS with_email FROM customers",
    ] {
        assert!(masked(sql, SqlDialect::DuckDb).is_empty(), "{sql}");
    }
}
