//! The result store shared by sessions: each reads only its own results, the budget is shared
//! fairly, and a session's results go with it. Through the store and through `ToolContext`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod stored;

use std::sync::Arc;

use nao_core::{Databases, QueryId, ResultStore, ToolCall, ToolContext, tools};
use nao_dialects::demo::DemoScale;
use nao_dialects::sqlite::SqliteDialect;
use serde_json::json;
use stored::result;

/// The memory of one `result(1_000)`.
fn unit() -> usize {
    result(1_000).memory_size()
}

async fn known(store: &ResultStore, id: &QueryId) -> bool {
    store.get(id).await.is_some()
}

#[tokio::test]
async fn a_session_reads_only_its_own_results_and_the_host_reads_all() {
    let store = ResultStore::default();
    let (one, two) = (store.session(), store.session());
    let mine = one.insert(result(10)).await;
    let theirs = two.insert(result(10)).await;
    assert!(known(&one, &mine.id).await);
    assert!(
        !known(&one, &theirs.id).await,
        "another session's id is unknown here"
    );
    assert!(!known(&two, &mine.id).await);
    assert!(known(&store, &mine.id).await && known(&store, &theirs.id).await);
    assert_eq!(one.ids(), vec![mine.id.clone()]);
    assert_eq!(store.ids().len(), 2);
    assert_eq!(one.memory_in_use(), mine.memory_size());
    assert_eq!(
        store.memory_in_use(),
        mine.memory_size() + theirs.memory_size()
    );
}

#[tokio::test]
async fn the_session_holding_the_most_memory_gives_up_its_own_results_first() {
    let store = ResultStore::new(unit() * 3 + unit() / 2);
    let (quiet, busy) = (store.session(), store.session());
    // The quiet session's result is the least recently used of all...
    let kept = quiet.insert(result(1_000)).await;
    let first = busy.insert(result(1_000)).await;
    let second = busy.insert(result(1_000)).await;
    let third = busy.insert(result(1_000)).await;
    // ...but the busy session holds three times as much, so its oldest goes.
    assert!(
        known(&quiet, &kept.id).await,
        "the quiet session keeps its result"
    );
    assert!(!known(&busy, &first.id).await);
    assert!(known(&busy, &second.id).await && known(&busy, &third.id).await);
    assert!(store.memory_in_use() <= unit() * 3 + unit() / 2);
}

#[tokio::test]
async fn a_sessions_newest_result_outlives_other_sessions_older_ones() {
    // One session holds the most memory in a single, newest result; the other stores two.
    let store = ResultStore::new(unit() * 4);
    let (big, small) = (store.session(), store.session());
    let newest = big.insert(result(2_500)).await;
    let old = small.insert(result(1_000)).await;
    let new = small.insert(result(1_000)).await;
    assert!(
        known(&big, &newest.id).await,
        "a newest result goes only when no older one is left"
    );
    assert!(!known(&small, &old.id).await);
    assert!(known(&small, &new.id).await);
}

#[tokio::test]
async fn newest_results_go_last_and_least_recently_used_first() {
    // Only newest results left: the one of the session holding the most goes.
    let store = ResultStore::new(unit() * 3);
    let (a, b, c) = (store.session(), store.session(), store.session());
    let a1 = a.insert(result(1_500)).await;
    let b1 = b.insert(result(1_000)).await;
    let c1 = c.insert(result(1_000)).await;
    assert!(!known(&a, &a1.id).await, "the biggest holder's result went");
    assert!(known(&b, &b1.id).await && known(&c, &c1.id).await);
}

#[tokio::test]
async fn dropping_a_session_drops_its_results_and_their_spill_files() {
    let dir = std::env::temp_dir().join(format!("nao-sessions-{}", QueryId::random()));
    let store = ResultStore::new(unit() + unit() / 2).with_spill_dir(&dir);
    let session = store.session();
    let spilled = session.insert(result(1_000)).await;
    let in_memory = session.insert(result(1_000)).await;
    let host = store.insert(result(10)).await;
    let scratch = store
        .spill_path()
        .expect("the first result spilled")
        .to_owned();
    let files = || {
        std::fs::read_dir(&scratch)
            .unwrap()
            .filter(|entry| {
                let name = entry.as_ref().unwrap().file_name();
                name.to_string_lossy().ends_with(".arrow")
            })
            .count()
    };
    assert_eq!(files(), 1, "one result is on disk");
    drop(session);
    assert_eq!(
        store.ids(),
        vec![host.id.clone()],
        "only the host's result is left"
    );
    assert_eq!(store.memory_in_use(), host.memory_size());
    assert!(!known(&store, &spilled.id).await && !known(&store, &in_memory.id).await);
    // The files go on a blocking thread.
    for _ in 0..500 {
        if files() == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(files(), 0, "the session's spill file is removed");
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn contexts_for_sessions_page_only_their_own_results() {
    let shop = SqliteDialect::demo("shop", DemoScale::Small).expect("demo database");
    let server = ToolContext::new(Databases::new().with(Arc::new(shop)));
    let registry = tools::sql_tools();
    let (alice, bob) = (server.for_session(), server.for_session());
    let run = registry
        .call(
            &ToolCall::new(
                "1",
                "execute_sql",
                json!({"sql_query": "SELECT id FROM customers"}),
            ),
            &alice,
        )
        .await;
    assert!(!run.is_error, "{}", run.content);
    let query_id = run.structured.as_ref().unwrap()["query_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let page = |ctx| {
        let call = ToolCall::new(
            "2",
            "read_query_result",
            json!({"query_id": query_id, "offset": 0, "limit": 5}),
        );
        let registry = &registry;
        async move { registry.call(&call, ctx).await }
    };
    assert!(!page(&alice).await.is_error, "the session pages its result");
    let elsewhere = page(&bob).await;
    assert!(elsewhere.is_error, "another session cannot page it");
    assert!(
        elsewhere.content.contains(&query_id),
        "{}",
        elsewhere.content
    );
    assert_eq!(server.results().ids().len(), 1, "the host sees it");
    drop(alice);
    assert!(
        server.results().ids().is_empty(),
        "the results of a session go with its last context"
    );
}
