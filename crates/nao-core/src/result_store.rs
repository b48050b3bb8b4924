//! Query results by id, under a memory budget: least recently used results spill to Arrow IPC
//! files (when a spill directory is set) or are dropped.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use arrow_array::RecordBatch;
use arrow_ipc::reader::FileReader;
use arrow_ipc::writer::FileWriter;

use crate::{QueryId, QueryResult};

/// Default [`ResultStore`] memory budget: 256 MiB of Arrow data.
pub const DEFAULT_RESULT_BUDGET: usize = 256 << 20;

/// The results of a conversation, by [`QueryId`].
///
/// Results are shared as `Arc<QueryResult>`: a page is a zero-copy slice of the stored batches.
/// When the Arrow memory of the results in memory exceeds the budget, the least recently used
/// ones leave memory: with a spill directory they are written to `<dir>/<query_id>.arrow` and
/// read back on the next [`get`](Self::get), so a later turn can still page them; without one
/// they are dropped and their id becomes unknown. The result just stored always stays in memory.
#[derive(Debug)]
pub struct ResultStore {
    budget: usize,
    spill_dir: Option<PathBuf>,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    slots: HashMap<QueryId, Slot>,
    clock: u64,
    in_memory: usize,
}

#[derive(Debug)]
struct Slot {
    last_used: u64,
    state: State,
}

#[derive(Debug)]
enum State {
    Memory {
        result: Arc<QueryResult>,
        bytes: usize,
    },
    /// On disk; `header` is the result without its batches. `writing` holds the whole result
    /// until its file is complete, so a `get` in the meantime is served from memory.
    Spilled {
        path: PathBuf,
        header: Arc<QueryResult>,
        writing: Option<Arc<QueryResult>>,
    },
}

impl Default for ResultStore {
    fn default() -> Self {
        ResultStore::new(DEFAULT_RESULT_BUDGET)
    }
}

impl ResultStore {
    /// A store keeping at most `budget` bytes of Arrow data in memory, dropping the rest.
    pub fn new(budget: usize) -> Self {
        ResultStore {
            budget,
            spill_dir: None,
            inner: Mutex::default(),
        }
    }

    /// Spills evicted results to Arrow IPC files in `dir` (created if missing) instead of
    /// dropping them.
    #[must_use]
    pub fn with_spill_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.spill_dir = Some(dir.into());
        self
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock cannot leave the map half-updated in a way that
        // matters more than losing results, so keep serving.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Stores a result and returns it shared. Evicts older results past the budget; spill
    /// files are written on a blocking thread.
    pub async fn insert(&self, result: QueryResult) -> Arc<QueryResult> {
        let result = Arc::new(result);
        let bytes = result.memory_size();
        let victims = {
            let mut inner = self.lock();
            inner.clock += 1;
            let last_used = inner.clock;
            inner.in_memory += bytes;
            let state = State::Memory {
                result: result.clone(),
                bytes,
            };
            if let Some(Slot {
                state: State::Memory { bytes, .. },
                ..
            }) = inner
                .slots
                .insert(result.id.clone(), Slot { last_used, state })
            {
                inner.in_memory -= bytes;
            }
            self.evict(&mut inner, &result.id)
        };
        self.spill(victims).await;
        result
    }

    /// The result with this id, reading it back from its spill file if it was evicted.
    pub async fn get(&self, id: &QueryId) -> Option<Arc<QueryResult>> {
        let (path, header) = {
            let mut inner = self.lock();
            inner.clock += 1;
            let now = inner.clock;
            let slot = inner.slots.get_mut(id)?;
            slot.last_used = now;
            match &slot.state {
                State::Memory { result, .. } => return Some(result.clone()),
                State::Spilled {
                    writing: Some(result),
                    ..
                } => return Some(result.clone()),
                State::Spilled {
                    path,
                    header,
                    writing: None,
                } => (path.clone(), header.clone()),
            }
        };
        let read = tokio::task::spawn_blocking(move || read_ipc(&path)).await;
        let batches = match read {
            Ok(Ok(batches)) => batches,
            Ok(Err(error)) => {
                tracing::warn!(query_id = %id, %error, "could not read a spilled result back");
                self.lock().slots.remove(id);
                return None;
            }
            Err(join_error) => {
                tracing::warn!(query_id = %id, %join_error, "reading a spilled result failed");
                return None;
            }
        };
        let mut restored = (*header).clone();
        restored.batches = batches;
        Some(self.insert(restored).await)
    }

    /// The ids currently known (in memory or spilled).
    pub fn ids(&self) -> Vec<QueryId> {
        self.lock().slots.keys().cloned().collect()
    }

    /// Arrow bytes held in memory now.
    pub fn memory_in_use(&self) -> usize {
        self.lock().in_memory
    }

    /// Picks results to leave memory until the budget holds, never `keep`. Results to spill are
    /// returned; without a spill directory they are dropped here.
    fn evict(&self, inner: &mut Inner, keep: &QueryId) -> Vec<(PathBuf, Arc<QueryResult>)> {
        let mut victims = Vec::new();
        while inner.in_memory > self.budget {
            let oldest = inner
                .slots
                .iter()
                .filter(|(id, slot)| *id != keep && matches!(slot.state, State::Memory { .. }))
                .min_by_key(|(_, slot)| slot.last_used)
                .map(|(id, _)| id.clone());
            let Some(id) = oldest else { break };
            let Some(slot) = inner.slots.remove(&id) else {
                break;
            };
            let State::Memory { result, bytes } = slot.state else {
                continue;
            };
            inner.in_memory -= bytes;
            if let Some(dir) = &self.spill_dir {
                let path = dir.join(format!("{id}.arrow"));
                let mut header = (*result).clone();
                header.batches = Vec::new();
                let state = State::Spilled {
                    path: path.clone(),
                    header: Arc::new(header),
                    writing: Some(result.clone()),
                };
                inner.slots.insert(
                    id,
                    Slot {
                        last_used: slot.last_used,
                        state,
                    },
                );
                victims.push((path, result));
            }
        }
        victims
    }

    async fn spill(&self, victims: Vec<(PathBuf, Arc<QueryResult>)>) {
        for (path, result) in victims {
            let id = result.id.clone();
            let write_path = path.clone();
            let written =
                tokio::task::spawn_blocking(move || write_ipc(&write_path, &result)).await;
            let failure = match written {
                Ok(Ok(())) => {
                    if let Some(Slot {
                        state: State::Spilled { writing, .. },
                        ..
                    }) = self.lock().slots.get_mut(&id)
                    {
                        *writing = None;
                    }
                    continue;
                }
                Ok(Err(error)) => error.to_string(),
                Err(join_error) => join_error.to_string(),
            };
            tracing::warn!(query_id = %id, path = %path.display(), %failure, "could not spill a result; it is dropped");
            self.lock().slots.remove(&id);
        }
    }
}

fn write_ipc(
    path: &Path,
    result: &QueryResult,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut writer = FileWriter::try_new(BufWriter::new(File::create(path)?), &result.schema)?;
    for batch in &result.batches {
        writer.write(batch)?;
    }
    writer.finish()?;
    Ok(())
}

fn read_ipc(path: &Path) -> Result<Vec<RecordBatch>, Box<dyn std::error::Error + Send + Sync>> {
    let reader = FileReader::try_new(BufReader::new(File::open(path)?), None)?;
    Ok(reader.collect::<Result<Vec<_>, _>>()?)
}

impl Drop for ResultStore {
    fn drop(&mut self) {
        let inner = self
            .inner
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for slot in inner.slots.values() {
            if let State::Spilled { path, .. } = &slot.state {
                // Best effort: a leftover file is harmless and lives in the host's directory.
                let _ = std::fs::remove_file(path);
            }
        }
    }
}
