//! Private scratch directories that are removed when dropped and, after a crash, by the next
//! process that makes one in the same place.
//!
//! A [`ScratchDir`] is a fresh directory `<parent>/<prefix>-<pid>-<unique>` (mode 0700 on Unix)
//! with a marker file, [`ScratchDir::MARKER`], on which it holds an exclusive lock for as long
//! as it lives. Dropping it removes the directory and everything in it. A process that dies
//! without dropping it (a crash, `abort`, a kill) leaves the directory behind, but the
//! operating system releases the lock with the process; the next [`ScratchDir::create_in`]
//! with the same parent and prefix sweeps every such directory whose marker lock it can take.
//!
//! ```
//! use nao_core::scratch::ScratchDir;
//!
//! let parent = std::env::temp_dir().join(format!("nao-scratch-doc-{}", std::process::id()));
//! let scratch = ScratchDir::create_in(&parent, "doc")?;
//! std::fs::write(scratch.path().join("spill.bin"), b"bytes")?;
//! let path = scratch.path().to_path_buf();
//! assert!(path.starts_with(&parent));
//!
//! drop(scratch);
//! assert!(!path.exists(), "the directory and its files are gone with the value");
//! # std::fs::remove_dir(&parent)?;
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! What is and is not removed: the sweep looks only at entries directly in `parent` named
//! exactly `<prefix>-<digits>-<letters or digits>`, that are real directories (never a symlink),
//! that contain a marker that is a regular file, and whose marker lock is free. A directory
//! without the marker is never touched, so a host's own files next to scratch directories are
//! safe. A process that crashes in the instant between making its directory and locking the
//! marker leaves a directory without a marker; it is left alone (it holds no data yet).

use std::fmt;
use std::fs::{self, File, TryLockError};
use std::io;
use std::path::{Path, PathBuf};

/// A private directory that exists for the life of the value; see the [module docs](self).
pub struct ScratchDir {
    path: PathBuf,
    /// The open marker file; its exclusive lock tells other processes this directory is live.
    /// `None` only while dropping.
    lock: Option<File>,
}

/// How many fresh names to try when one is taken (by a name clash or a concurrent sweep).
const CREATE_ATTEMPTS: usize = 16;

impl ScratchDir {
    /// The name of the marker file in every scratch directory. Its lock, held by the owning
    /// [`ScratchDir`], is how a sweep tells a live directory from one a dead process left.
    pub const MARKER: &'static str = ".nao-scratch-lock";

    /// Creates `parent` if missing, sweeps stale scratch directories with this `prefix` out of
    /// it (see [`sweep_stale`](Self::sweep_stale)), then creates and locks a fresh directory
    /// `<parent>/<prefix>-<pid>-<unique>`.
    ///
    /// # Errors
    /// `InvalidInput` when `prefix` is empty or contains a path separator, `..` or NUL;
    /// otherwise the I/O error that prevented
    /// creating `parent`, the directory or its locked marker (for example a read-only or full
    /// file system, or a platform without file locks).
    pub fn create_in(parent: &Path, prefix: &str) -> io::Result<ScratchDir> {
        validate_prefix(prefix)?;
        fs::create_dir_all(parent)?;
        // Sweeping is housekeeping: its failures are logged inside and never stop creation.
        let _ = Self::sweep_stale(parent, prefix);
        let mut last_error = None;
        for _ in 0..CREATE_ATTEMPTS {
            let path = parent.join(format!("{prefix}-{}-{:016x}", std::process::id(), unique()));
            match create_private_dir(&path) {
                Ok(()) => {}
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
                    last_error = Some(error);
                    continue;
                }
                Err(error) => return Err(error),
            }
            match lock_marker(&path) {
                Ok(Some(lock)) => {
                    return Ok(ScratchDir {
                        path,
                        lock: Some(lock),
                    });
                }
                // A concurrent sweep took or removed the directory: try a new name.
                Ok(None) => {
                    last_error = Some(io::Error::other(format!(
                        "scratch directory {} was swept while it was being created",
                        path.display()
                    )));
                }
                Err(error) => {
                    let _ = fs::remove_dir_all(&path);
                    return Err(error);
                }
            }
        }
        Err(last_error.unwrap_or_else(|| io::Error::other("no scratch directory name was free")))
    }

    /// Removes the stale scratch directories with this `prefix` directly in `parent`: those
    /// named `<prefix>-<pid>-<unique>` that are real directories holding a [marker](Self::MARKER)
    /// whose lock is free because the process that made them is gone. Returns how many were
    /// removed.
    ///
    /// [`create_in`](Self::create_in) calls this; a host may also call it at start-up to
    /// reclaim space before it needs a scratch directory. Problems with single entries are
    /// logged (with `tracing`) and skipped.
    ///
    /// # Errors
    /// `InvalidInput` for a bad `prefix` (as in `create_in`), or the error reading `parent`.
    pub fn sweep_stale(parent: &Path, prefix: &str) -> io::Result<usize> {
        validate_prefix(prefix)?;
        let entries = fs::read_dir(parent).inspect_err(|error| {
            tracing::warn!(parent = %parent.display(), %error, "could not list the scratch parent to sweep it");
        })?;
        let mut removed = 0;
        for entry in entries {
            let entry = match entry {
                Ok(entry) => entry,
                Err(error) => {
                    tracing::warn!(parent = %parent.display(), %error, "could not read a scratch parent entry");
                    continue;
                }
            };
            let is_ours = entry
                .file_name()
                .to_str()
                .is_some_and(|name| is_scratch_name(name, prefix));
            if is_ours && sweep_one(&entry.path()) {
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// The directory's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl fmt::Debug for ScratchDir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScratchDir")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        // On Unix the directory is removed while its lock is still held, so no sweep can race
        // with it; Windows cannot delete an open file, so it lets go of the marker first.
        #[cfg(not(unix))]
        drop(self.lock.take());
        if let Err(error) = fs::remove_dir_all(&self.path)
            && error.kind() != io::ErrorKind::NotFound
        {
            tracing::warn!(path = %self.path.display(), %error, "could not remove a scratch directory");
        }
        drop(self.lock.take());
    }
}

fn validate_prefix(prefix: &str) -> io::Result<()> {
    let problem = if prefix.is_empty() {
        Some("is empty")
    } else if prefix.chars().any(std::path::is_separator) {
        Some("contains a path separator")
    } else if prefix.contains("..") {
        Some("contains `..`")
    } else if prefix.contains('\0') {
        Some("contains a NUL character")
    } else {
        None
    };
    match problem {
        Some(problem) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "scratch directory prefix {prefix:?} {problem}; use a plain name such as \"nao-results\""
            ),
        )),
        None => Ok(()),
    }
}

/// `<prefix>-<digits>-<ascii letters or digits>`, exactly; other prefixes that merely start
/// with this one (`duckdb-sealed-…` for `duckdb`) do not match.
fn is_scratch_name(name: &str, prefix: &str) -> bool {
    let Some(rest) = name
        .strip_prefix(prefix)
        .and_then(|rest| rest.strip_prefix('-'))
    else {
        return false;
    };
    let Some((pid, unique)) = rest.split_once('-') else {
        return false;
    };
    !pid.is_empty()
        && pid.bytes().all(|b| b.is_ascii_digit())
        && !unique.is_empty()
        && unique.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// Removes one candidate if it is stale; true when it was removed.
fn sweep_one(dir: &Path) -> bool {
    // symlink_metadata: a symlink named like a scratch directory is not a directory here.
    match fs::symlink_metadata(dir) {
        Ok(meta) if meta.is_dir() => {}
        _ => return false,
    }
    let marker = dir.join(ScratchDir::MARKER);
    match fs::symlink_metadata(&marker) {
        Ok(meta) if meta.is_file() => {}
        _ => return false,
    }
    let file = match File::open(&marker) {
        Ok(file) => file,
        Err(error) => {
            tracing::debug!(path = %dir.display(), %error, "could not open a scratch marker; leaving the directory");
            return false;
        }
    };
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => return false,
        Err(TryLockError::Error(error)) => {
            tracing::debug!(path = %dir.display(), %error, "could not lock a scratch marker; leaving the directory");
            return false;
        }
    }
    // The owner is gone. Remove while holding its lock, so a creator that raced to this
    // name sees a failed lock or a missing marker and picks another name.
    #[cfg(not(unix))]
    drop(file);
    match fs::remove_dir_all(dir) {
        Ok(()) => {
            tracing::info!(path = %dir.display(), "removed a scratch directory left by a process that is gone");
            true
        }
        Err(error) => {
            tracing::warn!(path = %dir.display(), %error, "could not remove a stale scratch directory");
            false
        }
    }
}

fn create_private_dir(path: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(path)
}

/// Creates and locks the marker. `Ok(None)` when a concurrent sweep got there first: it holds
/// the lock, or it already removed the directory (the marker we locked is no longer the one
/// at the path).
fn lock_marker(dir: &Path) -> io::Result<Option<File>> {
    let marker = dir.join(ScratchDir::MARKER);
    let file = match File::create_new(&marker) {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error),
    };
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => return Ok(None),
        Err(TryLockError::Error(error)) => return Err(error),
    }
    if same_file(&file, &marker)? {
        Ok(Some(file))
    } else {
        Ok(None)
    }
}

/// Whether `path` still names the open `file` (a sweep may have removed it in between).
fn same_file(file: &File, path: &Path) -> io::Result<bool> {
    let at_path = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(error) => return Err(error),
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let open = file.metadata()?;
        Ok(open.dev() == at_path.dev() && open.ino() == at_path.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        Ok(at_path.is_file())
    }
}

/// A name part that differs between directories made at the same time by one process.
fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut bytes = [0u8; 8];
    // Uniqueness does not depend on it: a taken name is detected and another one tried.
    if getrandom::fill(&mut bytes).is_err() {
        bytes = COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes();
    }
    u64::from_le_bytes(bytes)
}
