//! Deterministic replay of recorded browser steps, and browser tools in the Rider.
//!
//! * [`Replayer`]: every element step resolves its selector (all candidates watched for the
//!   whole budget, the highest-ranked match wins), waits for Playwright-style actionability
//!   (unique, visible, stable for two animation frames, enabled/editable, receives the pointer
//!   event), then acts with real CDP input events. An action that navigates is an outcome, not
//!   an error: the replayer waits for the new document and carries on. Popups, dialogs,
//!   downloads (saved under their name, described by path, size and SHA-256) and uploads (file
//!   inputs or intercepted file choosers) are typed steps; each step gets a [`StepReport`]. A
//!   failed step says what kind of failure it is ([`FailureKind`], from
//!   [`ReplayError::failure_kind`]): what is retried is decided on the kind, not the message.
//! * [`SharedBrowser`] (the `browser` capability: lazy launch or CDP connect, relaunch after a
//!   crash) and [`BrowserTool`] (a [`ToolFile`](browserflow_steps::ToolFile) as a Rider `Tool`,
//!   returning its value with its report and run folder as the call's artifacts, read back
//!   with [`replay_report`]); per-call run folders ([`run_dir`]) in the call's folder the
//!   Rider gives (`ToolCtx::call_folder`).
//!
//! # Example
//!
//! ```no_run
//! use browserflow_cdp::{Browser, BrowserConfig};
//! use browserflow_replay::Replayer;
//! use browserflow_steps::Step;
//! use serde_json::json;
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let steps: Vec<Step> = serde_json::from_value(json!([
//!     { "type": "navigate", "url": "http://127.0.0.1:4780/index.html" },
//!     { "type": "fill", "value": "{{query}}", "selector": { "candidates": [
//!         { "kind": "test_id", "value": "search-input" },
//!         { "kind": "role", "value": "searchbox", "name": "Search products" }
//!     ] } },
//!     { "type": "key_press", "key": "Enter", "navigation": { "url": "*/search.html?q=*" } },
//!     { "type": "click", "selector": { "candidates": [
//!         { "kind": "css", "value": "#results li:first-child a" }
//!     ] } },
//!     { "type": "extract", "field": "price", "kind": "number", "currency_field": "currency",
//!       "selector": { "candidates": [{ "kind": "test_id", "value": "product-price" }] } }
//! ]))?;
//! let inputs = json!({ "query": "keyboard" }).as_object().cloned().unwrap_or_default();
//!
//! let browser = Browser::launch(&BrowserConfig::default()).await?;
//! let context = browser.new_context().await?;
//! let report = Replayer::default().run(&context, &steps, &inputs).await?;
//! assert_eq!(report.outputs["price"], 89.99);
//! assert_eq!(report.outputs["currency"], "USD");
//! for step in &report.steps {
//!     println!("{} {:?} {:.1} ms {:?}", step.kind, step.status, step.duration_ms, step.selector);
//! }
//! context.close().await?;
//! browser.close().await?;
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]

mod actions;
mod checks;
mod classify;
mod failure;
mod fallback;
mod js;
mod navigation;
mod resolve;
mod run;
pub mod run_dir;
mod screenshot;
mod secrets;
mod settle;
mod tool;

pub use browserflow_cdp::DownloadRecord;
pub use failure::{Blocked, FailureKind, Missing, Unactionable};
pub use fallback::{Fallback, described_candidates};
pub use secrets::ReplaySecrets;
pub use tool::{BrowserTool, SharedBrowser, replay_report};

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use browserflow_cdp::launch::BrowserContext;
use browserflow_cdp::page::DialogRecord;
use browserflow_steps::InterpolateError;
use browserflow_steps::{SelectorKind, Step};

/// Replay settings.
#[derive(Debug, Clone)]
pub struct ReplayOptions {
    /// How long each selector candidate may take to become actionable (default 5 s). All
    /// candidates are watched at once, so each gets the whole budget.
    pub candidate_timeout: Duration,
    /// How long a navigation may take to load (default 30 s).
    pub navigation_timeout: Duration,
    /// Take a PNG screenshot after every step (and of a failing step).
    pub screenshots: bool,
    /// Without `screenshots`: still take one of the page when a step fails (masked like the
    /// others), so a failure can always be looked at; costs nothing while steps pass.
    pub failure_screenshot: bool,
    /// Where `download` steps save files. When absent, a replay that downloads creates a
    /// fresh `browserflow-downloads-*` folder under the system temp dir and keeps it (the
    /// step's output names the file in it).
    pub download_dir: Option<PathBuf>,
    /// Told about each step the moment it finishes (a live timeline), before the replay ends.
    pub on_step: Option<StepObserver>,
    /// When the replay must have given up by (the tool call's share of its step's time
    /// budget): a step still running then fails as a timeout, naming itself.
    pub deadline: Option<std::time::Instant>,
    /// The replay's secrets: screenshots mask them, reports told to `on_step` are redacted
    /// of them. A browser tool fills this in per call; empty costs nothing.
    pub secrets: ReplaySecrets,
    /// The origins top-level pages may navigate to (a tool file's
    /// [`allowed_origins`](browserflow_steps::ToolFile::allowed_origins)); `None`: those of
    /// the steps replayed ([`Origins::of_steps`](browserflow_steps::Origins::of_steps)).
    /// Whatever it says, only web URLs are ever loaded.
    pub origins: Option<browserflow_steps::Origins>,
    /// The viewport the tool was recorded in (a tool file's
    /// [`viewport`](browserflow_steps::ToolFile::viewport)), set on the main page before its
    /// first step; `None`: the browser's own window size.
    pub viewport: Option<browserflow_steps::Viewport>,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        Self {
            candidate_timeout: Duration::from_secs(5),
            navigation_timeout: Duration::from_secs(30),
            screenshots: false,
            failure_screenshot: false,
            download_dir: None,
            on_step: None,
            deadline: None,
            secrets: ReplaySecrets::default(),
            origins: None,
            viewport: None,
        }
    }
}

/// A step that just finished, as [`ReplayOptions::on_step`] sees it.
#[derive(Debug, Clone)]
pub struct StepProgress {
    /// The step's report (its `screenshot` is not decoded yet: see `screenshot_base64`).
    pub report: StepReport,
    /// The screenshot after the step, base64 PNG as Chromium sent it (when screenshots are on).
    pub screenshot_base64: Option<String>,
}

/// A callback for [`ReplayOptions::on_step`]. It runs on the replay's task: keep it quick
/// (send the progress somewhere rather than work on it).
#[derive(Clone)]
pub struct StepObserver(Arc<dyn Fn(StepProgress) + Send + Sync>);

impl StepObserver {
    /// Wraps `callback`.
    pub fn new(callback: impl Fn(StepProgress) + Send + Sync + 'static) -> Self {
        Self(Arc::new(callback))
    }

    pub(crate) fn notify(&self, progress: StepProgress) {
        (self.0)(progress);
    }
}

impl std::fmt::Debug for StepObserver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StepObserver")
    }
}

/// Runs steps against a [`BrowserContext`]. Holds no per-run state: one replayer may run many
/// replays at once.
#[derive(Debug, Clone, Default)]
pub struct Replayer {
    options: ReplayOptions,
}

/// Whether a step ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    /// The step did what it says.
    Passed,
    /// The step failed; the replay stopped here.
    Failed,
    /// The step did not run because an earlier one failed.
    Skipped,
}

/// The selector candidate that found the element.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WinningSelector {
    /// Position in the step's candidate list (0 = best ranked).
    pub index: usize,
    /// The candidate's kind.
    pub kind: SelectorKind,
    /// The candidate, described: `test_id "search-input"`.
    pub description: String,
}

/// What happened in one step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepReport {
    /// Position of the step (0-based).
    pub index: usize,
    /// The step type (`click`, `fill`, …).
    pub kind: String,
    /// The step's label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Outcome.
    pub status: StepStatus,
    /// Wall time of the step in milliseconds.
    pub duration_ms: f64,
    /// The candidate that won, for element steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<WinningSelector>,
    /// The URL the step navigated to, when it navigated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub navigated_to: Option<String>,
    /// Dialogs that opened during the step and how they were answered (the first 50: a
    /// page that opens them in a loop has its count in the step's error).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dialogs: Vec<DialogRecord>,
    /// The file a `download` step saved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub download: Option<DownloadRecord>,
    /// Why the step failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// PNG screenshot taken after the step (when enabled). Not serialized.
    #[serde(skip)]
    pub screenshot: Option<Vec<u8>>,
    /// Why the step has no screenshot although screenshots are on: the run has secrets and
    /// masking them could not be guaranteed (a frame out of reach, a page that changed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshot_withheld: Option<String>,
}

/// The outcome of a replay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplayReport {
    /// One report per step, in order (failed and skipped steps included).
    pub steps: Vec<StepReport>,
    /// Extracted output fields.
    pub outputs: Map<String, Value>,
    /// The URL of the current page when the replay ended.
    pub final_url: String,
    /// Wall time of the whole replay in milliseconds.
    pub duration_ms: f64,
}

/// Why a replay failed.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// A step is malformed (checked before anything runs).
    #[error("step {} ({kind}) is invalid: {message}", .index + 1)]
    InvalidStep {
        /// 0-based step position.
        index: usize,
        /// Step type.
        kind: String,
        /// What is wrong.
        message: String,
    },
    /// An upload step names a file that cannot be read (checked before anything runs, after
    /// inputs are expanded).
    #[error("step {} ({kind}): {message}", .index + 1)]
    File {
        /// 0-based step position.
        index: usize,
        /// Step type.
        kind: String,
        /// Which file and what is wrong with it.
        message: String,
    },
    /// A step references an input that was not given.
    #[error("step {} ({kind}): {source}", .index + 1)]
    Input {
        /// 0-based step position.
        index: usize,
        /// Step type.
        kind: String,
        /// The expansion problem.
        source: InterpolateError,
    },
    /// A step failed while running; the report holds every step up to it.
    #[error("step {} ({kind}{}) failed: {message}", .index + 1, label_suffix(.label))]
    StepFailed {
        /// 0-based step position.
        index: usize,
        /// Step type.
        kind: String,
        /// Step label.
        label: Option<String>,
        /// What went wrong, naming every selector candidate tried.
        message: String,
        /// What kind of failure it is (what retries are decided on).
        failure: FailureKind,
        /// The partial report, with the failing step's screenshot when enabled.
        report: Box<ReplayReport>,
    },
}

fn label_suffix(label: &Option<String>) -> String {
    label
        .as_ref()
        .map(|l| format!(" \"{l}\""))
        .unwrap_or_default()
}

impl ReplayError {
    /// The partial report of a failed step, if the replay got that far.
    pub fn report(&self) -> Option<&ReplayReport> {
        match self {
            ReplayError::StepFailed { report, .. } => Some(report),
            _ => None,
        }
    }

    /// What kind of failure it is: a step that is wrong before anything runs is an
    /// [`FailureKind::InvalidStep`].
    pub fn failure_kind(&self) -> FailureKind {
        match self {
            ReplayError::InvalidStep { .. }
            | ReplayError::File { .. }
            | ReplayError::Input { .. } => FailureKind::InvalidStep,
            ReplayError::StepFailed { failure, .. } => *failure,
        }
    }
}

impl Replayer {
    /// A replayer with the given options.
    pub fn new(options: ReplayOptions) -> Self {
        Self { options }
    }

    /// The replayer's options.
    pub fn options(&self) -> &ReplayOptions {
        &self.options
    }

    /// Replays `steps` in `context`, expanding `{{name}}` references from `inputs`.
    pub async fn run(
        &self,
        context: &BrowserContext,
        steps: &[Step],
        inputs: &Map<String, Value>,
    ) -> Result<ReplayReport, ReplayError> {
        for (index, step) in steps.iter().enumerate() {
            step.validate()
                .map_err(|message| ReplayError::InvalidStep {
                    index,
                    kind: step.kind().to_string(),
                    message,
                })?;
        }
        run::Run::new(context, &self.options)
            .run(steps, inputs)
            .await
    }
}
