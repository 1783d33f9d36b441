//! The attribution of requests and WebSocket frames to gestures, without a browser.

use browserflow_steps::{ClickStep, FillStep, Selector, SelectorCandidate};
use serde_json::json;

use super::*;
use crate::MAIN_PAGE;

const PAGE: &str = "http://127.0.0.1:4000/search.html";

fn recorded(step: Step) -> RecordedStep {
    RecordedStep {
        step,
        description: String::new(),
        target: None,
        best_selector: None,
        page: MAIN_PAGE.into(),
        url: PAGE.into(),
        recorded_value: None,
        secret: false,
        thumbnail_png: None,
        download: None,
        no_effect: false,
        content_follows: Vec::new(),
        position_follows_input: false,
    }
}

fn click() -> RecordedStep {
    recorded(Step::Click(ClickStep {
        label: None,
        selector: Selector::new([SelectorCandidate::test_id("go")]),
        button: Default::default(),
        click_count: 1,
        offset: None,
        navigation: None,
        opens_popup: None,
        hold_ms: None,
        timeout_ms: None,
        expect: Vec::new(),
        settle: None,
    }))
}

fn fill(value: &str) -> RecordedStep {
    let mut step = recorded(Step::Fill(FillStep {
        label: None,
        selector: Selector::new([SelectorCandidate::test_id("q")]),
        value: value.into(),
        keys: false,
        pointer: None,
        timeout_ms: None,
        expect: Vec::new(),
        settle: None,
    }));
    step.recorded_value = Some(value.into());
    step
}

/// A log of the main page, with requests `(method, url, kind, sent, answered)` in ms.
fn log(
    starts: &[(u64, f64)],
    requests: &[(&str, &str, RequestKind, f64, Option<f64>)],
) -> NetworkLog {
    let mut log = NetworkLog::default();
    log.starts.extend(starts.iter().copied());
    let page = log.pages.entry(MAIN_PAGE.into()).or_default();
    page.offset_ms = Some(0.0);
    for (n, (method, url, kind, sent_ms, answered_ms)) in requests.iter().enumerate() {
        page.requests.push(Request {
            id: n.to_string(),
            method: method.to_string(),
            url: url.to_string(),
            kind: *kind,
            sent_ms: *sent_ms,
            answered_ms: *answered_ms,
        });
    }
    log
}

fn paths(settle: &Option<Settle>) -> Vec<String> {
    settle.iter().flat_map(|s| s.describe()).collect::<Vec<_>>()
}

#[test]
fn a_click_waits_for_the_call_it_started_whatever_its_query() {
    let steps = [fill("desk lamp"), click()];
    let log = log(
        &[(1, 1_000.0), (2, 2_000.0)],
        &[
            // The page's own script, loaded before any gesture: not a call.
            (
                "GET",
                "http://127.0.0.1:4000/app.js",
                RequestKind::Other,
                10.0,
                Some(20.0),
            ),
            (
                "POST",
                "http://127.0.0.1:4000/search?q=desk+lamp",
                RequestKind::Xhr,
                2_005.0,
                Some(2_250.0),
            ),
            // A chained call, started on the answer of the first.
            (
                "GET",
                "http://127.0.0.1:4000/api/items/desk%20lamp/stock",
                RequestKind::Fetch,
                2_900.0,
                Some(3_000.0),
            ),
            // A third party's analytics, a beacon.
            (
                "POST",
                "https://stats.example.net/collect",
                RequestKind::Fetch,
                2_010.0,
                Some(2_100.0),
            ),
            (
                "POST",
                "http://127.0.0.1:4000/beacon",
                RequestKind::Ping,
                2_010.0,
                Some(2_020.0),
            ),
        ],
    );
    let settles = settles(&log, &steps, &[Some(1), Some(2)], 5_000.0);
    assert_eq!(settles[0], None);
    assert_eq!(
        paths(&settles[1]),
        ["POST /search answered", "GET /api/items/*/stock answered"]
    );
}

#[test]
fn a_poll_a_long_poll_and_a_repeated_call_are_not_waited_for_twice() {
    let steps = [click(), click()];
    let log = log(
        &[(1, 1_000.0), (2, 5_000.0)],
        &[
            // A poll every 2 s: once right after the first click, once while nothing happened.
            (
                "GET",
                "http://127.0.0.1:4000/poll",
                RequestKind::Fetch,
                1_050.0,
                Some(1_060.0),
            ),
            (
                "GET",
                "http://127.0.0.1:4000/poll",
                RequestKind::Fetch,
                3_050.0,
                Some(3_060.0),
            ),
            // A long poll still open when the next gesture came.
            (
                "GET",
                "http://127.0.0.1:4000/events",
                RequestKind::Xhr,
                1_100.0,
                Some(7_000.0),
            ),
            // One call per key: one pattern.
            (
                "GET",
                "http://127.0.0.1:4000/suggest?q=a",
                RequestKind::Fetch,
                5_010.0,
                Some(5_050.0),
            ),
            (
                "GET",
                "http://127.0.0.1:4000/suggest?q=ab",
                RequestKind::Fetch,
                5_060.0,
                Some(5_100.0),
            ),
        ],
    );
    let settles = settles(&log, &steps, &[Some(1), Some(2)], 8_000.0);
    assert_eq!(settles[0], None, "{settles:?}");
    assert_eq!(paths(&settles[1]), ["GET /suggest answered"]);
}

#[test]
fn a_socket_the_gesture_sent_on_and_that_answered_is_waited_for() {
    let steps = [click(), click()];
    let mut log = log(&[(1, 1_000.0), (2, 4_000.0)], &[]);
    let page = log.pages.get_mut(MAIN_PAGE).unwrap();
    page.sockets
        .insert("s1".into(), "ws://127.0.0.1:4000/websocket/".into());
    let frame = |at_ms, sent, parts: &[&str]| Frame {
        socket: "s1".into(),
        at_ms,
        sent,
        parts: parts.iter().map(|p| p.to_string()).collect(),
    };
    // The first click: sent, answered "busy" at once, the outputs cleared and their values
    // later. The second: sent, never answered before the recording stopped.
    page.frames = vec![
        frame(1_020.0, true, &["method=update", "data.query"]),
        frame(1_030.0, false, &["busy=busy"]),
        frame(1_040.0, false, &["values.name", "errors"]),
        frame(1_050.0, false, &["busy=idle"]),
        frame(1_200.0, false, &["values.name", "errors"]),
        frame(4_010.0, true, &["method=update"]),
    ];
    let settles = settles(&log, &steps, &[Some(1), Some(2)], 4_500.0);
    assert_eq!(
        paths(&settles[0]),
        ["a reply on the WebSocket /websocket/ (2 × values.name, errors)"]
    );
    assert_eq!(
        settles[0].as_ref().unwrap().sockets[0].sends,
        ["method=update"]
    );
    assert_eq!(settles[1], None);
}

#[test]
fn a_click_begins_at_its_press() {
    let mut log = NetworkLog::default();
    log.acting(&json!({ "type": "acting", "doc": "d1", "seq": 3, "at": 900.0 }));
    log.step_reported(
        7,
        StepKind::Click,
        &json!({ "type": "click", "doc": "d1", "seq": 3, "at": 950.0 }),
    );
    log.step_reported(
        8,
        StepKind::Fill,
        &json!({ "type": "input", "doc": "d1", "seq": 3, "at": 1_200.0 }),
    );
    log.step_reported(
        8,
        StepKind::Fill,
        &json!({ "type": "input", "doc": "d1", "seq": 3, "at": 1_300.0 }),
    );
    assert_eq!(log.starts[&7], 900.0);
    assert_eq!(log.starts[&8], 1_200.0);
}

#[test]
fn sites() {
    assert!(same_site(PAGE, "http://127.0.0.1:4001/x"));
    assert!(same_site(
        "https://www.example.com/",
        "https://api.example.com/v1"
    ));
    assert!(!same_site(
        "https://www.example.com/",
        "https://stats.example.net/c"
    ));
}
