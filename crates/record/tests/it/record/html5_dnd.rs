//! HTML5 drag and drop (`draggable`, `dragstart` → `dragover` → `drop`), recorded from trusted
//! mouse input in headless Chromium (which performs the drag natively: the recorder intercepts
//! nothing) and replayed. Fixtures: `tests/fixtures/widgets/html5-*.html`.

use browserflow_record::{OutputMark, Recorder};
use browserflow_steps::{OutputKind, Step};
use serde_json::json;

use crate::record::driver::*;
use crate::record::gestures::{drag, widgets};
use crate::support::Harness;

/// Reads an `<output>` of the fixture by its test id.
async fn output(d: &Driver, test_id: &str) -> serde_json::Value {
    d.page
        .evaluate_in_main_frame(&format!(
            "document.querySelector('[data-testid={test_id}]').textContent"
        ))
        .await
        .unwrap()
}

/// The name of the element a selector's first candidate finds by role and name.
fn named(selector: &browserflow_steps::Selector) -> &str {
    let first = &selector.candidates[0];
    assert_eq!(
        first.kind,
        browserflow_steps::SelectorKind::Role,
        "{selector:?}"
    );
    first.name.as_deref().unwrap_or_default()
}

/// A card dragged from one list onto a card of the other is one `drag` step (the card
/// pressed, the card dropped on, both with offsets) — not a click, not a move by pixels — and
/// its replay moves the same card to the same place, through a real HTML5 drag.
#[tokio::test]
async fn a_card_dragged_to_another_list_is_one_drag_step_that_replays_to_the_same_lists() {
    let h = Harness::start().await;
    let server = widgets();
    let recorder = Recorder::start_on(&h.browser, &options(server.url("/html5-dnd.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    let from = d
        .centre_here("document.querySelector('[data-id=tests]')")
        .await;
    let onto = d
        .centre_here("document.querySelector('[data-id=mail]')")
        .await;
    // Onto the upper half of "Answer mail": the card goes above it.
    drag(&d, from, (onto.0 - from.0, onto.1 - from.1 - 6.0)).await;
    d.wait_js("document.querySelector('[data-testid=events]').textContent.includes('dragend')")
        .await;
    let recorded = output(&d, "lists").await;
    assert_eq!(recorded, json!("todo:milk,plants done:tests,mail"));
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(|s| s.step.kind().name() == "drag"))
            .await,
        "{:#?}",
        recorder.steps()
    );
    let mut draft = recorder.stop().await.unwrap();
    assert_eq!(kinds(&draft), ["navigate", "drag"], "{:#?}", draft.steps);
    match &draft.steps[1].step {
        Step::Drag(step) => {
            assert_eq!(named(&step.selector), "Write tests", "{step:#?}");
            let target = step.target.as_ref().expect("the drop target is recorded");
            assert_eq!(named(target), "Answer mail", "{step:#?}");
            let offset = step.target_offset.expect("the drop point on the target");
            assert!(offset.y < 20.0, "dropped on the upper half: {offset:?}");
        }
        other => panic!("expected a drag, got {other:?}"),
    }
    assert_eq!(
        draft.steps[1].description,
        "Drag listitem \"Write tests\" onto listitem \"Answer mail\""
    );
    draft
        .mark_output(OutputMark::css(
            "lists",
            "[data-testid=lists]",
            OutputKind::String,
        ))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = save_and_load(
        &draft.into_tool_file("move-card", "1.0.0", None).unwrap(),
        dir.path(),
    );
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(outputs["lists"], recorded);
    h.close().await;
}

/// The drag a hand makes from the centre of `from` to `to` (expressions for elements of the
/// page), then waits for the page to show it with `done` (a JS condition).
async fn drag_between(d: &Driver, from: &str, to: (f64, f64), done: &str) {
    let start = d.centre_here(from).await;
    drag(d, start, (to.0 - start.0, to.1 - start.1)).await;
    d.wait_js(done).await;
}

/// A kanban board: a card dropped into an empty column, one onto the lower half of a card
/// (after it) and one onto its upper half (before it). Three `drag` steps, each with its drop
/// target and where on it; the replay builds the same board, read as typed outputs.
#[tokio::test]
async fn kanban_cards_dropped_into_columns_and_around_cards_replay_to_the_same_board() {
    let h = Harness::start().await;
    let server = widgets();
    let recorder = Recorder::start_on(&h.browser, &options(server.url("/html5-kanban.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    let doing = d
        .centre_here("document.querySelector('#doing .cards')")
        .await;
    drag_between(
        &d,
        "document.querySelector('[data-card=login]')",
        doing,
        "document.querySelectorAll('#doing article').length === 1",
    )
    .await;
    let login = d
        .centre_here("document.querySelector('[data-card=login]')")
        .await;
    drag_between(
        &d,
        "document.querySelector('[data-card=docs]')",
        (login.0, login.1 + 12.0),
        "document.querySelectorAll('#doing article').length === 2",
    )
    .await;
    let login = d
        .centre_here("document.querySelector('[data-card=login]')")
        .await;
    drag_between(
        &d,
        "document.querySelector('[data-card=setup]')",
        (login.0, login.1 - 12.0),
        "document.querySelectorAll('#doing article').length === 3",
    )
    .await;
    let recorded = output(&d, "board").await;
    assert_eq!(
        recorded,
        json!("backlog:search doing:setup,login,docs done:")
    );
    wait_for_steps(&recorder, "drag", 3).await;
    let mut draft = recorder.stop().await.unwrap();
    assert_eq!(
        kinds(&draft),
        ["navigate", "drag", "drag", "drag"],
        "{:#?}",
        draft.steps
    );
    let drags: Vec<_> = draft.steps[1..]
        .iter()
        .map(|s| match &s.step {
            Step::Drag(step) => step.clone(),
            other => panic!("expected a drag, got {other:?}"),
        })
        .collect();
    for step in &drags {
        assert!(step.target.is_some(), "a drop target: {step:#?}");
        assert!(step.target_offset.is_some(), "where on it: {step:#?}");
    }
    let onto_login = |step: &browserflow_steps::DragStep| {
        step.target
            .as_ref()
            .unwrap()
            .candidates
            .iter()
            .any(|c| c.value.contains("Fix login"))
    };
    assert!(onto_login(&drags[1]) && onto_login(&drags[2]), "{drags:#?}");
    let below_middle = |step: &browserflow_steps::DragStep| step.target_offset.unwrap().y > 20.0;
    assert!(
        below_middle(&drags[1]) && !below_middle(&drags[2]),
        "{drags:#?}"
    );
    draft
        .mark_output(OutputMark::css(
            "board",
            "[data-testid=board]",
            OutputKind::String,
        ))
        .unwrap();
    draft
        .mark_output(OutputMark::css(
            "in_progress",
            "[data-testid=doing-count]",
            OutputKind::Integer,
        ))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = save_and_load(
        &draft.into_tool_file("kanban", "1.0.0", None).unwrap(),
        dir.path(),
    );
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(
        (&outputs["board"], &outputs["in_progress"]),
        (&recorded, &json!(3))
    );
    h.close().await;
}

/// SortableJS, a widely used npm library that sorts with native HTML5 drag and drop and moves
/// the dragged item into place while the drag goes on (so the drop lands on the dragged item
/// itself): an item moved to the other list is one `drag` step that replays to the same lists.
#[tokio::test]
async fn a_sortablejs_item_moved_to_the_other_list_replays_to_the_same_lists() {
    let h = Harness::start().await;
    let server = widgets();
    let recorder = Recorder::start_on(&h.browser, &options(server.url("/html5-sortable.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete' && !!window.Sortable")
        .await;
    let cheese = d
        .centre_here("document.querySelector('[data-id=cheese]')")
        .await;
    let start = d
        .centre_here("document.querySelector('[data-id=eggs]')")
        .await;
    drag_between(
        &d,
        "document.querySelector('[data-id=eggs]')",
        (cheese.0, cheese.1 - 8.0),
        "document.querySelector('[data-testid=lists]').textContent.includes('eggs,cheese')",
    )
    .await;
    let recorded = output(&d, "lists").await;
    assert_eq!(
        recorded,
        json!("pantry:bread,rice basket:apples,eggs,cheese")
    );
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(|s| s.step.kind().name() == "drag"))
            .await,
        "{:#?}",
        recorder.steps()
    );
    let mut draft = recorder.stop().await.unwrap();
    assert_eq!(kinds(&draft), ["navigate", "drag"], "{:#?}", draft.steps);
    // Sortable moved the dragged item under the pointer: the drop landed on it, so the
    // step is the move itself, no target.
    match &draft.steps[1].step {
        Step::Drag(step) => {
            assert_eq!(named(&step.selector), "Eggs", "{step:#?}");
            assert!(step.target.is_none(), "{step:#?}");
            let expected = (cheese.0 - start.0, cheese.1 - 8.0 - start.1);
            assert!(
                (step.by.x - expected.0).abs() < 1.0 && (step.by.y - expected.1).abs() < 1.0,
                "moved by {:?}, expected {expected:?}",
                step.by
            );
        }
        other => panic!("expected a drag, got {other:?}"),
    }
    draft
        .mark_output(OutputMark::css(
            "lists",
            "[data-testid=lists]",
            OutputKind::String,
        ))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = save_and_load(
        &draft.into_tool_file("sortable", "1.0.0", None).unwrap(),
        dir.path(),
    );
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(outputs["lists"], recorded);
    h.close().await;
}
