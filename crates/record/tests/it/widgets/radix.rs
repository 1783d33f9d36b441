//! Radix UI journeys: a Select opened on pointerdown, a Slider moved by keys, Tabs activated on
//! mousedown, a Dialog holding a form.

use browserflow_steps::OutputKind;
use serde_json::json;

use super::*;

#[tokio::test]
async fn radix_select_opened_on_pointerdown_replays_the_fruit_chosen() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    journey_replays(
        &w,
        "radix-select",
        &["click", "click"],
        OutputKind::String,
        Typed::Fixed,
        async |d| {
            click_css(d, "button[aria-label=Fruit]").await;
            click_role(d, "option", "Cherry").await;
            wait_result(d, "cherry").await;
        },
        dir.path(),
    )
    .await;
    w.close().await;
}

#[tokio::test]
async fn radix_slider_moved_by_keys_replays_the_same_value() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    journey_replays(
        &w,
        "radix-slider",
        &["key_press", "key_press", "key_press", "key_press"],
        OutputKind::Number,
        Typed::Fixed,
        async |d| {
            click_css(d, "[role=slider]").await;
            for _ in 0..4 {
                press(d, "ArrowRight").await;
            }
            wait_result(d, "50").await;
        },
        dir.path(),
    )
    .await;
    w.close().await;
}

#[tokio::test]
async fn radix_tabs_activated_on_mousedown_replay() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    journey_replays(
        &w,
        "radix-tabs",
        &["click"],
        OutputKind::String,
        Typed::Fixed,
        async |d| {
            click_role(d, "tab", "Billing").await;
            wait_result(d, "Your plan renews on the 1st.").await;
        },
        dir.path(),
    )
    .await;
    w.close().await;
}

#[tokio::test]
async fn radix_dialog_form_replays_and_takes_another_name() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (file, _) = journey_replays(
        &w,
        "radix-dialog",
        &["click", "fill", "click"],
        OutputKind::String,
        Typed::AnInput,
        async |d| {
            click_text(d, "button", "Edit profile").await;
            click_css(d, "[role=dialog] input").await;
            d.insert_text("Ada").await;
            click_text(d, "[role=dialog] button", "Save changes").await;
            wait_result(d, "Ada").await;
        },
        dir.path(),
    )
    .await;
    let outputs = w
        .replay(&file, json!({ "input": "Grace" }))
        .await
        .expect("replays");
    assert_eq!(outputs["result"], "Grace", "{}", file.to_json_pretty());
    w.close().await;
}
