//! The guard's promise on untrusted input: no panic and no stack overflow, whatever the text.
//!
//! Giant and deeply nested inputs run on a thread with a 2 MiB stack, so a guard that recursed
//! once per nesting level or per operator would overflow here. A deterministic mutation loop
//! (xorshift, fixed seed) runs `check` and `analyze` over the case table and random token soup in
//! every dialect. No timing assertions; the whole file stays well under 20 s in a debug build.

#![allow(clippy::print_stdout, clippy::unwrap_used)]

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use nao_guard::{Policy, SqlDialect, analyze, check};

const SMALL_STACK: usize = 2 << 20;

/// Runs `f` on a thread with a 2 MiB stack and propagates its panic.
fn on_small_stack<F: FnOnce() + Send + 'static>(name: &str, f: F) {
    let handle = std::thread::Builder::new()
        .name(name.to_owned())
        .stack_size(SMALL_STACK)
        .spawn(f)
        .unwrap();
    if let Err(panic) = handle.join() {
        std::panic::resume_unwind(panic);
    }
}

/// A policy with no practical byte limit, so giant inputs reach the tokenizer and parser.
fn unbounded_bytes() -> Policy {
    Policy::default().with_max_sql_bytes(usize::MAX)
}

fn capped_policy() -> Policy {
    Policy::default()
        .with_row_cap(100)
        .deny_table("secrets")
        .deny_table("hr.*")
        .deny_column("customers.email")
        .deny_function("upper")
}

/// Checks and analyzes `sql`; returns the verdict code ("ok" or the rejection code).
/// Also asserts the invariants that hold for every input.
fn verdict(sql: &str, dialect: SqlDialect, policy: &Policy) -> String {
    let checked = check(sql, dialect, policy);
    let analysis = analyze(sql, dialect, policy);
    match &checked {
        Ok(ok) => {
            assert!(
                analysis.rejections().is_empty() && analysis.is_read_only(),
                "check Ok but analyze rejects ({dialect}): {}",
                preview(sql)
            );
            if ok.cap_applied() {
                let again = check(ok.sql(), dialect, &Policy::default());
                assert!(
                    again.is_ok(),
                    "rewritten text rejected ({dialect}): {} -> {:?}: {:?}",
                    preview(sql),
                    preview(ok.sql()),
                    again.err().map(|e| e.message())
                );
            }
            "ok".to_owned()
        }
        Err(r) => {
            assert!(
                !r.message().is_empty(),
                "empty message for {}",
                r.kind().code()
            );
            // Under a row cap, check also re-checks its rewritten text, which analyze does not
            // make; the case table holds the known divergences, so only the default policy here.
            assert!(
                policy.row_cap().is_some() || !analysis.is_read_only(),
                "check rejects ({}) but analyze finds it read-only ({dialect}): {}",
                r.kind().code(),
                preview(sql)
            );
            r.kind().code().to_owned()
        }
    }
}

fn preview(sql: &str) -> String {
    let mut end = sql.len().min(200);
    while !sql.is_char_boundary(end) {
        end -= 1;
    }
    if end < sql.len() {
        format!("{:?}… ({} bytes)", &sql[..end], sql.len())
    } else {
        format!("{sql:?}")
    }
}

/// Parsers that differ most (tokenizer quirks, statement splitting), for inputs so wide that
/// parsing them fully in all sixteen dialects would take too long in a debug build.
const WIDE: &[SqlDialect] = &[SqlDialect::Generic, SqlDialect::MySql, SqlDialect::MsSql];

/// Runs `sql` in every dialect under the default policy and, in `dialects`, under an unbounded
/// one, on a small stack; checks the unbounded verdict against `expect` (any of the codes).
fn giant(name: &'static str, sql: String, expect_unbounded: &'static [&'static str]) {
    giant_in(name, sql, &SqlDialect::ALL, expect_unbounded);
}

fn giant_in(
    name: &'static str,
    sql: String,
    dialects: &'static [SqlDialect],
    expect_unbounded: &'static [&'static str],
) {
    on_small_stack(name, move || {
        for dialect in SqlDialect::ALL {
            let by_default = verdict(&sql, dialect, &Policy::default());
            if sql.len() > nao_guard::DEFAULT_MAX_SQL_BYTES {
                assert_eq!(by_default, "too_long", "{name} in {dialect}");
            }
        }
        for &dialect in dialects {
            let unbounded = verdict(&sql, dialect, &unbounded_bytes());
            assert!(
                expect_unbounded.contains(&unbounded.as_str()),
                "{name} in {dialect}: expected any of {expect_unbounded:?}, got {unbounded}"
            );
        }
    });
}

#[test]
fn one_megabyte_query_gets_a_verdict() {
    let mut sql = String::from("SELECT id FROM orders WHERE note IN (");
    while sql.len() < 1 << 20 {
        sql.push_str("'abcdefghij', ");
    }
    sql.push_str("'z')");
    giant_in("one-megabyte", sql, WIDE, &["ok", "too_deep", "parse"]);
}

#[test]
fn one_megabyte_string_literal_gets_a_verdict() {
    let sql = format!("SELECT '{}' AS s", "x".repeat(1 << 20));
    giant("one-megabyte-string", sql, &["ok"]);
}

#[test]
fn one_megabyte_comment_gets_a_verdict() {
    let sql = format!("SELECT 1 /* {} */", "; DROP TABLE t ".repeat(70_000));
    giant("one-megabyte-comment", sql, &["ok"]);
}

#[test]
fn ten_thousand_nested_parentheses() {
    let sql = format!("SELECT {}1{}", "(".repeat(10_000), ")".repeat(10_000));
    giant("nested-parens", sql, &["too_deep"]);
}

#[test]
fn ten_thousand_unbalanced_parentheses() {
    let sql = format!("SELECT {}1", "(".repeat(10_000));
    giant("unbalanced-parens", sql, &["too_deep", "parse"]);
}

#[test]
fn fifty_thousand_term_addition_chain() {
    let sql = format!("SELECT 1{}", "+1".repeat(50_000));
    giant("plus-chain", sql, &["too_deep"]);
}

#[test]
fn long_and_or_chain() {
    let mut sql = String::from("SELECT * FROM t WHERE a = 0");
    for i in 0..20_000 {
        sql.push_str(if i % 2 == 0 {
            " OR a = 1"
        } else {
            " AND b = 2"
        });
    }
    giant("and-or-chain", sql, &["too_deep"]);
}

#[test]
fn twenty_thousand_unions() {
    let sql = format!("SELECT 1{}", " UNION SELECT 1".repeat(20_000));
    giant("union-chain", sql, &["too_deep"]);
}

#[test]
fn hundred_thousand_commas() {
    let sql = format!("SELECT 1{}", ",1".repeat(100_000));
    giant_in("comma-list", sql, WIDE, &["ok", "too_deep"]);
    let sql = format!("SELECT {} FROM t", ",".repeat(100_000));
    giant_in("bare-commas", sql, WIDE, &["parse"]);
}

#[test]
fn hundred_thousand_element_in_list() {
    let list: Vec<String> = (0..100_000).map(|i| i.to_string()).collect();
    let sql = format!("SELECT * FROM t WHERE id IN ({})", list.join(", "));
    giant_in("in-list", sql, WIDE, &["ok", "too_deep"]);
}

#[test]
fn deeply_nested_case() {
    let mut sql = String::from("SELECT ");
    for _ in 0..5_000 {
        sql.push_str("CASE WHEN a = 1 THEN ");
    }
    sql.push('1');
    for _ in 0..5_000 {
        sql.push_str(" ELSE 0 END");
    }
    // sqlparser backtracks out of the recursion limit inside CASE and reports a syntax error.
    giant("nested-case", sql, &["too_deep", "parse"]);
}

#[test]
fn deeply_nested_subqueries() {
    let mut sql = String::from("SELECT * FROM t");
    for i in 0..3_000 {
        sql = format!("SELECT * FROM ({sql}) AS s{i}");
    }
    giant("nested-subqueries", sql, &["too_deep"]);
}

#[test]
fn deeply_nested_scalar_subqueries() {
    let sql = format!("{}1{}", "SELECT (".repeat(5_000), ")".repeat(5_000));
    giant("nested-scalar-subqueries", sql, &["too_deep"]);
}

#[test]
fn deeply_nested_function_calls() {
    let sql = format!(
        "SELECT {}x{}",
        "coalesce(".repeat(10_000),
        ")".repeat(10_000)
    );
    giant("nested-functions", sql, &["too_deep"]);
}

#[test]
fn deeply_nested_ctes() {
    let mut sql = String::from("SELECT 1");
    for i in 0..2_000 {
        sql = format!("WITH c{i} AS ({sql}) SELECT * FROM c{i}");
    }
    giant("nested-ctes", sql, &["too_deep"]);
}

#[test]
fn deeply_nested_unary_operators() {
    let sql = format!("SELECT {}1", "NOT ".repeat(10_000));
    giant("not-chain", sql, &["too_deep"]);
    let sql = format!("SELECT {}1", "- ".repeat(10_000));
    giant("minus-chain", sql, &["too_deep"]);
}

#[test]
fn deeply_nested_arrays_and_casts() {
    let sql = format!("SELECT {}1{}", "ARRAY[".repeat(3_000), "]".repeat(3_000));
    giant("nested-arrays", sql, &["too_deep", "parse"]);
    let sql = format!("SELECT 1{}", "::int".repeat(10_000));
    giant("cast-chain", sql, &["too_deep", "parse"]);
}

#[test]
fn long_join_chain() {
    let mut sql = String::from("SELECT * FROM t0");
    for i in 1..5_000 {
        sql.push_str(&format!(" JOIN t{i} ON t{i}.id = t0.id"));
    }
    giant_in("join-chain", sql, WIDE, &["ok", "too_deep"]);
}

#[test]
fn many_statements() {
    let sql = "SELECT 1; ".repeat(20_000);
    giant_in("many-statements", sql, WIDE, &["multiple_statements"]);
    let sql = ";".repeat(200_000);
    giant_in("many-semicolons", sql, WIDE, &["empty"]);
}

// --- Deterministic mutation loop --------------------------------------------------------------------

/// xorshift64*: tiny, deterministic, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const TOKENS: &[&str] = &[
    "SELECT",
    "FROM",
    "WHERE",
    "WITH",
    "RECURSIVE",
    "AS",
    "UNION",
    "ALL",
    "EXCEPT",
    "INTERSECT",
    "JOIN",
    "LEFT",
    "LATERAL",
    "ON",
    "USING",
    "GROUP",
    "BY",
    "ORDER",
    "HAVING",
    "LIMIT",
    "OFFSET",
    "FETCH",
    "FIRST",
    "ROWS",
    "ONLY",
    "TOP",
    "INTO",
    "OUTFILE",
    "FOR",
    "UPDATE",
    "SHARE",
    "DELETE",
    "INSERT",
    "VALUES",
    "DROP",
    "TABLE",
    "CREATE",
    "SET",
    "EXPLAIN",
    "ANALYZE",
    "SHOW",
    "DESCRIBE",
    "PRAGMA",
    "CASE",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "NOT",
    "NULL",
    "AND",
    "OR",
    "IN",
    "EXISTS",
    "OVER",
    "PARTITION",
    "QUALIFY",
    "PIVOT",
    "UNPIVOT",
    "SETTINGS",
    "RETURNING",
    "TABLESAMPLE",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ";",
    ".",
    "*",
    "+",
    "-",
    "/",
    "%",
    "=",
    "<>",
    "<",
    ">",
    "::",
    ":",
    "->",
    "->>",
    "@",
    "@x",
    ":=",
    "?",
    "$1",
    "$$",
    "$a$",
    "'",
    "\"",
    "`",
    "''",
    "E'",
    "--",
    "/*",
    "*/",
    "/*!",
    "/*M!",
    "#",
    "\\",
    "\n",
    "\t",
    " ",
    "1",
    "0",
    "-1",
    "1e308",
    "99999999999999999999",
    "'x'",
    "\"t\"",
    "`t`",
    "[t]",
    "orders",
    "secrets",
    "customers",
    "email",
    "t",
    "s.t",
    "hr.salaries",
    "pg_sleep(1)",
    "SLEEP(1)",
    "read_csv('x')",
    "upper(a)",
    "count(*)",
    "nextval('s')",
    "coalesce(",
    "ＤＥＬＥＴＥ",
    "SЕLECT",
    "\u{0}",
    "\u{7}",
    "\u{200B}",
    "\u{FEFF}",
    "é",
    "😀",
    "；",
    "‘",
    "’",
    "/*!",
    "/*!50000",
    "/*!1000001",
    "/*M!",
    "/*+ SET_VAR(x=1)",
    "*/",
    "'\\\\'",
    "'\\''",
];

/// One random edit of `sql`, always at character boundaries so the result stays a `&str`.
fn mutate(rng: &mut Rng, sql: &str, corpus: &[String]) -> String {
    let chars: Vec<char> = sql.chars().collect();
    let at = rng.below(chars.len() + 1);
    let (head, tail) = chars.split_at(at);
    let head: String = head.iter().collect();
    let tail: String = tail.iter().collect();
    match rng.below(9) {
        0 => format!("{head} {} {tail}", rng.pick(TOKENS)),
        1 => format!("{head}{}{tail}", rng.pick(TOKENS)),
        2 => {
            let len = rng.below(tail.chars().count() + 1);
            format!("{head}{}", tail.chars().skip(len).collect::<String>())
        }
        3 => head,
        4 => {
            let len = rng.below(tail.chars().count() + 1).min(64);
            let piece: String = tail.chars().take(len).collect();
            format!("{head}{piece}{piece}{tail}")
        }
        5 => {
            let other = rng.pick(corpus);
            let cut = rng.below(other.chars().count() + 1);
            format!("{head}{}", other.chars().skip(cut).collect::<String>())
        }
        6 => {
            let c = char::from_u32(rng.below(0x80) as u32).unwrap_or(' ');
            format!("{head}{c}{tail}")
        }
        7 => format!("{head}; {}", rng.pick(corpus)),
        _ => format!("{}{head}{tail}", rng.pick(TOKENS)),
    }
}

fn token_soup(rng: &mut Rng) -> String {
    let n = 1 + rng.below(40);
    let mut out = String::new();
    for _ in 0..n {
        let token: &&str = rng.pick(TOKENS);
        out.push_str(token);
        if rng.below(3) > 0 {
            out.push(' ');
        }
    }
    out
}

/// Every `sql` string of the case table.
fn corpus() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for path in files {
        if path.extension().is_some_and(|e| e == "toml") {
            let text = std::fs::read_to_string(&path).unwrap();
            let value: toml::Value = toml::from_str(&text).unwrap();
            for case in value["case"].as_array().unwrap() {
                out.push(case["sql"].as_str().unwrap().to_owned());
            }
        }
    }
    out
}

/// Runs every input in one dialect per policy, catching panics so the report names the input.
fn fuzz_inputs(inputs: &[String], rounds_label: &str) {
    let policies = [Policy::default(), capped_policy()];
    let mut panics = Vec::new();
    for (i, sql) in inputs.iter().enumerate() {
        for dialect in SqlDialect::ALL {
            // Every input in every dialect with the default policy; the capped one in turn.
            let run =
                |policy: &Policy| catch_unwind(AssertUnwindSafe(|| verdict(sql, dialect, policy)));
            if let Err(p) = run(&policies[0]) {
                panics.push(format!(
                    "{dialect} default: {} : {}",
                    preview(sql),
                    panic_text(&p)
                ));
            }
            if (i + dialect as usize).is_multiple_of(4)
                && let Err(p) = run(&policies[1])
            {
                panics.push(format!(
                    "{dialect} capped: {} : {}",
                    preview(sql),
                    panic_text(&p)
                ));
            }
        }
    }
    println!(
        "{rounds_label}: {} inputs × {} dialects, {} panics",
        inputs.len(),
        SqlDialect::ALL.len(),
        panics.len()
    );
    assert!(
        panics.is_empty(),
        "{} panics:\n{}",
        panics.len(),
        panics.join("\n")
    );
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "<non-string panic>".to_owned())
}

#[test]
fn corpus_itself_never_panics() {
    on_small_stack("corpus", || {
        let corpus = corpus();
        assert!(corpus.len() >= 300);
        fuzz_inputs(&corpus, "corpus");
    });
}

#[test]
fn mutated_corpus_never_panics() {
    on_small_stack("mutations", || {
        let corpus = corpus();
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut inputs = Vec::new();
        for _ in 0..1_200 {
            let mut sql = rng.pick(&corpus).clone();
            for _ in 0..1 + rng.below(4) {
                sql = mutate(&mut rng, &sql, &corpus);
            }
            inputs.push(sql);
        }
        fuzz_inputs(&inputs, "mutations");
    });
}

#[test]
fn random_token_soup_never_panics() {
    on_small_stack("token-soup", || {
        let mut rng = Rng(0xD1B5_4A32_D192_ED03);
        let inputs: Vec<String> = (0..800).map(|_| token_soup(&mut rng)).collect();
        fuzz_inputs(&inputs, "token soup");
    });
}

// --- Literals through the row cap ------------------------------------------------------------

/// Dialects whose sqlparser dialect reads backslash escapes in strings.
const ESCAPING: &[SqlDialect] = &[
    SqlDialect::MySql,
    SqlDialect::MariaDb,
    SqlDialect::BigQuery,
    SqlDialect::Snowflake,
    SqlDialect::ClickHouse,
    SqlDialect::Databricks,
    SqlDialect::Redshift,
];

/// Dialects where `"…"` is a string, not a name.
const DOUBLE_QUOTED_STRINGS: &[SqlDialect] = &[
    SqlDialect::MySql,
    SqlDialect::MariaDb,
    SqlDialect::BigQuery,
    SqlDialect::Databricks,
];

/// A random string literal that the dialect reads: quotes, backslashes, escapes and Unicode.
fn random_literal(rng: &mut Rng, dialect: SqlDialect) -> String {
    let double = DOUBLE_QUOTED_STRINGS.contains(&dialect) && rng.below(4) == 0;
    let (q, other) = if double { ('"', '\'') } else { ('\'', '"') };
    let escaped_quote = format!("\\{q}");
    let doubled_quote = format!("{q}{q}");
    let other = other.to_string();
    let escaping: &[&str] = &[
        "a",
        "Z",
        " ",
        "é",
        "日本",
        "😀",
        "%",
        "_",
        "\\\\",
        &escaped_quote,
        &doubled_quote,
        &other,
        "\\n",
        "\\t",
        "\\r",
        "\\0",
        "\\Z",
        "\\%",
        "\\_",
        "\\b",
        "\\\\\\\\",
    ];
    let plain: &[&str] = &[
        "a",
        " ",
        "é",
        "%",
        "\\",
        "\\n",
        &doubled_quote,
        &other,
        "\\\\",
    ];
    let pieces = if ESCAPING.contains(&dialect) {
        escaping
    } else {
        plain
    };
    // BigQuery has no doubled quotes: a literal opening with two opens a triple-quoted one.
    let pieces: Vec<&str> = pieces
        .iter()
        .copied()
        .filter(|p| dialect != SqlDialect::BigQuery || *p != doubled_quote)
        .collect();
    let mut body = String::new();
    for _ in 0..rng.below(8) {
        let piece: &&str = rng.pick(&pieces);
        body.push_str(piece);
    }
    let prefix = match (dialect, q, rng.below(4)) {
        (SqlDialect::MySql | SqlDialect::MariaDb, '\'', 0) => "N",
        (SqlDialect::MySql | SqlDialect::MariaDb, '\'', 1) => "_utf8mb4",
        (SqlDialect::MsSql, _, 0) => "N",
        _ => "",
    };
    format!("{prefix}{q}{body}{q}")
}

/// The string literal values sqlparser reads in `sql`, in tree order.
fn string_values(sql: &str, dialect: SqlDialect) -> Vec<String> {
    use sqlparser::ast::{ValueWithSpan, Visit, Visitor};
    struct Strings(Vec<String>);
    impl Visitor for Strings {
        type Break = ();
        fn pre_visit_value(&mut self, v: &ValueWithSpan) -> std::ops::ControlFlow<()> {
            if let Some(s) = v.value.clone().into_string() {
                self.0.push(s);
            }
            std::ops::ControlFlow::Continue(())
        }
    }
    let statements = sqlparser::parser::Parser::parse_sql(dialect.parser_dialect(), sql)
        .unwrap_or_else(|e| panic!("{dialect}: {sql:?} does not parse: {e}"));
    let mut strings = Strings(Vec::new());
    let _ = statements.visit(&mut strings);
    strings.0
}

/// Generated statements full of quotes and backslashes, checked with a row cap in every
/// dialect: the capped text, parsed again, holds the literal values of the original, and
/// (except where the guard refuses strings whose end depends on backslash escapes) every one
/// is capped rather than sent uncapped.
#[test]
fn capped_literals_read_back_as_written() {
    let policy = Policy::default().with_row_cap(10);
    let mut rng = Rng(0x0DDB_A11C_AFE5_EED5);
    let mut report = Vec::new();
    for dialect in SqlDialect::ALL {
        let (mut capped, mut refused) = (0, 0);
        let mut uncapped = Vec::new();
        for _ in 0..300 {
            let mut lit = || random_literal(&mut rng, dialect);
            let sql = format!(
                "SELECT {} AS a, {} AS b FROM t WHERE c <> {} OR c IN ({}, {}) ORDER BY 1",
                lit(),
                lit(),
                lit(),
                lit(),
                lit()
            );
            match check(&sql, dialect, &policy) {
                Ok(ok) if ok.cap_applied() => {
                    capped += 1;
                    assert_eq!(
                        string_values(ok.sql(), dialect),
                        string_values(&sql, dialect),
                        "{dialect}: {sql:?} capped as {:?}",
                        ok.sql()
                    );
                }
                Ok(_) => uncapped.push(sql),
                Err(e) => {
                    assert!(
                        matches!(
                            dialect,
                            SqlDialect::Generic | SqlDialect::Spark | SqlDialect::Hive
                        ) && e.kind().code() == "parse",
                        "{dialect}: {sql:?} refused: {}",
                        e.message()
                    );
                    refused += 1;
                }
            }
        }
        assert!(
            uncapped.is_empty(),
            "{dialect}: {} statements ran uncapped, e.g. {:?}",
            uncapped.len(),
            uncapped.first()
        );
        report.push(format!("{dialect} {capped} capped/{refused} refused"));
    }
    println!("literals through the cap: {}", report.join(", "));
}
