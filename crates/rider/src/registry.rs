//! The tool registry: tool factories by `name@version`, with each contract's schemas
//! compiled once.

use std::collections::BTreeMap;
use std::sync::Arc;

use browserflow_contract::{Digest, ToolContract};

use crate::define::DefineError;
use crate::tool::{DynTool, Tool};
use crate::validate::CompiledContract;

/// What a tool factory may return: a tool, or the error of a tool definition.
pub trait IntoTool {
    /// The tool, shared.
    fn into_tool(self) -> Result<DynTool, DefineError>;
}

impl<T: Tool + 'static> IntoTool for T {
    fn into_tool(self) -> Result<DynTool, DefineError> {
        Ok(Arc::new(self))
    }
}

impl<T: Tool + 'static> IntoTool for Result<T, DefineError> {
    fn into_tool(self) -> Result<DynTool, DefineError> {
        self.map(|t| Arc::new(t) as DynTool)
    }
}

/// Why a tool cannot be registered or instantiated.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RegistryError {
    /// The factory failed.
    #[error(transparent)]
    Define(#[from] DefineError),
    /// Two factories for one `name@version`.
    #[error("tool `{0}` is registered twice")]
    Duplicate(String),
    /// The factory made a tool whose contract differs from the one it made at registration.
    #[error(
        "the factory of `{0}` made a tool with another contract: factories must be deterministic"
    )]
    Unstable(String),
    /// A schema of the contract does not compile.
    #[error("tool `{reference}`: {message}")]
    Schema {
        /// The tool.
        reference: String,
        /// What is wrong.
        message: String,
    },
}

type Factory = Arc<dyn Fn() -> Result<DynTool, DefineError> + Send + Sync>;

pub(crate) struct Entry {
    factory: Factory,
    pub(crate) contract: ToolContract,
    pub(crate) digest: Digest,
    pub(crate) compiled: Arc<CompiledContract>,
}

/// Tool factories by `name@version`. A tool is made fresh for every run from its factory, so
/// no state is shared between runs.
#[derive(Default)]
pub struct ToolRegistry {
    entries: BTreeMap<String, Entry>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.entries.keys()).finish()
    }
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> ToolRegistry {
        ToolRegistry::default()
    }

    /// Registers a factory (a function making the tool). It is called once now, to read and
    /// check the contract, and again for each run.
    pub fn register<F, T>(&mut self, factory: F) -> Result<&ToolContract, RegistryError>
    where
        F: Fn() -> T + Send + Sync + 'static,
        T: IntoTool,
    {
        let factory: Factory = Arc::new(move || factory().into_tool());
        let tool = factory()?;
        let contract = tool.contract().clone();
        let reference = contract.reference();
        if self.entries.contains_key(&reference) {
            return Err(RegistryError::Duplicate(reference));
        }
        let compiled =
            CompiledContract::new(&contract).map_err(|message| RegistryError::Schema {
                reference: reference.clone(),
                message,
            })?;
        let entry = Entry {
            factory,
            digest: contract.contract_digest(),
            contract,
            compiled: Arc::new(compiled),
        };
        Ok(&self.entries.entry(reference).or_insert(entry).contract)
    }

    /// The contract of `name@version`.
    pub fn contract(&self, reference: &str) -> Option<&ToolContract> {
        self.entries.get(reference).map(|e| &e.contract)
    }

    /// Every registered contract, by `name@version`.
    pub fn contracts(&self) -> impl Iterator<Item = &ToolContract> {
        self.entries.values().map(|e| &e.contract)
    }

    /// A fresh instance of `name@version`.
    pub fn instantiate(&self, reference: &str) -> Option<Result<DynTool, RegistryError>> {
        let entry = self.entries.get(reference)?;
        Some(make(entry, reference))
    }

    pub(crate) fn entry(&self, reference: &str) -> Option<&Entry> {
        self.entries.get(reference)
    }
}

pub(crate) fn make(entry: &Entry, reference: &str) -> Result<DynTool, RegistryError> {
    let tool = (entry.factory)()?;
    if tool.contract() != &entry.contract {
        return Err(RegistryError::Unstable(reference.to_owned()));
    }
    Ok(tool)
}

impl ToolRegistry {
    /// The contracts as a flow-compiler registry, to compile flows against these tools.
    pub fn contract_registry(
        &self,
    ) -> Result<browserflow_flow::Registry, browserflow_flow::Diagnostics> {
        let mut registry = browserflow_flow::Registry::new();
        for entry in self.entries.values() {
            registry.insert(entry.contract.clone())?;
        }
        Ok(registry)
    }
}
