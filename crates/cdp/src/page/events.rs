//! Following a page's events, per session (its own and those of its out-of-process frames):
//! frame navigation state, dialogs, file choosers, iframes attaching, popups opening.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::json;
use tokio::sync::{mpsc, watch};

use super::worlds::prewarm_world;
use super::{DialogRecord, DialogResponse, FileChooser, Shared, seed_child_tree};
use crate::session::{CdpConnection, CdpEvent, CdpSession};

/// Popups (pages opened by other pages), as announced by browser-level target discovery.
#[derive(Debug)]
pub struct PopupTracker {
    opened: Mutex<HashMap<String, Vec<String>>>,
    pub(super) changed: watch::Sender<u64>,
}

impl PopupTracker {
    pub fn start(conn: &CdpConnection) -> Arc<Self> {
        let tracker = Arc::new(Self {
            opened: Mutex::default(),
            changed: watch::channel(0).0,
        });
        let mut events = conn.subscribe(None);
        let weak = Arc::downgrade(&tracker);
        tokio::spawn(async move {
            while let Some(event) = events.recv().await {
                let Some(tracker) = weak.upgrade() else { break };
                if event.method != "Target.targetCreated" {
                    continue;
                }
                let info = &event.params["targetInfo"];
                if info["type"] != "page" {
                    continue;
                }
                if let (Some(opener), Some(target)) =
                    (info["openerId"].as_str(), info["targetId"].as_str())
                {
                    if let Ok(mut opened) = tracker.opened.lock() {
                        opened
                            .entry(opener.to_string())
                            .or_default()
                            .push(target.to_string());
                    }
                    tracker.changed.send_modify(|v| *v += 1);
                }
            }
        });
        tracker
    }

    pub(super) fn opened_by(&self, opener: &str) -> Vec<String> {
        self.opened
            .lock()
            .map(|o| o.get(opener).cloned().unwrap_or_default())
            .unwrap_or_default()
    }
}

pub(super) fn spawn_watcher(
    session: CdpSession,
    mut events: mpsc::UnboundedReceiver<CdpEvent>,
    shared: Arc<Shared>,
    child_frame: Option<String>,
) {
    tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            on_event(&session, &shared, child_frame.as_deref(), event).await;
            shared.bump();
        }
        if child_frame.is_none() {
            shared.state().closed = true;
            shared.bump();
        }
    });
}

async fn on_event(
    session: &CdpSession,
    shared: &Arc<Shared>,
    child_frame: Option<&str>,
    event: CdpEvent,
) {
    let p = &event.params;
    let frame_id = p["frameId"].as_str().unwrap_or_default().to_string();
    match event.method.as_str() {
        "Page.frameAttached" => {
            let mut state = shared.state();
            let frame = state.frame_mut(frame_id);
            frame.parent = p["parentFrameId"].as_str().map(str::to_string);
        }
        // A "swap" detach means the frame moved to its own process; it lives on in the child
        // session.
        "Page.frameDetached" if p["reason"] != "swap" => {
            shared.state().frames.remove(&frame_id);
        }
        "Page.frameNavigated" => {
            let frame = &p["frame"];
            let id = frame["id"].as_str().unwrap_or_default().to_string();
            let mut state = shared.state();
            let entry = state.frame_mut(id.clone());
            if let Some(parent) = frame["parentId"].as_str() {
                entry.parent = Some(parent.to_string());
            }
            entry.url = frame["url"].as_str().unwrap_or_default().to_string();
            entry.name = frame["name"].as_str().unwrap_or_default().to_string();
            let loader = frame["loaderId"].as_str().unwrap_or_default().to_string();
            if entry.loader_id != loader {
                entry.lifecycle.clear();
                entry.loader_id = loader;
            }
            entry.committed += 1;
            if child_frame == Some(id.as_str()) {
                entry.session = session.id().map(str::to_string);
            }
            let loader_id = entry.loader_id.clone();
            drop(state);
            if child_frame.is_none() && frame["parentId"].is_null() {
                prewarm_world(session, shared, &id, &loader_id);
            }
        }
        "Page.navigatedWithinDocument" => {
            let mut state = shared.state();
            let entry = state.frame_mut(frame_id);
            entry.url = p["url"].as_str().unwrap_or_default().to_string();
            entry.same_document += 1;
        }
        "Page.lifecycleEvent" => {
            let loader = p["loaderId"].as_str().unwrap_or_default();
            let name = p["name"].as_str().unwrap_or_default().to_string();
            let mut state = shared.state();
            let entry = state.frame_mut(frame_id);
            if name == "init" || entry.loader_id != loader {
                entry.lifecycle.clear();
                entry.loader_id = loader.to_string();
            }
            entry.lifecycle.push(name);
        }
        "Page.frameStartedLoading" => {
            let mut state = shared.state();
            let entry = state.frame_mut(frame_id);
            entry.loading = true;
            entry.started += 1;
        }
        "Page.frameStoppedLoading" => {
            let mut state = shared.state();
            let entry = state.frame_mut(frame_id);
            entry.loading = false;
            entry.stopped += 1;
        }
        "Page.frameRequestedNavigation" if p["disposition"] == "currentTab" => {
            shared.state().frame_mut(frame_id).requested += 1;
        }
        "Page.javascriptDialogOpening" if shared.state().dialogs_left_open => {}
        "Page.javascriptDialogOpening" => {
            let kind = p["type"].as_str().unwrap_or("alert").to_string();
            let response = {
                let mut state = shared.state();
                state
                    .armed_dialogs
                    .pop_front()
                    .unwrap_or_else(|| DialogResponse {
                        accept: kind == "beforeunload",
                        prompt_text: None,
                    })
            };
            shared.state().dialogs.push(DialogRecord {
                kind,
                message: p["message"].as_str().unwrap_or_default().to_string(),
                accepted: response.accept,
                url: p["url"].as_str().unwrap_or_default().to_string(),
            });
            let mut params = json!({ "accept": response.accept });
            if let Some(text) = &response.prompt_text {
                params["promptText"] = json!(text);
            }
            // Answer from a separate task: the dialog blocks the renderer, and the call that
            // opened it is still waiting on this connection.
            let session = session.clone();
            tokio::spawn(async move {
                let _ = session.call("Page.handleJavaScriptDialog", params).await;
            });
        }
        "Target.attachedToTarget" => {
            let child_session = p["sessionId"].as_str().unwrap_or_default().to_string();
            let info = &p["targetInfo"];
            let child = shared.conn.session(Some(child_session.clone()));
            if info["type"] == "iframe" {
                let target = info["targetId"].as_str().unwrap_or_default().to_string();
                {
                    let mut state = shared.state();
                    let entry = state.frame_mut(target.clone());
                    entry.session = Some(child_session.clone());
                }
                spawn_watcher(
                    child.clone(),
                    child.subscribe(),
                    shared.clone(),
                    Some(target),
                );
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
                    let _ = child
                        .call("Runtime.runIfWaitingForDebugger", json!({}))
                        .await;
                });
            } else {
                // Workers and the like: let them run, we do not drive them.
                tokio::spawn(async move {
                    let _ = child
                        .call("Runtime.runIfWaitingForDebugger", json!({}))
                        .await;
                });
            }
        }
        "Target.detachedFromTarget" => {
            if let Some(child_session) = p["sessionId"].as_str() {
                let mut state = shared.state();
                for frame in state.frames.values_mut() {
                    if frame.session.as_deref() == Some(child_session) {
                        frame.session = None;
                    }
                }
            }
        }
        "Page.fileChooserOpened" => {
            shared.state().file_choosers.push(FileChooser {
                backend_node_id: p["backendNodeId"].as_i64().unwrap_or_default(),
                mode: p["mode"].as_str().unwrap_or_default().to_string(),
                session: session.id().map(str::to_string),
            });
        }
        "Inspector.targetCrashed" => shared.state().crashed = true,
        "Inspector.detached" => shared.state().closed = true,
        _ => {}
    }
}
