//! Packs as MCP tools: `bflow mcp serve`.
//!
//! Every tool file and flow of the folders and packs named at start becomes one tool of a
//! Model Context Protocol server (the official Rust SDK, `rmcp`): its name derived from the
//! ref ([`mcp_name`]: `search-price@1.2.0` → `search_price_v1_2_0`, two refs on one name
//! refused), its ref, version and contract digest in `_meta`, its `inputSchema` the
//! contract's inputs without the secret slots, its `outputSchema` the contract's output (an
//! object; any other output wrapped as `{"result": …}`). `tools/list` answers in name order.
//!
//! A call runs the way every run starts ([`browserflow_catalog::RunSetup::rider`], one shared
//! browser with a context per call): arguments checked slot by slot, at most
//! [`Limits::max_concurrency`] at once and [`Limits::queue_limit`] waiting (past it: a clear
//! "busy" error), the plan run by the Rider (inputs and outputs validated, capabilities as
//! declared, journaled), cancellable by the client (`notifications/cancelled` stops the replay
//! and closes its browser context before the call ends), with a progress notification per
//! finished step when the client gives a progress token. The output is checked against the
//! contract and answered as `structuredContent` plus a short text; a failed run — for a
//! replay, naming the step, the expected and the actual state — is a tool error
//! (`isError`), never a protocol error.
//!
//! Secrets never by value: a secret slot is not in the input schema; the server binds it to
//! a secret by name (`secret.NAME`, from `BROWSERFLOW_SECRET_NAME` or the secrets file), each
//! checked set at start; a call that gives a secret slot is refused. Every secret a served
//! tool can resolve is learned at start by a redactor that every answer and error passes
//! through (and the logs', when the setup has one).
//!
//! Packs are verified before anything is served ([`Sources::packs`], signatures as
//! [`Trust`] says) and their files kept in a private folder: what is served is what was
//! verified at start; nothing is reloaded.
//!
//! ```no_run
//! # async fn serve() -> Result<(), browserflow_mcp::ServeError> {
//! use browserflow_catalog::RunSetup;
//! use browserflow_mcp::{Limits, McpServer, Served, Sources};
//!
//! let sources = Sources { dirs: vec!["recordings".into()], ..Sources::default() };
//! let setup = RunSetup::default();
//! let served = Served::load(&sources, &setup)?;
//! for tool in &served.tools {
//!     eprintln!("{} ← {}", tool.mcp_name, tool.reference);
//! }
//! McpServer::new(served, setup, Limits::default()).serve_stdio().await
//! # }
//! ```

#![deny(missing_docs)]

mod error;
mod gate;
mod http;
mod name;
mod served;
mod server;

pub use error::ServeError;
pub use gate::Busy;
pub use http::MCP_PATH;
pub use name::{MAX_MCP_NAME, mcp_name};
pub use served::{PackSource, Served, ServedTool, Sources, Trust, WRAPPED_OUTPUT};
pub use server::{Limits, McpServer, Progress};
