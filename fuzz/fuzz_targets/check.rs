//! Fuzzes `nao_guard::check` and `analyze`: the first byte picks the dialect, the rest is the SQL
//! (lossy UTF-8). Beyond "never panics, never overflows the stack", it asserts the invariants
//! every verdict must keep.

#![no_main]

use libfuzzer_sys::fuzz_target;
use nao_guard::{Policy, SqlDialect, analyze, check};

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let dialect = SqlDialect::ALL[usize::from(first) % SqlDialect::ALL.len()];
    let sql = String::from_utf8_lossy(rest);

    let default = Policy::default();
    let strict = Policy::default()
        .with_row_cap(100)
        .deny_table("secrets")
        .deny_table("hr.*")
        .deny_column("customers.email")
        .deny_function("upper");

    for policy in [&default, &strict] {
        let verdict = check(&sql, dialect, policy);
        let analysis = analyze(&sql, dialect, policy);
        match &verdict {
            Ok(ok) => {
                assert!(
                    analysis.rejections().is_empty() && analysis.is_read_only(),
                    "check Ok but analyze rejects in {dialect}: {sql:?}"
                );
                assert_eq!(ok.dialect(), dialect);
                if ok.cap_applied() {
                    // The rewritten text must pass on its own, and keep within the cap.
                    let again = check(ok.sql(), dialect, &Policy::default());
                    assert!(
                        again.is_ok(),
                        "rewritten text rejected in {dialect}: {sql:?} -> {:?}: {:?}",
                        ok.sql(),
                        again.err().map(|e| e.message())
                    );
                    let capped = check(ok.sql(), dialect, policy);
                    assert!(
                        capped.as_ref().is_ok_and(|c| !c.cap_applied()),
                        "rewritten text not stable under the cap in {dialect}: {sql:?} -> {:?}",
                        ok.sql()
                    );
                }
            }
            Err(rejection) => {
                assert!(!rejection.message().is_empty());
                if policy.row_cap().is_none() {
                    assert!(
                        !analysis.is_read_only(),
                        "check rejects ({}) but analyze finds it read-only in {dialect}: {sql:?}",
                        rejection.kind().code()
                    );
                }
            }
        }
    }
});
