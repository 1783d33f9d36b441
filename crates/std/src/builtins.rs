//! The built-in registry: every std tool by `name@version`, with the facts `bflow tools list`
//! prints, and registration into the Rider's [`ToolRegistry`] and the compiler's
//! [`Registry`](browserflow_flow::Registry).

use std::sync::Arc;

use browserflow_contract::{Capability, Digest, Kind, ToolContract};
use browserflow_rider::{DefineError, DynTool, RegistryError, SharedTool, Tool, ToolRegistry};

/// A factory of one built-in tool.
pub type BuiltinFactory = fn() -> Result<DynTool, DefineError>;

fn shared<T: Tool + 'static>(tool: Result<T, DefineError>) -> Result<DynTool, DefineError> {
    tool.map(|t| Arc::new(t) as DynTool)
}

/// Every built-in, in listing order.
pub const BUILTINS: &[BuiltinFactory] = &[
    || shared(crate::transform::slugify()),
    || shared(crate::transform::jq()),
    || shared(crate::transform::template()),
    || shared(crate::transform::pick()),
    || shared(crate::transform::map()),
    || shared(crate::transform::parse_number()),
    || shared(crate::transform::parse_price()),
    || shared(crate::transform::compare()),
    || shared(crate::http::http_get()),
    || shared(crate::http::http_post()),
    || shared(crate::http::http_request()),
    || shared(crate::shell::shell_run()),
    || shared(crate::shell::shell_run_in_root()),
];

/// What `bflow tools list` shows of a built-in.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct BuiltinInfo {
    /// The tool name, such as `std/http.post`.
    pub name: String,
    /// Its version.
    pub version: String,
    /// Its kind.
    pub kind: Kind,
    /// The capabilities its contract declares, sorted.
    pub capabilities: Vec<Capability>,
    /// The contract digest a flow pins.
    pub digest: Digest,
    /// What it does.
    pub description: String,
}

impl BuiltinInfo {
    /// `name@version`.
    pub fn reference(&self) -> String {
        format!("{}@{}", self.name, self.version)
    }
}

/// Why the built-ins could not be listed or registered.
#[derive(Debug, thiserror::Error)]
pub enum BuiltinError {
    /// A built-in's definition is invalid (a bug in this crate).
    #[error(transparent)]
    Define(#[from] DefineError),
    /// The Rider's registry refused a built-in.
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// The compiler's registry refused a built-in (another contract under its name@version).
    #[error("registering built-in `{reference}` for the compiler: {message}")]
    Contract {
        /// The built-in.
        reference: String,
        /// What the registry said.
        message: String,
    },
}

/// The contract of every built-in, in listing order.
pub fn builtin_contracts() -> Result<Vec<ToolContract>, BuiltinError> {
    BUILTINS
        .iter()
        .map(|make| Ok(make()?.contract().clone()))
        .collect()
}

/// The listing of every built-in: name, version, kind, capabilities, digest.
pub fn builtins() -> Result<Vec<BuiltinInfo>, BuiltinError> {
    builtin_contracts().map(|contracts| {
        contracts
            .iter()
            .map(|c| {
                let mut capabilities = c.capabilities().to_vec();
                capabilities.sort();
                BuiltinInfo {
                    name: c.name().to_owned(),
                    version: c.version().to_string(),
                    kind: c.kind(),
                    capabilities,
                    digest: c.contract_digest(),
                    description: c.description().to_owned(),
                }
            })
            .collect()
    })
}

/// A fresh instance of the built-in `name@version`, or `None` when there is no such built-in.
pub fn builtin(reference: &str) -> Option<Result<DynTool, DefineError>> {
    BUILTINS.iter().find_map(|make| match make() {
        Ok(tool) if tool.contract().reference() == reference => Some(Ok(tool)),
        Ok(_) => None,
        Err(e) => Some(Err(e)),
    })
}

/// Registers every built-in with the Rider's `tools` (to run) and the compiler's `contracts`
/// (to check flows). Returns how many were registered.
pub fn register_builtins(
    tools: &mut ToolRegistry,
    contracts: &mut browserflow_flow::Registry,
) -> Result<usize, BuiltinError> {
    for make in BUILTINS {
        let make = *make;
        let contract = tools.register(move || make().map(SharedTool))?.clone();
        let reference = contract.reference();
        contracts
            .insert(contract)
            .map_err(|d| BuiltinError::Contract {
                reference,
                message: d.to_string(),
            })?;
    }
    Ok(BUILTINS.len())
}
