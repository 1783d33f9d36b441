//! The settle of a step, event by event, fed the `Network` events Chromium sent while Shiny
//! for Python answered a click (captured, decoded by the engine's own decoder): no browser.

use browserflow_cdp::page::{SocketFrame, network_event};
use browserflow_steps::{SocketPattern, frame_parts};
use serde_json::Value;

use super::*;

/// A capture of `tests/fixtures/settle/shiny/captured`: the events after the click, in order.
fn after_click(capture: &str) -> Vec<PageEventKind> {
    let mut clicked = false;
    let mut events = Vec::new();
    for line in capture.lines() {
        let line: Value = serde_json::from_str(line).unwrap();
        if line["gesture"] == "click" {
            clicked = true;
        }
        if let (true, Some(method)) = (clicked, line["method"].as_str()) {
            events.extend(network_event(method, &line["params"]));
        }
    }
    events
}

const CLICK_FLUSHES_QUERY: &str =
    include_str!("../../../../tests/fixtures/settle/shiny/captured/click-flushes-query.jsonl");
const SILENT_SERVER: &str =
    include_str!("../../../../tests/fixtures/settle/shiny/captured/silent-server.jsonl");

/// The click's settle as the recorder writes it for the Shiny search (see the recorder's
/// tests, which derive it from the same kind of capture).
fn search() -> Settle {
    Settle {
        requests: vec![],
        sockets: vec![SocketPattern {
            path: "/websocket/".into(),
            replies: vec!["errors".into(), "inputMessages".into(), "values".into()],
            times: 1,
            opens: vec![
                "busy=busy".into(),
                "busy=idle".into(),
                "progress".into(),
                "recalculating".into(),
            ],
            sends: vec!["method=update".into()],
            at_rest: true,
        }],
    }
}

fn url(_: &str) -> Option<String> {
    Some("ws://127.0.0.1:18765/websocket/".into())
}

#[test]
fn a_socket_answer_completes_at_the_search_values_not_the_flushed_query() {
    let mut progress = Progress::new(&search());
    let mut answered_at = None;
    for (n, event) in after_click(CLICK_FLUSHES_QUERY).into_iter().enumerate() {
        let text = match &event {
            PageEventKind::WebSocketFrame { text, .. } => text.clone(),
            _ => None,
        };
        let taken = progress.take(event, url);
        if progress.answered() && answered_at.is_none() {
            assert_eq!(taken, Taken::AnsweredSocketFrame);
            answered_at = Some((n, text));
        }
    }
    let (n, text) = answered_at.expect("the search was answered");
    // Not the empty `values` that answered the query the click flushed (the third event):
    // the one that carries the search's result.
    assert!(n > 2, "answered at event {n}");
    assert!(
        text.as_deref()
            .is_some_and(|t| t.contains("Electric kettle")),
        "{text:?}"
    );
}

/// The frames of a capture before its first gesture (the page's `init` and its answer).
fn before_gestures(capture: &str) -> Vec<SocketFrame> {
    let mut frames = Vec::new();
    for line in capture.lines() {
        let line: Value = serde_json::from_str(line).unwrap();
        if line["gesture"].is_string() {
            break;
        }
        if let Some(PageEventKind::WebSocketFrame { sent, text, .. }) =
            network_event(line["method"].as_str().unwrap(), &line["params"])
        {
            frames.push(SocketFrame { sent, text });
        }
    }
    frames
}

#[test]
fn a_click_acts_once_the_page_s_init_is_answered_whose_values_would_pass_for_its_own() {
    let pattern = &search().sockets[0];
    let init = before_gestures(CLICK_FLUSHES_QUERY);
    let log = |n: usize| SocketLog {
        request_id: "s".into(),
        url: url("s").unwrap(),
        frames: init[..n].to_vec(),
        truncated: false,
    };
    // Sent, then `config`, `busy`, `recalculating`, `busy=idle`: at rest only at the values.
    let first_values = init
        .iter()
        .position(|f| {
            f.text
                .as_deref()
                .is_some_and(|t| t.starts_with(r#"{"values""#))
        })
        .unwrap();
    for n in 0..=first_values {
        assert!(!rests(pattern, &log(n)), "{n} frames");
    }
    assert!(rests(pattern, &log(first_values + 1)));
    assert!(rests(pattern, &log(init.len())));

    // Why: a click sent while that answer is still coming (as a replay that acted at once
    // saw it) takes the init's `values` for the search's.
    let mut progress = Progress::new(&search());
    let frame = |sent: bool, text: &str| PageEventKind::WebSocketFrame {
        request_id: "s".into(),
        timestamp: 0.0,
        sent,
        text: Some(text.into()),
    };
    progress.take(
        frame(true, r#"{"method":"update","data":{"go:shiny.action":1}}"#),
        url,
    );
    for f in &init[2..=first_values] {
        progress.take(frame(f.sent, f.text.as_deref().unwrap()), url);
    }
    assert!(
        progress.answered(),
        "the early answer passes for the gesture's"
    );
}

#[test]
fn a_silent_server_leaves_the_answer_begun_and_unfinished_and_says_so() {
    let mut progress = Progress::new(&search());
    for event in after_click(SILENT_SERVER) {
        progress.take(event, url);
    }
    assert!(!progress.answered());
    let failure = progress.failure(Duration::from_millis(5000));
    assert_eq!(failure.kind, FailureKind::NotSettled);
    assert_eq!(
        failure.message,
        "waited 5000 ms for what the step set off when recorded:\n  expected a reply on the \
         WebSocket /websocket/ (1 × errors + inputMessages + values after busy=busy or \
         busy=idle or progress or recalculating); seen: a frame sent, then progress, \
         busy=busy, progress, recalculating (the answer began, 0 closing)"
    );
}

#[test]
fn a_frame_on_another_socket_or_a_heartbeat_is_not_the_exchange() {
    let mut progress = Progress::new(&search());
    let frame = |id: &str, sent: bool, text: &str| PageEventKind::WebSocketFrame {
        request_id: id.into(),
        timestamp: 0.0,
        sent,
        text: Some(text.into()),
    };
    let other = |id: &str| (id == "elsewhere").then(|| "ws://127.0.0.1:18765/other".to_string());
    // Another socket's update, then an Engine.IO pong: the exchange has not started.
    progress.take(frame("elsewhere", true, r#"{"method":"update"}"#), other);
    progress.take(frame("s", true, "3"), other);
    assert_eq!(progress.sockets[0], SocketState::Waiting);
    // The page's own `init` is not the gesture's update.
    progress.take(frame("s", true, r#"{"method":"init","data":{}}"#), other);
    assert_eq!(progress.sockets[0], SocketState::Waiting);
    progress.take(frame("s", true, r#"{"method":"update","data":{}}"#), other);
    for text in [
        r#"{"busy":"busy"}"#,
        "2",
        r#"{"values":{"a":1},"errors":{},"inputMessages":[]}"#,
    ] {
        progress.take(frame("s", false, text), other);
    }
    assert!(progress.answered(), "{:?}", progress.sockets);
    assert_eq!(
        frame_parts(Some(r#"{"busy":"busy"}"#)),
        search().sockets[0].opens[..1]
    );
}

#[test]
fn a_socket_io_update_answers_the_click_that_sent_an_event() {
    let settle = Settle {
        requests: vec![],
        sockets: vec![SocketPattern {
            path: "/_nicegui_ws/socket.io/".into(),
            replies: vec!["42:update".into()],
            times: 1,
            opens: vec![],
            sends: vec![],
            at_rest: false,
        }],
    };
    let url = |_: &str| {
        Some(
            "ws://127.0.0.1:18770/_nicegui_ws/socket.io/?client_id=x&EIO=4&transport=websocket"
                .into(),
        )
    };
    let mut progress = Progress::new(&settle);
    let mut answered_by = None;
    for event in after_click(include_str!(
        "../../../../tests/fixtures/settle/nicegui/captured/typed-then-click.jsonl"
    )) {
        let text = match &event {
            PageEventKind::WebSocketFrame { text, .. } => text.clone(),
            _ => None,
        };
        progress.take(event, url);
        if progress.answered() && answered_by.is_none() {
            answered_by = text;
        }
    }
    assert!(
        answered_by
            .as_deref()
            .is_some_and(|t| t.starts_with(r#"42["update""#) && t.contains("Office chair")),
        "{answered_by:?}"
    );
}
