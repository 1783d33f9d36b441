//! The interpreter as a state machine: CDP messages in (as JSON, the way Chromium sends them),
//! state, typed events and effects out. No browser.

use serde_json::{Value, json};

use super::super::browser_watcher::interpret_browser_event;
use super::super::events::{BrowserEvent, DownloadState};
use super::super::navigation::{NavMark, navigation_began, navigation_settled};
use super::*;

mod navigation;

const PAGE_SESSION: &str = "PAGE-SESSION";
const MAIN: &str = "MAIN";

fn page_source() -> Source {
    Source {
        session_id: Some(PAGE_SESSION.into()),
        child_frame: None,
    }
}

fn child_source(session: &str, frame: &str) -> Source {
    Source {
        session_id: Some(session.into()),
        child_frame: Some(frame.into()),
    }
}

fn cdp(method: &str, params: Value) -> CdpEvent {
    CdpEvent {
        method: method.into(),
        session_id: Some(PAGE_SESSION.into()),
        params,
    }
}

fn feed(state: &mut PageState, method: &str, params: Value) -> Interpreted {
    interpret(state, &page_source(), &cdp(method, params))
}

/// A `Page.frameNavigated` as Chromium sends it (every field its `Frame` requires).
fn navigated(id: &str, parent: Option<&str>, url: &str, loader: &str) -> Value {
    let mut frame = json!({
        "id": id, "loaderId": loader, "url": url, "name": "",
        "domainAndRegistry": "127.0.0.1", "securityOrigin": "http://127.0.0.1:4780",
        "mimeType": "text/html", "secureContextType": "SecureLocalhost",
        "crossOriginIsolatedContextType": "NotIsolated", "gatedAPIFeatures": [],
        "adFrameStatus": { "adFrameType": "none" },
    });
    if let Some(parent) = parent {
        frame["parentId"] = json!(parent);
    }
    json!({ "frame": frame, "type": "Navigation" })
}

/// A target of `kind` is auto-attached to the page's session, waiting for us.
fn attach_target(
    state: &mut PageState,
    session: &str,
    target: &str,
    kind: &str,
    url: &str,
) -> Interpreted {
    let params = json!({ "sessionId": session, "waitingForDebugger": true, "targetInfo": {
        "targetId": target, "type": kind, "title": "", "url": url,
        "attached": true, "canAccessOpener": false } });
    feed(state, "Target.attachedToTarget", params)
}

/// A dialog of `kind` opens in the main frame.
fn open_dialog(state: &mut PageState, kind: &str) -> Interpreted {
    let params = json!({ "url": "http://127.0.0.1/d.html", "frameId": MAIN, "message": "Sure?",
            "type": kind, "hasBrowserHandler": false, "defaultPrompt": "" });
    feed(state, "Page.javascriptDialogOpening", params)
}

/// Whether the page accepted the dialog (`None`: it left it open).
fn accepted(out: &Interpreted) -> Option<bool> {
    match &out.effect {
        Some(Effect::AnswerDialog(response)) => Some(response.accept),
        _ => None,
    }
}

#[test]
fn iframes_attach_in_order_and_a_swap_keeps_the_frame() {
    let mut state = PageState::default();
    for id in ["A", "B"] {
        let out = feed(
            &mut state,
            "Page.frameAttached",
            json!({ "frameId": id, "parentFrameId": MAIN }),
        );
        assert!(matches!(
            out.event,
            Some(PageEventKind::FrameAttached { .. })
        ));
    }
    assert!(state.frames["A"].seq < state.frames["B"].seq);
    assert_eq!(state.frames["B"].parent.as_deref(), Some(MAIN));
    feed(
        &mut state,
        "Page.frameDetached",
        json!({ "frameId": "A", "reason": "swap" }),
    );
    feed(
        &mut state,
        "Page.frameDetached",
        json!({ "frameId": "B", "reason": "remove" }),
    );
    assert!(state.frames.contains_key("A"));
    assert!(!state.frames.contains_key("B"));
}

#[test]
fn an_out_of_process_iframe_is_followed_and_its_commit_names_its_session() {
    let mut state = PageState::default();
    let out = attach_target(&mut state, "CHILD", "F1", "iframe", "http://other/f.html");
    assert_eq!(
        out.effect,
        Some(Effect::FollowFrame {
            session_id: "CHILD".into(),
            frame_id: "F1".into()
        })
    );
    assert_eq!(state.frames["F1"].session.as_deref(), Some("CHILD"));
    // The child session's own commit: no world is prewarmed for it.
    let out = interpret(
        &mut state,
        &child_source("CHILD", "F1"),
        &cdp(
            "Page.frameNavigated",
            navigated("F1", Some(MAIN), "http://other/f.html", "LF"),
        ),
    );
    assert_eq!(out.effect, None);
    assert_eq!(state.frames["F1"].url, "http://other/f.html");
    feed(
        &mut state,
        "Target.detachedFromTarget",
        json!({ "sessionId": "CHILD" }),
    );
    assert_eq!(state.frames["F1"].session, None);

    let out = attach_target(&mut state, "W", "W1", "worker", "http://x/w.js");
    assert_eq!(
        out.effect,
        Some(Effect::Resume {
            session_id: "W".into()
        })
    );
}

#[test]
fn dialogs_take_the_armed_answer_then_the_default() {
    let mut state = PageState::default();
    state.armed_dialogs.push_back(DialogResponse {
        accept: true,
        prompt_text: Some("42".into()),
    });
    let first = open_dialog(&mut state, "prompt");
    assert_eq!(
        first.effect,
        Some(Effect::AnswerDialog(DialogResponse {
            accept: true,
            prompt_text: Some("42".into())
        }))
    );
    let second = open_dialog(&mut state, "confirm");
    assert_eq!(
        second.effect,
        Some(Effect::AnswerDialog(DialogResponse {
            accept: false,
            prompt_text: None
        }))
    );
    let leaving = open_dialog(&mut state, "beforeunload");
    assert_eq!(accepted(&leaving), Some(true));
    let kinds: Vec<(&str, bool)> = state
        .dialogs
        .iter()
        .map(|d| (d.kind.as_str(), d.accepted))
        .collect();
    assert_eq!(
        kinds,
        [("prompt", true), ("confirm", false), ("beforeunload", true)]
    );
}

#[test]
fn dialogs_accepted_all_or_left_open() {
    let mut state = PageState {
        accept_dialogs: true,
        ..PageState::default()
    };
    for _ in 0..2 {
        let out = open_dialog(&mut state, "confirm");
        assert_eq!(accepted(&out), Some(true));
    }
    let mut state = PageState {
        dialogs_left_open: true,
        ..PageState::default()
    };
    let out = open_dialog(&mut state, "alert");
    assert_eq!(out.effect, None);
    assert!(matches!(
        out.event,
        Some(PageEventKind::DialogOpened { answer: None, ref kind, .. }) if kind == "alert"
    ));
    assert!(state.dialogs.is_empty());
    let out = feed(
        &mut state,
        "Page.javascriptDialogClosed",
        json!({ "frameId": MAIN, "result": true, "userInput": "yes" }),
    );
    assert_eq!(
        out.event,
        Some(PageEventKind::DialogClosed {
            frame_id: MAIN.into(),
            accepted: true,
            user_input: "yes".into()
        })
    );
}

#[test]
fn file_choosers_keep_their_session() {
    let mut state = PageState::default();
    let out = interpret(
        &mut state,
        &child_source("CHILD", "F1"),
        &cdp(
            "Page.fileChooserOpened",
            json!({ "frameId": "F1", "mode": "selectMultiple", "backendNodeId": 7 }),
        ),
    );
    assert_eq!(
        out.event,
        Some(PageEventKind::FileChooserOpened {
            frame_id: "F1".into(),
            backend_node_id: 7,
            multiple: true
        })
    );
    let chooser = &state.file_choosers[0];
    assert_eq!(
        (chooser.backend_node_id, chooser.mode.as_str()),
        (7, "selectMultiple")
    );
    assert_eq!(chooser.session.as_deref(), Some("CHILD"));
}

#[test]
fn runtime_events_are_typed() {
    let mut state = PageState::default();
    let out = feed(
        &mut state,
        "Runtime.executionContextCreated",
        json!({ "context": { "id": 3, "origin": "http://x", "name": "__world",
                "uniqueId": "U3", "auxData": { "frameId": MAIN, "isDefault": false } } }),
    );
    assert_eq!(
        out.event,
        Some(PageEventKind::ExecutionContextCreated {
            context_id: 3,
            unique_id: "U3".into(),
            name: "__world".into(),
            frame_id: Some(MAIN.into())
        })
    );
    let out = feed(
        &mut state,
        "Runtime.bindingCalled",
        json!({ "name": "__b", "payload": "{\"type\":\"ready\"}", "executionContextId": 3 }),
    );
    assert_eq!(
        out.event,
        Some(PageEventKind::BindingCalled {
            name: "__b".into(),
            payload: "{\"type\":\"ready\"}".into(),
            execution_context_id: 3
        })
    );
    let out = feed(
        &mut state,
        "Runtime.executionContextDestroyed",
        json!({ "executionContextId": 3, "executionContextUniqueId": "U3" }),
    );
    assert_eq!(
        out.event,
        Some(PageEventKind::ExecutionContextDestroyed {
            unique_id: "U3".into()
        })
    );
}

#[test]
fn an_intercepted_drag_hands_on_its_data_as_chromium_sent_it() {
    let mut state = PageState::default();
    // As Chromium 156 sends it for `html5-dnd.html`'s card (its dragstart sets one type).
    let data = json!({
        "items": [{ "mimeType": "application/x-card", "data": "tests" }],
        "dragOperationsMask": 16,
    });
    let out = feed(
        &mut state,
        "Input.dragIntercepted",
        json!({ "data": data.clone() }),
    );
    assert_eq!(
        out,
        Interpreted::event(PageEventKind::DragIntercepted { data })
    );
    // Without the allowed operations it is not a drag Chromium would take back: skipped.
    let broken = feed(
        &mut state,
        "Input.dragIntercepted",
        json!({ "data": { "items": [] } }),
    );
    assert_eq!(broken, Interpreted::default());
}

#[test]
fn a_crash_or_detach_ends_the_page_and_unknown_or_broken_events_change_nothing() {
    let mut state = PageState::default();
    assert_eq!(
        feed(&mut state, "Network.requestWillBeSent", json!({})),
        Interpreted::default()
    );
    // A frameNavigated without its frame does not decode: skipped, not half-applied.
    assert_eq!(
        feed(
            &mut state,
            "Page.frameNavigated",
            json!({ "type": "Navigation" })
        ),
        Interpreted::default()
    );
    assert!(state.frames.is_empty());
    let out = feed(&mut state, "Inspector.targetCrashed", json!({}));
    assert_eq!(out.event, Some(PageEventKind::Crashed));
    assert!(state.crashed);
    feed(
        &mut state,
        "Inspector.detached",
        json!({ "reason": "target_closed" }),
    );
    assert!(state.closed);
    // A renderer killed under the page: Chromium detaches saying so, and that is a crash.
    let mut killed = PageState::default();
    let out = feed(
        &mut killed,
        "Inspector.detached",
        json!({ "reason": "Render process gone." }),
    );
    assert_eq!(out.event, Some(PageEventKind::Crashed));
    assert!(killed.crashed);
}

#[test]
fn browser_events_name_popups_and_downloads() {
    let browser = |method: &str, params: Value| CdpEvent {
        method: method.into(),
        session_id: None,
        params,
    };
    let created = browser(
        "Target.targetCreated",
        json!({ "targetInfo": { "targetId": "P2", "type": "page", "title": "", "url": "http://x/p",
                "attached": false, "canAccessOpener": true, "openerId": "P1" } }),
    );
    assert_eq!(
        interpret_browser_event(&created),
        Some(BrowserEvent::PageCreated {
            target_id: "P2".into(),
            opener_id: Some("P1".into()),
            url: "http://x/p".into()
        })
    );
    let worker = browser(
        "Target.targetCreated",
        json!({ "targetInfo": { "targetId": "W", "type": "service_worker", "title": "",
                "url": "http://x/sw.js", "attached": false, "canAccessOpener": false } }),
    );
    assert_eq!(interpret_browser_event(&worker), None);
    let begin = browser(
        "Browser.downloadWillBegin",
        json!({ "frameId": "P1", "guid": "G", "url": "http://x/f.csv", "suggestedFilename": "f.csv" }),
    );
    assert_eq!(
        interpret_browser_event(&begin),
        Some(BrowserEvent::DownloadWillBegin {
            frame_id: "P1".into(),
            guid: "G".into(),
            url: "http://x/f.csv".into(),
            suggested_filename: "f.csv".into()
        })
    );
    let done = browser(
        "Browser.downloadProgress",
        json!({ "guid": "G", "totalBytes": 3.0, "receivedBytes": 3.0, "state": "completed" }),
    );
    assert_eq!(
        interpret_browser_event(&done),
        Some(BrowserEvent::DownloadProgress {
            guid: "G".into(),
            state: DownloadState::Completed
        })
    );
}

/// Messages as Chromium 156 sent them (captured from `/usr/bin/chromium`): chromiumoxide's
/// structs must decode every one, or the page would miss them.
const CHROMIUM_156: &[&str] = &[
    r#"{"method":"Runtime.executionContextCreated","params":{"context":{"id":1,"origin":"://","name":"","uniqueId":"-5022535771303477978.662483420007908523","auxData":{"isDefault":true,"type":"default","frameId":"AE3C5B24C6BB32F8EC32E80D55E0E73C"}}},"sessionId":"88B880F39721CAA112B1CC058543DB55"}"#,
    r#"{"method":"Page.frameNavigated","params":{"frame":{"id":"AE3C5B24C6BB32F8EC32E80D55E0E73C","loaderId":"E1ACA1FBA3280F23440FF639BECFAA8B","url":"data:text/html,<iframe src=\"data:text/html,hi\"></iframe><input type=file id=f><script>setTimeout(()=>confirm(\"x\"),300)</script>","domainAndRegistry":"","securityOrigin":"://","securityOriginDetails":{"isLocalhost":false},"mimeType":"text/html","adFrameStatus":{"adFrameType":"none"},"secureContextType":"InsecureScheme","crossOriginIsolatedContextType":"NotIsolated","gatedAPIFeatures":[]},"type":"Navigation"},"sessionId":"88B880F39721CAA112B1CC058543DB55"}"#,
    r#"{"method":"Page.frameAttached","params":{"frameId":"4B8A2FE473A6D0047C3FA421657823A5","parentFrameId":"AE3C5B24C6BB32F8EC32E80D55E0E73C"},"sessionId":"88B880F39721CAA112B1CC058543DB55"}"#,
    r#"{"method":"Page.frameRequestedNavigation","params":{"frameId":"4B8A2FE473A6D0047C3FA421657823A5","reason":"initialFrameNavigation","url":"data:text/html,hi","disposition":"currentTab"},"sessionId":"88B880F39721CAA112B1CC058543DB55"}"#,
    r#"{"method":"Page.frameNavigated","params":{"frame":{"id":"4B8A2FE473A6D0047C3FA421657823A5","parentId":"AE3C5B24C6BB32F8EC32E80D55E0E73C","loaderId":"4D4965738598D66E4FDBEC3CE2D7A381","name":"","url":"data:text/html,hi","domainAndRegistry":"","securityOrigin":"://","securityOriginDetails":{"isLocalhost":false},"mimeType":"text/html","adFrameStatus":{"adFrameType":"none","explanations":[]},"secureContextType":"InsecureScheme","crossOriginIsolatedContextType":"NotIsolatedFeatureDisabled","gatedAPIFeatures":[]},"type":"Navigation"},"sessionId":"88B880F39721CAA112B1CC058543DB55"}"#,
    r#"{"method":"Page.javascriptDialogOpening","params":{"url":"data:text/html,<iframe src=\"data:text/html,hi\"></iframe><input type=file id=f><script>setTimeout(()=>confirm(\"x\"),300)</script>","frameId":"AE3C5B24C6BB32F8EC32E80D55E0E73C","message":"x","type":"confirm","hasBrowserHandler":true,"defaultPrompt":""},"sessionId":"88B880F39721CAA112B1CC058543DB55"}"#,
    r#"{"method":"Page.javascriptDialogClosed","params":{"frameId":"AE3C5B24C6BB32F8EC32E80D55E0E73C","result":true,"userInput":""},"sessionId":"88B880F39721CAA112B1CC058543DB55"}"#,
    r#"{"method":"Inspector.detached","params":{"reason":"Render process gone."},"sessionId":"88B880F39721CAA112B1CC058543DB55"}"#,
];

#[test]
fn messages_of_the_chromium_we_drive_decode() {
    let mut state = PageState::default();
    for message in CHROMIUM_156 {
        let event: CdpEvent = serde_json::from_str(message).unwrap();
        let out = interpret(&mut state, &page_source(), &event);
        assert!(out.event.is_some(), "{} did not decode", event.method);
    }
    let main = "AE3C5B24C6BB32F8EC32E80D55E0E73C";
    let child = &state.frames["4B8A2FE473A6D0047C3FA421657823A5"];
    assert_eq!(child.parent.as_deref(), Some(main));
    assert_eq!(child.url, "data:text/html,hi");
    assert_eq!(state.dialogs.len(), 1);
    // The capture ends with its renderer gone: a crash, which ends the page.
    assert!(state.crashed);
}
