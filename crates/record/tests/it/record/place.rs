//! The recorded viewport, and where the pointer rests: a tool replays in the window size it was
//! recorded in, so a popup that opens below or above its field by the room left opens where it
//! did for the person, and a pointer resting where the person's did hovers what theirs hovered.
//! Fixtures: `tests/fixtures/place`.

use browserflow_cdp::{Browser, BrowserConfig};
use browserflow_record::{OutputMark, Recorder};
use browserflow_replay::{ReplayOptions, Replayer};
use browserflow_shop::{FixtureServer, read_dir_files};
use browserflow_steps::{OutputKind, ToolFile, Viewport};
use serde_json::{Map, Value, json};

use crate::record::driver::*;

pub(crate) fn place_fixtures() -> FixtureServer {
    let dir =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/place");
    FixtureServer::serve_files(read_dir_files(&dir).expect("place fixtures read"))
        .expect("fixture server starts")
}

/// A browser whose windows are `width` × `height`.
async fn browser_with_window(width: u32, height: u32) -> Browser {
    Browser::launch(&BrowserConfig {
        extra_args: vec![format!("--window-size={width},{height}")],
        ..BrowserConfig::default()
    })
    .await
    .expect("Chromium launches")
}

/// Presses a named key as a keyboard does.
pub(crate) async fn key(d: &Driver, key: &str, code: i64) {
    let text = (key == "Enter").then_some("\r");
    let mut down = json!({ "type": "rawKeyDown", "key": key, "code": key,
                           "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code });
    d.session
        .call("Input.dispatchKeyEvent", down.clone())
        .await
        .expect("key down");
    if let Some(text) = text {
        down["type"] = json!("char");
        down["text"] = json!(text);
        d.session
            .call("Input.dispatchKeyEvent", down.clone())
            .await
            .expect("char");
    }
    down["type"] = json!("keyUp");
    d.session
        .call("Input.dispatchKeyEvent", down)
        .await
        .expect("key up");
    tokio::time::sleep(std::time::Duration::from_millis(60)).await;
}

/// Replays `file` in a fresh context of `browser`, with its recorded viewport when `viewport`.
async fn replay_in(browser: &Browser, file: &ToolFile, viewport: bool) -> Result<Value, String> {
    let context = browser.new_context().await.expect("context");
    let replayer = Replayer::new(ReplayOptions {
        viewport: file.viewport.filter(|_| viewport),
        ..ReplayOptions::default()
    });
    let report = replayer.run(&context, &file.steps, &Map::new()).await;
    context.close().await.expect("context closes");
    report
        .map(|r| Value::Object(r.outputs))
        .map_err(|e| e.to_string())
}

/// The person, in a 1280×800 window (a 1280×713 viewport), presses "Express" (their pointer stays on it), tabs to the
/// country field, types "G": the list opens *below* the field, away from the pointer;
/// ArrowDown and Enter choose Germany. In a 780×493 window (780×406) the list opens *above* the field,
/// over the resting pointer, whose hover makes Georgia the active option: the same keys
/// would choose Ghana. The tool keeps the recorded viewport and replays in it: Germany. The same
/// tool without it (a tool file written before the field existed) fails at a step whose
/// recorded check does not hold, naming it — never Ghana with exit 0.
#[tokio::test]
async fn a_popup_placed_by_the_room_left_chooses_the_recorded_option_in_another_window() {
    let server = place_fixtures();
    let recording = browser_with_window(1280, 800).await;
    let recorder = Recorder::start_on(&recording, &options(server.url("/popup.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    let size = d
        .page
        .evaluate_in_main_frame("[innerWidth, innerHeight]")
        .await
        .unwrap();
    let window = Viewport {
        width: size[0].as_u64().unwrap() as u32,
        height: size[1].as_u64().unwrap() as u32,
    };
    let express = d.centre_here("document.getElementById('express')").await;
    d.move_to(express).await;
    d.click_at(express, 1).await;
    d.wait_js("document.getElementById('express').getAttribute('aria-pressed') === 'true'")
        .await;
    key(&d, "Tab", 9).await;
    d.wait_js("document.activeElement.id === 'country'").await;
    d.insert_text("G").await;
    d.wait_js("document.getElementById('list').className === 'below'")
        .await;
    key(&d, "ArrowDown", 40).await;
    key(&d, "Enter", 13).await;
    d.wait_js("document.querySelector('[data-testid=result]').textContent === 'Germany, express'")
        .await;
    wait_for_steps(&recorder, "key_press", 3).await;
    let result = recorder
        .element("main", "[data-testid=result]")
        .await
        .expect("the result element");
    let mut draft = recorder.stop().await.unwrap();
    draft
        .mark_output(OutputMark::picked("result", &result, OutputKind::String))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = save_and_load(
        &draft.into_tool_file("delivery", "1.0.0", None).unwrap(),
        dir.path(),
    );
    assert_eq!(file.viewport, Some(window), "{}", file.to_json_pretty());
    recording.close().await.unwrap();

    let small = browser_with_window(780, 493).await;
    let outputs = replay_in(&small, &file, true)
        .await
        .unwrap_or_else(|e| panic!("the replay failed: {e}\n{}", file.to_json_pretty()));
    assert_eq!(
        outputs["result"],
        "Germany, express",
        "{}",
        file.to_json_pretty()
    );
    let error = replay_in(&small, &file, false)
        .await
        .expect_err("in a smaller window the list opens over the pointer: not the person's choice");
    assert!(error.contains("(key_press"), "{error}");
    small.close().await.unwrap();
}

/// In a 780×406 viewport the list opens *above* the field. The person presses "Express" (just
/// above the field), then clicks the field — their pointer rests on it while they type "G" —
/// and ArrowDown and Enter choose Germany. The click that focused the field became the fill;
/// the fill keeps where it was, and the replay rests the pointer there: had it stayed on
/// "Express", the list opening above the field would open under it, its hover would make
/// Georgia the active option, and the same keys would choose Ghana. The same tool without
/// that place fails at a step's check.
#[tokio::test]
async fn a_fill_rests_the_pointer_where_the_person_clicked_its_field() {
    let server = place_fixtures();
    let browser = browser_with_window(780, 493).await;
    let recorder = Recorder::start_on(&browser, &options(server.url("/popup.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    let express = d.centre_here("document.getElementById('express')").await;
    d.move_to(express).await;
    d.click_at(express, 1).await;
    d.wait_js("document.getElementById('express').getAttribute('aria-pressed') === 'true'")
        .await;
    let field = d.centre_here("document.getElementById('country')").await;
    d.move_to(field).await;
    d.click_at(field, 1).await;
    d.wait_js("document.activeElement.id === 'country'").await;
    d.insert_text("G").await;
    d.wait_js("document.getElementById('list').className === 'above'")
        .await;
    key(&d, "ArrowDown", 40).await;
    key(&d, "Enter", 13).await;
    d.wait_js("document.querySelector('[data-testid=result]').textContent === 'Germany, express'")
        .await;
    wait_for_steps(&recorder, "key_press", 2).await;
    let result = recorder
        .element("main", "[data-testid=result]")
        .await
        .expect("the result element");
    let mut draft = recorder.stop().await.unwrap();
    draft
        .mark_output(OutputMark::picked("result", &result, OutputKind::String))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = save_and_load(
        &draft.into_tool_file("delivery", "1.0.0", None).unwrap(),
        dir.path(),
    );
    let fill = file
        .steps
        .iter()
        .find_map(|s| match s {
            browserflow_steps::Step::Fill(f) => Some(f),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no fill:\n{}", file.to_json_pretty()));
    assert!(fill.pointer.is_some(), "{}", file.to_json_pretty());
    let outputs = replay_in(&browser, &file, true)
        .await
        .unwrap_or_else(|e| panic!("the replay failed: {e}\n{}", file.to_json_pretty()));
    assert_eq!(
        outputs["result"],
        "Germany, express",
        "{}",
        file.to_json_pretty()
    );
    let mut unplaced = file.clone();
    for step in &mut unplaced.steps {
        if let browserflow_steps::Step::Fill(f) = step {
            f.pointer = None;
        }
    }
    let error = replay_in(&browser, &unplaced, true)
        .await
        .expect_err("a pointer resting on Express hovers an option the person never did");
    assert!(error.contains("(key_press"), "{error}");
    browser.close().await.unwrap();
}
