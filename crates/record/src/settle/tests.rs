//! The attribution of requests and WebSocket frames to gestures, without a browser.

use browserflow_steps::{ClickStep, FillStep, Selector, SelectorCandidate};
use serde_json::Value;

use super::*;
use crate::MAIN_PAGE;
use crate::protocol::FrameInfo;

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

/// A frame on the socket `s1` at `at_ms`.
fn frame(at_ms: f64, sent: bool, text: &str) -> Frame {
    Frame {
        socket: "s1".into(),
        at_ms,
        sent,
        parts: frame_parts(Some(text)),
    }
}

#[test]
fn a_socket_the_gesture_sent_on_and_that_answered_is_waited_for() {
    let steps = [click(), click()];
    let mut log = log(&[(1, 1_000.0), (2, 4_000.0)], &[]);
    let page = log.pages.get_mut(MAIN_PAGE).unwrap();
    page.sockets
        .insert("s1".into(), "ws://127.0.0.1:4000/websocket/".into());
    // A pong before the first click's update (the transport's, not the gesture's); the
    // update answered "busy" at once, the outputs cleared and their values later. The second
    // click: sent, never answered before the recording stopped.
    page.frames = vec![
        frame(1_010.0, true, "3"),
        frame(1_020.0, true, r#"{"method":"update","data":{"q":"x"}}"#),
        frame(1_030.0, false, r#"{"busy":"busy"}"#),
        frame(1_040.0, false, r#"{"values":{},"errors":{}}"#),
        frame(1_045.0, false, "2"),
        frame(1_050.0, false, r#"{"busy":"idle"}"#),
        frame(1_200.0, false, r#"{"values":{"name":"a"},"errors":{}}"#),
        frame(4_010.0, true, r#"{"method":"update","data":{}}"#),
    ];
    let settles = settles(&log, &steps, &[Some(1), Some(2)], 4_500.0);
    assert_eq!(
        paths(&settles[0]),
        ["a reply on the WebSocket /websocket/ (2 × errors + values after busy=busy or busy=idle)"]
    );
    assert_eq!(
        settles[0].as_ref().unwrap().sockets[0].sends,
        ["method=update"]
    );
    assert_eq!(settles[1], None);
}

/// A capture of `tests/fixtures/settle/shiny/captured` (Chromium's `Network` events, the
/// page's clock at each gesture) as the recorder's log: the fill is serial 1, the click 2.
fn captured(capture: &str) -> NetworkLog {
    let mut log = NetworkLog::default();
    for line in capture.lines() {
        let line: Value = serde_json::from_str(line).unwrap();
        match (line["gesture"].as_str(), line["method"].as_str()) {
            (Some(gesture), _) => {
                let serial = if gesture == "fill" { 1 } else { 2 };
                let kind = StepKind::from_name(gesture).expect("a step kind");
                let moment = Moment {
                    doc: String::new(),
                    seq: 0,
                    at: line["at"].as_f64().expect("the gesture's clock"),
                };
                log.step_reported(serial, kind, &moment);
            }
            // Events the engine does not decode (the handshake's response) never reach
            // the recorder either.
            (None, Some(method)) => {
                if let Some(event) = browserflow_cdp::page::network_event(method, &line["params"]) {
                    log.network(MAIN_PAGE, &event);
                }
            }
            (None, None) => panic!("{line}"),
        }
    }
    log
}

const SHINY_VALUES: &str = "errors + inputMessages + values";
const SHINY_SEARCH: &str = "a reply on the WebSocket /websocket/ (1 × errors + inputMessages + \
                            values after busy=busy or busy=idle or progress or recalculating)";

#[test]
fn shiny_a_fill_waits_for_its_input_sent_and_the_click_for_its_search() {
    // Typed, a pause (Shiny sends the query 250 ms after the last key), then the click.
    let log = captured(include_str!(
        "../../../../tests/fixtures/settle/shiny/captured/typed-then-click.jsonl"
    ));
    let steps = [fill("lamp"), click()];
    let settles = settles(&log, &steps, &[Some(1), Some(2)], f64::MAX);
    assert_eq!(
        paths(&settles[0]),
        [format!(
            "a reply on the WebSocket /websocket/ (1 × {SHINY_VALUES})"
        )]
    );
    assert_eq!(paths(&settles[1]), [SHINY_SEARCH]);
    // The page's init had been answered before each gesture: the replay waits for as much.
    for settle in &settles {
        assert!(settle.as_ref().unwrap().sockets[0].at_rest, "{settles:?}");
    }
}

#[test]
fn shiny_a_click_that_flushes_the_query_waits_for_the_search_not_the_query() {
    // Typed and clicked at once: the click sends the query, then itself; the query's empty
    // `values` comes first and is not the answer.
    let log = captured(include_str!(
        "../../../../tests/fixtures/settle/shiny/captured/click-flushes-query.jsonl"
    ));
    let steps = [fill("kettle"), click()];
    let settles = settles(&log, &steps, &[Some(1), Some(2)], f64::MAX);
    assert_eq!(settles[0], None, "{settles:?}");
    assert_eq!(paths(&settles[1]), [SHINY_SEARCH]);
    assert!(settles[1].as_ref().unwrap().sockets[0].at_rest);
}

#[test]
fn nicegui_a_click_waits_for_its_update_and_heartbeats_are_no_answer() {
    // Typed (one `event` per key, never answered), a pause over the transport's ping and
    // pong, then the click: its `event`, then one `update`.
    let log = captured(include_str!(
        "../../../../tests/fixtures/settle/nicegui/captured/typed-then-click.jsonl"
    ));
    let steps = [fill("chair"), click()];
    let settles = settles(&log, &steps, &[Some(1), Some(2)], f64::MAX);
    assert_eq!(settles[0], None, "{settles:?}");
    let settle = settles[1].as_ref().unwrap();
    assert_eq!(
        settle.sockets,
        [SocketPattern {
            path: "/_nicegui_ws/socket.io/".into(),
            replies: vec!["42:update".into()],
            times: 1,
            opens: vec![],
            sends: vec![],
            // No `update` had come before the click: nothing to wait for before acting.
            at_rest: false,
        }]
    );
}

#[test]
fn a_socket_opened_while_typing_is_the_page_s_own_and_its_rest_is_recorded() {
    // Typed at 1 000 while the page still connected (its socket's handshake at 1 100, its
    // `init` sent at 1 110): the init and its answer are not the fill's. The click at 1 300
    // came while the init's answer had begun and not finished: not at rest. The click at
    // 4 000, after the first click's answer: at rest.
    let steps = [fill("lamp"), click(), click()];
    let mut log = log(&[(1, 1_000.0), (2, 1_300.0), (3, 4_000.0)], &[]);
    let page = log.pages.get_mut(MAIN_PAGE).unwrap();
    page.sockets
        .insert("s1".into(), "ws://127.0.0.1:4000/websocket/".into());
    page.sockets_opened_ms.insert("s1".into(), 1_100.0);
    page.frames = vec![
        frame(1_110.0, true, r#"{"method":"init","data":{}}"#),
        frame(1_280.0, false, r#"{"busy":"busy"}"#),
        frame(1_310.0, true, r#"{"method":"update","data":{"go":1}}"#),
        frame(1_320.0, false, r#"{"values":{},"errors":{}}"#),
        frame(1_330.0, false, r#"{"busy":"busy"}"#),
        frame(1_400.0, false, r#"{"values":{"name":"a"},"errors":{}}"#),
        frame(4_010.0, true, r#"{"method":"update","data":{"go":2}}"#),
        frame(4_030.0, false, r#"{"busy":"busy"}"#),
        frame(4_100.0, false, r#"{"values":{"name":"b"},"errors":{}}"#),
    ];
    let settles = settles(&log, &steps, &[Some(1), Some(2), Some(3)], 5_000.0);
    assert_eq!(settles[0], None, "{settles:?}");
    let rest = |n: usize| settles[n].as_ref().unwrap().sockets[0].at_rest;
    assert!(!rest(1));
    assert!(rest(2));
}

#[test]
fn a_fill_s_window_runs_from_its_last_input() {
    // Typed for 2 s; the page searches 300 ms after the last key.
    let steps = [fill("desk lamp"), click()];
    let mut log = log(
        &[(1, 1_000.0), (2, 5_000.0)],
        &[(
            "GET",
            "http://127.0.0.1:4000/suggest?q=desk+lamp",
            RequestKind::Fetch,
            3_300.0,
            Some(3_400.0),
        )],
    );
    log.ends.insert(1, 3_000.0);
    let settles = settles(&log, &steps, &[Some(1), Some(2)], 6_000.0);
    assert_eq!(paths(&settles[0]), ["GET /suggest answered"]);
}

#[test]
fn a_click_begins_at_its_press() {
    let mut log = NetworkLog::default();
    log.acting(&ActingMessage {
        seq: 3,
        doc: "d1".into(),
        secrets: false,
        at: 900.0,
        frame: FrameInfo::default(),
    });
    let at = |at: f64| Moment {
        doc: "d1".into(),
        seq: 3,
        at,
    };
    log.step_reported(7, StepKind::Click, &at(950.0));
    log.step_reported(8, StepKind::Fill, &at(1_200.0));
    log.step_reported(8, StepKind::Fill, &at(1_300.0));
    assert_eq!(log.starts[&7], 900.0);
    assert_eq!(log.starts[&8], 1_200.0);
    assert_eq!(log.ends[&8], 1_300.0);
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
