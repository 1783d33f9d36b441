//! One page (CDP target) of a browser context: its sessions (including out-of-process iframes),
//! the navigation state of every frame, dialogs, popups, evaluation and real input events.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::watch;

use browserflow_steps::MouseButton;

use crate::error::BrowserError;
use crate::session::{CdpConnection, CdpError, CdpSession};

mod events;
pub mod keys;
mod worlds;

pub use events::PopupTracker;
use events::spawn_watcher;
use worlds::CachedWorld;

/// Name of the isolated JavaScript world the replayer evaluates in, so page scripts cannot
/// interfere with (or observe) the injected helpers.
const WORLD_NAME: &str = "__browserflow_utility";

/// What the page does with the next JavaScript dialog (alert, confirm, prompt, beforeunload).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DialogResponse {
    /// Accept (OK) or dismiss (Cancel).
    pub accept: bool,
    /// Text typed into a prompt before accepting.
    pub prompt_text: Option<String>,
}

/// A dialog that appeared and how it was answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DialogRecord {
    /// `alert`, `confirm`, `prompt` or `beforeunload`.
    pub kind: String,
    /// The dialog's message.
    pub message: String,
    /// Whether it was accepted.
    pub accepted: bool,
    /// The URL of the frame that opened it.
    pub url: String,
}

/// Navigation bookkeeping of one frame, fed by `Page.*` events.
#[derive(Debug, Clone, Default)]
pub struct FrameState {
    pub parent: Option<String>,
    pub url: String,
    pub name: String,
    pub loader_id: String,
    /// Lifecycle events (`DOMContentLoaded`, `load`, …) seen for `loader_id`.
    pub lifecycle: Vec<String>,
    pub loading: bool,
    pub requested: u64,
    pub started: u64,
    pub stopped: u64,
    pub committed: u64,
    pub same_document: u64,
    /// The flattened session that owns this frame (`None` = the page's own session).
    pub session: Option<String>,
    /// When the frame was first seen: siblings in attach order, for index paths.
    pub seq: u64,
}

impl FrameState {
    /// The current document fired `DOMContentLoaded`.
    pub fn parsed(&self) -> bool {
        self.lifecycle.iter().any(|l| l == "DOMContentLoaded")
    }

    /// The current document fired `load`, or the frame is not loading anything (a document
    /// that loaded before we were told of its lifecycle).
    pub fn loaded(&self) -> bool {
        self.lifecycle.iter().any(|l| l == "load") || !self.loading
    }
}

/// A point of a child frame, in the main frame's viewport ([`Page::frame_point`]).
#[derive(Debug, Clone, PartialEq)]
pub struct FramePoint {
    /// The point in the main frame's viewport.
    pub at: (f64, f64),
    /// What an ancestor document shows at that point instead of the frame (an overlay).
    pub covered_by: Option<String>,
}

/// A point-in-time copy of one frame's navigation counters.
#[derive(Debug, Clone, Default)]
pub struct NavMark {
    requested: u64,
    started: u64,
    stopped: u64,
    committed: u64,
    same_document: u64,
}

/// A file chooser the page opened while interception was on (`Page.fileChooserOpened`).
#[derive(Debug, Clone)]
pub struct FileChooser {
    /// The `<input type=file>` behind the chooser.
    pub backend_node_id: i64,
    /// `selectSingle` or `selectMultiple`.
    pub mode: String,
    /// The flattened session the event came from (`None` = the page's own session).
    pub session: Option<String>,
}

#[derive(Debug, Default)]
struct PageState {
    frames: HashMap<String, FrameState>,
    /// The next [`FrameState::seq`].
    next_frame_seq: u64,
    /// Isolated worlds by frame id, reused while the frame shows the same document.
    worlds: HashMap<String, CachedWorld>,
    /// Titles of main-frame documents as they were once parsed, by loader id: a navigation's
    /// title check needs no call of its own (which would wait behind the page's `load`).
    parsed_titles: HashMap<String, String>,
    file_choosers: Vec<FileChooser>,
    armed_dialogs: VecDeque<DialogResponse>,
    dialogs: Vec<DialogRecord>,
    /// Dialogs stay open for a person to answer (a headed recording).
    dialogs_left_open: bool,
    closed: bool,
    crashed: bool,
}

#[derive(Debug)]
struct Shared {
    conn: CdpConnection,
    target_id: String,
    state: Mutex<PageState>,
    changed: watch::Sender<u64>,
    /// What to install in the isolated world made for each new main-frame document as soon
    /// as it commits ([`Page::prewarm_worlds`]).
    prewarm: Mutex<Option<Arc<str>>>,
}

/// Sends a page's setup calls at once; the answer is its frame tree.
fn setup_calls(
    session: &CdpSession,
) -> impl Future<Output = Result<Value, (&'static str, CdpError)>> + Send + 'static {
    let enable = session.start("Page.enable", json!({}));
    let calls = [
        (
            "enabling lifecycle events",
            session.start("Page.setLifecycleEventsEnabled", json!({ "enabled": true })),
        ),
        (
            "enabling iframe auto-attach",
            session.start(
                "Target.setAutoAttach",
                json!({ "autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true }),
            ),
        ),
        (
            "reading the frame tree",
            session.start("Page.getFrameTree", json!({})),
        ),
    ];
    let session = session.clone();
    async move {
        enable.await.map_err(|e| ("enabling Page events", e))?;
        // Only once the renderer answered: Chromium 156's renderer crashes when focus
        // emulation reaches it while it is still starting and a navigation is on its way.
        // Not waited for: later calls of the session are handled after it anyway.
        let focus = session.start(
            "Emulation.setFocusEmulationEnabled",
            json!({ "enabled": true }),
        );
        tokio::spawn(async move {
            if let Err(error) = focus.await {
                tracing::debug!(%error, "could not turn on focus emulation");
            }
        });
        let mut tree = Value::Null;
        for (what, call) in calls {
            tree = call.await.map_err(|e| (what, e))?;
        }
        Ok(tree)
    }
}

impl PageState {
    /// The frame's state, created (and given the next attach order) when first seen.
    fn frame_mut(&mut self, id: impl Into<String>) -> &mut FrameState {
        let seq = &mut self.next_frame_seq;
        self.frames.entry(id.into()).or_insert_with(|| {
            *seq += 1;
            FrameState {
                seq: *seq,
                ..FrameState::default()
            }
        })
    }
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, PageState> {
        // A poisoned lock only means a watcher task panicked mid-update; the counters are still
        // usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn bump(&self) {
        self.changed.send_modify(|v| *v = v.wrapping_add(1));
    }
}

/// An execution context to evaluate in: a session and (optionally) a context id within it.
#[derive(Debug, Clone)]
pub struct ExecContext {
    pub session: CdpSession,
    pub context_id: Option<i64>,
}

/// Why an evaluation produced no value.
#[derive(Debug, Clone, thiserror::Error)]
pub enum EvalError {
    /// The document went away under the evaluation (the page navigated).
    #[error("the page navigated during the evaluation")]
    Navigated,
    /// The script threw.
    #[error("the script threw: {0}")]
    Exception(String),
    /// The protocol call failed for another reason.
    #[error(transparent)]
    Cdp(CdpError),
}

impl From<CdpError> for EvalError {
    fn from(error: CdpError) -> Self {
        if error.is_navigation() {
            EvalError::Navigated
        } else {
            EvalError::Cdp(error)
        }
    }
}

/// How CDP names a button and its bit in `buttons`.
trait CdpButton {
    fn cdp_name(self) -> &'static str;
    fn buttons_mask(self) -> u8;
}

impl CdpButton for MouseButton {
    fn cdp_name(self) -> &'static str {
        match self {
            MouseButton::Left => "left",
            MouseButton::Middle => "middle",
            MouseButton::Right => "right",
            MouseButton::Back => "back",
            MouseButton::Forward => "forward",
        }
    }

    fn buttons_mask(self) -> u8 {
        match self {
            MouseButton::Left => 1,
            MouseButton::Right => 2,
            MouseButton::Middle => 4,
            MouseButton::Back => 8,
            MouseButton::Forward => 16,
        }
    }
}

/// One page of a browser context. Cheap to clone; all clones drive the same target.
#[derive(Clone, Debug)]
pub struct Page {
    session: CdpSession,
    shared: Arc<Shared>,
    popups: Arc<PopupTracker>,
}

impl Page {
    /// Attaches to `target_id` and waits until its events are on and its frame tree is known.
    pub async fn attach(
        conn: &CdpConnection,
        target_id: &str,
        popups: Arc<PopupTracker>,
    ) -> Result<Self, BrowserError> {
        let attached = conn
            .session(None)
            .call(
                "Target.attachToTarget",
                json!({ "targetId": target_id, "flatten": true }),
            )
            .await
            .map_err(BrowserError::cdp(format!("attaching to page {target_id}")))?;
        let session_id = attached["sessionId"]
            .as_str()
            .ok_or_else(|| BrowserError::Page("attachToTarget returned no session".into()))?
            .to_string();
        let session = conn.session(Some(session_id));
        let shared = Arc::new(Shared {
            conn: conn.clone(),
            target_id: target_id.to_string(),
            state: Mutex::default(),
            changed: watch::channel(0).0,
            prewarm: Mutex::new(None),
        });
        spawn_watcher(session.clone(), session.subscribe(), shared.clone(), None);
        let page = Self {
            session,
            shared,
            popups,
        };
        let tree = setup_calls(&page.session)
            .await
            .map_err(|(context, source)| BrowserError::Cdp {
                context: context.to_string(),
                source,
            })?;
        page.seed_frames(&tree["frameTree"], None, None);
        Ok(page)
    }

    fn seed_frames(&self, tree: &Value, parent: Option<&str>, session: Option<&str>) {
        let frame = &tree["frame"];
        if let Some(id) = frame["id"].as_str() {
            let mut state = self.shared.state();
            let entry = state.frame_mut(id.to_string());
            entry.parent = parent.map(str::to_string);
            // The tree may be answered after events of a navigation that began meanwhile
            // were applied: it only fills in what they have not told yet.
            let tree_loader = frame["loaderId"].as_str().unwrap_or_default();
            if entry.loader_id.is_empty() {
                entry.loader_id = tree_loader.to_string();
            }
            if entry.loader_id == tree_loader {
                if entry.url.is_empty() {
                    entry.url = frame["url"].as_str().unwrap_or_default().to_string();
                }
                if entry.name.is_empty() {
                    entry.name = frame["name"].as_str().unwrap_or_default().to_string();
                }
            }
            if session.is_some() {
                entry.session = session.map(str::to_string);
            }
            drop(state);
            if let Some(children) = tree["childFrames"].as_array() {
                for child in children {
                    self.seed_frames(child, Some(id), session);
                }
            }
        }
        self.shared.bump();
    }

    /// The page's own CDP session, for raw protocol calls and event subscriptions.
    pub fn session(&self) -> &CdpSession {
        &self.session
    }

    /// The CDP target id of this page (also the id of its main frame).
    pub fn target_id(&self) -> &str {
        &self.shared.target_id
    }

    /// The main frame's current URL.
    pub fn url(&self) -> String {
        self.frame_state(self.target_id())
            .map(|f| f.url)
            .unwrap_or_default()
    }

    /// The document title, read from the page.
    pub async fn title(&self) -> Result<String, BrowserError> {
        let ctx = self.main_world();
        let value = self
            .evaluate(&ctx, "document.title", false)
            .await
            .map_err(|e| BrowserError::Page(format!("reading the title: {e}")))?;
        Ok(value.as_str().unwrap_or_default().to_string())
    }

    /// Dialogs seen so far on this page, in order.
    pub fn dialogs(&self) -> Vec<DialogRecord> {
        self.shared.state().dialogs.clone()
    }

    /// Queues how to answer the next dialog (dialogs without a queued answer are dismissed,
    /// except `beforeunload`, which is accepted so navigations proceed).
    pub fn arm_dialog(&self, response: DialogResponse) {
        self.shared.state().armed_dialogs.push_back(response);
    }

    /// Leaves JavaScript dialogs open for the person at the window instead of answering them
    /// (armed answers are then ignored and no [`DialogRecord`] is kept).
    pub fn leave_dialogs_open(&self, leave: bool) {
        self.shared.state().dialogs_left_open = leave;
    }

    /// True once the page is closed or crashed.
    pub fn is_closed(&self) -> bool {
        let state = self.shared.state();
        state.closed || state.crashed
    }

    /// Why the page can no longer be driven, once it cannot: its renderer crashed, or its
    /// session is gone (the page closed, the browser died or the connection dropped; the
    /// latter says so in [`CdpError::Closed`]'s words, which is how failures are classified).
    pub fn gone(&self) -> Option<String> {
        let state = self.shared.state();
        if state.crashed {
            Some("the page crashed".into())
        } else if state.closed && self.shared.conn.is_closed() {
            Some(CdpError::Closed.to_string())
        } else if state.closed {
            Some("the page was closed".into())
        } else {
            None
        }
    }

    /// The URLs of every frame of the page (main frame first, then the others in no
    /// particular order), out-of-process iframes included.
    pub fn frame_urls(&self) -> Vec<String> {
        let main = self.target_id().to_string();
        let state = self.shared.state();
        let mut urls: Vec<String> = state
            .frames
            .get(&main)
            .map(|f| f.url.clone())
            .into_iter()
            .collect();
        urls.extend(
            state
                .frames
                .iter()
                .filter(|(id, _)| **id != main)
                .map(|(_, f)| f.url.clone()),
        );
        urls
    }

    /// Evaluates a JavaScript expression in the main frame's page world (awaiting a
    /// promise) and returns its JSON value: for checks after a replay.
    pub async fn evaluate_in_main_frame(&self, expression: &str) -> Result<Value, BrowserError> {
        self.evaluate(&self.main_world(), expression, true)
            .await
            .map_err(|e| BrowserError::Page(format!("evaluating {expression:?} failed: {e}")))
    }

    pub fn frame_state(&self, frame_id: &str) -> Option<FrameState> {
        self.shared.state().frames.get(frame_id).cloned()
    }

    pub fn frames(&self) -> Vec<(String, FrameState)> {
        self.shared
            .state()
            .frames
            .iter()
            .map(|(id, f)| (id.clone(), f.clone()))
            .collect()
    }

    /// File choosers opened so far (only while interception is on).
    pub fn file_choosers(&self) -> Vec<FileChooser> {
        self.shared.state().file_choosers.clone()
    }

    /// A session handle by id (`None` = this page's own session).
    pub fn session_by_id(&self, id: Option<&str>) -> CdpSession {
        match id {
            Some(id) => self.shared.conn.session(Some(id.to_string())),
            None => self.session.clone(),
        }
    }

    /// Turns interception of file choosers on or off, in the page and every out-of-process
    /// frame: while on, a chooser raises `Page.fileChooserOpened` instead of opening.
    pub async fn intercept_file_choosers(&self, enabled: bool) -> Result<(), CdpError> {
        let mut sessions: Vec<CdpSession> = vec![self.session.clone()];
        let children: Vec<String> = {
            let state = self.shared.state();
            let mut ids: Vec<String> = state
                .frames
                .values()
                .filter_map(|f| f.session.clone())
                .collect();
            ids.sort();
            ids.dedup();
            ids
        };
        sessions.extend(
            children
                .into_iter()
                .map(|id| self.shared.conn.session(Some(id))),
        );
        let calls = sessions.iter().map(|s| {
            s.call(
                "Page.setInterceptFileChooserDialog",
                json!({ "enabled": enabled }),
            )
        });
        let results = futures::future::join_all(calls).await;
        // The page's own session must accept it; a frame that went away meanwhile may not.
        results
            .into_iter()
            .next()
            .unwrap_or(Ok(Value::Null))
            .map(|_| ())
    }

    /// A handle (remote object id) on the value of `expression` in `ctx`.
    pub async fn evaluate_handle(
        &self,
        ctx: &ExecContext,
        expression: &str,
    ) -> Result<String, EvalError> {
        let mut params = json!({ "expression": expression, "returnByValue": false });
        if let Some(id) = ctx.context_id {
            params["contextId"] = json!(id);
        }
        let answer = ctx.session.call("Runtime.evaluate", params).await?;
        if let Some(details) = answer.get("exceptionDetails") {
            let text = details["text"].as_str().unwrap_or("unknown exception");
            return Err(EvalError::Exception(text.to_string()));
        }
        answer["result"]["objectId"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| EvalError::Exception(format!("{expression} is not an object")))
    }

    pub fn dialog_count(&self) -> usize {
        self.shared.state().dialogs.len()
    }

    pub fn changes(&self) -> watch::Receiver<u64> {
        self.shared.changed.subscribe()
    }

    /// Target ids of pages this page has opened (popups), oldest first.
    pub fn popups_opened(&self) -> Vec<String> {
        self.popups.opened_by(self.target_id())
    }

    pub fn popup_changes(&self) -> watch::Receiver<u64> {
        self.popups.changed.subscribe()
    }

    fn session_for_frame(&self, frame_id: &str) -> CdpSession {
        let state = self.shared.state();
        // A frame without its own session belongs to the nearest ancestor that has one.
        let mut current = Some(frame_id.to_string());
        while let Some(id) = current {
            let Some(frame) = state.frames.get(&id) else {
                break;
            };
            if let Some(session) = &frame.session {
                return self.shared.conn.session(Some(session.clone()));
            }
            current = frame.parent.clone();
        }
        self.session.clone()
    }

    /// The page's main world in its main frame (where page scripts live).
    pub fn main_world(&self) -> ExecContext {
        ExecContext {
            session: self.session.clone(),
            context_id: None,
        }
    }

    /// Evaluates `expression` and returns its JSON value (awaiting it when it is a promise).
    pub async fn evaluate(
        &self,
        ctx: &ExecContext,
        expression: &str,
        await_promise: bool,
    ) -> Result<Value, EvalError> {
        let mut params = json!({
            "expression": expression,
            "returnByValue": true,
            "awaitPromise": await_promise,
        });
        if let Some(id) = ctx.context_id {
            params["contextId"] = json!(id);
        }
        let answer = ctx.session.call("Runtime.evaluate", params).await?;
        if let Some(details) = answer.get("exceptionDetails") {
            let text = details["exception"]["description"]
                .as_str()
                .or_else(|| details["text"].as_str())
                .unwrap_or("unknown exception")
                .to_string();
            if text.contains("Execution context was destroyed")
                || text.contains("Inspected target navigated")
            {
                return Err(EvalError::Navigated);
            }
            return Err(EvalError::Exception(text));
        }
        Ok(answer["result"]["value"].clone())
    }

    /// Where `point` (CSS pixels in the viewport of `frame_id`) is in the main frame's
    /// viewport, and what covers it there: walking up the frame tree, each parent document
    /// must hit its iframe element at that point, or an overlay in the parent would take the
    /// click (the resolver's hit test only sees inside the frame). Scrolls each iframe into
    /// view when it is not.
    pub async fn frame_point(
        &self,
        frame_id: &str,
        point: (f64, f64),
    ) -> Result<FramePoint, EvalError> {
        let mut at = point;
        let mut covered_by = None;
        let mut current = frame_id.to_string();
        while let Some(frame) = self.frame_state(&current) {
            let Some(parent) = frame.parent.clone() else {
                break;
            };
            let parent_session = self.session_for_frame(&parent);
            let owner = parent_session
                .call("DOM.getFrameOwner", json!({ "frameId": current }))
                .await?;
            let backend_node_id = owner["backendNodeId"].as_i64().unwrap_or_default();
            let world = self.isolated_world(&parent).await?;
            let resolved = parent_session
                .call(
                    "DOM.resolveNode",
                    json!({ "backendNodeId": backend_node_id, "executionContextId": world.context_id }),
                )
                .await?;
            let object_id = resolved["object"]["objectId"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let answer = parent_session
                .call(
                    "Runtime.callFunctionOn",
                    json!({
                        "objectId": object_id,
                        "functionDeclaration": FRAME_POINT_JS,
                        "arguments": [{ "value": at.0 }, { "value": at.1 }],
                        "returnByValue": true,
                    }),
                )
                .await?;
            let value = &answer["result"]["value"];
            at = (
                value[0].as_f64().unwrap_or_default(),
                value[1].as_f64().unwrap_or_default(),
            );
            if covered_by.is_none() {
                covered_by = value[2].as_str().map(str::to_string);
            }
            current = parent;
        }
        Ok(FramePoint { at, covered_by })
    }

    /// Navigates the main frame and waits until the new document is parsed
    /// (`DOMContentLoaded`); reads wait for its `load` on their own ([`Self::wait_loaded`]).
    pub async fn navigate(&self, url: &str, timeout: Duration) -> Result<(), BrowserError> {
        let mark = self.nav_mark(self.target_id());
        // Chromium answers `Page.navigate` only once the server responds: bound it too, or a
        // server that never answers would hang the step past its timeout.
        let answer = tokio::time::timeout(
            timeout,
            self.session.call("Page.navigate", json!({ "url": url })),
        )
        .await
        .map_err(|_| {
            BrowserError::Page(format!(
                "navigation to {url} did not finish loading within {} ms (the server sent no response)",
                timeout.as_millis()
            ))
        })?
        .map_err(|e| BrowserError::Page(format!("navigation to {url} failed: {e}")))?;
        if let Some(error) = answer["errorText"].as_str().filter(|e| !e.is_empty()) {
            return Err(BrowserError::Page(format!(
                "navigation to {url} failed: {error}"
            )));
        }
        let loader = answer["loaderId"].as_str().map(str::to_string);
        let main = self.target_id().to_string();
        let done = self
            .wait_for(timeout, |page| {
                let Some(frame) = page.frames.get(&main) else {
                    return false;
                };
                match &loader {
                    Some(loader) => frame.loader_id == *loader && frame.parsed(),
                    // Same-document navigation: nothing more to load.
                    None => frame.same_document > mark.same_document || !frame.loading,
                }
            })
            .await;
        match (done, self.gone()) {
            (true, _) => Ok(()),
            (false, Some(gone)) => Err(BrowserError::Page(format!(
                "navigation to {url} was cut short: {gone}"
            ))),
            (false, None) => Err(BrowserError::Page(format!(
                "navigation to {url} did not finish loading within {} ms",
                timeout.as_millis()
            ))),
        }
    }

    pub fn nav_mark(&self, frame_id: &str) -> NavMark {
        self.frame_state(frame_id)
            .map(|f| NavMark {
                requested: f.requested,
                started: f.started,
                stopped: f.stopped,
                committed: f.committed,
                same_document: f.same_document,
            })
            .unwrap_or_default()
    }

    /// True when `frame_id` has started (or requested) a navigation since `mark`.
    pub fn navigation_began(&self, frame_id: &str, mark: &NavMark) -> bool {
        self.frame_state(frame_id).is_some_and(|f| {
            f.requested > mark.requested
                || f.started > mark.started
                || f.committed > mark.committed
                || f.same_document > mark.same_document
        })
    }

    /// Waits until a navigation of `frame_id` that began after `mark` has settled: the new
    /// document is parsed (`DOMContentLoaded`: its elements are there to be found, and every
    /// step waits for its element anyway), the navigation stayed within the document, or it
    /// was abandoned (a download, a 204). Returns false on timeout.
    pub async fn wait_navigation_settled(
        &self,
        frame_id: &str,
        mark: &NavMark,
        timeout: Duration,
    ) -> bool {
        let frame_id = frame_id.to_string();
        let mark = mark.clone();
        self.wait_for(timeout, move |page| {
            let Some(f) = page.frames.get(&frame_id) else {
                // The frame is gone (an iframe removed by the navigation of its parent).
                return true;
            };
            if f.committed > mark.committed && f.parsed() {
                return true;
            }
            if f.loading {
                return false;
            }
            // A fragment or history.pushState navigation: nothing loads.
            let same_document_only =
                f.same_document > mark.same_document && f.started == mark.started;
            let abandoned = f.stopped > mark.stopped && f.committed == mark.committed;
            same_document_only || abandoned
        })
        .await
    }

    /// Waits (up to `timeout`) until `frame_id`'s document has fired `load`, so that what
    /// the page's `load` handlers write is there to be read. Returns false on timeout.
    pub async fn wait_loaded(&self, frame_id: &str, timeout: Duration) -> bool {
        self.wait_for(timeout, |page| {
            page.frames.get(frame_id).is_none_or(FrameState::loaded)
        })
        .await
    }

    async fn wait_for(&self, timeout: Duration, mut done: impl FnMut(&PageState) -> bool) -> bool {
        let mut changes = self.changes();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            {
                let state = self.shared.state();
                if done(&state) {
                    return true;
                }
                if state.closed || state.crashed {
                    return false;
                }
            }
            match tokio::time::timeout_at(deadline, changes.changed()).await {
                Ok(Ok(())) => {}
                _ => return false,
            }
        }
    }

    /// Moves the mouse to a point in main-frame viewport coordinates.
    pub async fn mouse_move(&self, x: f64, y: f64) -> Result<(), CdpError> {
        self.session
            .call(
                "Input.dispatchMouseEvent",
                json!({ "type": "mouseMoved", "x": x, "y": y, "button": "none", "buttons": 0 }),
            )
            .await
            .map(|_| ())
    }

    /// A real click (or double click for `count` 2) at a point in main-frame viewport
    /// coordinates. On the main frame's own document, the move, presses and releases go out
    /// together: its renderer takes them in order and runs each handler to completion before
    /// the next event, as with a real mouse, without a round trip between them. An element of
    /// a child frame (`in_child_frame`) gets them one at a time: the browser routes each event
    /// to the frame's process by hit-testing, and back-to-back events have been seen to miss
    /// an out-of-process frame under load.
    pub async fn mouse_click(
        &self,
        x: f64,
        y: f64,
        button: MouseButton,
        count: u8,
        in_child_frame: bool,
    ) -> Result<(), CdpError> {
        let mut events = vec![json!({
            "type": "mouseMoved", "x": x, "y": y, "button": "none", "buttons": 0,
        })];
        for click in 1..=count.max(1) {
            let common = json!({
                "x": x, "y": y, "button": button.cdp_name(), "clickCount": click,
            });
            let mut pressed = common.clone();
            pressed["type"] = json!("mousePressed");
            pressed["buttons"] = json!(button.buttons_mask());
            let mut released = common;
            released["type"] = json!("mouseReleased");
            released["buttons"] = json!(0);
            events.extend([pressed, released]);
        }
        if in_child_frame {
            for event in events {
                self.session.call("Input.dispatchMouseEvent", event).await?;
            }
            return Ok(());
        }
        self.dispatch_all("Input.dispatchMouseEvent", events).await
    }

    /// Sends every call at once and waits for all of them: the first failure is the answer.
    async fn dispatch_all(&self, method: &str, calls: Vec<Value>) -> Result<(), CdpError> {
        let pending: Vec<_> = calls
            .into_iter()
            .map(|params| self.session.start(method, params))
            .collect();
        let mut outcome = Ok(());
        for answer in pending {
            if let (Ok(()), Err(e)) = (&outcome, answer.await) {
                outcome = Err(e);
            }
        }
        outcome
    }

    /// Inserts text into the focused element as an IME commit would (one `input` event).
    pub async fn insert_text(&self, text: &str) -> Result<(), CdpError> {
        self.session
            .call("Input.insertText", json!({ "text": text }))
            .await
            .map(|_| ())
    }

    /// Dispatches raw key events (`keyDown`, `keyUp`, `rawKeyDown`, `char`) in order, sent
    /// together (see [`Self::mouse_click`]).
    pub async fn key_events(&self, events: Vec<Value>) -> Result<(), CdpError> {
        self.dispatch_all("Input.dispatchKeyEvent", events).await
    }

    /// Overrides the viewport size.
    pub async fn set_viewport(
        &self,
        width: u32,
        height: u32,
        device_scale_factor: f64,
        mobile: bool,
    ) -> Result<(), CdpError> {
        self.session
            .call(
                "Emulation.setDeviceMetricsOverride",
                json!({ "width": width, "height": height,
                        "deviceScaleFactor": device_scale_factor, "mobile": mobile }),
            )
            .await
            .map(|_| ())
    }

    /// Brings the page to front (the replayer does so when it switches pages).
    pub async fn bring_to_front(&self) -> Result<(), CdpError> {
        self.session
            .call("Page.bringToFront", json!({}))
            .await
            .map(|_| ())
    }

    /// A PNG screenshot of the viewport.
    pub async fn screenshot_png(&self) -> Result<Vec<u8>, BrowserError> {
        let data = self.screenshot_base64().await?;
        base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| BrowserError::Page(format!("screenshot data is not base64: {e}")))
    }

    /// A PNG screenshot of the viewport, base64-encoded as Chromium sends it.
    pub async fn screenshot_base64(&self) -> Result<String, BrowserError> {
        let mut answer = self
            .session
            .call(
                "Page.captureScreenshot",
                // Chromium's fast PNG settings: bigger files, a fraction of the encoding
                // time, which is on every step's critical path.
                json!({ "format": "png", "fromSurface": true, "optimizeForSpeed": true }),
            )
            .await
            .map_err(BrowserError::cdp("taking a screenshot"))?;
        match answer.get_mut("data").map(Value::take) {
            Some(Value::String(data)) => Ok(data),
            _ => Err(BrowserError::Page(
                "the screenshot answer has no data".into(),
            )),
        }
    }

    /// Closes this page.
    pub async fn close(&self) -> Result<(), BrowserError> {
        self.shared
            .conn
            .session(None)
            .call(
                "Target.closeTarget",
                json!({ "targetId": self.target_id() }),
            )
            .await
            .map_err(BrowserError::cdp("closing a page"))?;
        Ok(())
    }
}

/// Content-box origin of an `<iframe>` element in its own frame's viewport, scrolling it into
/// view first when it is not fully visible.
/// On an iframe element, with a point in its content's viewport: the point in this document's
/// viewport, and what this document shows there instead of the iframe (`null`: the iframe).
const FRAME_POINT_JS: &str = r#"function(x, y) {
  let r = this.getBoundingClientRect();
  if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) {
    this.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    r = this.getBoundingClientRect();
  }
  const cs = getComputedStyle(this);
  const px = r.left + this.clientLeft + parseFloat(cs.paddingLeft) + x;
  const py = r.top + this.clientTop + parseFloat(cs.paddingTop) + y;
  let hit = document.elementFromPoint(px, py);
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(px, py);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  let covered = null;
  if (hit !== this) {
    const el = hit;
    covered = !el || !el.tagName ? String(el) : '<' + el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
      + (typeof el.className === 'string' && el.className.trim() ? '.' + el.className.trim().split(/\s+/).join('.') : '') + '>';
  }
  return [px, py, covered];
}"#;
