//! The live recording: installs the recorder script in every frame and popup, follows the CDP
//! events of every session in one event loop, and keeps the [`Builder`] of steps.

use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures::stream::{SelectAll, Stream, StreamExt};
use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio::task::JoinHandle;

use super::capture::{Builder, Observed};
use super::draft::{Draft, OutputMark};
use super::{MAIN_PAGE, PickedElement, RecordError, RecordEvent, RecordOptions, RecordedStep};
use crate::cdp::{CdpConnection, CdpEvent, CdpSession};
use crate::launch::{Browser, BrowserConfig, BrowserContext};
use crate::page::{DialogResponse, Page};
use crate::steps::{ExtractStep, Step};

/// The isolated world the recorder script lives in: page scripts cannot see or disturb it.
const WORLD: &str = "__browserflow_recorder";
/// The binding the script reports through.
const BINDING: &str = "__bflow_record";
const RECORDER_JS: &str = include_str!("../js/recorder.js");
const RESOLVE_JS: &str = include_str!("../js/resolve.js");

fn recorder_source() -> String {
    RECORDER_JS.replace("__RESOLVE__", RESOLVE_JS.trim().trim_end_matches(';'))
}

type EventStream = Pin<Box<dyn Stream<Item = (String, Option<String>, CdpEvent)> + Send>>;

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
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("start_url", &self.draft.start_url)
            .finish_non_exhaustive()
    }
}

struct Shared {
    builder: Mutex<Builder>,
    events: broadcast::Sender<RecordEvent>,
    changed: watch::Sender<u64>,
    closed: watch::Sender<bool>,
    pages: Mutex<Vec<(String, Page)>>,
    /// The recorder's worlds, one per live document of every recorded frame.
    worlds: Mutex<Vec<World>>,
    pick: Mutex<Option<oneshot::Sender<PickedElement>>>,
    thumbnails: bool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    fn emit(&self, events: Vec<RecordEvent>) {
        if events.is_empty() {
            return;
        }
        for event in events {
            let _ = self.events.send(event);
        }
        self.bump();
    }

    fn bump(&self) {
        self.changed.send_modify(|v| *v = v.wrapping_add(1));
    }

    fn page(&self, name: &str) -> Option<Page> {
        lock(&self.pages)
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p.clone())
    }

    fn frames_of(&self, name: &str) -> Vec<(String, String)> {
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
struct World {
    page: String,
    session: Option<String>,
    context_id: i64,
    frame_id: String,
    top: bool,
}

enum Control {
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
        });
        let (control, incoming) = mpsc::unbounded_channel();
        let browser_events = conn.subscribe(None);
        let mut streams: SelectAll<EventStream> = SelectAll::new();
        streams.push(tagged(
            MAIN_PAGE.to_string(),
            page.session().id().map(str::to_string),
            page.session().subscribe(),
        ));
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
        // Dialogs are accepted while recording (OK is the path a journey usually takes); the
        // answer is recorded as a `handle_dialog` step and can be edited.
        page.arm_dialog(DialogResponse {
            accept: true,
            prompt_text: None,
        });
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

    /// A page of the recording by name (`main`, or a popup's name from [`RecordEvent::PageOpened`]).
    pub fn page_named(&self, name: &str) -> Option<Page> {
        self.shared.page(name)
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
                Some(world) => {
                    let answer = conn
                        .session(world.session.clone())
                        .call(
                            "Runtime.evaluate",
                            json!({ "expression": expression, "contextId": world.context_id,
                                    "awaitPromise": true, "returnByValue": true }),
                        )
                        .await;
                    match answer {
                        Err(e) => Err(e.to_string()),
                        Ok(answer) => {
                            if let Some(details) = answer.get("exceptionDetails") {
                                Err(details["exception"]["description"]
                                    .as_str()
                                    .unwrap_or("the selector is invalid")
                                    .to_string())
                            } else {
                                let value = answer["result"]["value"].clone();
                                match value["error"].as_str() {
                                    Some(error) => Err(error.to_string()),
                                    None => {
                                        Builder::picked(page, value, &self.shared.frames_of(page))
                                            .ok_or_else(|| {
                                                "no candidate identifies the element alone"
                                                    .to_string()
                                            })
                                    }
                                }
                            }
                        }
                    }
                }
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
        });
        drop(builder);
        self.shared.emit(vec![event]);
        Ok(index)
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

fn tagged(
    page: String,
    session: Option<String>,
    mut rx: mpsc::UnboundedReceiver<CdpEvent>,
) -> EventStream {
    Box::pin(futures::stream::poll_fn(move |cx| {
        rx.poll_recv(cx)
            .map(|e| e.map(|e| (page.clone(), session.clone(), e)))
    }))
}

/// Installs the recorder in a session: the binding, the script for every future document
/// (and, `runImmediately`, the documents already there), and Runtime events for the worlds.
async fn install(session: &CdpSession) -> Result<(), String> {
    let source = recorder_source();
    let (enable, binding, page) = futures::join!(
        session.call("Runtime.enable", json!({})),
        session.call(
            "Runtime.addBinding",
            json!({ "name": BINDING, "executionContextName": WORLD })
        ),
        session.call("Page.enable", json!({})),
    );
    enable.map_err(|e| e.to_string())?;
    binding.map_err(|e| e.to_string())?;
    page.map_err(|e| e.to_string())?;
    session
        .call(
            "Page.addScriptToEvaluateOnNewDocument",
            json!({ "source": source, "worldName": WORLD, "runImmediately": true }),
        )
        .await
        .map_err(|e| e.to_string())?;
    Ok(())
}

async fn run(
    shared: Arc<Shared>,
    conn: CdpConnection,
    context: Arc<BrowserContext>,
    mut streams: SelectAll<EventStream>,
    mut browser_events: mpsc::UnboundedReceiver<CdpEvent>,
    mut control: mpsc::UnboundedReceiver<Control>,
    control_tx: mpsc::UnboundedSender<Control>,
) {
    let mut loop_state = LoopState::default();
    loop {
        // Page events first: the socket routes events in the order the browser sent them, so
        // when a browser-level event (a popup's target) is ready, the page events sent before
        // it (the click that opened it) are ready too and are handled first.
        tokio::select! {
            biased;
            item = streams.next() => {
                let Some((page, session, event)) = item else { break };
                handle(&shared, &conn, &control_tx, &mut loop_state, &page, session, event);
            }
            event = browser_events.recv() => {
                let Some(event) = event else { break };
                browser_event(&shared, &context, &control_tx, &mut loop_state, &event);
            }
            message = control.recv() => match message {
                Some(Control::Watch(stream)) => streams.push(stream),
                Some(Control::Flush(done)) => {
                    while let Some(Some((page, session, event))) = futures::FutureExt::now_or_never(streams.next()) {
                        handle(&shared, &conn, &control_tx, &mut loop_state, &page, session, event);
                    }
                    while let Ok(event) = browser_events.try_recv() {
                        browser_event(&shared, &context, &control_tx, &mut loop_state, &event);
                    }
                    let _ = done.send(());
                }
                None => break,
            },
        }
        if *shared.closed.borrow() {
            break;
        }
    }
    if !*shared.closed.borrow() {
        shared.closed.send_replace(true);
        shared.emit(vec![RecordEvent::Closed]);
    }
}

#[derive(Default)]
struct LoopState {
    /// Pages whose main frame asked for a navigation that has not committed yet.
    requested: Vec<String>,
    popups: usize,
}

#[allow(clippy::too_many_arguments)]
fn handle(
    shared: &Arc<Shared>,
    conn: &CdpConnection,
    control: &mpsc::UnboundedSender<Control>,
    state: &mut LoopState,
    page: &str,
    session: Option<String>,
    event: CdpEvent,
) {
    let p = &event.params;
    let Some(page_handle) = shared.page(page) else {
        return;
    };
    let top_session = page_handle.session().id() == session.as_deref();
    let observe = |observed: Observed| {
        let frames = shared.frames_of(page);
        let events = lock(&shared.builder).observe(observed, &frames);
        maybe_thumbnails(shared, &page_handle, &events);
        shared.emit(events);
    };
    match event.method.as_str() {
        "Runtime.bindingCalled" if p["name"] == BINDING => {
            let Ok(payload) = serde_json::from_str::<Value>(p["payload"].as_str().unwrap_or(""))
            else {
                return;
            };
            match payload["type"].as_str() {
                Some("ready") => {}
                Some("pick") => {
                    let picked = Builder::picked(page, payload, &shared.frames_of(page));
                    if let Some(picked) = picked {
                        if let Some(tx) = lock(&shared.pick).take() {
                            let _ = tx.send(picked.clone());
                        }
                        shared.emit(vec![RecordEvent::Picked(Box::new(picked))]);
                    }
                }
                _ => observe(Observed::Script {
                    page: page.to_string(),
                    payload,
                }),
            }
        }
        "Runtime.executionContextCreated" if p["context"]["name"] == WORLD => {
            let id = p["context"]["id"].as_i64().unwrap_or_default();
            let frame = p["context"]["auxData"]["frameId"].as_str().unwrap_or("");
            let top = top_session && frame == page_handle.target_id();
            lock(&shared.worlds).push(World {
                page: page.to_string(),
                session,
                context_id: id,
                frame_id: frame.to_string(),
                top,
            });
            shared.bump();
        }
        "Runtime.executionContextDestroyed" => {
            let id = p["executionContextId"].as_i64().unwrap_or_default();
            lock(&shared.worlds).retain(|w| !(w.session == session && w.context_id == id));
            shared.bump();
        }
        "Runtime.executionContextsCleared" => {
            lock(&shared.worlds).retain(|w| w.session != session);
            shared.bump();
        }
        "Page.frameRequestedNavigation"
            if top_session
                && p["frameId"] == page_handle.target_id()
                && !state.requested.iter().any(|r| r == page) =>
        {
            state.requested.push(page.to_string());
        }
        "Page.frameNavigated"
            if top_session
                && p["frame"]["parentId"].is_null()
                && p["type"] != "BackForwardCacheRestore" =>
        {
            let before = state.requested.len();
            state.requested.retain(|r| r != page);
            observe(Observed::MainNavigated {
                page: page.to_string(),
                url: p["frame"]["url"].as_str().unwrap_or_default().to_string(),
                renderer_initiated: state.requested.len() != before,
            });
        }
        "Page.javascriptDialogOpening" => {
            // Keep one answer armed for the next dialog.
            page_handle.arm_dialog(DialogResponse {
                accept: true,
                prompt_text: None,
            });
            observe(Observed::DialogOpened {
                kind: p["type"].as_str().unwrap_or("alert").to_string(),
            });
        }
        "Page.javascriptDialogClosed" => observe(Observed::DialogClosed {
            page: page.to_string(),
            accepted: p["result"].as_bool().unwrap_or(false),
            user_input: p["userInput"].as_str().unwrap_or_default().to_string(),
        }),
        "Target.attachedToTarget" if p["targetInfo"]["type"] == "iframe" => {
            // An out-of-process iframe: record in it too (and in its own iframes).
            let child_id = p["sessionId"].as_str().unwrap_or_default().to_string();
            let child = conn.session(Some(child_id.clone()));
            let _ = control.send(Control::Watch(tagged(
                page.to_string(),
                Some(child_id),
                child.subscribe(),
            )));
            tokio::spawn(async move {
                if let Err(message) = install(&child).await {
                    tracing::debug!(%message, "could not install the recorder in an iframe");
                }
            });
        }
        "Inspector.detached" | "Inspector.targetCrashed" if top_session && page == MAIN_PAGE => {
            close(shared);
        }
        _ => {}
    }
}

fn browser_event(
    shared: &Arc<Shared>,
    context: &Arc<BrowserContext>,
    control: &mpsc::UnboundedSender<Control>,
    state: &mut LoopState,
    event: &CdpEvent,
) {
    let info = &event.params["targetInfo"];
    match event.method.as_str() {
        "Target.targetCreated" if info["type"] == "page" => {
            let opener = info["openerId"].as_str().unwrap_or_default();
            let target = info["targetId"].as_str().unwrap_or_default().to_string();
            let opener_name = lock(&shared.pages)
                .iter()
                .find(|(_, p)| p.target_id() == opener)
                .map(|(n, _)| n.clone());
            let Some(opener_name) = opener_name else {
                return;
            };
            state.popups += 1;
            let name = if state.popups == 1 {
                "popup".to_string()
            } else {
                format!("popup{}", state.popups)
            };
            let url = info["url"].as_str().unwrap_or_default().to_string();
            let events = lock(&shared.builder).observe(
                Observed::PopupOpened {
                    opener: opener_name,
                    name: name.clone(),
                    url,
                },
                &[],
            );
            shared.emit(events);
            let shared = shared.clone();
            let context = context.clone();
            let control = control.clone();
            tokio::spawn(async move {
                match context.attach_page(&target).await {
                    Ok(popup) => {
                        let _ = control.send(Control::Watch(tagged(
                            name.clone(),
                            popup.session().id().map(str::to_string),
                            popup.session().subscribe(),
                        )));
                        lock(&shared.pages).push((name.clone(), popup.clone()));
                        popup.arm_dialog(DialogResponse {
                            accept: true,
                            prompt_text: None,
                        });
                        if let Err(message) = install(popup.session()).await {
                            tracing::debug!(%message, "could not install the recorder in a popup");
                        }
                    }
                    Err(error) => tracing::debug!(%error, "could not attach to a popup"),
                }
            });
        }
        "Target.targetDestroyed" | "Target.detachedFromTarget" => {
            let target = event.params["targetId"].as_str().unwrap_or_default();
            let main = shared.page(MAIN_PAGE).map(|p| p.target_id().to_string());
            if main.as_deref() == Some(target) {
                close(shared);
            }
        }
        _ => {}
    }
}

fn close(shared: &Shared) {
    if !*shared.closed.borrow() {
        shared.closed.send_replace(true);
        if let Some(tx) = lock(&shared.pick).take() {
            drop(tx);
        }
        shared.emit(vec![RecordEvent::Closed]);
    }
}

fn maybe_thumbnails(shared: &Arc<Shared>, page: &Page, events: &[RecordEvent]) {
    if !shared.thumbnails {
        return;
    }
    for event in events {
        if let RecordEvent::StepAdded { index, .. } = event {
            let (shared, page, index) = (shared.clone(), page.clone(), *index);
            tokio::spawn(async move {
                let Ok(png) = page.screenshot_png().await else {
                    return;
                };
                let Ok(thumb) = crate::screenshot::thumbnail_png(&png, 240) else {
                    return;
                };
                let event = lock(&shared.builder).set_thumbnail(index, thumb);
                shared.emit(event.into_iter().collect());
            });
        }
    }
}
