//! The recorder, driven without a person: trusted CDP input (`Input.dispatchMouseEvent`,
//! `Input.insertText`, `Input.dispatchKeyEvent`) against the fixture shop in headless Chromium;
//! the recorded tool is saved, read back and replayed.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use browserflow_cdp::session::CdpSession;
use browserflow_record::{
    Draft, InputMark, ModelAssist, OutputMark, RecordOptions, Recorder,
};
use browserflow_steps::{OutputKind, Selector, SelectorCandidate, SelectorKind, Step};
use browserflow_steps::ToolFile;
use browserflow_cdp::Page;
use browserflow_replay::Replayer;
use serde_json::{Map, Value, json};

use crate::support::Harness;

const WAIT: Duration = Duration::from_secs(10);

fn options(url: String) -> RecordOptions {
    RecordOptions {
        headed: false,
        ..RecordOptions::new(url)
    }
}

/// Trusted input on one page session.
struct Driver {
    session: CdpSession,
    page: Page,
}

impl Driver {
    fn new(page: &Page) -> Self {
        Self {
            session: page.session().clone(),
            page: page.clone(),
        }
    }

    /// Waits until `condition` (a JS expression) is true in the main frame.
    async fn wait_js(&self, condition: &str) {
        let expression = format!(
            "new Promise((resolve) => {{ const tick = () => ({condition}) ? resolve(true) : requestAnimationFrame(tick); tick(); }})"
        );
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let answer =
                tokio::time::timeout_at(deadline, self.page.evaluate_in_main_frame(&expression))
                    .await
                    .unwrap_or_else(|_| panic!("timed out waiting for {condition}"));
            if answer.is_ok() {
                return;
            }
            // The document was replaced while waiting: wait in the new one.
            tokio::task::yield_now().await;
        }
    }

    /// The centre of the element `expr` evaluates to (main-frame coordinates), scrolled into view.
    async fn centre(&self, expr: &str) -> (f64, f64) {
        let value = self
            .page
            .evaluate_in_main_frame(&format!(
                "(() => {{ const el = {expr}; el.scrollIntoView({{ block: 'center' }}); const r = el.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }})()"
            ))
            .await
            .expect("element found");
        (value[0].as_f64().unwrap(), value[1].as_f64().unwrap())
    }

    async fn click_at(&self, (x, y): (f64, f64), count: u8) {
        self.mouse(json!({ "type": "mouseMoved", "x": x, "y": y }))
            .await;
        for n in 1..=count {
            for kind in ["mousePressed", "mouseReleased"] {
                self.mouse(
                    json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": n }),
                )
                .await;
            }
        }
    }

    async fn click(&self, expr: &str) {
        let at = self.centre(expr).await;
        self.click_at(at, 1).await;
    }

    async fn mouse(&self, params: Value) {
        // A click that navigates may answer "navigated or closed": that is an outcome here.
        let _ = self.session.call("Input.dispatchMouseEvent", params).await;
    }

    async fn insert_text(&self, text: &str) {
        self.session
            .call("Input.insertText", json!({ "text": text }))
            .await
            .expect("insertText");
    }

    /// Types `text` one key at a time (one `input` event per character).
    async fn type_keys(&self, text: &str) {
        for c in text.chars() {
            let s = c.to_string();
            self.session
                .call(
                    "Input.dispatchKeyEvent",
                    json!({ "type": "keyDown", "key": s, "text": s }),
                )
                .await
                .expect("keyDown");
            self.session
                .call(
                    "Input.dispatchKeyEvent",
                    json!({ "type": "keyUp", "key": s }),
                )
                .await
                .expect("keyUp");
        }
    }

    /// Enter as a keyboard sends it: the key down and its character arrive as separate input
    /// events (the character's default action submits a form, clicking its submit button).
    async fn press_enter(&self) {
        let down = json!({ "type": "rawKeyDown", "key": "Enter", "code": "Enter",
                           "windowsVirtualKeyCode": 13 });
        let _ = self.session.call("Input.dispatchKeyEvent", down).await;
        tokio::time::sleep(Duration::from_millis(30)).await;
        let char = json!({ "type": "char", "key": "Enter", "code": "Enter",
                           "windowsVirtualKeyCode": 13, "text": "\r" });
        let _ = self.session.call("Input.dispatchKeyEvent", char).await;
        let up = json!({ "type": "keyUp", "key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13 });
        let _ = self.session.call("Input.dispatchKeyEvent", up).await;
    }
}

fn kinds(draft: &Draft) -> Vec<&'static str> {
    draft.steps.iter().map(|s| s.step.kind()).collect()
}

async fn replay(h: &Harness, file: &ToolFile, inputs: Value) -> Map<String, Value> {
    let context = h.browser.new_context().await.expect("context");
    let inputs = inputs.as_object().cloned().unwrap_or_default();
    let report = Replayer::default()
        .run(&context, &file.steps, &inputs)
        .await
        .unwrap_or_else(|e| panic!("replay failed: {e}"));
    context.close().await.expect("context closes");
    report.outputs
}

fn save_and_load(file: &ToolFile, dir: &std::path::Path) -> ToolFile {
    let path = dir.join(format!("{}.json", file.contract.reference()));
    std::fs::write(&path, file.to_json_pretty()).expect("write tool");
    ToolFile::load(&path).expect("the saved tool loads")
}

#[tokio::test]
async fn the_search_price_journey_is_recorded_saved_and_replays_to_the_same_output() {
    let h = Harness::start().await;
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/index.html")))
        .await
        .expect("recording starts");
    let mut events = recorder.subscribe();
    let d = Driver::new(recorder.page());

    d.click("document.getElementById('search-input')").await;
    d.insert_text("keyboard").await;
    d.press_enter().await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(
                |s| matches!(&s.step, Step::KeyPress(k) if k.navigation.is_some())
            ))
            .await,
        "the Enter key is recorded with its navigation: {:#?}",
        recorder.steps()
    );
    d.wait_js("document.querySelector('#results a')").await;
    d.click("document.querySelector('#results a')").await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(
                |s| matches!(&s.step, Step::Click(c) if c.navigation.is_some())
            ))
            .await,
        "the result click is recorded with its navigation: {:#?}",
        recorder.steps()
    );
    d.wait_js("document.getElementById('product-price').textContent !== ''")
        .await;
    let on_page = recorder
        .page()
        .evaluate_in_main_frame(
            "[document.getElementById('product-name').textContent, document.getElementById('product-price').textContent]",
        )
        .await
        .unwrap();
    let price = recorder
        .element("main", "#product-price")
        .await
        .expect("price element");
    let name = recorder
        .element("main", "#product-name")
        .await
        .expect("name element");
    assert_eq!(price.text, on_page[1]);
    assert_eq!(
        price.selector.candidates[0],
        SelectorCandidate::test_id("product-price"),
        "a test id ranks first: {:?}",
        price.selector
    );
    let mut draft = recorder.stop().await.expect("recording stops");

    // The live stream saw the steps as they came.
    let mut added = 0;
    while let Ok(event) = events.try_recv() {
        if matches!(
            event,
            browserflow_record::RecordEvent::StepAdded { .. }
        ) {
            added += 1;
        }
    }
    assert!(added >= 4, "{added} steps streamed");

    assert_eq!(
        kinds(&draft),
        ["navigate", "fill", "key_press", "wait_for_element", "click"],
        "{:#?}",
        draft.steps
    );
    let Step::Fill(fill) = &draft.steps[1].step else {
        unreachable!()
    };
    assert_eq!(fill.value, "keyboard");
    assert_eq!(
        fill.selector.candidates[0],
        SelectorCandidate::test_id("search-input")
    );
    let Step::Click(click) = &draft.steps[4].step else {
        unreachable!()
    };
    let expected = click
        .navigation
        .as_ref()
        .and_then(|n| n.url.clone())
        .unwrap();
    assert!(expected.ends_with("/product.html?*"), "{expected}");

    draft.mark_input(1, InputMark::string("query")).unwrap();
    draft
        .mark_output(OutputMark::picked("name", &name, OutputKind::String))
        .unwrap();
    let mut price_mark = OutputMark::picked("price", &price, OutputKind::Number);
    price_mark.currency_field = Some("currency".into());
    draft.mark_output(price_mark).unwrap();
    let file = draft
        .into_tool_file(
            "search-price-recorded",
            "1.0.0",
            Some("Search and read a price"),
        )
        .expect("a valid tool");
    assert_eq!(
        file.contract.inputs()[0].schema.default,
        Some(json!("keyboard"))
    );

    let dir = tempfile::tempdir().unwrap();
    let file = save_and_load(&file, dir.path());
    let outputs = replay(&h, &file, json!({ "query": "keyboard" })).await;
    assert_eq!(
        Value::Object(outputs),
        json!({ "name": on_page[0], "price": 89.99, "currency": "USD" })
    );
    // The input is a real parameter: another query replays to another product.
    let outputs = replay(&h, &file, json!({ "query": "mouse" })).await;
    assert_eq!(outputs["name"], "Wireless Mouse");

    // And through the Rider, as `bflow run` does, with the default from the recording.
    let shared = browserflow_replay::SharedBrowser::new(browserflow_cdp::BrowserConfig {
        ws_endpoint: Some(h.browser.ws_endpoint().to_string()),
        ..Default::default()
    });
    let run = browserflow_catalog::run_tool::run_tool(
        &file,
        &["query=keyboard".to_string()],
        browserflow_catalog::run_tool::RunToolOptions {
            browser: Arc::new(shared),
            ..Default::default()
        },
    )
    .await
    .unwrap_or_else(|e| panic!("run_tool: {e}"));
    assert_eq!(run.output["price"], 89.99);
    h.close().await;
}

#[tokio::test]
async fn a_password_becomes_a_secret_input_whose_value_is_in_no_file_and_typing_is_one_fill() {
    const CANARY: &str = "canary-Pa55-7q9z";
    let h = Harness::start().await;
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/rec-login.html")))
        .await
        .expect("recording starts");
    let d = Driver::new(recorder.page());
    d.click("document.getElementById('user')").await;
    d.type_keys("ada").await;
    d.click("document.getElementById('pass')").await;
    d.type_keys(CANARY).await;
    d.click("document.getElementById('sign-in')").await;
    d.wait_js("document.getElementById('login-status').textContent.startsWith('Welcome')")
        .await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(|s| s.step.kind() == "click"))
            .await
    );
    let mut draft = recorder.stop().await.unwrap();
    assert_eq!(
        kinds(&draft),
        ["navigate", "fill", "fill", "click"],
        "one fill per field, the focusing clicks folded in: {:#?}",
        draft.steps
    );
    let Step::Fill(user) = &draft.steps[1].step else {
        unreachable!()
    };
    assert_eq!(user.value, "ada", "three key presses, one step");
    let Step::Fill(pass) = &draft.steps[2].step else {
        unreachable!()
    };
    assert_eq!(pass.value, "{{password}}");
    assert!(draft.steps[2].secret);
    assert!(draft.steps[2].recorded_value.is_none());

    draft.mark_input(1, InputMark::string("user")).unwrap();
    draft
        .mark_output(OutputMark::css(
            "status",
            "#login-status",
            OutputKind::String,
        ))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("draft.json"),
        serde_json::to_string_pretty(&draft).unwrap(),
    )
    .unwrap();
    let file = draft.into_tool_file("login", "1.0.0", None).unwrap();
    let password = file.contract.input("password").expect("a password input");
    assert!(password.secret);
    assert_eq!(password.schema.default, None);
    assert!(
        file.contract
            .capabilities()
            .iter()
            .any(|c| c.as_str() == "secrets")
    );
    let file = save_and_load(&file, dir.path());
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        assert!(!text.contains(CANARY), "the password leaked into a file");
    }
    let outputs = replay(
        &h,
        &file,
        json!({ "user": "grace", "password": "another-long-one" }),
    )
    .await;
    assert_eq!(outputs["status"], "Welcome, grace");
    h.close().await;
}

#[tokio::test]
async fn a_popup_is_recorded_and_replayed() {
    let h = Harness::start().await;
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/index.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.click("document.getElementById('open-deals')").await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(
                |s| matches!(&s.step, Step::Click(c) if c.opens_popup.as_deref() == Some("popup"))
            ))
            .await,
        "{:#?}",
        recorder.steps()
    );
    assert!(
        recorder
            .wait_frame_ready("popup", "/deals.html", WAIT)
            .await
    );
    let deal = recorder
        .element("popup", "[data-testid=deal-price]")
        .await
        .expect("the deal price in the popup");
    assert_eq!(deal.page, "popup");
    recorder
        .mark_output(OutputMark::picked("deal", &deal, OutputKind::Number))
        .expect("output marked while recording");
    let draft = recorder.stop().await.unwrap();
    assert_eq!(
        kinds(&draft),
        ["navigate", "click", "extract"],
        "{:#?}",
        draft.steps
    );
    let file = draft.into_tool_file("deal", "1.0.0", None).unwrap();
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(outputs["deal"], 19.99);
    h.close().await;
}

/// The session of the out-of-process iframe whose URL contains `url_part`, for test input.
async fn oopif_session(page: &Page, url_part: &str) -> CdpSession {
    let conn = page.session().connection().clone();
    let browser = conn.session(None);
    let mut events = conn.subscribe(None);
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let targets = browser.call("Target.getTargets", json!({})).await.unwrap();
        let found =
            targets["targetInfos"].as_array().unwrap().iter().find(|t| {
                t["type"] == "iframe" && t["url"].as_str().unwrap_or("").contains(url_part)
            });
        if let Some(t) = found {
            let attached = browser
                .call(
                    "Target.attachToTarget",
                    json!({ "targetId": t["targetId"], "flatten": true }),
                )
                .await
                .unwrap();
            return conn.session(Some(attached["sessionId"].as_str().unwrap().to_string()));
        }
        tokio::time::timeout_at(deadline, events.recv())
            .await
            .expect("the iframe target appears");
    }
}

#[tokio::test]
async fn iframes_and_shadow_dom_elements_are_recorded_with_working_candidates() {
    let h = Harness::start().await;
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/frames.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    assert!(recorder.wait_frame_ready("main", "/promo.html", WAIT).await);
    assert!(
        recorder
            .wait_frame_ready("main", "/partner.html", WAIT)
            .await
    );

    // Same-origin frame: main-frame coordinates through contentDocument.
    let claim = d
        .centre("(() => { const f = document.getElementById('promo-frame'); const r = f.getBoundingClientRect(); const b = f.contentDocument.getElementById('claim').getBoundingClientRect(); return { getBoundingClientRect: () => ({ left: r.left + f.clientLeft + b.left, top: r.top + f.clientTop + b.top, width: b.width, height: b.height }), scrollIntoView() {} }; })()")
        .await;
    d.click_at(claim, 1).await;

    // Cross-site frame (its own process): ask it where its elements are.
    let partner = oopif_session(recorder.page(), "/partner.html").await;
    let frame_box = d
        .page
        .evaluate_in_main_frame("(() => { const f = document.getElementById('partner-frame'); const r = f.getBoundingClientRect(); return [r.left + f.clientLeft, r.top + f.clientTop]; })()")
        .await
        .unwrap();
    let inner = |id: &str| {
        format!(
            "(() => {{ const r = document.getElementById('{id}').getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }})()"
        )
    };
    let at = |v: &Value| {
        (
            frame_box[0].as_f64().unwrap() + v[0].as_f64().unwrap(),
            frame_box[1].as_f64().unwrap() + v[1].as_f64().unwrap(),
        )
    };
    let email = partner
        .call(
            "Runtime.evaluate",
            json!({ "expression": inner("partner-email"), "returnByValue": true }),
        )
        .await
        .unwrap();
    d.click_at(at(&email["result"]["value"]), 1).await;
    d.insert_text("a@b.example").await;
    let join = partner
        .call(
            "Runtime.evaluate",
            json!({ "expression": inner("join"), "returnByValue": true }),
        )
        .await
        .unwrap();
    d.click_at(at(&join["result"]["value"]), 1).await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s
                .iter()
                .filter(|s| s.step.kind() == "click")
                .count()
                == 2)
            .await,
        "{:#?}",
        recorder.steps()
    );
    let mut draft = recorder.stop().await.unwrap();
    assert_eq!(
        kinds(&draft),
        ["navigate", "click", "fill", "click"],
        "{:#?}",
        draft.steps
    );
    let frame_of = |i: usize| {
        draft.steps[i]
            .step
            .selector()
            .unwrap()
            .frame
            .clone()
            .unwrap()
    };
    assert_eq!(frame_of(1).name.as_deref(), Some("promo"));
    assert_eq!(frame_of(2).name.as_deref(), Some("partner"));
    assert_eq!(
        draft.steps[1].step.selector().unwrap().candidates[0],
        SelectorCandidate::test_id("claim-coupon")
    );
    for (field, test_id, frame) in [
        ("coupon", "coupon-code", frame_of(1)),
        ("joined", "partner-status", frame_of(3)),
    ] {
        let selector = Selector::new([SelectorCandidate::test_id(test_id)]).in_frame(frame);
        draft
            .mark_output(OutputMark::with_selector(
                field,
                selector,
                OutputKind::String,
            ))
            .unwrap();
    }
    let file = draft.into_tool_file("frames", "1.0.0", None).unwrap();
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(outputs["coupon"], "SPRING-10");
    assert_eq!(outputs["joined"], "Joined as a@b.example");

    // Shadow DOM: a button in an open shadow root, and one in a shadow root inside it.
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/widgets.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.click("document.getElementById('rating').shadowRoot.querySelector('[data-testid=rate-5]')")
        .await;
    d.click("document.getElementById('rating').shadowRoot.getElementById('nested').shadowRoot.querySelector('button')")
        .await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s
                .iter()
                .filter(|s| s.step.kind() == "click")
                .count()
                == 2)
            .await
    );
    let mut draft = recorder.stop().await.unwrap();
    let first = draft.steps[1].step.selector().unwrap().candidates.clone();
    assert_eq!(
        first[0],
        SelectorCandidate::test_id("rate-5").in_shadow(["#rating"])
    );
    let nested = draft.steps[2].step.selector().unwrap().candidates.clone();
    assert_eq!(nested[0].shadow, vec!["#rating", "#nested"], "{nested:?}");
    assert_eq!(
        nested[0],
        SelectorCandidate::role("button", "Nested star").in_shadow(["#rating", "#nested"])
    );
    // Replay the first click only, then the nested one, reading the status each time.
    draft
        .mark_output(OutputMark {
            position: Some(2),
            ..OutputMark::css("after_rate", "#rating-status", OutputKind::String)
        })
        .unwrap();
    draft
        .mark_output(OutputMark::css(
            "after_nested",
            "#rating-status",
            OutputKind::String,
        ))
        .unwrap();
    let file = draft.into_tool_file("widgets", "1.0.0", None).unwrap();
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(outputs["after_rate"], "Rated 5");
    assert_eq!(outputs["after_nested"], "Nested star clicked");
    h.close().await;
}

#[tokio::test]
async fn generated_ids_rank_below_role_and_text_and_non_unique_selectors_never_lead() {
    let h = Harness::start().await;
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/rec-ids.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.click("document.getElementById('ember123')").await;
    d.click("document.querySelector('[data-testid=add]')").await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s
                .iter()
                .filter(|s| s.step.kind() == "click")
                .count()
                == 2)
            .await
    );
    // Pick mode: the next click picks its element instead of acting. The picking command is
    // sent before the probe below, so once the probe answers, the page is in pick mode.
    let (picked, ()) = tokio::join!(recorder.pick_element(), async {
        let _ = recorder.page().evaluate_in_main_frame("0").await;
        d.click("document.getElementById('basket-status')").await;
    });
    let status = picked.expect("the status was picked");
    let mut draft = recorder.stop().await.unwrap();
    assert_eq!(
        draft
            .steps
            .iter()
            .filter(|s| s.step.kind() == "click")
            .count(),
        2,
        "the picking click is not a step"
    );
    let save = draft.steps[1].step.selector().unwrap().candidates.clone();
    let position = |kind: SelectorKind, value: &str| {
        save.iter()
            .position(|c| c.kind == kind && c.value == value)
            .unwrap_or_else(|| panic!("no {kind:?} {value} in {save:?}"))
    };
    let generated = position(SelectorKind::Id, "ember123");
    assert!(
        position(SelectorKind::Role, "button") < generated,
        "{save:?}"
    );
    assert!(
        position(SelectorKind::Text, "Save draft") < generated,
        "{save:?}"
    );
    assert!(
        save.iter().all(|c| !c.value.contains("css-1q2w3e")),
        "hashed classes are not used: {save:?}"
    );

    let add = draft.steps[2].step.selector().unwrap().candidates.clone();
    assert_eq!(add[0], SelectorCandidate::role("button", "Add"), "{add:?}");
    for c in &add {
        assert!(
            !((c.kind == SelectorKind::TestId && c.value == "add")
                || (c.kind == SelectorKind::Text && c.value == "Add")),
            "a selector matching two elements is kept: {c:?}"
        );
    }
    assert_eq!(status.text, "Added apples");
    assert_eq!(
        status.selector.candidates[0],
        SelectorCandidate::test_id("basket-status")
    );
    assert!(
        status
            .selector
            .candidates
            .iter()
            .all(|c| !c.value.contains("apples")),
        "an output's selector does not depend on the value read: {:?}",
        status.selector
    );
    draft
        .mark_output(OutputMark::picked("status", &status, OutputKind::String))
        .unwrap();
    let file = draft.into_tool_file("basket", "1.0.0", None).unwrap();
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(outputs["status"], "Added apples");
    h.close().await;
}

/// A one-connection-at-a-time OpenAI-compatible server on 127.0.0.1: answers every
/// `POST /v1/chat/completions` with `content` and keeps the request (headers, body).
struct FakeModel {
    url: String,
    requests: Arc<Mutex<Vec<(String, String)>>>,
    _thread: std::thread::JoinHandle<()>,
}

impl FakeModel {
    fn start(content: Value) -> FakeModel {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let requests: Arc<Mutex<Vec<(String, String)>>> = Arc::default();
        let seen = requests.clone();
        let thread = std::thread::spawn(move || {
            // One request, then the listener closes: afterwards no model is reachable.
            for stream in listener.incoming().take(1) {
                let Ok(mut stream) = stream else { break };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut head = String::new();
                let mut length = 0usize;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                    head.push_str(&line);
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).unwrap();
                seen.lock()
                    .unwrap()
                    .push((head, String::from_utf8_lossy(&body).into_owned()));
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
        FakeModel {
            url,
            requests,
            _thread: thread,
        }
    }
}

#[tokio::test]
async fn model_suggestions_are_kept_in_the_metadata_and_replay_needs_no_model() {
    let h = Harness::start().await;
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/index.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    // A confirm dialog: recorded as the answer to give before the click that opens it.
    d.click("document.getElementById('clear-history')").await;
    d.wait_js("document.getElementById('service-status').textContent === 'History cleared'")
        .await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(|s| s.step.kind() == "handle_dialog"))
            .await,
        "{:#?}",
        recorder.steps()
    );
    let mut draft = recorder.stop().await.unwrap();
    assert_eq!(kinds(&draft), ["navigate", "handle_dialog", "click"]);
    draft
        .mark_output(OutputMark::css(
            "status",
            "#service-status",
            OutputKind::String,
        ))
        .unwrap();

    let model = FakeModel::start(json!({
        "name": "clear-history",
        "description": "Clear the shop's search history.",
        "inputs": {},
        "outputs": { "status": "The service status after clearing" },
    }));
    let assist = ModelAssist::new(&model.url, "test-model", Some("sk-test-key".into())).unwrap();
    let suggestions = assist.suggest(&mut draft).await.expect("the model answers");
    assert_eq!(suggestions.name.as_deref(), Some("clear-history"));
    assert_eq!(draft.suggested_name.as_deref(), Some("clear-history"));
    {
        let requests = model.requests.lock().unwrap();
        assert_eq!(requests.len(), 1);
        let (head, body) = &requests[0];
        assert!(head.starts_with("POST /v1/chat/completions"), "{head}");
        assert!(
            head.to_ascii_lowercase().contains("bearer sk-test-key"),
            "{head}"
        );
        assert!(
            body.contains("test-model") && body.contains("status"),
            "{body}"
        );
    }
    model._thread.join().unwrap();

    let file = draft
        .into_tool_file("clear-history", "1.0.0", None)
        .unwrap();
    assert_eq!(
        file.contract.description(),
        "Clear the shop's search history."
    );
    let calls = &file.metadata["model_calls"];
    assert_eq!(calls.as_array().unwrap().len(), 1);
    assert!(
        calls[0]["prompt_digest"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
    assert_eq!(calls[0]["response"]["name"], "clear-history");
    assert!(
        !file.to_json_pretty().contains("sk-test-key"),
        "the key is never stored"
    );
    // Replay reads the steps only: no model is reachable now, and none is needed.
    let dir = tempfile::tempdir().unwrap();
    let file = save_and_load(&file, dir.path());
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(outputs["status"], "History cleared");
    h.close().await;
}

impl Driver {
    async fn move_to(&self, (x, y): (f64, f64)) {
        self.mouse(json!({ "type": "mouseMoved", "x": x, "y": y }))
            .await;
        // A person's pointer does not teleport between events.
        tokio::time::sleep(Duration::from_millis(40)).await;
    }

    async fn wheel(&self, delta_y: f64) {
        self.mouse(json!({ "type": "mouseWheel", "x": 200.0, "y": 200.0, "deltaX": 0.0, "deltaY": delta_y }))
            .await;
    }

    /// Waits until the window stopped scrolling (the same position for 10 frames) and the
    /// recorder's debounce passed.
    async fn settle_scroll(&self) {
        self.page
            .evaluate_in_main_frame(
                "new Promise((resolve) => { let last = -1, same = 0; const tick = () => { if (window.scrollY === last) same++; else { same = 0; last = window.scrollY; } if (same >= 10) resolve(true); else requestAnimationFrame(tick); }; tick(); })",
            )
            .await
            .expect("the window settles");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }

    /// The centre of the element `expr` evaluates to, without scrolling.
    async fn centre_here(&self, expr: &str) -> (f64, f64) {
        let value = self
            .page
            .evaluate_in_main_frame(&format!(
                "(() => {{ const r = ({expr}).getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }})()"
            ))
            .await
            .expect("element found");
        (value[0].as_f64().unwrap(), value[1].as_f64().unwrap())
    }
}

fn count_kind(draft: &Draft, kind: &str) -> usize {
    draft.steps.iter().filter(|s| s.step.kind() == kind).count()
}

#[tokio::test]
async fn a_hover_that_reveals_the_clicked_item_is_recorded_and_plain_movement_is_not() {
    let h = Harness::start().await;
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/rec-menu.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    // Plain movement over the page and the intro reveals nothing the recording uses.
    d.move_to((5.0, 5.0)).await;
    let intro = d
        .centre_here("document.querySelector('[data-testid=intro]')")
        .await;
    d.move_to(intro).await;
    // Over the menu: its items appear; click one.
    let title = d.centre_here("document.querySelector('.menu-title')").await;
    d.move_to(title).await;
    d.wait_js(
        "document.querySelector('[data-testid=menu-orders]').getBoundingClientRect().height > 0",
    )
    .await;
    let orders = d
        .centre_here("document.querySelector('[data-testid=menu-orders]')")
        .await;
    d.move_to(orders).await;
    d.click_at(orders, 1).await;
    d.wait_js(
        "document.querySelector('[data-testid=menu-status]').textContent === 'Orders opened'",
    )
    .await;
    // Away from the menu, then a visible button: movement only, no hover.
    d.move_to(intro).await;
    d.click("document.querySelector('[data-testid=refresh]')")
        .await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s
                .iter()
                .filter(|s| s.step.kind() == "click")
                .count()
                == 2)
            .await,
        "{:#?}",
        recorder.steps()
    );
    let mut draft = recorder.stop().await.unwrap();
    assert_eq!(
        kinds(&draft),
        ["navigate", "hover", "click", "click"],
        "{:#?}",
        draft.steps
    );
    assert_eq!(count_kind(&draft, "hover"), 1);
    let hover = draft.steps[1].step.selector().unwrap().candidates.clone();
    assert_eq!(
        hover[0],
        SelectorCandidate::test_id("account-menu"),
        "{hover:?}"
    );
    draft
        .mark_output(OutputMark::css(
            "status",
            "[data-testid=menu-status]",
            OutputKind::String,
        ))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = save_and_load(
        &draft.into_tool_file("menu", "1.0.0", None).unwrap(),
        dir.path(),
    );
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(outputs["status"], "Orders opened (refreshed)");
    h.close().await;
}

#[tokio::test]
async fn a_scroll_that_loads_the_next_target_is_kept_and_one_that_changes_nothing_is_dropped() {
    let h = Harness::start().await;
    // Scrolling a little, then clicking an item that was there from the start: no scroll step.
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/rec-feed.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    d.wheel(300.0).await;
    d.wait_js("window.scrollY >= 250").await;
    d.settle_scroll().await;
    let item = d
        .centre_here("document.querySelector('[data-testid=item-6]')")
        .await;
    d.click_at(item, 1).await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(|s| s.step.kind() == "click"))
            .await
    );
    let draft = recorder.stop().await.unwrap();
    assert_eq!(kinds(&draft), ["navigate", "click"], "{:#?}", draft.steps);

    // Scrolling to the bottom loads more items; clicking one needs the scroll.
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/rec-feed.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    for _ in 0..3 {
        d.wheel(800.0).await;
        tokio::time::sleep(Duration::from_millis(60)).await;
    }
    d.wait_js("document.querySelector('[data-testid=item-30]')")
        .await;
    d.settle_scroll().await;
    // More scrolling into the new items: the same container, one step.
    d.wheel(300.0).await;
    d.settle_scroll().await;
    // The first new item entirely in view.
    let first_new = "Array.from(document.querySelectorAll('.item')).slice(20).find((b) => { const r = b.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })";
    let label = d
        .page
        .evaluate_in_main_frame(&format!("({first_new}).textContent"))
        .await
        .expect("a new item is in view");
    let label = label.as_str().unwrap().to_string();
    let item = d.centre_here(first_new).await;
    d.click_at(item, 1).await;
    d.wait_js(&format!(
        "document.getElementById('status').textContent === 'Picked {label}'"
    ))
    .await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(|s| s.step.kind() == "click"))
            .await
    );
    let mut draft = recorder.stop().await.unwrap();
    assert_eq!(
        kinds(&draft),
        ["navigate", "scroll", "wait_for_element", "click"],
        "{:#?}",
        draft.steps
    );
    assert_eq!(count_kind(&draft, "scroll"), 1, "the scrolls are coalesced");
    let Step::Scroll(scroll) = &draft.steps[1].step else {
        unreachable!()
    };
    assert!(scroll.selector.is_none(), "the window scrolled");
    assert!(scroll.y > 1000.0, "the final position: {scroll:?}");
    draft
        .mark_output(OutputMark::css("picked", "#status", OutputKind::String))
        .unwrap();
    let file = draft.into_tool_file("feed", "1.0.0", None).unwrap();
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(outputs["picked"], format!("Picked {label}"));
    h.close().await;
}

fn shop_fixture(path: &str) -> Vec<u8> {
    std::fs::read(
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/shop")
            .join(path),
    )
    .expect("fixture file")
}

#[tokio::test]
async fn a_click_that_downloads_becomes_a_download_step_and_replays_to_the_same_file() {
    use sha2::{Digest, Sha256};
    let h = Harness::start().await;
    let downloads = tempfile::tempdir().unwrap();
    let recorder = Recorder::start_on(
        &h.browser,
        &RecordOptions {
            download_dir: Some(downloads.path().to_path_buf()),
            ..options(h.url("/files.html"))
        },
    )
    .await
    .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    d.click("document.querySelector('[data-testid=download-receipt]')")
        .await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(|s| s.download.is_some()))
            .await,
        "{:#?}",
        recorder.steps()
    );
    let draft = recorder.stop().await.unwrap();
    assert_eq!(
        kinds(&draft),
        ["navigate", "download"],
        "{:#?}",
        draft.steps
    );
    let expected = hex::encode(Sha256::digest(shop_fixture("downloads/receipt-1001.csv")));
    let recorded = draft.steps[1].download.clone().unwrap();
    assert_eq!(recorded.name, "receipt-1001.csv");
    assert_eq!(recorded.sha256, expected);
    assert_eq!(
        std::fs::read(&recorded.path).unwrap().len() as u64,
        recorded.size
    );
    let Step::Download(step) = &draft.steps[1].step else {
        unreachable!()
    };
    assert_eq!(step.filename.as_deref(), Some("receipt-1001.csv"));
    assert_eq!(
        step.selector.candidates[0],
        SelectorCandidate::test_id("download-receipt")
    );

    let dir = tempfile::tempdir().unwrap();
    let file = save_and_load(
        &draft.into_tool_file("receipt", "1.0.0", None).unwrap(),
        dir.path(),
    );
    let context = h.browser.new_context().await.unwrap();
    let report = Replayer::new(browserflow_replay::ReplayOptions {
        download_dir: Some(dir.path().join("replayed")),
        ..Default::default()
    })
    .run(&context, &file.steps, &Map::new())
    .await
    .unwrap_or_else(|e| panic!("replay failed: {e}"));
    context.close().await.unwrap();
    let replayed = report.steps[1].download.as_ref().expect("a download");
    assert_eq!(replayed.sha256, recorded.sha256);
    h.close().await;
}

#[tokio::test]
async fn a_file_chooser_is_answered_through_the_recorder_and_the_upload_replays() {
    let h = Harness::start().await;
    let dir = tempfile::tempdir().unwrap();
    let attachment = dir.path().join("invoice notes.txt");
    std::fs::write(&attachment, "seventeen bytes!!").unwrap();
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/files.html")))
        .await
        .unwrap();
    let mut events = recorder.subscribe();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    d.click("document.querySelector('[data-testid=upload-input]')")
        .await;
    let request = tokio::time::timeout(WAIT, async {
        loop {
            if let Ok(browserflow_record::RecordEvent::FileChooser(request)) =
                events.recv().await
            {
                return request;
            }
        }
    })
    .await
    .expect("the chooser is reported");
    assert!(!request.multiple);
    assert_eq!(request.page, "main");
    // One file for a single-file chooser; two are refused and the chooser stays open.
    let err = recorder
        .answer_file_chooser(&[attachment.clone(), attachment.clone()])
        .await
        .unwrap_err();
    assert!(err.to_string().contains("takes one file, not 2"), "{err}");
    let index = recorder
        .answer_file_chooser(std::slice::from_ref(&attachment))
        .await
        .expect("answered");
    assert_eq!(index, Some(1));
    assert!(matches!(
        recorder
            .answer_file_chooser(std::slice::from_ref(&attachment))
            .await,
        Err(browserflow_record::RecordError::NoFileChooser)
    ));
    d.wait_js("document.querySelector('[data-testid=upload-input]').files.length === 1")
        .await;
    d.click("document.querySelector('[data-testid=upload-note]')")
        .await;
    d.insert_text("for accounting").await;
    d.click("document.querySelector('[data-testid=upload-submit]')")
        .await;
    d.wait_js("document.querySelector('[data-testid=upload-name]')")
        .await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(
                |s| matches!(&s.step, Step::Click(c) if c.navigation.is_some())
            ))
            .await,
        "{:#?}",
        recorder.steps()
    );
    let on_page = recorder
        .page()
        .evaluate_in_main_frame("document.querySelector('[data-testid=upload-size]').textContent")
        .await
        .unwrap();
    assert_eq!(on_page, "17");
    let mut draft = recorder.stop().await.unwrap();
    assert_eq!(
        kinds(&draft),
        ["navigate", "upload", "fill", "click"],
        "{:#?}",
        draft.steps
    );
    let Step::Upload(upload) = &draft.steps[1].step else {
        unreachable!()
    };
    assert_eq!(
        upload.files,
        [std::path::absolute(&attachment)
            .unwrap()
            .to_string_lossy()
            .into_owned()]
    );
    for (field, test_id, kind) in [
        ("name", "upload-name", OutputKind::String),
        ("size", "upload-size", OutputKind::Integer),
    ] {
        draft
            .mark_output(OutputMark::css(
                field,
                format!("[data-testid={test_id}]"),
                kind,
            ))
            .unwrap();
    }
    let file = save_and_load(
        &draft.into_tool_file("attach", "1.0.0", None).unwrap(),
        dir.path(),
    );
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(outputs["name"], "invoice notes.txt");
    assert_eq!(outputs["size"], 17);
    h.close().await;
}

#[tokio::test]
async fn thumbnails_arrive_in_the_live_step_stream() {
    use browserflow_record::RecordEvent;
    let h = Harness::start().await;
    let recorder = Recorder::start_on(
        &h.browser,
        &RecordOptions {
            thumbnails: true,
            viewport: Some((800, 600)),
            ..options(h.url("/rec-ids.html"))
        },
    )
    .await
    .unwrap();
    let mut events = recorder.subscribe();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    d.click("document.getElementById('ember123')").await;
    let (index, png) = tokio::time::timeout(WAIT, async {
        loop {
            if let Ok(RecordEvent::StepUpdated { index, step }) = events.recv().await
                && let Some(png) = step.thumbnail_png
            {
                return (index, png);
            }
        }
    })
    .await
    .expect("a thumbnail arrives");
    assert_eq!(recorder.steps()[index].step.kind(), "click");
    let image = image::load_from_memory_with_format(&png, image::ImageFormat::Png).expect("a PNG");
    // 800×600 scaled to 240 wide.
    assert_eq!((image.width(), image.height()), (240, 180));
    // Without the option, no thumbnail is taken.
    let draft = recorder.stop().await.unwrap();
    assert!(draft.steps[index].thumbnail_png.is_some());
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/rec-ids.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.click("document.getElementById('ember123')").await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(|s| s.step.kind() == "click"))
            .await
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let draft = recorder.stop().await.unwrap();
    assert!(draft.steps.iter().all(|s| s.thumbnail_png.is_none()));
    h.close().await;
}

#[tokio::test]
async fn a_model_selector_suggestion_is_checked_in_the_page_before_it_becomes_a_candidate() {
    let h = Harness::start().await;
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/rec-ids.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.click("document.getElementById('ember123')").await;
    d.click("document.querySelector('[data-testid=add]')").await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s
                .iter()
                .filter(|s| s.step.kind() == "click")
                .count()
                == 2)
            .await
    );
    // A unique selector on the recorded element: added where CSS ranks.
    let model = FakeModel::start(json!({ "kind": "css", "value": "main p > button" }));
    let assist = ModelAssist::new(&model.url, "test-model", None).unwrap();
    let accepted = recorder
        .suggest_selector(&assist, 1)
        .await
        .expect("the model answers");
    let position = accepted.position.expect("accepted");
    assert!(accepted.rejected.is_none());
    let save = recorder.steps()[1]
        .step
        .selector()
        .unwrap()
        .candidates
        .clone();
    assert_eq!(save[position], SelectorCandidate::css("main p > button"));
    assert!(
        save[..position]
            .iter()
            .all(|c| !matches!(c.kind, SelectorKind::Xpath)),
        "ranked by its kind: {save:?}"
    );
    {
        let requests = model.requests.lock().unwrap();
        let body = &requests[0].1;
        assert!(
            body.contains("Save draft"),
            "the prompt describes the step: {body}"
        );
    }
    model._thread.join().unwrap();

    // A selector matching both Add buttons: rejected, the candidates unchanged.
    let before = recorder.steps()[2].step.selector().unwrap().clone();
    let model = FakeModel::start(json!({ "kind": "test_id", "value": "add" }));
    let assist = ModelAssist::new(&model.url, "test-model", None).unwrap();
    let rejected = recorder.suggest_selector(&assist, 2).await.unwrap();
    assert_eq!(rejected.position, None);
    assert!(
        rejected
            .rejected
            .as_deref()
            .is_some_and(|r| r.contains("not unique")),
        "{rejected:?}"
    );
    assert_eq!(recorder.steps()[2].step.selector().unwrap(), &before);
    model._thread.join().unwrap();
    // No model reachable: a clear error, the recording unaffected.
    let err = recorder.suggest_selector(&assist, 2).await.unwrap_err();
    assert!(err.to_string().contains("model assistance failed"), "{err}");

    let mut draft = recorder.stop().await.unwrap();
    draft
        .mark_output(OutputMark::css(
            "status",
            "#basket-status",
            OutputKind::String,
        ))
        .unwrap();
    let file = draft.into_tool_file("basket", "1.0.0", None).unwrap();
    let calls = file.metadata["model_calls"].as_array().unwrap().clone();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(calls[0]["purpose"], "selector");
    assert_eq!(calls[0]["response"]["value"], "main p > button");
    assert!(
        calls[0]["outcome"]
            .as_str()
            .unwrap()
            .starts_with("added to step 2"),
        "{calls:?}"
    );
    assert!(
        calls[1]["outcome"].as_str().unwrap().contains("not unique"),
        "{calls:?}"
    );
    // The accepted candidate works when it is the only one.
    let mut only_suggested = file.clone();
    if let Step::Click(c) = &mut only_suggested.steps[1] {
        c.selector.candidates = vec![SelectorCandidate::css("main p > button")];
    }
    let outputs = replay(&h, &only_suggested, json!({})).await;
    assert_eq!(outputs["status"], "Added apples");
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dialog_left_to_the_person_is_recorded_with_their_answer() {
    use browserflow_record::DialogAnswers;

    let h = Harness::start().await;
    let recorder = Recorder::start_on(
        &h.browser,
        &RecordOptions {
            dialogs: Some(DialogAnswers::Person),
            ..options(h.url("/index.html"))
        },
    )
    .await
    .unwrap();
    let d = Driver::new(recorder.page());
    let mut page_events = d.session.subscribe();
    // The click blocks while the prompt is open, as it would for a person's mouse.
    let at = d.centre("document.getElementById('ask-name')").await;
    let session = d.session.clone();
    let clicking = tokio::spawn(async move {
        for kind in ["mouseMoved", "mousePressed", "mouseReleased"] {
            let _ = session
                .call(
                    "Input.dispatchMouseEvent",
                    json!({ "type": kind, "x": at.0, "y": at.1, "button": "left", "clickCount": 1 }),
                )
                .await;
        }
    });
    // Nobody but the person answers: the prompt stays open until the test (the person) does.
    let opened = tokio::time::timeout(WAIT, async {
        while let Some(event) = page_events.recv().await {
            if event.method == "Page.javascriptDialogOpening" {
                return true;
            }
        }
        false
    })
    .await
    .expect("the prompt opens");
    assert!(opened);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !clicking.is_finished(),
        "the prompt was answered by someone else"
    );
    d.session
        .call(
            "Page.handleJavaScriptDialog",
            json!({ "accept": true, "promptText": "Ada" }),
        )
        .await
        .expect("the person answers");
    clicking.await.unwrap();
    d.wait_js("document.getElementById('service-status').textContent === 'Hello, Ada'")
        .await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(|s| s.step.kind() == "click"))
            .await
    );
    let mut draft = recorder.stop().await.unwrap();
    assert_eq!(kinds(&draft), ["navigate", "handle_dialog", "click"]);
    let Step::HandleDialog(answer) = &draft.steps[1].step else {
        unreachable!()
    };
    assert!(answer.accept);
    assert_eq!(answer.prompt_text.as_deref(), Some("Ada"));

    draft
        .mark_output(OutputMark::css(
            "greeting",
            "#service-status",
            OutputKind::String,
        ))
        .unwrap();
    let file = draft.into_tool_file("say-hello", "1.0.0", None).unwrap();
    let output = replay(&h, &file, json!({})).await;
    assert_eq!(output["greeting"], "Hello, Ada");
    h.close().await;
}
