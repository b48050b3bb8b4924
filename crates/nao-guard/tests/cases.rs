//! Runs the guard's case table (`testdata/*.toml`) for every dialect each case lists.
//!
//! A case names the SQL, the dialects (all of them when omitted), the expected verdict (`ok` or a
//! rejection code, or `expect_any` for several acceptable codes) and, for `ok`, optionally the
//! exact tables, top-level limit, output text, cap flag and statement kind. Each file is one test;
//! a test collects every failure and reports them all at once.

#![allow(clippy::print_stdout, clippy::unwrap_used)]

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use nao_guard::{Policy, ReadOnlySql, Rejection, SqlDialect, analyze, check};
use serde::Deserialize;

/// Every rejection code a case may expect.
const REJECT_CODES: &[&str] = &[
    "empty",
    "too_long",
    "too_deep",
    "control_character",
    "confusable",
    "parse",
    "multiple_statements",
    "not_a_query",
    "introspection_disabled",
    "write_in_query",
    "select_into",
    "locking",
    "session_change",
    "function",
    "file_reference",
    "executable_comment",
    "table_not_allowed",
    "column_not_allowed",
    "implicit_call",
    "sensitive",
];

const FUNCTION_CLASSES: &[&str] = &[
    "side_effect",
    "sleep",
    "lock",
    "file_access",
    "network",
    "executes_sql",
    "administrative",
    "unknown",
    "denied_by_policy",
    "secrets",
];

const KINDS: &[&str] = &["query", "explain", "introspection"];

/// The files of `testdata/`, one test each; `every_testdata_file_is_run` keeps this list complete.
const FILES: &[&str] = &[
    "reads.toml",
    "writes.toml",
    "functions.toml",
    "tricks.toml",
    "malformed.toml",
    "policy.toml",
    "limits.toml",
    "introspection.toml",
    "attribute_calls.toml",
    "literals.toml",
    "executable_comments.toml",
    "sensitive.toml",
    "engine_syntax.toml",
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseFile {
    case: Vec<Case>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    sql: String,
    dialects: Option<Vec<String>>,
    expect: Option<String>,
    expect_any: Option<Vec<String>>,
    class: Option<String>,
    tables: Option<Vec<String>>,
    /// The functions `analyze` finds, as written, in order.
    functions: Option<Vec<String>>,
    limit: Option<LimitExpect>,
    sql_out: Option<String>,
    cap_applied: Option<bool>,
    kind: Option<String>,
    policy: Option<PolicySpec>,
    /// Free text for the reader; not checked.
    #[allow(dead_code)]
    note: Option<String>,
}

/// `limit = 10`, or `limit = "none"` for a query without a top-level limit.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum LimitExpect {
    Rows(u64),
    Word(String),
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicySpec {
    row_cap: Option<u64>,
    allowed_tables: Option<Vec<String>>,
    denied_tables: Option<Vec<String>>,
    denied_columns: Option<Vec<String>>,
    allowed_functions: Option<Vec<String>>,
    denied_functions: Option<Vec<String>>,
    introspection: Option<bool>,
    unknown_functions: Option<bool>,
    max_sql_bytes: Option<usize>,
    max_nesting: Option<usize>,
    max_operator_chain: Option<usize>,
}

impl PolicySpec {
    fn build(&self) -> Policy {
        let mut p = Policy::default();
        if let Some(cap) = self.row_cap {
            p = p.with_row_cap(cap);
        }
        for t in self.allowed_tables.iter().flatten() {
            p = p.allow_table(t.as_str());
        }
        for t in self.denied_tables.iter().flatten() {
            p = p.deny_table(t.as_str());
        }
        for c in self.denied_columns.iter().flatten() {
            p = p.deny_column(c.as_str());
        }
        for f in self.allowed_functions.iter().flatten() {
            p = p.allow_function(f);
        }
        for f in self.denied_functions.iter().flatten() {
            p = p.deny_function(f);
        }
        if let Some(on) = self.introspection {
            p = p.with_introspection(on);
        }
        if let Some(on) = self.unknown_functions {
            p = p.with_unknown_functions_allowed(on);
        }
        if let Some(n) = self.max_sql_bytes {
            p = p.with_max_sql_bytes(n);
        }
        if let Some(n) = self.max_nesting {
            p = p.with_max_nesting(n);
        }
        if let Some(n) = self.max_operator_chain {
            p = p.with_max_operator_chain(n);
        }
        p
    }
}

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata")
}

fn load(file: &str) -> Vec<Case> {
    let path = testdata().join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let parsed: CaseFile =
        toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parsed.case
}

fn is_kebab(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// The acceptable verdict codes of a case, after checking that the case is well formed.
fn validate(case: &Case) -> Result<(Vec<String>, Vec<SqlDialect>), String> {
    if !is_kebab(&case.name) {
        return Err("name must be kebab-case".into());
    }
    let expected: Vec<String> = match (&case.expect, &case.expect_any) {
        (Some(one), None) => vec![one.clone()],
        (None, Some(any)) if any.len() >= 2 => any.clone(),
        (None, Some(_)) => return Err("expect_any needs at least two codes; use expect".into()),
        _ => return Err("exactly one of expect / expect_any is required".into()),
    };
    for code in &expected {
        if code != "ok" && !REJECT_CODES.contains(&code.as_str()) {
            return Err(format!("unknown verdict code {code:?}"));
        }
    }
    let only_ok = expected == ["ok"];
    let ok_fields = case.tables.is_some()
        || case.functions.is_some()
        || case.limit.is_some()
        || case.sql_out.is_some()
        || case.cap_applied.is_some()
        || case.kind.is_some();
    if ok_fields && !only_ok {
        return Err("tables/limit/sql_out/cap_applied/kind only go with expect = \"ok\"".into());
    }
    if let Some(class) = &case.class {
        if !matches!(case.expect.as_deref(), Some("function" | "implicit_call")) {
            return Err("class only goes with expect = \"function\" or \"implicit_call\"".into());
        }
        if !FUNCTION_CLASSES.contains(&class.as_str()) {
            return Err(format!("unknown function class {class:?}"));
        }
    }
    if let Some(LimitExpect::Word(w)) = &case.limit
        && w != "none"
    {
        return Err(format!("limit must be a number or \"none\", not {w:?}"));
    }
    if let Some(kind) = &case.kind
        && !KINDS.contains(&kind.as_str())
    {
        return Err(format!("unknown kind {kind:?}"));
    }
    let dialects = match &case.dialects {
        None => SqlDialect::ALL.to_vec(),
        Some(names) => {
            if names.is_empty() {
                return Err("dialects, when given, must not be empty".into());
            }
            let mut seen = HashSet::new();
            let mut out = Vec::new();
            for n in names {
                let d: SqlDialect = n.parse().map_err(|e| format!("{e}"))?;
                if d.name() != n {
                    return Err(format!(
                        "write the canonical dialect name {:?}, not {n:?}",
                        d.name()
                    ));
                }
                if !seen.insert(d) {
                    return Err(format!("dialect {n} listed twice"));
                }
                out.push(d);
            }
            out
        }
    };
    Ok((expected, dialects))
}

fn describe_ok(ok: &ReadOnlySql) -> String {
    let tables: Vec<String> = ok.tables().iter().map(ToString::to_string).collect();
    format!(
        "Ok {{ kind: {:?}, sql: {:?}, tables: {:?}, limit: {:?}, cap_applied: {} }}",
        ok.kind(),
        ok.sql(),
        tables,
        ok.limit(),
        ok.cap_applied()
    )
}

fn describe_err(r: &Rejection) -> String {
    format!(
        "Err {{ kind: {:?}, code: {}, message: {:?} }}",
        r.kind(),
        r.kind().code(),
        r.message()
    )
}

/// The function class code of a rejection, when it is a function rejection.
fn function_class(r: &Rejection) -> Option<&'static str> {
    match r.kind() {
        nao_guard::RejectKind::Function { class, .. }
        | nao_guard::RejectKind::ImplicitCall { class, .. } => Some(class.code()),
        _ => None,
    }
}

/// Whether `out` is `original` less trailing whitespace, semicolons and comments: `out` is a
/// prefix of it and the guard itself finds nothing but emptiness in the rest.
fn is_original_text(original: &str, out: &str, dialect: SqlDialect) -> bool {
    let Some(at) = original.find(out) else {
        return false;
    };
    let (lead, rest) = (&original[..at], &original[at + out.len()..]);
    let nothing = |text: &str| {
        text.trim().is_empty()
            || check(text, dialect, &Policy::default()).is_err_and(|r| r.kind().code() == "empty")
    };
    !out.trim().is_empty() && nothing(lead) && nothing(rest)
}

/// Runs one case in one dialect; every problem found is pushed to `problems`.
fn run_one(case: &Case, expected: &[String], dialect: SqlDialect, problems: &mut Vec<String>) {
    let spec = case.policy.as_ref();
    let policy = spec.map(PolicySpec::build).unwrap_or_default();
    let verdict = check(&case.sql, dialect, &policy);
    let analysis = analyze(&case.sql, dialect, &policy);
    let want = if expected.len() == 1 {
        expected[0].clone()
    } else {
        format!("any of {expected:?}")
    };
    match &verdict {
        Ok(ok) => {
            if !expected.iter().any(|e| e == "ok") {
                problems.push(format!("expected {want}, got {}", describe_ok(ok)));
                return;
            }
            if !analysis.is_read_only() || !analysis.rejections().is_empty() {
                let codes: Vec<&str> = analysis
                    .rejections()
                    .iter()
                    .map(|r| r.kind().code())
                    .collect();
                problems.push(format!(
                    "check is Ok but analyze is not read-only: {codes:?}"
                ));
            }
            if analysis.tables() != ok.tables() {
                problems.push(format!(
                    "analyze tables {:?} differ from check tables {:?}",
                    analysis
                        .tables()
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>(),
                    ok.tables()
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                ));
            }
            if analysis.limit() != ok.limit() {
                problems.push(format!(
                    "analyze limit {:?} differs from check limit {:?}",
                    analysis.limit(),
                    ok.limit()
                ));
            }
            if ok.dialect() != dialect {
                problems.push(format!(
                    "dialect() is {} instead of {dialect}",
                    ok.dialect()
                ));
            }
            let mut mismatch = Vec::new();
            if let Some(tables) = &case.tables {
                let got: Vec<String> = ok.tables().iter().map(ToString::to_string).collect();
                if &got != tables {
                    mismatch.push(format!("tables {tables:?}"));
                }
            }
            if let Some(functions) = &case.functions
                && analysis.functions() != functions.as_slice()
            {
                mismatch.push(format!(
                    "functions {functions:?} (analyze found {:?})",
                    analysis.functions()
                ));
            }
            match &case.limit {
                Some(LimitExpect::Rows(n)) if ok.limit() != Some(*n) => {
                    mismatch.push(format!("limit {n}"));
                }
                Some(LimitExpect::Word(_)) if ok.limit().is_some() => {
                    mismatch.push("no limit".to_owned());
                }
                _ => {}
            }
            if let Some(out) = &case.sql_out
                && ok.sql() != out
            {
                mismatch.push(format!("sql {out:?}"));
            }
            if let Some(cap) = case.cap_applied
                && ok.cap_applied() != cap
            {
                mismatch.push(format!("cap_applied {cap}"));
            }
            if let Some(kind) = &case.kind {
                let got = format!("{:?}", ok.kind()).to_lowercase();
                if &got != kind {
                    mismatch.push(format!("kind {kind}"));
                }
            }
            if !mismatch.is_empty() {
                problems.push(format!(
                    "expected {}, got {}",
                    mismatch.join(", "),
                    describe_ok(ok)
                ));
            }
            if policy.row_cap().is_none() && ok.cap_applied() {
                problems.push("cap_applied is true without a row cap in the policy".to_owned());
            }
            if !ok.cap_applied() && !is_original_text(&case.sql, ok.sql(), dialect) {
                problems.push(format!(
                    "without a cap the text must be the original (less leading semicolons and \
                     trailing semicolons and comments), got {:?}",
                    ok.sql()
                ));
            }
            if let Some(cap) = policy.row_cap()
                && ok.cap_applied()
            {
                // The rewritten text must itself pass, and pass the same cap without change.
                match check(ok.sql(), dialect, &Policy::default()) {
                    Ok(_) => {}
                    Err(e) => problems.push(format!(
                        "rewritten text {:?} is rejected by the default policy: {}",
                        ok.sql(),
                        describe_err(&e)
                    )),
                }
                match check(ok.sql(), dialect, &policy) {
                    Ok(again) => {
                        if again.cap_applied() || again.limit().is_none_or(|l| l > cap) {
                            problems.push(format!(
                                "rewritten text {:?} is not stable under the cap: {}",
                                ok.sql(),
                                describe_ok(&again)
                            ));
                        }
                    }
                    Err(e) => problems.push(format!(
                        "rewritten text {:?} is rejected by the same policy: {}",
                        ok.sql(),
                        describe_err(&e)
                    )),
                }
            }
        }
        Err(rejection) => {
            let code = rejection.kind().code();
            if !expected.iter().any(|e| e == code) {
                problems.push(format!("expected {want}, got {}", describe_err(rejection)));
            } else if let Some(class) = &case.class
                && function_class(rejection) != Some(class.as_str())
            {
                problems.push(format!(
                    "expected function class {class}, got {}",
                    describe_err(rejection)
                ));
            }
            if rejection.message().trim().is_empty() {
                problems.push(format!("empty message for {code}"));
            }
            if rejection.dialect() != dialect {
                problems.push(format!(
                    "rejection dialect is {} instead of {dialect}",
                    rejection.dialect()
                ));
            }
            if analysis.is_read_only() || analysis.rejections().is_empty() {
                problems.push(format!(
                    "check rejects ({code}) but analyze finds it read-only"
                ));
            }
            for r in analysis.rejections() {
                if r.message().trim().is_empty() {
                    problems.push(format!("analyze: empty message for {}", r.kind().code()));
                }
            }
        }
    }
}

/// Runs every case of one file; returns (cases, checks, failures).
fn run_file(file: &str) -> (usize, usize, Vec<String>) {
    let cases = load(file);
    let mut failures = Vec::new();
    let mut checks = 0;
    let mut names = HashSet::new();
    for case in &cases {
        if !names.insert(case.name.clone()) {
            failures.push(format!("{file}: {}: duplicate case name", case.name));
            continue;
        }
        let (expected, dialects) = match validate(case) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{file}: {}: malformed case: {e}", case.name));
                continue;
            }
        };
        for dialect in dialects {
            checks += 1;
            let mut problems = Vec::new();
            run_one(case, &expected, dialect, &mut problems);
            for p in problems {
                failures.push(format!(
                    "{file}: {} [{dialect}]\n    sql: {:?}\n    {p}",
                    case.name, case.sql
                ));
            }
        }
    }
    (cases.len(), checks, failures)
}

fn run_and_report(file: &str) {
    let (cases, checks, failures) = run_file(file);
    println!(
        "guard cases ({file}): {cases} cases × dialects = {checks} checks, {} failures",
        failures.len()
    );
    if !failures.is_empty() {
        let mut report = String::new();
        for f in &failures {
            let _ = writeln!(report, "{f}");
        }
        panic!(
            "{} of {checks} checks failed in {file}:\n{report}",
            failures.len()
        );
    }
}

macro_rules! case_file_tests {
    ($($test:ident => $file:literal,)*) => {
        $(
            #[test]
            fn $test() {
                run_and_report($file);
            }
        )*
    };
}

case_file_tests! {
    reads => "reads.toml",
    writes => "writes.toml",
    functions => "functions.toml",
    tricks => "tricks.toml",
    malformed => "malformed.toml",
    policy => "policy.toml",
    limits => "limits.toml",
    introspection => "introspection.toml",
    attribute_calls => "attribute_calls.toml",
    literals => "literals.toml",
    executable_comments => "executable_comments.toml",
    sensitive => "sensitive.toml",
    engine_syntax => "engine_syntax.toml",
}

#[test]
fn every_testdata_file_is_run() {
    let mut on_disk: Vec<String> = std::fs::read_dir(testdata())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = FILES.iter().map(|s| (*s).to_owned()).collect();
    listed.sort();
    assert_eq!(
        on_disk, listed,
        "add new testdata files to FILES and to case_file_tests!"
    );
}

#[test]
fn case_names_are_unique_across_files_and_the_table_is_big_enough() {
    let mut seen: BTreeMap<String, &str> = BTreeMap::new();
    let mut dupes = Vec::new();
    let mut total = 0;
    let mut checks = 0;
    for file in FILES {
        for case in load(file) {
            total += 1;
            checks += case
                .dialects
                .as_ref()
                .map_or(SqlDialect::ALL.len(), Vec::len);
            if let Some(other) = seen.insert(case.name.clone(), file) {
                dupes.push(format!("{} in {other} and {file}", case.name));
            }
        }
    }
    println!("guard cases: {total} cases × dialects = {checks} checks");
    assert!(dupes.is_empty(), "duplicate case names: {dupes:?}");
    assert!(
        total >= 300,
        "the table should hold at least 300 cases, has {total}"
    );
}
