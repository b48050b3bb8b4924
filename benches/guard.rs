//! The guard against sqlparser's bare parse of the same text, side by side in one run.
//!
//! `cargo bench --bench guard` prints criterion's figures, then a summary: per dialect and
//! policy, the medians per statement of both sides over 200 interleaved rounds and the ratio
//! guard / bare parse taken per round, as median, min and max (target ≤ 1.3×); then the same
//! over 15 rounds for a 1 MB text (target ≤ 50 ms) and for a text at the default length limit.
//! A round times each side a few times in turn (the whole corpus, or the text) and keeps each
//! side's fastest try, so that another process taking the core for a moment does not decide a
//! round's ratio.
//!
//! The guard is measured alone. Built with `--features pg-query`, a last pair of lines reports
//! the second reading of PostgreSQL statements by PostgreSQL's own parser on its own: `check`
//! with it on against `check` with it off ([`Policy::with_second_reading`]), per statement of
//! the corpus and for the text at the length limit, and what it adds per statement.
#![allow(clippy::print_stdout, clippy::unwrap_used, missing_docs)]

mod support;

use std::hint::black_box;
use std::time::Duration;

use support::interleaved_fastest;

use criterion::{Criterion, criterion_group};
use nao::guard::{Policy, SqlDialect, check};
use sqlparser::parser::Parser;

/// A realistic mixed corpus: what an analyst (or a model) writes against a warehouse.
const CORPUS: &[&str] = &[
    "SELECT count(*) FROM orders",
    "SELECT customer_id, sum(amount) AS revenue FROM orders WHERE status = 'paid' GROUP BY customer_id ORDER BY revenue DESC LIMIT 20",
    "SELECT date_trunc('month', created_at) AS month, count(*) FROM orders GROUP BY 1 ORDER BY 1",
    "SELECT c.name, o.id, o.total FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.created_at >= DATE '2024-01-01' AND c.country IN ('FR', 'DE', 'ES')",
    "WITH monthly AS (SELECT date_trunc('month', created_at) AS m, sum(total) AS revenue FROM orders GROUP BY 1) SELECT m, revenue, revenue - lag(revenue) OVER (ORDER BY m) AS growth FROM monthly ORDER BY m",
    "SELECT p.category, avg(r.rating) AS avg_rating, count(DISTINCT r.customer_id) AS reviewers FROM products p LEFT JOIN reviews r ON r.product_id = p.id GROUP BY p.category HAVING count(*) > 10",
    "SELECT * FROM (SELECT customer_id, row_number() OVER (PARTITION BY country ORDER BY lifetime_value DESC) AS rn FROM customers) ranked WHERE rn <= 3",
    "SELECT status, count(*) FILTER (WHERE total > 100) AS big, count(*) AS all_orders FROM orders GROUP BY ROLLUP (status)",
    "SELECT o.id FROM orders o WHERE EXISTS (SELECT 1 FROM payments p WHERE p.order_id = o.id AND p.method = 'card') AND o.total > (SELECT avg(total) FROM orders)",
    "SELECT coalesce(c.segment, 'unknown') AS segment, round(avg(o.total), 2) FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY 1",
    "SELECT extract(year FROM created_at) AS y, extract(quarter FROM created_at) AS q, sum(total) FROM orders GROUP BY 1, 2 ORDER BY 1, 2",
    "SELECT product_id, sum(quantity) AS units FROM order_items GROUP BY product_id ORDER BY units DESC LIMIT 10",
    "SELECT CASE WHEN total < 50 THEN 'small' WHEN total < 200 THEN 'medium' ELSE 'large' END AS bucket, count(*) FROM orders GROUP BY 1",
    "SELECT a.customer_id FROM orders a UNION SELECT b.customer_id FROM reviews b EXCEPT SELECT customer_id FROM refunds",
    "SELECT name, lower(email) LIKE '%@example.com' AS test_account, length(name) FROM customers WHERE name ILIKE 'a%' ORDER BY name LIMIT 50 OFFSET 100",
    "SELECT method, percentile_cont(0.5) WITHIN GROUP (ORDER BY amount) AS median_amount FROM payments GROUP BY method",
];

/// Interleaved rounds of the corpus comparison.
const CORPUS_ROUNDS: usize = 200;
/// Tries per side in one round (each the whole corpus); a round keeps each side's fastest.
const CORPUS_TRIES: usize = 10;
/// Interleaved rounds of the long-text comparison.
const TEXT_ROUNDS: usize = 15;
/// Tries per side in one round of the long-text comparison.
const TEXT_TRIES: usize = 3;

/// The dialects the corpus is checked in (it parses in each).
const DIALECTS: &[SqlDialect] = &[SqlDialect::Postgres, SqlDialect::DuckDb];

fn bare_parse(sql: &str, dialect: SqlDialect) {
    black_box(Parser::parse_sql(dialect.parser_dialect(), black_box(sql)).unwrap());
}

fn guard(sql: &str, dialect: SqlDialect, policy: &Policy) {
    black_box(check(black_box(sql), dialect, policy).unwrap());
}

/// The guard alone: without the second reading that the `pg-query` feature adds, which
/// `second_reading_summary` reports on its own.
fn guard_alone() -> Policy {
    Policy::default().with_second_reading(false)
}

fn corpus_bench(c: &mut Criterion) {
    let policy = guard_alone();
    let mut group = c.benchmark_group("corpus");
    for &dialect in DIALECTS {
        group.bench_function(format!("bare_parse/{dialect}"), |b| {
            b.iter(|| CORPUS.iter().for_each(|sql| bare_parse(sql, dialect)))
        });
        group.bench_function(format!("guard_check/{dialect}"), |b| {
            b.iter(|| CORPUS.iter().for_each(|sql| guard(sql, dialect, &policy)))
        });
    }
    #[cfg(feature = "pg-query")]
    {
        let twice = Policy::default();
        group.bench_function("guard_check_second_reading/postgres", |b| {
            b.iter(|| {
                CORPUS
                    .iter()
                    .for_each(|sql| guard(sql, SqlDialect::Postgres, &twice))
            })
        });
    }
    group.finish();
}

fn summary() {
    let default = guard_alone();
    let capped = guard_alone().with_row_cap(1_000);
    let per_statement = |d: Duration| d / CORPUS.len() as u32;
    println!(
        "\nguard summary (medians of {CORPUS_ROUNDS} interleaved rounds over the {} statements, \
         each round the fastest of {CORPUS_TRIES} tries per side; ratios: median, min, max per \
         round)",
        CORPUS.len()
    );
    for &dialect in DIALECTS {
        let dialect_name = dialect.to_string();
        for (name, policy) in [("default policy", &default), ("row cap 1000", &capped)] {
            let rounds = interleaved_fastest(
                CORPUS_ROUNDS,
                CORPUS_TRIES,
                &mut [
                    &mut || CORPUS.iter().for_each(|sql| bare_parse(sql, dialect)),
                    &mut || CORPUS.iter().for_each(|sql| guard(sql, dialect, policy)),
                ],
            );
            println!(
                "  {dialect_name:<8} {name:<15} bare parse {:>8.2?}/stmt   guard {:>8.2?}/stmt   ratio {}",
                per_statement(rounds.median(0)),
                per_statement(rounds.median(1)),
                rounds.ratio(1, 0)
            );
        }
    }
    let one_mb = format!("SELECT {} FROM t", vec!["col_a + col_b"; 80_000].join(", "));
    let at_limit = format!("SELECT {} FROM t", vec!["col_a + col_b"; 6_500].join(", "));
    for (name, sql) in [
        ("1 MB text", &one_mb),
        ("text at the 100 kB limit", &at_limit),
    ] {
        let rounds = interleaved_fastest(
            TEXT_ROUNDS,
            TEXT_TRIES,
            &mut [
                &mut || {
                    drop(black_box(Parser::parse_sql(
                        SqlDialect::Postgres.parser_dialect(),
                        sql,
                    )))
                },
                &mut || drop(black_box(check(sql, SqlDialect::Postgres, &default))),
            ],
        );
        let verdict = match check(sql, SqlDialect::Postgres, &default) {
            Ok(_) => "read-only".to_owned(),
            Err(e) => e.kind().code().to_owned(),
        };
        println!(
            "  {name:<25} ({} bytes) guard {:>9.2?} ({verdict})   bare parse {:>9.2?}   ratio {}",
            sql.len(),
            rounds.median(1),
            rounds.median(0),
            rounds.ratio(1, 0)
        );
    }
    #[cfg(feature = "pg-query")]
    second_reading_summary(&at_limit);
}

/// The second reading's cost: `check` with it on against `check` with it off, PostgreSQL.
#[cfg(feature = "pg-query")]
fn second_reading_summary(at_limit: &str) {
    let alone = guard_alone();
    let twice = Policy::default();
    let dialect = SqlDialect::Postgres;
    let per_statement = |d: Duration| d / CORPUS.len() as u32;
    let rounds = interleaved_fastest(
        CORPUS_ROUNDS,
        CORPUS_TRIES,
        &mut [
            &mut || CORPUS.iter().for_each(|sql| guard(sql, dialect, &alone)),
            &mut || CORPUS.iter().for_each(|sql| guard(sql, dialect, &twice)),
        ],
    );
    let (one, two) = (rounds.median(0), rounds.median(1));
    println!(
        "  postgres second reading (pg-query), corpus: guard {:>8.2?}/stmt   guard + second \
         reading {:>8.2?}/stmt   second reading {:>8.2?}/stmt   ratio {}",
        per_statement(one),
        per_statement(two),
        per_statement(two.saturating_sub(one)),
        rounds.ratio(1, 0)
    );
    let rounds = interleaved_fastest(
        TEXT_ROUNDS,
        TEXT_TRIES,
        &mut [
            &mut || drop(black_box(check(at_limit, dialect, &alone))),
            &mut || drop(black_box(check(at_limit, dialect, &twice))),
        ],
    );
    let verdict = match check(at_limit, dialect, &twice) {
        Ok(_) => "read-only".to_owned(),
        Err(e) => e.kind().code().to_owned(),
    };
    println!(
        "  postgres second reading (pg-query), text at the 100 kB limit: guard {:>9.2?}   guard \
         + second reading {:>9.2?} ({verdict})   ratio {}",
        rounds.median(0),
        rounds.median(1),
        rounds.ratio(1, 0)
    );
}

criterion_group!(benches, corpus_bench);

fn main() {
    benches();
    criterion::Criterion::default()
        .configure_from_args()
        .final_summary();
    summary();
}
