//! Radix UI journeys: a Select opened on pointerdown, a Slider moved by keys, Tabs activated on
//! mousedown, a Dialog holding a form. The Dialog takes its typed name as an input; the others
//! are recorded twice with different choices.

use browserflow_steps::OutputKind;
use serde_json::json;

use super::*;

#[tokio::test]
async fn radix_select_opened_on_pointerdown_replays_the_fruit_chosen_in_two_recordings() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut seen = Vec::new();
    for (fruit, value) in [("Cherry", "cherry"), ("Mango", "mango")] {
        let (_, chosen) = journey_replays(
            &w,
            "radix-select",
            &["click", "click"],
            OutputKind::String,
            Typed::Fixed,
            async |d| {
                click_css(d, "button[aria-label=Fruit]").await;
                click_role(d, "option", fruit).await;
                wait_result(d, value).await;
            },
            dir.path(),
        )
        .await;
        seen.push(chosen);
    }
    assert_apart(&seen[0], &seen[1]);
    w.close().await;
}

#[tokio::test]
async fn radix_slider_moved_by_keys_replays_the_same_value_in_two_recordings() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut seen = Vec::new();
    // From 30 in steps of 5: four to the right, or two to the left.
    for (key, presses, result) in [("ArrowRight", 4, "50"), ("ArrowLeft", 2, "20")] {
        let kinds = vec!["key_press"; presses];
        let (_, volume) = journey_replays(
            &w,
            "radix-slider",
            &kinds,
            OutputKind::Number,
            Typed::Fixed,
            async |d| {
                click_css(d, "[role=slider]").await;
                for _ in 0..presses {
                    press(d, key).await;
                }
                wait_result(d, result).await;
            },
            dir.path(),
        )
        .await;
        seen.push(volume);
    }
    assert_apart(&seen[0], &seen[1]);
    w.close().await;
}

#[tokio::test]
async fn radix_tabs_activated_on_mousedown_replay_in_two_recordings() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut seen = Vec::new();
    for (tab, panel) in [
        ("Billing", "Your plan renews on the 1st."),
        ("Password", "Change your password here."),
    ] {
        let (_, shown) = journey_replays(
            &w,
            "radix-tabs",
            &["click"],
            OutputKind::String,
            Typed::Fixed,
            async |d| {
                click_role(d, "tab", tab).await;
                wait_result(d, panel).await;
            },
            dir.path(),
        )
        .await;
        seen.push(shown);
    }
    assert_apart(&seen[0], &seen[1]);
    w.close().await;
}

#[tokio::test]
async fn radix_dialog_form_replays_and_takes_another_name() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (file, ada) = journey_replays(
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
    assert_apart(&ada, &outputs["result"]);
    w.close().await;
}
