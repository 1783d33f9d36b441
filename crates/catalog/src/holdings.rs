//! What a catalog holds, read once for every shell: each file of its folders and of the pack
//! store, the tool or flow it is, and whether it loads.
//!
//! Two rules live here and nowhere else:
//!
//! - **A pack never breaks a workspace.** A tool or flow that is both a folder file and an
//!   installed pack's entry is one tool, the folder's (a tool being edited shadows the
//!   installed one, as [`Catalog::find_tool`] finds it). When both are the same tool — the same
//!   contract digest and the same content apart from `metadata` — nothing is said; when they
//!   differ the catalog says so ([`Shadowed`]), and `bflow pack import` refuses to install
//!   such a pack unless told which one to keep ([`crate::pack_view::OnConflict`]).
//! - **A file is checked for what it uses.** A file that does not load (a half-edited flow, a
//!   tool file with a bad step) is set apart as a [`BrokenFile`], never an error of another
//!   file: a flow is compiled against what loads, and only a broken file it requires is one of
//!   its errors ([`Catalog::check_flow`]). `bflow check`, `bflow flow run`/`resume` and the
//!   app's Flows screen all ask this one function, so they give one verdict.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use browserflow_contract::{Digest, ToolContract, ToolRef};
use browserflow_flow::{
    Code, Diagnostic, Diagnostics, FileShape, FlowSpec, Plan, Registry, Stranger, shape_of,
    tool_folder_files,
};
use browserflow_pack::Store;
use browserflow_steps::ToolFile;
use serde_json::Value;

use crate::Catalog;

/// A folder file that stands for an installed pack's tool or flow of the same `name@version`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shadowed {
    /// The tool or flow.
    pub reference: ToolRef,
    /// The folder file, the one used.
    pub file: PathBuf,
    /// The pack whose entry it shadows, `name@version`.
    pub pack: String,
    /// That pack's digest.
    pub pack_digest: Digest,
    /// The entry's file in the store.
    pub pack_file: PathBuf,
    /// Whether the two are the same tool (same contract digest, same content but
    /// `metadata`): then there is nothing to say.
    pub same: bool,
}

impl fmt::Display for Shadowed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} is used for {}: the pack {} installed a different {} (remove the pack with `bflow pack remove {}`, or rename the file's tool)",
            self.file.display(),
            self.reference,
            self.pack,
            self.reference,
            self.pack
        )
    }
}

/// A file of the catalog that does not load, with every problem, each naming the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokenFile {
    /// The file.
    pub path: PathBuf,
    /// The `name@version` it says it is, when that can be read (else from its file name).
    pub reference: Option<String>,
    /// What is wrong.
    pub problems: Vec<Diagnostic>,
}

impl fmt::Display for BrokenFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.problems.len();
        write!(
            f,
            "skipped {}: it does not load ({count} problem{})",
            self.path.display(),
            if count == 1 { "" } else { "s" }
        )?;
        for problem in &self.problems {
            write!(f, "\n  {}", without_file(problem))?;
        }
        Ok(())
    }
}

/// The diagnostic as a line under its file's name (the file said once, above).
fn without_file(problem: &Diagnostic) -> String {
    let mut local = problem.clone();
    local.file = None;
    local.to_string()
}

/// Something a shell says once beside its answer: the catalog went on without it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogWarning {
    /// A JSON file that is not a tool, flow or contract.
    Stranger(Stranger),
    /// A file that does not load (and is not required by what was asked for).
    Broken(BrokenFile),
    /// A folder file used instead of a different installed tool of the same ref.
    Shadowed(Shadowed),
}

impl fmt::Display for CatalogWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CatalogWarning::Stranger(s) => s.fmt(f),
            CatalogWarning::Broken(b) => b.fmt(f),
            CatalogWarning::Shadowed(s) => s.fmt(f),
        }
    }
}

/// Everything the catalog holds, read and sorted out.
#[derive(Debug, Clone, Default)]
pub struct Holdings {
    /// The contracts of every file that loads, with the built-ins, for the compiler.
    pub contracts: Registry,
    /// The files that load, folders first, one per `name@version`.
    pub files: Vec<PathBuf>,
    /// Files that do not load.
    pub broken: Vec<BrokenFile>,
    /// Installed entries a folder file stands for.
    pub shadowed: Vec<Shadowed>,
    /// JSON files of the folders that are not browserflow's.
    pub strangers: Vec<Stranger>,
}

impl Holdings {
    /// What a shell says beside its answer: strangers, broken files and different tools
    /// shadowed (the same tool twice is one tool, and says nothing).
    pub fn warnings(&self) -> Vec<CatalogWarning> {
        let mut out: Vec<CatalogWarning> = self
            .strangers
            .iter()
            .cloned()
            .map(CatalogWarning::Stranger)
            .collect();
        out.extend(self.broken.iter().cloned().map(CatalogWarning::Broken));
        out.extend(
            self.shadowed
                .iter()
                .filter(|s| !s.same)
                .cloned()
                .map(CatalogWarning::Shadowed),
        );
        out
    }
}

/// A flow checked against the catalog: the plan or its errors, and what the catalog skipped.
#[derive(Debug, Clone)]
pub struct FlowCheck {
    /// The compiled plan, or every error of the flow (its own, and those of the files it
    /// requires that do not load).
    pub plan: Result<Plan, Diagnostics>,
    /// What was skipped on the way, each naming its file.
    pub warnings: Vec<CatalogWarning>,
}

/// One file read, before the registry.
struct Read {
    path: PathBuf,
    reference: Option<ToolRef>,
    value: Option<Value>,
    pack: Option<browserflow_pack::InstalledTool>,
}

impl Catalog {
    /// Reads every file of the folders and the store (except `except`, the file being checked
    /// itself): see the module doc. Fails only when a folder or the store cannot be read at
    /// all, or the built-ins do not load.
    pub fn holdings(&self, except: Option<&Path>) -> Result<Holdings, Diagnostics> {
        let except = except.and_then(|p| p.canonicalize().ok());
        let mut holdings = Holdings::default();
        let mut reads: Vec<Read> = Vec::new();
        for dir in &self.dirs {
            let found = tool_folder_files(dir).map_err(|e| {
                crate::one(format!("cannot read the folder {}: {e}", dir.display()))
            })?;
            holdings.strangers.extend(found.strangers);
            for path in found.files {
                if except.is_some() && path.canonicalize().ok() == except {
                    continue;
                }
                reads.push(read(path, None));
            }
        }
        if let Some(root) = &self.store {
            let installed = Store::open(root.clone())
                .tools()
                .map_err(|e| crate::one(e.to_string()))?;
            for tool in installed {
                let folder = reads
                    .iter()
                    .find(|r| r.pack.is_none() && r.reference.as_ref() == Some(&tool.reference));
                if let Some(folder) = folder {
                    let pack_value = browserflow_contract::read_json_file(&tool.path).ok();
                    holdings.shadowed.push(Shadowed {
                        reference: tool.reference.clone(),
                        file: folder.path.clone(),
                        pack: tool.pack.clone(),
                        pack_digest: tool.pack_digest.clone(),
                        pack_file: tool.path.clone(),
                        same: same_tool(folder.value.as_ref(), pack_value.as_ref()),
                    });
                    continue;
                }
                reads.push(read(tool.path.clone(), Some(tool)));
            }
        }

        // Each file on its own first: a tool file must be one its runner accepts.
        let mut loadable = Vec::new();
        for r in reads {
            match runnable_problems(&r) {
                Some(problems) => holdings.broken.push(r.broken(problems)),
                None => loadable.push(r),
            }
        }
        // Then together: contracts, and flows compiled against what loads.
        let mut registry = crate::builtin_contracts()?;
        let files: Vec<PathBuf> = loadable.iter().map(|r| r.path.clone()).collect();
        let failed = registry
            .load_files(&files)
            .err()
            .map(|d| d.0)
            .unwrap_or_default();
        for r in loadable {
            let name = r.path.display().to_string();
            let problems: Vec<Diagnostic> = failed
                .iter()
                .filter(|d| d.file.as_deref() == Some(name.as_str()))
                .cloned()
                .collect();
            if problems.is_empty() {
                holdings.files.push(r.path);
            } else {
                holdings.broken.push(r.broken(problems));
            }
        }
        holdings.contracts = registry;
        Ok(holdings)
    }

    /// Checks the flow at `flow` against what the catalog holds: the one verdict of
    /// `bflow check`, `bflow flow run`/`resume` and the app. A file the flow does not require
    /// that does not load is a warning naming it; one it requires adds its problems to the
    /// flow's errors.
    pub fn check_flow(&self, flow: &Path) -> FlowCheck {
        let holdings = match self.holdings(Some(flow)) {
            Ok(holdings) => holdings,
            Err(diagnostics) => {
                return FlowCheck {
                    plan: Err(diagnostics),
                    warnings: Vec::new(),
                };
            }
        };
        let plan = browserflow_flow::check_file(flow, &holdings.contracts);
        let mut warnings = holdings.warnings();
        let plan = plan.map_err(|mut errors| {
            let used = uses_of(flow);
            warnings.retain(|warning| match warning {
                CatalogWarning::Broken(broken)
                    if broken
                        .reference
                        .as_ref()
                        .is_some_and(|r| used.contains(r.as_str())) =>
                {
                    errors.0.extend(broken.problems.iter().cloned());
                    false
                }
                _ => true,
            });
            errors
        });
        FlowCheck { plan, warnings }
    }
}

/// The `name@version` of every tool the flow at `path` pins or uses (none when it does not
/// parse: then its own errors are the answer).
fn uses_of(path: &Path) -> BTreeSet<String> {
    let Some(spec) = browserflow_contract::read_json_file(path)
        .ok()
        .and_then(|value| FlowSpec::from_json(&value).ok())
    else {
        return BTreeSet::new();
    };
    spec.requires
        .iter()
        .map(|r| r.reference.to_string())
        .chain(spec.steps.iter().map(|s| s.uses.to_string()))
        .collect()
}

impl Read {
    /// This file, set apart with its `problems`.
    fn broken(self, problems: Vec<Diagnostic>) -> BrokenFile {
        BrokenFile {
            reference: self
                .reference
                .as_ref()
                .map(ToString::to_string)
                .or_else(|| reference_from_name(&self.path)),
            path: self.path,
            problems,
        }
    }
}

fn read(path: PathBuf, pack: Option<browserflow_pack::InstalledTool>) -> Read {
    let value = browserflow_contract::read_json_file(&path).ok();
    let reference = match &pack {
        Some(tool) => Some(tool.reference.clone()),
        None => value.as_ref().and_then(reference_of),
    };
    Read {
        path,
        reference,
        value,
        pack,
    }
}

/// The `name@version` a document says it is: a tool file's or contract's, a flow's.
fn reference_of(value: &Value) -> Option<ToolRef> {
    let holder = match shape_of(value) {
        FileShape::ToolFile => value.get("contract")?,
        FileShape::Flow | FileShape::Contract => value,
        FileShape::Stranger => return None,
    };
    let name = holder.get("name")?.as_str()?;
    let version = holder.get("version")?.as_str()?;
    ToolRef::parse(&format!("{name}@{version}")).ok()
}

/// `name@version` from a file name `name@version.json` or `name@version.flow.json`.
fn reference_from_name(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_suffix(".json")?;
    let stem = stem.strip_suffix(".flow").unwrap_or(stem);
    ToolRef::parse(stem).ok().map(|r| r.to_string())
}

/// Why a tool file's runner would refuse it (`None`: it would not, or it is no tool file —
/// contracts and flows are the registry's to judge).
fn runnable_problems(read: &Read) -> Option<Vec<Diagnostic>> {
    let value = read.value.as_ref()?;
    if shape_of(value) != FileShape::ToolFile {
        return None;
    }
    let name = read.path.display().to_string();
    let problems = match value.pointer("/contract/kind").and_then(Value::as_str) {
        Some("browser") => match ToolFile::from_json(value) {
            Ok(_) => return None,
            Err(problems) => problems.0.into_iter().map(Diagnostic::from).collect(),
        },
        Some(_) => match browserflow_std::tool_from_file(value) {
            Ok(_) => return None,
            Err(message) => vec![Diagnostic::new(Code::BadFile, "", message)],
        },
        // No kind: the contract registry says what is wrong, at its pointer.
        None => return None,
    };
    Some(
        problems
            .into_iter()
            .map(|d: Diagnostic| d.file(name.clone()))
            .collect(),
    )
}

/// The tool, contract and flow documents of `dirs` that say which `name@version` they are,
/// folders in order (a file that does not read is left to the loaders to report).
pub(crate) fn folder_documents(dirs: &[PathBuf]) -> Vec<(PathBuf, ToolRef, Value)> {
    dirs.iter()
        .filter_map(|dir| tool_folder_files(dir).ok())
        .flat_map(|found| found.files)
        .filter_map(|path| {
            let value = browserflow_contract::read_json_file(&path).ok()?;
            let reference = reference_of(&value)?;
            Some((path, reference, value))
        })
        .collect()
}

/// Whether two documents are the same tool or flow: the same contract digest and the same
/// content apart from `metadata` (when and how it was recorded).
pub(crate) fn same_tool(a: Option<&Value>, b: Option<&Value>) -> bool {
    let (Some(a), Some(b)) = (a, b) else {
        return false;
    };
    let digest = |v: &Value| {
        ToolContract::from_document(v)
            .ok()
            .map(|c| c.contract_digest())
    };
    if shape_of(a) != FileShape::Flow && digest(a) != digest(b) {
        return false;
    }
    let strip = |v: &Value| {
        let mut v = v.clone();
        if let Some(map) = v.as_object_mut() {
            map.remove("metadata");
        }
        v
    };
    strip(a) == strip(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_tool_differs_only_in_metadata() {
        let a: Value = serde_json::json!({"contract": {"name": "t", "version": "1.0.0", "kind": "transform", "inputs": [], "output": {"type": "string"}, "capabilities": []}, "steps": [1], "metadata": {"at": 1}});
        let mut b = a.clone();
        b["metadata"] = serde_json::json!({"at": 2});
        assert!(same_tool(Some(&a), Some(&b)));
        b["steps"] = serde_json::json!([2]);
        assert!(!same_tool(Some(&a), Some(&b)));
        assert!(!same_tool(Some(&a), None));
    }

    #[test]
    fn a_reference_comes_from_the_document_or_the_file_name() {
        let flow = serde_json::json!({"name": "f", "version": "1.0.0", "steps": []});
        assert_eq!(
            reference_of(&flow).map(|r| r.to_string()).as_deref(),
            Some("f@1.0.0")
        );
        assert_eq!(
            reference_from_name(Path::new("x/t@1.2.0.json")).as_deref(),
            Some("t@1.2.0")
        );
        assert_eq!(
            reference_from_name(Path::new("x/f@1.0.0.flow.json")).as_deref(),
            Some("f@1.0.0")
        );
        assert_eq!(reference_from_name(Path::new("x/broken.flow.json")), None);
    }
}
