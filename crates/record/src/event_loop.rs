//! The recording's event loop: every CDP session of the recorded pages and frames feeds one
//! loop, which installs the recorder script where new documents appear, turns the script's
//! reports and the browser's events (navigations, popups, dialogs, downloads, file choosers)
//! into [`Observed`] facts for the [`Builder`], and emits the resulting [`RecordEvent`]s.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use futures::stream::{SelectAll, StreamExt};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::capture::{Builder, Observed};
use super::recorder::{BINDING, Control, EventStream, Shared, WORLD, World, lock, recorder_source};
use super::{DialogAnswers, FileChooserRequest, MAIN_PAGE, RecordEvent};
use browserflow_cdp::downloads::DownloadBegin;
use browserflow_cdp::launch::BrowserContext;
use browserflow_cdp::page::{DialogResponse, Page};
use browserflow_cdp::session::{CdpConnection, CdpEvent, CdpSession};

pub(super) fn tagged(
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
pub(super) async fn install(session: &CdpSession) -> Result<(), String> {
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
    // File choosers are answered through the recorder (which records the files), not by a
    // dialog the recording cannot see.
    session
        .call(
            "Page.setInterceptFileChooserDialog",
            json!({ "enabled": true }),
        )
        .await
        .map_err(|e| e.to_string())?;
    session
        .call(
            "Page.addScriptToEvaluateOnNewDocument",
            json!({ "source": source, "worldName": WORLD, "runImmediately": true }),
        )
        .await
        .map_err(|e| e.to_string())?;
    Ok(())
}

pub(super) async fn run(
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
    /// Downloads in progress: (GUID, suggested name, URL).
    downloads: Vec<(String, String, String)>,
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
            if shared.dialogs == DialogAnswers::AcceptAll {
                page_handle.arm_dialog(DialogResponse {
                    accept: true,
                    prompt_text: None,
                });
            }
            observe(Observed::DialogOpened {
                kind: p["type"].as_str().unwrap_or("alert").to_string(),
            });
        }
        "Page.fileChooserOpened" => {
            let id = shared.choosers.fetch_add(1, Ordering::Relaxed) + 1;
            observe(Observed::FileChooserOpened(FileChooserRequest {
                id,
                page: page.to_string(),
                multiple: p["mode"] == "selectMultiple",
                session: session.clone(),
                backend_node_id: p["backendNodeId"].as_i64().unwrap_or_default(),
            }));
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
                        prepare_dialogs(&popup, shared.dialogs);
                        if let Err(message) = install(popup.session()).await {
                            tracing::debug!(%message, "could not install the recorder in a popup");
                        }
                    }
                    Err(error) => tracing::debug!(%error, "could not attach to a popup"),
                }
            });
        }
        "Browser.downloadWillBegin" => {
            let p = &event.params;
            let frame = p["frameId"].as_str().unwrap_or_default();
            let page = lock(&shared.pages)
                .iter()
                .find(|(_, page)| page.frame_state(frame).is_some())
                .map(|(name, _)| name.clone());
            let Some(page) = page else { return };
            // The link's navigation request turned into a download: nothing will commit.
            state.requested.retain(|r| *r != page);
            let DownloadBegin {
                guid,
                url,
                suggested,
            } = DownloadBegin::from_params(p);
            let events = lock(&shared.builder).observe(
                Observed::DownloadStarted {
                    page,
                    guid,
                    url,
                    suggested,
                },
                &[],
            );
            shared.emit(events);
            let guid = p["guid"].as_str().unwrap_or_default().to_string();
            state.downloads.push((
                guid,
                p["suggestedFilename"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                p["url"].as_str().unwrap_or_default().to_string(),
            ));
        }
        "Browser.downloadProgress" if event.params["state"] == "completed" => {
            let guid = event.params["guid"].as_str().unwrap_or_default();
            let Some(at) = state.downloads.iter().position(|(g, _, _)| g == guid) else {
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

/// Leaves dialogs to the person, or arms an OK for the first one (each dialog that opens
/// arms the next: see `Page.javascriptDialogOpening`). The answer given is recorded from
/// `Page.javascriptDialogClosed` either way.
pub(super) fn prepare_dialogs(page: &Page, answers: DialogAnswers) {
    match answers {
        DialogAnswers::Person => page.leave_dialogs_open(true),
        DialogAnswers::AcceptAll => page.arm_dialog(DialogResponse {
            accept: true,
            prompt_text: None,
        }),
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

pub(super) fn maybe_thumbnails(shared: &Arc<Shared>, page: &Page, events: &[RecordEvent]) {
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
                let Ok(thumb) = browserflow_cdp::thumbnail::thumbnail_png(&png, 240) else {
                    return;
                };
                let event = lock(&shared.builder).set_thumbnail(index, thumb);
                shared.emit(event.into_iter().collect());
            });
        }
    }
}
