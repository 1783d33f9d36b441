//! The registry of tool contracts the compiler resolves `uses` against: filled from files
//! (contracts, tool files, flows as composites) and by the program (built-ins).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use browserflow_contract::{Digest, Rule, ToolContract, ToolRef};
use serde_json::Value;

use crate::compile::compile;
use crate::diagnostic::{Code, Diagnostic, Diagnostics};
use crate::plan::Plan;
use crate::spec::FlowSpec;

/// The `*.json` files directly inside `dir` (not its subfolders), sorted by path: how tool,
/// contract and flow folders are read everywhere, so every reader sees the same files in the
/// same order.
pub fn json_files_in(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "json"))
        .collect();
    found.sort();
    Ok(found)
}

/// One tool the registry knows.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RegisteredTool {
    /// Its contract.
    pub contract: ToolContract,
    /// The contract digest, computed once.
    pub digest: Digest,
    /// For a composite tool, the compiled inner flow.
    pub composite: Option<Box<Plan>>,
    /// Where it came from (a file path), for messages.
    pub source: Option<String>,
}

/// Tool contracts by exact `name@version`.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    tools: BTreeMap<ToolRef, RegisteredTool>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Registers a contract (a built-in, say). Registering the same contract twice is
    /// harmless; a different contract under a known `name@version` is a `duplicate_tool`.
    pub fn insert(&mut self, contract: ToolContract) -> Result<ToolRef, Diagnostics> {
        self.insert_tool(contract, None, None)
    }

    /// Registers a compiled flow as a composite tool, its contract derived from the plan.
    pub fn insert_plan(&mut self, plan: Plan) -> Result<ToolRef, Diagnostics> {
        let contract = plan.contract()?;
        self.insert_tool(contract, Some(Box::new(plan)), None)
    }

    /// Compiles `spec` against this registry and registers it as a composite tool.
    pub fn insert_flow(&mut self, spec: &FlowSpec) -> Result<ToolRef, Diagnostics> {
        let plan = compile(spec, self)?;
        self.insert_plan(plan)
    }

    fn insert_tool(
        &mut self,
        contract: ToolContract,
        composite: Option<Box<Plan>>,
        source: Option<String>,
    ) -> Result<ToolRef, Diagnostics> {
        let reference = ToolRef::parse(&contract.reference()).map_err(|p| {
            Diagnostics(vec![Diagnostic::new(
                Code::Invalid(Rule::InvalidRef),
                "",
                p.to_string(),
            )])
        })?;
        let digest = contract.contract_digest();
        if let Some(known) = self.tools.get(&reference) {
            if known.digest == digest {
                return Ok(reference);
            }
            let from = |s: &Option<String>| s.clone().unwrap_or_else(|| "the program".to_owned());
            return Err(Diagnostics(vec![Diagnostic::new(
                Code::DuplicateTool,
                "",
                format!(
                    "`{reference}` is registered twice with different contracts: {} from {} and {} from {}",
                    known.digest,
                    from(&known.source),
                    digest,
                    from(&source)
                ),
            )]));
        }
        self.tools.insert(
            reference.clone(),
            RegisteredTool {
                contract,
                digest,
                composite,
                source,
            },
        );
        Ok(reference)
    }

    /// The tool `reference`.
    pub fn get(&self, reference: &ToolRef) -> Option<&RegisteredTool> {
        self.tools.get(reference)
    }

    /// The versions registered under `name`, ascending.
    pub fn versions(&self, name: &str) -> Vec<&semver::Version> {
        self.tools
            .keys()
            .filter(|r| r.name.as_str() == name)
            .map(|r| &r.version)
            .collect()
    }

    /// Every tool, by reference.
    pub fn iter(&self) -> impl Iterator<Item = (&ToolRef, &RegisteredTool)> {
        self.tools.iter()
    }

    /// How many tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Loads every `*.json` file directly inside each directory; see [`Registry::load_files`].
    pub fn load_dirs<P: AsRef<Path>>(&mut self, dirs: &[P]) -> Result<usize, Diagnostics> {
        let mut files = Vec::new();
        let mut problems = Vec::new();
        for dir in dirs {
            let dir = dir.as_ref();
            match json_files_in(dir) {
                Ok(found) => files.extend(found),
                Err(e) => problems.push(
                    Diagnostic::new(Code::BadFile, "", format!("cannot read the directory: {e}"))
                        .file(dir.display().to_string()),
                ),
            }
        }
        let loaded = self.load_files(&files);
        match loaded {
            Ok(n) if problems.is_empty() => Ok(n),
            Ok(_) => Err(Diagnostics(problems)),
            Err(more) => {
                problems.extend(more.0);
                Err(Diagnostics(problems))
            }
        }
    }

    /// Loads one directory; see [`Registry::load_files`].
    pub fn load_dir(&mut self, dir: impl AsRef<Path>) -> Result<usize, Diagnostics> {
        self.load_dirs(&[dir])
    }

    /// Loads tool contracts from files. Each file is JSON and one of:
    ///
    /// - a tool file: an object with a top-level `contract` member (other members belong to
    ///   whoever runs the tool and are not read here);
    /// - a contract: a `ToolContract` object;
    /// - a flow: a `FlowSpec` object (it has `steps` and no `contract`), registered as a
    ///   composite tool once the tools it requires are known — in any file order.
    ///
    /// Everything that loads is registered even when other files fail; the error lists every
    /// problem, each naming its file. Returns how many tools were registered.
    pub fn load_files(&mut self, files: &[PathBuf]) -> Result<usize, Diagnostics> {
        let mut problems = Vec::new();
        let mut flows: Vec<(String, FlowSpec)> = Vec::new();
        let mut count = 0;
        for path in files {
            let name = path.display().to_string();
            let in_file = |d: Diagnostic| d.file(name.clone());
            let text = match browserflow_contract::read_document_text(path) {
                Ok(text) => text,
                Err(e) => {
                    problems.push(in_file(Diagnostic::new(
                        Code::BadFile,
                        "",
                        format!("cannot read the file: {e}"),
                    )));
                    continue;
                }
            };
            match read_tool_file(&text) {
                Ok(ToolFile::Contract(contract)) => {
                    match self.insert_tool(*contract, None, Some(name.clone())) {
                        Ok(_) => count += 1,
                        Err(ds) => problems.extend(ds.0.into_iter().map(in_file)),
                    }
                }
                Ok(ToolFile::Flow(spec)) => flows.push((name, *spec)),
                Err(found) => problems.extend(found.into_iter().map(in_file)),
            }
        }
        // Flows may use each other: register whichever compiles, until a round adds none.
        loop {
            let before = flows.len();
            let mut failed = Vec::new();
            for (name, spec) in flows {
                match compile(&spec, self) {
                    Ok(plan) => match plan.contract() {
                        Ok(contract) => match self.insert_tool(
                            contract,
                            Some(Box::new(plan)),
                            Some(name.clone()),
                        ) {
                            Ok(_) => count += 1,
                            Err(ds) => {
                                problems.extend(ds.0.into_iter().map(|d| d.file(name.clone())))
                            }
                        },
                        Err(ds) => problems.extend(ds.0.into_iter().map(|d| d.file(name.clone()))),
                    },
                    Err(ds) => failed.push((name, spec, ds)),
                }
            }
            if failed.len() == before || failed.is_empty() {
                for (name, _, ds) in failed {
                    problems.extend(ds.0.into_iter().map(|d| d.file(name.clone())));
                }
                break;
            }
            flows = failed.into_iter().map(|(n, s, _)| (n, s)).collect();
        }
        Diagnostics::check(problems).map(|()| count)
    }
}

enum ToolFile {
    Contract(Box<ToolContract>),
    Flow(Box<FlowSpec>),
}

fn read_tool_file(text: &str) -> Result<ToolFile, Vec<Diagnostic>> {
    let value = browserflow_contract::parse_json_str(text)
        .map_err(|e| vec![Diagnostic::from(e.to_problem())])?;
    let Value::Object(map) = &value else {
        return Err(vec![Diagnostic::new(
            Code::BadFile,
            "",
            "expected an object: a tool file, a tool contract or a flow",
        )]);
    };
    if let Some(contract) = map.get("contract") {
        let mut problems = Vec::new();
        return match ToolContract::parse_nested(contract, "/contract", &mut problems) {
            Some(c) if problems.is_empty() => Ok(ToolFile::Contract(Box::new(c))),
            _ => Err(problems.into_iter().map(Diagnostic::from).collect()),
        };
    }
    if map.contains_key("steps") {
        return FlowSpec::from_json(&value)
            .map(|s| ToolFile::Flow(Box::new(s)))
            .map_err(|d| d.0);
    }
    ToolContract::from_json(&value)
        .map(|c| ToolFile::Contract(Box::new(c)))
        .map_err(|p| p.0.into_iter().map(Diagnostic::from).collect())
}
