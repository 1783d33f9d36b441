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
use serde_json::Value;
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio::task::JoinHandle;

use super::capture::Builder;
use super::draft::{Draft, OutputMark};
use super::event_loop::{install, prepare_dialogs, run, tagged};
use super::model_assist::{ModelAssist, SelectorSuggestion};
use super::{
    DialogAnswers, MAIN_PAGE, PickedElement, RecordError, RecordEvent, RecordOptions, RecordedStep,
};
use browserflow_cdp::commands::runtime;
use browserflow_cdp::downloads::allow_downloads;
use browserflow_cdp::launch::{Browser, BrowserConfig, BrowserContext};
use browserflow_cdp::page::{Page, PageEvent};
use browserflow_cdp::session::CdpConnection;

pub(super) mod key_listeners;
mod live_page;
mod thumbnails;

pub(crate) use thumbnails::capture_announced;
use thumbnails::{StepOnPage, ThumbnailRequest, Thumbnails};

/// The isolated world the recorder script lives in: page scripts cannot see or disturb it.
pub(super) const WORLD: &str = "__browserflow_recorder";
/// The binding the script reports through.
pub(super) const BINDING: &str = "__bflow_record";
/// The recorder script (`injected/src/recorder/recorder.ts`, bundled with the resolver's
/// modules by `scripts/build-injected`): installs itself in the world it is evaluated in.
const RECORDER_JS: &str = include_str!("../js/recorder.js");

pub(super) fn recorder_source() -> String {
    RECORDER_JS.to_string()
}

/// The typed events of one recorded page, tagged with its name.
pub(super) type EventStream = Pin<Box<dyn Stream<Item = (String, PageEvent)> + Send>>;

/// A recording in progress. Drive the page (a person, or trusted CDP input in tests), watch
/// [`Recorder::subscribe`], then [`Recorder::stop`] to get the [`Draft`].
pub struct Recorder {
    shared: Arc<Shared>,
    control: mpsc::UnboundedSender<Control>,
    task: Option<JoinHandle<()>>,
    /// The thumbnail task, when thumbnails are taken.
    thumbnail_task: Option<JoinHandle<()>>,
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
    /// The pick waiting for the person: `None` is sent when they cancel it.
    pub(super) pick: Mutex<Option<oneshot::Sender<Option<PickedElement>>>>,
    /// Where steps that need a thumbnail are sent, when thumbnails are taken.
    thumbnails: Option<Thumbnails>,
    /// Held (written) while an element is picked (its outline shows), and read by every
    /// thumbnail capture: no thumbnail shows the outline.
    pub(super) capture_gate: tokio::sync::RwLock<()>,
    /// Who answers JavaScript dialogs.
    pub(super) dialogs: DialogAnswers,
    /// Where downloads go (files named by GUID until they finish).
    pub(super) download_dir: PathBuf,
    /// The id of the last file chooser request.
    pub(super) choosers: AtomicU64,
    /// How many fields are being asked whether the page listens to their keys: the recording
    /// stops once every answer is in.
    pub(super) key_checks: watch::Sender<usize>,
    /// What the recorded pages sent and received, for each step's settle.
    pub(super) network: Mutex<crate::settle::NetworkLog>,
}

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    /// Sends `events` to subscribers, and asks for a thumbnail of every step they add or
    /// change.
    pub(super) fn emit(&self, events: Vec<RecordEvent>) {
        if let Some(thumbnails) = &self.thumbnails {
            for event in &events {
                let request = match event {
                    RecordEvent::StepAdded { index, step } => self
                        .step_on_page(*index, step)
                        .map(ThumbnailRequest::Appended),
                    RecordEvent::StepInserted { index, step }
                    | RecordEvent::StepUpdated { index, step } => self
                        .step_on_page(*index, step)
                        .map(ThumbnailRequest::Changed),
                    _ => None,
                };
                if let Some(request) = request {
                    thumbnails.request(request);
                }
            }
        }
        self.broadcast(events);
    }

    fn step_on_page(&self, index: usize, step: &RecordedStep) -> Option<StepOnPage> {
        let builder = lock(&self.builder);
        let serial = builder.serial_of(index)?;
        Some(StepOnPage::of(serial, step, builder.after_action_of(index)))
    }

    /// Sends `events` to subscribers.
    pub(super) fn broadcast(&self, events: Vec<RecordEvent>) {
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
            // A person drives a recording's browser and goes where they will: a browser
            // connected to is theirs, wherever it runs (a launched one is guarded anyway).
            unguarded_addresses: true,
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
        allow_downloads(&conn, Some(context.id()), &download_dir)
            .await
            .map_err(|message| RecordError::Install {
                what: "the download folder".into(),
                message,
            })?;
        let (events, _) = broadcast::channel(1024);
        let (thumbnails, start_thumbnails) = Thumbnails::start();
        let shared = Arc::new(Shared {
            builder: Mutex::new(Builder::new()),
            events,
            changed: watch::channel(0).0,
            closed: watch::channel(false).0,
            pages: Mutex::new(vec![(MAIN_PAGE.to_string(), page.clone())]),
            worlds: Mutex::default(),
            pick: Mutex::default(),
            thumbnails: options.thumbnails.then_some(thumbnails),
            capture_gate: tokio::sync::RwLock::new(()),
            dialogs: options.dialog_answers(),
            download_dir,
            choosers: AtomicU64::new(0),
            key_checks: watch::channel(0).0,
            network: Mutex::default(),
        });
        let thumbnail_task = options
            .thumbnails
            .then(|| start_thumbnails(Arc::downgrade(&shared)));
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
        page.enable_network()
            .await
            .map_err(|e| RecordError::Install {
                what: "network events of the start page".into(),
                message: e.to_string(),
            })?;
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
            thumbnail_task,
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

    /// The recording so far as a draft: what [`Recorder::stop`] would give now, less the last
    /// gesture's pending post-state and the waits attached at the end. A screen keeps it on
    /// disk while the person records, so that a crash or a closed app loses nothing.
    pub fn snapshot(&self) -> Draft {
        snapshot_of(&self.draft, &self.shared)
    }

    /// A handle that takes [`Recorder::snapshot`]s without holding the recorder: what keeps
    /// a recording on disk from its event stream, while [`Recorder::stop`] needs the recorder
    /// alone. It takes nothing once the recorder is gone.
    pub fn snapshots(&self) -> Snapshots {
        Snapshots {
            started: self.draft.clone(),
            shared: Arc::downgrade(&self.shared),
        }
    }

    /// The recorded page (the first page of the recording).
    pub fn page(&self) -> &Page {
        &self.page
    }

    /// The page recorded as `name` (`main`, or a popup's name as its steps say), once the
    /// recorder follows it.
    pub fn page_named(&self, name: &str) -> Option<Page> {
        self.shared.page(name)
    }

    /// The CDP endpoint (`ws://…`) of the browser a [`Recorder::start`] launched or connected
    /// to, for driving a headless recording from another program; `None` after
    /// [`Recorder::start_on`] (the browser is the caller's, who knows it).
    pub fn browser_endpoint(&self) -> Option<&str> {
        self.browser.as_ref().map(Browser::ws_endpoint)
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

    /// Ends the recording: every event already sent by the page is taken into account, the
    /// recording context is disposed (and a browser launched by [`Recorder::start`] closed),
    /// and the steps and automatic secret inputs are returned as a [`Draft`].
    pub async fn stop(mut self) -> Result<Draft, RecordError> {
        if !self.is_closed() {
            // The last gesture's post-state is read now, not after its delay: the page may
            // close with the recording.
            self.in_every_world_awaiting(
                "window.__bflowRecorder && window.__bflowRecorder.flush()",
                Duration::from_secs(2),
            )
            .await;
            // A round trip through each recorded page: every event it sent before is routed.
            let pages = lock(&self.shared.pages).clone();
            for (_, page) in pages {
                if !page.is_closed() {
                    let _ = tokio::time::timeout(
                        Duration::from_secs(2),
                        page.session().run(&runtime::Evaluate::new("0")),
                    )
                    .await;
                }
            }
        }
        let (tx, rx) = oneshot::channel();
        if self.control.send(Control::Flush(tx)).is_ok() {
            let _ = tokio::time::timeout(Duration::from_secs(2), rx).await;
        }
        // Whether the page listens to the keys of the last fields typed into.
        let mut key_checks = self.shared.key_checks.subscribe();
        let _ =
            tokio::time::timeout(Duration::from_secs(2), key_checks.wait_for(|n| *n == 0)).await;
        if let Some(task) = self.task.take() {
            task.abort();
            let _ = task.await;
        }
        self.finish_thumbnails().await;
        let mut builder = std::mem::take(&mut *lock(&self.shared.builder));
        builder.end_scrolls();
        crate::settle::attach(&lock(&self.shared.network), &mut builder);
        let mut draft = std::mem::replace(&mut self.draft, Draft::new("", None));
        draft.steps = builder.steps;
        draft.merge_fills();
        draft.inputs = builder.inputs;
        draft.model_calls.extend(builder.model_calls);
        draft.origins_seen.extend(builder.origins);
        draft.recorded_viewport = builder.viewport;
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

/// Takes snapshots of a recording (see [`Recorder::snapshots`]).
#[derive(Clone)]
pub struct Snapshots {
    started: Draft,
    shared: std::sync::Weak<Shared>,
}

impl Snapshots {
    /// The recording so far, as [`Recorder::snapshot`]; `None` once the recorder is gone.
    pub fn take(&self) -> Option<Draft> {
        self.shared
            .upgrade()
            .map(|shared| snapshot_of(&self.started, &shared))
    }
}

/// `started` (the draft as the recording began) with what `shared` recorded since.
fn snapshot_of(started: &Draft, shared: &Shared) -> Draft {
    let builder = lock(&shared.builder);
    let mut draft = started.clone();
    draft.steps = builder.steps.clone();
    draft.merge_fills();
    draft.inputs = builder.inputs.clone();
    draft
        .model_calls
        .extend(builder.model_calls.iter().cloned());
    draft.origins_seen.extend(builder.origins.iter().cloned());
    draft.recorded_viewport = builder.viewport;
    draft
}

impl Recorder {
    /// Takes the thumbnails still waiting (the last step's page is as it will stay), within
    /// a bound, and ends the thumbnail task.
    async fn finish_thumbnails(&mut self) {
        let Some(task) = self.thumbnail_task.take() else {
            return;
        };
        if let Some(thumbnails) = &self.shared.thumbnails {
            // The last step's page may have changed since its thumbnail (what loads late, an
            // overlay that went away): it left the page as the page is now.
            let last = {
                let builder = lock(&self.shared.builder);
                builder.steps.len().checked_sub(1).and_then(|index| {
                    let serial = builder.serial_of(index)?;
                    Some(StepOnPage::of(
                        serial,
                        &builder.steps[index],
                        builder.after_action_of(index),
                    ))
                })
            };
            if let Some(last) = last {
                thumbnails.request(ThumbnailRequest::Changed(last));
            }
            let (tx, rx) = oneshot::channel();
            if thumbnails.request(ThumbnailRequest::Flush(tx)) {
                let _ = tokio::time::timeout(Duration::from_secs(5), rx).await;
            }
        }
        task.abort();
        let _ = task.await;
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
        if let Some(task) = self.thumbnail_task.take() {
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
        .run(&runtime::Evaluate {
            await_promise: Some(true),
            return_by_value: Some(true),
            ..runtime::Evaluate::new(expression).in_context(world.context_id)
        })
        .await
        .map_err(|e| e.to_string())?;
    if let Some(details) = answer.exception_details {
        return Err(details.describe().unwrap_or("the script threw").to_string());
    }
    let value = answer.result.value.unwrap_or(Value::Null);
    match value["error"].as_str() {
        Some(error) => Err(error.to_string()),
        None => Ok(value),
    }
}
