//! Every key that changes state is recorded: keys that drive widgets (an autocomplete's
//! ArrowDown, a slider's ArrowRight) are steps of their own, after the one `fill` of the
//! typed text, in order, and replay to the same result. Fixture: `tests/fixtures/widgets`.

use browserflow_record::{OutputMark, Recorder};
use browserflow_steps::{OutputKind, Step};
use serde_json::json;

use crate::record::driver::*;
use crate::record::gestures::widgets;
use crate::support::Harness;

/// A key as a keyboard sends it (no text: these keys type nothing).
async fn press(d: &Driver, key: &str, code: u32) {
    for kind in ["rawKeyDown", "keyUp"] {
        d.session
            .call(
                "Input.dispatchKeyEvent",
                json!({ "type": kind, "key": key, "code": key, "windowsVirtualKeyCode": code }),
            )
            .await
            .expect("key event");
    }
}

#[tokio::test]
async fn an_autocomplete_driven_by_arrows_and_sliders_moved_by_keys_replay_to_the_same_values() {
    let h = Harness::start().await;
    let server = widgets();
    let recorder = Recorder::start_on(&h.browser, &options(server.url("/keys.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    d.click("document.querySelector('[data-testid=city]')")
        .await;
    d.type_keys("ba").await;
    d.wait_js("document.querySelectorAll('#suggestions [role=option]').length === 3")
        .await;
    press(&d, "ArrowDown", 40).await;
    press(&d, "ArrowDown", 40).await;
    d.press_enter().await;
    d.wait_js("document.querySelector('[data-testid=city-chosen]').textContent === 'Basel'")
        .await;
    d.click("document.querySelector('[data-testid=months]')")
        .await;
    for _ in 0..3 {
        press(&d, "ArrowRight", 39).await;
    }
    d.wait_js("document.querySelector('[data-testid=months-value]').textContent === '13'")
        .await;
    // A native range input: its centre is its value (5); two ArrowRight make 7, and the input
    // events the keys cause are not a fill.
    d.click("document.querySelector('[data-testid=volume]')")
        .await;
    for _ in 0..2 {
        press(&d, "ArrowRight", 39).await;
    }
    d.wait_js("document.querySelector('[data-testid=volume-value]').textContent === '7'")
        .await;
    let expected = [
        "navigate",
        "fill",
        "key_press",
        "key_press",
        "key_press",
        "click",
        "key_press",
        "key_press",
        "key_press",
        "click",
        "key_press",
        "key_press",
    ];
    assert!(
        recorder
            .wait_until(WAIT, |s| s.len() == expected.len())
            .await,
        "{:#?}",
        recorder.steps()
    );
    let mut draft = recorder.stop().await.unwrap();
    assert_eq!(kinds(&draft), expected, "{:#?}", draft.steps);
    let keys: Vec<&str> = draft
        .steps
        .iter()
        .filter_map(|s| match &s.step {
            Step::KeyPress(k) => Some(k.key.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        keys,
        [
            "ArrowDown",
            "ArrowDown",
            "Enter",
            "ArrowRight",
            "ArrowRight",
            "ArrowRight",
            "ArrowRight",
            "ArrowRight"
        ]
    );
    match &draft.steps[1].step {
        Step::Fill(fill) => assert_eq!(fill.value, "ba"),
        other => panic!("expected the typed prefix as one fill, got {other:?}"),
    }
    for (field, test_id) in [
        ("city", "city-chosen"),
        ("months", "months-value"),
        ("volume", "volume-value"),
    ] {
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
        &draft.into_tool_file("keys", "1.0.0", None).unwrap(),
        dir.path(),
    );
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(
        (&outputs["city"], &outputs["months"], &outputs["volume"]),
        (&json!("Basel"), &json!("13"), &json!("7"))
    );
    h.close().await;
}
