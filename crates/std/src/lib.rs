//! The standard pack of browserflow: first-party tools of every kind.
//!
//! - [`transform`] — pure JSON-to-JSON tools: `std/transform.slugify`, `.jq`, `.template`,
//!   `.pick`, `.map`, `.parse-number`, `.parse-price`, `.compare`.
//! - [`http`] — `std/http.get`, `.post`, `.request`: `net` only; the flow compiler adds
//!   `secrets` to a step exactly when a secret is bound to one of their slots.
//! - [`shell`] — `std/shell.run` (`spawn`) and `std/shell.run-in-root` (`spawn`, `fs`).
//! - [`code`] — the `code` kind: JavaScript in an embedded QuickJS sandbox.
//! - [`model`] — the `model` kind: a declared, recorded call to an OpenAI-compatible model.
//!
//! [`builtins`] lists the fixed tools (what `bflow tools list` prints) and
//! [`register_builtins`] registers them for the Rider and the flow compiler.
//! [`tool_from_file`] makes a runnable tool of a `code` or `model` tool file.
//!
//! ```
//! use browserflow_rider::ToolRegistry;
//!
//! let listing = browserflow_std::builtins().expect("valid built-ins");
//! let post = listing.iter().find(|b| b.reference() == "std/http.post@1.0.0").expect("listed");
//! assert_eq!(post.capabilities.len(), 1); // `net`; `secrets` only when a secret is bound
//!
//! let mut tools = ToolRegistry::new();
//! let mut contracts = browserflow_flow::Registry::new();
//! let n = browserflow_std::register_builtins(&mut tools, &mut contracts).expect("registered");
//! assert_eq!(n, listing.len());
//! ```

#![deny(missing_docs)]

mod builtins;
pub mod code;
pub mod http;
mod json_path;
pub mod model;
pub mod shell;
mod tool_file;
pub mod transform;

pub use builtins::{
    BUILTINS, BuiltinError, BuiltinFactory, BuiltinInfo, builtin, builtin_contracts, builtins,
    register_builtins,
};
pub use tool_file::tool_from_file;
