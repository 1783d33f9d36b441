//! The typed events a page publishes ([`Page::subscribe`](super::Page::subscribe)) and those
//! of the browser session ([`BrowserEvent`]). The engine reads each CDP event once
//! (`interpreter.rs`), updates the page's state from it, and then publishes it in these
//! terms, so that whoever follows a page (the recorder) matches on meaning, not on CDP method
//! strings and JSON paths.

use std::sync::Mutex;

use tokio::sync::mpsc;

use super::DialogResponse;

/// Who hears a stream of typed events: one unbounded channel each (a slow subscriber loses
/// nothing), a dropped receiver unsubscribing.
#[derive(Debug)]
pub(super) struct Subscribers<T>(Mutex<Vec<mpsc::UnboundedSender<T>>>);

impl<T> Default for Subscribers<T> {
    fn default() -> Self {
        Self(Mutex::default())
    }
}

impl<T: Clone> Subscribers<T> {
    /// Events from now on.
    pub(super) fn subscribe(&self) -> mpsc::UnboundedReceiver<T> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(tx);
        rx
    }

    pub(super) fn publish(&self, event: T) {
        let mut subscribers = self.0.lock().unwrap_or_else(|e| e.into_inner());
        subscribers.retain(|tx| tx.send(event.clone()).is_ok());
    }
}

/// One event of a page, from its own session or from the session of one of its
/// out-of-process frames, published after the page's state took it into account.
#[derive(Debug, Clone, PartialEq)]
pub struct PageEvent {
    /// The flattened CDP session the event came from (the page's own, or a child frame's).
    pub session_id: Option<String>,
    /// The out-of-process frame whose session it came from; `None` for the page's own
    /// session.
    pub child_frame: Option<String>,
    /// What happened.
    pub kind: PageEventKind,
}

impl PageEvent {
    /// True when the event came from the page's own session (not a child frame's).
    pub fn from_page_session(&self) -> bool {
        self.child_frame.is_none()
    }
}

/// What happened in a page.
#[derive(Debug, Clone, PartialEq)]
pub enum PageEventKind {
    /// An iframe was attached to `parent_id` (`Page.frameAttached`).
    FrameAttached { frame_id: String, parent_id: String },
    /// A frame went away (`Page.frameDetached`); `swapped` when it only moved to its own
    /// process and lives on in a child session.
    FrameDetached { frame_id: String, swapped: bool },
    /// A frame committed a new document (`Page.frameNavigated`).
    FrameNavigated {
        frame_id: String,
        /// `None` for a main frame.
        parent_id: Option<String>,
        url: String,
        name: String,
        loader_id: String,
        /// The document came back from the back/forward cache (no new load).
        from_back_forward_cache: bool,
    },
    /// A navigation of the frame is under way (`Page.frameStartedNavigating`), named by the
    /// loader of the document it will commit (for a same-document one, the current loader).
    NavigationStarted {
        frame_id: String,
        loader_id: String,
        url: String,
        same_document: bool,
    },
    /// A fragment or `history` navigation (`Page.navigatedWithinDocument`).
    NavigatedWithinDocument { frame_id: String, url: String },
    /// The frame's document fired `DOMContentLoaded`.
    DomContentLoaded { frame_id: String, loader_id: String },
    /// The frame's document fired `load`.
    Load { frame_id: String, loader_id: String },
    /// Another lifecycle event (`init`, `firstPaint`, `networkIdle`, …).
    Lifecycle {
        frame_id: String,
        loader_id: String,
        name: String,
    },
    /// `Page.frameStartedLoading`.
    FrameStartedLoading { frame_id: String },
    /// `Page.frameStoppedLoading`.
    FrameStoppedLoading { frame_id: String },
    /// The page asked to navigate a frame (`Page.frameRequestedNavigation`), in the current
    /// tab or not.
    NavigationRequested {
        frame_id: String,
        url: String,
        in_current_tab: bool,
    },
    /// The page started an HTML5 drag while drags are intercepted (`Input.dragIntercepted`,
    /// after `Input.setInterceptDrags`): the drag's data (items, files, allowed operations), as
    /// Chromium sent it, for the `Input.dispatchDragEvent` calls that complete the drag.
    DragIntercepted { data: serde_json::Value },
    /// A JavaScript dialog opened, and how the page answered it (`None`: left open for the
    /// person at the window).
    DialogOpened {
        frame_id: String,
        /// `alert`, `confirm`, `prompt` or `beforeunload`.
        kind: String,
        message: String,
        url: String,
        answer: Option<DialogResponse>,
    },
    /// A JavaScript dialog closed, however it was answered.
    DialogClosed {
        frame_id: String,
        accepted: bool,
        user_input: String,
    },
    /// A file chooser opened while interception was on.
    FileChooserOpened {
        frame_id: String,
        /// The `<input type=file>` behind it (0 when Chromium names none).
        backend_node_id: i64,
        multiple: bool,
    },
    /// A target was auto-attached to this session (an out-of-process iframe, a worker); the
    /// page follows iframes' sessions from now on, so their events come with this page's.
    TargetAttached {
        session_id: String,
        target_id: String,
        /// `iframe`, `worker`, …
        target_type: String,
        url: String,
    },
    /// An auto-attached target's session ended.
    TargetDetached { session_id: String },
    /// A binding added with `Runtime.addBinding` was called.
    BindingCalled {
        name: String,
        payload: String,
        execution_context_id: i64,
    },
    /// An execution context (a world of a document) was created (`Runtime` events on).
    ExecutionContextCreated {
        context_id: i64,
        unique_id: String,
        /// The world's name (empty for the page's main world).
        name: String,
        /// The frame the context belongs to, when Chromium says.
        frame_id: Option<String>,
    },
    /// An execution context went away.
    ExecutionContextDestroyed { unique_id: String },
    /// Every execution context of the session went away.
    ExecutionContextsCleared,
    /// A request is about to be sent (`Network.requestWillBeSent`, once
    /// [`Page::enable_network`](super::Page::enable_network) is on); a redirect is sent again
    /// under the same `request_id`. `timestamp` is monotonic seconds (the clock of every
    /// network event), `wall_time` seconds since the epoch at that moment.
    RequestSent {
        request_id: String,
        kind: RequestKind,
        method: String,
        url: String,
        timestamp: f64,
        wall_time: f64,
        frame_id: Option<String>,
        redirected: bool,
    },
    /// A request's response and its whole body arrived (`Network.loadingFinished`).
    RequestAnswered { request_id: String, timestamp: f64 },
    /// A request failed or was cancelled (`Network.loadingFailed`).
    RequestFailed {
        request_id: String,
        timestamp: f64,
        /// Chromium's words (`net::ERR_EMPTY_RESPONSE`), for messages only.
        error: String,
        canceled: bool,
    },
    /// A WebSocket was created (`Network.webSocketCreated`).
    WebSocketOpened { request_id: String, url: String },
    /// A WebSocket's handshake is sent: both clocks at one moment.
    WebSocketHandshake {
        request_id: String,
        timestamp: f64,
        wall_time: f64,
    },
    /// A WebSocket frame was sent (`sent`) or received; `text` is a text frame's payload
    /// (`None` for a binary one).
    WebSocketFrame {
        request_id: String,
        timestamp: f64,
        sent: bool,
        text: Option<String>,
    },
    /// A WebSocket closed.
    WebSocketClosed { request_id: String, timestamp: f64 },
    /// The renderer crashed (`Inspector.targetCrashed`), or its process is gone (killed, out of
    /// memory: `Inspector.detached` saying so).
    Crashed,
    /// The session was detached from its target (`Inspector.detached`): the page closed.
    Detached,
}

/// What a request is for (`Network.ResourceType`, the kinds a settle tells apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestKind {
    /// `XMLHttpRequest`.
    Xhr,
    /// `fetch()`.
    Fetch,
    /// An `EventSource` stream.
    EventSource,
    /// A document (a navigation, a frame).
    Document,
    /// `navigator.sendBeacon` and `<a ping>`: nothing waits for their answer.
    Ping,
    /// Scripts, styles, images, fonts, media and the rest.
    Other,
}

/// An event of the browser session, seen by every page of the browser.
#[derive(Debug, Clone, PartialEq)]
pub enum BrowserEvent {
    /// A page target was created (`Target.targetCreated`); `opener_id` names the page that
    /// opened it, for a popup.
    PageCreated {
        target_id: String,
        opener_id: Option<String>,
        url: String,
    },
    /// A target was destroyed.
    TargetDestroyed { target_id: String },
    /// A session attached from the browser session (a page's own) ended.
    SessionDetached { session_id: String },
    /// A download begins (`Browser.downloadWillBegin`).
    DownloadWillBegin {
        frame_id: String,
        guid: String,
        url: String,
        suggested_filename: String,
    },
    /// A download progressed, finished or was canceled.
    DownloadProgress { guid: String, state: DownloadState },
}

/// Where a download stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DownloadState {
    /// Bytes are still arriving.
    InProgress,
    /// The file is whole.
    Completed,
    /// The browser or the page canceled it.
    Canceled,
}
