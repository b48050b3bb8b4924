//! The result store: ids, memory budget, LRU eviction, spill to Arrow IPC and reading back.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod stored;

use std::sync::Arc;

use nao_core::{QueryId, ResultStore};
use stored::result;

fn unique_dir(tag: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("nao-store-{tag}-{}", QueryId::random()))
}

#[tokio::test]
async fn results_are_found_by_id_and_shared() {
    let store = ResultStore::default();
    let stored = store.insert(result(10)).await;
    let found = store.get(&stored.id).await.expect("stored result");
    assert!(
        Arc::ptr_eq(&stored, &found),
        "a get returns the stored batches, not a copy"
    );
    assert!(store.get(&QueryId::from_model("q_unknown")).await.is_none());
}

#[tokio::test]
async fn least_recently_used_results_are_dropped_past_the_budget() {
    let one = result(1_000);
    let budget = one.memory_size() * 2 + one.memory_size() / 2;
    let store = ResultStore::new(budget);
    let a = store.insert(one).await;
    let b = store.insert(result(1_000)).await;
    assert!(store.get(&a.id).await.is_some()); // a is now more recent than b
    let c = store.insert(result(1_000)).await;
    assert!(
        store.get(&b.id).await.is_none(),
        "the least recently used result is dropped"
    );
    assert!(store.get(&a.id).await.is_some());
    assert!(store.get(&c.id).await.is_some());
    assert!(store.memory_in_use() <= budget);
}

#[tokio::test]
async fn evicted_results_spill_to_disk_and_page_later() {
    let dir = unique_dir("spill");
    let one = result(5_000);
    let store = ResultStore::new(one.memory_size() + 16).with_spill_dir(&dir);
    let first = store.insert(one).await;
    let second = store.insert(result(7)).await;
    let scratch = store
        .spill_path()
        .expect("the first spill made a directory");
    assert_eq!(
        scratch.parent(),
        Some(dir.as_path()),
        "inside the host's directory"
    );
    let spill_file = scratch.join("1.arrow");
    assert!(
        spill_file.exists(),
        "the evicted result is written to {}",
        spill_file.display()
    );
    let back = store
        .get(&first.id)
        .await
        .expect("read back from the spill file");
    assert_eq!(back.row_count, 5_000);
    assert_eq!(
        back.batches, first.batches,
        "the batches read back are the ones stored"
    );
    assert_eq!(back.sql, "SELECT n FROM t");
    assert!(!spill_file.exists(), "a result read back leaves its file");
    // Reading it back made room by spilling the other one.
    assert!(store.get(&second.id).await.is_some());
    let scratch = scratch.to_path_buf();
    drop(store);
    assert!(!scratch.exists(), "spill files are removed with the store");
    assert!(dir.is_dir(), "the host's directory stays");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_result_larger_than_the_budget_is_still_kept_while_newest() {
    let store = ResultStore::new(16);
    let big = store.insert(result(10_000)).await;
    assert!(store.get(&big.id).await.is_some());
    let newer = store.insert(result(10)).await;
    assert!(store.get(&big.id).await.is_none());
    assert!(store.get(&newer.id).await.is_some());
}
