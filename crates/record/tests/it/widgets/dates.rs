//! The MUI X date picker (dayjs adapter): the calendar opened from its button, a day chosen by
//! clicking it, another by arrow keys and Enter in the calendar grid (two recordings with
//! different choices, each replayed to the date the person saw); and a date typed into its
//! field, whose sections become the tool's inputs.

use browserflow_steps::OutputKind;
use serde_json::json;

use super::*;

/// Opens the calendar from the field's button; it opens on March 2026 with the 9th focused.
async fn open_calendar(d: &Driver) {
    click_css(d, "button[aria-label^='Choose date']").await;
    d.wait_js("document.activeElement && document.activeElement.getAttribute('role') === 'gridcell' && document.activeElement.textContent === '9'")
        .await;
}

#[tokio::test]
async fn mui_x_date_picker_replays_a_day_chosen_by_click_and_another_chosen_by_keys() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (_, by_click) = journey_replays(
        &w,
        "mui-datepicker",
        &["click", "click"],
        OutputKind::String,
        Typed::Fixed,
        async |d| {
            open_calendar(d).await;
            click_role(d, "gridcell", "14").await;
            wait_result(d, "2026-03-14").await;
        },
        dir.path(),
    )
    .await;
    assert_eq!(by_click, "2026-03-14");
    let (_, by_keys) = journey_replays(
        &w,
        "mui-datepicker",
        &["click", "key_press", "key_press", "key_press", "key_press"],
        OutputKind::String,
        Typed::Fixed,
        async |d| {
            open_calendar(d).await;
            // From the 9th: two days on, a week down, chosen.
            press(d, "ArrowRight").await;
            press(d, "ArrowRight").await;
            press(d, "ArrowDown").await;
            press(d, "Enter").await;
            wait_result(d, "2026-03-18").await;
        },
        dir.path(),
    )
    .await;
    assert_eq!(by_keys, "2026-03-18");
    w.close().await;
}

/// A date typed into the field: the year section focused, eight digits typed (each section
/// moves on to the next when full). Each section is its own `fill`, and so its own input: the
/// tool takes another date.
#[tokio::test]
async fn mui_x_date_field_typed_into_replays_and_takes_another_date() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (file, typed) = journey_replays(
        &w,
        "mui-datepicker",
        &["fill", "fill", "fill"],
        OutputKind::String,
        Typed::Inputs(&["year", "month", "day"]),
        async |d| {
            click_css(d, "[role=spinbutton][aria-label=Year]").await;
            d.type_keys("20260402").await;
            wait_result(d, "2026-04-02").await;
        },
        dir.path(),
    )
    .await;
    assert_eq!(typed, "2026-04-02");
    // The sections are hidden until the press focuses them: no hover revealed them.
    assert!(
        !file.steps.iter().any(|s| s.kind().name() == "hover"),
        "{}",
        file.to_json_pretty()
    );
    let outputs = w
        .replay(&file, json!({ "year": "2027", "month": "11", "day": "23" }))
        .await
        .expect("replays");
    assert_eq!(outputs["result"], "2027-11-23", "{}", file.to_json_pretty());
    w.close().await;
}
