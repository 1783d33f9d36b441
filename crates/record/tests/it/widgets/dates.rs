//! The MUI X date picker (dayjs adapter): the calendar opened from its button, a day chosen by
//! clicking it, another by arrow keys and Enter in the calendar grid. Two recordings with
//! different choices, each replayed to the date the person saw.

use browserflow_steps::OutputKind;

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
