//! Running one recorded tool the way `bflow run TOOL --input k=v …` does, and the demo.
//!
//! [`run_tool`] goes through the Rider, so inputs and output are validated against the
//! contract, the call is journaled, and transient failures are retried: the tool becomes a
//! one-step flow (`inputs` = the tool's inputs, one step `run`, output = its output),
//! compiled by the flow crate.
//!
//! ```no_run
//! # async fn cli() -> Result<(), browserflow_catalog::run_tool::RunToolError> {
//! use browserflow_catalog::Catalog;
//! use browserflow_catalog::run_tool::{RunToolOptions, run_tool};
//! let catalog = Catalog { dirs: vec!["recordings".into()], store: None };
//! let file = catalog.tool_file("search-price@1.2.0")?;
//! let done = run_tool(&file, &["query=keyboard".to_string()], RunToolOptions::default()).await?;
//! println!("{}", serde_json::to_string_pretty(&done.output).unwrap_or_default());
//! # Ok(()) }
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use browserflow_contract::ToolContract;
use browserflow_flow::{FlowSpec, compile};
use browserflow_rider::{
    EnvSecrets, InputArgError, Journal, Redactor, Rider, RiderOptions, RunFailure, SecretsProvider,
    ToolRegistry, idempotency_key, parse_input_args,
};
use serde_json::{Value, json};

use browserflow_cdp::BrowserConfig;
use browserflow_replay::run_dir::call_dir;
use browserflow_replay::{BrowserTool, RUN_DIR_ENV, ReplayReport, SharedBrowser};
use browserflow_shop::FixtureServer;
use browserflow_steps::{ToolFile, ToolFileError};

/// The step id of the one-step flow [`run_tool`] runs.
pub const STEP_ID: &str = "run";

/// The shipped `search-price@1.2.0` recording (for the fixed demo address
/// `http://127.0.0.1:4780`).
pub const SEARCH_PRICE_JSON: &str = include_str!("../../../recordings/search-price@1.2.0.json");

/// The address `bflow demo --serve` serves the shop on, and the recording points at.
pub const DEMO_ADDR: &str = "127.0.0.1:4780";

/// The shipped `search-price@1.2.0` tool.
pub fn search_price() -> Result<ToolFile, ToolFileError> {
    ToolFile::from_json_str(SEARCH_PRICE_JSON)
}

/// Why a tool could not be run.
#[derive(Debug, thiserror::Error)]
pub enum RunToolError {
    /// The tool file could not be found or read.
    #[error(transparent)]
    ToolFile(#[from] ToolFileError),
    /// The tool was not found, or its file does not load.
    #[error(transparent)]
    Lookup(#[from] crate::LookupError),
    /// An `--input` argument is malformed, unknown or duplicated, or a required input is
    /// missing.
    #[error("{0}")]
    Input(String),
    /// The one-step flow could not be built (a contract the flow compiler refuses).
    #[error("could not prepare the run: {0}")]
    Prepare(String),
    /// The run failed; the replay report of the failed call is attached when there is one.
    #[error("{}", tool_run_message(failure))]
    Run {
        /// The Rider's failure (code, run id, redacted message).
        failure: Box<RunFailure>,
        /// The replay report of the failing call.
        report: Option<Box<ReplayReport>>,
    },
    /// The demo could not serve its shop.
    #[error("could not serve the fixture shop: {0}")]
    Serve(std::io::Error),
    /// The run cannot start: a secret it references is not set.
    #[error(transparent)]
    Setup(crate::SetupError),
    /// The folder for screenshots and reports is not a folder and cannot be made one.
    #[error("the screenshots folder {} cannot be used: {reason}", .path.display())]
    RunDir {
        /// The path given.
        path: PathBuf,
        /// Why not.
        reason: String,
    },
}

/// Makes sure `dir` is a folder screenshots and reports can go into (creating it when it
/// is missing), so a wrong path is an error before the browser starts, not a warning after
/// the run.
pub fn prepare_run_dir(dir: &Path) -> Result<(), RunToolError> {
    let refuse = |reason: String| RunToolError::RunDir {
        path: dir.to_path_buf(),
        reason,
    };
    if dir.exists() && !dir.is_dir() {
        return Err(refuse("it is an existing file, not a folder".to_owned()));
    }
    std::fs::create_dir_all(dir).map_err(|e| refuse(e.to_string()))
}

/// How [`run_tool`] runs.
#[derive(Clone)]
pub struct RunToolOptions {
    /// The browser (share one across runs; it launches on first use). `--headed` is a
    /// `SharedBrowser` whose config has `headless: false`.
    pub browser: Arc<SharedBrowser>,
    /// Where each call writes screenshots and `report.json` (see [`browserflow_replay::run_dir`]).
    pub run_dir: Option<PathBuf>,
    /// The journal; a throw-away one in a temporary directory when `None`.
    pub journal: Option<Arc<Journal>>,
    /// Resolves `secret.NAME` inputs (default: `BROWSERFLOW_SECRET_<NAME>` variables).
    pub secrets: Arc<dyn SecretsProvider>,
    /// Other Rider settings (`browser` and the run-folder variable are filled in).
    pub rider: RiderOptions,
    /// A redactor that learns every secret the run resolves (the process's log writer's,
    /// made before this run's Rider existed).
    pub log_redactor: Option<Redactor>,
}

impl Default for RunToolOptions {
    fn default() -> Self {
        RunToolOptions {
            browser: Arc::new(SharedBrowser::new(BrowserConfig::default())),
            run_dir: None,
            journal: None,
            secrets: Arc::new(EnvSecrets),
            rider: RiderOptions::default(),
            log_redactor: None,
        }
    }
}

impl RunToolOptions {
    /// Options with a headed (`headed: true`) or headless browser.
    pub fn headed(headed: bool) -> RunToolOptions {
        let config = BrowserConfig {
            headless: !headed,
            ..BrowserConfig::default()
        };
        RunToolOptions {
            browser: Arc::new(SharedBrowser::new(config)),
            ..RunToolOptions::default()
        }
    }
}

/// Keeps a failed run that had no run folder: `report.json` and the failing page's screenshot
/// (kept by the replay, redacted and masked like everything a run writes) in a folder for it
/// under the default journal's `runs/` (the temp dir when there is no data dir). Returns the
/// folder; `None` when the failure left no replay report to keep.
pub fn keep_failed_run(file: &ToolFile, error: &RunToolError) -> Option<std::io::Result<PathBuf>> {
    let RunToolError::Run {
        failure,
        report: Some(report),
    } = error
    else {
        return None;
    };
    let root = Journal::default_path()
        .map(|journal| crate::runs_folder(&journal))
        .unwrap_or_else(|_| std::env::temp_dir().join("bflow-runs"));
    let run_id = failure.run_id.as_deref().unwrap_or("run");
    let dir = call_dir(&root, run_id, STEP_ID, &file.contract.reference());
    // The report and the message were redacted when they were kept; nothing more to hide.
    let written = browserflow_replay::run_dir::write(
        &dir,
        file,
        report,
        Some(&failure.message),
        &browserflow_replay::ReplaySecrets::default(),
    );
    Some(written.map(|()| dir))
}

/// An `--input` problem in the tool's words: it is the tool's inputs the person gives.
fn tool_input_error(contract: &ToolContract, error: &InputArgError) -> RunToolError {
    let message = match error {
        InputArgError::Unknown { name, known } => {
            let known = if known.is_empty() {
                "none"
            } else {
                known.as_str()
            };
            format!(
                "`--input {name}=…`: the tool `{}` has no input `{name}` (its inputs: {known})",
                contract.reference()
            )
        }
        other => other.to_string(),
    };
    RunToolError::Input(message)
}

/// A single tool's failure in the tool's words: the one-step flow it ran in is an internal
/// detail (`step `run`: …`), so only the tool, what went wrong and how often it was tried.
fn tool_run_message(failure: &RunFailure) -> String {
    match &failure.error {
        // The tool's own message, redacted by the Rider like the whole one.
        browserflow_rider::RunError::ToolFailed {
            tool,
            attempts,
            message,
            ..
        } => match attempts {
            1 => format!("`{tool}` failed: {message}"),
            n => format!("`{tool}` failed ({n} attempts): {message}"),
        },
        _ => failure.message.clone(),
    }
}

/// A finished [`run_tool`].
#[derive(Debug, Clone)]
pub struct ToolRun {
    /// The run id in the journal.
    pub run_id: String,
    /// The tool's output, validated against its contract.
    pub output: Value,
    /// The replay report (steps, times, winning selectors).
    pub report: Option<ReplayReport>,
    /// The call's folder of screenshots and `report.json`, when a run dir was given.
    pub call_dir: Option<PathBuf>,
}

/// Runs `file` once through the Rider with `inputs` given as `name=value` arguments
/// (`name=secret.NAME` for secret inputs), and returns its typed output and report.
pub async fn run_tool(
    file: &ToolFile,
    inputs: &[String],
    options: RunToolOptions,
) -> Result<ToolRun, RunToolError> {
    if let Some(dir) = &options.run_dir {
        prepare_run_dir(dir)?;
    }
    let contract = file.contract.clone();
    let reference = contract.reference();
    let spec = one_step_flow(file)?;
    let mut registry = ToolRegistry::new();
    registry
        .register(BrowserTool::factory(file.clone()))
        .map_err(|e| RunToolError::Prepare(e.to_string()))?;
    let contracts = registry
        .contract_registry()
        .map_err(|e| RunToolError::Prepare(e.to_string()))?;
    let plan = compile(&spec, &contracts).map_err(|e| RunToolError::Prepare(e.to_string()))?;
    let bound = parse_input_args(&plan, inputs).map_err(|e| tool_input_error(&contract, &e))?;
    // Said in the tool's terms before anything starts (the Rider would call it a flow input).
    let missing: Vec<String> = contract
        .inputs()
        .iter()
        .filter(|i| i.schema.default.is_none() && !bound.contains_key(&i.name))
        .map(|i| {
            let how = if i.secret {
                format!("--input {}=secret.NAME", i.name)
            } else {
                format!("--input {}=…", i.name)
            };
            format!("`{}` ({}; give it with {how})", i.name, i.schema.describe())
        })
        .collect();
    if !missing.is_empty() {
        return Err(RunToolError::Input(format!(
            "`{reference}` needs the tool input{} {}",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", ")
        )));
    }
    crate::check_secrets(options.secrets.clone(), &plan, &bound)
        .map_err(|missing| RunToolError::Setup(crate::SetupError::MissingSecrets(missing)))?;

    let (journal, _journal_dir) = match options.journal {
        Some(journal) => (journal, None),
        None => {
            let dir = tempfile::tempdir().map_err(|e| RunToolError::Prepare(e.to_string()))?;
            let journal = Journal::open(dir.path().join("journal.sqlite"))
                .map_err(|e| RunToolError::Prepare(e.to_string()))?;
            (Arc::new(journal), Some(dir))
        }
    };
    let mut rider_options = options.rider;
    rider_options.browser = Some(options.browser.clone());
    if let Some(dir) = &options.run_dir {
        rider_options
            .env
            .insert(RUN_DIR_ENV.to_string(), dir.display().to_string());
    }
    let rider = Rider::new(registry, journal, options.secrets, rider_options)
        .map_err(|e| RunToolError::Prepare(e.to_string()))?;
    if let Some(logs) = &options.log_redactor {
        rider.redactor().forward_to(logs);
    }
    tracing::debug!(target: "browserflow::timing", "rider ready");
    let outcome = rider.run(&plan, bound).await;
    tracing::debug!(target: "browserflow::timing", "rider finished");
    let folder = |run_id: &str| {
        options
            .run_dir
            .as_ref()
            .map(|dir| call_dir(dir, run_id, STEP_ID, &reference))
    };
    match outcome {
        Ok(outcome) => {
            let key = idempotency_key(&outcome.run_id, STEP_ID);
            Ok(ToolRun {
                report: options.browser.take_report(&key),
                call_dir: folder(&outcome.run_id),
                run_id: outcome.run_id,
                // Printed and shown: redacted like everything the Rider writes.
                output: rider.redactor().redact_json(&outcome.output),
            })
        }
        Err(failure) => {
            let report = failure
                .run_id
                .as_ref()
                .and_then(|run_id| {
                    options
                        .browser
                        .take_report(&idempotency_key(run_id, STEP_ID))
                })
                .map(Box::new);
            Err(RunToolError::Run {
                failure: Box::new(failure),
                report,
            })
        }
    }
}

/// The flow `{inputs of the tool} → run: TOOL → output`.
fn one_step_flow(file: &ToolFile) -> Result<FlowSpec, RunToolError> {
    let contract = &file.contract;
    let inputs: Vec<Value> = contract
        .inputs()
        .iter()
        .map(|decl| {
            json!({ "name": decl.name, "schema": decl.schema.to_json(), "secret": decl.secret })
        })
        .collect();
    let with: serde_json::Map<String, Value> = contract
        .inputs()
        .iter()
        .map(|decl| {
            (
                decl.name.clone(),
                json!({ "from": format!("input.{}", decl.name) }),
            )
        })
        .collect();
    let reference = contract.reference();
    let spec = json!({
        "name": "bflow-run",
        "version": contract.version().to_string(),
        "description": format!("bflow run {reference}"),
        "inputs": inputs,
        "requires": [{ "ref": reference, "contract_digest": contract.contract_digest().to_string() }],
        "steps": [{ "id": STEP_ID, "uses": reference, "with": with }],
        "output": { "from": format!("steps.{STEP_ID}.output") },
    });
    FlowSpec::from_json(&spec).map_err(|e| RunToolError::Prepare(e.to_string()))
}

/// What the demo did.
#[derive(Debug, Clone)]
pub struct DemoOutcome {
    /// The typed output of `search-price@1.2.0`.
    pub output: Value,
    /// The replay report.
    pub report: Option<ReplayReport>,
    /// The folder with one screenshot (and thumbnail) per step and `report.json`.
    pub screenshots: PathBuf,
    /// Where the shop was served during the demo.
    pub shop_origin: String,
}

/// The demo: serves the embedded shop on a free port of 127.0.0.1, replays the shipped
/// `search-price@1.2.0` for `query` through the Rider (headless unless `browser` says
/// otherwise), and writes the screenshots under `out_dir`.
pub async fn demo(
    query: &str,
    out_dir: &Path,
    browser: Arc<SharedBrowser>,
) -> Result<DemoOutcome, RunToolError> {
    let shop = FixtureServer::shop().map_err(RunToolError::Serve)?;
    let origin = shop.origin();
    let tool = search_price()?.rebase_to(&origin);
    let options = RunToolOptions {
        browser,
        run_dir: Some(out_dir.to_path_buf()),
        ..RunToolOptions::default()
    };
    let inputs: BTreeMap<&str, &str> = [("query", query)].into();
    let args: Vec<String> = inputs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let run = run_tool(&tool, &args, options).await?;
    Ok(DemoOutcome {
        output: run.output,
        report: run.report,
        screenshots: run.call_dir.unwrap_or_else(|| out_dir.to_path_buf()),
        shop_origin: origin,
    })
}
