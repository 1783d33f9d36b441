//! What the recorder tests share: trusted CDP input on one page session (a [`Driver`]),
//! recording options, and replaying or reloading what was recorded.

use std::time::Duration;

use browserflow_cdp::Page;
use browserflow_cdp::session::CdpSession;
use browserflow_record::{Draft, RecordOptions};
use browserflow_replay::Replayer;
use browserflow_steps::ToolFile;
use serde_json::{Map, Value, json};

use crate::support::Harness;

pub(crate) const WAIT: Duration = Duration::from_secs(10);

pub(crate) fn options(url: String) -> RecordOptions {
    RecordOptions {
        headed: false,
        ..RecordOptions::new(url)
    }
}

/// Trusted input on one page session.
pub(crate) struct Driver {
    pub(crate) session: CdpSession,
    pub(crate) page: Page,
}

impl Driver {
    pub(crate) fn new(page: &Page) -> Self {
        Self {
            session: page.session().clone(),
            page: page.clone(),
        }
    }

    /// Waits until `condition` (a JS expression) is true in the main frame.
    pub(crate) async fn wait_js(&self, condition: &str) {
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
    pub(crate) async fn centre(&self, expr: &str) -> (f64, f64) {
        let value = self
            .page
            .evaluate_in_main_frame(&format!(
                "(() => {{ const el = {expr}; el.scrollIntoView({{ block: 'center' }}); const r = el.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }})()"
            ))
            .await
            .expect("element found");
        (value[0].as_f64().unwrap(), value[1].as_f64().unwrap())
    }

    pub(crate) async fn click_at(&self, (x, y): (f64, f64), count: u8) {
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

    pub(crate) async fn click(&self, expr: &str) {
        let at = self.centre(expr).await;
        self.click_at(at, 1).await;
    }

    pub(crate) async fn mouse(&self, params: Value) {
        // A click that navigates may answer "navigated or closed": that is an outcome here.
        let _ = self.session.call("Input.dispatchMouseEvent", params).await;
    }

    pub(crate) async fn insert_text(&self, text: &str) {
        self.session
            .call("Input.insertText", json!({ "text": text }))
            .await
            .expect("insertText");
    }

    /// Types `text` one key at a time (one `input` event per character).
    pub(crate) async fn type_keys(&self, text: &str) {
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
    pub(crate) async fn press_enter(&self) {
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

pub(crate) fn kinds(draft: &Draft) -> Vec<&'static str> {
    draft.steps.iter().map(|s| s.step.kind().name()).collect()
}

pub(crate) async fn replay(h: &Harness, file: &ToolFile, inputs: Value) -> Map<String, Value> {
    let context = h.browser.new_context().await.expect("context");
    let inputs = inputs.as_object().cloned().unwrap_or_default();
    let report = Replayer::default()
        .run(&context, &file.steps, &inputs)
        .await
        .unwrap_or_else(|e| panic!("replay failed: {e}"));
    context.close().await.expect("context closes");
    report.outputs
}

pub(crate) fn save_and_load(file: &ToolFile, dir: &std::path::Path) -> ToolFile {
    let path = dir.join(format!("{}.json", file.contract.reference()));
    std::fs::write(&path, file.to_json_pretty()).expect("write tool");
    ToolFile::load(&path).expect("the saved tool loads")
}

impl Driver {
    pub(crate) async fn move_to(&self, (x, y): (f64, f64)) {
        self.mouse(json!({ "type": "mouseMoved", "x": x, "y": y }))
            .await;
        // A person's pointer does not teleport between events.
        tokio::time::sleep(Duration::from_millis(40)).await;
    }

    pub(crate) async fn wheel(&self, delta_y: f64) {
        self.mouse(json!({ "type": "mouseWheel", "x": 200.0, "y": 200.0, "deltaX": 0.0, "deltaY": delta_y }))
            .await;
    }

    /// Waits until the window stopped scrolling (the same position for 10 frames) and the
    /// recorder's debounce passed.
    pub(crate) async fn settle_scroll(&self) {
        self.page
            .evaluate_in_main_frame(
                "new Promise((resolve) => { let last = -1, same = 0; const tick = () => { if (window.scrollY === last) same++; else { same = 0; last = window.scrollY; } if (same >= 10) resolve(true); else requestAnimationFrame(tick); }; tick(); })",
            )
            .await
            .expect("the window settles");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }

    /// The centre of the element `expr` evaluates to, without scrolling.
    pub(crate) async fn centre_here(&self, expr: &str) -> (f64, f64) {
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

/// Waits until the recording holds `n` steps of `kind` (they arrive after the input that made
/// them); fails with the steps recorded so far.
pub(crate) async fn wait_for_steps(recorder: &browserflow_record::Recorder, kind: &str, n: usize) {
    assert!(
        recorder
            .wait_until(WAIT, |s| s
                .iter()
                .filter(|s| s.step.kind().name() == kind)
                .count()
                == n)
            .await,
        "waited for {n} {kind} step(s): {:#?}",
        recorder.steps()
    );
}

pub(crate) fn count_kind(draft: &Draft, kind: &str) -> usize {
    draft
        .steps
        .iter()
        .filter(|s| s.step.kind().name() == kind)
        .count()
}

pub(crate) fn shop_fixture(path: &str) -> Vec<u8> {
    std::fs::read(
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/shop")
            .join(path),
    )
    .expect("fixture file")
}

/// Waits for [`RecordEvent::PickArmed`](browserflow_record::RecordEvent::PickArmed): every
/// frame is in pick mode.
pub(crate) async fn pick_armed(
    events: &mut tokio::sync::broadcast::Receiver<browserflow_record::RecordEvent>,
) {
    tokio::time::timeout(WAIT, async {
        loop {
            match events.recv().await {
                Ok(browserflow_record::RecordEvent::PickArmed) => return,
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(e) => panic!("the recorder's events ended before pick mode: {e}"),
            }
        }
    })
    .await
    .expect("pick mode armed");
}
