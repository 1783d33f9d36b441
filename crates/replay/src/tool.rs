//! Browser tools in the Rider: [`SharedBrowser`] is the browser (one Chromium, launched
//! lazily on first use or connected to over CDP, relaunched after a crash) and the Rider's
//! `browser` capability, and [`BrowserTool`] replays a [`ToolFile`] as a rider [`Tool`] in the
//! browser it was built with, one fresh browser context per call, once its context grants it
//! the `browser` capability.
//!
//! # What a call gives back
//!
//! A call returns its value and its [`Artifacts`]: the replay report (redacted, as JSON: read
//! it back with [`replay_report`]), the failing page's screenshot, and — when the Rider has a
//! runs folder, so the call has a [`ToolCtx::call_folder`] — the folder it wrote, with one PNG
//! screenshot and one thumbnail per step and a `report.json` (see [`crate::run_dir`]). A
//! retry of the same step overwrites the folder of the failed attempt: the folder shows the
//! attempt whose outcome counted.
//!
//! Failures are classed transient or terminal by the `classify` module.

use std::sync::{Arc, Mutex, Weak};

use browserflow_contract::ToolContract;
use browserflow_rider::secrecy::SecretString;
use browserflow_rider::{
    Artifacts, BrowserCapability, Screenshot, SecretInput, Tool, ToolCtx, ToolError, ToolOutput,
};
use serde_json::{Map, Value};

use crate::classify::{classify_browser_error, classify_replay_error};
use crate::run_dir;
use crate::{ReplayOptions, ReplayReport, ReplaySecrets, Replayer};
use browserflow_cdp::BrowserError;
use browserflow_cdp::launch::{Browser, BrowserConfig, BrowserContext};
use browserflow_steps::ToolFile;

/// The `browser` capability: one browser shared by every browser tool of a Rider.
///
/// Chromium is launched (or connected to, with `BrowserConfig::ws_endpoint`) on the first
/// call that needs it; when it has crashed or the connection dropped, the next call starts a
/// new one. Every call gets its own [`BrowserContext`].
pub struct SharedBrowser {
    config: BrowserConfig,
    replay: ReplayOptions,
    browser: tokio::sync::Mutex<Option<Arc<Browser>>>,
    /// A context (with its page) opened ahead of the call that will take it.
    spare: Mutex<Option<Spare>>,
    /// Whether taking a context opens the next one in the background.
    keep_spare: bool,
}

/// A browser context being opened (or opened) before anyone asked for it: creating one costs
/// a renderer process start, hundreds of milliseconds a call would otherwise wait for.
struct Spare {
    /// The browser it belongs to (a relaunched browser makes it useless).
    browser: Weak<Browser>,
    task: tokio::task::JoinHandle<Result<BrowserContext, BrowserError>>,
}

impl std::fmt::Debug for SharedBrowser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedBrowser")
            .field("config", &self.config)
            .field("replay", &self.replay)
            .finish_non_exhaustive()
    }
}

impl SharedBrowser {
    /// A handle that launches (or connects) with `config` when first used.
    pub fn new(config: BrowserConfig) -> SharedBrowser {
        SharedBrowser {
            config,
            replay: ReplayOptions::default(),
            browser: tokio::sync::Mutex::new(None),
            spare: Mutex::new(None),
            keep_spare: true,
        }
    }

    /// Whether every context taken is replaced by a new one opened in the background
    /// (default true: the next call, or the next of many concurrent calls, finds its context
    /// ready). A one-call process (`bflow run`) turns it off: the spare would only compete
    /// with its replay for the CPU.
    pub fn with_spare_context(mut self, keep: bool) -> SharedBrowser {
        self.keep_spare = keep;
        self
    }

    /// Starts Chromium (or connects) now, in the background, and opens the first context, so
    /// that the first call finds both ready. Call it first thing in a process that will
    /// replay: the browser starts while the rest of the process gets ready. Needs a Tokio
    /// runtime; errors are left for the first call to meet again.
    pub fn prelaunch(self: &Arc<Self>) {
        let this = self.clone();
        tokio::spawn(async move {
            let _ = this.browser_with_spare(true).await;
        });
    }

    /// Replay settings for every call (screenshots are switched on per call when a run
    /// folder is given).
    pub fn with_replay_options(mut self, options: ReplayOptions) -> SharedBrowser {
        self.replay = options;
        self
    }

    /// The replay settings.
    pub fn replay_options(&self) -> &ReplayOptions {
        &self.replay
    }

    /// As the Rider's `browser` capability.
    pub fn into_capability(self) -> Arc<dyn BrowserCapability> {
        Arc::new(self)
    }

    /// The running browser, launching (or reconnecting) when there is none or the last one
    /// is gone.
    pub async fn browser(&self) -> Result<Arc<Browser>, BrowserError> {
        Ok(self.browser_with_spare(false).await?.0)
    }

    /// [`Self::browser`], and whether it replaces one that crashed or disconnected; a
    /// browser launched now also starts opening a spare context when `spare` is set, before
    /// anyone else can ask for a context.
    async fn browser_with_spare(&self, spare: bool) -> Result<(Arc<Browser>, bool), BrowserError> {
        let mut slot = self.browser.lock().await;
        if let Some(browser) = slot.as_ref()
            && browser.is_connected()
        {
            return Ok((browser.clone(), false));
        }
        // A dead browser is dropped here (a launched one is killed and its profile removed).
        let relaunch = slot.take().is_some();
        let browser = Arc::new(Browser::launch(&self.config).await?);
        if spare {
            self.open_spare(&browser);
        }
        *slot = Some(browser.clone());
        Ok((browser, relaunch))
    }

    /// Starts opening a spare context in `browser`, unless one is there already.
    fn open_spare(&self, browser: &Arc<Browser>) {
        let Ok(mut spare) = self.spare.lock() else {
            return;
        };
        if spare.is_some() {
            return;
        }
        let opening = browser.clone();
        *spare = Some(Spare {
            browser: Arc::downgrade(browser),
            task: tokio::spawn(async move { opening.new_context().await }),
        });
    }

    /// The spare context if it belongs to `browser` and opened fine (waiting for it to be
    /// ready); a spare of another browser is discarded.
    async fn take_spare(&self, browser: &Arc<Browser>) -> Option<BrowserContext> {
        let spare = self.spare.lock().ok()?.take()?;
        if !Weak::ptr_eq(&spare.browser, &Arc::downgrade(browser)) {
            spare.task.abort();
            return None;
        }
        spare.task.await.ok()?.ok()
    }

    /// Drops the spare context (it is disposed in the background).
    async fn discard_spare(&self) {
        let spare = self.spare.lock().ok().and_then(|mut s| s.take());
        if let Some(spare) = spare {
            spare.task.abort();
            // Lets go of the browser the task held.
            let _ = spare.task.await;
        }
    }

    /// The browser, if one is running now (does not launch).
    pub async fn current(&self) -> Option<Arc<Browser>> {
        self.browser.lock().await.clone()
    }

    /// A fresh, isolated context in the shared browser.
    pub async fn new_context(&self) -> Result<BrowserContext, BrowserError> {
        Ok(self.context_for_call().await?.0)
    }

    /// [`Self::new_context`], and whether the browser had to be relaunched for it (the last
    /// one crashed or its connection dropped), so the call can say so.
    async fn context_for_call(&self) -> Result<(BrowserContext, bool), BrowserError> {
        let (browser, relaunched) = self.browser_with_spare(false).await?;
        if let Some(context) = self.take_spare(&browser).await {
            if self.keep_spare {
                self.open_spare(&browser);
            }
            return Ok((context, relaunched));
        }
        let context = match browser.new_context().await {
            Ok(context) => context,
            Err(first) => {
                // The browser may have died since its last use without the connection having
                // noticed yet: start (or reconnect) a new one, once.
                self.discard(&browser).await;
                let fresh = self.browser().await.map_err(|_| first)?;
                let context = fresh.new_context().await?;
                if self.keep_spare {
                    self.open_spare(&fresh);
                }
                return Ok((context, true));
            }
        };
        if self.keep_spare {
            self.open_spare(&browser);
        }
        Ok((context, relaunched))
    }

    /// Forgets `browser` if it is still the shared one (it is killed once no call uses it).
    async fn discard(&self, browser: &Arc<Browser>) {
        let mut slot = self.browser.lock().await;
        if slot.as_ref().is_some_and(|b| Arc::ptr_eq(b, browser)) {
            *slot = None;
        }
    }

    /// Closes the browser if it is not in use elsewhere (a connected one is disconnected from).
    pub async fn close(&self) {
        self.discard_spare().await;
        let taken = self.browser.lock().await.take();
        if let Some(browser) = taken
            && let Ok(browser) = Arc::try_unwrap(browser)
        {
            let _ = browser.close().await;
        }
    }
}

impl BrowserCapability for SharedBrowser {
    fn describe(&self) -> String {
        match &self.config.ws_endpoint {
            Some(endpoint) => format!(
                "chromium at {}",
                browserflow_cdp::launch::shown_endpoint(endpoint)
            ),
            None => "chromium (launched on first use)".to_string(),
        }
    }
}

/// A recorded browser tool as a rider [`Tool`].
#[derive(Debug, Clone)]
pub struct BrowserTool {
    file: Arc<ToolFile>,
    browser: Arc<SharedBrowser>,
}

impl BrowserTool {
    /// The tool of a recording, replayed in `browser` (give the Rider the same browser as
    /// its `browser` capability: a call runs only when its context grants it).
    pub fn new(file: ToolFile, browser: Arc<SharedBrowser>) -> BrowserTool {
        BrowserTool {
            file: Arc::new(file),
            browser,
        }
    }

    /// A factory for [`ToolRegistry::register`](browserflow_rider::ToolRegistry::register):
    /// every instance shares the parsed file (it is immutable) and the browser.
    pub fn factory(
        file: ToolFile,
        browser: Arc<SharedBrowser>,
    ) -> impl Fn() -> BrowserTool + Send + Sync + 'static {
        let tool = BrowserTool::new(file, browser);
        move || tool.clone()
    }

    /// The recording.
    pub fn file(&self) -> &ToolFile {
        &self.file
    }

    /// The replay inputs: plain slots as given, secret slots resolved through the `secrets`
    /// capability now, at the last moment. Returns the resolved secrets with the run's
    /// redactor, so that screenshots mask them and everything written is redacted of them.
    fn replay_inputs(
        &self,
        input: &Value,
        ctx: &ToolCtx,
    ) -> Result<(Map<String, Value>, ReplaySecrets), ToolError> {
        let mut given = match input {
            Value::Object(map) => map.clone(),
            Value::Null => Map::new(),
            other => {
                return Err(ToolError::terminal(format!(
                    "a browser tool takes an object of inputs, not {other}"
                )));
            }
        };
        let mut secrets: Vec<SecretString> = Vec::new();
        for decl in self.file.contract.inputs() {
            if !decl.secret {
                continue;
            }
            let Some(value) = given.get(&decl.name) else {
                continue;
            };
            let reference = SecretInput::from_json(value)
                .map_err(|e| ToolError::terminal(format!("input `{}`: {e}", decl.name)))?;
            let exposed = ctx.require_secrets()?.expose(&reference)?;
            let text =
                browserflow_rider::secrecy::ExposeSecret::expose_secret(&exposed).to_string();
            given.insert(decl.name.clone(), Value::String(text));
            secrets.push(exposed);
        }
        Ok((given, ReplaySecrets::new(ctx.redactor().clone(), secrets)))
    }

    /// The tool's output from the extracted fields: the contract's object properties, or
    /// the single extracted value when the output is not an object.
    fn assemble_output(&self, outputs: &Map<String, Value>) -> Result<Value, ToolError> {
        let schema = self.file.contract.output().to_json();
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut out = Map::new();
            for name in properties.keys() {
                match outputs.get(name) {
                    Some(value) => {
                        out.insert(name.clone(), value.clone());
                    }
                    None if required.contains(&name.as_str()) => {
                        return Err(ToolError::terminal(format!(
                            "the replay extracted no `{name}`, which the output requires \
                             (extracted: {})",
                            list_keys(outputs)
                        )));
                    }
                    None => {}
                }
            }
            return Ok(Value::Object(out));
        }
        if schema.get("type").and_then(Value::as_str) == Some("object") {
            return Ok(Value::Object(outputs.clone()));
        }
        match outputs.len() {
            1 => Ok(outputs.values().next().cloned().unwrap_or(Value::Null)),
            0 if schema.get("type").and_then(Value::as_str) == Some("null") => Ok(Value::Null),
            _ => Err(ToolError::terminal(format!(
                "the output is not an object, so the replay must extract exactly one field \
                 (extracted: {})",
                list_keys(outputs)
            ))),
        }
    }
}

/// A call's artifacts: its (redacted) report as JSON, the failing step's page — the other
/// steps' screenshots are in the folder, when there is one — and the folder it wrote.
fn call_artifacts(report: Option<ReplayReport>, folder: Option<std::path::PathBuf>) -> Artifacts {
    let Some(report) = report else {
        return Artifacts {
            folder,
            ..Artifacts::default()
        };
    };
    let screenshots = report
        .steps
        .iter()
        .filter(|step| step.status == crate::StepStatus::Failed)
        .filter_map(|step| {
            Some(Screenshot {
                step: step.index,
                png: step.screenshot.clone()?,
            })
        })
        .collect();
    Artifacts {
        folder,
        report: serde_json::to_value(&report).ok(),
        screenshots,
    }
}

/// The replay report a browser tool call left in its artifacts, with the failing step's
/// screenshot put back in its step. `None` when the call left no report (it failed before
/// replaying, or it was not a browser tool).
pub fn replay_report(artifacts: &Artifacts) -> Option<ReplayReport> {
    let mut report: ReplayReport = serde_json::from_value(artifacts.report.clone()?).ok()?;
    for shot in &artifacts.screenshots {
        if let Some(step) = report.steps.iter_mut().find(|s| s.index == shot.step) {
            step.screenshot = Some(shot.png.clone());
        }
    }
    Some(report)
}

fn list_keys(map: &Map<String, Value>) -> String {
    if map.is_empty() {
        "nothing".to_string()
    } else {
        map.keys().cloned().collect::<Vec<_>>().join(", ")
    }
}

#[async_trait::async_trait]
impl Tool for BrowserTool {
    fn contract(&self) -> &ToolContract {
        &self.file.contract
    }

    async fn run(&self, input: Value, ctx: ToolCtx) -> Result<Value, ToolError> {
        self.call(input, ctx).await.map(|output| output.value)
    }

    async fn call(&self, input: Value, ctx: ToolCtx) -> Result<ToolOutput, ToolError> {
        // The Rider's grant: without it (no `browser` declared, or a Rider with no browser)
        // nothing opens.
        ctx.require_browser()?;
        let shared = self.browser.as_ref();
        let (inputs, secrets) = self.replay_inputs(&input, &ctx)?;
        let run_dir = ctx.call_folder().map(std::path::Path::to_path_buf);
        let options = ReplayOptions {
            screenshots: run_dir.is_some() || shared.replay.screenshots,
            // Downloads are kept with the call's screenshots and report.
            download_dir: run_dir
                .as_ref()
                .map(|dir| dir.join("downloads"))
                .or_else(|| shared.replay.download_dir.clone()),
            deadline: ctx.deadline().or(shared.replay.deadline),
            secrets: secrets.clone(),
            origins: Some(self.file.allowed_origins()),
            viewport: self.file.viewport,
            ..shared.replay.clone()
        };
        let (context, relaunched) = shared
            .context_for_call()
            .await
            .map_err(|e| classify_browser_error(&e))?;
        if relaunched {
            // Said at the default level: the replay starts over in a new browser.
            tracing::warn!(
                "step `{}` ({}): the browser had crashed or its connection dropped; \
                 started a new one, and the tool replays from its first step",
                ctx.step_id(),
                self.file.contract.reference()
            );
        }
        tracing::debug!(target: "browserflow::timing", "context ready");
        let replayer = Replayer::new(options);
        let replay = replayer.run(&context, &self.file.steps, &inputs);
        let result = tokio::select! {
            result = replay => Some(result),
            () = ctx.signal().cancelled() => None,
        };
        tracing::debug!(target: "browserflow::timing", "replay done");
        let launched = shared.current().await.is_some_and(|b| b.pid().is_some());
        if launched {
            // Our own browser: disposing can finish in the background (`Drop` sends it), or
            // never, when the process ends now and the browser is killed with it.
            drop(context);
        } else {
            // Someone else's browser outlives this process: leave nothing behind in it.
            let _ = context.close().await;
        }
        tracing::debug!(target: "browserflow::timing", "context closed");
        let Some(result) = result else {
            return Err(ToolError::cancelled());
        };
        let browser_alive = match shared.current().await {
            Some(browser) => browser.is_connected(),
            None => false,
        };
        let (report, error) = match result {
            Ok(report) => (Some(report), None),
            Err(e) => (e.report().cloned(), Some(e)),
        };
        let mut folder = None;
        if let Some(dir) = &run_dir
            && let Some(report) = &report
        {
            let error_text = error.as_ref().map(|e| secrets.redact(&e.to_string()));
            match run_dir::write(dir, &self.file, report, error_text.as_deref(), &secrets) {
                Ok(()) => folder = Some(dir.clone()),
                Err(e) => ctx.logger().warn(format!(
                    "could not write the run folder {}: {e}",
                    dir.display()
                )),
            }
        }
        // What the caller reads back (the CLI's step lines, the app's preview) is redacted
        // like the run folder.
        let artifacts = call_artifacts(report.as_ref().map(|r| secrets.redact_report(r)), folder);
        match (report, error) {
            (_, Some(error)) => {
                Err(classify_replay_error(&error, browser_alive, &secrets)
                    .with_artifacts(artifacts))
            }
            // The value is the replay's own: the Rider validates it, then redacts it wherever
            // it is written, like any tool's.
            (Some(report), None) => Ok(ToolOutput {
                value: self.assemble_output(&report.outputs)?,
                artifacts,
                // Journaled by the Rider (redacted), so a drift is said wherever the run is
                // shown, not only in this call's folder.
                warnings: report
                    .fallbacks(&self.file)
                    .iter()
                    .map(ToString::to_string)
                    .collect(),
            }),
            (None, None) => Err(ToolError::terminal("the replay produced no report")),
        }
    }
}
