//! What the server serves, read and checked once at start: every tool file and flow of the
//! `--tools` folders and of the verified packs, each compiled to the [`Plan`] a call runs,
//! with its MCP name, schemas and secret bindings.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use browserflow_catalog::run_tool::one_step_flow;
use browserflow_catalog::{Catalog, RunSetup, check_secrets};
use browserflow_contract::{CompiledSchema, InputDecl, JsonType, Schema, ToolContract};
use browserflow_flow::{Bound, FileShape, Plan, SecretTemplate, compile, shape_of};
use browserflow_pack::{Store, VerifiedPack, VerifyOptions, VerifyingKey};
use browserflow_rider::{Redactor, SecretsCap, SecretsProvider, ToolRegistry};
use serde_json::{Map, Value, json};

use crate::error::ServeError;
use crate::name::{MAX_MCP_NAME, mcp_name};

/// A pack to serve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PackSource {
    /// A `.bfpack` file.
    File(PathBuf),
    /// A pack installed in the store, by `name@version` or digest (`sha256:…`).
    Installed(String),
}

impl PackSource {
    /// A path to an existing file is a file; anything else names an installed pack.
    pub fn parse(text: &str) -> PackSource {
        if Path::new(text).is_file() {
            PackSource::File(PathBuf::from(text))
        } else {
            PackSource::Installed(text.to_owned())
        }
    }
}

/// How packs are trusted.
#[derive(Debug, Clone, Default)]
pub struct Trust {
    /// Keys whose signatures count.
    pub keys: Vec<VerifyingKey>,
    /// Refuse a pack no trusted key signed.
    pub require_signature: bool,
}

/// The MCP tool that wraps a non-object output: `{"result": <output>}` (MCP's structured
/// content is an object).
pub const WRAPPED_OUTPUT: &str = "result";

/// One served tool or flow.
pub struct ServedTool {
    /// The MCP tool name.
    pub mcp_name: String,
    /// `name@version`.
    pub reference: String,
    /// Where it was read from (a file, or a file of a pack).
    pub source: String,
    /// The contract (a flow's composite contract).
    pub contract: ToolContract,
    /// What a call runs.
    pub plan: Plan,
    /// The MCP input schema: the contract's inputs without the secret slots.
    pub input_schema: Value,
    /// The MCP output schema (an object: the output's, or the output wrapped in
    /// [`WRAPPED_OUTPUT`]).
    pub output_schema: Value,
    /// Whether the output is wrapped in [`WRAPPED_OUTPUT`].
    pub wrapped: bool,
    pub(crate) inputs_check: CompiledSchema,
    pub(crate) output_check: CompiledSchema,
    /// Each secret slot and the secret the server binds to it (`secret.NAME`).
    pub secrets: BTreeMap<String, String>,
}

/// Everything served, in `tools/list` order (by MCP name), and what runs them.
pub struct Served {
    /// The tools, sorted by MCP name.
    pub tools: Vec<ServedTool>,
    pub(crate) registry: Arc<ToolRegistry>,
    /// Knows every secret a served tool can resolve (learned at start): everything the
    /// server answers passes through it.
    pub(crate) redactor: Redactor,
    /// The verified packs' files, extracted here, live as long as the server.
    pub(crate) _packs_dir: Option<tempfile::TempDir>,
}

impl std::fmt::Debug for Served {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.tools.iter().map(|t| t.mcp_name.as_str()).collect();
        f.debug_struct("Served").field("tools", &names).finish()
    }
}

/// What to serve.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// Folders whose every tool file and flow is served (non-recursive, like `--tools`).
    pub dirs: Vec<PathBuf>,
    /// Packs whose every tool and flow is served.
    pub packs: Vec<PackSource>,
    /// The pack store (installed packs named by [`PackSource::Installed`], and the tools
    /// flows may require).
    pub store: Option<PathBuf>,
    /// How packs are trusted.
    pub trust: Trust,
    /// Secret bindings: slot → secret name. A secret slot not named here is bound to the
    /// secret named like the slot in upper case (`password` → `secret.PASSWORD`).
    pub secrets: BTreeMap<String, String>,
}

impl Served {
    /// Reads, verifies and compiles everything `sources` names, once. Refused, naming the
    /// file and the reason: a pack that does not verify, a file that does not load or a flow
    /// that does not compile, two refs on one MCP name, a secret that is not set.
    pub fn load(sources: &Sources, setup: &RunSetup) -> Result<Served, ServeError> {
        let (packs_dir, pack_dirs) = extract_packs(sources)?;
        let mut dirs = sources.dirs.clone();
        dirs.extend(pack_dirs.iter().cloned());
        let catalog = Catalog::with_store(dirs.clone(), sources.store.clone());
        let holdings = catalog.holdings(None).map_err(ServeError::Catalog)?;
        if let Some(broken) = holdings.broken.first() {
            return Err(ServeError::Broken {
                file: broken.path.clone(),
                problems: broken
                    .problems
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; "),
            });
        }
        let registry = catalog.tools(&setup.browser).map_err(ServeError::Catalog)?;
        let provider = setup.secrets().map_err(ServeError::Setup)?;
        let redactor = Redactor::new();
        if let Some(logs) = &setup.log_redactor {
            redactor.forward_to(logs);
        }
        let mut tools: BTreeMap<String, ServedTool> = BTreeMap::new();
        for dir in &dirs {
            let found = browserflow_flow::tool_folder_files(dir).map_err(|e| ServeError::Io {
                path: dir.clone(),
                reason: browserflow_contract::io_in_words(&e),
            })?;
            for file in found.files {
                let Some(tool) = served_file(&file, &holdings.contracts, sources)? else {
                    continue;
                };
                // Every tool a call would run must have something to run it (a contract-only
                // tool is compiled against but not runnable here).
                if let Some(step) = tool.plan.steps.iter().find(|step| {
                    step.composite.is_none()
                        && registry.contract(&step.reference.to_string()).is_none()
                }) {
                    return Err(ServeError::Broken {
                        file: file.clone(),
                        problems: format!(
                            "step `{}` uses `{}`, which has only a contract here: nothing can run it",
                            step.id, step.reference
                        ),
                    });
                }
                check_served_secrets(&tool, provider.clone())?;
                learn_secrets(&tool, provider.clone(), &redactor);
                if let Some(other) = tools.get(&tool.mcp_name) {
                    return Err(ServeError::Collision {
                        name: tool.mcp_name,
                        first: format!("{} ({})", other.reference, other.source),
                        second: format!("{} ({})", tool.reference, tool.source),
                    });
                }
                tools.insert(tool.mcp_name.clone(), tool);
            }
        }
        Ok(Served {
            tools: tools.into_values().collect(),
            registry: Arc::new(registry),
            redactor,
            _packs_dir: packs_dir,
        })
    }

    /// The served tool named `name`.
    pub fn get(&self, name: &str) -> Option<&ServedTool> {
        self.tools
            .binary_search_by(|t| t.mcp_name.as_str().cmp(name))
            .ok()
            .map(|i| &self.tools[i])
    }
}

/// Each pack verified (digest, every file, signatures as `trust` says), its tool and flow
/// files written to a folder of a temporary directory the server keeps: what is served is
/// what was verified, never re-read from the store.
type Extracted = (Option<tempfile::TempDir>, Vec<PathBuf>);
fn extract_packs(sources: &Sources) -> Result<Extracted, ServeError> {
    if sources.packs.is_empty() {
        return Ok((None, Vec::new()));
    }
    let root = tempfile::tempdir().map_err(|e| ServeError::Io {
        path: std::env::temp_dir(),
        reason: e.to_string(),
    })?;
    let builtins = browserflow_catalog::builtin_contracts().map_err(ServeError::Catalog)?;
    let options = VerifyOptions {
        trusted_keys: sources.trust.keys.clone(),
        require_signature: sources.trust.require_signature,
        builtins: Some(&builtins),
        expected_digest: None,
    };
    let mut dirs = Vec::new();
    for (index, pack) in sources.packs.iter().enumerate() {
        let refuse = |reason: String| ServeError::Pack {
            pack: match pack {
                PackSource::File(path) => path.display().to_string(),
                PackSource::Installed(name) => name.clone(),
            },
            reason,
        };
        let verified: VerifiedPack =
            match pack {
                PackSource::File(path) => browserflow_pack::verify_file(path, &options)
                    .map_err(|e| refuse(e.to_string()))?,
                PackSource::Installed(which) => {
                    let store_root = match &sources.store {
                        Some(root) => root.clone(),
                        None => browserflow_catalog::default_store()
                            .map_err(|e| refuse(e.to_string()))?,
                    };
                    let store = Store::open(store_root);
                    let installed = store.packs().map_err(|e| refuse(e.to_string()))?;
                    let Some(found) = installed.iter().find(|p| {
                        p.manifest.reference() == *which || p.digest.to_string() == *which
                    }) else {
                        return Err(refuse(format!(
                            "no pack `{which}` is installed in {}",
                            store.root().display()
                        )));
                    };
                    let bytes = store
                        .pack_bytes(&found.digest)
                        .map_err(|e| refuse(e.to_string()))?;
                    browserflow_pack::verify(
                        &bytes,
                        &VerifyOptions {
                            expected_digest: Some(found.digest.clone()),
                            ..options.clone()
                        },
                    )
                    .map_err(|e| refuse(e.to_string()))?
                }
            };
        let dir = root.path().join(format!("pack-{index}"));
        std::fs::create_dir_all(&dir).map_err(|e| refuse(e.to_string()))?;
        // Every entry, tool or flow (`Form`): contract-only tool entries are read and skipped
        // like a folder's contracts.
        for entry in &verified.manifest.entries {
            let Some((_, bytes)) = verified
                .files()
                .iter()
                .find(|(path, _)| *path == entry.file)
            else {
                return Err(refuse(format!("the entry {} has no file", entry.reference)));
            };
            let name = Path::new(&entry.file)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| format!("{}.json", entry.reference));
            std::fs::write(dir.join(name), bytes).map_err(|e| refuse(e.to_string()))?;
        }
        tracing::info!(
            "serving pack {} ({})",
            verified.manifest.reference(),
            verified.digest
        );
        dirs.push(dir);
    }
    Ok((Some(root), dirs))
}

/// The served tool of `file`: a tool file as a one-step flow, a flow as itself; `None` for
/// a contract-only file (nothing to run).
fn served_file(
    file: &Path,
    contracts: &browserflow_flow::Registry,
    sources: &Sources,
) -> Result<Option<ServedTool>, ServeError> {
    let source = file.display().to_string();
    let bad = |reason: String| ServeError::Broken {
        file: file.to_path_buf(),
        problems: reason,
    };
    let value =
        browserflow_contract::read_json_file(file).map_err(|e| bad(e.reason.to_string()))?;
    let plan = match shape_of(&value) {
        FileShape::ToolFile => {
            let contract = ToolContract::from_json(&value["contract"])
                .map_err(|problems| bad(problems.to_string()))?;
            let spec = one_step_flow(&contract).map_err(|d| bad(d.to_string()))?;
            compile(&spec, contracts).map_err(|d| bad(d.to_string()))?
        }
        FileShape::Flow => {
            browserflow_flow::check_file(file, contracts).map_err(|d| bad(d.to_string()))?
        }
        FileShape::Contract | FileShape::Stranger => return Ok(None),
    };
    let contract = match shape_of(&value) {
        FileShape::ToolFile => ToolContract::from_json(&value["contract"])
            .map_err(|problems| bad(problems.to_string()))?,
        _ => plan.contract().map_err(|d| bad(d.to_string()))?,
    };
    let reference = contract.reference();
    let name = mcp_name(contract.name(), &contract.version().to_string());
    if name.len() > MAX_MCP_NAME {
        return Err(ServeError::NameTooLong { reference, name });
    }
    let secrets: BTreeMap<String, String> = contract
        .inputs()
        .iter()
        .filter(|i| i.secret)
        .map(|i| {
            let bound = sources
                .secrets
                .get(&i.name)
                .cloned()
                .unwrap_or_else(|| i.name.to_ascii_uppercase());
            (i.name.clone(), bound)
        })
        .collect();
    let plain: Vec<&InputDecl> = contract.inputs().iter().filter(|i| !i.secret).collect();
    let mut inputs = Schema::object(plain.iter().map(|i| (i.name.as_str(), i.schema.clone())));
    inputs.required.retain(|name| {
        plain
            .iter()
            .any(|i| &i.name == name && i.schema.default.is_none())
    });
    let output = contract.output().clone();
    let wrapped = output.types.as_deref() != Some(&[JsonType::Object][..]);
    let output = if wrapped {
        Schema::object([(WRAPPED_OUTPUT, output)])
    } else {
        output
    };
    let compiled =
        |schema: &Schema| CompiledSchema::new(schema).map_err(|problems| bad(problems.to_string()));
    Ok(Some(ServedTool {
        mcp_name: name,
        source,
        inputs_check: compiled(&inputs)?,
        output_check: compiled(&output)?,
        input_schema: inputs.to_json(),
        output_schema: output.to_json(),
        wrapped,
        reference,
        contract,
        plan,
        secrets,
    }))
}

/// Every secret `tool` needs — its secret slots as bound, and those its steps bind — is set
/// in the server's chain, checked at start so no call meets a missing one.
fn check_served_secrets(
    tool: &ServedTool,
    provider: Arc<dyn SecretsProvider>,
) -> Result<(), ServeError> {
    check_secrets(provider, &tool.plan, &tool.secret_inputs()).map_err(|missing| {
        ServeError::MissingSecrets {
            tool: tool.reference.clone(),
            missing: missing
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
        }
    })
}

/// Teaches `redactor` every secret `tool` binds (its secret slots and its steps'), so that
/// no answer, error or log line can carry one. The values are held by the redactor only.
fn learn_secrets(tool: &ServedTool, provider: Arc<dyn SecretsProvider>, redactor: &Redactor) {
    let secrets = SecretsCap::new(provider, redactor.clone(), None);
    let mut names = tool.plan.secret_names();
    names.extend(tool.secrets.values().cloned());
    for name in names {
        // Checked present just before; a value resolved is registered with the redactor.
        let _ = secrets.resolve(&name);
    }
}

impl ServedTool {
    /// The secret slots bound by reference, as the Rider takes them.
    pub(crate) fn secret_inputs(&self) -> BTreeMap<String, Bound> {
        self.secrets
            .iter()
            .map(|(slot, name)| (slot.clone(), Bound::Secret(SecretTemplate::reference(name))))
            .collect()
    }

    /// The `_meta` of the MCP tool: ref, version, contract digest, kind, and the secret
    /// slots with the secret each is bound to (names only).
    pub fn meta(&self) -> Map<String, Value> {
        let mut meta = Map::new();
        meta.insert("browserflow/ref".into(), json!(self.reference));
        meta.insert(
            "browserflow/version".into(),
            json!(self.contract.version().to_string()),
        );
        meta.insert(
            "browserflow/contract_digest".into(),
            json!(self.contract.contract_digest().to_string()),
        );
        meta.insert(
            "browserflow/kind".into(),
            json!(self.contract.kind().as_str()),
        );
        if !self.secrets.is_empty() {
            let bound: Map<String, Value> = self
                .secrets
                .iter()
                .map(|(slot, name)| (slot.clone(), json!(format!("secret.{name}"))))
                .collect();
            meta.insert("browserflow/secrets".into(), Value::Object(bound));
        }
        meta
    }
}
