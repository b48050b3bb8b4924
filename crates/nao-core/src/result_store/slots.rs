//! The store's bookkeeping: where each result is (memory, being written, on disk), how recently
//! it was used, and which results leave memory when the budget is exceeded.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::{QueryId, QueryResult};

/// Everything behind the store's mutex.
#[derive(Debug, Default)]
pub(super) struct Slots {
    slots: HashMap<QueryId, Slot>,
    clock: u64,
    /// Names spill files: each spill gets a number of its own, so a result written, read back
    /// and written again never reuses a file another thread may still be reading or removing.
    next_file: u64,
    in_memory: usize,
}

#[derive(Debug)]
struct Slot {
    last_used: u64,
    state: State,
}

#[derive(Debug)]
pub(super) enum State {
    Memory {
        result: Arc<QueryResult>,
        bytes: usize,
    },
    /// Leaving memory: file `file` is being written. Gets are served from `result` until the
    /// file is complete; its bytes no longer count against the budget.
    Writing { file: u64, result: Arc<QueryResult> },
    /// In spill file `file` at `path`; `header` is the result without its batches.
    OnDisk {
        file: u64,
        path: PathBuf,
        header: Arc<QueryResult>,
    },
}

/// A result picked to leave memory, to be written to spill file `file`.
#[derive(Debug)]
pub(super) struct Victim {
    pub(super) id: QueryId,
    pub(super) file: u64,
    pub(super) result: Arc<QueryResult>,
}

/// What a look-up found.
pub(super) enum Found {
    /// In memory (or still being written): served as is.
    Ready(Arc<QueryResult>),
    /// In spill file `file`, to be read back.
    OnDisk { file: u64, path: PathBuf },
}

impl Slots {
    /// Stores `result` in memory as the most recently used. Returns the spill file of a result
    /// it replaces under the same id, which nobody needs any more.
    pub(super) fn put(&mut self, result: Arc<QueryResult>) -> Option<PathBuf> {
        self.clock += 1;
        let bytes = result.memory_size();
        self.in_memory += bytes;
        let slot = Slot {
            last_used: self.clock,
            state: State::Memory {
                bytes,
                result: result.clone(),
            },
        };
        match self.slots.insert(result.id.clone(), slot)?.state {
            State::Memory { bytes, .. } => {
                self.in_memory -= bytes;
                None
            }
            State::OnDisk { path, .. } => Some(path),
            // Its writer finds the slot changed and removes its own file.
            State::Writing { .. } => None,
        }
    }

    /// Finds `id` and marks it used now.
    pub(super) fn find(&mut self, id: &QueryId) -> Option<Found> {
        self.clock += 1;
        let now = self.clock;
        let slot = self.slots.get_mut(id)?;
        slot.last_used = now;
        Some(match &slot.state {
            State::Memory { result, .. } | State::Writing { result, .. } => {
                Found::Ready(result.clone())
            }
            State::OnDisk { file, path, .. } => Found::OnDisk {
                file: *file,
                path: path.clone(),
            },
        })
    }

    /// The state of `id`, to check what happened to it while a file was being written or read.
    pub(super) fn state(&self, id: &QueryId) -> Option<&State> {
        self.slots.get(id).map(|slot| &slot.state)
    }

    /// Replaces the state of `id`, if it is still known.
    pub(super) fn set_state(&mut self, id: &QueryId, state: State) {
        let Some(slot) = self.slots.get_mut(id) else {
            return;
        };
        if let State::Memory { bytes, .. } = &state {
            self.in_memory += bytes;
        }
        if let State::Memory { bytes, .. } = std::mem::replace(&mut slot.state, state) {
            self.in_memory -= bytes;
        }
    }

    /// Forgets `id`: its id becomes unknown.
    pub(super) fn remove(&mut self, id: &QueryId) {
        if let Some(Slot {
            state: State::Memory { bytes, .. },
            ..
        }) = self.slots.remove(id)
        {
            self.in_memory -= bytes;
        }
    }

    /// Picks the least recently used results (never `keep`) to leave memory until the budget
    /// holds. With `spill` they become [`State::Writing`] and are returned for writing;
    /// without, they are dropped here.
    pub(super) fn evict(&mut self, budget: usize, keep: &QueryId, spill: bool) -> Vec<Victim> {
        let mut victims = Vec::new();
        while self.in_memory > budget {
            let oldest = self
                .slots
                .iter()
                .filter(|(id, slot)| *id != keep && matches!(slot.state, State::Memory { .. }))
                .min_by_key(|(_, slot)| slot.last_used)
                .map(|(id, _)| id.clone());
            let Some(id) = oldest else { break };
            let Some(slot) = self.slots.get_mut(&id) else {
                break;
            };
            let State::Memory { result, bytes } = &slot.state else {
                break;
            };
            let (result, bytes) = (result.clone(), *bytes);
            self.in_memory -= bytes;
            if spill {
                self.next_file += 1;
                let file = self.next_file;
                slot.state = State::Writing {
                    file,
                    result: result.clone(),
                };
                victims.push(Victim { id, file, result });
            } else {
                self.slots.remove(&id);
            }
        }
        victims
    }

    /// The ids known (in memory, being written or on disk).
    pub(super) fn ids(&self) -> Vec<QueryId> {
        self.slots.keys().cloned().collect()
    }

    /// Arrow bytes held in memory and counted against the budget.
    pub(super) fn in_memory(&self) -> usize {
        self.in_memory
    }
}
