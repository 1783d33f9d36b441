//! Editable elements a widget rewrites: the recorded `fill` holds the text the person saw once
//! the page's handlers ran, not what the browser inserted for the last key. Fixture:
//! `tests/fixtures/widgets/masked-section.html` (a date field's year section, as MUI X makes
//! them, hidden until focused; `widgets/dates.rs` types into the real one).

use browserflow_record::{OutputMark, Recorder};
use browserflow_steps::{OutputKind, Step};

use crate::record::driver::*;
use crate::record::gestures::widgets;
use crate::support::Harness;

#[tokio::test]
async fn a_section_the_widget_rewrites_after_each_key_is_recorded_as_the_text_it_shows() {
    let h = Harness::start().await;
    let server = widgets();
    let recorder = Recorder::start_on(&h.browser, &options(server.url("/masked-section.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    d.click("document.getElementById('year')").await;
    d.wait_js("getSelection().toString() === 'YYYY'").await;
    // Each key replaces the selected text with one digit; the widget then shows them all.
    d.type_keys("2026").await;
    d.wait_js("document.querySelector('[data-testid=result]').textContent === '2026'")
        .await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s
                .iter()
                .any(|s| matches!(&s.step, Step::Fill(f) if f.value == "2026")))
            .await,
        "the fill holds the text the section shows: {:#?}",
        recorder.steps()
    );
    let mut draft = recorder.stop().await.unwrap();
    let fills: Vec<&str> = draft
        .steps
        .iter()
        .filter_map(|s| match &s.step {
            Step::Fill(f) => Some(f.value.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(fills, ["2026"], "one fill, as shown: {:#?}", draft.steps);
    // The section was hidden until the press focused it: no hover revealed it.
    assert!(
        !draft.steps.iter().any(|s| s.step.kind().name() == "hover"),
        "a hover was recorded for a section the press revealed: {:#?}",
        draft.steps
    );
    draft
        .mark_output(OutputMark::css(
            "year",
            "[data-testid=result]",
            OutputKind::String,
        ))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = save_and_load(
        &draft.into_tool_file("year", "1.0.0", None).unwrap(),
        dir.path(),
    );
    let outputs = replay(&h, &file, serde_json::json!({})).await;
    assert_eq!(outputs["year"], "2026", "{}", file.to_json_pretty());
    h.close().await;
}
