//! One page (CDP target) of a browser context: its sessions (including out-of-process iframes)
//! and the state its event watcher keeps. The page's abilities live beside this file, as
//! separate `impl Page` blocks: `frames.rs` (frame tree and per-frame state), `navigation.rs`,
//! `input.rs` (+ `keys.rs`), `dialogs.rs`, `file_chooser.rs`, `evaluate.rs` (+ `worlds.rs`),
//! `screenshot.rs`. Events: `watcher.rs` is the only watcher of the page's sessions; it feeds
//! each CDP event to the state machine in `interpreter.rs` and publishes the typed
//! [`PageEvent`]s of `events.rs`; `browser_watcher.rs` does the same for the browser session.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Value, json};
use tokio::sync::watch;

use crate::error::BrowserError;
use crate::session::{CdpConnection, CdpError, CdpSession};

mod browser_watcher;
mod dialogs;
mod evaluate;
mod events;
mod file_chooser;
mod frames;
mod guard;
mod input;
mod interpreter;
pub mod keys;
mod navigation;
mod network;
mod screenshot;
mod watcher;
mod worlds;

pub use browser_watcher::BrowserWatcher;
pub use dialogs::{DialogRecord, DialogResponse};
pub use evaluate::{EvalError, ExecContext};
use events::Subscribers;
pub use events::{BrowserEvent, DownloadState, PageEvent, PageEventKind, RequestKind};
pub use file_chooser::FileChooser;
use frames::seed_child_tree;
pub use frames::{FramePoint, FrameState};
pub use input::{DragError, DragOutcome};
pub use navigation::NavMark;
pub use network::{SocketFrame, SocketLog, network_event};
pub use screenshot::MaskedScreenshotError;
use worlds::CachedWorld;

/// Name of the isolated JavaScript world the replayer evaluates in, so page scripts cannot
/// interfere with (or observe) the injected helpers.
const WORLD_NAME: &str = "__browserflow_utility";

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
    /// Dialogs without an armed answer are accepted (a recording that accepts them all).
    accept_dialogs: bool,
    closed: bool,
    crashed: bool,
    /// Open WebSockets by request id, with their latest frames (network events on:
    /// `network.rs`).
    sockets: HashMap<String, network::OpenSocket>,
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
    /// Who hears the page's typed events ([`Page::subscribe`]).
    subscribers: Subscribers<PageEvent>,
    /// Where the page may navigate ([`Page::guard_navigations`]).
    guard: guard::Guard,
    /// The address guard of the page's context, when it has one (`address_guard.rs`).
    addresses: Option<Arc<crate::address_guard::AddressGuard>>,
    /// Whether [`Page::enable_network`] turned the `Network` events on.
    network_enabled: std::sync::atomic::AtomicBool,
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

/// One page of a browser context. Cheap to clone; all clones drive the same target.
#[derive(Clone, Debug)]
pub struct Page {
    session: CdpSession,
    shared: Arc<Shared>,
    popups: Arc<BrowserWatcher>,
}

impl Page {
    /// Attaches to `target_id` and waits until its events are on and its frame tree is known.
    pub(crate) async fn attach(
        conn: &CdpConnection,
        target_id: &str,
        popups: Arc<BrowserWatcher>,
        addresses: Option<Arc<crate::address_guard::AddressGuard>>,
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
            subscribers: Subscribers::default(),
            guard: guard::Guard::default(),
            addresses,
            network_enabled: Default::default(),
        });
        watcher::watch(&session, &shared, None);
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

    /// True once the page is closed or crashed.
    pub fn is_closed(&self) -> bool {
        let state = self.shared.state();
        state.closed || state.crashed
    }

    /// True once the page closed (itself, as `window.close()` does, or by a call), with the
    /// browser still there: not a crash, not a lost connection.
    pub fn closed_alone(&self) -> bool {
        let state = self.shared.state();
        state.closed && !state.crashed && !self.shared.conn.is_closed()
    }

    /// True once the page's renderer process died (`Inspector.targetCrashed`): it crashed,
    /// was killed, or ran out of memory. [`Page::changes`] ticks when it happens.
    pub fn crashed(&self) -> bool {
        self.shared.state().crashed
    }

    /// Whether the page's renderer answers an evaluation within `within`: a page whose
    /// script never yields (an endless loop) does not; nor does a closed or crashed one.
    pub async fn answers_within(&self, within: std::time::Duration) -> bool {
        let ctx = self.main_world();
        matches!(
            tokio::time::timeout(within, self.evaluate(&ctx, "0", false)).await,
            Ok(Ok(_))
        )
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

    /// A receiver that changes whenever the page's state does (frames, dialogs, contexts):
    /// what a wait on that state re-checks on.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.shared.changed.subscribe()
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
