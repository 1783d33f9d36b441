//! Why the server refused to start.

use std::path::PathBuf;

/// Why `bflow mcp serve` refused to start: each names what and where; nothing is served
/// until everything named verifies, loads and compiles.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// A pack did not verify (bad digest, a file that differs from its manifest, an unsigned
    /// or badly signed pack when a signature is required) or could not be found.
    #[error("the pack {pack} is refused: {reason}")]
    Pack {
        /// The pack file or installed pack named.
        pack: String,
        /// Why.
        reason: String,
    },
    /// A tool or flow file does not load or compile.
    #[error("{}: {problems}", .file.display())]
    Broken {
        /// The file.
        file: PathBuf,
        /// What is wrong.
        problems: String,
    },
    /// The catalog could not be read.
    #[error("{0}")]
    Catalog(browserflow_flow::Diagnostics),
    /// A folder or file could not be read or written.
    #[error("{}: {reason}", .path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// Why, in words.
        reason: String,
    },
    /// Two refs derive the same MCP tool name.
    #[error("two tools would be served as `{name}`: {first} and {second}; serve one of them")]
    Collision {
        /// The MCP name.
        name: String,
        /// The first tool, with where it is from.
        first: String,
        /// The second.
        second: String,
    },
    /// A ref whose MCP name is longer than MCP allows.
    #[error("`{reference}` would be served as `{name}`, longer than MCP's 128 characters")]
    NameTooLong {
        /// The ref.
        reference: String,
        /// The name.
        name: String,
    },
    /// A secret a served tool needs is not set in the server's secrets chain.
    #[error("`{tool}` cannot be served: {missing}")]
    MissingSecrets {
        /// The tool or flow.
        tool: String,
        /// Which secrets, and how to set them.
        missing: String,
    },
    /// The secrets chain could not be read.
    #[error(transparent)]
    Setup(browserflow_catalog::SetupError),
    /// Streamable HTTP on an address other than loopback without a bearer token.
    #[error(
        "{0} is not a loopback address: serving there needs a bearer token \
         (set BROWSERFLOW_MCP_TOKEN; clients send `Authorization: Bearer <token>`)"
    )]
    TokenRequired(std::net::SocketAddr),
    /// The transport failed.
    #[error("the MCP transport failed: {0}")]
    Transport(String),
}
