//! Spark Connect servers (feature `spark-connect`): Apache Spark 3.4 and later, Databricks
//! Connect, and Sail, over tonic's gRPC client.
//!
//! ```no_run
//! # async fn run() -> Result<(), nao_core::DialectError> {
//! use nao_dialects::spark_connect::SparkConnectDialect;
//!
//! // A local Spark Connect server (Apache Spark, or Sail), in a session of the URL's.
//! let url = "sc://127.0.0.1:15002/;session_id=de0e915c-1d62-49e6-a0f1-ead01b838828";
//! let local = SparkConnectDialect::open_url("spark", url).await?;
//! # let _ = local;
//! // A Databricks cluster through Databricks Connect: TLS, a personal access token, the
//! // cluster in a header; statements are checked as Databricks SQL.
//! let url = "sc://dbc-1234abcd-5678.cloud.databricks.com:443/;token=dapi…;\
//!            x-databricks-cluster-id=0123-456789-abcdefgh";
//! let databricks = SparkConnectDialect::open_url("lakehouse", url).await?;
//! # let _ = databricks;
//! # Ok(()) }
//! ```
//!
//! # Client
//! The adapter speaks the Spark Connect gRPC protocol itself, with tonic (the client the
//! workspace uses for Flight SQL) and the few protocol messages it needs written out as prost
//! types (`proto.rs`). The `apache-spark-connect` crate (4.2, arrow 58) was not used: its
//! messages come from `apache-spark-connect-proto`, which generates them at build time and
//! needs `protoc`, which the build machines lack; and its DataFrame API brings far more than
//! running SQL and stopping it.
//!
//! # URLs, sessions and credentials
//! [`SparkConnectConfig::from_url`] reads Spark Connect's own `sc://host:port/;name=value`
//! URLs: `token=` (a bearer token, TLS on), `use_ssl=`, `session_id=`, `user_id=`,
//! `user_agent=`, and any other parameter as a gRPC header (`x-databricks-cluster-id`). No
//! error, log line or `Debug` output repeats the token or a header's value.
//!
//! Every statement runs in the one session of the URL (a new random one when it names none).
//! On Sail the tables a session creates exist only in that session, so the URL names it; the
//! adapter never releases the session (`ReleaseSession`), since a released Sail session never
//! comes back.
//!
//! # Statements
//! A statement is an `ExecutePlan` of a SQL relation, with an operation id the adapter makes,
//! in reattachable mode: the server then ends a whole result with `ResultComplete`, and a
//! stream that ends without it was cut (Apache Spark cuts long streams on purpose; Sail ends
//! the stream of an interrupted operation with an OK status and no more rows, which would
//! pass for a complete result otherwise). A cut stream is resumed with `ReattachExecute`
//! after the last response read; one that cannot be resumed is an error, never a short
//! result. Each `ArrowBatch` is an Arrow IPC stream, decoded without copying and handed to
//! the caller through the shared [statement pump](crate::pump), which applies the row cap and
//! byte budget.
//!
//! Stopping (the cap reached, the caller cancelling, the timeout, a dropped stream): the
//! adapter sends `Interrupt` for the operation id (again, for up to 30 seconds, while the
//! server has not answered and does not name the operation: a loaded server may register a
//! request seconds after it arrived, and then runs it to its end), then `ReleaseExecute`. Closing the
//! stream alone is not enough: Sail runs a query whose client went away to its end, and
//! Apache Spark keeps a reattachable operation for a client that may come back. The live
//! tests check that the cap, a timeout, a cancellation and a dropped stream leave no job
//! running, on Sail through its `system.execution.jobs` and on Apache Spark through its web
//! UI's running jobs and active tasks.
//!
//! Known problem: Apache Spark 4.3 interrupts an operation once, by interrupting its
//! execution thread, and answers every later `Interrupt` of it with no id. On a loaded
//! two-core machine it acknowledged the interrupt of a broadcast cross join and still ran the
//! job to its end (70 to 90 seconds, reproduced with the CPU busy); scans and aggregations
//! without a join were stopped every time. A client cannot do more; the live tests use such
//! queries on Apache Spark and check its running jobs and active tasks.
//!
//! Known problem: Sail 0.7.2 wedges a session when one of its operations is interrupted while
//! another runs in it; every later operation of that session then hangs (until the statement
//! timeout here). The live tests take turns for that reason. A host that runs statements side
//! by side on one Sail session can meet it; Apache Spark does not. Measured with a bare gRPC
//! client (no nao-rs code): with two operations running in one Sail session, `Interrupt` of one
//! of them often gets no answer within 5 s, by operation id or by tag, whether or not its
//! stream is still open; with one operation running it answers at once.
//!
//! # Catalogue
//! From the Catalog relations (`listTables` of the current database, or of the filter's
//! schema; `listColumns`): Spark type names (`decimal(12,2)`), nullability and column and
//! table comments.
//!
//! # Errors
//! Spark Connect servers answer failures with gRPC `INTERNAL` and an `ErrorInfo` naming the
//! exception (and, on Apache Spark, the error class and SQLSTATE); the kind comes from these
//! and the message, which is kept, with the error class (see `errors.rs`).
//!
//! # Read-only
//! Spark Connect has no read-only session, and neither Spark nor Sail refuses DDL or writes on
//! its own. What stops them here: the guard (only [`ReadOnlySql`] reaches the server: single
//! read-only queries under the deny-by-default function tiers), and the adapter sends only
//! SQL relations and catalogue reads, never a command. On Databricks, give the token a
//! principal that can only read (Unity Catalog `SELECT` and `USE` grants); that is the only
//! fence at the engine.
//!
//! [`ReadOnlySql`]: nao_core::guard::ReadOnlySql

mod catalog;
mod config;
mod connect;
mod dialect;
mod errors;
mod ipc;
mod proto;
mod stream;

pub use config::{
    DEFAULT_CONNECT_TIMEOUT, DEFAULT_PORT, DEFAULT_USER_ID, SparkConnectConfig,
    SparkConnectUrlError,
};
pub use dialect::SparkConnectDialect;
