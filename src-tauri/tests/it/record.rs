//! The Record screen's commands against a real headless Chromium: the recording runs in the
//! browser at a CDP endpoint (as the end-to-end test does), the test drives the page with
//! trusted CDP input, steps and a file chooser arrive as `record://event` events, the chooser
//! is answered through the app, and model assistance runs against a local OpenAI-compatible
//! server.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use browserflow_app::{AppPaths, AppState};
use browserflow_cdp::session::{CdpConnection, CdpSession};
use browserflow_cdp::{Browser, BrowserConfig};
use browserflow_record::ModelAssist;
use browserflow_shop::FixtureServer;
use serde_json::{Value, json};
use tauri::Listener;

use crate::support::TestApp;

/// Events the app emitted on `record://event`.
fn collect_events(app: &TestApp) -> Arc<Mutex<Vec<Value>>> {
    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    let sink = seen.clone();
    app.app.listen_any("record://event", move |event| {
        if let Ok(value) = serde_json::from_str::<Value>(event.payload()) {
            sink.lock().expect("lock").push(value);
        }
    });
    seen
}

fn wait_for(events: &Arc<Mutex<Vec<Value>>>, what: &str, found: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        if let Some(hit) = events.lock().expect("lock").iter().find(|e| found(e)) {
            return hit.clone();
        }
        assert!(
            Instant::now() < deadline,
            "no {what} event: {:#?}",
            events.lock().expect("lock")
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A CDP session on the page target at `url` of the browser at `ws`.
async fn page_session(ws: &str, url: &str) -> CdpSession {
    let conn = CdpConnection::connect(ws).await.expect("CDP connects");
    let root = conn.session(None);
    let deadline = Instant::now() + Duration::from_secs(10);
    let target = loop {
        let targets = root
            .call("Target.getTargets", json!({}))
            .await
            .expect("targets");
        let page = targets["targetInfos"].as_array().and_then(|all| {
            all.iter()
                .find(|t| t["type"] == "page" && t["url"] == url)
                .map(|t| t["targetId"].as_str().unwrap_or_default().to_string())
        });
        if let Some(page) = page {
            break page;
        }
        assert!(Instant::now() < deadline, "no page at {url}: {targets:#}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let attached = root
        .call(
            "Target.attachToTarget",
            json!({ "targetId": target, "flatten": true }),
        )
        .await
        .expect("attach");
    conn.session(attached["sessionId"].as_str().map(str::to_string))
}

/// Clicks the element `selector` with trusted mouse events.
async fn click(page: &CdpSession, selector: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let (x, y) = loop {
        let found = page
            .call(
                "Runtime.evaluate",
                json!({ "returnByValue": true, "expression": format!(
                    "(() => {{ const el = document.querySelector({selector:?}); if (!el || document.readyState !== 'complete') return null; \
                       const r = el.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }})()"
                ) }),
            )
            .await
            .expect("evaluate");
        if let Some([x, y]) = found["result"]["value"]
            .as_array()
            .map(|v| [v[0].as_f64(), v[1].as_f64()])
        {
            break (x.unwrap_or_default(), y.unwrap_or_default());
        }
        assert!(Instant::now() < deadline, "{selector} never appeared");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    for kind in ["mouseMoved", "mousePressed", "mouseReleased"] {
        page.call(
            "Input.dispatchMouseEvent",
            json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
        )
        .await
        .expect("mouse event");
    }
}

async fn text_of(page: &CdpSession, selector: &str) -> String {
    let answer = page
        .call(
            "Runtime.evaluate",
            json!({ "returnByValue": true, "expression": format!("document.querySelector({selector:?})?.textContent") }),
        )
        .await
        .expect("evaluate");
    answer["result"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// A local OpenAI-compatible endpoint answering each chat completion with the next of
/// `answers` (the assistant message content), keeping the requests it saw.
struct FakeModel {
    url: String,
    requests: Arc<Mutex<Vec<String>>>,
}

impl FakeModel {
    fn start(answers: Vec<Value>) -> FakeModel {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}/v1", listener.local_addr().expect("addr"));
        let requests: Arc<Mutex<Vec<String>>> = Arc::default();
        let seen = requests.clone();
        std::thread::spawn(move || {
            for (stream, content) in listener.incoming().zip(answers) {
                let Ok(mut stream) = stream else { break };
                let mut reader = BufReader::new(stream.try_clone().expect("clone"));
                let (mut length, mut line) = (0usize, String::new());
                while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                    line.clear();
                }
                let mut body = vec![0; length];
                let _ = reader.read_exact(&mut body);
                seen.lock()
                    .expect("lock")
                    .push(String::from_utf8_lossy(&body).into_owned());
                let answer = json!({
                    "id": "cmpl-1", "object": "chat.completion", "model": "test-model",
                    "choices": [{ "index": 0, "finish_reason": "stop",
                                  "message": { "role": "assistant", "content": content.to_string() } }],
                })
                .to_string();
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
                    answer.len()
                );
            }
        });
        FakeModel { url, requests }
    }
}

#[test]
fn a_recording_streams_steps_answers_a_file_chooser_and_takes_model_suggestions() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let shop = FixtureServer::shop().expect("the shop serves");
    let browser = runtime
        .block_on(Browser::launch(&BrowserConfig::default()))
        .expect("headless Chromium launches");
    let model = FakeModel::start(vec![
        json!({ "kind": "test_id", "value": "choose-pictures" }),
        json!({ "name": "choose-pictures", "description": "Choose profile pictures.",
                "inputs": {}, "outputs": {} }),
    ]);
    let assist = ModelAssist::new(&model.url, "test-model", None).expect("a model client");
    let app = TestApp::with_state(|paths: AppPaths| AppState::new(paths).with_model(Some(assist)));
    assert_eq!(app.ok("model_status", json!({}))["configured"], true);
    let events = collect_events(&app);

    let start_url = shop.url("/files.html");
    app.ok(
        "record_start",
        json!({ "start": { "url": start_url, "browser_ws": browser.ws_endpoint(), "headless": true } }),
    );
    wait_for(&events, "first step", |e| {
        e["type"] == "step_added" && e["index"] == 0
    });

    // A styled button opens a hidden input's chooser: the app hears of it and answers.
    let page = runtime.block_on(page_session(browser.ws_endpoint(), &start_url));
    runtime.block_on(click(&page, "[data-testid=choose-pictures]"));
    let chooser = wait_for(&events, "file chooser", |e| e["type"] == "file_chooser");
    assert_eq!(chooser["multiple"], true, "{chooser}");
    let files = tempfile::tempdir().expect("temp dir");
    let (a, b) = (files.path().join("a.png"), files.path().join("b.png"));
    std::fs::write(&a, b"first").expect("write");
    std::fs::write(&b, b"second file").expect("write");
    let missing = app
        .invoke(
            "record_answer_file_chooser",
            json!({ "paths": [files.path().join("nope.png").display().to_string()] }),
        )
        .expect_err("a missing file is refused");
    assert_eq!(missing["code"], "record", "{missing}");
    let step = app.ok(
        "record_answer_file_chooser",
        json!({ "paths": [a.display().to_string(), b.display().to_string()] }),
    );
    let upload_index = step.as_u64().expect("the upload step's index");
    let shown = runtime.block_on(async {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let text = text_of(&page, "[data-testid=chosen-files]").await;
            if text.contains("b.png") || Instant::now() > deadline {
                return text;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    assert_eq!(shown, "a.png (5 bytes), b.png (11 bytes)");

    // Thumbnails stream in as step updates.
    wait_for(&events, "thumbnail", |e| {
        e["step"]["thumbnail"]
            .as_str()
            .is_some_and(|t| t.starts_with("data:image/png;base64,"))
    });

    // The model's selector is checked in the live page and added.
    let suggestion = app.ok("record_suggest_selector", json!({ "index": upload_index }));
    assert_eq!(suggestion["rejected"], Value::Null, "{suggestion}");
    assert!(
        suggestion["candidate"]
            .as_str()
            .is_some_and(|c| c.contains("choose-pictures")),
        "{suggestion}"
    );

    let draft = app.ok("record_stop", json!({}));
    let upload = &draft["steps"][upload_index as usize];
    assert_eq!(upload["kind"], "upload", "{draft:#}");

    let suggested = app.ok("draft_suggest", json!({}));
    assert_eq!(suggested["name"], "choose-pictures", "{suggested}");
    assert_eq!(suggested["description"], "Choose profile pictures.");
    assert_eq!(model.requests.lock().expect("lock").len(), 2);

    let saved = app.ok(
        "draft_save",
        json!({ "name": "choose-pictures", "version": "1.0.0", "description": suggested["description"] }),
    );
    assert_eq!(saved["reference"], "choose-pictures@1.0.0");
    let file = std::fs::read_to_string(app.paths.recordings.join("choose-pictures@1.0.0.json"))
        .expect("saved");
    assert!(
        file.contains("\"purpose\": \"selector\""),
        "the model calls are kept: {file}"
    );
    runtime.block_on(browser.close()).expect("browser closes");
}

#[test]
fn model_commands_say_when_no_model_is_configured() {
    let app = TestApp::empty();
    assert_eq!(app.ok("model_status", json!({}))["configured"], false);
    let off = app
        .invoke("draft_suggest", json!({}))
        .expect_err("no model");
    assert_eq!(off["code"], "model_off");
    assert!(
        off["message"]
            .as_str()
            .unwrap_or_default()
            .contains("BROWSERFLOW_MODEL_URL")
    );
    let idle = app
        .invoke("record_answer_file_chooser", json!({ "paths": [] }))
        .expect_err("no recording");
    assert_eq!(idle["code"], "not_recording");
}

/// Closes the page target at `url` of the browser at `ws` (as a person closes the window).
async fn close_page(ws: &str, url: &str) {
    let conn = CdpConnection::connect(ws).await.expect("CDP connects");
    let root = conn.session(None);
    let targets = root
        .call("Target.getTargets", json!({}))
        .await
        .expect("targets");
    let target = targets["targetInfos"]
        .as_array()
        .and_then(|all| {
            all.iter()
                .find(|t| {
                    t["type"] == "page" && t["url"].as_str().is_some_and(|u| u.starts_with(url))
                })
                .map(|t| t["targetId"].clone())
        })
        .unwrap_or_else(|| panic!("no page at {url}: {targets:#}"));
    root.call("Target.closeTarget", json!({ "targetId": target }))
        .await
        .expect("the page closes");
}

#[test]
fn a_recording_outlives_its_screen_and_a_closed_window_keeps_its_steps_as_a_draft() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let shop = FixtureServer::shop().expect("the shop serves");
    let browser = runtime
        .block_on(Browser::launch(&BrowserConfig::default()))
        .expect("headless Chromium launches");
    let app = TestApp::empty();
    let events = collect_events(&app);
    assert_eq!(app.ok("record_status", json!({}))["phase"], "idle");

    let start_url = shop.url("/index.html");
    let start = json!({ "start": { "url": start_url, "browser_ws": browser.ws_endpoint(), "headless": true } });
    app.ok("record_start", start.clone());
    wait_for(&events, "first step", |e| {
        e["type"] == "step_added" && e["index"] == 0
    });
    let page = runtime.block_on(page_session(browser.ws_endpoint(), &start_url));
    runtime.block_on(click(&page, "#open-deals"));
    wait_for(&events, "the click", |e| {
        e["type"] == "step_added" && e["index"] == 1
    });

    // The screen was left and opened again: the recording is still there, with its steps.
    let status = app.ok("record_status", json!({}));
    assert_eq!(status["phase"], "recording", "{status:#}");
    let recorded = status["steps"].as_array().expect("steps").len();
    assert!(recorded >= 2, "{status:#}");
    let busy = app
        .invoke("record_start", start.clone())
        .expect_err("one recording at a time");
    assert_eq!(busy["code"], "busy", "{busy}");
    assert!(
        busy["message"]
            .as_str()
            .unwrap_or_default()
            .contains("open Record"),
        "the refusal says the way out: {busy}"
    );

    // The person closes the recorded window: the recording ends, its steps kept as a draft.
    runtime.block_on(close_page(browser.ws_endpoint(), &start_url));
    wait_for(&events, "closed", |e| e["type"] == "closed");
    let status = app.ok("record_status", json!({}));
    assert_eq!(status["phase"], "editing", "{status:#}");
    assert_eq!(
        status["draft"]["steps"].as_array().expect("steps").len(),
        recorded,
        "{status:#}"
    );

    // Nothing is stuck: a new recording starts (replacing the draft only when asked to).
    app.ok("record_discard", json!({}));
    app.ok("record_start", start);
    assert_eq!(app.ok("record_status", json!({}))["phase"], "recording");
    app.ok("record_discard", json!({}));
    assert_eq!(app.ok("record_status", json!({}))["phase"], "idle");
}
