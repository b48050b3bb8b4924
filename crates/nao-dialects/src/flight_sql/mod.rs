//! Arrow Flight SQL servers (feature `flight-sql`): Sail, Dremio, roapi, InfluxDB 3, and the
//! DataFusion- and DuckDB-based Flight SQL servers, over `arrow-flight`'s gRPC client.
//!
//! The catalogue comes from `GetTables` (with each table's schema), or, on servers without it
//! (Sail 0.7), from `SHOW TABLES` and the schema of `SELECT * … LIMIT 0`; column comments come
//! from the fields' `comment` metadata.
//!
//! ```no_run
//! # async fn run() -> Result<(), nao_core::DialectError> {
//! use nao_dialects::flight_sql::FlightSqlDialect;
//!
//! // Sail's Flight SQL server on this machine. Servers that name themselves (GetSqlInfo) get
//! // their SQL dialect from that name; Sail does not, so the URL says it.
//! let sail = FlightSqlDialect::open_url("sail", "flightsql://127.0.0.1:32010?dialect=spark").await?;
//! # let _ = sail;
//! // A server behind TLS with a private CA and a bearer token, speaking DuckDB's SQL.
//! let url = "flightsql+tls://flight.internal:443?tls_ca=/etc/nao/ca.pem\
//!            &token=…&dialect=duckdb";
//! let remote = FlightSqlDialect::open_url("warehouse", url).await?;
//! # let _ = remote;
//! # Ok(()) }
//! ```
//!
//! # URLs and credentials
//! [`FlightSqlConfig::from_url`] reads `flightsql://` and `flightsql+tls://` URLs: a port is
//! required, `user:password@` does a basic-auth `Handshake` (the bearer token the server
//! answers with goes on every later call), `token=` sends a bearer token, `tls_ca=` trusts a
//! private CA, `header.<name>=` adds a gRPC header (a catalog selector some servers read). No
//! error, log line or `Debug` output repeats a password or token.
//!
//! # Statements
//! A statement is a prepared statement on servers that implement them (roapi, Dremio, the
//! DuckDB- and DataFusion-based servers: `CreatePreparedStatement`, then the handle's
//! `CommandPreparedStatementQuery`, then `ClosePreparedStatement` however the statement ended),
//! else a `CommandStatementQuery` (Sail 0.7 answers Unimplemented, asked once per connection).
//! The server answers with a `FlightInfo` whose
//! endpoints each hold part of the result, possibly at other locations (a cluster's workers);
//! each endpoint is read with `DoGet` from its location (a connection per location, kept),
//! several at once when the result is unordered ([`FlightSqlConfig::parallel_endpoints`]), in
//! order otherwise. The batches are Arrow already and go to the caller as they arrive, with no
//! conversion, through the shared [statement pump](crate::pump), which applies the row cap and
//! byte budget.
//!
//! Stopping (the cap reached, the caller cancelling, the timeout, a dropped stream): the
//! `DoGet` streams are closed, which Sail takes as the end of the job, and `CancelFlightInfo`
//! is sent for servers that implement it (Sail 0.7 refuses it, roapi lacks it). A statement
//! stopped as its `FlightInfo` arrives still opens and closes its `DoGet` calls, since Sail
//! starts the job at `GetFlightInfo`. `GetFlightInfo` carries the time left as its gRPC
//! deadline, so a server that runs the whole query inside that call (roapi) stops it at the
//! timeout; such a server cannot be told of a cancellation before then, and computes on.
//! The live tests check on Sail, through its `system.execution.jobs`, that a timeout and a
//! cancellation leave no job running.
//!
//! # Read-only
//! Flight SQL has no read-only session flag, and none of Sail, roapi or Spark refuses DDL or
//! writes on its own (roapi's read-only mode covers its HTTP API only: over Flight SQL an
//! `INSERT` succeeds). What stops them here: the guard (only [`ReadOnlySql`] reaches the server,
//! so only single read-only queries under the deny-by-default function tiers), and the adapter
//! sends queries only as `CommandStatementQuery` or `CommandPreparedStatementQuery` (never
//! an update command or `DoPut`). Give the adapter credentials that can only read where the server has such
//! credentials; that is the only fence at the engine.
//!
//! [`ReadOnlySql`]: nao_core::guard::ReadOnlySql

mod catalog;
mod config;
mod connect;
mod dialect;
mod errors;
mod fetch;
mod prepared;
mod server_info;
mod stream;

pub use config::{
    DEFAULT_CONNECT_TIMEOUT, DEFAULT_PARALLEL_ENDPOINTS, FlightSqlAuth, FlightSqlConfig,
    FlightSqlTls, FlightSqlUrlError,
};
pub use dialect::FlightSqlDialect;

/// The arrow-flight client this adapter is built on, for hosts that also talk to the server
/// directly (benchmarks, admin calls); its gRPC stack is [`grpc`].
pub use ::arrow_flight as driver;

/// The tonic gRPC crate [`driver`] runs on (channels, TLS settings, metadata).
pub use ::tonic as grpc;
