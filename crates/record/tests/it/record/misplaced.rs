//! What the recorder used to drop or misplace (measured against a public recorder's own
//! end-to-end expectations), each recorded with trusted input and replayed. Fixtures:
//! `tests/fixtures/place`.

use browserflow_record::{OutputMark, Recorder};
use browserflow_steps::{OutputKind, SelectorKind, Step, ToolFile};
use serde_json::json;

use crate::record::driver::*;
use crate::record::place::place_fixtures;
use crate::support::Harness;

/// Stops `recorder`, marks the page's result as the output `result`, saves and reads back.
async fn finish(recorder: Recorder, dir: &std::path::Path) -> ToolFile {
    let result = recorder
        .element("main", "[data-testid=result]")
        .await
        .expect("the result element");
    let mut draft = recorder.stop().await.unwrap();
    draft
        .mark_output(OutputMark::picked("result", &result, OutputKind::String))
        .unwrap();
    save_and_load(
        &draft.into_tool_file("misplaced", "1.0.0", None).unwrap(),
        dir,
    )
}

fn clicks(file: &ToolFile) -> Vec<&browserflow_steps::ClickStep> {
    file.steps
        .iter()
        .filter_map(|s| match s {
            Step::Click(c) => Some(c),
            _ => None,
        })
        .collect()
}

/// Two unnamed `about:blank` frames, each with a "Choose" button: the click in the second is
/// recorded with the frame's place among its siblings, and replays there.
#[tokio::test]
async fn a_click_in_the_second_of_two_blank_frames_replays_in_that_frame() {
    let h = Harness::start().await;
    let server = place_fixtures();
    let recorder = Recorder::start_on(&h.browser, &options(server.url("/frames.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    let choose = d
        .centre_here("(() => { const f = document.getElementById('pro'); const r = f.getBoundingClientRect(); const b = f.contentDocument.querySelector('button').getBoundingClientRect(); return { getBoundingClientRect: () => ({ left: r.left + f.clientLeft + b.left, top: r.top + f.clientTop + b.top, width: b.width, height: b.height }) }; })()")
        .await;
    d.move_to(choose).await;
    d.click_at(choose, 1).await;
    d.wait_js("document.querySelector('[data-testid=result]').textContent === 'Pro'")
        .await;
    wait_for_steps(&recorder, "click", 1).await;
    let dir = tempfile::tempdir().unwrap();
    let file = finish(recorder, dir.path()).await;
    let frame = clicks(&file)[0].selector.frame.clone();
    assert_eq!(
        frame.as_ref().and_then(|f| f.index_path.clone()),
        Some(vec![1]),
        "{}",
        file.to_json_pretty()
    );
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(outputs["result"], "Pro", "{}", file.to_json_pretty());
    // Without its place, the frame is ambiguous: the step fails naming both frames.
    let mut by_url_only = file.clone();
    for step in &mut by_url_only.steps {
        if let Step::Click(c) = step
            && let Some(frame) = &mut c.selector.frame
        {
            frame.index_path = None;
        }
    }
    let context = h.browser.new_context().await.unwrap();
    let error = browserflow_replay::Replayer::new(browserflow_replay::ReplayOptions {
        candidate_timeout: std::time::Duration::from_millis(1500),
        ..Default::default()
    })
    .run(&context, &by_url_only.steps, &Default::default())
    .await
    .expect_err("two frames match by URL alone");
    assert!(error.to_string().contains("about:blank"), "{error}");
    context.close().await.unwrap();
    h.close().await;
}

/// A press on text slotted into a web component is hit on its `<slot>`, which has no box: the
/// click is the component's host's, and replays.
#[tokio::test]
async fn a_click_on_slotted_text_is_recorded_on_the_component_host() {
    let h = Harness::start().await;
    let server = place_fixtures();
    let recorder = Recorder::start_on(&h.browser, &options(server.url("/slot.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("customElements.get('gift-chip') !== undefined")
        .await;
    let chip = d.centre_here("document.querySelector('gift-chip')").await;
    d.move_to(chip).await;
    d.click_at(chip, 1).await;
    d.wait_js("document.querySelector('[data-testid=result]').textContent === 'gift wrap'")
        .await;
    wait_for_steps(&recorder, "click", 1).await;
    let dir = tempfile::tempdir().unwrap();
    let file = finish(recorder, dir.path()).await;
    let click = clicks(&file)[0];
    assert!(
        click
            .selector
            .candidates
            .iter()
            .all(|c| c.shadow.is_empty() && !c.value.contains("slot")),
        "recorded inside the component, not on its host:\n{}",
        file.to_json_pretty()
    );
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(outputs["result"], "gift wrap", "{}", file.to_json_pretty());
    h.close().await;
}

/// The page sets an id on the element pressed (on mousedown) and takes it off later: the click
/// is described as the element was before the press — when replay looks for it — so no
/// candidate names that id.
#[tokio::test]
async fn an_id_the_page_sets_on_the_press_is_not_a_candidate() {
    let h = Harness::start().await;
    let server = place_fixtures();
    let recorder = Recorder::start_on(&h.browser, &options(server.url("/press-id.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    let yearly = d.centre_here("document.querySelectorAll('.chip')[1]").await;
    d.move_to(yearly).await;
    d.click_at(yearly, 1).await;
    d.wait_js("document.querySelector('[data-testid=result]').textContent === 'Yearly'")
        .await;
    wait_for_steps(&recorder, "click", 1).await;
    let dir = tempfile::tempdir().unwrap();
    let file = finish(recorder, dir.path()).await;
    let click = clicks(&file)[0];
    assert!(
        !click
            .selector
            .candidates
            .iter()
            .any(|c| c.kind == SelectorKind::Id || c.value.contains("pressed-chip")),
        "a candidate from the id set on mousedown:\n{}",
        file.to_json_pretty()
    );
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(outputs["result"], "Yearly", "{}", file.to_json_pretty());
    h.close().await;
}

/// A journey that ends scrolled down (the person accepts, then scrolls to read on) records
/// the scroll, and the replay ends where the person's did, not at the top.
#[tokio::test]
async fn a_journey_that_ends_on_a_scroll_position_replays_there() {
    let h = Harness::start().await;
    let server = place_fixtures();
    let recorder = Recorder::start_on(&h.browser, &options(server.url("/long.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    let accept = d.centre_here("document.getElementById('accept')").await;
    d.move_to(accept).await;
    d.click_at(accept, 1).await;
    d.wait_js("document.querySelector('[data-testid=result]').textContent === 'accepted'")
        .await;
    wait_for_steps(&recorder, "click", 1).await;
    for _ in 0..3 {
        d.wheel(400.0).await;
        tokio::time::sleep(std::time::Duration::from_millis(60)).await;
    }
    d.wait_js("window.scrollY >= 1000").await;
    d.settle_scroll().await;
    let scrolled = d
        .page
        .evaluate_in_main_frame("window.scrollY")
        .await
        .unwrap()
        .as_f64()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = finish(recorder, dir.path()).await;
    let kinds: Vec<&str> = file.steps.iter().map(|s| s.kind().name()).collect();
    assert_eq!(
        kinds,
        ["navigate", "click", "scroll", "extract"],
        "{}",
        file.to_json_pretty()
    );
    let context = h.browser.new_context().await.unwrap();
    let report = browserflow_replay::Replayer::default()
        .run(&context, &file.steps, &Default::default())
        .await
        .unwrap_or_else(|e| panic!("the replay failed: {e}"));
    assert_eq!(report.outputs["result"], "accepted");
    let replayed = context
        .page()
        .evaluate_in_main_frame("window.scrollY")
        .await
        .unwrap()
        .as_f64()
        .unwrap();
    assert!(
        (replayed - scrolled).abs() < 1.0,
        "the person ended at {scrolled}, the replay at {replayed}"
    );
    context.close().await.unwrap();
    h.close().await;
}

/// Presses `button` at `at` and releases it after `hold_ms`, as a hand does.
async fn press_button(d: &Driver, at: (f64, f64), button: &str, mask: u8, hold_ms: u64) {
    d.move_to(at).await;
    d.mouse(json!({ "type": "mousePressed", "x": at.0, "y": at.1, "button": button, "buttons": mask, "clickCount": 1 }))
        .await;
    tokio::time::sleep(std::time::Duration::from_millis(hold_ms)).await;
    d.mouse(json!({ "type": "mouseReleased", "x": at.0, "y": at.1, "button": button, "buttons": 0, "clickCount": 1 }))
        .await;
}

/// A right click (the card's own menu), a middle click and a long press (a button that acts
/// only when held) are recorded with their button and hold, and replay to the same result.
#[tokio::test]
async fn right_and_middle_clicks_and_a_long_press_are_recorded_and_replay() {
    let h = Harness::start().await;
    let server = place_fixtures();
    let recorder = Recorder::start_on(&h.browser, &options(server.url("/buttons.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    let card = d.centre_here("document.getElementById('card')").await;
    press_button(&d, card, "right", 2, 40).await;
    d.wait_js("document.querySelector('[data-testid=result]').textContent === 'menu'")
        .await;
    press_button(&d, card, "middle", 4, 40).await;
    d.wait_js("document.querySelector('[data-testid=result]').textContent === 'menu, middle'")
        .await;
    let hold = d.centre_here("document.getElementById('hold')").await;
    press_button(&d, hold, "left", 1, 800).await;
    let expected = "menu, middle, deleted";
    d.wait_js(&format!(
        "document.querySelector('[data-testid=result]').textContent === {expected:?}"
    ))
    .await;
    wait_for_steps(&recorder, "click", 3).await;
    let dir = tempfile::tempdir().unwrap();
    let file = finish(recorder, dir.path()).await;
    let recorded: Vec<_> = clicks(&file)
        .iter()
        .map(|c| (c.button, c.hold_ms.is_some_and(|ms| ms >= 600)))
        .collect();
    use browserflow_steps::MouseButton;
    assert_eq!(
        recorded,
        [
            (MouseButton::Right, false),
            (MouseButton::Middle, false),
            (MouseButton::Left, true)
        ],
        "{}",
        file.to_json_pretty()
    );
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(outputs["result"], expected, "{}", file.to_json_pretty());
    // The same long press held briefly does not delete: the hold is what replays.
    let mut brief = file.clone();
    for step in &mut brief.steps {
        if let Step::Click(c) = step {
            c.hold_ms = None;
        }
    }
    let context = h.browser.new_context().await.unwrap();
    let report = browserflow_replay::Replayer::default()
        .run(&context, &brief.steps, &Default::default())
        .await;
    context.close().await.unwrap();
    match report {
        Ok(report) => assert_ne!(report.outputs["result"], expected),
        Err(error) => assert!(error.to_string().contains("(click"), "{error}"),
    }
    h.close().await;
}

/// A link in a child frame that moves the frame (not the page): the click's navigation is
/// recorded as the frame's and checked on replay; a tool whose frame goes elsewhere fails.
#[tokio::test]
async fn a_child_frame_navigation_is_asserted_on_the_click_that_caused_it() {
    let h = Harness::start().await;
    let server = place_fixtures();
    let recorder = Recorder::start_on(&h.browser, &options(server.url("/frame-nav.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    assert!(
        recorder
            .wait_frame_ready("main", "/frame-a.html", WAIT)
            .await
    );
    d.wait_js("document.getElementById('wizard').contentDocument?.querySelector('a')")
        .await;
    let next = d
        .centre_here("(() => { const f = document.getElementById('wizard'); const r = f.getBoundingClientRect(); const b = f.contentDocument.querySelector('a').getBoundingClientRect(); return { getBoundingClientRect: () => ({ left: r.left + f.clientLeft + b.left, top: r.top + f.clientTop + b.top, width: b.width, height: b.height }) }; })()")
        .await;
    d.move_to(next).await;
    d.click_at(next, 1).await;
    d.wait_js("document.querySelector('[data-testid=result]').textContent === 'step 2'")
        .await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(
                |s| matches!(&s.step, Step::Click(c) if c.navigation.is_some())
            ))
            .await,
        "the frame's navigation was never asserted: {:#?}",
        recorder.steps()
    );
    let dir = tempfile::tempdir().unwrap();
    let file = finish(recorder, dir.path()).await;
    let click = clicks(&file)[0];
    let expected = click.navigation.as_ref().and_then(|n| n.url.clone());
    assert!(
        expected
            .as_deref()
            .is_some_and(|u| u.ends_with("/frame-b.html?*")),
        "{}",
        file.to_json_pretty()
    );
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(outputs["result"], "step 2", "{}", file.to_json_pretty());
    // The frame going elsewhere than recorded fails the click, naming where it went.
    let mut elsewhere = file.clone();
    for step in &mut elsewhere.steps {
        if let Step::Click(c) = step
            && let Some(navigation) = &mut c.navigation
        {
            navigation.url = Some("*/frame-c.html*".into());
        }
    }
    let context = h.browser.new_context().await.unwrap();
    let error = browserflow_replay::Replayer::default()
        .run(&context, &elsewhere.steps, &Default::default())
        .await
        .expect_err("the frame went to frame-b, not frame-c");
    assert!(error.to_string().contains("(click"), "{error}");
    context.close().await.unwrap();
    h.close().await;
}
