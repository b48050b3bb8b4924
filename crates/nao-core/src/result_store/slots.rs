//! The store's bookkeeping: where each result is (memory, being written, on disk), whose it is,
//! how recently it was used, and which results leave memory when the budget is exceeded.

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

/// Who stored a result: [`HOST`] for a store used directly, another number for each
/// [`ResultStore::session`](super::ResultStore::session) view.
pub(super) type Owner = u64;

/// The owner of results stored through the store itself rather than a session view.
pub(super) const HOST: Owner = 0;

#[derive(Debug)]
struct Slot {
    owner: Owner,
    /// When it was stored: an owner's newest result is the one it is most likely to page next.
    stored: u64,
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
    /// Stores `result` of `owner` in memory as the most recently used. Returns the spill file
    /// of a result it replaces under the same id, which nobody needs any more.
    pub(super) fn put(&mut self, owner: Owner, result: Arc<QueryResult>) -> Option<PathBuf> {
        self.clock += 1;
        let bytes = result.memory_size();
        self.in_memory += bytes;
        let slot = Slot {
            owner,
            stored: self.clock,
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

    /// Finds `id` as `reader` sees it and marks it used now: the host reads every result, a
    /// session only its own.
    pub(super) fn find(&mut self, reader: Owner, id: &QueryId) -> Option<Found> {
        self.clock += 1;
        let now = self.clock;
        let slot = self
            .slots
            .get_mut(id)
            .filter(|slot| reader == HOST || slot.owner == reader)?;
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

    /// Forgets every result of `owner`; returns the spill files to remove. A result being
    /// written is forgotten too: its writer finds the slot gone and removes its own file.
    pub(super) fn remove_owner(&mut self, owner: Owner) -> Vec<PathBuf> {
        let mut files = Vec::new();
        let mut freed = 0;
        self.slots.retain(|_, slot| {
            if slot.owner != owner {
                return true;
            }
            match &slot.state {
                State::Memory { bytes, .. } => freed += bytes,
                State::OnDisk { path, .. } => files.push(path.clone()),
                State::Writing { .. } => {}
            }
            false
        });
        self.in_memory -= freed;
        files
    }

    /// Picks results (never `keep`) to leave memory until the budget holds, fairly between
    /// owners: the next to go is the least recently used result of the owner holding the most
    /// memory, so a session storing big results pushes out its own before anyone else's. An
    /// owner's newest result goes only when no older result is left in memory. With `spill`
    /// the victims become [`State::Writing`] and are returned for writing; without, they are
    /// dropped here.
    pub(super) fn evict(&mut self, budget: usize, keep: &QueryId, spill: bool) -> Vec<Victim> {
        let mut victims = Vec::new();
        if self.in_memory <= budget {
            return victims;
        }
        let mut held: HashMap<Owner, usize> = HashMap::new();
        let mut newest: HashMap<Owner, u64> = HashMap::new();
        for slot in self.slots.values() {
            if let State::Memory { bytes, .. } = slot.state {
                *held.entry(slot.owner).or_default() += bytes;
            }
            let stored = newest.entry(slot.owner).or_default();
            *stored = (*stored).max(slot.stored);
        }
        while self.in_memory > budget {
            let Some(id) = self
                .next_victim(keep, &held, &newest, false)
                .or_else(|| self.next_victim(keep, &held, &newest, true))
            else {
                break;
            };
            let Some(slot) = self.slots.get_mut(&id) else {
                break;
            };
            let State::Memory { result, bytes } = &slot.state else {
                break;
            };
            let (result, bytes) = (result.clone(), *bytes);
            self.in_memory -= bytes;
            if let Some(owner_bytes) = held.get_mut(&slot.owner) {
                *owner_bytes -= bytes;
            }
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

    /// The in-memory result to evict next: of the owner holding the most bytes, the least
    /// recently used; owners' newest results only `with_newest`.
    fn next_victim(
        &self,
        keep: &QueryId,
        held: &HashMap<Owner, usize>,
        newest: &HashMap<Owner, u64>,
        with_newest: bool,
    ) -> Option<QueryId> {
        self.slots
            .iter()
            .filter(|(id, slot)| {
                *id != keep
                    && matches!(slot.state, State::Memory { .. })
                    && (with_newest || newest.get(&slot.owner) != Some(&slot.stored))
            })
            .max_by_key(|(_, slot)| {
                let owner_bytes = held.get(&slot.owner).copied().unwrap_or(0);
                (owner_bytes, std::cmp::Reverse(slot.last_used))
            })
            .map(|(id, _)| id.clone())
    }

    /// The ids `reader` sees (in memory, being written or on disk): the host sees them all.
    pub(super) fn ids(&self, reader: Owner) -> Vec<QueryId> {
        self.slots
            .iter()
            .filter(|(_, slot)| reader == HOST || slot.owner == reader)
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// Arrow bytes of `owner`'s results held in memory.
    pub(super) fn in_memory_of(&self, owner: Owner) -> usize {
        self.slots
            .values()
            .filter(|slot| slot.owner == owner)
            .map(|slot| match slot.state {
                State::Memory { bytes, .. } => bytes,
                _ => 0,
            })
            .sum()
    }

    /// Arrow bytes held in memory and counted against the budget.
    pub(super) fn in_memory(&self) -> usize {
        self.in_memory
    }
}
