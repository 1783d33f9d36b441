//! A click keeps its place: a press whose place matters (MUI's Slider sets its value from where
//! the pointer presses, also on the value label riding above the thumb) is recorded on the
//! element that owns the behaviour — the thumb, which took the focus — with the press's offset
//! in it, and replays at the same relative point.

use browserflow_steps::{ClickStep, OutputKind, Step, ToolFile};
use serde_json::json;

use super::{Typed, Widgets, assert_apart, journey_replays};

fn the_click(file: &ToolFile) -> &ClickStep {
    file.steps
        .iter()
        .find_map(|s| match s {
            Step::Click(c) => Some(c),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no click recorded:\n{}", file.to_json_pretty()))
}

#[tokio::test]
async fn mui_slider_pressed_on_its_value_label_replays_to_the_same_value_both_ways() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut seen = Vec::new();
    for dx in [12.0, -10.0] {
        let (file, value) = journey_replays(
            &w,
            "mui-slider-label",
            &["click"],
            OutputKind::Number,
            Typed::Fixed,
            async |d| {
                let label = d
                    .centre_here("document.querySelector('.MuiSlider-valueLabel')")
                    .await;
                let at = (label.0 + dx, label.1);
                d.move_to(at).await;
                d.click_at(at, 1).await;
                d.wait_js("document.querySelector('[data-testid=result]').textContent !== '30'")
                    .await;
            },
            dir.path(),
        )
        .await;
        let click = the_click(&file);
        let offset = click.offset.unwrap_or_else(|| {
            panic!(
                "the press's place was not recorded:\n{}",
                file.to_json_pretty()
            )
        });
        // On the thumb (its label rides above it, outside its box), not on the track.
        assert!(
            offset.y < 0.0 && offset.recorded_box.is_some_and(|b| b.width < 60.0),
            "the click is not on the thumb above its box:\n{}",
            file.to_json_pretty()
        );
        // The same tool pressed at the thumb's centre (what a click without its place does)
        // leaves the value where it was: never the person's value (the recorded check of the
        // focused slider's value fails the step, when the focus moved before it was read).
        let mut centred = file.clone();
        for step in &mut centred.steps {
            if let Step::Click(c) = step {
                c.offset = None;
            }
        }
        match w.replay(&centred, json!({})).await {
            Err(error) => assert!(error.contains("(click"), "{error}"),
            Ok(outputs) => assert_ne!(outputs["result"], value, "{}", centred.to_json_pretty()),
        }
        seen.push(value);
    }
    assert_apart(&seen[0], &seen[1]);
    w.close().await;
}
