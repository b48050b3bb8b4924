//! Spill files: one Arrow IPC file per evicted result, in a private scratch directory made on
//! the first spill under the host's directory.

use std::fs::File;
use std::io::{self, BufReader, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use arrow_array::RecordBatch;
use arrow_ipc::reader::FileReader;
use arrow_ipc::writer::FileWriter;
use arrow_schema::ArrowError;

use crate::QueryResult;
use crate::scratch::ScratchDir;

/// The host's spill directory and, once a result was spilled, the store's own scratch
/// directory in it.
#[derive(Debug)]
pub(super) struct SpillDir {
    parent: PathBuf,
    prefix: &'static str,
    scratch: OnceLock<ScratchDir>,
    /// Makes the scratch directory once when several threads spill at the same time.
    creating: Mutex<()>,
}

/// Why a result could not be written; logged, then the result is dropped.
#[derive(Debug)]
pub(super) enum SpillFailure {
    /// The scratch directory could not be made.
    Directory { parent: PathBuf, error: io::Error },
    /// Writing the file failed (it was removed).
    Write { path: PathBuf, error: ArrowError },
}

impl std::fmt::Display for SpillFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpillFailure::Directory { parent, error } => write!(
                f,
                "could not make a spill directory in {}: {error}",
                parent.display()
            ),
            SpillFailure::Write { path, error } => {
                write!(f, "could not write spill file {}: {error}", path.display())
            }
        }
    }
}

impl SpillDir {
    pub(super) fn new(parent: PathBuf, prefix: &'static str) -> SpillDir {
        SpillDir {
            parent,
            prefix,
            scratch: OnceLock::new(),
            creating: Mutex::new(()),
        }
    }

    /// The scratch directory, if a spill has made it.
    pub(super) fn made(&self) -> Option<&Path> {
        self.scratch.get().map(ScratchDir::path)
    }

    /// The scratch directory, made (after sweeping those of dead processes) on first use.
    /// A failure is retried on the next spill.
    fn dir(&self) -> io::Result<&Path> {
        if let Some(scratch) = self.scratch.get() {
            return Ok(scratch.path());
        }
        let _creating = self
            .creating
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(scratch) = self.scratch.get() {
            return Ok(scratch.path());
        }
        let scratch = ScratchDir::create_in(&self.parent, self.prefix)?;
        Ok(self.scratch.get_or_init(|| scratch).path())
    }

    /// Writes `result` to spill file number `file` and returns its path. On failure no file is
    /// left: a partial or empty one is removed.
    pub(super) fn write(&self, file: u64, result: &QueryResult) -> Result<PathBuf, SpillFailure> {
        let dir = self.dir().map_err(|error| SpillFailure::Directory {
            parent: self.parent.clone(),
            error,
        })?;
        let path = dir.join(format!("{file}.arrow"));
        match write_ipc(&path, result) {
            Ok(()) => Ok(path),
            Err(error) => {
                remove_file(&path);
                Err(SpillFailure::Write { path, error })
            }
        }
    }
}

fn write_ipc(path: &Path, result: &QueryResult) -> Result<(), ArrowError> {
    // create_new: spill file names are never reused, so an existing file is not ours.
    let file = File::create_new(path)?;
    let mut writer = FileWriter::try_new(BufWriter::new(file), &result.schema)?;
    for batch in &result.batches {
        writer.write(batch)?;
    }
    // Flushes the buffer, so a full disk is reported here and not lost in a drop.
    writer.finish()?;
    Ok(())
}

/// Reads a spill file back.
pub(super) fn read_ipc(path: &Path) -> Result<Vec<RecordBatch>, ArrowError> {
    let reader = FileReader::try_new(BufReader::new(File::open(path)?), None)?;
    reader.collect()
}

/// Removes a spill file nobody needs any more; one already gone is fine.
pub(super) fn remove_file(path: &Path) {
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(error) if error.kind() == io::ErrorKind::NotFound => {}
        Err(error) => {
            tracing::warn!(path = %path.display(), %error, "could not remove a spill file");
        }
    }
}
