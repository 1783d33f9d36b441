//! MUI journeys: a Select opened on press over a backdrop, an Autocomplete driven by arrows, a
//! Slider moved by keys and by dragging its thumb, Tabs, a Dialog, checkboxes and a switch.

use browserflow_steps::OutputKind;
use serde_json::json;

use super::*;

#[tokio::test]
async fn mui_select_opened_on_press_replays_the_options_chosen() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    journey_replays(
        &w,
        "mui-select",
        &["click", "click", "click", "click"],
        OutputKind::String,
        Typed::Fixed,
        async |d| {
            click_css(d, "#plan-label + div [role=combobox]").await;
            click_role(d, "option", "Pro").await;
            // The menu fades out; a person clicks the next select once it is gone.
            d.wait_js("!document.querySelector('[role=listbox]')").await;
            click_css(d, "#size-label + div [role=combobox]").await;
            click_role(d, "option", "10 people").await;
            wait_result(d, "pro for 10").await;
        },
        dir.path(),
    )
    .await;
    w.close().await;
}

#[tokio::test]
async fn mui_autocomplete_driven_by_arrows_replays_and_takes_another_prefix() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (file, _) = journey_replays(
        &w,
        "mui-autocomplete",
        &["fill", "key_press", "key_press", "key_press"],
        OutputKind::String,
        Typed::AnInput,
        async |d| {
            click_css(d, "input[role=combobox]").await;
            d.type_keys("Ge").await;
            // Germany and Georgia.
            d.wait_js("document.querySelectorAll('[role=option]').length === 2")
                .await;
            press(d, "ArrowDown").await;
            press(d, "ArrowDown").await;
            press(d, "Enter").await;
            wait_result(d, "Georgia").await;
        },
        dir.path(),
    )
    .await;
    // The second match of another prefix.
    let outputs = w
        .replay(&file, json!({ "input": "Ja" }))
        .await
        .expect("replays");
    assert_eq!(outputs["result"], "Jamaica", "{}", file.to_json_pretty());
    w.close().await;
}

#[tokio::test]
async fn mui_slider_moved_by_arrow_keys_replays_the_same_value() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    journey_replays(
        &w,
        "mui-slider",
        &["key_press", "key_press", "key_press"],
        OutputKind::Number,
        Typed::Fixed,
        async |d| {
            click_css(d, "input[type=range]").await;
            // Clicking the thumb does not move it; three steps right do.
            d.wait_js("document.querySelector('[data-testid=years]').textContent === '10'")
                .await;
            for _ in 0..3 {
                press(d, "ArrowRight").await;
            }
            d.wait_js("document.querySelector('[data-testid=years]').textContent === '13'")
                .await;
        },
        dir.path(),
    )
    .await;
    w.close().await;
}

#[tokio::test]
async fn mui_slider_dragged_by_its_thumb_replays_as_a_drag_to_the_same_value() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    journey_replays(
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
    w.close().await;
}

#[tokio::test]
async fn mui_tabs_replay_the_tab_chosen() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    journey_replays(
        &w,
        "mui-tabs",
        &["click"],
        OutputKind::String,
        Typed::Fixed,
        async |d| {
            click_role(d, "tab", "Shipping").await;
            wait_result(d, "Ships in 2 days from Berlin.").await;
        },
        dir.path(),
    )
    .await;
    w.close().await;
}

#[tokio::test]
async fn mui_dialog_with_a_checkbox_replays() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    journey_replays(
        &w,
        "mui-dialog",
        &["click", "click", "click"],
        OutputKind::String,
        Typed::Fixed,
        async |d| {
            click_text(d, "button", "Subscribe").await;
            click_css(d, "[role=dialog] input[type=checkbox]").await;
            d.wait_js("[...document.querySelectorAll('[role=dialog] button')].some((b) => b.textContent === 'Confirm' && !b.disabled)")
                .await;
            click_text(d, "[role=dialog] button", "Confirm").await;
            wait_result(d, "subscribed").await;
        },
        dir.path(),
    )
    .await;
    w.close().await;
}

#[tokio::test]
async fn mui_checkboxes_and_a_switch_replay() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    journey_replays(
        &w,
        "mui-checkbox",
        &["click", "click"],
        OutputKind::String,
        Typed::Fixed,
        async |d| {
            click_text(d, "label", "Express delivery").await;
            click_text(d, "label", "Dark mode").await;
            wait_result(d, "express,dark").await;
        },
        dir.path(),
    )
    .await;
    w.close().await;
}
