//! The only watcher of a page's sessions (its own and those of its out-of-process frames):
//! each event is read as the socket routes it, interpreted once (`interpreter.rs`), its side
//! effect carried out, and the typed [`PageEvent`] published to the page's subscribers.
//! Running at routing time keeps what a subscriber hears in the browser's order, also
//! relative to the browser session's events ([`BrowserWatcher`](super::BrowserWatcher)).

use std::sync::{Arc, Weak};

use serde_json::json;
use tokio::sync::mpsc;

use super::events::PageEvent;
use super::guard;
use super::interpreter::{Effect, Source, interpret};
use super::worlds::prewarm_world;
use super::{Page, Shared, seed_child_tree};
use crate::session::{CdpEvent, CdpSession, EventHandler};

/// Follows one session of a page.
struct SessionWatcher {
    session: CdpSession,
    source: Source,
    /// Weak: a page nobody holds any more needs no watching.
    shared: Weak<Shared>,
}

/// Starts watching `session` for the page; `child_frame` names the out-of-process frame the
/// session is for (`None`: the page's own session).
pub(super) fn watch(session: &CdpSession, shared: &Arc<Shared>, child_frame: Option<String>) {
    let watcher = SessionWatcher {
        session: session.clone(),
        source: Source {
            session_id: session.id().map(str::to_string),
            child_frame,
        },
        shared: Arc::downgrade(shared),
    };
    session.on_events(Arc::new(watcher));
}

impl EventHandler for SessionWatcher {
    fn on_event(&self, event: &CdpEvent) -> bool {
        let Some(shared) = self.shared.upgrade() else {
            return false;
        };
        let interpreted = interpret(&mut shared.state(), &self.source, event);
        if let Some(effect) = interpreted.effect {
            self.carry_out(&shared, effect);
        }
        if let Some(kind) = interpreted.event {
            shared.subscribers.publish(PageEvent {
                session_id: self.source.session_id.clone(),
                child_frame: self.source.child_frame.clone(),
                kind,
            });
        }
        shared.bump();
        true
    }

    fn on_closed(&self) {
        if let Some(shared) = self.shared.upgrade()
            && self.source.child_frame.is_none()
        {
            shared.state().closed = true;
            shared.bump();
        }
    }
}

impl SessionWatcher {
    fn carry_out(&self, shared: &Arc<Shared>, effect: Effect) {
        match effect {
            Effect::AnswerDialog(response) => {
                let mut params = json!({ "accept": response.accept });
                if let Some(text) = &response.prompt_text {
                    params["promptText"] = json!(text);
                }
                // Sent now and not waited for: the dialog blocks the renderer, and the call that
                // opened it is still waiting on this connection.
                drop(self.session.start("Page.handleJavaScriptDialog", params));
            }
            Effect::PrewarmWorld {
                frame_id,
                loader_id,
            } => prewarm_world(&self.session, shared, &frame_id, &loader_id),
            Effect::FollowFrame {
                session_id,
                frame_id,
            } => {
                let child = shared.conn.session(Some(session_id));
                watch(&child, shared, Some(frame_id));
                let shared = shared.clone();
                tokio::spawn(async move {
                    let _ = futures::join!(
                        child.call("Page.enable", json!({})),
                        child.call("Page.setLifecycleEventsEnabled", json!({ "enabled": true })),
                        child.call(
                            "Target.setAutoAttach",
                            json!({ "autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true })
                        ),
                    );
                    if let Ok(tree) = child.call("Page.getFrameTree", json!({})).await {
                        seed_child_tree(&shared, &tree["frameTree"], child.id());
                    }
                    // Before the frame runs: its navigations and requests are guarded as the
                    // page's are.
                    guard::guard_child(&child, &shared).await;
                    let _ = child
                        .call("Runtime.runIfWaitingForDebugger", json!({}))
                        .await;
                });
            }
            Effect::GuardDocument(document) => guard::answer(&self.session, shared, document),
            Effect::Resume { session_id } => {
                // Sent now; nobody needs the answer.
                drop(
                    shared
                        .conn
                        .session(Some(session_id))
                        .start("Runtime.runIfWaitingForDebugger", json!({})),
                );
            }
        }
    }
}

impl Page {
    /// The page's events from now on, typed, in the order the browser sent them: those of
    /// its own session and of its out-of-process frames' (each says which), each published
    /// once the page's state (frames, dialogs, file choosers) took it into account.
    pub fn subscribe(&self) -> mpsc::UnboundedReceiver<PageEvent> {
        self.shared.subscribers.subscribe()
    }
}
