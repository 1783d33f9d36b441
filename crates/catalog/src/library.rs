//! The library: every tool and flow a person has — the files in their folders (`recordings/`
//! and its `contracts/`) and the installed packs — each with its interface at a glance and how
//! its last run went. This is what the desktop app's Library screen lists; it reads files and
//! the pack store, and keeps the last-run record in a small JSON file.
//!
//! ```no_run
//! use browserflow_catalog::library::{Library, RunHistory};
//!
//! let library = Library {
//!     dirs: vec!["recordings".into(), "recordings/contracts".into()],
//!     store: None,
//!     history: Some("runs/last-runs.json".into()),
//! };
//! for item in library.items() {
//!     println!("{} {} {:?}", item.reference, item.kind, item.last_run.map(|r| r.status));
//! }
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use browserflow_contract::ToolContract;
use browserflow_flow::{Diagnostic, Registry};
use browserflow_pack::Store;
use serde::{Deserialize, Serialize};

/// Where the library looks.
#[derive(Debug, Clone, Default)]
pub struct Library {
    /// Folders of tool, contract and flow files (read non-recursively).
    pub dirs: Vec<PathBuf>,
    /// The pack store, when there is one.
    pub store: Option<PathBuf>,
    /// The last-run record ([`RunHistory`]), when there is one.
    pub history: Option<PathBuf>,
}

/// One input slot of a tool, for people.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SlotInfo {
    /// The slot name.
    pub name: String,
    /// The JSON type(s), `string`, `number | null`, …
    #[serde(rename = "type")]
    pub type_name: String,
    /// A secret slot: filled by reference (`secret.NAME`), never by value.
    pub secret: bool,
    /// Whether a value is needed (no default).
    pub required: bool,
    /// The default value, for non-secret slots that have one.
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub default: Option<serde_json::Value>,
}

/// Where a library item lives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum ItemSource {
    /// A file in one of the library folders.
    Folder {
        /// The folder.
        dir: String,
    },
    /// An installed pack.
    Pack {
        /// The pack, `name@version`.
        pack: String,
        /// The pack digest.
        digest: String,
    },
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum RunStatus {
    /// The run returned a valid output.
    Passed,
    /// The run failed.
    Failed,
}

/// The last run of a tool or flow.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LastRun {
    /// How it ended.
    pub status: RunStatus,
    /// When it ended, seconds since the Unix epoch.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub finished_at: u64,
    /// How long it took, in milliseconds.
    pub duration_ms: f64,
    /// The run id in the journal, when there was one.
    pub run_id: Option<String>,
    /// Why it failed (redacted), for failed runs.
    pub error: Option<String>,
    /// What to know although it passed (redacted): a step found only by a lower-ranked
    /// candidate, the page drifting from its recording (see `PreviewResult::warnings`).
    /// Absent from a history written before warnings were kept.
    #[serde(default)]
    pub warnings: Vec<String>,
}

/// A tool or flow in the library.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LibraryItem {
    /// `name@version`, or the file name when the file does not load.
    pub reference: String,
    /// The tool name.
    pub name: String,
    /// The version.
    pub version: String,
    /// `browser`, `http`, `transform`, … or `flow`.
    pub kind: String,
    /// Only the contract is here (no steps): it cannot run from the library.
    pub contract_only: bool,
    /// What it does.
    pub description: String,
    /// The declared capabilities.
    pub capabilities: Vec<String>,
    /// The contract digest (`sha256:…`).
    pub digest: String,
    /// The inputs.
    pub inputs: Vec<SlotInfo>,
    /// The output schema (JSON Schema 2020-12).
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub output: serde_json::Value,
    /// The file.
    pub path: String,
    /// Where it lives.
    pub source: ItemSource,
    /// The last recorded run.
    pub last_run: Option<LastRun>,
    /// Why the file does not load, when it does not (the item is listed all the same).
    pub problem: Option<String>,
    /// For a folder file: the installed pack that carries a tool or flow of the same
    /// `name@version` (the folder file is the one used).
    pub also_in_pack: Option<PackCopy>,
}

/// An installed pack's copy of a folder file's tool or flow.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PackCopy {
    /// The pack, `name@version`.
    pub pack: String,
    /// The pack digest.
    pub digest: String,
    /// Whether it is the same tool (then the two are one); otherwise the folder file is used
    /// and the pack's is not.
    pub same: bool,
}

impl Library {
    /// Every item: folder files first (in folder and name order), then installed tools and
    /// flows that are not also in a folder. A file that does not load is listed with its
    /// `problem`; an unreadable store adds nothing (the folders still list).
    pub fn items(&self) -> Vec<LibraryItem> {
        let files = self.folder_files();
        let store = self
            .store
            .as_ref()
            .filter(|root| Store::open((*root).clone()).tools().is_ok());
        let installed = store
            .and_then(|root| Store::open(root.clone()).tools().ok())
            .unwrap_or_default();
        // What the catalog holds, read the way every run reads it: flows compile against the
        // tools beside them, a folder file stands for a pack's copy of it, and a file that
        // fails is listed with its problems. Only readable folders and stores are asked.
        let catalog = crate::Catalog {
            dirs: self
                .dirs
                .iter()
                .filter(|dir| browserflow_flow::tool_folder_files(dir).is_ok())
                .cloned()
                .collect(),
            store: store.cloned(),
        };
        let holdings = catalog.holdings(None).unwrap_or_default();
        let problems: Vec<Diagnostic> = holdings
            .broken
            .iter()
            .flat_map(|b| b.problems.iter().cloned())
            .collect();
        let registry = &holdings.contracts;
        let history = self
            .history
            .as_ref()
            .map(|p| RunHistory::load(p))
            .unwrap_or_default();

        let mut items = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for (dir, file) in &files {
            let source = ItemSource::Folder {
                dir: dir.display().to_string(),
            };
            let mut item = item_for_file(registry, &problems, file, source, &history);
            item.also_in_pack =
                holdings
                    .shadowed
                    .iter()
                    .find(|s| &s.file == file)
                    .map(|s| PackCopy {
                        pack: s.pack.clone(),
                        digest: s.pack_digest.to_string(),
                        same: s.same,
                    });
            seen.insert(item.reference.clone());
            items.push(item);
        }
        for tool in &installed {
            let reference = tool.reference.to_string();
            if seen.contains(&reference) {
                continue;
            }
            let source = ItemSource::Pack {
                pack: tool.pack.clone(),
                digest: tool.pack_digest.to_string(),
            };
            items.push(item_for_file(
                registry, &problems, &tool.path, source, &history,
            ));
        }
        items
    }

    /// The catalog of the same folders and store: where the library's tools are found
    /// ([`crate::Catalog::find_tool`]) and run from.
    pub fn catalog(&self) -> crate::Catalog {
        crate::Catalog {
            dirs: self.dirs.clone(),
            store: self.store.clone(),
        }
    }

    /// The file of the item `reference` (`name@version`), folders first.
    pub fn find(&self, reference: &str) -> Option<LibraryItem> {
        self.items()
            .into_iter()
            .find(|item| item.reference == reference)
    }

    fn folder_files(&self) -> Vec<(PathBuf, PathBuf)> {
        let mut out = Vec::new();
        for dir in &self.dirs {
            // A missing or unreadable folder lists nothing; the other folders still list.
            // Strangers (JSON that is not a tool, flow or contract) are not library items.
            let Ok(found) = browserflow_flow::tool_folder_files(dir) else {
                continue;
            };
            out.extend(found.files.into_iter().map(|f| (dir.clone(), f)));
        }
        out
    }
}

fn item_for_file(
    registry: &Registry,
    problems: &[Diagnostic],
    file: &Path,
    source: ItemSource,
    history: &RunHistory,
) -> LibraryItem {
    let name = file.display().to_string();
    // The registry keeps the first source of a contract registered twice (a built-in also
    // kept as a file, a tool both in a folder and in a pack): then the file is identified by
    // its own contract, when the registry holds that very contract.
    let registered = registry
        .iter()
        .find(|(_, tool)| tool.source.as_deref() == Some(name.as_str()))
        .or_else(|| {
            let contract = own_contract(file)?;
            let reference: browserflow_contract::ToolRef = contract.reference().parse().ok()?;
            registry
                .iter()
                .find(|(r, tool)| **r == reference && tool.digest == contract.contract_digest())
        });
    match registered {
        Some((reference, tool)) => {
            let reference = reference.to_string();
            let mut item = describe(&tool.contract, &tool.digest.to_string(), file, source);
            if tool.composite.is_some() {
                item.kind = "flow".to_string();
            }
            item.contract_only = item.kind != "flow" && !has_steps(file);
            item.last_run = history.get(&reference);
            item
        }
        None => {
            let problem: Vec<String> = problems
                .iter()
                .filter(|d| d.file.as_deref() == Some(name.as_str()))
                .map(|d| d.to_string())
                .collect();
            let stem = file
                .file_name()
                .map(|n| n.to_string_lossy().trim_end_matches(".json").to_string())
                .unwrap_or_default();
            let (tool_name, version) = match stem.split_once('@') {
                Some((n, v)) => (n.to_string(), v.trim_end_matches(".flow").to_string()),
                None => (stem.trim_end_matches(".flow").to_string(), String::new()),
            };
            LibraryItem {
                reference: stem.clone(),
                name: tool_name,
                version,
                kind: if stem.ends_with(".flow") {
                    "flow".into()
                } else {
                    "unknown".into()
                },
                contract_only: false,
                description: String::new(),
                capabilities: Vec::new(),
                digest: String::new(),
                inputs: Vec::new(),
                output: serde_json::Value::Null,
                path: name,
                source,
                last_run: history.get(&stem),
                also_in_pack: None,
                problem: Some(if problem.is_empty() {
                    "the file does not load".to_string()
                } else {
                    problem.join("\n")
                }),
            }
        }
    }
}

/// The item of a contract.
pub fn describe(
    contract: &ToolContract,
    digest: &str,
    file: &Path,
    source: ItemSource,
) -> LibraryItem {
    LibraryItem {
        reference: contract.reference(),
        name: contract.name().to_string(),
        version: contract.version().to_string(),
        kind: contract.kind().as_str().to_string(),
        contract_only: false,
        description: contract.description().to_string(),
        capabilities: contract
            .capabilities()
            .iter()
            .map(|c| c.as_str().to_string())
            .collect(),
        digest: digest.to_string(),
        inputs: slots(contract),
        output: contract.output().to_json(),
        path: file.display().to_string(),
        source,
        last_run: None,
        problem: None,
        also_in_pack: None,
    }
}

/// The input slots of a contract, for people.
pub fn slots(contract: &ToolContract) -> Vec<SlotInfo> {
    contract
        .inputs()
        .iter()
        .map(|decl| {
            let schema = decl.schema.to_json();
            let default = schema.get("default").cloned().filter(|_| !decl.secret);
            SlotInfo {
                name: decl.name.clone(),
                type_name: type_name(&schema),
                secret: decl.secret,
                required: schema.get("default").is_none(),
                default,
            }
        })
        .collect()
}

fn type_name(schema: &serde_json::Value) -> String {
    match schema.get("type") {
        Some(serde_json::Value::String(t)) => t.clone(),
        Some(serde_json::Value::Array(types)) => types
            .iter()
            .filter_map(|t| t.as_str())
            .collect::<Vec<_>>()
            .join(" | "),
        _ => "any".to_string(),
    }
}

fn own_contract(file: &Path) -> Option<ToolContract> {
    let doc = browserflow_contract::read_json_file(file).ok()?;
    ToolContract::from_document(&doc).ok()
}

fn has_steps(file: &Path) -> bool {
    browserflow_contract::read_json_file(file)
        .ok()
        .is_some_and(|doc| doc.get("contract").is_some())
}

/// The last run of each tool or flow, kept as pretty JSON (`{"name@version": LastRun}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunHistory(BTreeMap<String, LastRun>);

/// Why the run history could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the run history {path}: {message}")]
pub struct HistoryError {
    /// The file.
    pub path: String,
    /// What went wrong.
    pub message: String,
}

impl RunHistory {
    /// The history in `path`; empty when the file is missing or unreadable (the history only
    /// decorates the library, it must never hide it).
    pub fn load(path: &Path) -> RunHistory {
        browserflow_contract::read_json_file(path)
            .ok()
            .and_then(|value| serde_json::from_value(value).ok())
            .unwrap_or_default()
    }

    /// The last run of `reference`.
    pub fn get(&self, reference: &str) -> Option<LastRun> {
        self.0.get(reference).cloned()
    }

    /// Records `run` as the last run of `reference` in the file at `path` (created, with its
    /// folder, when missing).
    pub fn record(path: &Path, reference: &str, run: LastRun) -> Result<(), HistoryError> {
        let fail = |message: String| HistoryError {
            path: path.display().to_string(),
            message,
        };
        let mut history = RunHistory::load(path);
        history.0.insert(reference.to_string(), run);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| fail(e.to_string()))?;
        }
        let text = serde_json::to_string_pretty(&history).map_err(|e| fail(e.to_string()))?;
        std::fs::write(path, text + "\n").map_err(|e| fail(e.to_string()))
    }
}

/// Seconds since the Unix epoch, for [`LastRun::finished_at`].
pub fn now_epoch_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}
