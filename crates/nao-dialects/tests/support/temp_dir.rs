//! A directory of the test's own under the system temporary directory.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A unique directory under the system temporary directory, removed on drop.
pub(crate) struct TestDir(pub(crate) PathBuf);

impl TestDir {
    /// A fresh, empty directory whose name holds `label`, this process's id and a counter.
    pub(crate) fn new(label: &str) -> Self {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "nao-dialects-test-{label}-{}-{n}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        TestDir(path)
    }

    /// `file` inside the directory.
    pub(crate) fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }

    /// The entries of `dir` (none when it does not exist).
    pub(crate) fn entries(dir: &Path) -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .map(|entries| entries.map(|e| e.unwrap().path()).collect())
            .unwrap_or_default()
    }

    /// Every file in the directory with its content, to prove nothing changed.
    pub(crate) fn snapshot(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut files: Vec<_> = TestDir::entries(&self.0)
            .into_iter()
            .map(|path| {
                let bytes = std::fs::read(&path).unwrap_or_default();
                (path, bytes)
            })
            .collect();
        files.sort();
        files
    }
}

impl Drop for TestDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A DuckDB database file in `dir` holding `t(n)` with the numbers `0..rows`.
#[cfg(feature = "duckdb")]
pub(crate) fn duckdb_database(dir: &TestDir, rows: u64) -> PathBuf {
    let path = dir.path("data.duckdb");
    let writer = duckdb::Connection::open(&path).unwrap();
    writer
        .execute_batch(&format!(
            "CREATE TABLE t AS SELECT range AS n FROM range({rows})"
        ))
        .unwrap();
    writer.close().unwrap();
    path
}
