//! Query results by id, under a memory budget: least recently used results spill to Arrow IPC
//! files (when a spill directory is set) or are dropped.

mod slots;
mod spill;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::{QueryId, QueryResult};
use slots::{Found, HOST, Owner, Slots, State, Victim};
use spill::SpillDir;

/// Default [`ResultStore`] memory budget: 256 MiB of Arrow data.
pub const DEFAULT_RESULT_BUDGET: usize = 256 << 20;

/// The results of a conversation, by [`QueryId`].
///
/// Results are shared as `Arc<QueryResult>`: a page is a zero-copy slice of the stored batches.
/// When the Arrow memory of the results in memory exceeds the budget, the least recently used
/// ones leave memory: with a spill directory they are written to files and read back on the
/// next [`get`](Self::get), so a later turn can still page them; without one they are dropped
/// and their id becomes unknown. The result just stored always stays in memory.
///
/// # Sessions
/// A store serving many conversations at once (an MCP server's sessions) hands each one a
/// [`session`](Self::session) view. A session reads only the results it stored; the budget is
/// shared fairly: past it, the least recently used result of the session holding the most
/// memory goes first, and a session's newest result only when no older result is left; when
/// the last clone of a session's context is dropped, its results go too. The store itself
/// (the host's view) reads every result.
///
/// # Spill files
/// With [`with_spill_dir`](Self::with_spill_dir)`(dir)`, the first spill makes a private
/// [`ScratchDir`](crate::scratch::ScratchDir) `<dir>/nao-results-<pid>-<unique>` (mode 0700 on
/// Unix) for this store, so stores sharing `dir` never meet, and `dir` itself and anything else
/// in it are never touched. Each evicted result is one Arrow IPC file there. The store leaves
/// no files behind:
/// - a result read back is in memory again and its file is removed at once (if it is evicted
///   again, it is written to a new file);
/// - a write that fails (a full disk, say) removes its partial or empty file and drops the
///   result: its id becomes unknown and the failure is logged with `tracing`; the same holds
///   when the scratch directory cannot be made (it is tried again on the next spill);
/// - a file that cannot be read back is removed and its result dropped;
/// - dropping the store removes the scratch directory with all its files (after any write
///   still running on a blocking thread has finished);
/// - a process that dies without dropping its store (a crash, a kill) leaves its directory,
///   and the next store to spill into the same `dir` removes it (its marker lock is free). A
///   host that wants the space back at start-up calls
///   [`ScratchDir::sweep_stale`](crate::scratch::ScratchDir::sweep_stale)`(dir,
///   ResultStore::SPILL_PREFIX)`.
#[derive(Debug)]
pub struct ResultStore {
    shared: Arc<Shared>,
    /// `None` for the store itself; the session this view stores and reads for otherwise.
    session: Option<Arc<Session>>,
}

/// One session's claim on the store: its results are dropped with it.
#[derive(Debug)]
struct Session {
    owner: Owner,
    shared: Arc<Shared>,
    /// Whether it ever stored a result: most views (rmcp makes one per request to look up a
    /// tool's schema) never do, and their drop should not scan the store.
    stored: AtomicBool,
}

impl Drop for Session {
    fn drop(&mut self) {
        if !self.stored.load(Ordering::Relaxed) {
            return;
        }
        let files = self.shared.lock().remove_owner(self.owner);
        if files.is_empty() {
            return;
        }
        let remove = move || files.iter().for_each(|path| spill::remove_file(path));
        // Off the async threads when there are any; a session dropped outside a runtime
        // removes its files here.
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn_blocking(remove)),
            Err(_) => remove(),
        }
    }
}

/// The store's state, shared with the blocking threads that write and read spill files: they
/// finish their bookkeeping (and remove what they wrote when it is no longer wanted) even if
/// the call that started them was cancelled.
#[derive(Debug)]
struct Shared {
    budget: usize,
    slots: Mutex<Slots>,
    spill: Option<SpillDir>,
    /// The last session number handed out ([`HOST`] is 0).
    sessions: AtomicU64,
}

impl Default for ResultStore {
    fn default() -> Self {
        ResultStore::new(DEFAULT_RESULT_BUDGET)
    }
}

impl ResultStore {
    /// The name prefix of the store's scratch directories in the spill directory.
    pub const SPILL_PREFIX: &'static str = "nao-results";

    /// A store keeping at most `budget` bytes of Arrow data in memory, dropping the rest.
    pub fn new(budget: usize) -> Self {
        ResultStore {
            shared: Arc::new(Shared {
                budget,
                slots: Mutex::default(),
                spill: None,
                sessions: AtomicU64::new(HOST),
            }),
            session: None,
        }
    }

    /// Spills evicted results to Arrow IPC files in a private directory made in `dir` (which
    /// is created if missing) instead of dropping them. See [Spill files](Self#spill-files)
    /// for what is written where and when it is removed. Nothing is created until the first
    /// spill. Meant for building a store, before any [`session`](Self::session) view is
    /// made: results it already holds are kept, except those a former spill directory held,
    /// which go with that directory; the store returned is the host's view.
    #[must_use]
    pub fn with_spill_dir(self, dir: impl Into<PathBuf>) -> Self {
        let slots = std::mem::take(&mut *self.shared.lock());
        ResultStore {
            shared: Arc::new(Shared {
                budget: self.shared.budget,
                slots: Mutex::new(slots),
                spill: Some(SpillDir::new(dir.into(), Self::SPILL_PREFIX)),
                sessions: AtomicU64::new(self.shared.sessions.load(Ordering::Relaxed)),
            }),
            session: None,
        }
    }

    /// A view of this store for one more session (see [Sessions](Self#sessions)): it shares
    /// the budget and spill directory, stores results as the new session's, reads only those,
    /// and drops them when the view is dropped. A view of a view is a sibling session.
    pub fn session(&self) -> ResultStore {
        let owner = self.shared.sessions.fetch_add(1, Ordering::Relaxed) + 1;
        ResultStore {
            shared: self.shared.clone(),
            session: Some(Arc::new(Session {
                owner,
                shared: self.shared.clone(),
                stored: AtomicBool::new(false),
            })),
        }
    }

    /// Whose results this view stores and reads.
    fn owner(&self) -> Owner {
        self.session.as_ref().map_or(HOST, |session| session.owner)
    }

    /// The private directory this store's spill files are in, once the first spill made it.
    pub fn spill_path(&self) -> Option<&Path> {
        self.shared.spill.as_ref().and_then(SpillDir::made)
    }

    /// Stores a result and returns it shared. Evicts older results past the budget; spill
    /// files are written on a blocking thread.
    pub async fn insert(&self, result: QueryResult) -> Arc<QueryResult> {
        let result = Arc::new(result);
        if let Some(session) = &self.session {
            session.stored.store(true, Ordering::Relaxed);
        }
        let (replaced, victims) = {
            let mut slots = self.shared.lock();
            let replaced = slots.put(self.owner(), result.clone());
            (replaced, self.shared.evict(&mut slots, &result.id))
        };
        if replaced.is_some() || !victims.is_empty() {
            self.blocking(move |shared| {
                if let Some(path) = replaced {
                    spill::remove_file(&path);
                }
                shared.spill_victims(victims);
            })
            .await;
        }
        result
    }

    /// The result with this id, reading it back from its spill file if it was evicted (the
    /// file is then removed). A session view finds only its own results.
    pub async fn get(&self, id: &QueryId) -> Option<Arc<QueryResult>> {
        let found = self.shared.lock().find(self.owner(), id)?;
        match found {
            Found::Ready(result) => Some(result),
            Found::OnDisk { file, path } => {
                let id = id.clone();
                self.blocking(move |shared| shared.read_back(&id, file, &path))
                    .await
                    .flatten()
            }
        }
    }

    /// The ids currently known (in memory or spilled): every one for the store itself, a
    /// session's own for a session view.
    pub fn ids(&self) -> Vec<QueryId> {
        self.shared.lock().ids(self.owner())
    }

    /// Arrow bytes held in memory now: by every session for the store itself, by this session
    /// for a session view.
    pub fn memory_in_use(&self) -> usize {
        let slots = self.shared.lock();
        match self.owner() {
            HOST => slots.in_memory(),
            owner => slots.in_memory_of(owner),
        }
    }

    /// Runs file work on a blocking thread; `None` if that thread panicked.
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Shared) -> T + Send + 'static,
    ) -> Option<T> {
        let shared = self.shared.clone();
        match tokio::task::spawn_blocking(move || work(&shared)).await {
            Ok(value) => Some(value),
            Err(error) => {
                tracing::warn!(%error, "result store file work failed");
                None
            }
        }
    }
}

/// What one attempt to read a spilled result back found.
enum ReadBack {
    /// The result (or `None`: it is gone).
    Done(Option<Arc<QueryResult>>),
    /// It had moved to another spill file.
    MovedTo { file: u64, path: PathBuf },
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Slots> {
        // A panic while holding the lock cannot leave the map half-updated in a way that
        // matters more than losing results, so keep serving.
        self.slots
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn evict(&self, slots: &mut Slots, keep: &QueryId) -> Vec<Victim> {
        slots.evict(self.budget, keep, self.spill.is_some())
    }

    /// Writes each victim to its file. A result whose write failed is dropped; a file whose
    /// result was replaced or dropped while it was written is removed.
    fn spill_victims(&self, victims: Vec<Victim>) {
        let Some(spill) = &self.spill else { return };
        for Victim { id, file, result } in victims {
            let written = spill.write(file, &result);
            let mut slots = self.lock();
            let still_wanted =
                matches!(slots.state(&id), Some(State::Writing { file: f, .. }) if *f == file);
            match written {
                Ok(path) if still_wanted => {
                    let mut header = (*result).clone();
                    header.batches = Vec::new();
                    let header = Arc::new(header);
                    slots.set_state(&id, State::OnDisk { file, path, header });
                }
                Ok(path) => {
                    drop(slots);
                    spill::remove_file(&path);
                }
                Err(failure) => {
                    if still_wanted {
                        slots.remove(&id);
                    }
                    drop(slots);
                    tracing::warn!(query_id = %id, %failure, "could not spill a result; it is dropped");
                }
            }
        }
    }

    /// Reads spill file `file` of `id` back into memory and removes the file. Spills what that
    /// pushes out of memory. While this thread read, others may have read the result back and
    /// spilled it again to another file: it then reads that one (a few times at most, since
    /// each round means another reader made progress).
    fn read_back(&self, id: &QueryId, file: u64, path: &Path) -> Option<Arc<QueryResult>> {
        const ATTEMPTS: usize = 8;
        let (mut file, mut path) = (file, path.to_owned());
        for _ in 0..ATTEMPTS {
            match self.read_back_once(id, file, &path) {
                ReadBack::Done(found) => return found,
                ReadBack::MovedTo { file: f, path: p } => (file, path) = (f, p),
            }
        }
        tracing::warn!(query_id = %id, "a spilled result kept moving while it was read back");
        None
    }

    fn read_back_once(&self, id: &QueryId, file: u64, path: &Path) -> ReadBack {
        let read = spill::read_ipc(path);
        let mut slots = self.lock();
        // Another get may have read it back (and it may have left memory again) meanwhile.
        let (found, victims) = match (slots.state(id), read) {
            (
                Some(State::OnDisk {
                    file: f, header, ..
                }),
                Ok(batches),
            ) if *f == file => {
                let mut restored = (**header).clone();
                restored.batches = batches;
                let restored = Arc::new(restored);
                let bytes = restored.memory_size();
                slots.set_state(
                    id,
                    State::Memory {
                        result: restored.clone(),
                        bytes,
                    },
                );
                let victims = self.evict(&mut slots, id);
                (Some(restored), victims)
            }
            (Some(State::OnDisk { file: f, .. }), Err(error)) if *f == file => {
                slots.remove(id);
                tracing::warn!(query_id = %id, path = %path.display(), %error, "could not read a spilled result back; it is dropped");
                (None, Vec::new())
            }
            (Some(State::Memory { result, .. } | State::Writing { result, .. }), _) => {
                (Some(result.clone()), Vec::new())
            }
            // Read back and spilled again by others: what this thread read is the same result.
            (Some(State::OnDisk { header, .. }), Ok(batches)) => {
                let mut restored = (**header).clone();
                restored.batches = batches;
                (Some(Arc::new(restored)), Vec::new())
            }
            // Our file was read back and removed by another reader, and the result spilled
            // again to another file meanwhile: read that one.
            (
                Some(State::OnDisk {
                    file: f, path: p, ..
                }),
                Err(_),
            ) => {
                return ReadBack::MovedTo {
                    file: *f,
                    path: p.clone(),
                };
            }
            _ => (None, Vec::new()),
        };
        drop(slots);
        // Only now: a concurrent reader that finds the file gone then finds the state updated.
        spill::remove_file(path);
        self.spill_victims(victims);
        ReadBack::Done(found)
    }
}
