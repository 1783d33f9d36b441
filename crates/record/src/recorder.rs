//! The live recording: the [`Recorder`] API (start, step stream, picks, marks, file choosers,
//! model selector suggestions, stop), the state it shares with the event loop
//! (`event_loop.rs`, which follows the typed events the engine publishes for every recorded
//! page), and the [`Builder`] of steps.

use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures::stream::{SelectAll, Stream};
use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio::task::JoinHandle;

use super::capture::Builder;
use super::draft::{Draft, OutputMark};
use super::event_loop::{install, prepare_dialogs, run, tagged};
use super::model_assist::{ModelAssist, SelectorSuggestion};
use super::{
    DialogAnswers, MAIN_PAGE, PickedElement, RecordError, RecordEvent, RecordOptions, RecordedStep,
};
use browserflow_cdp::downloads::allow_downloads;
use browserflow_cdp::launch::{Browser, BrowserConfig, BrowserContext};
use browserflow_cdp::page::{Page, PageEvent};
use browserflow_cdp::session::CdpConnection;
use browserflow_steps::{ExtractStep, Step};

/// The isolated world the recorder script lives in: page scripts cannot see or disturb it.
pub(super) const WORLD: &str = "__browserflow_recorder";
/// The binding the script reports through.
pub(super) const BINDING: &str = "__bflow_record";
const RECORDER_JS: &str = include_str!("js/recorder.js");
use browserflow_cdp::injected::RESOLVE_JS;

pub(super) fn recorder_source() -> String {
    RECORDER_JS.replace("__RESOLVE__", RESOLVE_JS.trim().trim_end_matches(';'))
}

/// The typed events of one recorded page, tagged with its name.
pub(super) type EventStream = Pin<Box<dyn Stream<Item = (String, PageEvent)> + Send>>;

/// A recording in progress. Drive the page (a person, or trusted CDP input in tests), watch
/// [`Recorder::subscribe`], then [`Recorder::stop`] to get the [`Draft`].
pub struct Recorder {
    shared: Arc<Shared>,
    control: mpsc::UnboundedSender<Control>,
    task: Option<JoinHandle<()>>,
    context: Option<Arc<BrowserContext>>,
    page: Page,
    browser: Option<Browser>,
    draft: Draft,
    /// The default download folder, removed when the recorder is dropped.
    _download_tmp: Option<tempfile::TempDir>,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("start_url", &self.draft.start_url)
            .finish_non_exhaustive()
    }
}

pub(super) struct Shared {
    pub(super) builder: Mutex<Builder>,
    pub(super) events: broadcast::Sender<RecordEvent>,
    pub(super) changed: watch::Sender<u64>,
    pub(super) closed: watch::Sender<bool>,
    pub(super) pages: Mutex<Vec<(String, Page)>>,
    /// The recorder's worlds, one per live document of every recorded frame.
    pub(super) worlds: Mutex<Vec<World>>,
    pub(super) pick: Mutex<Option<oneshot::Sender<PickedElement>>>,
    pub(super) thumbnails: bool,
    /// Who answers JavaScript dialogs.
    pub(super) dialogs: DialogAnswers,
    /// Where downloads go (files named by GUID until they finish).
    pub(super) download_dir: PathBuf,
    /// The id of the last file chooser request.
    pub(super) choosers: AtomicU64,
}

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    pub(super) fn emit(&self, events: Vec<RecordEvent>) {
        if events.is_empty() {
            return;
        }
        for event in events {
            let _ = self.events.send(event);
        }
        self.bump();
    }

    pub(super) fn bump(&self) {
        self.changed.send_modify(|v| *v = v.wrapping_add(1));
    }

    pub(super) fn page(&self, name: &str) -> Option<Page> {
        lock(&self.pages)
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p.clone())
    }

    pub(super) fn frames_of(&self, name: &str) -> Vec<(String, String)> {
        self.page(name)
            .map(|p| {
                p.frames()
                    .into_iter()
                    .map(|(_, f)| (f.name, f.url))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// One recorder world: a document of a frame of a recorded page.
#[derive(Debug, Clone)]
pub(super) struct World {
    pub(super) page: String,
    pub(super) session: Option<String>,
    pub(super) context_id: i64,
    /// Chromium's unique id of the context, which its destruction names.
    pub(super) unique_id: String,
    pub(super) frame_id: String,
    pub(super) top: bool,
}

pub(super) enum Control {
    Watch(EventStream),
    Flush(oneshot::Sender<()>),
}

impl Recorder {
    /// Launches Chromium (or connects to `browser_ws`) and starts recording at
    /// `options.start_url`. The browser is closed by [`Recorder::stop`].
    pub async fn start(options: RecordOptions) -> Result<Recorder, RecordError> {
        let config = BrowserConfig {
            chrome_path: options.chrome.clone(),
            ws_endpoint: options.browser_ws.clone(),
            headless: !options.headed,
            ..BrowserConfig::default()
        };
        let browser = Browser::launch(&config).await?;
        let mut recorder = Recorder::start_on(&browser, &options).await?;
        recorder.browser = Some(browser);
        Ok(recorder)
    }

    /// Starts recording in a new, isolated context of a browser the caller launched (the
    /// browser stays the caller's; `headed`, `chrome` and `browser_ws` are not used).
    pub async fn start_on(
        browser: &Browser,
        options: &RecordOptions,
    ) -> Result<Recorder, RecordError> {
        let context = Arc::new(browser.new_context().await?);
        let page = context.page().clone();
        let conn = page.session().connection().clone();
        let (download_dir, download_tmp) = match &options.download_dir {
            Some(dir) => (dir.clone(), None),
            None => {
                let tmp = tempfile::Builder::new()
                    .prefix("browserflow-recording-")
                    .tempdir()
                    .map_err(|e| RecordError::Install {
                        what: "the download folder".into(),
                        message: e.to_string(),
                    })?;
                (tmp.path().to_path_buf(), Some(tmp))
            }
        };
        allow_downloads(&conn, context.id(), &download_dir)
            .await
            .map_err(|message| RecordError::Install {
                what: "the download folder".into(),
                message,
            })?;
        let (events, _) = broadcast::channel(1024);
        let shared = Arc::new(Shared {
            builder: Mutex::new(Builder::new()),
            events,
            changed: watch::channel(0).0,
            closed: watch::channel(false).0,
            pages: Mutex::new(vec![(MAIN_PAGE.to_string(), page.clone())]),
            worlds: Mutex::default(),
            pick: Mutex::default(),
            thumbnails: options.thumbnails,
            dialogs: options.dialog_answers(),
            download_dir,
            choosers: AtomicU64::new(0),
        });
        let (control, incoming) = mpsc::unbounded_channel();
        let browser_events = context.subscribe_browser();
        let mut streams: SelectAll<EventStream> = SelectAll::new();
        streams.push(tagged(MAIN_PAGE.to_string(), page.subscribe()));
        let task = tokio::spawn(run(
            shared.clone(),
            conn.clone(),
            context.clone(),
            streams,
            browser_events,
            incoming,
            control.clone(),
        ));
        install(page.session())
            .await
            .map_err(|message| RecordError::Install {
                what: "the start page".into(),
                message,
            })?;
        prepare_dialogs(&page, shared.dialogs);
        let draft = Draft::new(options.start_url.clone(), options.viewport);
        let events = lock(&shared.builder).start(&options.start_url, options.viewport);
        shared.emit(events);
        if let Some((w, h)) = options.viewport {
            page.set_viewport(w, h, 1.0, false)
                .await
                .map_err(|e| RecordError::StartPage {
                    url: options.start_url.clone(),
                    message: format!("setting the viewport failed: {e}"),
                })?;
        }
        page.navigate(&options.start_url, Duration::from_secs(30))
            .await
            .map_err(|e| RecordError::StartPage {
                url: options.start_url.clone(),
                message: e.to_string(),
            })?;
        Ok(Recorder {
            shared,
            control,
            task: Some(task),
            context: Some(context),
            page,
            browser: None,
            draft,
            _download_tmp: download_tmp,
        })
    }

    /// The live step stream.
    pub fn subscribe(&self) -> broadcast::Receiver<RecordEvent> {
        self.shared.events.subscribe()
    }

    /// The steps recorded so far.
    pub fn steps(&self) -> Vec<RecordedStep> {
        lock(&self.shared.builder).steps.clone()
    }

    /// The recorded page (the first page of the recording).
    pub fn page(&self) -> &Page {
        &self.page
    }

    /// True once the recorded window is closed or the browser is gone.
    pub fn is_closed(&self) -> bool {
        *self.shared.closed.borrow()
    }

    /// Resolves when the recorded window is closed or the browser is gone.
    pub async fn wait_closed(&self) {
        let mut closed = self.shared.closed.subscribe();
        let _ = closed.wait_for(|c| *c).await;
    }

    /// Waits until `done(steps)` holds (checked after every change), at most `timeout`.
    /// Returns whether it held.
    pub async fn wait_until(
        &self,
        timeout: Duration,
        mut done: impl FnMut(&[RecordedStep]) -> bool,
    ) -> bool {
        let mut changes = self.shared.changed.subscribe();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            if done(&lock(&self.shared.builder).steps) {
                return true;
            }
            match tokio::time::timeout_at(deadline, changes.changed()).await {
                Ok(Ok(())) => {}
                _ => return false,
            }
        }
    }

    /// Puts every frame in picking mode: the next click is not performed but picks its element
    /// (outlined under the pointer), returned with ranked, live-checked candidates.
    pub async fn pick_element(&self) -> Result<PickedElement, RecordError> {
        let (tx, rx) = oneshot::channel();
        *lock(&self.shared.pick) = Some(tx);
        self.in_every_world("window.__bflowRecorder && window.__bflowRecorder.pick(true)")
            .await;
        let picked = rx.await.map_err(|_| RecordError::Closed)?;
        self.in_every_world("window.__bflowRecorder && window.__bflowRecorder.pick(false)")
            .await;
        Ok(picked)
    }

    /// Describes the element `css` finds in the top frame of `page` (`main` or a popup), with
    /// ranked, live-checked candidates: how outputs given by selector become robust.
    pub async fn element(&self, page: &str, css: &str) -> Result<PickedElement, RecordError> {
        let no_element = |message: String| RecordError::NoElement {
            selector: css.to_string(),
            page: page.to_string(),
            message,
        };
        let expression = format!(
            "window.__bflowRecorder.describeCss({})",
            serde_json::to_string(css).unwrap_or_default()
        );
        // The element may still be arriving (a page loading, a popup opening): wait for it,
        // within a bound.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        let mut changes = self.shared.changed.subscribe();
        let conn = self.page.session().connection().clone();
        loop {
            let world = lock(&self.shared.worlds)
                .iter()
                .rev()
                .find(|w| w.page == page && w.top)
                .cloned();
            let attempt = match world {
                None => Err("the page has no recorder yet (is it open?)".to_string()),
                Some(world) => evaluate_in(&conn, &world, &expression)
                    .await
                    .and_then(|value| {
                        Builder::picked(page, value, &self.shared.frames_of(page))
                            .ok_or_else(|| "no candidate identifies the element alone".to_string())
                    }),
            };
            match attempt {
                Ok(picked) => return Ok(picked),
                Err(message) => {
                    if message.contains("SyntaxError") || message.contains("not a valid selector") {
                        return Err(no_element(message));
                    }
                    let wait = tokio::time::timeout_at(deadline, changes.changed());
                    // Re-check on every recorder change, and at least every animation-ish tick
                    // while a document settles.
                    let tick = tokio::time::sleep(Duration::from_millis(50));
                    tokio::select! {
                        r = wait => if !matches!(r, Ok(Ok(()))) { return Err(no_element(message)); },
                        _ = tick => if tokio::time::Instant::now() >= deadline { return Err(no_element(message)); },
                    }
                }
            }
        }
    }

    /// Waits until the recorder runs in a frame of `page` whose URL contains `url_part` (the
    /// top frame or an iframe, out-of-process ones included). Returns whether it does.
    pub async fn wait_frame_ready(&self, page: &str, url_part: &str, timeout: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        let mut changes = self.shared.changed.subscribe();
        loop {
            let ready = match self.shared.page(page) {
                None => false,
                Some(handle) => lock(&self.shared.worlds).iter().any(|w| {
                    w.page == page
                        && handle
                            .frame_state(&w.frame_id)
                            .is_some_and(|f| f.url.contains(url_part))
                }),
            };
            if ready {
                return true;
            }
            let tick = tokio::time::sleep(Duration::from_millis(50));
            tokio::select! {
                r = tokio::time::timeout_at(deadline, changes.changed()) => if !matches!(r, Ok(Ok(()))) { return false; },
                _ = tick => if tokio::time::Instant::now() >= deadline { return false; },
            }
        }
    }

    /// Adds an output now: an extract step at the current end of the recording, on the page
    /// the element is on. Returns its index.
    pub fn mark_output(&self, mark: OutputMark) -> Result<usize, RecordError> {
        let mut builder = lock(&self.shared.builder);
        let mut draft = Draft::new(self.draft.start_url.clone(), None);
        draft.steps = builder.steps.clone();
        if draft.output_fields().contains(&mark.name) {
            return Err(RecordError::Name(format!(
                "there is already an output named `{}`",
                mark.name
            )));
        }
        let page = mark
            .page
            .clone()
            .unwrap_or_else(|| builder.current_page().to_string());
        let step = Step::Extract(ExtractStep {
            label: Some(format!("Read {}", mark.name)),
            selector: mark.selector.clone(),
            from: mark.from,
            attribute: mark.attribute.clone(),
            field: mark.name.clone(),
            kind: mark.kind,
            currency_field: mark.currency_field.clone(),
            timeout_ms: None,
        });
        let index = builder.steps.len();
        step.validate()
            .map_err(|message| RecordError::Mark { index, message })?;
        if page != builder.current_page() {
            return Err(RecordError::Mark {
                index,
                message: format!(
                    "the element is on the {page} page, but the recording is on the {} page",
                    builder.current_page()
                ),
            });
        }
        let best = mark.selector.candidates.first().map(|c| c.describe());
        let url = self.shared.page(&page).map(|p| p.url()).unwrap_or_default();
        let event = builder.append(RecordedStep {
            step,
            description: format!("Read {} into `{}`", mark.from.as_str(), mark.name),
            target: best.clone(),
            best_selector: best,
            page,
            url,
            recorded_value: None,
            secret: false,
            thumbnail_png: None,
            download: None,
        });
        drop(builder);
        self.shared.emit(vec![event]);
        Ok(index)
    }

    /// Answers the oldest open file chooser with `paths` (each must be an existing file): the
    /// files are set on its input and the click that opened it becomes an `upload` step.
    /// Returns the index of that step, or `None` when the chooser was not opened by a
    /// recorded click.
    pub async fn answer_file_chooser(
        &self,
        paths: &[PathBuf],
    ) -> Result<Option<usize>, RecordError> {
        let files = paths
            .iter()
            .map(|p| {
                let meta = std::fs::metadata(p)
                    .map_err(|e| RecordError::FileChooser(format!("{}: {e}", p.display())))?;
                if !meta.is_file() {
                    return Err(RecordError::FileChooser(format!(
                        "{} is not a file",
                        p.display()
                    )));
                }
                std::path::absolute(p)
                    .map(|a| a.to_string_lossy().into_owned())
                    .map_err(|e| RecordError::FileChooser(format!("{}: {e}", p.display())))
            })
            .collect::<Result<Vec<String>, RecordError>>()?;
        let chooser = lock(&self.shared.builder)
            .take_chooser(None)
            .ok_or(RecordError::NoFileChooser)?;
        if !chooser.request.multiple && files.len() > 1 {
            lock(&self.shared.builder).put_back_chooser(chooser);
            return Err(RecordError::FileChooser(format!(
                "the chooser takes one file, not {}",
                files.len()
            )));
        }
        // The input's `change` may be reported before the call returns: it is not a step.
        lock(&self.shared.builder).expect_files(&files);
        let conn = self.page.session().connection();
        conn.session(chooser.request.session.clone())
            .call(
                "DOM.setFileInputFiles",
                json!({ "files": files, "backendNodeId": chooser.request.backend_node_id }),
            )
            .await
            .map_err(|e| {
                lock(&self.shared.builder).expect_files(&[]);
                RecordError::FileChooser(e.to_string())
            })?;
        let event = lock(&self.shared.builder).chooser_answered(&chooser, files);
        let index = match &event {
            Some(RecordEvent::StepUpdated { index, .. }) => Some(*index),
            _ => None,
        };
        self.shared.emit(event.into_iter().collect());
        Ok(index)
    }

    /// Asks the model for a better selector for the step at `index` (whose element must still
    /// be on the page). The suggestion is checked in the live page with the replayer's
    /// resolver: only when it matches exactly one element, the recorded one, is it added to
    /// the step's candidates, where its kind ranks. The call and its outcome are kept in the
    /// recording's metadata either way.
    pub async fn suggest_selector(
        &self,
        assist: &ModelAssist,
        index: usize,
    ) -> Result<SelectorSuggestion, RecordError> {
        let mark = |message: String| RecordError::Mark { index, message };
        let (recorded, token) = {
            let builder = lock(&self.shared.builder);
            let len = builder.steps.len();
            let recorded = builder
                .steps
                .get(index)
                .cloned()
                .ok_or(RecordError::NoSuchStep { index, len })?;
            (recorded, builder.token_of(index))
        };
        let selector = recorded
            .step
            .selector()
            .cloned()
            .ok_or_else(|| mark(format!("a {} step has no element", recorded.step.kind())))?;
        let token =
            token.ok_or_else(|| mark("the recording does not know the step's element".into()))?;
        let token_json = serde_json::to_string(&token).unwrap_or_default();
        let outline = self
            .in_page_worlds(
                &recorded.page,
                &format!("window.__bflowRecorder.outline({token_json})"),
            )
            .await
            .map_err(mark)?;
        let (mut call, answer) = assist
            .ask_selector(
                &recorded.description,
                &selector.candidates,
                outline["html"].as_str().unwrap_or_default(),
            )
            .await?;
        let mut suggestion = SelectorSuggestion {
            candidate: answer.as_ref().ok().cloned(),
            position: None,
            rejected: None,
        };
        match answer {
            Err(reason) => suggestion.rejected = Some(reason),
            Ok(candidate) => {
                let candidate_json = serde_json::to_string(&candidate).unwrap_or_default();
                let checked = self
                    .in_page_worlds(
                        &recorded.page,
                        &format!("window.__bflowRecorder.checkFor({token_json}, {candidate_json})"),
                    )
                    .await;
                let count = checked
                    .as_ref()
                    .map_or(0, |v| v["count"].as_u64().unwrap_or(0));
                let hits = checked.as_ref().is_ok_and(|v| v["target"] == true);
                suggestion.rejected = match checked {
                    Err(message) => Some(message),
                    Ok(_) if count == 0 => Some("it matches no element".into()),
                    Ok(_) if count > 1 => {
                        Some(format!("it is not unique: it matches {count} elements"))
                    }
                    Ok(_) if !hits => Some("it matches another element".into()),
                    Ok(_) => None,
                };
                if suggestion.rejected.is_none() {
                    let added = lock(&self.shared.builder).add_candidate(index, candidate);
                    if let Some((at, event)) = added {
                        suggestion.position = Some(at);
                        self.shared.emit(vec![event]);
                    }
                }
            }
        }
        call.outcome = Some(match (&suggestion.position, &suggestion.rejected) {
            (Some(at), _) => format!("added to step {} as candidate {}", index + 1, at + 1),
            (None, Some(reason)) => format!("rejected for step {}: {reason}", index + 1),
            (None, None) => format!("rejected for step {}", index + 1),
        });
        lock(&self.shared.builder).model_calls.push(call);
        Ok(suggestion)
    }

    /// Evaluates `expression` in the recorder worlds of `page` until one answers without an
    /// `error`; the last error otherwise.
    async fn in_page_worlds(&self, page: &str, expression: &str) -> Result<Value, String> {
        let worlds: Vec<World> = lock(&self.shared.worlds)
            .iter()
            .filter(|w| w.page == page)
            .cloned()
            .collect();
        let conn = self.page.session().connection();
        let mut last = format!("the {page} page has no recorder");
        for world in worlds {
            match evaluate_in(conn, &world, expression).await {
                Ok(value) => return Ok(value),
                Err(error) => last = error,
            }
        }
        Err(last)
    }

    async fn in_every_world(&self, expression: &str) {
        let worlds = lock(&self.shared.worlds).clone();
        let conn = self.page.session().connection();
        for world in worlds {
            let _ = conn
                .session(world.session)
                .call(
                    "Runtime.evaluate",
                    json!({ "expression": expression, "contextId": world.context_id }),
                )
                .await;
        }
    }

    /// Ends the recording: every event already sent by the page is taken into account, the
    /// recording context is disposed (and a browser launched by [`Recorder::start`] closed),
    /// and the steps and automatic secret inputs are returned as a [`Draft`].
    pub async fn stop(mut self) -> Result<Draft, RecordError> {
        if !self.is_closed() {
            // A round trip through each recorded page: every event it sent before is routed.
            let pages = lock(&self.shared.pages).clone();
            for (_, page) in pages {
                if !page.is_closed() {
                    let _ = tokio::time::timeout(
                        Duration::from_secs(2),
                        page.session()
                            .call("Runtime.evaluate", json!({ "expression": "0" })),
                    )
                    .await;
                }
            }
        }
        let (tx, rx) = oneshot::channel();
        if self.control.send(Control::Flush(tx)).is_ok() {
            let _ = tokio::time::timeout(Duration::from_secs(2), rx).await;
        }
        if let Some(task) = self.task.take() {
            task.abort();
            let _ = task.await;
        }
        let builder = std::mem::take(&mut *lock(&self.shared.builder));
        let mut draft = std::mem::replace(&mut self.draft, Draft::new("", None));
        draft.steps = builder.steps;
        draft.inputs = builder.inputs;
        draft.model_calls.extend(builder.model_calls);
        lock(&self.shared.pages).clear();
        // Popup attach tasks may still hold the context for a moment; it is disposed when the
        // last holder drops it.
        if let Some(context) = self.context.take()
            && let Ok(context) = Arc::try_unwrap(context)
        {
            let _ = context.close().await;
        }
        if let Some(browser) = self.browser.take() {
            let _ = browser.close().await;
        }
        Ok(draft)
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// Evaluates `expression` in a recorder world and returns its value; a protocol error, a
/// thrown exception, or an answer with an `error` field is the error's text.
async fn evaluate_in(
    conn: &CdpConnection,
    world: &World,
    expression: &str,
) -> Result<Value, String> {
    let answer = conn
        .session(world.session.clone())
        .call(
            "Runtime.evaluate",
            json!({ "expression": expression, "contextId": world.context_id,
                    "awaitPromise": true, "returnByValue": true }),
        )
        .await
        .map_err(|e| e.to_string())?;
    if let Some(details) = answer.get("exceptionDetails") {
        return Err(details["exception"]["description"]
            .as_str()
            .or_else(|| details["text"].as_str())
            .unwrap_or("the script threw")
            .to_string());
    }
    let value = answer["result"]["value"].clone();
    match value["error"].as_str() {
        Some(error) => Err(error.to_string()),
        None => Ok(value),
    }
}
