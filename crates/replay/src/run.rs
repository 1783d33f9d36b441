//! One replay in progress: inputs expanded and upload files checked before the browser does
//! anything, then each step dispatched to its action family (`actions`, `navigation`), with
//! its report, screenshot and failure.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::time::Instant;

use browserflow_cdp::launch::BrowserContext;
use browserflow_cdp::page::Page;
use browserflow_steps::{Origins, Step, StepKind, expand_step};

use crate::actions::upload_paths;
use crate::checks::Watch;
use crate::failure::{Failure, FailureKind};
use crate::resolve::resolver_install;
use crate::screenshot::StepCapture;
use crate::settle::{SettleWatch, prepare as prepare_settle};
use crate::{
    DownloadRecord, ReplayError, ReplayOptions, ReplayReport, StepProgress, StepReport, StepStatus,
    WinningSelector,
};

/// The name of the page a replay starts on.
pub(crate) const MAIN_PAGE: &str = "main";

/// What a successful step leaves for its report.
#[derive(Default)]
pub(crate) struct Outcome {
    pub(crate) winner: Option<usize>,
    pub(crate) navigated_to: Option<String>,
    pub(crate) download: Option<DownloadRecord>,
}

impl Outcome {
    /// An element step that found candidate `winner` and did not navigate.
    pub(crate) fn found(winner: usize) -> Self {
        Self {
            winner: Some(winner),
            ..Self::default()
        }
    }
}

/// One replay in progress.
pub(crate) struct Run<'a> {
    pub(crate) context: &'a BrowserContext,
    pub(crate) options: &'a ReplayOptions,
    /// Every page of the replay by name, the main page first.
    pub(crate) pages: Vec<(String, Page)>,
    /// The position in `pages` of the page steps act on.
    pub(crate) current: usize,
    pub(crate) outputs: Map<String, Value>,
    /// The folder downloads go to, once the context allows them.
    pub(crate) download_dir: Option<PathBuf>,
    /// Where top-level pages may go, and the pages already guarded (`navigation.rs`).
    pub(crate) origins: Origins,
    pub(crate) guarded: Vec<String>,
    /// The running step's post-state watch (see [`crate::checks`]).
    pub(crate) watch: std::sync::Mutex<Watch>,
    /// Whether the recorded viewport was set (`actions/pages.rs`).
    pub(crate) viewport_set: bool,
    /// How many of each page's guard refusals (by target id) a step already answered for.
    refusals_seen: std::collections::HashMap<String, usize>,
    /// The page stopped answering (a script that never yields): no capture is tried.
    unresponsive: bool,
    /// A step put a secret into the page (typed it, or navigated with it): from then on,
    /// what the masker cannot read is masked too (`screenshot.rs`).
    pub(crate) secret_typed: bool,
}

/// How long a page stuck at the end of the budget gets to answer a trivial evaluation.
const ANSWER_PROBE: Duration = Duration::from_millis(300);

/// How long the screenshot of a failed step may take: the call's budget is nearly spent, and
/// the run folder must still be written within it.
const FAILED_CAPTURE_LIMIT: Duration = Duration::from_millis(500);

/// How long any other step's screenshot may take.
const CAPTURE_LIMIT: Duration = Duration::from_secs(10);

/// At most this many dialogs are listed in one step's report (a page that opens them in a
/// loop opens thousands).
const DIALOGS_LISTED: usize = 50;

/// What a step fails with when its page's renderer died.
const CRASHED: &str = "the page's renderer process died during this step: it crashed, was \
                       killed, or ran out of memory";

impl<'a> Run<'a> {
    pub(crate) fn new(context: &'a BrowserContext, options: &'a ReplayOptions) -> Self {
        context.page().prewarm_worlds(&resolver_install());
        Self {
            context,
            options,
            pages: vec![(MAIN_PAGE.to_string(), context.page().clone())],
            current: 0,
            outputs: Map::new(),
            download_dir: None,
            origins: options.origins.clone().unwrap_or(Origins::Any),
            guarded: Vec::new(),
            watch: Default::default(),
            viewport_set: false,
            refusals_seen: Default::default(),
            unresponsive: false,
            secret_typed: false,
        }
    }

    pub(crate) fn page(&self) -> Page {
        self.pages[self.current].1.clone()
    }

    pub(crate) async fn run(
        mut self,
        steps: &[Step],
        inputs: &Map<String, Value>,
    ) -> Result<ReplayReport, ReplayError> {
        let expanded = expand_all(steps, inputs)?;
        if self.options.origins.is_none() {
            self.origins = Origins::of_steps(&expanded);
        }
        let started = Instant::now();
        prepare_settle(&self.page(), steps).await;
        let mut reports: Vec<StepReport> = Vec::with_capacity(steps.len());
        let mut screenshots = Vec::new();
        for (index, (step, original)) in expanded.iter().zip(steps).enumerate() {
            let step_started = Instant::now();
            let page = self.page();
            let dialogs_before = page.dialog_count();
            let popups_before = page.popups_opened().len();
            if !self.secret_typed && !self.options.secrets.is_empty() {
                let value = serde_json::to_value(step).unwrap_or_default();
                self.secret_typed =
                    any_string(&value, &|text| self.options.secrets.holds_secret(text));
            }
            let finished = match self.options.deadline {
                // A step still running when the budget ends fails here, naming itself.
                Some(deadline) => tokio::time::timeout_at(
                    deadline.into(),
                    self.execute_watched(&page, step, original),
                )
                .await
                .ok(),
                None => Some(self.execute_watched(&page, step, original).await),
            };
            let result = match finished {
                Some(result) => result,
                None => Err(self.stuck(&page, dialogs_before, popups_before).await),
            };
            let result = self.refusal_during_step(result);
            let dialogs = page
                .dialogs()
                .get(dialogs_before..)
                .unwrap_or_default()
                .iter()
                .take(DIALOGS_LISTED)
                .cloned()
                .collect();
            let duration_ms = millis(step_started.elapsed());
            // The capture must happen now (it shows the page after this step); decoding it
            // does not, so it runs beside the next steps.
            let mut shown_capture = None;
            let mut screenshot_withheld = None;
            if self.options.screenshots && !self.page().is_closed() {
                let captured = self.bounded_capture(result.is_err()).await;
                screenshot_withheld = captured.withheld();
                let capture = captured.base64();
                if self.options.on_step.is_some() {
                    shown_capture.clone_from(&capture);
                }
                screenshots.push((
                    index,
                    tokio::task::spawn_blocking(move || capture.and_then(|b| decode_png(&b))),
                ));
            }
            let mut report = StepReport {
                dialogs,
                duration_ms,
                screenshot_withheld,
                ..unrun_report(index, original, StepStatus::Passed)
            };
            match result {
                Ok(outcome) => {
                    report.selector = outcome.winner.and_then(|i| winning(original, i));
                    report.navigated_to = outcome.navigated_to;
                    report.download = outcome.download;
                    self.tell_observer(&report, shown_capture);
                    reports.push(report);
                }
                Err(failure) => {
                    if !self.options.screenshots
                        && self.options.failure_screenshot
                        && !self.page().is_closed()
                    {
                        // The page as the step left it: what the person looks at first.
                        let captured = self.bounded_capture(true).await;
                        report.screenshot_withheld = captured.withheld();
                        let capture = captured.base64();
                        screenshots.push((
                            index,
                            tokio::task::spawn_blocking(move || {
                                capture.and_then(|b| decode_png(&b))
                            }),
                        ));
                    }
                    report.status = StepStatus::Failed;
                    report.selector = failure.winner.and_then(|i| winning(original, i));
                    report.error = Some(failure.message.clone());
                    self.tell_observer(&report, shown_capture);
                    reports.push(report);
                    reports.extend(
                        steps
                            .iter()
                            .enumerate()
                            .skip(index + 1)
                            .map(|(later, step)| unrun_report(later, step, StepStatus::Skipped)),
                    );
                    attach_screenshots(&mut reports, screenshots).await;
                    let final_url = self.page().url();
                    // Whatever the step met, a dropped connection is why it failed.
                    let failure_kind = if page.session().connection().is_closed() {
                        FailureKind::BrowserDisconnected
                    } else {
                        failure.kind
                    };
                    return Err(ReplayError::StepFailed {
                        index,
                        kind: step.kind().to_string(),
                        label: original.label().map(str::to_string),
                        message: failure.message,
                        failure: failure_kind,
                        report: Box::new(ReplayReport {
                            steps: reports,
                            outputs: self.outputs,
                            final_url,
                            duration_ms: millis(started.elapsed()),
                        }),
                    });
                }
            }
        }
        attach_screenshots(&mut reports, screenshots).await;
        Ok(ReplayReport {
            steps: reports,
            final_url: self.page().url(),
            outputs: self.outputs,
            duration_ms: millis(started.elapsed()),
        })
    }

    fn tell_observer(&self, report: &StepReport, screenshot_base64: Option<String>) {
        if let Some(observer) = &self.options.on_step {
            observer.notify(StepProgress {
                report: self.options.secrets.redact_step(report),
                screenshot_base64,
            });
        }
    }

    /// [`Self::execute`], ended the moment `page`'s renderer dies (a crash, a kill, out of
    /// memory): the browser says so at once, and the step would otherwise wait out its
    /// budget on a page that will never answer.
    async fn execute_watched(
        &mut self,
        page: &Page,
        step: &Step,
        original: &Step,
    ) -> Result<Outcome, Failure> {
        let result = tokio::select! {
            biased;
            () = renderer_died(page.clone()) => Err(Failure::new(FailureKind::Crashed, CRASHED)),
            result = self.execute(step, original) => result,
        };
        // A failure the dead renderer caused (a navigation aborted, a world destroyed) can
        // reach the step before the browser's word that the renderer died: asking the page
        // once settles which it is (a live page answers at once, a dead one's session goes).
        if matches!(&result, Err(failure) if failure.kind != FailureKind::Crashed)
            && !page.crashed()
        {
            page.answers_within(ANSWER_PROBE).await;
        }
        match result {
            // Whatever the step met on its way out, the dead renderer is why.
            Err(failure) if page.crashed() && failure.kind != FailureKind::Crashed => {
                Err(Failure::new(FailureKind::Crashed, CRASHED))
            }
            other => other,
        }
    }

    /// Why a step was still running when the call's time ran out, as its failure: the page
    /// died, opened dialogs or popups without end, or stopped answering (a script that never
    /// yields) — each named — or else the plain timeout.
    async fn stuck(&mut self, page: &Page, dialogs_before: usize, popups_before: usize) -> Failure {
        if page.crashed() {
            return Failure::new(FailureKind::Crashed, CRASHED);
        }
        let mut causes = Vec::new();
        let dialogs = page.dialogs();
        let opened = dialogs.len().saturating_sub(dialogs_before);
        if let Some(last) = dialogs.last().filter(|_| opened > 0) {
            let text: String = last.message.chars().take(80).collect();
            causes.push(format!(
                "the page opened {opened} dialog{} during this step, each answered and followed \
                 by the next (the last: {} {text:?})",
                plural(opened),
                last.kind
            ));
        }
        let popups = page.popups_opened().len().saturating_sub(popups_before);
        if popups > 0 {
            causes.push(format!(
                "the page opened {popups} popup{} during this step",
                plural(popups)
            ));
        }
        if !page.answers_within(ANSWER_PROBE).await {
            self.unresponsive = true;
            causes.push(format!(
                "the page does not answer (not within {} ms): a script on it runs without \
                 yielding, such as an endless loop, or a dialog holds it",
                ANSWER_PROBE.as_millis()
            ));
        }
        let mut message = "still running when the time given to this call ran out".to_string();
        if !causes.is_empty() {
            message.push_str(": ");
            message.push_str(&causes.join("; "));
        }
        Failure::new(FailureKind::Timeout, message)
    }

    /// A navigation the page's guard refused while the step ran (or since the last step)
    /// fails the step as `NavigationBlocked` naming the URL, whatever the step read
    /// afterwards: a page whose own script went somewhere refused shows Chromium's error
    /// page, and nothing read from it is an output.
    fn refusal_during_step(
        &mut self,
        result: Result<Outcome, Failure>,
    ) -> Result<Outcome, Failure> {
        let mut first = None;
        for (_, page) in &self.pages {
            let refused = page.refused_navigations();
            let seen = self
                .refusals_seen
                .entry(page.target_id().to_string())
                .or_default();
            if first.is_none() {
                first = refused.get(*seen).cloned();
            }
            *seen = refused.len();
        }
        match (result, first) {
            (Err(failure), _)
                if matches!(
                    failure.kind,
                    FailureKind::NavigationBlocked(_) | FailureKind::Crashed
                ) =>
            {
                Err(failure)
            }
            (_, Some(refusal)) => Err(Failure::blocked(&refusal)),
            (result, None) => result,
        }
    }

    /// The screenshot after a step, never waiting on a page that does not answer: a failed
    /// step's has [`FAILED_CAPTURE_LIMIT`] (the run folder must still be written within the
    /// call's time), and a page known not to answer gets none, with the reason.
    async fn bounded_capture(&self, failed: bool) -> StepCapture {
        const NOT_ANSWERING: &str =
            "no screenshot: the page does not answer (a script on it never yields)";
        if self.unresponsive {
            return StepCapture::Withheld(NOT_ANSWERING.into());
        }
        let limit = if failed {
            FAILED_CAPTURE_LIMIT
        } else {
            CAPTURE_LIMIT
        };
        tokio::time::timeout(limit, self.capture_after_step())
            .await
            .unwrap_or_else(|_| {
                StepCapture::Withheld(format!(
                    "no screenshot: the page did not draw one within {} ms",
                    limit.as_millis()
                ))
            })
    }

    /// Runs one (expanded) step; `original` is the step as recorded, used in messages so that
    /// input values (possibly secrets) never appear in errors.
    pub(crate) async fn execute(
        &mut self,
        step: &Step,
        original: &Step,
    ) -> Result<Outcome, Failure> {
        // Closing a popup needs no live page: the one steps were on may be the popup that
        // closed itself after its last step, as it did while recording.
        if let Step::ClosePage(s) = step {
            return self.close_page(s).await;
        }
        let page = self.page();
        if page.is_closed() {
            return Err(Failure::new(FailureKind::Gone, "the page is closed"));
        }
        self.guard(&page).await?;
        self.use_recorded_viewport().await?;
        let shown = original.selector();
        let checks = step.expect();
        Watch::begin(&self.watch, !checks.is_empty());
        if let Step::KeyPress(key) = step
            && key.selector.is_none()
            && !checks.is_empty()
        {
            self.watch_focused(&page).await?;
        }
        let settle =
            SettleWatch::arm(&page, step.settle(), self.budget(step.after_timeout_ms())).await?;
        let outcome = self.act(&page, step, shown).await?;
        if let Some(settle) = settle
            && outcome.navigated_to.is_none()
        {
            let budget = self.budget(step.after_timeout_ms());
            settle
                .wait(&page, budget)
                .await
                .map_err(|f| match outcome.winner {
                    Some(winner) => f.with_winner(winner),
                    None => f,
                })?;
        }
        if !checks.is_empty() && outcome.navigated_to.is_none() {
            self.check_post_state(&page, checks, step.after_timeout_ms())
                .await
                .map_err(|f| match outcome.winner {
                    Some(winner) => f.with_winner(winner),
                    None => f,
                })?;
        }
        Ok(outcome)
    }

    async fn act(
        &mut self,
        page: &Page,
        step: &Step,
        shown: Option<&browserflow_steps::Selector>,
    ) -> Result<Outcome, Failure> {
        let page = page.clone();
        match step {
            Step::Navigate(s) => self.navigate(&page, s).await,
            Step::Click(s) => self.click(&page, s, shown).await,
            Step::Download(s) => self.download(&page, s, shown).await,
            Step::Upload(s) => self.upload(&page, s, shown).await,
            Step::Fill(s) => self.fill(&page, s, shown).await,
            Step::KeyPress(s) => self.key_press(&page, s, shown).await,
            Step::Hover(s) => self.hover(&page, s, shown).await,
            Step::Drag(s) => self.drag(&page, s, shown).await,
            Step::Scroll(s) => self.scroll(&page, s, shown).await,
            Step::SetViewport(s) => self.set_viewport(&page, s).await,
            Step::WaitForElement(s) => self.wait_for_element(&page, s, shown).await,
            Step::WaitForExpression(s) => self.wait_for_expression(&page, s).await,
            Step::Extract(s) => self.extract(&page, s, shown).await,
            Step::ExtractList(s) => self.extract_list(&page, s, shown).await,
            Step::Assert(s) => self.assert(&page, s, shown).await,
            Step::HandleDialog(s) => Ok(self.handle_dialog(&page, s)),
            Step::SwitchPage(s) => self.switch_page(s).await,
            Step::ClosePage(s) => self.close_page(s).await,
        }
    }

    /// The wait budget of a step: its own timeout, or the candidate timeout.
    pub(crate) fn budget(&self, timeout_ms: Option<u64>) -> Duration {
        timeout_ms
            .map(Duration::from_millis)
            .unwrap_or(self.options.candidate_timeout)
    }
}

/// Every step with its inputs expanded and its upload files resolved: a missing input or
/// file fails before the browser does anything.
fn expand_all(steps: &[Step], inputs: &Map<String, Value>) -> Result<Vec<Step>, ReplayError> {
    let expanded = steps
        .iter()
        .enumerate()
        .map(|(index, step)| {
            expand_step(step, inputs).map_err(|source| ReplayError::Input {
                index,
                kind: step.kind().to_string(),
                source,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    // Inputs first: a missing input is reported before any unreadable file.
    expanded
        .into_iter()
        .enumerate()
        .map(|(index, mut step)| {
            if let Step::Upload(s) = &mut step {
                s.files = upload_paths(&s.files).map_err(|message| ReplayError::File {
                    index,
                    kind: StepKind::Upload.to_string(),
                    message,
                })?;
            }
            Ok(step)
        })
        .collect()
}

/// The report of a step before (or instead of) running it.
fn unrun_report(index: usize, step: &Step, status: StepStatus) -> StepReport {
    StepReport {
        index,
        kind: step.kind().to_string(),
        label: step.label().map(str::to_string),
        status,
        duration_ms: 0.0,
        selector: None,
        navigated_to: None,
        dialogs: Vec::new(),
        download: None,
        error: None,
        screenshot: None,
        screenshot_withheld: None,
    }
}

/// Screenshots being decoded, by step index.
type PendingScreenshots = Vec<(usize, tokio::task::JoinHandle<Option<Vec<u8>>>)>;

async fn attach_screenshots(reports: &mut [StepReport], pending: PendingScreenshots) {
    for (index, decoding) in pending {
        if let (Some(report), Ok(png)) = (reports.get_mut(index), decoding.await) {
            report.screenshot = png;
        }
    }
}

fn decode_png(base64_png: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(base64_png)
        .ok()
}

fn winning(step: &Step, index: usize) -> Option<WinningSelector> {
    let candidate = step.selector()?.candidates.get(index)?;
    Some(WinningSelector {
        index,
        kind: candidate.kind,
        description: candidate.describe(),
    })
}

/// Whether `test` holds for any string inside `value`.
fn any_string(value: &Value, test: &dyn Fn(&str) -> bool) -> bool {
    match value {
        Value::String(text) => test(text),
        Value::Array(items) => items.iter().any(|item| any_string(item, test)),
        Value::Object(map) => map.values().any(|item| any_string(item, test)),
        _ => false,
    }
}

/// Resolves once `page`'s renderer process died (never, for a page that stays alive).
async fn renderer_died(page: Page) {
    let mut changes = page.changes();
    while !page.crashed() {
        if changes.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

fn millis(d: Duration) -> f64 {
    (d.as_secs_f64() * 1000.0 * 100.0).round() / 100.0
}
