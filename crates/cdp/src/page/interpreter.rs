//! The one interpreter of a page's CDP events: a state machine fed each event of the page's
//! sessions (its own and its out-of-process frames'), decoded with chromiumoxide's typed
//! event structs. It updates the page's state (frame tree, navigation identities, dialogs, file
//! choosers, liveness), decides what the event means ([`PageEventKind`]) and which side
//! effect it calls for ([`Effect`]: answer a dialog, follow a child frame's session, …). It
//! sends nothing itself, so it is tested by feeding it JSON (`interpreter/tests.rs`); the
//! watcher (`watcher.rs`) carries out the effects and publishes the events.

use chromiumoxide::cdp::browser_protocol::{fetch, input, inspector, page, target};
use chromiumoxide::cdp::js_protocol::runtime;
use serde::de::DeserializeOwned;

use super::events::PageEventKind;
use super::guard::{PausedDocument, RequestPaused};
use super::network as net;
use super::{DialogRecord, DialogResponse, FileChooser, PageState};
use crate::session::CdpEvent;

/// `Inspector.detached`'s reason when the page's renderer process died (a kill, a crash, the
/// kernel's out-of-memory killer): the protocol's value, decided on here, once.
const RENDER_PROCESS_GONE: &str = "Render process gone.";

/// Which session of the page an event came from.
#[derive(Debug, Clone, Default)]
pub(super) struct Source {
    /// The flattened session id.
    pub(super) session_id: Option<String>,
    /// The out-of-process frame that session is for (`None`: the page's own session).
    pub(super) child_frame: Option<String>,
}

/// What the watcher must do for an event, beyond updating state.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Effect {
    /// Answer the dialog that just opened, in the session it opened in.
    AnswerDialog(DialogResponse),
    /// Make (and install) the replayer's world of a main-frame document that just committed.
    PrewarmWorld { frame_id: String, loader_id: String },
    /// Follow an out-of-process iframe's session (events, setup, then let it run).
    FollowFrame {
        session_id: String,
        frame_id: String,
    },
    /// Let an attached target we do not drive (a worker) run.
    Resume { session_id: String },
    /// Let a paused document request go on, or refuse it (`guard.rs`).
    GuardDocument(PausedDocument),
}

/// The meaning of one event and the effect it calls for.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Interpreted {
    pub(super) event: Option<PageEventKind>,
    pub(super) effect: Option<Effect>,
}

impl Interpreted {
    fn event(event: PageEventKind) -> Self {
        Self {
            event: Some(event),
            effect: None,
        }
    }
}

/// Decodes an event's parameters into chromiumoxide's struct for it; an event that does not
/// decode (a protocol change) is logged and skipped.
pub(super) fn decode<T: DeserializeOwned>(event: &CdpEvent) -> Option<T> {
    match T::deserialize(&event.params) {
        Ok(params) => Some(params),
        Err(error) => {
            tracing::warn!(method = %event.method, %error, "skipping a CDP event that does not decode");
            None
        }
    }
}

/// Applies one event of `source` to the page's `state`.
pub(super) fn interpret(state: &mut PageState, source: &Source, event: &CdpEvent) -> Interpreted {
    match event.method.as_str() {
        page::EventFrameAttached::IDENTIFIER => decode(event).map(|e| frame_attached(state, e)),
        page::EventFrameDetached::IDENTIFIER => decode(event).map(|e| frame_detached(state, e)),
        page::EventFrameNavigated::IDENTIFIER => {
            decode(event).map(|e| frame_navigated(state, source, e))
        }
        page::EventNavigatedWithinDocument::IDENTIFIER => {
            decode(event).map(|e: page::EventNavigatedWithinDocument| {
                let frame_id = String::from(e.frame_id);
                let entry = state.frame_mut(frame_id.clone());
                entry.url = e.url.clone();
                entry.same_document += 1;
                Interpreted::event(PageEventKind::NavigatedWithinDocument {
                    frame_id,
                    url: e.url,
                })
            })
        }
        page::EventFrameStartedNavigating::IDENTIFIER => {
            decode(event).map(|e| started_navigating(state, e))
        }
        page::EventLifecycleEvent::IDENTIFIER => decode(event).map(|e| lifecycle(state, e)),
        page::EventFrameStartedLoading::IDENTIFIER => {
            decode(event).map(|e: page::EventFrameStartedLoading| {
                loading(state, source, e.frame_id.into(), true)
            })
        }
        page::EventFrameStoppedLoading::IDENTIFIER => {
            decode(event).map(|e: page::EventFrameStoppedLoading| {
                loading(state, source, e.frame_id.into(), false)
            })
        }
        page::EventFrameRequestedNavigation::IDENTIFIER => {
            decode(event).map(|e: page::EventFrameRequestedNavigation| {
                let frame_id = String::from(e.frame_id);
                let in_current_tab = e.disposition == page::ClientNavigationDisposition::CurrentTab;
                // Only a navigation of this tab is one the frame's navigation waits for.
                if in_current_tab {
                    state.frame_mut(frame_id.clone()).requested += 1;
                }
                Interpreted::event(PageEventKind::NavigationRequested {
                    frame_id,
                    url: e.url,
                    in_current_tab,
                })
            })
        }
        page::EventJavascriptDialogOpening::IDENTIFIER => {
            decode(event).map(|e| dialog_opening(state, e))
        }
        page::EventJavascriptDialogClosed::IDENTIFIER => {
            decode(event).map(|e: page::EventJavascriptDialogClosed| {
                Interpreted::event(PageEventKind::DialogClosed {
                    frame_id: e.frame_id.into(),
                    accepted: e.result,
                    user_input: e.user_input,
                })
            })
        }
        page::EventFileChooserOpened::IDENTIFIER => {
            decode(event).map(|e: page::EventFileChooserOpened| {
                let backend_node_id = e.backend_node_id.map(|id| *id.inner()).unwrap_or_default();
                state.file_choosers.push(FileChooser {
                    backend_node_id,
                    mode: e.mode.as_ref().to_string(),
                    session: source.session_id.clone(),
                });
                Interpreted::event(PageEventKind::FileChooserOpened {
                    frame_id: e.frame_id.into(),
                    backend_node_id,
                    multiple: e.mode == page::FileChooserOpenedMode::SelectMultiple,
                })
            })
        }
        input::EventDragIntercepted::IDENTIFIER => {
            // Decoded to check its shape; handed on as Chromium sent it, since the drag events
            // that complete the drag carry the same data back.
            decode(event).map(|_: input::EventDragIntercepted| {
                Interpreted::event(PageEventKind::DragIntercepted {
                    data: event.params["data"].clone(),
                })
            })
        }
        fetch::EventRequestPaused::IDENTIFIER => decode(event).map(|e: RequestPaused| {
            // The main frame is known from the start; a frame not seen yet is a child.
            let top_level = source.child_frame.is_none()
                && state
                    .frames
                    .get(&e.frame_id)
                    .is_some_and(|f| f.parent.is_none());
            Interpreted {
                event: None,
                effect: Some(Effect::GuardDocument(e.into_document(top_level))),
            }
        }),
        target::EventAttachedToTarget::IDENTIFIER => {
            decode(event).map(|e| target_attached(state, e))
        }
        target::EventDetachedFromTarget::IDENTIFIER => {
            decode(event).map(|e: target::EventDetachedFromTarget| {
                let session_id = String::from(e.session_id);
                for frame in state.frames.values_mut() {
                    if frame.session.as_deref() == Some(session_id.as_str()) {
                        frame.session = None;
                    }
                }
                Interpreted::event(PageEventKind::TargetDetached { session_id })
            })
        }
        runtime::EventBindingCalled::IDENTIFIER => {
            decode(event).map(|e: runtime::EventBindingCalled| {
                Interpreted::event(PageEventKind::BindingCalled {
                    name: e.name,
                    payload: e.payload,
                    execution_context_id: *e.execution_context_id.inner(),
                })
            })
        }
        runtime::EventExecutionContextCreated::IDENTIFIER => {
            decode(event).map(|e: runtime::EventExecutionContextCreated| {
                let context = e.context;
                let frame_id = context
                    .aux_data
                    .as_ref()
                    .and_then(|aux| aux["frameId"].as_str())
                    .map(str::to_string);
                Interpreted::event(PageEventKind::ExecutionContextCreated {
                    context_id: *context.id.inner(),
                    unique_id: context.unique_id,
                    name: context.name,
                    frame_id,
                })
            })
        }
        runtime::EventExecutionContextDestroyed::IDENTIFIER => {
            decode(event).map(|e: runtime::EventExecutionContextDestroyed| {
                Interpreted::event(PageEventKind::ExecutionContextDestroyed {
                    unique_id: e.execution_context_unique_id,
                })
            })
        }
        runtime::EventExecutionContextsCleared::IDENTIFIER => {
            Some(Interpreted::event(PageEventKind::ExecutionContextsCleared))
        }
        method if method.starts_with("Network.") => {
            net::network_event(method, &event.params).map(|kind| {
                net::track_sockets(&mut state.sockets, &kind);
                Interpreted::event(kind)
            })
        }
        // A crash or a detach in any of the page's sessions ends the page, as it always has.
        inspector::EventTargetCrashed::IDENTIFIER => {
            state.crashed = true;
            Some(Interpreted::event(PageEventKind::Crashed))
        }
        inspector::EventDetached::IDENTIFIER => {
            let reason = event.params["reason"].as_str().unwrap_or_default();
            if reason == RENDER_PROCESS_GONE {
                // How Chromium (156) says the renderer was killed or ran out of memory: the
                // session goes with it, and `Inspector.targetCrashed` never comes.
                state.crashed = true;
                Some(Interpreted::event(PageEventKind::Crashed))
            } else {
                state.closed = true;
                Some(Interpreted::event(PageEventKind::Detached))
            }
        }
        _ => None,
    }
    .unwrap_or_default()
}

fn frame_attached(state: &mut PageState, e: page::EventFrameAttached) -> Interpreted {
    let frame_id = String::from(e.frame_id);
    let parent_id = String::from(e.parent_frame_id);
    state.frame_mut(frame_id.clone()).parent = Some(parent_id.clone());
    Interpreted::event(PageEventKind::FrameAttached {
        frame_id,
        parent_id,
    })
}

fn frame_detached(state: &mut PageState, e: page::EventFrameDetached) -> Interpreted {
    let frame_id = String::from(e.frame_id);
    // A "swap" detach means the frame moved to its own process; it lives on in the child
    // session.
    let swapped = e.reason == page::FrameDetachedReason::Swap;
    if !swapped {
        state.frames.remove(&frame_id);
    }
    Interpreted::event(PageEventKind::FrameDetached { frame_id, swapped })
}

fn frame_navigated(
    state: &mut PageState,
    source: &Source,
    e: page::EventFrameNavigated,
) -> Interpreted {
    let frame = e.frame;
    let frame_id = String::from(frame.id);
    let parent_id = frame.parent_id.map(String::from);
    let loader_id = String::from(frame.loader_id);
    let name = frame.name.unwrap_or_default();
    let entry = state.frame_mut(frame_id.clone());
    if let Some(parent) = &parent_id {
        entry.parent = Some(parent.clone());
    }
    entry.url = frame.url.clone();
    entry.name = name.clone();
    if entry.loader_id != loader_id {
        entry.show_document(&loader_id);
    }
    // Whatever was under way is over: this document replaced it (or was it).
    entry.navigating = None;
    if source.child_frame.as_deref() == Some(frame_id.as_str()) {
        entry.session = source.session_id.clone();
    }
    let effect =
        (source.child_frame.is_none() && parent_id.is_none()).then(|| Effect::PrewarmWorld {
            frame_id: frame_id.clone(),
            loader_id: loader_id.clone(),
        });
    Interpreted {
        event: Some(PageEventKind::FrameNavigated {
            frame_id,
            parent_id,
            url: frame.url,
            name,
            loader_id,
            from_back_forward_cache: e.r#type == page::NavigationType::BackForwardCacheRestore,
        }),
        effect,
    }
}

/// `Page.frameStartedNavigating`: a navigation, named by its loader, is under way. Only a
/// cross-document one: a same-document navigation keeps the committed loader.
fn started_navigating(state: &mut PageState, e: page::EventFrameStartedNavigating) -> Interpreted {
    use page::FrameStartedNavigatingNavigationType as Type;
    let frame_id = String::from(e.frame_id);
    let loader_id = String::from(e.loader_id);
    let same_document = matches!(
        e.navigation_type,
        Type::SameDocument | Type::HistorySameDocument
    );
    if !same_document {
        let entry = state.frame_mut(frame_id.clone());
        entry.last_started = Some(loader_id.clone());
        entry.navigating = Some(loader_id.clone());
    }
    Interpreted::event(PageEventKind::NavigationStarted {
        frame_id,
        loader_id,
        url: e.url,
        same_document,
    })
}

/// `Page.frameStartedLoading` (`started`) or `Page.frameStoppedLoading`. A stop while a
/// navigation is under way ends that navigation without a document: it was abandoned. A stop
/// with none under way is the current document's, however late it comes. The process a frame
/// left for another (its session now another's) tells of its own loading, not the frame's.
fn loading(state: &mut PageState, source: &Source, frame_id: String, started: bool) -> Interpreted {
    let entry = state.frame_mut(frame_id.clone());
    let moved_away = entry
        .session
        .as_ref()
        .is_some_and(|owner| source.session_id.as_ref() != Some(owner));
    if moved_away {
        return Interpreted::event(if started {
            PageEventKind::FrameStartedLoading { frame_id }
        } else {
            PageEventKind::FrameStoppedLoading { frame_id }
        });
    }
    entry.loading = started;
    Interpreted::event(if started {
        PageEventKind::FrameStartedLoading { frame_id }
    } else {
        if let Some(abandoned) = entry.navigating.take() {
            entry.last_abandoned = Some(abandoned);
        }
        PageEventKind::FrameStoppedLoading { frame_id }
    })
}

/// A lifecycle event counts for the document of its loader, and only a committed document
/// (`frameNavigated`) is the frame's: an event of a loader that has not committed is kept
/// aside until it does (a new document's `init`; the placeholder document of a frame moving
/// to another process, which never does); an event of a document the frame already replaced
/// (a late `networkIdle` of the previous page) changes nothing. The first loader heard of a
/// frame nobody told us of is its document.
fn lifecycle(state: &mut PageState, e: page::EventLifecycleEvent) -> Interpreted {
    let frame_id = String::from(e.frame_id);
    let loader_id = String::from(e.loader_id);
    let entry = state.frame_mut(frame_id.clone());
    if entry.loader_id.is_empty() {
        entry.show_document(&loader_id);
    }
    if entry.loader_id == loader_id {
        if e.name == "init" {
            entry.lifecycle.clear();
        }
        entry.lifecycle.push(e.name.clone());
    } else if !entry.was_replaced(&loader_id) {
        entry.note_uncommitted_lifecycle(&loader_id, &e.name);
    }
    Interpreted::event(match e.name.as_str() {
        "DOMContentLoaded" => PageEventKind::DomContentLoaded {
            frame_id,
            loader_id,
        },
        "load" => PageEventKind::Load {
            frame_id,
            loader_id,
        },
        _ => PageEventKind::Lifecycle {
            frame_id,
            loader_id,
            name: e.name,
        },
    })
}

/// The one place a dialog's answer is decided: left open for a person, else the oldest armed
/// answer, else OK when every dialog is to be accepted, else dismissed (`beforeunload`
/// excepted, accepted so navigations proceed).
fn dialog_opening(state: &mut PageState, e: page::EventJavascriptDialogOpening) -> Interpreted {
    let kind = e.r#type.as_ref().to_string();
    let answer = if state.dialogs_left_open {
        None
    } else {
        let response = state
            .armed_dialogs
            .pop_front()
            .unwrap_or_else(|| DialogResponse {
                accept: state.accept_dialogs || kind == "beforeunload",
                prompt_text: None,
            });
        state.dialogs.push(DialogRecord {
            kind: kind.clone(),
            message: e.message.clone(),
            accepted: response.accept,
            url: e.url.clone(),
        });
        Some(response)
    };
    Interpreted {
        effect: answer.clone().map(Effect::AnswerDialog),
        event: Some(PageEventKind::DialogOpened {
            frame_id: e.frame_id.into(),
            kind,
            message: e.message,
            url: e.url,
            answer,
        }),
    }
}

fn target_attached(state: &mut PageState, e: target::EventAttachedToTarget) -> Interpreted {
    let session_id = String::from(e.session_id);
    let info = e.target_info;
    let target_id = String::from(info.target_id);
    let effect = if info.r#type == "iframe" {
        // An out-of-process iframe's target id is its frame id.
        state.frame_mut(target_id.clone()).session = Some(session_id.clone());
        Effect::FollowFrame {
            session_id: session_id.clone(),
            frame_id: target_id.clone(),
        }
    } else {
        // Workers and the like: let them run, we do not drive them.
        Effect::Resume {
            session_id: session_id.clone(),
        }
    };
    Interpreted {
        event: Some(PageEventKind::TargetAttached {
            session_id,
            target_id,
            target_type: info.r#type,
            url: info.url,
        }),
        effect: Some(effect),
    }
}

#[cfg(test)]
mod tests;
