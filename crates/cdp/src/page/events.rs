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
    FrameAttached {
        /// The new frame.
        frame_id: String,
        /// Its parent frame.
        parent_id: String,
    },
    /// A frame went away (`Page.frameDetached`); `swapped` when it only moved to its own
    /// process and lives on in a child session.
    FrameDetached {
        /// The frame.
        frame_id: String,
        /// It moved to its own process rather than went away.
        swapped: bool,
    },
    /// A frame committed a new document (`Page.frameNavigated`).
    FrameNavigated {
        /// The frame.
        frame_id: String,
        /// `None` for a main frame.
        parent_id: Option<String>,
        /// The document's URL.
        url: String,
        /// The frame's `name`.
        name: String,
        /// The loader of the committed document.
        loader_id: String,
        /// The document came back from the back/forward cache (no new load).
        from_back_forward_cache: bool,
    },
    /// A navigation of the frame is under way (`Page.frameStartedNavigating`), named by the
    /// loader of the document it will commit (for a same-document one, the current loader).
    NavigationStarted {
        /// The frame.
        frame_id: String,
        /// The loader of the document it will commit.
        loader_id: String,
        /// Where it goes.
        url: String,
        /// Within the current document (a fragment, `history`).
        same_document: bool,
    },
    /// A fragment or `history` navigation (`Page.navigatedWithinDocument`).
    NavigatedWithinDocument {
        /// The frame.
        frame_id: String,
        /// The document's new URL.
        url: String,
    },
    /// The frame's document fired `DOMContentLoaded`.
    DomContentLoaded {
        /// The frame.
        frame_id: String,
        /// The loader (document) it is about.
        loader_id: String,
    },
    /// The frame's document fired `load`.
    Load {
        /// The frame.
        frame_id: String,
        /// The loader (document) it is about.
        loader_id: String,
    },
    /// Another lifecycle event (`init`, `firstPaint`, `networkIdle`, …).
    Lifecycle {
        /// The frame.
        frame_id: String,
        /// The loader (document) it is about.
        loader_id: String,
        /// The event's name.
        name: String,
    },
    /// `Page.frameStartedLoading`.
    FrameStartedLoading {
        /// The frame.
        frame_id: String,
    },
    /// `Page.frameStoppedLoading`.
    FrameStoppedLoading {
        /// The frame.
        frame_id: String,
    },
    /// The page asked to navigate a frame (`Page.frameRequestedNavigation`), in the current
    /// tab or not.
    NavigationRequested {
        /// The frame.
        frame_id: String,
        /// Where to.
        url: String,
        /// In this tab (not a new one or a download).
        in_current_tab: bool,
    },
    /// The page started an HTML5 drag while drags are intercepted (`Input.dragIntercepted`,
    /// after `Input.setInterceptDrags`): the drag's data (items, files, allowed operations), as
    /// Chromium sent it, for the `Input.dispatchDragEvent` calls that complete the drag.
    DragIntercepted {
        /// `Input.DragData`, as sent.
        data: serde_json::Value,
    },
    /// A JavaScript dialog opened, and how the page answered it (`None`: left open for the
    /// person at the window).
    DialogOpened {
        /// The frame.
        frame_id: String,
        /// `alert`, `confirm`, `prompt` or `beforeunload`.
        kind: String,
        /// The dialog's text.
        message: String,
        /// The URL of the frame that opened it.
        url: String,
        /// The answer given at once.
        answer: Option<DialogResponse>,
    },
    /// A JavaScript dialog closed, however it was answered.
    DialogClosed {
        /// The frame.
        frame_id: String,
        /// OK rather than Cancel.
        accepted: bool,
        /// The text a `prompt` was answered with.
        user_input: String,
    },
    /// A file chooser opened while interception was on.
    FileChooserOpened {
        /// The frame.
        frame_id: String,
        /// The `<input type=file>` behind it (0 when Chromium names none).
        backend_node_id: i64,
        /// It takes several files.
        multiple: bool,
    },
    /// A target was auto-attached to this session (an out-of-process iframe, a worker); the
    /// page follows iframes' sessions from now on, so their events come with this page's.
    TargetAttached {
        /// The target's flattened session.
        session_id: String,
        /// The target.
        target_id: String,
        /// `iframe`, `worker`, …
        target_type: String,
        /// Its URL.
        url: String,
    },
    /// An auto-attached target's session ended.
    TargetDetached {
        /// The session that ended.
        session_id: String,
    },
    /// A binding added with `Runtime.addBinding` was called.
    BindingCalled {
        /// The binding.
        name: String,
        /// What the page passed it.
        payload: String,
        /// The context (world) that called it.
        execution_context_id: i64,
    },
    /// An execution context (a world of a document) was created (`Runtime` events on).
    ExecutionContextCreated {
        /// Its id within the session.
        context_id: i64,
        /// Its id across the browser (what `ExecutionContextDestroyed` names).
        unique_id: String,
        /// The world's name (empty for the page's main world).
        name: String,
        /// The frame the context belongs to, when Chromium says.
        frame_id: Option<String>,
    },
    /// An execution context went away.
    ExecutionContextDestroyed {
        /// The context's unique id.
        unique_id: String,
    },
    /// Every execution context of the session went away.
    ExecutionContextsCleared,
    /// A request is about to be sent (`Network.requestWillBeSent`, once
    /// [`Page::enable_network`](super::Page::enable_network) is on); a redirect is sent again
    /// under the same `request_id`. `timestamp` is monotonic seconds (the clock of every
    /// network event), `wall_time` seconds since the epoch at that moment.
    RequestSent {
        /// The request (Chromium's `requestId`).
        request_id: String,
        /// What it is for.
        kind: RequestKind,
        /// `GET`, `POST`, …
        method: String,
        /// Where it goes.
        url: String,
        /// When, in monotonic seconds.
        timestamp: f64,
        /// When, in seconds since the epoch.
        wall_time: f64,
        /// The frame that sent it, when Chromium says.
        frame_id: Option<String>,
        /// A redirect of the request first sent under this id.
        redirected: bool,
    },
    /// A request's response and its whole body arrived (`Network.loadingFinished`).
    RequestAnswered {
        /// The request (Chromium's `requestId`).
        request_id: String,
        /// When, in monotonic seconds.
        timestamp: f64,
    },
    /// A request failed or was cancelled (`Network.loadingFailed`).
    RequestFailed {
        /// The request (Chromium's `requestId`).
        request_id: String,
        /// When, in monotonic seconds.
        timestamp: f64,
        /// Chromium's words (`net::ERR_EMPTY_RESPONSE`), for messages only.
        error: String,
        /// Cancelled (by the page or a navigation) rather than failed.
        canceled: bool,
    },
    /// A WebSocket was created (`Network.webSocketCreated`).
    WebSocketOpened {
        /// The socket (Chromium's `requestId`).
        request_id: String,
        /// Its URL.
        url: String,
    },
    /// A WebSocket's handshake is sent: both clocks at one moment.
    WebSocketHandshake {
        /// The socket.
        request_id: String,
        /// When, in monotonic seconds.
        timestamp: f64,
        /// The same moment, in seconds since the epoch.
        wall_time: f64,
    },
    /// A WebSocket frame was sent (`sent`) or received; `text` is a text frame's payload
    /// (`None` for a binary one).
    WebSocketFrame {
        /// The socket.
        request_id: String,
        /// When, in monotonic seconds.
        timestamp: f64,
        /// Sent by the page (else received).
        sent: bool,
        /// A text frame's payload.
        text: Option<String>,
    },
    /// A WebSocket closed.
    WebSocketClosed {
        /// The socket.
        request_id: String,
        /// When, in monotonic seconds.
        timestamp: f64,
    },
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
        /// The new page.
        target_id: String,
        /// The page that opened it.
        opener_id: Option<String>,
        /// Its URL.
        url: String,
    },
    /// A target was destroyed.
    TargetDestroyed {
        /// The target.
        target_id: String,
    },
    /// A session attached from the browser session (a page's own) ended.
    SessionDetached {
        /// The session.
        session_id: String,
    },
    /// A download begins (`Browser.downloadWillBegin`).
    DownloadWillBegin {
        /// The frame that started it.
        frame_id: String,
        /// The download's id (and its file's name until it finishes).
        guid: String,
        /// Where it is downloaded from.
        url: String,
        /// The name the page or server suggested.
        suggested_filename: String,
    },
    /// A download progressed, finished or was canceled.
    DownloadProgress {
        /// The download's id.
        guid: String,
        /// Where it stands.
        state: DownloadState,
    },
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
