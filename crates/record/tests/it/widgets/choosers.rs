//! Fields that search and choose, typed into with real keys (`tests/widgets/src/choosers.jsx`,
//! pages without React, so only the widget listens to keys): Tom Select (filters on `input`,
//! chooses on `keydown`) and selectize (filters on `keyup` alone, as Shiny's select inputs do),
//! each filtered by a typed prefix and chosen with Enter, or with an arrow and Enter; and a
//! number field cleared and retyped. Recorded with trusted input, replayed with other inputs.
//! The failing side: the selectize tool replayed with its text inserted (no key events, the
//! old way) fails at the Enter that chose, by that key's post-state check.

use browserflow_steps::{CheckedState, FillStep, OutputKind, Step};
use serde_json::json;

use super::*;

/// The recorded fills.
fn fills(file: &ToolFile) -> Vec<&FillStep> {
    file.steps
        .iter()
        .filter_map(|s| match s {
            Step::Fill(f) => Some(f),
            _ => None,
        })
        .collect()
}

/// Replays `file` with each `(typed, chosen)`: the output is what typing that and choosing
/// gives.
async fn replays_each(w: &Widgets, file: &ToolFile, cases: &[(&str, &str)]) {
    for (typed, chosen) in cases {
        let outputs = w
            .replay(file, json!({ "input": typed }))
            .await
            .unwrap_or_else(|e| panic!("typing {typed:?}: {e}\n{}", file.to_json_pretty()));
        assert_eq!(
            outputs["result"],
            json!(chosen),
            "typing {typed:?}\n{}",
            file.to_json_pretty()
        );
    }
}

/// The key press `key` of `file` checks what the field shows around itself after it.
fn key_checks_what_is_shown(file: &ToolFile, key: &str) {
    let checked = file.steps.iter().any(|s| {
        matches!(s, Step::KeyPress(k) if k.key == key
            && k.expect.iter().any(|c| c.state == CheckedState::Shown))
    });
    assert!(
        checked,
        "{key} carries no check of what it chose:\n{}",
        file.to_json_pretty()
    );
}

/// Opens the field `control`, types `prefix` with real keys, waits for `matches` options.
async fn filter(d: &Driver, control: &str, option: &str, prefix: &str, matches: usize) {
    click_css(d, control).await;
    d.type_keys(prefix).await;
    d.wait_js(&format!(
        "document.querySelectorAll({option:?}).length === {matches}"
    ))
    .await;
}

#[tokio::test]
async fn tom_select_filtered_by_typed_keys_and_chosen_by_enter_or_arrows_replays_other_filters() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    let option = ".ts-dropdown .option";
    let (file, banana) = journey_replays(
        &w,
        "tom-select",
        &["fill", "key_press"],
        OutputKind::String,
        Typed::AnInput,
        async |d| {
            filter(d, ".ts-control", option, "ban", 1).await;
            press(d, "Enter").await;
            wait_result(d, "banana").await;
        },
        dir.path(),
    )
    .await;
    assert_eq!(banana, json!("banana"));
    let typed = fills(&file);
    assert!(
        typed.len() == 1 && typed[0].keys,
        "one fill, typed by keys (Tom Select listens to them):\n{}",
        file.to_json_pretty()
    );
    key_checks_what_is_shown(&file, "Enter");
    replays_each(&w, &file, &[("che", "cherry"), ("man", "mango")]).await;

    // The second of two matches (the shorter name ranks first).
    let (file, blackberry) = journey_replays(
        &w,
        "tom-select",
        &["fill", "key_press", "key_press"],
        OutputKind::String,
        Typed::AnInput,
        async |d| {
            filter(d, ".ts-control", option, "bl", 2).await;
            press(d, "ArrowDown").await;
            press(d, "Enter").await;
            wait_result(d, "blackberry").await;
        },
        dir.path(),
    )
    .await;
    assert_eq!(blackberry, json!("blackberry"));
    key_checks_what_is_shown(&file, "Enter");
    replays_each(&w, &file, &[("gra", "grapefruit"), ("pea", "peach")]).await;
    w.close().await;
}

#[tokio::test]
async fn selectize_filters_only_on_keys_so_its_fill_replays_by_keys_and_inserted_text_fails_at_enter()
 {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    let option = ".selectize-dropdown .option";
    let (file, banana) = journey_replays(
        &w,
        "selectize",
        &["fill", "key_press"],
        OutputKind::String,
        Typed::AnInput,
        async |d| {
            filter(d, ".selectize-input", option, "ban", 1).await;
            press(d, "Enter").await;
            wait_result(d, "banana").await;
        },
        dir.path(),
    )
    .await;
    assert_eq!(banana, json!("banana"));
    assert!(
        fills(&file).iter().all(|f| f.keys),
        "{}",
        file.to_json_pretty()
    );
    key_checks_what_is_shown(&file, "Enter");
    replays_each(&w, &file, &[("che", "cherry"), ("gra", "grape")]).await;

    // The same tool with its text inserted, as fills were replayed before: selectize never
    // filters, Enter chooses nothing, and the replay stops there, naming what it expected.
    let mut inserted = file.clone();
    for step in &mut inserted.steps {
        if let Step::Fill(fill) = step {
            fill.keys = false;
        }
    }
    let error = w
        .replay(&inserted, json!({ "input": "che" }))
        .await
        .expect_err("inserted text never filters selectize: the Enter chooses nothing");
    let enter = inserted
        .steps
        .iter()
        .position(|s| matches!(s, Step::KeyPress(k) if k.key == "Enter"))
        .expect("the Enter step");
    assert!(
        error.contains(&format!("step {}", enter + 1)) && error.contains("shown"),
        "the failure names the Enter step (step {}) and what it should have shown: {error}",
        enter + 1
    );
    w.close().await;
}

#[tokio::test]
async fn a_number_field_cleared_and_retyped_is_one_fill_that_takes_other_values() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (file, four) = journey_replays(
        &w,
        "number-field",
        &["fill"],
        OutputKind::String,
        Typed::AnInput,
        async |d| {
            click_css(d, "input[type=number]").await;
            select_all_and_delete(d).await;
            d.wait_js("document.querySelector('input').value === ''")
                .await;
            d.type_keys("4").await;
            wait_result(d, "4 seats: 48 €").await;
        },
        dir.path(),
    )
    .await;
    assert_eq!(four, json!("4 seats: 48 €"));
    let typed = fills(&file);
    assert_eq!(typed.len(), 1, "{}", file.to_json_pretty());
    assert_eq!(typed[0].value, "{{input}}", "{}", file.to_json_pretty());
    // Only `input` is listened to: the text is inserted, as before.
    assert!(!typed[0].keys, "{}", file.to_json_pretty());
    for (seats, shown) in [("7", "7 seats: 84 €"), ("12", "12 seats: 144 €")] {
        let outputs = w
            .replay(&file, json!({ "input": seats }))
            .await
            .expect("replays");
        assert_eq!(outputs["result"], json!(shown), "{}", file.to_json_pretty());
    }
    w.close().await;
}

/// Control+A, then Backspace, as a keyboard sends them.
async fn select_all_and_delete(d: &Driver) {
    for (key, code, vk, modifiers) in [("a", "KeyA", 65, 2), ("Backspace", "Backspace", 8, 0)] {
        for kind in ["rawKeyDown", "keyUp"] {
            d.session
                .call(
                    "Input.dispatchKeyEvent",
                    json!({ "type": kind, "key": key, "code": code, "windowsVirtualKeyCode": vk,
                            "modifiers": modifiers, "commands": if kind == "rawKeyDown" && modifiers == 2 { json!(["selectAll"]) } else { json!([]) } }),
                )
                .await
                .expect("a key");
        }
    }
}
