//! The determinism guarantee: a recorded tool whose interaction is edited to do something else
//! fails at that step, naming the expected and the actual state — never an output made by a
//! different interaction with success. Journeys on real MUI widgets (`tests/widgets`), recorded
//! with trusted input; the post-state checks come from the recording itself.

use browserflow_steps::{CheckedState, SelectorCandidate, Step, ToolFile};
use serde_json::json;

use crate::widgets::{
    Typed, Widgets, click_css, click_role, click_text, drag, journey_replays, wait_result,
};
use browserflow_steps::OutputKind;

/// The index of the first step `pick` accepts.
fn step_where(file: &ToolFile, pick: impl Fn(&Step) -> bool) -> usize {
    file.steps
        .iter()
        .position(pick)
        .unwrap_or_else(|| panic!("no such step in\n{}", file.to_json_pretty()))
}

/// Replays the edited tool: it must fail at `index`, saying what was expected and found.
async fn fails_at_with_states(w: &Widgets, file: &ToolFile, index: usize, expected: &str) {
    let error = match w.replay(file, json!({})).await {
        Ok(outputs) => panic!(
            "the edited tool replayed with success, returning {outputs}:\n{}",
            file.to_json_pretty()
        ),
        Err(error) => error,
    };
    assert!(
        error.starts_with(&format!("step {} ", index + 1))
            || error.contains(&format!("step {index} ")),
        "the failure does not name step {index}: {error}"
    );
    assert!(
        error.contains("did not do what it did when recorded")
            && error.contains(expected)
            && error.contains("actual:"),
        "the failure does not give the expected ({expected}) and actual state: {error}"
    );
}

#[tokio::test]
async fn edited_interactions_fail_at_their_step_with_the_expected_and_actual_state() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();

    // A slider dragged from its thumb; edited: dragged half as far.
    let (mut slider, _) = journey_replays(
        &w,
        "mui-slider",
        &["drag"],
        OutputKind::Number,
        Typed::Fixed,
        async |d| {
            let thumb = d.centre("document.querySelector('.MuiSlider-thumb')").await;
            drag(d, thumb, (thumb.0 + 120.0, thumb.1)).await;
            d.wait_js("document.querySelector('[data-testid=years]').textContent !== '10'")
                .await;
        },
        dir.path(),
    )
    .await;
    let at = step_where(&slider, |s| matches!(s, Step::Drag(_)));
    let Step::Drag(moved) = &mut slider.steps[at] else {
        unreachable!()
    };
    let recorded = moved
        .expect
        .iter()
        .find(|c| matches!(c.state, CheckedState::AriaValuenow | CheckedState::Value))
        .and_then(|c| c.equals.clone())
        .unwrap_or_else(|| panic!("the drag recorded no value check: {moved:?}"));
    moved.by.x /= 2.0;
    fails_at_with_states(&w, &slider, at, &format!("is \"{recorded}\"")).await;

    // A select opened on the press; edited: another option chosen.
    let (mut select, _) = journey_replays(
        &w,
        "mui-select",
        &["click", "click"],
        OutputKind::String,
        Typed::Fixed,
        async |d| {
            click_css(d, "#plan-label + div [role=combobox]").await;
            click_role(d, "option", "Pro").await;
            wait_result(d, "pro for ?").await;
        },
        dir.path(),
    )
    .await;
    let at = step_where(
        &select,
        |s| matches!(s, Step::Click(c) if c.selector.candidates.first() == Some(&SelectorCandidate::role("option", "Pro"))),
    );
    let Step::Click(option) = &mut select.steps[at] else {
        unreachable!()
    };
    assert!(
        !option.expect.is_empty(),
        "the option's click recorded no check: {option:?}"
    );
    option.selector.candidates = vec![SelectorCandidate::role("option", "Enterprise")];
    fails_at_with_states(&w, &select, at, "Pro").await;

    // A checkbox ticked by its label; edited: clicked twice (ticked and unticked).
    let (mut checkbox, _) = journey_replays(
        &w,
        "mui-checkbox",
        &["click"],
        OutputKind::String,
        Typed::Fixed,
        async |d| {
            click_text(d, "label", "Express delivery").await;
            wait_result(d, "express").await;
        },
        dir.path(),
    )
    .await;
    let at = step_where(&checkbox, |s| matches!(s, Step::Click(_)));
    let Step::Click(tick) = &mut checkbox.steps[at] else {
        unreachable!()
    };
    assert!(
        tick.expect
            .iter()
            .any(|c| c.state == CheckedState::Checked && c.equals.as_deref() == Some("true")),
        "the tick recorded no `checked` check: {tick:?}"
    );
    tick.click_count = 2;
    fails_at_with_states(&w, &checkbox, at, "checked is \"true\"").await;
    w.close().await;
}

/// A click that changed nothing (a heading) is kept and flagged as having no effect, with no
/// checks; the clicks and fills that did something carry what they did.
#[tokio::test]
async fn a_click_that_changed_nothing_is_flagged_and_one_that_did_is_checked() {
    use crate::record::driver::{Driver, WAIT, options};
    use browserflow_record::Recorder;

    let h = crate::support::Harness::start().await;
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/index.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    d.click("document.querySelector('h1')").await;
    d.click("document.getElementById('search-input')").await;
    d.insert_text("desk").await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(|s| s.step.kind().name() == "fill"))
            .await,
        "{:#?}",
        recorder.steps()
    );
    let draft = recorder.stop().await.unwrap();
    let kinds: Vec<_> = draft.steps.iter().map(|s| s.step.kind().name()).collect();
    assert_eq!(kinds, ["navigate", "click", "fill"], "{:#?}", draft.steps);
    let heading = &draft.steps[1];
    assert!(
        heading.no_effect && heading.step.expect().is_empty(),
        "the heading's click is not flagged: {heading:#?}"
    );
    let fill = &draft.steps[2];
    assert!(!fill.no_effect);
    assert_eq!(
        fill.step.expect(),
        [browserflow_steps::StateCheck::equals(
            CheckedState::Value,
            "desk"
        )]
    );
    h.close().await;
}
