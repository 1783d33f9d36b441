//! Running one recorded tool the way `bflow run TOOL --input k=v …` does, the app's preview
//! and the demo.
//!
//! [`run_tool`] goes through the Rider [`RunSetup::rider`] builds, so inputs and output are
//! validated against the contract, the call is journaled, and transient failures are retried:
//! the tool becomes a one-step flow (`inputs` = the tool's inputs, one step `run`, output =
//! its output), compiled by the flow crate. Its report and run folder come back as the
//! call's artifacts.
//!
//! ```no_run
//! # async fn cli() -> Result<(), browserflow_catalog::run_tool::RunToolError> {
//! use browserflow_catalog::{Catalog, RunInput, RunSetup};
//! use browserflow_catalog::run_tool::run_tool;
//! let catalog = Catalog { dirs: vec!["recordings".into()], store: None };
//! let file = catalog.tool_file("search-price@1.2.0")?;
//! let inputs = [("query".to_owned(), RunInput::Value("keyboard".into()))].into();
//! let done = run_tool(&file, &inputs, RunSetup::default()).await?;
//! println!("{}", serde_json::to_string_pretty(&done.output).unwrap_or_default());
//! # Ok(()) }
//! ```

use std::path::{Path, PathBuf};
use std::sync::Arc;

use browserflow_flow::{FlowSpec, compile};
use browserflow_rider::{Artifacts, RunFailure, ToolRegistry};
use serde_json::{Value, json};

use browserflow_replay::run_dir::call_dir;
use browserflow_replay::{BrowserTool, ReplayReport, SharedBrowser, replay_report};
use browserflow_shop::FixtureServer;
use browserflow_steps::{ToolFile, ToolFileError};

use super::inputs::{InputError, RunInput, RunInputs, bind_inputs};
use super::{RunSetup, RunsFolder};

/// The step id of the one-step flow [`run_tool`] runs.
pub const STEP_ID: &str = "run";

/// The shipped `search-price@1.2.0` recording (for the fixed demo address
/// `http://127.0.0.1:4780`).
pub const SEARCH_PRICE_JSON: &str = include_str!("../../../../recordings/search-price@1.2.0.json");

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
    /// An input does not fit the tool's slots.
    #[error("{0}")]
    Input(#[from] InputError),
    /// Required inputs are not given.
    #[error("{}", missing_text(.tool, .missing))]
    MissingInputs {
        /// The tool, `name@version`.
        tool: String,
        /// The slots not given, in the contract's order.
        missing: Vec<MissingInput>,
    },
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

/// A required input that was not given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingInput {
    /// The slot.
    pub name: String,
    /// Its type, for people (`string`).
    pub describe: String,
    /// Whether it takes a secret reference.
    pub secret: bool,
}

fn missing_text(tool: &str, missing: &[MissingInput]) -> String {
    let each: Vec<String> = missing
        .iter()
        .map(|m| format!("`{}` ({})", m.name, m.describe))
        .collect();
    format!(
        "`{tool}` needs the tool input{} {}",
        if missing.len() == 1 { "" } else { "s" },
        each.join(", ")
    )
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
    // The user's journal's runs folder, found through configuration: a one-tool run's
    // journal was temporary.
    let root = super::JournalAt::UserDefault
        .runs_folder()
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

/// Runs `file` once through the Rider `setup` builds, with `inputs` (a secret slot takes a
/// [`RunInput::Secret`] reference), and returns its typed output and report.
pub async fn run_tool(
    file: &ToolFile,
    inputs: &RunInputs,
    setup: RunSetup,
) -> Result<ToolRun, RunToolError> {
    if let RunsFolder::At(dir) = &setup.runs_folder {
        prepare_run_dir(dir)?;
    }
    let contract = file.contract.clone();
    let reference = contract.reference();
    let spec = one_step_flow(&file.contract).map_err(|e| RunToolError::Prepare(e.to_string()))?;
    let mut registry = ToolRegistry::new();
    registry
        .register(BrowserTool::factory(file.clone(), setup.browser.clone()))
        .map_err(|e| RunToolError::Prepare(e.to_string()))?;
    let contracts = registry
        .contract_registry()
        .map_err(|e| RunToolError::Prepare(e.to_string()))?;
    let plan = compile(&spec, &contracts).map_err(|e| RunToolError::Prepare(e.to_string()))?;
    let bound = bind_inputs(contract.inputs(), inputs)?;
    // Said in the tool's terms before anything starts (the Rider would call it a flow input).
    let missing: Vec<MissingInput> = contract
        .inputs()
        .iter()
        .filter(|i| i.schema.default.is_none() && !bound.contains_key(&i.name))
        .map(|i| MissingInput {
            name: i.name.clone(),
            describe: i.schema.describe(),
            secret: i.secret,
        })
        .collect();
    if !missing.is_empty() {
        return Err(RunToolError::MissingInputs {
            tool: reference,
            missing,
        });
    }
    setup
        .check_secrets(&plan, &bound)
        .map_err(RunToolError::Setup)?;
    let rider = setup.rider(registry).map_err(RunToolError::Setup)?;
    tracing::debug!(target: "browserflow::timing", "rider ready");
    let outcome = rider.run(&plan, bound).await;
    tracing::debug!(target: "browserflow::timing", "rider finished");
    match outcome {
        Ok(mut outcome) => {
            let artifacts = outcome.artifacts.remove(STEP_ID).unwrap_or_default();
            Ok(ToolRun {
                report: replay_report(&artifacts),
                call_dir: artifacts.folder,
                run_id: outcome.run_id,
                // Printed and shown: redacted like everything the Rider writes.
                output: rider.redactor().redact_json(&outcome.output),
            })
        }
        Err(mut failure) => {
            let artifacts: Artifacts = failure.artifacts.remove(STEP_ID).unwrap_or_default();
            Err(RunToolError::Run {
                report: replay_report(&artifacts).map(Box::new),
                failure: Box::new(failure),
            })
        }
    }
}

/// The flow `{inputs of the tool} → run: TOOL → output` (step id [`STEP_ID`]): how one tool
/// runs through the Rider, here and in the MCP server.
pub fn one_step_flow(
    contract: &browserflow_contract::ToolContract,
) -> Result<FlowSpec, browserflow_flow::Diagnostics> {
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
    FlowSpec::from_json(&spec)
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
    let setup = RunSetup {
        browser,
        journal: super::JournalAt::Temporary,
        runs_folder: RunsFolder::At(out_dir.to_path_buf()),
        ..RunSetup::default()
    };
    let inputs = [("query".to_owned(), RunInput::Value(Value::from(query)))].into();
    let run = run_tool(&tool, &inputs, setup).await?;
    Ok(DemoOutcome {
        output: run.output,
        report: run.report,
        screenshots: run.call_dir.unwrap_or_else(|| out_dir.to_path_buf()),
        shop_origin: origin,
    })
}
