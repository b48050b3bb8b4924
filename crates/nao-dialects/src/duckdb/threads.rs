//! The threads DuckDB statements run on: one statement at a time per thread, and a thread that
//! finishes one waits a while for the next instead of ending.
//!
//! A statement never runs on the async runtime, nor on tokio's blocking pool: a statement
//! DuckDB does not stop must not hold up the runtime's shutdown, which waits for every blocking
//! task. Until issue 22 each statement started a thread of its own and ended it; profiled on
//! back-to-back calls of a 5 ms aggregate, ending the thread cost more than starting it:
//! DuckDB's allocator (jemalloc) flushed the thread's cache and purged the pages behind it at
//! thread exit (`tsd_cleanup` → `arena_decay` → `madvise`, 3% of the call's CPU), the next
//! statement's thread filled a new cache, and the purged pages faulted back in. A waiting
//! thread keeps its cache and its warm pages.
//!
//! A statement offers its thread for the next one ([`Reuse::offer`]) just before its stream
//! ends: a caller that runs statements back to back then always finds it waiting (a thread
//! that listed itself only after the stream's end lost that race to the caller's next call
//! more often than not, on two cores).
//!
//! That purge at thread exit is also what gave the memory of a large statement back to the
//! system (measured in `benches/embedded_memory.rs`: a kept thread held 185 MB after a
//! `DISTINCT` over 200M rows, 4 MB once its thread ended), so a statement decides
//! ([`Reuse::decline`]): one that ran long enough to have built much ends its thread as before,
//! where the thread's cost is small beside the statement's own.
//!
//! What stays as it was: a statement never waits for a thread (none waiting: a new one
//! starts), so one DuckDB does not stop keeps only its own thread busy; each statement still
//! gets a connection of its own, closed before its stream ends, so nothing of a statement
//! (a TEMP table, a setting) reaches the next one; a thread holds no DuckDB resource while it
//! waits. At most [`WAITING`] threads wait, each for at most [`WAIT_FOR`].

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

/// The most threads that wait for a statement; one that finishes a statement while as many
/// wait ends instead.
const WAITING: usize = 4;

/// How long a thread waits for its next statement before it ends.
const WAIT_FOR: Duration = Duration::from_secs(10);

/// What a thread runs: one statement, from its start to the end of its stream.
pub(super) type Task = Box<dyn FnOnce(&Reuse<'_>) + Send + 'static>;

/// Threads that run statements, one at a time each, and wait for the next between them.
pub(super) struct StatementThreads {
    waiting: Arc<Waiting>,
}

impl StatementThreads {
    /// The process's statement threads, shared by every DuckDB database it opens (in the
    /// adapter's process and in a worker process alike).
    pub(super) fn shared() -> &'static StatementThreads {
        static SHARED: OnceLock<StatementThreads> = OnceLock::new();
        SHARED.get_or_init(|| StatementThreads::new(WAITING, WAIT_FOR))
    }

    /// Threads of which at most `most` wait, each for at most `wait_for`.
    fn new(most: usize, wait_for: Duration) -> Self {
        StatementThreads {
            waiting: Arc::new(Waiting {
                threads: Mutex::new(Vec::new()),
                most,
                wait_for,
            }),
        }
    }

    /// Runs `task` on a waiting thread, or on a new one when none waits.
    ///
    /// # Errors
    /// When no thread waits and the system refuses a new one.
    pub(super) fn run(&self, task: Task) -> std::io::Result<()> {
        if let Some(thread) = self.waiting.take() {
            thread.hand(task);
            return Ok(());
        }
        let waiting = Arc::clone(&self.waiting);
        std::thread::Builder::new()
            .name("nao-duckdb-statement".into())
            .spawn(move || serve(&waiting, task))
            .map(drop)
    }
}

/// Handed to each task: lets it offer its thread for the next task before it returns.
pub(super) struct Reuse<'a> {
    waiting: &'a Waiting,
    slot: &'a Arc<Slot>,
    /// Whether the thread is listed (`Some(false)`: the list was full, or the task declined),
    /// once decided.
    offered: Cell<Option<bool>>,
}

impl Reuse<'_> {
    /// Lists this thread as waiting for the next task now, though the task still runs: a
    /// task handed to it meanwhile starts once this one returns. For a task whose last step
    /// lets its caller go on, so that the caller's next task finds this thread. Once is
    /// enough; the thread offers itself after the task otherwise.
    pub(super) fn offer(&self) {
        if self.offered.get().is_none() {
            self.offered.set(Some(self.waiting.join(self.slot)));
        }
    }

    /// Ends this thread after the task instead: for a task that may have left much memory in
    /// DuckDB's allocator, which returns a thread's cached memory to the system only when the
    /// thread ends. Does nothing once offered.
    pub(super) fn decline(&self) {
        if self.offered.get().is_none() {
            self.offered.set(Some(false));
        }
    }

    /// Whether the thread is listed, offering it if the task did not decide.
    fn listed(&self) -> bool {
        self.offer();
        self.offered.get().unwrap_or(false)
    }
}

/// The threads waiting for a statement.
struct Waiting {
    threads: Mutex<Vec<Arc<Slot>>>,
    /// The most threads that wait.
    most: usize,
    /// How long a thread waits before it ends.
    wait_for: Duration,
}

impl Waiting {
    fn lock(&self) -> MutexGuard<'_, Vec<Arc<Slot>>> {
        self.threads.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A waiting thread, taken off the list: the caller hands it a task.
    fn take(&self) -> Option<Arc<Slot>> {
        self.lock().pop()
    }

    /// Lists `slot`'s thread as waiting, unless the most already wait.
    fn join(&self, slot: &Arc<Slot>) -> bool {
        let mut threads = self.lock();
        if threads.len() >= self.most {
            return false;
        }
        threads.push(Arc::clone(slot));
        true
    }

    /// Takes `slot`'s thread off the list; `false` when a caller took it first (and so hands
    /// it a task).
    fn leave(&self, slot: &Arc<Slot>) -> bool {
        let mut threads = self.lock();
        match threads.iter().position(|s| Arc::ptr_eq(s, slot)) {
            Some(index) => {
                threads.swap_remove(index);
                true
            }
            None => false,
        }
    }
}

/// Where a waiting thread gets its next task.
struct Slot {
    next: Mutex<Option<Task>>,
    handed: Condvar,
}

impl Slot {
    fn lock(&self) -> MutexGuard<'_, Option<Task>> {
        self.next.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn hand(&self, task: Task) {
        *self.lock() = Some(task);
        self.handed.notify_one();
    }

    /// Waits for a task; `None` once the thread has waited its time and left the list.
    fn wait(self: &Arc<Self>, waiting: &Waiting) -> Option<Task> {
        let mut next = self.lock();
        loop {
            if let Some(task) = next.take() {
                return Some(task);
            }
            let (guard, waited) = self
                .handed
                .wait_timeout(next, waiting.wait_for)
                .unwrap_or_else(PoisonError::into_inner);
            next = guard;
            if waited.timed_out() && next.is_none() {
                // A slot's lock and the list's are never held together.
                drop(next);
                if waiting.leave(self) {
                    return None;
                }
                // A caller took this thread off the list: its task is on the way.
                next = self.lock();
            }
        }
    }
}

/// A statement thread: runs `first`, then each task it is handed while it waits for more.
fn serve(waiting: &Waiting, first: Task) {
    let slot = Arc::new(Slot {
        next: Mutex::new(None),
        handed: Condvar::new(),
    });
    let mut task = first;
    loop {
        let reuse = Reuse {
            waiting,
            slot: &slot,
            offered: Cell::new(None),
        };
        // A task that panics has dropped what it held (a statement's producer: its stream
        // ends with an error); the thread goes on, as it may already be listed.
        let _ = catch_unwind(AssertUnwindSafe(|| task(&reuse)));
        if !reuse.listed() {
            return;
        }
        match slot.wait(waiting) {
            Some(next) => task = next,
            None => return,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::{Barrier, mpsc};
    use std::thread::ThreadId;

    use super::*;

    /// Runs a task on `threads` and returns the thread it ran on.
    fn ran_on(threads: &StatementThreads) -> ThreadId {
        let (tx, rx) = mpsc::channel();
        threads
            .run(Box::new(move |_: &Reuse<'_>| {
                tx.send(std::thread::current().id()).unwrap();
            }))
            .unwrap();
        rx.recv().unwrap()
    }

    /// Waits until `n` threads wait.
    fn until_waiting(threads: &StatementThreads, n: usize) {
        while threads.waiting.lock().len() != n {
            std::thread::yield_now();
        }
    }

    #[test]
    fn a_finished_thread_runs_the_next_task() {
        let threads = StatementThreads::new(1, Duration::from_secs(600));
        let first = ran_on(&threads);
        until_waiting(&threads, 1);
        assert_eq!(ran_on(&threads), first);
        until_waiting(&threads, 1);
        assert_eq!(ran_on(&threads), first);
    }

    #[test]
    fn a_task_that_offers_its_thread_runs_the_next_one_there() {
        let threads = StatementThreads::new(1, Duration::from_secs(600));
        let (offered, on_offer) = mpsc::channel();
        let (release, released) = mpsc::channel::<()>();
        let (tx, rx) = mpsc::channel();
        threads
            .run(Box::new(move |reuse: &Reuse<'_>| {
                reuse.offer();
                offered.send(()).unwrap();
                released.recv().unwrap();
                tx.send(std::thread::current().id()).unwrap();
            }))
            .unwrap();
        on_offer.recv().unwrap();
        // Handed to the listed thread while its task still runs: it waits for that task.
        let (tx2, rx2) = mpsc::channel();
        threads
            .run(Box::new(move |_: &Reuse<'_>| {
                tx2.send(std::thread::current().id()).unwrap();
            }))
            .unwrap();
        release.send(()).unwrap();
        assert_eq!(rx2.recv().unwrap(), rx.recv().unwrap());
    }

    #[test]
    fn a_declined_thread_ends() {
        let threads = StatementThreads::new(1, Duration::from_secs(600));
        let (tx, rx) = mpsc::channel();
        threads
            .run(Box::new(move |reuse: &Reuse<'_>| {
                reuse.decline();
                tx.send(std::thread::current().id()).unwrap();
            }))
            .unwrap();
        let first = rx.recv().unwrap();
        // Not listed: the next task starts a thread of its own.
        assert_ne!(ran_on(&threads), first);
    }

    #[test]
    fn tasks_that_overlap_never_wait_for_a_thread() {
        let threads = StatementThreads::new(1, Duration::from_secs(600));
        let both = Arc::new(Barrier::new(3));
        for _ in 0..2 {
            let both = Arc::clone(&both);
            threads
                .run(Box::new(move |_: &Reuse<'_>| {
                    both.wait();
                }))
                .unwrap();
        }
        // Returns only once both tasks run at the same time.
        both.wait();
        // One thread is kept, the other ends.
        until_waiting(&threads, 1);
    }

    #[test]
    fn a_thread_that_waited_its_time_ends() {
        /// Says so when its thread ends.
        struct OnExit(mpsc::Sender<()>);
        impl Drop for OnExit {
            fn drop(&mut self) {
                let _ = self.0.send(());
            }
        }
        thread_local! {
            static ON_EXIT: std::cell::RefCell<Option<OnExit>> = const { std::cell::RefCell::new(None) };
        }
        let threads = StatementThreads::new(1, Duration::from_millis(1));
        let (exited, exit) = mpsc::channel();
        let (tx, rx) = mpsc::channel();
        threads
            .run(Box::new(move |_: &Reuse<'_>| {
                ON_EXIT.with(|on_exit| *on_exit.borrow_mut() = Some(OnExit(exited)));
                tx.send(std::thread::current().id()).unwrap();
            }))
            .unwrap();
        let first = rx.recv().unwrap();
        exit.recv().unwrap();
        assert!(threads.waiting.lock().is_empty());
        assert_ne!(ran_on(&threads), first);
    }
}
