//! The recording's event loop: the typed events of every recorded page (the engine's
//! [`PageEvent`]s, which include those of out-of-process frames) and of the browser
//! ([`BrowserEvent`]) feed one loop, which installs the recorder script where new targets
//! appear, turns the script's reports and the engine's events (navigations, popups, dialogs,
//! downloads, file choosers) into [`Observed`] facts for the [`Builder`], and emits the
//! resulting [`RecordEvent`]s. The engine interprets the CDP events and answers dialogs; what
//! is left here is what only a recording needs.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use futures::stream::{SelectAll, StreamExt};
use tokio::sync::mpsc;

use super::capture::{Builder, Observed};
use super::protocol::{self, RecorderMessage};
use super::recorder::key_listeners::page_listens_to_keys;
use super::recorder::{
    BINDING, Control, EventStream, Shared, WORLD, World, capture_announced, lock, recorder_source,
};
use super::{DialogAnswers, FileChooserRequest, MAIN_PAGE, RecordEvent};
use browserflow_cdp::commands::{page as cdp_page, runtime};
use browserflow_cdp::launch::BrowserContext;
use browserflow_cdp::page::{BrowserEvent, DownloadState, Page, PageEvent, PageEventKind};
use browserflow_cdp::session::{CdpConnection, CdpSession};

/// A page's typed events, each tagged with the page's name in the recording.
pub(super) fn tagged(page: String, mut rx: mpsc::UnboundedReceiver<PageEvent>) -> EventStream {
    Box::pin(futures::stream::poll_fn(move |cx| {
        rx.poll_recv(cx).map(|e| e.map(|e| (page.clone(), e)))
    }))
}

/// Installs the recorder in a session: the binding, the script for every future document
/// (and, `runImmediately`, the documents already there), and Runtime events for the worlds.
pub(super) async fn install(session: &CdpSession) -> Result<(), String> {
    let source = recorder_source();
    let (enable, binding, page) = futures::join!(
        session.run(&runtime::Enable {}),
        session.run(&runtime::AddBinding {
            name: BINDING.to_string(),
            execution_context_name: WORLD.to_string(),
        }),
        session.run(&cdp_page::Enable {}),
    );
    enable.map_err(|e| e.to_string())?;
    binding.map_err(|e| e.to_string())?;
    page.map_err(|e| e.to_string())?;
    // File choosers are answered through the recorder (which records the files), not by a
    // dialog the recording cannot see.
    session
        .run(&cdp_page::SetInterceptFileChooserDialog { enabled: true })
        .await
        .map_err(|e| e.to_string())?;
    session
        .run(&cdp_page::AddScriptToEvaluateOnNewDocument {
            source,
            world_name: WORLD.to_string(),
            run_immediately: true,
        })
        .await
        .map_err(|e| e.to_string())?;
    Ok(())
}

pub(super) async fn run(
    shared: Arc<Shared>,
    conn: CdpConnection,
    context: Arc<BrowserContext>,
    mut streams: SelectAll<EventStream>,
    mut browser_events: mpsc::UnboundedReceiver<BrowserEvent>,
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
                let Some((page, event)) = item else { break };
                handle(&shared, &conn, &mut loop_state, &page, event);
            }
            event = browser_events.recv() => {
                let Some(event) = event else { break };
                browser_event(&shared, &context, &control_tx, &mut loop_state, event);
            }
            message = control.recv() => match message {
                Some(Control::Watch(stream)) => streams.push(stream),
                Some(Control::Flush(done)) => {
                    while let Some(Some((page, event))) = futures::FutureExt::now_or_never(streams.next()) {
                        handle(&shared, &conn, &mut loop_state, &page, event);
                    }
                    while let Ok(event) = browser_events.try_recv() {
                        browser_event(&shared, &context, &control_tx, &mut loop_state, event);
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
    /// Downloads in progress: (GUID, suggested name, URL).
    downloads: Vec<(String, String, String)>,
    /// The URL of each child frame seen (by frame id): a frame's navigation is told with where
    /// it was, which is how the step acting in it names it.
    child_urls: std::collections::HashMap<String, String>,
    /// The fields (by token) typed into so far.
    typed_fields: std::collections::HashSet<String>,
    /// The popups (by name) whose window closed.
    closed_popups: std::collections::HashSet<String>,
}

/// The token of the field an `input` message names, the first time one does (a password
/// field's is never asked about: its fill is never typed by keys).
fn first_typed_field(state: &mut LoopState, message: &RecorderMessage) -> Option<String> {
    let RecorderMessage::Input(input) = message else {
        return None;
    };
    if input.target.password {
        return None;
    }
    let token = &input.target.token;
    state
        .typed_fields
        .insert(token.clone())
        .then(|| token.clone())
}

/// Asks whether the page listens to keys on the field `token` (see `key_listeners.rs`), and
/// tells the builder when it does.
fn ask_key_listeners(shared: &Arc<Shared>, session: CdpSession, context_id: i64, token: String) {
    shared.key_checks.send_modify(|n| *n += 1);
    let shared = shared.clone();
    tokio::spawn(async move {
        match page_listens_to_keys(&session, context_id, &token).await {
            Ok(Some(true)) => {
                let events = lock(&shared.builder).observe(Observed::KeyListeners { token }, &[]);
                shared.emit(events);
            }
            Ok(_) => {}
            Err(error) => tracing::debug!(%error, "could not ask whether the page listens to keys"),
        }
        shared.key_checks.send_modify(|n| *n -= 1);
    });
}

fn handle(
    shared: &Arc<Shared>,
    conn: &CdpConnection,
    state: &mut LoopState,
    page: &str,
    event: PageEvent,
) {
    let Some(page_handle) = shared.page(page) else {
        return;
    };
    let top_session = event.from_page_session();
    let session = event.session_id;
    let observe = |observed: Observed| {
        let frames = shared.frames_of(page);
        let events = lock(&shared.builder).observe(observed, &frames);
        shared.emit(events);
    };
    match event.kind {
        PageEventKind::BindingCalled {
            name,
            payload,
            execution_context_id,
        } if name == BINDING => {
            // Read once, here: every kind its own variant, an unreadable message said.
            let message = match protocol::read(page, &payload) {
                Ok(message) => message,
                Err(error) => {
                    tracing::warn!(%error, "the recorder script sent an unreadable message");
                    shared.emit(vec![RecordEvent::ProtocolError(error)]);
                    return;
                }
            };
            // Where each child frame is before this action: a navigation it causes in one
            // is told from there.
            for (frame_id, frame) in page_handle.frames() {
                if frame.parent.is_some() {
                    state.child_urls.entry(frame_id).or_insert(frame.url);
                }
            }
            if let Some(token) = first_typed_field(state, &message) {
                ask_key_listeners(
                    shared,
                    conn.session(session.clone()),
                    execution_context_id,
                    token,
                );
            }
            match message {
                RecorderMessage::Ready(_) => {}
                // A press or a named key is about to act: the page still shows the last step.
                RecorderMessage::Acting(acting) => {
                    lock(&shared.network).acting(&acting);
                    capture_announced(shared, page, &acting);
                }
                // Escape in pick mode: the pick ends with nothing picked.
                RecorderMessage::PickCancelled(_) => {
                    if let Some(tx) = lock(&shared.pick).take() {
                        let _ = tx.send(None);
                    }
                }
                RecorderMessage::Pick(pick) => {
                    let frames = shared.frames_of(page);
                    let picked =
                        Builder::picked(page, pick.target, pick.read, &pick.frame, &frames);
                    if let Some(picked) = picked {
                        if let Some(tx) = lock(&shared.pick).take() {
                            let _ = tx.send(Some(picked.clone()));
                        }
                        shared.emit(vec![RecordEvent::Picked(Box::new(picked))]);
                    }
                }
                message @ (RecorderMessage::Clicking(_)
                | RecorderMessage::State(_)
                | RecorderMessage::Owner(_)
                | RecorderMessage::Click(_)
                | RecorderMessage::Dblclick(_)
                | RecorderMessage::Drag(_)
                | RecorderMessage::Input(_)
                | RecorderMessage::Select(_)
                | RecorderMessage::Key(_)
                | RecorderMessage::Scroll(_)
                | RecorderMessage::Files(_)) => {
                    let moment = message.moment();
                    let events = lock(&shared.builder).observe(
                        Observed::Script {
                            page: page.to_string(),
                            message: Box::new(message),
                        },
                        &shared.frames_of(page),
                    );
                    if let Some(moment) = &moment {
                        crate::settle::note_steps(shared, moment, &events);
                    }
                    shared.emit(events);
                }
            }
        }
        PageEventKind::RequestSent { .. }
        | PageEventKind::RequestAnswered { .. }
        | PageEventKind::WebSocketOpened { .. }
        | PageEventKind::WebSocketHandshake { .. }
        | PageEventKind::WebSocketFrame { .. } => lock(&shared.network).network(page, &event.kind),
        PageEventKind::ExecutionContextCreated {
            context_id,
            unique_id,
            name,
            frame_id,
        } if name == WORLD => {
            let frame_id = frame_id.unwrap_or_default();
            let top = top_session && frame_id == page_handle.target_id();
            lock(&shared.worlds).push(World {
                page: page.to_string(),
                session,
                context_id,
                unique_id,
                frame_id,
                top,
            });
            shared.bump();
        }
        PageEventKind::ExecutionContextDestroyed { unique_id } => {
            lock(&shared.worlds).retain(|w| !(w.session == session && w.unique_id == unique_id));
            shared.bump();
        }
        PageEventKind::ExecutionContextsCleared => {
            lock(&shared.worlds).retain(|w| w.session != session);
            shared.bump();
        }
        PageEventKind::NavigationRequested { frame_id, url, .. }
            if top_session && frame_id == page_handle.target_id() =>
        {
            if !state.requested.iter().any(|r| r == page) {
                state.requested.push(page.to_string());
            }
            observe(Observed::NavigationRequested { url });
        }
        PageEventKind::FrameNavigated {
            parent_id: None,
            from_back_forward_cache: false,
            url,
            ..
        } if top_session => {
            let before = state.requested.len();
            state.requested.retain(|r| r != page);
            observe(Observed::MainNavigated {
                page: page.to_string(),
                url,
                renderer_initiated: state.requested.len() != before,
            });
        }
        PageEventKind::FrameNavigated {
            frame_id,
            parent_id: Some(_),
            from_back_forward_cache: false,
            url,
            name,
            ..
        } => {
            if let Some(previous) = state.child_urls.insert(frame_id, url.clone())
                && previous != url
            {
                observe(Observed::ChildFrameNavigated {
                    page: page.to_string(),
                    name,
                    previous,
                    url,
                });
            }
        }
        // The page answered it already (see `prepare_dialogs`); its kind names the step.
        PageEventKind::DialogOpened { kind, .. } => observe(Observed::DialogOpened { kind }),
        PageEventKind::FileChooserOpened {
            backend_node_id,
            multiple,
            ..
        } => {
            let id = shared.choosers.fetch_add(1, Ordering::Relaxed) + 1;
            observe(Observed::FileChooserOpened(FileChooserRequest {
                id,
                page: page.to_string(),
                multiple,
                session,
                backend_node_id,
            }));
        }
        PageEventKind::DialogClosed {
            accepted,
            user_input,
            ..
        } => observe(Observed::DialogClosed {
            page: page.to_string(),
            accepted,
            user_input,
        }),
        PageEventKind::TargetAttached {
            session_id,
            target_type,
            ..
        } if target_type == "iframe" => {
            // An out-of-process iframe: the page follows its session (its events come with
            // the page's); record in it too.
            let child = conn.session(Some(session_id));
            tokio::spawn(async move {
                if let Err(message) = install(&child).await {
                    tracing::debug!(%message, "could not install the recorder in an iframe");
                }
            });
        }
        PageEventKind::Detached | PageEventKind::Crashed if top_session && page == MAIN_PAGE => {
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
    event: BrowserEvent,
) {
    match event {
        BrowserEvent::PageCreated {
            target_id,
            opener_id,
            url,
        } => {
            let opener = opener_id.unwrap_or_default();
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
                match context.attach_page(&target_id).await {
                    Ok(popup) => {
                        let _ =
                            control.send(Control::Watch(tagged(name.clone(), popup.subscribe())));
                        lock(&shared.pages).push((name.clone(), popup.clone()));
                        prepare_dialogs(&popup, shared.dialogs);
                        if let Err(error) = popup.enable_network().await {
                            tracing::debug!(%error, "no network events from a popup");
                        }
                        if let Err(message) = install(popup.session()).await {
                            tracing::debug!(%message, "could not install the recorder in a popup");
                        }
                    }
                    Err(error) => tracing::debug!(%error, "could not attach to a popup"),
                }
            });
        }
        BrowserEvent::DownloadWillBegin {
            frame_id,
            guid,
            url,
            suggested_filename,
        } => {
            let page = lock(&shared.pages)
                .iter()
                .find(|(_, page)| page.frame_state(&frame_id).is_some())
                .map(|(name, _)| name.clone());
            let Some(page) = page else { return };
            // The link's navigation request turned into a download: nothing will commit.
            state.requested.retain(|r| *r != page);
            let events = lock(&shared.builder).observe(
                Observed::DownloadStarted {
                    page,
                    guid: guid.clone(),
                    url: url.clone(),
                    suggested: suggested_filename.clone(),
                },
                &[],
            );
            shared.emit(events);
            state.downloads.push((guid, suggested_filename, url));
        }
        BrowserEvent::DownloadProgress {
            guid,
            state: DownloadState::Completed,
        } => {
            let Some(at) = state.downloads.iter().position(|(g, _, _)| *g == guid) else {
                return;
            };
            let (guid, suggested, url) = state.downloads.remove(at);
            let shared = shared.clone();
            tokio::spawn(async move {
                let dir = shared.download_dir.clone();
                let saved = tokio::task::spawn_blocking(move || {
                    browserflow_cdp::downloads::finish(&dir, &guid, &suggested, &url)
                        .map(|f| (guid, f))
                })
                .await;
                match saved {
                    Ok(Ok((guid, file))) => {
                        let events = lock(&shared.builder)
                            .observe(Observed::DownloadFinished { guid, file }, &[]);
                        shared.emit(events);
                    }
                    Ok(Err(message)) => {
                        tracing::warn!(%message, "a recorded download was not saved")
                    }
                    Err(error) => tracing::warn!(%error, "saving a recorded download failed"),
                }
            });
        }
        // The recorded window (the main page) closed: the recording ends. A popup closed (by
        // the page or by the person): recorded, so the replay closes it too.
        BrowserEvent::TargetDestroyed { target_id } => {
            let closed = lock(&shared.pages)
                .iter()
                .find(|(_, p)| p.target_id() == target_id)
                .map(|(name, _)| name.clone());
            match closed {
                Some(name) if name == MAIN_PAGE => close(shared),
                Some(name) if state.closed_popups.insert(name.clone()) => {
                    let events = lock(&shared.builder).observe(Observed::PopupClosed { name }, &[]);
                    shared.emit(events);
                }
                _ => {}
            }
        }
        BrowserEvent::SessionDetached { session_id } => {
            let main = shared
                .page(MAIN_PAGE)
                .and_then(|p| p.session().id().map(str::to_string));
            if main.as_deref() == Some(session_id.as_str()) {
                close(shared);
            }
        }
        _ => {}
    }
}

/// Tells the page who answers its dialogs: the person at the window, or the page itself with
/// OK for every one. The answer given is recorded from [`PageEventKind::DialogClosed`] either
/// way.
pub(super) fn prepare_dialogs(page: &Page, answers: DialogAnswers) {
    match answers {
        DialogAnswers::Person => page.leave_dialogs_open(true),
        DialogAnswers::AcceptAll => page.accept_dialogs(true),
    }
}

pub(super) fn close(shared: &Shared) {
    if !*shared.closed.borrow() {
        shared.closed.send_replace(true);
        if let Some(tx) = lock(&shared.pick).take() {
            drop(tx);
        }
        shared.emit(vec![RecordEvent::Closed]);
    }
}
