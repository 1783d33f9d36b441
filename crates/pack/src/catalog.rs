//! The catalog export draws from: tool and flow files found on disk or in the store, by ref.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use browserflow_contract::{ToolContract, ToolRef};
use browserflow_flow::FlowSpec;
use serde_json::Value;

use crate::error::PackError;
use crate::manifest::Form;

/// One tool or flow file, parsed.
#[derive(Debug, Clone)]
pub(crate) struct Item {
    pub form: Form,
    pub bytes: Vec<u8>,
    /// For a tool: its contract.
    pub contract: Option<ToolContract>,
    /// For a flow: the spec.
    pub flow: Option<FlowSpec>,
    /// Where it came from, for messages.
    pub source: String,
    /// Named on its own (a root given as a path), not found in a folder.
    pub named: bool,
}

/// Tool files and flows by ref: what [`crate::export`] can put in a pack.
///
/// ```no_run
/// # fn main() -> Result<(), browserflow_pack::PackError> {
/// let mut catalog = browserflow_pack::Catalog::new();
/// catalog.add_dir("recordings")?;
/// let root = catalog.root("search-price@1.2.0")?; // a ref, or a path to a tool/flow file
/// # let _ = root; Ok(()) }
/// ```
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    items: BTreeMap<ToolRef, Item>,
    skipped: Vec<String>,
    /// Refs that folder files define more than once with different content: an error only
    /// for an export that needs them (an unrelated file in a folder breaks nothing).
    ambiguous: BTreeMap<ToolRef, Vec<String>>,
}

impl Catalog {
    /// An empty catalog.
    pub fn new() -> Catalog {
        Catalog::default()
    }

    /// Adds one file named on its own: a JSON document accepted by
    /// `ToolContract::from_document` (a contract, or a tool file with a top-level
    /// `contract`), or a flow (`steps`, no `contract`). It stands for its ref: a folder file
    /// of the same ref is set aside. Two files named on their own with the same ref and
    /// different bytes are an error.
    pub fn add_file(&mut self, path: impl AsRef<Path>) -> Result<ToolRef, PackError> {
        self.add(path.as_ref(), true)
    }

    fn add(&mut self, path: &Path, named: bool) -> Result<ToolRef, PackError> {
        let bytes = crate::read_bounded(path, browserflow_contract::MAX_DOCUMENT_BYTES)?;
        let source = path.display().to_string();
        let (reference, mut item) = parse_item(bytes, source)?;
        item.named = named;
        self.insert(reference, item)
    }

    pub(crate) fn insert(&mut self, reference: ToolRef, item: Item) -> Result<ToolRef, PackError> {
        let Some(known) = self.items.get(&reference) else {
            self.items.insert(reference.clone(), item);
            return Ok(reference);
        };
        if known.bytes == item.bytes {
            return Ok(reference);
        }
        match (known.named, item.named) {
            (true, true) => Err(PackError::Export(format!(
                "`{reference}` is defined twice with different content: {} and {}",
                known.source, item.source
            ))),
            // A file named on its own wins over a folder's file of the same ref.
            (true, false) => Ok(reference),
            (false, true) => {
                self.ambiguous.remove(&reference);
                self.items.insert(reference.clone(), item);
                Ok(reference)
            }
            (false, false) => {
                let sources = self
                    .ambiguous
                    .entry(reference.clone())
                    .or_insert_with(|| vec![known.source.clone()]);
                sources.push(item.source);
                Ok(reference)
            }
        }
    }

    /// The folder files that define `reference` differently, when more than one does.
    pub(crate) fn ambiguity(&self, reference: &ToolRef) -> Option<&[String]> {
        self.ambiguous.get(reference).map(Vec::as_slice)
    }

    /// Adds every `*.json` file directly inside `dir`. Files that are not tools or flows are
    /// skipped (and named if a ref turns out to be missing); returns how many were added.
    pub fn add_dir(&mut self, dir: impl AsRef<Path>) -> Result<usize, PackError> {
        let dir = dir.as_ref();
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(PackError::io(dir))?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        let mut added = 0;
        for file in files {
            match self.add(&file, false) {
                Ok(_) => added += 1,
                Err(e @ PackError::Export(_)) => return Err(e),
                Err(e) => self.skipped.push(format!("{}: {e}", file.display())),
            }
        }
        Ok(added)
    }

    /// Adds every tool and flow installed in `store`.
    pub fn add_store(&mut self, store: &crate::Store) -> Result<usize, PackError> {
        let mut added = 0;
        for path in store.files()? {
            self.add(&path, false)?;
            added += 1;
        }
        Ok(added)
    }

    /// Resolves a command-line argument: a path to an existing file is added and its ref
    /// returned; anything else must be a `name@version` ref.
    pub fn root(&mut self, argument: &str) -> Result<ToolRef, PackError> {
        let path = Path::new(argument);
        if path.is_file() {
            return self.add_file(path);
        }
        ToolRef::parse(argument).map_err(|p| {
            PackError::Export(format!(
                "`{argument}` is neither a file nor a `name@version` ref: {p}"
            ))
        })
    }

    /// Every ref in the catalog.
    pub fn refs(&self) -> impl Iterator<Item = &ToolRef> {
        self.items.keys()
    }

    pub(crate) fn get(&self, reference: &ToolRef) -> Option<&Item> {
        self.items.get(reference)
    }

    /// Files skipped by [`Catalog::add_dir`], each with the reason.
    pub fn skipped(&self) -> &[String] {
        &self.skipped
    }
}

/// Parses a tool or flow document; the error names `source`.
pub(crate) fn parse_item(bytes: Vec<u8>, source: String) -> Result<(ToolRef, Item), PackError> {
    let invalid = |message: String| PackError::Contract {
        reference: "?".into(),
        file: source.clone(),
        message,
    };
    let value: Value = browserflow_contract::parse_json_slice(&bytes)
        .map_err(|e| invalid(e.to_problem().to_string()))?;
    let is_flow = value.get("steps").is_some() && value.get("contract").is_none();
    let (reference, item) = if is_flow {
        let flow =
            FlowSpec::from_json(&value).map_err(|d| invalid(format!("not a valid flow: {d}")))?;
        let reference = ToolRef::parse(&format!("{}@{}", flow.name, flow.version))
            .map_err(|p| invalid(p.to_string()))?;
        let item = Item {
            form: Form::Flow,
            bytes,
            contract: None,
            flow: Some(flow),
            source,
            named: false,
        };
        (reference, item)
    } else {
        let contract = ToolContract::from_document(&value)
            .map_err(|p| invalid(format!("not a valid tool contract: {p}")))?;
        let reference =
            ToolRef::parse(&contract.reference()).map_err(|p| invalid(p.to_string()))?;
        let item = Item {
            form: Form::Tool,
            bytes,
            contract: Some(contract),
            flow: None,
            source,
            named: false,
        };
        (reference, item)
    };
    Ok((reference, item))
}
