//! The replay preview: run one library tool the way `bflow run TOOL --input …` does
//! ([`crate::run_tool::run_tool`], through the Rider, so inputs and output are checked
//! against the contract), and describe each step for people — status, time, the winning
//! selector, every candidate the step has, the step's thumbnail — plus the output or the
//! failure. Secret inputs travel as references (`secret.NAME`) only: their values are resolved
//! inside the tool and never reach the preview.
//!
//! ```no_run
//! # async fn demo() {
//! use browserflow_catalog::Catalog;
//! use browserflow_catalog::preview::{PreviewInput, PreviewRequest, run_preview_in};
//! let request = PreviewRequest {
//!     tool: "recordings/search-price@1.2.0.json".into(),
//!     inputs: vec![PreviewInput { name: "query".into(), value: "keyboard".into(), secret: false }],
//!     headed: false,
//! };
//! let catalog = Catalog { dirs: vec!["recordings".into()], store: None };
//! let result = run_preview_in(&request, &catalog, "runs".as_ref(), |step| println!("{}", step.kind)).await;
//! println!("{:?}", result.output);
//! # }
//! ```

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::run_tool::{RunToolError, run_tool};
use crate::{Catalog, LookupError, RunInput, RunInputs, RunSetup, RunsFolder};
use base64::Engine;
use browserflow_cdp::BrowserConfig;
use browserflow_replay::SharedBrowser;
use browserflow_replay::{ReplayOptions, ReplayReport, StepObserver, StepReport, StepStatus};
use browserflow_steps::{StepKind, ToolFile};
use serde::{Deserialize, Serialize};

/// One input of a preview run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PreviewInput {
    /// The slot name.
    pub name: String,
    /// The value as text (parsed by the slot's type), or for a secret slot the NAME of the
    /// secret (`BROWSERFLOW_SECRET_<NAME>` or the secrets file), never its value.
    pub value: String,
    /// This is a secret reference.
    pub secret: bool,
}

/// What to preview.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PreviewRequest {
    /// The tool file.
    pub tool: String,
    /// The inputs.
    pub inputs: Vec<PreviewInput>,
    /// Show the browser window.
    pub headed: bool,
}

/// How a step went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum StepState {
    /// Not run yet.
    Pending,
    /// Running now.
    Running,
    /// Done.
    Passed,
    /// Failed; the replay stopped here.
    Failed,
    /// Not run because an earlier step failed.
    Skipped,
}

/// One step of the preview timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct StepView {
    /// Position (0-based).
    pub index: usize,
    /// The step type.
    pub kind: StepKind,
    /// The step type as people say it (`press key`), from [`StepKind::label`].
    pub kind_label: String,
    /// The step's label.
    pub label: Option<String>,
    /// Where it is.
    pub state: StepState,
    /// Wall time in milliseconds, once run.
    pub duration_ms: Option<f64>,
    /// The candidate that found the element, described.
    pub winner: Option<String>,
    /// Every selector candidate of the step, best first.
    pub candidates: Vec<String>,
    /// What the step must visibly do (its post-state checks), in words.
    pub checks: Vec<String>,
    /// Where the step navigated.
    pub navigated_to: Option<String>,
    /// Why it failed.
    pub error: Option<String>,
    /// The screenshot after the step, as a `data:image/png;base64,…` URL.
    pub screenshot: Option<String>,
}

/// The outcome of a preview.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PreviewResult {
    /// The tool, `name@version`.
    pub reference: String,
    /// Whether the run returned a valid output.
    pub ok: bool,
    /// The output, validated against the contract, when `ok`.
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub output: serde_json::Value,
    /// The contract's output schema the output was validated against.
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub output_schema: serde_json::Value,
    /// The contract digest.
    pub contract_digest: String,
    /// The steps, in order.
    pub steps: Vec<StepView>,
    /// The failing step, when a step failed.
    pub failed_step: Option<usize>,
    /// Why the run failed (redacted).
    pub error: Option<String>,
    /// The error code (`input`, `run`, `tool_file`, …).
    pub error_code: Option<String>,
    /// The run id in the journal.
    pub run_id: Option<String>,
    /// The folder of full-size screenshots and `report.json`.
    pub run_dir: Option<String>,
    /// Wall time of the whole run, in milliseconds.
    pub duration_ms: f64,
    /// What to know although the run passed, one sentence each (redacted): a step found
    /// only by a lower-ranked candidate, the page drifting from its recording. The same
    /// words the run folder's `report.json`, the journal and `bflow run` say.
    pub warnings: Vec<String>,
}

/// The steps of `file`, all pending: what the timeline shows before the run reports.
pub fn pending_steps(file: &ToolFile) -> Vec<StepView> {
    file.steps
        .iter()
        .enumerate()
        .map(|(index, step)| StepView {
            index,
            kind: step.kind(),
            kind_label: step.kind().label().to_owned(),
            label: step.label().map(str::to_string),
            state: StepState::Pending,
            duration_ms: None,
            winner: None,
            candidates: candidates(file, index),
            checks: step.expect().iter().map(|c| c.describe()).collect(),
            navigated_to: None,
            error: None,
            screenshot: None,
        })
        .collect()
}

fn candidates(file: &ToolFile, index: usize) -> Vec<String> {
    file.steps
        .get(index)
        .and_then(|s| s.selector())
        .map(|sel| sel.candidates.iter().map(|c| c.describe()).collect())
        .unwrap_or_default()
}

/// [`run_preview_in`] for a `request.tool` that is the path of a tool file.
pub async fn run_preview(
    request: &PreviewRequest,
    runs_dir: &Path,
    on_step: impl Fn(&StepView) + Send + Sync + 'static,
) -> PreviewResult {
    run_preview_in(request, &Catalog::default(), runs_dir, on_step).await
}

/// Runs the tool `request.tool` (a tool file, or `name@version` found in `catalog`, see
/// [`Catalog::find_tool`]) once, writing screenshots under `runs_dir`, and calls
/// `on_step` live: each step the moment it finishes (with its screenshot), the next one as
/// `running`, and at the end every step once more with its final state and thumbnail. Never
/// fails: a failure is a result with `ok: false`, the failing step, its screenshot and its
/// candidates.
pub async fn run_preview_in(
    request: &PreviewRequest,
    catalog: &Catalog,
    runs_dir: &Path,
    on_step: impl Fn(&StepView) + Send + Sync + 'static,
) -> PreviewResult {
    let started = std::time::Instant::now();
    let file = match catalog.tool_file(&request.tool) {
        Ok(file) => file,
        Err(e) => {
            let error = RunToolError::Lookup(e);
            return failed_early(
                &request.tool,
                error_code(&error),
                error.to_string(),
                started,
            );
        }
    };
    let inputs = match typed_inputs(&file, &request.inputs) {
        Ok(inputs) => inputs,
        Err(e) => {
            let error = RunToolError::Input(e);
            return failed_early(
                &request.tool,
                error_code(&error),
                error.to_string(),
                started,
            );
        }
    };
    let mut steps = pending_steps(&file);
    let on_step = Arc::new(on_step);
    let setup = RunSetup {
        browser: Arc::new(
            SharedBrowser::new(BrowserConfig {
                headless: !request.headed,
                ..BrowserConfig::default()
            })
            .with_replay_options(ReplayOptions {
                on_step: Some(live_timeline(steps.clone(), on_step.clone())),
                ..ReplayOptions::default()
            }),
        ),
        runs_folder: RunsFolder::At(runs_dir.to_path_buf()),
        ..RunSetup::default()
    };
    let browser = setup.browser.clone();
    if let Some(first) = steps.first() {
        on_step(&StepView {
            state: StepState::Running,
            ..first.clone()
        });
    }
    let outcome = run_tool(&file, &inputs, setup).await;
    browser.close().await;
    let mut result = PreviewResult {
        reference: file.contract.reference(),
        ok: false,
        output: serde_json::Value::Null,
        output_schema: file.contract.output().to_json(),
        contract_digest: file.contract.contract_digest().to_string(),
        steps: Vec::new(),
        failed_step: None,
        error: None,
        error_code: None,
        run_id: None,
        run_dir: None,
        duration_ms: 0.0,
        warnings: Vec::new(),
    };
    let report = match outcome {
        Ok(run) => {
            result.ok = true;
            result.output = run.output;
            result.run_id = Some(run.run_id);
            result.run_dir = run.call_dir.as_ref().map(|d| d.display().to_string());
            run.report.map(|r| (r, run.call_dir))
        }
        Err(error) => {
            result.error = Some(error.to_string());
            result.error_code = Some(error_code(&error).to_string());
            match error {
                RunToolError::Run { failure, report } => {
                    result.run_id = failure.run_id.clone();
                    let dir = failure
                        .run_id
                        .as_ref()
                        .map(|id| call_dir_of(runs_dir, &file, id));
                    result.run_dir = dir.as_ref().map(|d| d.display().to_string());
                    report.map(|r| (*r, dir))
                }
                _ => None,
            }
        }
    };
    if let Some((report, dir)) = report {
        merge_report(&mut steps, &report, dir.as_deref());
        // The report came back redacted, so its warnings are.
        result.warnings = report
            .fallbacks(&file)
            .iter()
            .map(ToString::to_string)
            .collect();
    }
    for step in &steps {
        on_step(step);
    }
    result.failed_step = steps
        .iter()
        .find(|s| s.state == StepState::Failed)
        .map(|s| s.index);
    result.steps = steps;
    result.duration_ms = started.elapsed().as_secs_f64() * 1000.0;
    result
}

/// The form's inputs as typed values: a secret slot's text is the NAME of a secret, any
/// other is read by its slot's type (a name the tool does not have is kept as text, for the
/// run to refuse with its name).
/// Blank text is read by [`RunInput::from_typed`], the command line's rule: a slot with a
/// default takes its default, one without is refused.
fn typed_inputs(
    file: &ToolFile,
    inputs: &[PreviewInput],
) -> Result<RunInputs, crate::runs::InputError> {
    let mut typed = RunInputs::new();
    for input in inputs {
        let decl = file.contract.inputs().iter().find(|d| d.name == input.name);
        let value = match (input.secret, decl) {
            (true, _) => Some(RunInput::Secret(input.value.clone())),
            (false, Some(decl)) => RunInput::from_typed(decl, &input.value)?,
            (false, None) => Some(RunInput::Value(serde_json::Value::String(
                input.value.clone(),
            ))),
        };
        if let Some(value) = value {
            typed.insert(input.name.clone(), value);
        }
    }
    Ok(typed)
}

fn call_dir_of(runs_dir: &Path, file: &ToolFile, run_id: &str) -> PathBuf {
    browserflow_replay::run_dir::call_dir(
        runs_dir,
        run_id,
        crate::run_tool::STEP_ID,
        &file.contract.reference(),
    )
}

/// Tells `on_step` about each step as the replay finishes it (with the screenshot Chromium
/// just took), and marks the step after a passed one as running.
fn live_timeline(
    pending: Vec<StepView>,
    on_step: Arc<impl Fn(&StepView) + Send + Sync + 'static>,
) -> StepObserver {
    StepObserver::new(move |progress| {
        let done = &progress.report;
        let Some(view) = pending.get(done.index) else {
            return;
        };
        let mut view = view.clone();
        apply_report(&mut view, done);
        view.screenshot = progress
            .screenshot_base64
            .map(|png| format!("data:image/png;base64,{png}"));
        on_step(&view);
        if done.status == StepStatus::Passed
            && let Some(next) = pending.get(done.index + 1)
        {
            on_step(&StepView {
                state: StepState::Running,
                ..next.clone()
            });
        }
    })
}

fn apply_report(view: &mut StepView, done: &StepReport) {
    view.state = match done.status {
        StepStatus::Passed => StepState::Passed,
        StepStatus::Failed => StepState::Failed,
        StepStatus::Skipped => StepState::Skipped,
    };
    view.duration_ms = Some(done.duration_ms);
    view.winner = done.selector.as_ref().map(|w| w.description.clone());
    view.navigated_to = done.navigated_to.clone();
    view.error = done.error.clone();
}

fn merge_report(steps: &mut [StepView], report: &ReplayReport, dir: Option<&Path>) {
    for done in &report.steps {
        let Some(view) = steps.get_mut(done.index) else {
            continue;
        };
        apply_report(view, done);
        view.screenshot = dir.and_then(|d| thumbnail(d, done.index, &done.kind));
    }
}

fn thumbnail(dir: &Path, index: usize, kind: &str) -> Option<String> {
    let stem = format!("{:02}-{kind}", index + 1);
    let bytes = std::fs::read(dir.join(format!("{stem}.thumb.png")))
        .or_else(|_| std::fs::read(dir.join(format!("{stem}.png"))))
        .ok()?;
    Some(format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    ))
}

fn error_code(error: &RunToolError) -> &'static str {
    match error {
        RunToolError::ToolFile(_) => "tool_file",
        RunToolError::Lookup(LookupError::ToolFile(_)) => "tool_file",
        RunToolError::Lookup(_) => "not_found",
        RunToolError::Input(_) | RunToolError::MissingInputs { .. } => "input",
        RunToolError::Prepare(_) => "prepare",
        RunToolError::Run { .. } => "run",
        RunToolError::Serve(_) => "serve",
        RunToolError::RunDir { .. } => "run_dir",
        RunToolError::Setup(
            crate::SetupError::MissingSecrets(_) | crate::SetupError::Secrets(_),
        ) => "secrets",
        RunToolError::Setup(_) => "prepare",
    }
}

fn failed_early(
    tool: &str,
    code: &str,
    message: String,
    started: std::time::Instant,
) -> PreviewResult {
    PreviewResult {
        reference: tool.to_string(),
        ok: false,
        output: serde_json::Value::Null,
        output_schema: serde_json::Value::Null,
        contract_digest: String::new(),
        steps: Vec::new(),
        failed_step: None,
        error: Some(message),
        error_code: Some(code.to_string()),
        run_id: None,
        run_dir: None,
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
        warnings: Vec::new(),
    }
}
