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
    let chip = d
        .centre_here("document.querySelector('gift-chip')")
        .await;
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
    let yearly = d
        .centre_here("document.querySelectorAll('.chip')[1]")
        .await;
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
