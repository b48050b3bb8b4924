//! Scratch directories: removed on drop, stale ones (marker present, lock free) swept by the
//! next creation, live ones and everything that is not a scratch directory left alone.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use nao_core::QueryId;
use nao_core::scratch::ScratchDir;

/// A fresh parent directory for one test, removed at the end even when the test fails.
struct Parent(PathBuf);

impl Parent {
    fn new(tag: &str) -> Parent {
        let path =
            std::env::temp_dir().join(format!("nao-scratch-test-{tag}-{}", QueryId::random()));
        fs::create_dir_all(&path).unwrap();
        Parent(path)
    }

    fn entries(&self) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(&self.0)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

impl Drop for Parent {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// A directory as a dead owner leaves it: marker present, nobody holding its lock.
fn dead_owner_dir(parent: &Path, name: &str) -> PathBuf {
    let dir = parent.join(name);
    fs::create_dir(&dir).unwrap();
    fs::write(dir.join(ScratchDir::MARKER), b"").unwrap();
    fs::write(dir.join("spill.arrow"), b"left by a crash").unwrap();
    dir
}

#[test]
fn create_then_drop_leaves_nothing() {
    let parent = Parent::new("drop");
    let scratch = ScratchDir::create_in(&parent.0, "t").unwrap();
    let path = scratch.path().to_path_buf();
    assert_eq!(path.parent(), Some(parent.0.as_path()));
    let name = path.file_name().unwrap().to_str().unwrap().to_owned();
    assert!(
        name.starts_with(&format!("t-{}-", std::process::id())),
        "named <prefix>-<pid>-<unique>: {name}"
    );
    assert!(path.join(ScratchDir::MARKER).is_file());
    fs::create_dir(path.join("nested")).unwrap();
    fs::write(path.join("nested/file.bin"), vec![7u8; 4096]).unwrap();
    fs::write(path.join("file.bin"), b"data").unwrap();

    drop(scratch);
    assert!(
        parent.entries().is_empty(),
        "left behind: {:?}",
        parent.entries()
    );
}

#[test]
fn a_missing_parent_is_created() {
    let parent = Parent::new("missing");
    let nested = parent.0.join("a/b");
    let scratch = ScratchDir::create_in(&nested, "t").unwrap();
    assert!(scratch.path().is_dir());
    drop(scratch);
    assert!(nested.is_dir(), "the parent stays: it is the host's");
    assert_eq!(fs::read_dir(&nested).unwrap().count(), 0);
}

#[cfg(unix)]
#[test]
fn the_directory_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let parent = Parent::new("mode");
    let scratch = ScratchDir::create_in(&parent.0, "t").unwrap();
    let mode = fs::metadata(scratch.path()).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700, "mode {mode:o}");
}

#[test]
fn a_stale_directory_is_swept() {
    let parent = Parent::new("stale");
    let stale = dead_owner_dir(&parent.0, "t-999999-deadbeef");
    let scratch = ScratchDir::create_in(&parent.0, "t").unwrap();
    assert!(!stale.exists(), "a dead owner's directory is removed");
    let own = scratch
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert_eq!(parent.entries(), vec![own]);
}

#[test]
fn sweep_stale_alone_reports_what_it_removed() {
    let parent = Parent::new("sweep");
    dead_owner_dir(&parent.0, "t-1-a");
    dead_owner_dir(&parent.0, "t-2-b");
    let live = ScratchDir::create_in(&parent.0, "other").unwrap();
    assert_eq!(ScratchDir::sweep_stale(&parent.0, "t").unwrap(), 2);
    assert_eq!(ScratchDir::sweep_stale(&parent.0, "t").unwrap(), 0);
    assert_eq!(ScratchDir::sweep_stale(&parent.0, "other").unwrap(), 0);
    assert!(live.path().is_dir());
}

#[test]
fn a_live_directory_is_not_swept() {
    let parent = Parent::new("live");
    let first = ScratchDir::create_in(&parent.0, "t").unwrap();
    fs::write(first.path().join("data"), b"in use").unwrap();
    let second = ScratchDir::create_in(&parent.0, "t").unwrap();
    assert_ne!(first.path(), second.path());
    assert_eq!(
        fs::read(first.path().join("data")).unwrap(),
        b"in use",
        "another live directory with the same prefix is left alone"
    );
    assert_eq!(ScratchDir::sweep_stale(&parent.0, "t").unwrap(), 0);
    drop(first);
    drop(second);
    assert!(parent.entries().is_empty());
}

#[test]
fn what_is_not_a_stale_scratch_directory_is_untouched() {
    let parent = Parent::new("untouched");
    // Named like a scratch directory but without the marker: the host's, or half made.
    let unmarked = parent.0.join("t-123-abc");
    fs::create_dir(&unmarked).unwrap();
    fs::write(unmarked.join("keep"), b"host data").unwrap();
    // Another prefix that starts with this one.
    let other_prefix = dead_owner_dir(&parent.0, "t-sealed-123-abc");
    // A plain file named like a scratch directory.
    fs::write(parent.0.join("t-5-file"), b"a file").unwrap();
    // A marker that is a directory, not a file.
    let odd_marker = parent.0.join("t-6-odd");
    fs::create_dir_all(odd_marker.join(ScratchDir::MARKER)).unwrap();

    let scratch = ScratchDir::create_in(&parent.0, "t").unwrap();
    assert_eq!(fs::read(unmarked.join("keep")).unwrap(), b"host data");
    assert!(other_prefix.join("spill.arrow").is_file());
    assert!(parent.0.join("t-5-file").is_file());
    assert!(odd_marker.join(ScratchDir::MARKER).is_dir());
    drop(scratch);
}

#[cfg(unix)]
#[test]
fn a_symlink_named_like_a_scratch_directory_is_untouched() {
    let parent = Parent::new("symlink");
    // The link points at a directory that looks stale; neither may be removed.
    let target_parent = Parent::new("symlink-target");
    let target = dead_owner_dir(&target_parent.0, "elsewhere");
    let link = parent.0.join("t-42-cafe");
    std::os::unix::fs::symlink(&target, &link).unwrap();

    let scratch = ScratchDir::create_in(&parent.0, "t").unwrap();
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        target.join("spill.arrow").is_file(),
        "the link's target is untouched"
    );
    assert!(target.join(ScratchDir::MARKER).is_file());
    drop(scratch);
}

#[test]
fn bad_prefixes_are_refused() {
    let parent = Parent::new("prefix");
    for prefix in ["", "a/b", "..", "a..b", "nul\0"] {
        let error = ScratchDir::create_in(&parent.0, prefix).expect_err(prefix);
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput, "{prefix:?}");
        assert!(error.to_string().contains("prefix"), "{error}");
    }
    #[cfg(windows)]
    assert!(ScratchDir::create_in(&parent.0, "a\\b").is_err());
    assert!(parent.entries().is_empty(), "nothing made for a bad prefix");
}

const CRASH_CHILD: &str = "NAO_TEST_SCRATCH_CRASH_PARENT";

/// A real crash: a child process (this test binary again) creates a scratch directory, writes
/// into it and aborts without running any destructor; the next creation here sweeps it.
#[test]
fn a_directory_left_by_a_crashed_process_is_swept() {
    if let Some(parent) = std::env::var_os(CRASH_CHILD) {
        let scratch = ScratchDir::create_in(Path::new(&parent), "t").unwrap();
        fs::write(scratch.path().join("spill.arrow"), b"half written").unwrap();
        std::process::abort();
    }
    let parent = Parent::new("crash");
    let status = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_directory_left_by_a_crashed_process_is_swept",
            "--test-threads=1",
            "--nocapture",
        ])
        .env(CRASH_CHILD, &parent.0)
        .status()
        .unwrap();
    assert!(!status.success(), "the child aborts");
    let left = parent.entries();
    assert_eq!(left.len(), 1, "the crash left its directory: {left:?}");
    assert!(parent.0.join(&left[0]).join("spill.arrow").is_file());

    let scratch = ScratchDir::create_in(&parent.0, "t").unwrap();
    let own = scratch
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert_eq!(
        parent.entries(),
        vec![own],
        "the crashed process's directory is swept"
    );
}
