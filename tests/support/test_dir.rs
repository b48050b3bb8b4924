//! A directory of one test's own under the system's temp directory, removed on drop.

use std::path::PathBuf;

use super::unique;

/// A directory of the test's own (`nao-<label>-<unique>`), removed on drop.
pub(crate) struct TestDir(pub(crate) PathBuf);

impl TestDir {
    /// A new, empty directory named after `label`.
    pub(crate) fn new(label: &str) -> TestDir {
        let dir = std::env::temp_dir().join(format!("nao-{label}-{}", unique()));
        std::fs::create_dir_all(&dir).unwrap();
        TestDir(dir)
    }

    /// The path of `file` in it.
    pub(crate) fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }
}

impl Drop for TestDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
