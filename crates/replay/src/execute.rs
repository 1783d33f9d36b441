//! Running each step type.

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::time::Instant;

use browserflow_cdp::launch::BrowserContext;
use browserflow_cdp::page::keys::{key_definition, key_events};
use browserflow_cdp::page::{DialogResponse, EvalError, NavMark, Page};
use browserflow_cdp::session::CdpError;
use browserflow_steps::expand_step;
use browserflow_steps::{
    AssertStep, DownloadOutput, DownloadStep, ExpectedNavigation, ExtractStep, Modifier,
    MouseButton, OutputKind, Selector, Step, UploadStep,
};
use browserflow_steps::{coerce, currency_code};

use super::files::{DownloadWatch, fresh_download_dir, upload_paths};
use super::resolve::{
    Requirements, ResolveFailure, ResolveSpec, Resolved, describe_frame, resolve, resolver_install,
    wait_change,
};
use super::{
    DownloadRecord, ReplayError, ReplayOptions, ReplayReport, StepProgress, StepReport, StepStatus,
    WinningSelector,
};
use browserflow_cdp::downloads::allow_downloads;
use browserflow_steps::glob_match;

/// The name of the page a replay starts on.
const MAIN_PAGE: &str = "main";

/// What a successful step leaves for its report.
#[derive(Default)]
struct Outcome {
    winner: Option<usize>,
    navigated_to: Option<String>,
    download: Option<DownloadRecord>,
}

/// One replay in progress.
pub(super) struct Run<'a> {
    context: &'a BrowserContext,
    options: &'a ReplayOptions,
    pages: Vec<(String, Page)>,
    current: usize,
    outputs: Map<String, Value>,
    /// The folder downloads go to, once the context allows them.
    download_dir: Option<PathBuf>,
}

impl<'a> Run<'a> {
    pub(super) fn new(context: &'a BrowserContext, options: &'a ReplayOptions) -> Self {
        context.page().prewarm_worlds(&resolver_install());
        Self {
            context,
            options,
            pages: vec![(MAIN_PAGE.to_string(), context.page().clone())],
            current: 0,
            outputs: Map::new(),
            download_dir: None,
        }
    }

    fn page(&self) -> Page {
        self.pages[self.current].1.clone()
    }

    pub(super) async fn run(
        mut self,
        steps: &[Step],
        inputs: &Map<String, Value>,
    ) -> Result<ReplayReport, ReplayError> {
        // Expand every step first: a missing input fails before the browser does anything.
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
        // Files to upload must exist before the browser does anything, too.
        let expanded = expanded
            .into_iter()
            .enumerate()
            .map(|(index, step)| match step {
                Step::Upload(mut s) => {
                    s.files = upload_paths(&s.files).map_err(|message| ReplayError::File {
                        index,
                        kind: "upload".into(),
                        message,
                    })?;
                    Ok(Step::Upload(s))
                }
                other => Ok(other),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let started = Instant::now();
        let mut reports: Vec<StepReport> = Vec::with_capacity(steps.len());
        let mut screenshots = Vec::new();
        for (index, (step, original)) in expanded.iter().zip(steps).enumerate() {
            let step_started = Instant::now();
            let page = self.page();
            let dialogs_before = page.dialog_count();
            let result = self.execute(step, original).await;
            let dialogs = page
                .dialogs()
                .get(dialogs_before..)
                .unwrap_or_default()
                .to_vec();
            let duration_ms = millis(step_started.elapsed());
            // The capture must happen now (it shows the page after this step); decoding it
            // does not, so it runs beside the next steps.
            let mut shown_capture = None;
            if self.options.screenshots && !self.page().is_closed() {
                let capture = self.page().screenshot_base64().await.ok();
                if self.options.on_step.is_some() {
                    shown_capture.clone_from(&capture);
                }
                screenshots.push((
                    index,
                    tokio::task::spawn_blocking(move || capture.and_then(|b| decode_png(&b))),
                ));
            }
            let mut report = StepReport {
                index,
                kind: step.kind().to_string(),
                label: original.label().map(str::to_string),
                status: StepStatus::Passed,
                duration_ms,
                selector: None,
                navigated_to: None,
                dialogs,
                download: None,
                error: None,
                screenshot: None,
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
                    report.status = StepStatus::Failed;
                    report.selector = failure.winner.and_then(|i| winning(original, i));
                    report.error = Some(failure.message.clone());
                    self.tell_observer(&report, shown_capture);
                    reports.push(report);
                    for (later, step) in steps.iter().enumerate().skip(index + 1) {
                        reports.push(StepReport {
                            index: later,
                            kind: step.kind().to_string(),
                            label: step.label().map(str::to_string),
                            status: StepStatus::Skipped,
                            duration_ms: 0.0,
                            selector: None,
                            navigated_to: None,
                            dialogs: Vec::new(),
                            download: None,
                            error: None,
                            screenshot: None,
                        });
                    }
                    attach_screenshots(&mut reports, screenshots).await;
                    let final_url = self.page().url();
                    return Err(ReplayError::StepFailed {
                        index,
                        kind: step.kind().to_string(),
                        label: original.label().map(str::to_string),
                        message: failure.message,
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
                report: report.clone(),
                screenshot_base64,
            });
        }
    }

    /// Runs one (expanded) step; `original` is the step as recorded, used in messages so that
    /// input values (possibly secrets) never appear in errors.
    async fn execute(&mut self, step: &Step, original: &Step) -> Result<Outcome, Failure> {
        let page = self.page();
        if page.is_closed() {
            return Err(Failure::new("the page is closed"));
        }
        let shown = original.selector();
        match step {
            Step::Navigate(s) => {
                let timeout = s
                    .timeout_ms
                    .map(Duration::from_millis)
                    .unwrap_or(self.options.navigation_timeout);
                page.navigate(&s.url, timeout)
                    .await
                    .map_err(|e| Failure::new(e.to_string()))?;
                if let Some(expected) = &s.navigation {
                    check_navigation(&page, expected, self.options.navigation_timeout).await?;
                }
                Ok(Outcome {
                    winner: None,
                    navigated_to: Some(page.url()),
                    ..Outcome::default()
                })
            }
            Step::Click(s) => {
                let spec = ResolveSpec {
                    offset: s.offset,
                    ..ResolveSpec::action(Requirements::pointer())
                };
                let found = self
                    .find(&page, &s.selector, shown, &spec, s.timeout_ms)
                    .await?;
                let (x, y) = point_of(&found)?;
                let (button, count) = (s.button, s.click_count);
                let click_page = page.clone();
                let frame = (found.frame_id != page.target_id()).then_some(found.frame_id.as_str());
                let navigated_to = self
                    .act_and_follow_in(
                        &page,
                        frame,
                        s.navigation.as_ref(),
                        s.opens_popup.as_deref(),
                        || async move {
                            click_page
                                .mouse_click(x, y, button, count, frame.is_some())
                                .await
                        },
                    )
                    .await
                    .map_err(|f| f.with_winner(found.winner))?;
                Ok(Outcome {
                    winner: Some(found.winner),
                    navigated_to,
                    ..Outcome::default()
                })
            }
            Step::Download(s) => self.download(&page, s, shown).await,
            Step::Upload(s) => self.upload(&page, s, shown).await,
            Step::Fill(s) => {
                let spec = ResolveSpec {
                    act: Some(json!({ "kind": "fill", "value": s.value })),
                    ..ResolveSpec::action(Requirements::fill())
                };
                let found = self
                    .find(&page, &s.selector, shown, &spec, s.timeout_ms)
                    .await?;
                if found.result["type"] == true {
                    page.insert_text(&s.value).await.map_err(|e| {
                        Failure::new(format!("typing failed: {e}")).with_winner(found.winner)
                    })?;
                }
                Ok(Outcome {
                    winner: Some(found.winner),
                    navigated_to: None,
                    ..Outcome::default()
                })
            }
            Step::KeyPress(s) => {
                let definition = key_definition(&s.key)
                    .ok_or_else(|| Failure::new(format!("unknown key {:?}", s.key)))?;
                let mut winner = None;
                if let Some(selector) = &s.selector {
                    let spec = ResolveSpec {
                        act: Some(json!({ "kind": "focus" })),
                        ..ResolveSpec::action(Requirements::focus())
                    };
                    winner = Some(
                        self.find(&page, selector, shown, &spec, s.timeout_ms)
                            .await?
                            .winner,
                    );
                }
                let key_page = page.clone();
                let modifiers = s.modifiers.clone();
                let navigated_to = self
                    .act_and_follow(
                        &page,
                        s.navigation.as_ref(),
                        s.opens_popup.as_deref(),
                        || async move { press_key(&key_page, &definition, &modifiers).await },
                    )
                    .await
                    .map_err(|f| match winner {
                        Some(w) => f.with_winner(w),
                        None => f,
                    })?;
                Ok(Outcome {
                    winner,
                    navigated_to,
                    ..Outcome::default()
                })
            }
            Step::Hover(s) => {
                let spec = ResolveSpec {
                    offset: s.offset,
                    ..ResolveSpec::action(Requirements::pointer())
                };
                let found = self
                    .find(&page, &s.selector, shown, &spec, s.timeout_ms)
                    .await?;
                let (x, y) = point_of(&found)?;
                page.mouse_move(x, y).await.map_err(|e| {
                    Failure::new(format!("moving the mouse failed: {e}")).with_winner(found.winner)
                })?;
                Ok(Outcome {
                    winner: Some(found.winner),
                    navigated_to: None,
                    ..Outcome::default()
                })
            }
            Step::Scroll(s) => match &s.selector {
                Some(selector) => {
                    let spec = ResolveSpec {
                        act: Some(json!({ "kind": "scroll", "x": s.x, "y": s.y })),
                        ..ResolveSpec::action(Requirements::default())
                    };
                    let found = self
                        .find(&page, selector, shown, &spec, s.timeout_ms)
                        .await?;
                    Ok(Outcome {
                        winner: Some(found.winner),
                        navigated_to: None,
                        ..Outcome::default()
                    })
                }
                None => {
                    let world = page
                        .isolated_world(page.target_id())
                        .await
                        .map_err(|e| Failure::new(format!("scrolling failed: {e}")))?;
                    page.evaluate(&world, &format!("window.scrollTo({}, {})", s.x, s.y), false)
                        .await
                        .map_err(|e| Failure::new(format!("scrolling failed: {e}")))?;
                    Ok(Outcome::default())
                }
            },
            Step::SetViewport(s) => {
                page.set_viewport(s.width, s.height, s.device_scale_factor, s.mobile)
                    .await
                    .map_err(|e| Failure::new(format!("setting the viewport failed: {e}")))?;
                Ok(Outcome::default())
            }
            Step::WaitForElement(s) => {
                let spec = ResolveSpec {
                    mode: "wait",
                    count: s
                        .count
                        .map(|n| json!({ "op": s.operator.as_str(), "value": n })),
                    visible: s.visible,
                    properties: (!s.properties.is_empty())
                        .then(|| Value::Object(s.properties.clone())),
                    ..ResolveSpec::default()
                };
                let found = self
                    .find(&page, &s.selector, shown, &spec, s.timeout_ms)
                    .await?;
                Ok(Outcome {
                    winner: Some(found.winner),
                    navigated_to: None,
                    ..Outcome::default()
                })
            }
            Step::WaitForExpression(s) => {
                let budget = self.budget(s.timeout_ms);
                wait_for_expression(&page, &s.expression, budget).await?;
                Ok(Outcome::default())
            }
            Step::Extract(s) => {
                let winner = self.extract(&page, s, shown).await?;
                Ok(Outcome {
                    winner: Some(winner),
                    navigated_to: None,
                    ..Outcome::default()
                })
            }
            Step::Assert(s) => self.assert(&page, s, shown).await,
            Step::HandleDialog(s) => {
                page.arm_dialog(DialogResponse {
                    accept: s.accept,
                    prompt_text: s.prompt_text.clone(),
                });
                Ok(Outcome::default())
            }
            Step::SwitchPage(s) => {
                let index = self
                    .pages
                    .iter()
                    .position(|(name, _)| *name == s.page)
                    .ok_or_else(|| Failure::new(self.unknown_page(&s.page)))?;
                self.current = index;
                let page = self.page();
                // Best effort: a page in front keeps painting, so animation-frame waits run.
                let _ = page.bring_to_front().await;
                Ok(Outcome::default())
            }
            Step::ClosePage(s) => {
                if s.page == MAIN_PAGE {
                    return Err(Failure::new("the main page cannot be closed"));
                }
                let index = self
                    .pages
                    .iter()
                    .position(|(name, _)| *name == s.page)
                    .ok_or_else(|| Failure::new(self.unknown_page(&s.page)))?;
                let (_, closing) = self.pages.remove(index);
                closing
                    .close()
                    .await
                    .map_err(|e| Failure::new(e.to_string()))?;
                if self.current == index {
                    self.current = 0;
                } else if self.current > index {
                    self.current -= 1;
                }
                Ok(Outcome::default())
            }
        }
    }

    async fn download(
        &mut self,
        page: &Page,
        s: &DownloadStep,
        shown: Option<&Selector>,
    ) -> Result<Outcome, Failure> {
        let dir = match &self.download_dir {
            Some(dir) => dir.clone(),
            None => {
                let dir = match &self.options.download_dir {
                    Some(dir) => dir.clone(),
                    None => fresh_download_dir().map_err(|e| {
                        Failure::new(format!("cannot create a download folder: {e}"))
                    })?,
                };
                allow_downloads(page.session().connection(), self.context.id(), &dir)
                    .await
                    .map_err(Failure::new)?;
                self.download_dir = Some(dir.clone());
                dir
            }
        };
        let spec = ResolveSpec {
            offset: s.offset,
            ..ResolveSpec::action(Requirements::pointer())
        };
        let found = self
            .find(page, &s.selector, shown, &spec, s.timeout_ms)
            .await?;
        let (x, y) = point_of(&found)?;
        let in_child_frame = found.frame_id != page.target_id();
        let watch = DownloadWatch::start(page);
        let click_page = page.clone();
        self.act_and_follow(page, None, None, || async move {
            click_page
                .mouse_click(x, y, MouseButton::Left, 1, in_child_frame)
                .await
        })
        .await
        .map_err(|f| f.with_winner(found.winner))?;
        let wait = s
            .timeout_ms
            .map(Duration::from_millis)
            .unwrap_or(self.options.navigation_timeout);
        let record = watch
            .finish(page, &dir, Instant::now() + wait)
            .await
            .map_err(|e| {
                Failure::new(format!("{e} within {} ms of the click", wait.as_millis()))
                    .with_winner(found.winner)
            })?;
        if let Some(pattern) = &s.filename
            && !glob_match(pattern, &record.name)
            && !glob_match(
                pattern,
                &record
                    .path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            )
        {
            return Err(Failure::new(format!(
                "expected a download named {pattern:?}, but got {:?} (saved as {})",
                record.name,
                record.path.display()
            ))
            .with_winner(found.winner));
        }
        if let Some(field) = &s.field {
            let value = match s.output {
                DownloadOutput::File => json!({
                    "name": record.name,
                    "path": record.path.to_string_lossy(),
                    "size": record.size,
                    "sha256": record.sha256,
                    "url": record.url,
                }),
                DownloadOutput::Path => json!(record.path.to_string_lossy()),
                DownloadOutput::Name => json!(record.name),
                DownloadOutput::Size => json!(record.size),
                DownloadOutput::Sha256 => json!(record.sha256),
            };
            self.outputs.insert(field.clone(), value);
        }
        Ok(Outcome {
            winner: Some(found.winner),
            download: Some(record),
            ..Outcome::default()
        })
    }

    async fn upload(
        &mut self,
        page: &Page,
        s: &UploadStep,
        shown: Option<&Selector>,
    ) -> Result<Outcome, Failure> {
        // A file input needs no actionability (they are often hidden behind a styled label);
        // anything else must be clickable, since its click opens the chooser.
        let probe = ResolveSpec {
            act: Some(json!({ "kind": "upload", "count": s.files.len() })),
            ..ResolveSpec::action(Requirements::default())
        };
        let found = self
            .find(page, &s.selector, shown, &probe, s.timeout_ms)
            .await?;
        let winner = found.winner;
        if found.result["fileInput"] == true {
            let object_id = page
                .evaluate_handle(&found.world, "globalThis.__browserflowUploadTarget")
                .await
                .map_err(|e| {
                    Failure::new(format!("lost the file input: {e}")).with_winner(winner)
                })?;
            found
                .world
                .session
                .call(
                    "DOM.setFileInputFiles",
                    json!({ "files": s.files, "objectId": object_id }),
                )
                .await
                .map_err(|e| {
                    Failure::new(format!("setting the files failed: {e}")).with_winner(winner)
                })?;
            return Ok(Outcome {
                winner: Some(winner),
                ..Outcome::default()
            });
        }
        let spec = ResolveSpec::action(Requirements::pointer());
        let found = self
            .find(page, &s.selector, shown, &spec, s.timeout_ms)
            .await?;
        let (x, y) = point_of(&found)?;
        let in_child_frame = found.frame_id != page.target_id();
        let choosers_before = page.file_choosers().len();
        page.intercept_file_choosers(true).await.map_err(|e| {
            Failure::new(format!("cannot intercept the file chooser: {e}"))
                .with_winner(found.winner)
        })?;
        let click_page = page.clone();
        let clicked = self
            .act_and_follow(page, None, None, || async move {
                click_page
                    .mouse_click(x, y, MouseButton::Left, 1, in_child_frame)
                    .await
            })
            .await;
        let chooser = match clicked {
            Ok(_) => {
                let deadline = Instant::now() + self.budget(s.timeout_ms);
                let mut changes = page.changes();
                loop {
                    if let Some(chooser) = page.file_choosers().get(choosers_before) {
                        break Ok(chooser.clone());
                    }
                    if !wait_change(&mut changes, deadline).await {
                        break Err(Failure::new(
                            "the click opened no file chooser (and the element is not a file input)",
                        ));
                    }
                }
            }
            Err(f) => Err(f),
        };
        let _ = page.intercept_file_choosers(false).await;
        let chooser = chooser.map_err(|f| f.with_winner(found.winner))?;
        if chooser.mode == "selectSingle" && s.files.len() > 1 {
            return Err(Failure::new(format!(
                "the file chooser accepts one file, not {}",
                s.files.len()
            ))
            .with_winner(found.winner));
        }
        page.session_by_id(chooser.session.as_deref())
            .call(
                "DOM.setFileInputFiles",
                json!({ "files": s.files, "backendNodeId": chooser.backend_node_id }),
            )
            .await
            .map_err(|e| {
                Failure::new(format!("answering the file chooser failed: {e}"))
                    .with_winner(found.winner)
            })?;
        Ok(Outcome {
            winner: Some(found.winner),
            ..Outcome::default()
        })
    }

    fn unknown_page(&self, name: &str) -> String {
        let known: Vec<&str> = self.pages.iter().map(|(n, _)| n.as_str()).collect();
        format!("no page named {name:?} (pages: {})", known.join(", "))
    }

    fn budget(&self, timeout_ms: Option<u64>) -> Duration {
        timeout_ms
            .map(Duration::from_millis)
            .unwrap_or(self.options.candidate_timeout)
    }

    async fn find(
        &self,
        page: &Page,
        selector: &Selector,
        shown: Option<&Selector>,
        spec: &ResolveSpec,
        timeout_ms: Option<u64>,
    ) -> Result<Resolved, Failure> {
        let budget = self.budget(timeout_ms);
        resolve(page, selector, spec, budget)
            .await
            .map_err(|failure| explain(failure, shown.unwrap_or(selector), budget))
    }

    async fn extract(
        &mut self,
        page: &Page,
        s: &ExtractStep,
        shown: Option<&Selector>,
    ) -> Result<usize, Failure> {
        let spec = ResolveSpec {
            read: Some(json!({
                "from": s.from.as_str(),
                "attribute": s.attribute,
                // A typed field waits for text to arrive; an empty string is a valid string.
                "nonEmpty": s.kind != OutputKind::String,
            })),
            ..ResolveSpec::action(Requirements::default())
        };
        // Navigations settle once the document is parsed; a read also lets the page's `load`
        // handlers run first, since it takes the value as it finds it. A load that never ends
        // (a hanging image) does not stop the read, it only delays it.
        page.wait_loaded(page.target_id(), self.options.navigation_timeout)
            .await;
        let found = self
            .find(page, &s.selector, shown, &spec, s.timeout_ms)
            .await?;
        let text = found.result.as_str().unwrap_or_default().to_string();
        let value = coerce(&text, s.kind).map_err(|e| {
            Failure::new(format!("field `{}`: {e}", s.field)).with_winner(found.winner)
        })?;
        self.outputs.insert(s.field.clone(), value);
        if let Some(currency_field) = &s.currency_field {
            let code = currency_code(&text).ok_or_else(|| {
                Failure::new(format!(
                    "field `{currency_field}`: no currency symbol or code in {text:?}"
                ))
                .with_winner(found.winner)
            })?;
            self.outputs
                .insert(currency_field.clone(), Value::String(code.to_string()));
        }
        Ok(found.winner)
    }

    async fn assert(
        &self,
        page: &Page,
        s: &AssertStep,
        shown: Option<&Selector>,
    ) -> Result<Outcome, Failure> {
        let mut winner = None;
        if let Some(selector) = &s.selector {
            let mut checks: Vec<(&str, Value)> = Vec::new();
            if let Some(t) = &s.text_equals {
                checks.push(("text", json!({ "equals": t })));
            }
            if let Some(t) = &s.text_contains {
                checks.push(("text", json!({ "contains": t })));
            }
            if let Some(v) = &s.value_equals {
                checks.push(("value", json!({ "equals": v })));
            }
            if checks.is_empty() {
                let spec = ResolveSpec::action(Requirements {
                    visible: true,
                    ..Requirements::default()
                });
                winner = Some(
                    self.find(page, selector, shown, &spec, s.timeout_ms)
                        .await?
                        .winner,
                );
            }
            for (from, expect) in checks {
                let spec = ResolveSpec {
                    read: Some(json!({ "from": from })),
                    expect: Some(expect),
                    ..ResolveSpec::action(Requirements::default())
                };
                winner = Some(
                    self.find(page, selector, shown, &spec, s.timeout_ms)
                        .await?
                        .winner,
                );
            }
        }
        if s.url.is_some() || s.title.is_some() {
            let deadline = Instant::now() + self.budget(s.timeout_ms);
            loop {
                let url = page.url();
                let title = match &s.title {
                    Some(_) => next_frame_title(page).await,
                    None => String::new(),
                };
                let url_ok = s.url.as_ref().is_none_or(|p| glob_match(p, &url));
                let title_ok = s.title.as_ref().is_none_or(|p| glob_match(p, &title));
                if url_ok && title_ok {
                    break;
                }
                if Instant::now() >= deadline {
                    let mut problems = Vec::new();
                    if !url_ok {
                        problems.push(format!(
                            "the url is {url:?}, expected {:?}",
                            s.url.as_deref().unwrap_or_default()
                        ));
                    }
                    if !title_ok {
                        problems.push(format!(
                            "the title is {title:?}, expected {:?}",
                            s.title.as_deref().unwrap_or_default()
                        ));
                    }
                    return Err(Failure::new(problems.join("; ")));
                }
            }
        }
        Ok(Outcome {
            winner,
            navigated_to: None,
            ..Outcome::default()
        })
    }

    /// Runs an action that may navigate or open a popup, and follows what it caused: waits for
    /// the new document (a navigation is an outcome, not an error), checks an expected
    /// navigation, and switches to an expected popup.
    async fn act_and_follow<F, Fut>(
        &mut self,
        page: &Page,
        expected: Option<&ExpectedNavigation>,
        opens_popup: Option<&str>,
        action: F,
    ) -> Result<Option<String>, Failure>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<(), CdpError>>,
    {
        self.act_and_follow_in(page, None, expected, opens_popup, action)
            .await
    }

    /// [`Self::act_and_follow`] for an action on an element of `frame` (a child frame): the
    /// expected navigation is that frame's, waited for and checked once the action is done.
    async fn act_and_follow_in<F, Fut>(
        &mut self,
        page: &Page,
        frame: Option<&str>,
        expected: Option<&ExpectedNavigation>,
        opens_popup: Option<&str>,
        action: F,
    ) -> Result<Option<String>, Failure>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<(), CdpError>>,
    {
        let (expected, frame_expected) = match frame {
            Some(frame) => (None, expected.map(|e| (frame.to_string(), e))),
            None => (expected, None),
        };
        let frame_mark = frame_expected
            .as_ref()
            .map(|(frame, _)| page.nav_mark(frame));
        let main = page.target_id().to_string();
        let mark = page.nav_mark(&main);
        let popups_before = page.popups_opened().len();
        let mut began = false;
        match action().await {
            Ok(()) => {}
            // Chromium answers an input event whose handler replaced the document this way.
            Err(e) if e.is_navigation() => began = true,
            Err(e) => return Err(Failure::new(format!("the action failed: {e}"))),
        }
        // A step recorded as navigating waits for its navigation's events below; any other
        // step takes one round trip through the page to see whether it navigated anyway.
        if !began && expected.is_none() {
            began = settle(page).await || page.navigation_began(&main, &mark);
        }
        let mut navigated_to = None;
        if !began && expected.is_some() {
            // The step was recorded as navigating: give a late (script-driven) navigation the
            // candidate budget to start.
            let deadline = Instant::now() + self.options.candidate_timeout;
            let mut changes = page.changes();
            while !page.navigation_began(&main, &mark) {
                if !wait_change(&mut changes, deadline).await {
                    return Err(Failure::new(format!(
                        "expected a navigation{}, but the page stayed at {:?}",
                        expected.map(describe_expected).unwrap_or_default(),
                        page.url()
                    )));
                }
            }
            began = true;
        }
        if began {
            if !page
                .wait_navigation_settled(&main, &mark, self.options.navigation_timeout)
                .await
            {
                if let Some(gone) = page.gone() {
                    return Err(Failure::new(format!(
                        "the navigation started by this step was cut short: {gone}"
                    )));
                }
                return Err(Failure::new(format!(
                    "the navigation started by this step did not finish within {} ms (page at {:?})",
                    self.options.navigation_timeout.as_millis(),
                    page.url()
                )));
            }
            navigated_to = Some(page.url());
            if let Some(expected) = expected {
                check_navigation(page, expected, self.options.navigation_timeout).await?;
            }
        }
        if let (Some((frame, expected)), Some(frame_mark)) = (&frame_expected, &frame_mark) {
            navigated_to = Some(
                self.follow_frame_navigation(page, frame, frame_mark, expected)
                    .await?,
            );
        }
        if let Some(name) = opens_popup {
            let popup = self.follow_popup(page, popups_before).await?;
            navigated_to = Some(popup.url());
            self.pages.retain(|(n, _)| n != name);
            self.pages.push((name.to_string(), popup));
            self.current = self.pages.len() - 1;
        }
        Ok(navigated_to)
    }

    /// Waits for the navigation of a child frame an action was recorded as causing (it may
    /// move the frame to another process), then checks where the frame went.
    async fn follow_frame_navigation(
        &self,
        page: &Page,
        frame: &str,
        mark: &NavMark,
        expected: &ExpectedNavigation,
    ) -> Result<String, Failure> {
        let deadline = Instant::now() + self.options.candidate_timeout;
        let mut changes = page.changes();
        while !page.navigation_began(frame, mark) {
            if !wait_change(&mut changes, deadline).await {
                return Err(Failure::new(format!(
                    "expected the frame to navigate{}, but it stayed at {:?}",
                    describe_expected(expected),
                    page.frame_state(frame).map(|f| f.url).unwrap_or_default()
                )));
            }
        }
        if !page
            .wait_navigation_settled(frame, mark, self.options.navigation_timeout)
            .await
        {
            return Err(Failure::new(format!(
                "the frame navigation started by this step did not finish within {} ms",
                self.options.navigation_timeout.as_millis()
            )));
        }
        let url = page.frame_state(frame).map(|f| f.url).unwrap_or_default();
        if let Some(pattern) = &expected.url
            && !glob_match(pattern, &url)
        {
            return Err(Failure::new(format!(
                "expected the frame to navigate to url {pattern:?}, but it is at {url:?}"
            )));
        }
        Ok(url)
    }

    async fn follow_popup(&self, opener: &Page, before: usize) -> Result<Page, Failure> {
        let deadline = Instant::now() + self.options.navigation_timeout;
        let mut changes = opener.popup_changes();
        let target = loop {
            if let Some(target) = opener.popups_opened().get(before) {
                break target.clone();
            }
            if !wait_change(&mut changes, deadline).await {
                return Err(Failure::new(
                    "the step was expected to open a popup, but none opened",
                ));
            }
        };
        let popup = self
            .context
            .attach_page(&target)
            .await
            .map_err(|e| Failure::new(format!("could not attach to the popup: {e}")))?;
        popup.prewarm_worlds(&resolver_install());
        wait_loaded(&popup, deadline).await?;
        let _ = popup.bring_to_front().await;
        Ok(popup)
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

/// Why a step failed, and which candidate had been found when it did.
struct Failure {
    message: String,
    winner: Option<usize>,
}

impl Failure {
    fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            winner: None,
        }
    }

    fn with_winner(mut self, winner: usize) -> Self {
        self.winner = Some(winner);
        self
    }
}

fn winning(step: &Step, index: usize) -> Option<WinningSelector> {
    let candidate = step.selector()?.candidates.get(index)?;
    Some(WinningSelector {
        index,
        kind: candidate.kind,
        description: candidate.describe(),
    })
}

fn millis(d: Duration) -> f64 {
    (d.as_secs_f64() * 1000.0 * 100.0).round() / 100.0
}

fn point_of(found: &Resolved) -> Result<(f64, f64), Failure> {
    found
        .point
        .ok_or_else(|| Failure::new("the element has no action point").with_winner(found.winner))
}

/// A failure message that names every candidate tried and what each last looked like.
fn explain(failure: ResolveFailure, shown: &Selector, budget: Duration) -> Failure {
    let frame = shown
        .frame
        .as_ref()
        .map(|f| format!(" in {}", describe_frame(f)))
        .unwrap_or_default();
    match failure {
        ResolveFailure::Timeout { states } => {
            let mut message = format!(
                "no selector candidate was actionable{frame} within {} ms; tried:",
                budget.as_millis()
            );
            for (i, candidate) in shown.candidates.iter().enumerate() {
                let state = states.get(i).map(String::as_str).unwrap_or("not checked");
                message.push_str(&format!(
                    "\n  {}. {}: {}",
                    i + 1,
                    candidate.describe(),
                    state
                ));
            }
            Failure::new(message)
        }
        ResolveFailure::FrameNotFound { frame, seen } => {
            let seen = if seen.is_empty() {
                "the page has no frames".to_string()
            } else {
                format!("frames on the page: {}", seen.join("; "))
            };
            let candidates: Vec<String> = shown
                .candidates
                .iter()
                .enumerate()
                .map(|(i, c)| format!("\n  {}. {}: not tried", i + 1, c.describe()))
                .collect();
            Failure::new(format!(
                "no {frame} appeared within {} ms ({seen}); candidates:{}",
                budget.as_millis(),
                candidates.concat()
            ))
        }
        ResolveFailure::Fatal { winner, message } => {
            let which = winner
                .and_then(|i| shown.candidates.get(i).map(|c| (i, c)))
                .map(|(i, c)| format!(" (candidate {}. {})", i + 1, c.describe()))
                .unwrap_or_default();
            Failure {
                message: format!("{message}{which}"),
                winner,
            }
        }
    }
}

fn describe_expected(expected: &ExpectedNavigation) -> String {
    let mut parts = Vec::new();
    if let Some(url) = &expected.url {
        parts.push(format!(" to url {url:?}"));
    }
    if let Some(title) = &expected.title {
        parts.push(format!(" with title {title:?}"));
    }
    parts.concat()
}

/// Checks where a navigation went; a title that does not match yet gets until the document's
/// `load` (at most `load_wait`).
async fn check_navigation(
    page: &Page,
    expected: &ExpectedNavigation,
    load_wait: Duration,
) -> Result<(), Failure> {
    let url = page.url();
    if let Some(pattern) = &expected.url
        && !glob_match(pattern, &url)
    {
        return Err(Failure::new(format!(
            "expected navigation to url {pattern:?}, but the page is at {url:?}"
        )));
    }
    if let Some(pattern) = &expected.title {
        let read_title = || async { page.title().await.map_err(|e| Failure::new(e.to_string())) };
        let mut title = match page.parsed_title() {
            Some(title) => title,
            None => read_title().await?,
        };
        // The title is read once the document is parsed; a page that sets it from a `load`
        // handler gets until its load to do so.
        if !glob_match(pattern, &title) && page.wait_loaded(page.target_id(), load_wait).await {
            title = read_title().await?;
        }
        if !glob_match(pattern, &title) {
            return Err(Failure::new(format!(
                "expected navigation to a page titled {pattern:?}, but the title is {title:?} (at {url:?})"
            )));
        }
    }
    Ok(())
}

/// One round trip through the page's renderer after an action, so that navigation events the
/// action caused have reached us. Returns true when the document is already gone.
async fn settle(page: &Page) -> bool {
    // A zero-delay timer runs after tasks the action queued (a form submission is queued, not
    // run inside the key or click handler).
    let ctx = page.main_world();
    matches!(
        page.evaluate(&ctx, "new Promise(r => setTimeout(r, 0))", true)
            .await,
        Err(EvalError::Navigated)
    )
}

async fn press_key(
    page: &Page,
    definition: &browserflow_cdp::page::keys::KeyDefinition,
    modifiers: &[Modifier],
) -> Result<(), CdpError> {
    let mut events = Vec::new();
    let mut held: Vec<Modifier> = Vec::new();
    for modifier in modifiers {
        held.push(*modifier);
        if let Some(def) = key_definition(modifier_key(*modifier)) {
            events.push(key_events(&def, &held).0);
        }
    }
    let (down, up) = key_events(definition, modifiers);
    events.extend([down, up]);
    for modifier in modifiers.iter().rev() {
        held.pop();
        if let Some(def) = key_definition(modifier_key(*modifier)) {
            events.push(key_events(&def, &held).1);
        }
    }
    page.key_events(events).await
}

fn modifier_key(modifier: Modifier) -> &'static str {
    match modifier {
        Modifier::Alt => "Alt",
        Modifier::Control => "Control",
        Modifier::Meta => "Meta",
        Modifier::Shift => "Shift",
    }
}

/// The title after the next animation frame (so a polling loop advances with the page).
async fn next_frame_title(page: &Page) -> String {
    let ctx = page.main_world();
    page.evaluate(
        &ctx,
        "new Promise(r => { let d = false; const f = () => { if (!d) { d = true; r(document.title); } }; \
         requestAnimationFrame(f); setTimeout(f, 50); })",
        true,
    )
    .await
    .ok()
    .and_then(|v| v.as_str().map(str::to_string))
    .unwrap_or_default()
}

async fn wait_for_expression(
    page: &Page,
    expression: &str,
    budget: Duration,
) -> Result<(), Failure> {
    let deadline = Instant::now() + budget;
    loop {
        let remaining = deadline.saturating_duration_since(Instant::now());
        let script = format!(
            "(async () => {{ const deadline = performance.now() + {ms}; let last = null;
              for (;;) {{
                try {{ if (await ({expression}\n)) return {{ ok: true }}; last = null; }}
                catch (e) {{ last = String(e && e.message || e); }}
                if (performance.now() >= deadline) return {{ ok: false, last }};
                await new Promise(r => {{ let d = false; const f = () => {{ if (!d) {{ d = true; r(); }} }};
                  requestAnimationFrame(f); setTimeout(f, 50); }});
              }} }})()",
            ms = remaining.as_millis()
        );
        let ctx = page.main_world();
        match page.evaluate(&ctx, &script, true).await {
            Ok(v) if v["ok"] == true => return Ok(()),
            Ok(v) => {
                let last = v["last"]
                    .as_str()
                    .map(|l| format!(" (last error: {l})"))
                    .unwrap_or_default();
                return Err(Failure::new(format!(
                    "the expression did not become truthy within {} ms{last}",
                    budget.as_millis()
                )));
            }
            Err(EvalError::Navigated) if Instant::now() < deadline => {
                let mut changes = page.changes();
                let _ = wait_change(&mut changes, deadline).await;
            }
            Err(e) => return Err(Failure::new(format!("the expression failed: {e}"))),
        }
    }
}

/// Waits until a freshly attached page has loaded a real document.
async fn wait_loaded(page: &Page, deadline: Instant) -> Result<(), Failure> {
    const LOADED_JS: &str = "new Promise(r => { \
        const done = () => r(location.href); \
        if (document.readyState === 'complete' && location.href !== 'about:blank') done(); \
        else addEventListener('load', done, { once: true }); })";
    loop {
        let remaining = deadline.saturating_duration_since(Instant::now());
        let ctx = page.main_world();
        match tokio::time::timeout(remaining, page.evaluate(&ctx, LOADED_JS, true)).await {
            Ok(Ok(_)) => return Ok(()),
            Ok(Err(EvalError::Navigated)) => continue,
            Ok(Err(e)) => return Err(Failure::new(format!("the popup did not load: {e}"))),
            Err(_) => {
                return Err(Failure::new(format!(
                    "the popup did not finish loading (at {:?})",
                    page.url()
                )));
            }
        }
    }
}
