//! Journeys on widgets of real component libraries (`tests/widgets`: MUI, MUI X, Radix UI, dnd kit,
//! bundled by vite; `dist/` is checked in), recorded the way a person records them — trusted
//! CDP mouse and keyboard input only, never a value set by script — then saved, read back and
//! replayed in a fresh context. Each journey checks three things: the recording reads as a
//! person would describe the journey (no click on `body`, the keys that drove the widget present,
//! a drag recorded as a drag), the replay returns the value the person saw, and a second journey
//! ends on another value: where the person types something, the same tool replayed with another
//! input; elsewhere (a choice made by pointer or keys is not an input), a second recording with
//! another choice, replayed in turn.

use std::time::Duration;

use browserflow_cdp::{Browser, BrowserConfig};
use browserflow_record::{InputMark, OutputMark, Recorder};
use browserflow_shop::{FixtureServer, read_dir_files};
use browserflow_steps::{OutputKind, Step, ToolFile};
use serde_json::{Value, json};

use crate::record::driver::{Driver, WAIT, options, save_and_load};

mod choosers;
mod dates;
mod dnd;
mod mui;
mod place;
mod radix;

/// The widget pages and a browser.
pub(crate) struct Widgets {
    server: FixtureServer,
    browser: Browser,
}

impl Widgets {
    pub(crate) async fn start() -> Widgets {
        crate::support::log_warnings();
        let dist =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/widgets/dist");
        let files = read_dir_files(&dist).unwrap_or_default();
        assert!(
            files.contains_key("index.html"),
            "{} holds no built widget pages: run scripts/build-widgets",
            dist.display()
        );
        Widgets {
            server: FixtureServer::serve_files(files).expect("the widget pages are served"),
            browser: Browser::launch(&BrowserConfig::default())
                .await
                .expect("Chromium launches"),
        }
    }

    fn url(&self, widget: &str) -> String {
        self.server.url(&format!("/index.html?w={widget}"))
    }

    /// Starts recording on `widget`'s page, once the widget has rendered.
    async fn record(&self, widget: &str) -> (Recorder, Driver) {
        let recorder = Recorder::start_on(&self.browser, &options(self.url(widget)))
            .await
            .expect("recording starts");
        let d = Driver::new(recorder.page());
        d.wait_js("document.querySelector('[data-testid=result]')")
            .await;
        (recorder, d)
    }

    /// Replays `file` in a fresh context with `inputs`; the outputs.
    pub(crate) async fn replay(&self, file: &ToolFile, inputs: Value) -> Result<Value, String> {
        let context = self.browser.new_context().await.expect("context");
        let inputs = inputs.as_object().cloned().unwrap_or_default();
        let report = browserflow_replay::Replayer::default()
            .run(&context, &file.steps, &inputs)
            .await;
        context.close().await.expect("context closes");
        report
            .map(|r| Value::Object(r.outputs))
            .map_err(|e| e.to_string())
    }

    pub(crate) async fn close(self) {
        self.browser.close().await.expect("browser closes");
    }
}

/// The text of the page's result, as the person saw it.
async fn result_text(d: &Driver) -> String {
    let value = d
        .page
        .evaluate_in_main_frame("document.querySelector('[data-testid=result]').textContent")
        .await
        .expect("the result reads");
    value.as_str().unwrap_or_default().to_string()
}

/// Waits until the page's result reads `expected` (the widget has done what the person did).
pub(crate) async fn wait_result(d: &Driver, expected: &str) {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let now = result_text(d).await;
        if now == expected {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the widget never showed {expected:?} while recording (it shows {now:?})"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Presses `key` as a keyboard does (key down, its character if it has one, key up).
async fn press(d: &Driver, key: &str) {
    let (code, vk, text) = match key {
        "ArrowDown" => ("ArrowDown", 40, None),
        "ArrowUp" => ("ArrowUp", 38, None),
        "ArrowRight" => ("ArrowRight", 39, None),
        "ArrowLeft" => ("ArrowLeft", 37, None),
        "Enter" => ("Enter", 13, Some("\r")),
        "Escape" => ("Escape", 27, None),
        "Home" => ("Home", 36, None),
        "End" => ("End", 35, None),
        " " => ("Space", 32, Some(" ")),
        other => panic!("no key table entry for {other:?}"),
    };
    let base = json!({ "key": key, "code": code, "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk });
    let with = |kind: &str, text: Option<&str>| {
        let mut event = base.clone();
        event["type"] = json!(kind);
        if let Some(text) = text {
            event["text"] = json!(text);
        }
        event
    };
    let _ = d
        .session
        .call("Input.dispatchKeyEvent", with("rawKeyDown", None))
        .await;
    if let Some(text) = text {
        let _ = d
            .session
            .call("Input.dispatchKeyEvent", with("char", Some(text)))
            .await;
    }
    let _ = d
        .session
        .call("Input.dispatchKeyEvent", with("keyUp", None))
        .await;
    // A person's keys are tens of milliseconds apart; widgets re-render in between.
    tokio::time::sleep(Duration::from_millis(60)).await;
}

/// Drags with the left button from `from` to `to` in small moves, as a hand does.
pub(crate) async fn drag(d: &Driver, from: (f64, f64), to: (f64, f64)) {
    d.mouse(json!({ "type": "mouseMoved", "x": from.0, "y": from.1 }))
        .await;
    d.mouse(json!({ "type": "mousePressed", "x": from.0, "y": from.1, "button": "left", "clickCount": 1 }))
        .await;
    let moves = 12;
    for i in 1..=moves {
        let t = f64::from(i) / f64::from(moves);
        let (x, y) = (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t);
        d.mouse(json!({ "type": "mouseMoved", "x": x, "y": y, "button": "left", "buttons": 1 }))
            .await;
        tokio::time::sleep(Duration::from_millis(16)).await;
    }
    d.mouse(
        json!({ "type": "mouseReleased", "x": to.0, "y": to.1, "button": "left", "clickCount": 1 }),
    )
    .await;
}

/// Clicks the element `css` (in the main frame), once it is there.
pub(crate) async fn click_css(d: &Driver, css: &str) {
    d.wait_js(&format!("document.querySelector({css:?})")).await;
    d.click(&format!("document.querySelector({css:?})")).await;
}

/// Clicks the element with ARIA role `role` whose text is `text`, once it is there.
pub(crate) async fn click_role(d: &Driver, role: &str, text: &str) {
    click_text(d, &format!("[role={role}]"), text).await;
}

/// Clicks the element matching `css` whose text is `text`, once it is there.
pub(crate) async fn click_text(d: &Driver, css: &str, text: &str) {
    let find = format!(
        "[...document.querySelectorAll({css:?})].find((el) => el.textContent.trim() === {text:?})"
    );
    d.wait_js(&find).await;
    // Popups animate in: wait until the element has stopped moving.
    tokio::time::sleep(Duration::from_millis(300)).await;
    d.click(&find).await;
}

/// Whether a journey's typed text becomes the tool's inputs.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Typed {
    /// Nothing typed is a parameter.
    Fixed,
    /// The first fill becomes the input `input` (its default: what was typed).
    AnInput,
    /// Each fill, in order, becomes the input of that name (a date field's sections).
    Inputs(&'static [&'static str]),
}

impl Typed {
    /// The inputs the fills become, in the order of the fills.
    fn names(self) -> &'static [&'static str] {
        match self {
            Typed::Fixed => &[],
            Typed::AnInput => &["input"],
            Typed::Inputs(names) => names,
        }
    }
}

/// Stops the recording, marks the result as the output `result` (and the fills as the inputs
/// `typed` names), saves and reads the tool back.
async fn finish(
    recorder: Recorder,
    kind: OutputKind,
    typed: Typed,
    dir: &std::path::Path,
) -> ToolFile {
    let result = recorder
        .element("main", "[data-testid=result]")
        .await
        .expect("the result element");
    let mut draft = recorder.stop().await.expect("recording stops");
    let fills: Vec<usize> = draft
        .steps
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s.step, Step::Fill(_)))
        .map(|(i, _)| i)
        .collect();
    let names = typed.names();
    assert!(
        fills.len() >= names.len(),
        "{} fills recorded for the inputs {names:?}: {:#?}",
        fills.len(),
        draft.steps
    );
    for (step, name) in fills.into_iter().zip(names) {
        draft
            .mark_input(step, InputMark::string(*name))
            .expect("the fill becomes an input");
    }
    draft
        .mark_output(OutputMark::picked("result", &result, kind))
        .expect("the result becomes the output");
    let file = draft
        .into_tool_file("widget-journey", "1.0.0", None)
        .expect("a valid tool");
    save_and_load(&file, dir)
}

/// The recording reads as a person would tell the journey: no click on the document itself
/// (what a click whose press and release landed on different elements becomes), and every kind
/// in `expected_kinds` present, in that order.
fn assert_reads_like_the_journey(file: &ToolFile, expected_kinds: &[&str]) {
    let described: Vec<String> = file
        .steps
        .iter()
        .map(|s| serde_json::to_string(s).unwrap_or_default())
        .collect();
    for (step, text) in file.steps.iter().zip(&described) {
        if let Step::Click(click) = step {
            let first = click.selector.candidates.first().map(|c| c.describe());
            assert!(
                !matches!(
                    first.as_deref(),
                    Some("css \"body\"") | Some("css \"html\"")
                ),
                "a click on the document itself was recorded: {text}\nall steps:\n{}",
                described.join("\n")
            );
        }
    }
    let kinds: Vec<&str> = file.steps.iter().map(|s| s.kind().name()).collect();
    let mut rest = kinds.iter();
    for wanted in expected_kinds {
        assert!(
            rest.any(|k| k == wanted),
            "expected the steps {expected_kinds:?} in order, recorded {kinds:?}:\n{}",
            described.join("\n")
        );
    }
}

/// Two replays of one widget (another input, or another recorded choice) gave different
/// outputs: comparing each with what the person saw can tell a replay that did something else.
fn assert_apart(first: &Value, second: &Value) {
    assert_ne!(
        first, second,
        "the two journeys were meant to end on different values"
    );
}

/// Records `journey` on `widget`, checks how it reads, replays it and compares the output with
/// what the page showed; the tool, for more replays.
pub(crate) async fn journey_replays(
    w: &Widgets,
    widget: &str,
    expected_kinds: &[&str],
    kind: OutputKind,
    typed: Typed,
    journey: impl AsyncFnOnce(&Driver),
    dir: &std::path::Path,
) -> (ToolFile, Value) {
    let (recorder, d) = w.record(widget).await;
    journey(&d).await;
    let seen = result_text(&d).await;
    let file = finish(recorder, kind, typed, dir).await;
    assert_reads_like_the_journey(&file, expected_kinds);
    let expected = match kind {
        OutputKind::Number | OutputKind::Integer => json!(seen.parse::<f64>().expect("a number")),
        _ => json!(seen),
    };
    // The recorded input: a marked input's default is what the person typed.
    let inputs: serde_json::Map<String, Value> = file
        .contract
        .inputs()
        .iter()
        .filter_map(|i| Some((i.name.to_string(), i.schema.default.clone()?)))
        .collect();
    assert_eq!(
        inputs.len(),
        typed.names().len(),
        "{}",
        file.to_json_pretty()
    );
    let outputs = w
        .replay(&file, Value::Object(inputs))
        .await
        .unwrap_or_else(|e| {
            panic!(
                "the replay of {widget} failed: {e}\n{}",
                file.to_json_pretty()
            )
        });
    let got = outputs["result"].clone();
    let same = match (got.as_f64(), expected.as_f64()) {
        (Some(a), Some(b)) => (a - b).abs() < 1e-9,
        _ => got == expected,
    };
    assert!(
        same,
        "{widget}: the person saw {expected}, the replay returned {got}\n{}",
        file.to_json_pretty()
    );
    (file, expected)
}
