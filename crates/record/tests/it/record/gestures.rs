//! The gesture model: a press, its release and its click are one gesture, and the click step
//! targets the element pressed — not the click event's target, which is the common ancestor
//! when the press opened something under the pointer. Fixtures: `tests/fixtures/widgets`.

use browserflow_record::{OutputMark, Recorder};
use browserflow_shop::{FixtureServer, read_dir_files};
use browserflow_steps::{OutputKind, SelectorKind};
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
