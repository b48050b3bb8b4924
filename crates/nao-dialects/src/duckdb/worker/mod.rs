//! DuckDB in worker processes ([`Isolation::Workers`](crate::Isolation::Workers)): a memory
//! bound the operating system enforces, and statements that stop when told to.
//!
//! DuckDB's `memory_limit` covers its buffer manager only, and DuckDB does not check for
//! interrupts while it builds one value (see [Limits](super#limits)). In a worker process whose
//! `RLIMIT_DATA` is set, every allocation counts: past the limit DuckDB's allocations fail and
//! it reports an out-of-memory error, and the host's memory is never at stake. A statement
//! that runs past its time limit, or is cancelled, is stopped by ending its worker.
//!
//! The worker is a program that calls [`run_if_worker`] first thing in `main`: the host's own
//! binary (nao-mcp does this), or `nao-duckdb-worker` from this crate
//! (`cargo install nao-dialects --features duckdb --bin nao-duckdb-worker`). The adapter keeps
//! catalogue reads (fixed queries of its own) in its process.

mod pool;
mod protocol;
mod serve;

pub(super) use pool::{WorkerCommand, Workers};
pub(super) use serve::WorkerSettings;
pub use serve::{WORKER_ARG, run_if_worker};
