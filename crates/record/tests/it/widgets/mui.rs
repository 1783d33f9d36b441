//! MUI journeys: a Select opened on press over a backdrop, an Autocomplete driven by arrows, a
//! Slider moved by keys and by dragging its thumb, Tabs, a Dialog with an email field and a
//! checkbox, checkboxes and a switch. The Autocomplete and the Dialog take their typed text
//! as an input; the others are recorded twice with different choices.

use browserflow_steps::OutputKind;
use serde_json::json;

use super::*;

/// Chooses `plan` and then `size` in the two selects.
async fn choose_plan(d: &Driver, plan: &str, size: &str) {
    click_css(d, "#plan-label + div [role=combobox]").await;
    click_role(d, "option", plan).await;
    // The menu fades out; a person clicks the next select once it is gone.
    d.wait_js("!document.querySelector('[role=listbox]')").await;
    click_css(d, "#size-label + div [role=combobox]").await;
    click_role(d, "option", size).await;
}

#[tokio::test]
async fn mui_select_opened_on_press_replays_the_options_chosen_in_two_recordings() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    let kinds = ["click", "click", "click", "click"];
    let (_, pro) = journey_replays(
        &w,
        "mui-select",
        &kinds,
        OutputKind::String,
        Typed::Fixed,
        async |d| {
            choose_plan(d, "Pro", "10 people").await;
            wait_result(d, "pro for 10").await;
        },
        dir.path(),
    )
    .await;
    let (_, enterprise) = journey_replays(
        &w,
        "mui-select",
        &kinds,
        OutputKind::String,
        Typed::Fixed,
        async |d| {
            choose_plan(d, "Enterprise", "50 people").await;
            wait_result(d, "enterprise for 50").await;
        },
        dir.path(),
    )
    .await;
    assert_apart(&pro, &enterprise);
    w.close().await;
}

#[tokio::test]
async fn mui_autocomplete_driven_by_arrows_replays_and_takes_another_prefix() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (file, georgia) = journey_replays(
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
    assert_apart(&georgia, &outputs["result"]);
    w.close().await;
}

#[tokio::test]
async fn mui_slider_moved_by_keys_replays_the_same_value_in_two_recordings() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    /// Focuses the thumb (clicking it does not move it).
    async fn focus_thumb(d: &Driver) {
        click_css(d, "input[type=range]").await;
        d.wait_js("document.querySelector('[data-testid=years]').textContent === '10'")
            .await;
    }
    let (_, thirteen_years) = journey_replays(
        &w,
        "mui-slider",
        &["key_press", "key_press", "key_press"],
        OutputKind::Number,
        Typed::Fixed,
        async |d| {
            focus_thumb(d).await;
            for _ in 0..3 {
                press(d, "ArrowRight").await;
            }
            d.wait_js("document.querySelector('[data-testid=years]').textContent === '13'")
                .await;
        },
        dir.path(),
    )
    .await;
    let (_, thirty_years) = journey_replays(
        &w,
        "mui-slider",
        &["key_press"],
        OutputKind::Number,
        Typed::Fixed,
        async |d| {
            focus_thumb(d).await;
            press(d, "End").await;
            d.wait_js("document.querySelector('[data-testid=years]').textContent === '30'")
                .await;
        },
        dir.path(),
    )
    .await;
    assert_apart(&thirteen_years, &thirty_years);
    w.close().await;
}

#[tokio::test]
async fn mui_slider_dragged_by_its_thumb_replays_as_a_drag_to_the_same_value_both_ways() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut seen = Vec::new();
    for by in [120.0, -80.0] {
        let (_, monthly) = journey_replays(
            &w,
            "mui-slider",
            &["drag"],
            OutputKind::Number,
            Typed::Fixed,
            async |d| {
                let thumb = d.centre("document.querySelector('.MuiSlider-thumb')").await;
                drag(d, thumb, (thumb.0 + by, thumb.1)).await;
                d.wait_js("document.querySelector('[data-testid=years]').textContent !== '10'")
                    .await;
            },
            dir.path(),
        )
        .await;
        seen.push(monthly);
    }
    assert_apart(&seen[0], &seen[1]);
    w.close().await;
}

#[tokio::test]
async fn mui_tabs_replay_the_tab_chosen_in_two_recordings() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut seen = Vec::new();
    for (tab, panel) in [
        ("Shipping", "Ships in 2 days from Berlin."),
        ("Reviews", "4.6 stars from 212 reviews."),
    ] {
        let (_, shown) = journey_replays(
            &w,
            "mui-tabs",
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
async fn mui_dialog_with_an_email_and_a_checkbox_replays_and_takes_another_email() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (file, ada) = journey_replays(
        &w,
        "mui-dialog",
        &["click", "fill", "click", "click"],
        OutputKind::String,
        Typed::AnInput,
        async |d| {
            click_text(d, "button", "Subscribe").await;
            click_css(d, "[role=dialog] input[type=email]").await;
            d.insert_text("ada@example.com").await;
            click_css(d, "[role=dialog] input[type=checkbox]").await;
            d.wait_js("[...document.querySelectorAll('[role=dialog] button')].some((b) => b.textContent === 'Confirm' && !b.disabled)")
                .await;
            click_text(d, "[role=dialog] button", "Confirm").await;
            wait_result(d, "subscribed ada@example.com").await;
        },
        dir.path(),
    )
    .await;
    let outputs = w
        .replay(&file, json!({ "input": "grace@example.org" }))
        .await
        .expect("replays");
    assert_eq!(
        outputs["result"],
        "subscribed grace@example.org",
        "{}",
        file.to_json_pretty()
    );
    assert_apart(&ada, &outputs["result"]);
    w.close().await;
}

#[tokio::test]
async fn mui_checkboxes_and_a_switch_replay_in_two_recordings() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut seen = Vec::new();
    for (labels, result) in [
        (&["Express delivery", "Dark mode"][..], "express,dark"),
        (&["Gift wrap"][..], "gift"),
    ] {
        let kinds = vec!["click"; labels.len()];
        let (_, shown) = journey_replays(
            &w,
            "mui-checkbox",
            &kinds,
            OutputKind::String,
            Typed::Fixed,
            async |d| {
                for label in labels {
                    click_text(d, "label", label).await;
                }
                wait_result(d, result).await;
            },
            dir.path(),
        )
        .await;
        seen.push(shown);
    }
    assert_apart(&seen[0], &seen[1]);
    w.close().await;
}
