//! The gesture model: a press, its release and its click are one gesture, and the click step
//! targets the element pressed — not the click event's target, which is the common ancestor
//! when the press opened something under the pointer. Fixtures: `tests/fixtures/widgets`.

use browserflow_record::{OutputMark, Recorder};
use browserflow_shop::{FixtureServer, read_dir_files};
use browserflow_steps::{OutputKind, SelectorKind, Step};
use serde_json::json;

use crate::record::driver::*;
use crate::support::Harness;

pub(crate) fn widgets() -> FixtureServer {
    let dir =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/widgets");
    FixtureServer::serve_files(read_dir_files(&dir).expect("widget fixtures read"))
        .expect("fixture server starts")
}

/// A select that opens on the press over a full-page backdrop (as component libraries do):
/// the release lands on the backdrop and the browser's click goes to `body`. The option is
/// chosen by a second press. The recording clicks the select and the option, and replays to
/// the same choice.
#[tokio::test]
async fn a_menu_opened_on_the_press_is_recorded_as_a_click_on_what_was_pressed() {
    let h = Harness::start().await;
    let server = widgets();
    let recorder = Recorder::start_on(&h.browser, &options(server.url("/press-menu.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    let select = d
        .centre_here("document.querySelector('[data-testid=fruit-select]')")
        .await;
    d.move_to(select).await;
    d.click_at(select, 1).await;
    d.wait_js("!document.getElementById('fruit-list').hidden")
        .await;
    let banana = d
        .centre_here("document.querySelector('[data-value=banana]')")
        .await;
    d.move_to(banana).await;
    d.click_at(banana, 1).await;
    d.wait_js("document.querySelector('[data-testid=chosen]').textContent === 'banana'")
        .await;
    wait_for_steps(&recorder, "click", 2).await;
    let mut draft = recorder.stop().await.unwrap();
    assert_eq!(
        kinds(&draft),
        ["navigate", "click", "click"],
        "{:#?}",
        draft.steps
    );
    for step in &draft.steps[1..] {
        let candidates = &step.step.selector().unwrap().candidates;
        assert!(
            !candidates.iter().any(|c| {
                (c.kind == SelectorKind::Css && ["body", "html"].contains(&c.value.as_str()))
                    || (c.kind == SelectorKind::Xpath
                        && ["/html", "/html/body"].contains(&c.value.as_str()))
            }),
            "a click on the page itself was recorded: {candidates:?}"
        );
    }
    assert_eq!(
        draft.steps[1].step.selector().unwrap().candidates[0].value,
        "fruit-select",
        "{:#?}",
        draft.steps[1]
    );
    assert!(
        draft.steps[2].description.contains("Banana"),
        "{:#?}",
        draft.steps[2]
    );
    draft
        .mark_output(OutputMark::css(
            "fruit",
            "[data-testid=chosen]",
            OutputKind::String,
        ))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = save_and_load(
        &draft.into_tool_file("fruit", "1.0.0", None).unwrap(),
        dir.path(),
    );
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(outputs["fruit"], "banana");
    h.close().await;
}

/// An option that the page moves on the release (removed and inserted again: a "recently used
/// first" list) gets no click from the browser, though it is back in the page at once. The
/// press and release are still recorded as a click on it, and the click replays.
#[tokio::test]
async fn a_click_the_browser_drops_because_the_page_moved_the_pressed_element_is_recorded() {
    let h = Harness::start().await;
    let server = widgets();
    let recorder = Recorder::start_on(&h.browser, &options(server.url("/recent-first.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    d.page
        .evaluate_in_main_frame(
            "window.__clicks = 0; addEventListener('click', () => window.__clicks++, true); true",
        )
        .await
        .unwrap();
    let blue = d
        .centre_here("document.querySelector('[data-value=blue]')")
        .await;
    d.move_to(blue).await;
    d.click_at(blue, 1).await;
    d.wait_js("document.querySelector('[data-testid=chosen]').textContent === 'blue'")
        .await;
    d.wait_js("document.querySelector('#colours [role=option]').dataset.value === 'blue'")
        .await;
    // The premise: the browser dispatched no click for this press and release.
    let clicks = d
        .page
        .evaluate_in_main_frame("window.__clicks")
        .await
        .unwrap();
    assert_eq!(clicks, json!(0), "the browser sent a click after all");
    wait_for_steps(&recorder, "click", 1).await;
    let mut draft = recorder.stop().await.unwrap();
    assert_eq!(kinds(&draft), ["navigate", "click"], "{:#?}", draft.steps);
    assert!(
        draft.steps[1].description.contains("Blue"),
        "{:#?}",
        draft.steps[1]
    );
    draft
        .mark_output(OutputMark::css(
            "colour",
            "[data-testid=chosen]",
            OutputKind::String,
        ))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = save_and_load(
        &draft.into_tool_file("colour", "1.0.0", None).unwrap(),
        dir.path(),
    );
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(outputs["colour"], "blue");
    h.close().await;
}

/// A press, moves with the button held, and a release, as a hand makes them.
pub(crate) async fn drag(d: &Driver, (x, y): (f64, f64), (dx, dy): (f64, f64)) {
    d.move_to((x, y)).await;
    d.mouse(json!({ "type": "mousePressed", "x": x, "y": y, "button": "left", "buttons": 1, "clickCount": 1 }))
        .await;
    let moves = 8;
    for i in 1..=moves {
        let t = f64::from(i) / f64::from(moves);
        d.mouse(json!({ "type": "mouseMoved", "x": x + dx * t, "y": y + dy * t, "button": "left", "buttons": 1 }))
            .await;
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    d.mouse(json!({ "type": "mouseReleased", "x": x + dx, "y": y + dy, "button": "left", "buttons": 0, "clickCount": 1 }))
        .await;
}

/// A slider dragged from its thumb — an ARIA slider made of divs with pointer handlers, and
/// an `<input type=range>` — is a `drag` step each (not a click on the slider, not a fill),
/// and replays to the same values.
#[tokio::test]
async fn sliders_dragged_from_their_thumb_are_drag_steps_and_replay_to_the_same_values() {
    let h = Harness::start().await;
    let server = widgets();
    let recorder = Recorder::start_on(&h.browser, &options(server.url("/keys.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    let thumb = d
        .centre_here("document.querySelector('[data-testid=months]')")
        .await;
    // 10 months at 3 px a month: 60 px to the right is 30.
    drag(&d, thumb, (60.0, 0.0)).await;
    d.wait_js("document.querySelector('[data-testid=months-value]').textContent === '30'")
        .await;
    let volume = d
        .centre_here("document.querySelector('[data-testid=volume]')")
        .await;
    drag(&d, volume, (45.0, 0.0)).await;
    let recorded_volume = d
        .page
        .evaluate_in_main_frame("document.querySelector('[data-testid=volume-value]').textContent")
        .await
        .unwrap();
    assert_ne!(recorded_volume, json!("5"), "the range input did not move");
    wait_for_steps(&recorder, "drag", 2).await;
    let mut draft = recorder.stop().await.unwrap();
    assert_eq!(
        kinds(&draft),
        ["navigate", "drag", "drag"],
        "{:#?}",
        draft.steps
    );
    match &draft.steps[1].step {
        Step::Drag(drag) => {
            assert_eq!(drag.selector.candidates[0].value, "months", "{drag:?}");
            assert_eq!(
                (drag.by.x, drag.by.y, drag.target.is_none()),
                (60.0, 0.0, true)
            );
        }
        other => panic!("expected a drag, got {other:?}"),
    }
    for (field, test_id) in [("months", "months-value"), ("volume", "volume-value")] {
        draft
            .mark_output(OutputMark::css(
                field,
                format!("[data-testid={test_id}]"),
                OutputKind::String,
            ))
            .unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let file = save_and_load(
        &draft.into_tool_file("sliders", "1.0.0", None).unwrap(),
        dir.path(),
    );
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(
        (&outputs["months"], &outputs["volume"]),
        (&json!("30"), &recorded_volume)
    );
    h.close().await;
}
