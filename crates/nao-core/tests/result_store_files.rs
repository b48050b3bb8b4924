//! The result store leaves no files behind: spill files are removed when read back, when
//! writing or reading them fails, with the store, and after a crash by the next store.
//!
//! The full-disk tests need a small file system: set `NAO_TEST_TINY_FS` to a directory on one
//! (`.ci/run` mounts a 2 MiB tmpfs when it runs as root); without it they print why they skip.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod stored;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use nao_core::scratch::ScratchDir;
use nao_core::{QueryId, ResultStore};
use stored::result;

/// A budget that holds one result of `rows` rows and not two.
fn budget_for_one(rows: i64) -> usize {
    result(rows).memory_size() + 16
}

/// The host's spill directory for one test, removed at the end even when the test fails.
struct HostDir(PathBuf);

impl HostDir {
    fn in_temp(tag: &str) -> HostDir {
        HostDir::under(&std::env::temp_dir(), tag)
    }

    fn under(base: &Path, tag: &str) -> HostDir {
        let path = base.join(format!("nao-store-files-{tag}-{}", QueryId::random()));
        fs::create_dir_all(&path).unwrap();
        HostDir(path)
    }

    fn entries(&self) -> Vec<String> {
        names(&self.0)
    }
}

impl Drop for HostDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The spill files (not the marker) in the store's scratch directory.
fn spill_files(store: &ResultStore) -> Vec<String> {
    let dir = store.spill_path().expect("a spill made the directory");
    names(dir)
        .into_iter()
        .filter(|name| name != ScratchDir::MARKER)
        .collect()
}

#[tokio::test]
async fn a_result_read_back_leaves_its_file_and_is_written_anew_when_evicted_again() {
    let host = HostDir::in_temp("readback");
    let store = ResultStore::new(budget_for_one(2_000)).with_spill_dir(&host.0);
    let a = store.insert(result(2_000)).await;
    let b = store.insert(result(2_000)).await;
    let first_files = spill_files(&store);
    assert_eq!(first_files.len(), 1, "a is on disk: {first_files:?}");

    let back = store.get(&a.id).await.expect("a read back");
    assert_eq!(back.batches, a.batches);
    let files = spill_files(&store);
    assert_eq!(files.len(), 1, "only b's file, a's is gone: {files:?}");
    assert!(!files.contains(&first_files[0]), "a's file was removed");

    // a leaves memory again: it is written again, to a file of its own.
    let back_b = store.get(&b.id).await.expect("b read back");
    assert_eq!(back_b.batches, b.batches);
    let again = store.get(&a.id).await.expect("a read back again");
    assert_eq!(again.batches, a.batches);
    assert_eq!(spill_files(&store).len(), 1);
}

#[tokio::test]
async fn dropping_the_store_removes_its_directory_and_nothing_else() {
    let host = HostDir::in_temp("drop");
    fs::write(host.0.join("host-file.txt"), b"the host's").unwrap();
    let store = ResultStore::new(budget_for_one(1_000)).with_spill_dir(&host.0);
    assert!(
        store.spill_path().is_none(),
        "nothing is made before a spill"
    );
    for _ in 0..4 {
        store.insert(result(1_000)).await;
    }
    assert_eq!(spill_files(&store).len(), 3);
    let scratch = store.spill_path().unwrap().to_path_buf();
    assert!(scratch.is_dir());

    drop(store);
    assert!(
        !scratch.exists(),
        "the scratch directory goes with the store"
    );
    assert_eq!(host.entries(), vec!["host-file.txt".to_owned()]);
}

#[tokio::test]
async fn two_stores_on_one_directory_do_not_meet() {
    let host = HostDir::in_temp("two");
    let one = ResultStore::new(budget_for_one(500)).with_spill_dir(&host.0);
    let two = ResultStore::new(budget_for_one(500)).with_spill_dir(&host.0);
    let a1 = one.insert(result(500)).await;
    one.insert(result(500)).await;
    let a2 = two.insert(result(700)).await;
    two.insert(result(500)).await;
    assert_ne!(one.spill_path(), two.spill_path());
    assert_eq!(host.entries().len(), 2, "{:?}", host.entries());

    drop(one);
    assert_eq!(host.entries().len(), 1, "one's directory only is gone");
    assert!(two.get(&a1.id).await.is_none(), "ids are per store");
    let back = two.get(&a2.id).await.expect("two's own spill is intact");
    assert_eq!(back.row_count, 700);
}

#[tokio::test]
async fn an_unreadable_spill_file_is_removed_and_its_result_dropped() {
    let host = HostDir::in_temp("unreadable");
    let store = ResultStore::new(budget_for_one(1_000)).with_spill_dir(&host.0);
    let a = store.insert(result(1_000)).await;
    let b = store.insert(result(1_000)).await;
    let files = spill_files(&store);
    assert_eq!(files.len(), 1);
    let path = store.spill_path().unwrap().join(&files[0]);
    fs::write(&path, b"not an Arrow IPC file").unwrap();

    assert!(
        store.get(&a.id).await.is_none(),
        "a result that cannot be read is dropped"
    );
    assert!(!path.exists(), "and its file removed");
    assert!(!store.ids().contains(&a.id));
    assert!(store.get(&b.id).await.is_some());
    assert!(spill_files(&store).is_empty());
}

#[tokio::test]
async fn a_result_stored_again_under_its_id_removes_its_old_file() {
    let host = HostDir::in_temp("replace");
    let store = ResultStore::new(budget_for_one(1_000)).with_spill_dir(&host.0);
    let a = store.insert(result(1_000)).await;
    store.insert(result(10)).await;
    assert_eq!(spill_files(&store).len(), 1);
    let mut again = result(20);
    again.id = a.id.clone();
    store.insert(again).await;
    // Both fit in memory now; a's old file is of no use and gone.
    let files = spill_files(&store);
    assert!(files.is_empty(), "{files:?}");
    assert_eq!(store.get(&a.id).await.unwrap().row_count, 20);
}

#[tokio::test]
async fn a_spill_directory_that_cannot_be_made_drops_results_and_keeps_serving() {
    let host = HostDir::in_temp("nodir");
    let not_a_dir = host.0.join("a-file");
    fs::write(&not_a_dir, b"in the way").unwrap();
    let store = ResultStore::new(budget_for_one(1_000)).with_spill_dir(&not_a_dir);
    let a = store.insert(result(1_000)).await;
    let b = store.insert(result(1_000)).await;
    assert!(
        store.get(&a.id).await.is_none(),
        "the evicted result is dropped"
    );
    assert!(store.get(&b.id).await.is_some(), "the newest is kept");
    assert!(store.spill_path().is_none());
    let c = store.insert(result(5)).await;
    assert!(store.get(&c.id).await.is_some(), "later inserts work");
    assert_eq!(host.entries(), vec!["a-file".to_owned()]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_reads_of_one_spilled_result_agree_and_leave_one_file_at_most() {
    let host = HostDir::in_temp("concurrent");
    let store = Arc::new(ResultStore::new(budget_for_one(3_000)).with_spill_dir(&host.0));
    let a = store.insert(result(3_000)).await;
    let b = store.insert(result(3_000)).await;
    let mut readers = Vec::new();
    for n in 0..16 {
        let store = store.clone();
        let id = if n % 2 == 0 {
            a.id.clone()
        } else {
            b.id.clone()
        };
        readers.push(tokio::spawn(async move { store.get(&id).await }));
    }
    for reader in readers {
        let found = reader.await.unwrap().expect("every read finds its result");
        let expected = if found.id == a.id { &a } else { &b };
        assert_eq!(found.batches, expected.batches);
    }
    // One of the two is in memory and the other on disk, in exactly one file.
    assert_eq!(spill_files(&store).len(), 1, "{:?}", spill_files(&store));
    let scratch = store.spill_path().unwrap().to_path_buf();
    drop(store);
    assert!(!scratch.exists());
}

const CRASH_CHILD: &str = "NAO_TEST_STORE_CRASH_DIR";

/// In a child process: spill a result, then die without running destructors.
fn crash_child() {
    let Some(dir) = std::env::var_os(CRASH_CHILD) else {
        return;
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(async {
        let store = ResultStore::new(budget_for_one(1_000)).with_spill_dir(PathBuf::from(dir));
        store.insert(result(1_000)).await;
        store.insert(result(1_000)).await;
        assert_eq!(spill_files(&store).len(), 1);
        // Dies with the store alive: nothing is dropped.
        std::process::abort();
    })
}

/// Runs `test_name` in a child process that crashes with a spilled result in `host`, then
/// checks that the next store to spill there removes what the crash left.
fn crash_then_sweep(test_name: &str, host: &HostDir) {
    let status = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test_name, "--test-threads=1", "--nocapture"])
        .env(CRASH_CHILD, &host.0)
        .status()
        .unwrap();
    assert!(!status.success(), "the child aborts");
    let left = host.entries();
    assert_eq!(left.len(), 1, "the crash left its directory: {left:?}");
    let crashed = host.0.join(&left[0]);
    assert!(left[0].starts_with(ResultStore::SPILL_PREFIX));
    assert_eq!(names(&crashed).len(), 2, "marker and one spill file");

    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(async {
        let store = ResultStore::new(budget_for_one(1_000)).with_spill_dir(&host.0);
        store.insert(result(1_000)).await;
        store.insert(result(1_000)).await;
        assert!(!crashed.exists(), "the crashed store's directory is swept");
        let own = store.spill_path().unwrap();
        assert_eq!(host.entries(), names(own.parent().unwrap()));
        assert_eq!(host.entries().len(), 1);
        drop(store);
        assert!(host.entries().is_empty());
    });
}

#[test]
fn a_crashed_store_s_directory_is_swept_by_the_next_store() {
    crash_child();
    let host = HostDir::in_temp("crash");
    crash_then_sweep(
        "a_crashed_store_s_directory_is_swept_by_the_next_store",
        &host,
    );
}

/// The small file system, or `None` (after saying why) when the test should skip.
fn tiny_fs() -> Option<PathBuf> {
    match std::env::var_os("NAO_TEST_TINY_FS") {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => {
            eprintln!(
                "NAO_TEST_TINY_FS is not set: skipping the full-disk test (set it to a directory \
                 on a small file system, e.g. a 2 MiB tmpfs)"
            );
            None
        }
    }
}

/// The tiny file system tests fill it: one at a time.
static TINY_FS: Mutex<()> = Mutex::new(());

#[test]
fn on_a_full_disk_a_failed_spill_leaves_no_file_and_drops_the_result() {
    let Some(tiny) = tiny_fs() else { return };
    let _one_at_a_time = TINY_FS.lock().unwrap_or_else(|e| e.into_inner());
    let host = HostDir::under(&tiny, "full");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(async {
        let store = ResultStore::new(budget_for_one(1_000)).with_spill_dir(&host.0);
        // 8 MB of Arrow data: more than the whole file system holds.
        let big = store.insert(result(1_000_000)).await;
        let small = store.insert(result(1_000)).await;
        assert!(
            store.get(&big.id).await.is_none(),
            "a failed spill drops the result"
        );
        assert!(!store.ids().contains(&big.id));
        assert!(
            spill_files(&store).is_empty(),
            "the partial file is removed: {:?}",
            spill_files(&store)
        );
        // The space came back: a file of most of the file system fits again.
        let probe = host.0.join("probe");
        fs::write(&probe, vec![0u8; 1 << 20]).expect("the failed spill freed its space");
        fs::remove_file(&probe).unwrap();

        // Later inserts spill and read back as usual.
        let later = store.insert(result(1_000)).await;
        assert_eq!(spill_files(&store).len(), 1, "small is on disk");
        let back = store.get(&small.id).await.expect("small read back");
        assert_eq!(back.batches, small.batches);
        let files = spill_files(&store);
        assert_eq!(
            files.len(),
            1,
            "small's file is gone, later's written: {files:?}"
        );
        assert_eq!(store.get(&later.id).await.unwrap().batches, later.batches);

        let scratch = store.spill_path().unwrap().to_path_buf();
        drop(store);
        assert!(
            !scratch.exists(),
            "the scratch directory goes with the store"
        );
        assert!(host.entries().is_empty(), "{:?}", host.entries());
    });
}

#[test]
fn on_a_tiny_fs_a_crashed_store_s_directory_is_swept() {
    crash_child();
    let Some(tiny) = tiny_fs() else { return };
    let _one_at_a_time = TINY_FS.lock().unwrap_or_else(|e| e.into_inner());
    let host = HostDir::under(&tiny, "crash");
    crash_then_sweep("on_a_tiny_fs_a_crashed_store_s_directory_is_swept", &host);
}
