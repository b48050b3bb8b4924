//! # nao-mcp
//!
//! An [MCP](https://modelcontextprotocol.io) server over nao-rs tools, so any MCP client
//! (desktop assistants, IDEs, agent frameworks) can query a database through nao-rs's
//! read-only guard, row and time caps and Markdown renderer with no Rust on its side.
//!
//! ```
//! use std::sync::Arc;
//! use nao_core::{Databases, ToolContext, tools};
//! use nao_mcp::McpServer;
//!
//! let shop = nao_mcp::app::demo_database().unwrap();
//! let ctx = ToolContext::new(Databases::new().with(shop));
//! let server = McpServer::new(tools::sql_tools(), ctx);
//! let execute_sql = server.tools().iter().find(|t| t.name == "execute_sql").unwrap();
//! let hints = execute_sql.annotations.as_ref().unwrap();
//! assert_eq!(hints.read_only_hint, Some(true));
//! // Serve it: `rmcp::ServiceExt::serve(server, rmcp::transport::stdio())`, or run the
//! // `nao-mcp` binary.
//! ```
//!
//! ## Usage
//! - [`McpServer::new`] takes any [`ToolRegistry`](nao_core::ToolRegistry) and
//!   [`ToolContext`](nao_core::ToolContext). Every tool is listed with its description and
//!   JSON Schema; its [`RiskLevel`](nao_core::RiskLevel) becomes annotations (`Safe` →
//!   `readOnlyHint`, `High` → `destructiveHint`); a call returns the tool's Markdown as text
//!   content and its output as `structuredContent`; a failed call is a tool result with
//!   `isError: true` and the same text the model would see (not a JSON-RPC error).
//! - Every table of every database is a resource `nao://<database>/<schema.table>` whose
//!   Markdown holds the columns, types, nullability, comments and a few sample rows.
//! - The `nao-mcp` binary ([`options::help_text`] is its `--help`) serves databases from URLs
//!   over stdio (default) or streamable HTTP (`--http 127.0.0.1:PORT`, endpoint `/mcp`, see
//!   [`http::HttpConfig`]).
//! - `nao-mcp --config nao-mcp.toml` reads databases (URLs from the environment with
//!   `url_env`), policy, limits and HTTP settings from a TOML file ([`config`];
//!   `examples/nao-mcp.toml` documents every key), flags on the command line winning, and
//!   serves its **named queries** as tools of their own: SQL the operator wrote, with typed
//!   `:name` parameters the model fills in ([`config::NamedQuery`]). Each value is written as
//!   a literal of the database's dialect, checked to leave the statement's parse unchanged, and
//!   the query then passes the guard, the policy and the row cap like any `execute_sql` call.
//!
//! ## Features
//! - `sqlite` (default): the embedded SQLite adapter; `--demo` needs it.
//! - `http` (default): the streamable HTTP transport.
//! - `duckdb`, `postgres`, `mysql`: the other adapters of nao-dialects.
//! - `jemalloc` (default): the `nao-mcp` binary allocates with jemalloc and its background
//!   threads, which give freed pages back to the system within seconds (after idle HTTP
//!   sessions are evicted, RSS fell back to about 36 MB, where glibc malloc kept 150–200 MB).
//!   Only the binary sets the global allocator; this library leaves the choice to its users.
//!   Off: the system allocator.
//!
//! ## Untrusted input
//! Tool arguments are validated by the registry and SQL goes through `nao_guard::check`.
//! JSON-RPC messages longer than `--max-request-bytes` (default 4 MiB) are dropped; malformed
//! messages and unknown methods get JSON-RPC errors (over HTTP: 400 with -32700 for malformed
//! JSON); a cancelled request or a client that goes away (an HTTP client that closes its
//! connection and does not resume within a couple of seconds, a stdio client that closes its
//! end of stdout) cancels its running statement. Over HTTP, live sessions are capped
//! (`--max-sessions`, a full server answers 503) and idle ones closed
//! (`--session-idle-timeout`); open connections are capped (`--max-connections`, the rest
//! wait), request heads must arrive within 10 s and bodies within 30 s, a declared
//! `Content-Length` above the limit gets 413 unread, failing `accept`s back off instead of
//! spinning and repeated faults are logged once a second; requests with a non-loopback `Host`
//! or a foreign `Origin` get 403. On SIGTERM or Ctrl-C the server stops taking calls, lets
//! running ones finish within `--drain-timeout` (default 10 s), answers the rest with a
//! JSON-RPC error and exits with success ([`drain`]). A named query's parameters are checked
//! against their JSON Schema, and a value that cannot be written as a literal of the database's
//! dialect (a NUL character where it has no escape) or that would change how the statement
//! parses is refused as invalid arguments. Database URLs may carry credentials in any form (URL userinfo, `%`-encoded, query
//! parameters, key=value strings): the server never echoes them in errors, logs or `Debug`
//! output ([`redact`]), and logs go to stderr only, since stdout is the protocol channel.
//!
//! Server databases are opened as `nao_dialects::open_with` does: a role that can do more
//! than read is refused unless `--allow-privileged` is given; `--set-role` switches every
//! connection to a read-only role.
#![forbid(unsafe_code)]

pub mod app;
pub mod auth;
pub mod config;
pub mod drain;
#[cfg(feature = "http")]
pub mod http;
pub mod options;
pub mod redact;
pub mod resources;
mod server;

pub use server::{DEFAULT_PROGRESS_INTERVAL, McpServer, mcp_result, mcp_tool};
