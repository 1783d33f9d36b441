//! A dnd kit sortable list reordered by dragging: two recordings, an item dragged up and another
//! dragged down, each replayed to the order the person saw.

use browserflow_steps::OutputKind;

use super::*;

/// The centre of the list item `name`.
async fn item(d: &Driver, name: &str) -> (f64, f64) {
    d.centre(&format!(
        "[...document.querySelectorAll('li')].find((li) => li.textContent === {name:?})"
    ))
    .await
}

#[tokio::test]
async fn dnd_kit_list_reordered_by_dragging_replays_as_a_drag_in_two_recordings() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (_, eggs_first) = journey_replays(
        &w,
        "dnd-list",
        &["drag"],
        OutputKind::String,
        Typed::Fixed,
        async |d| {
            let (eggs, milk) = (item(d, "Eggs").await, item(d, "Milk").await);
            drag(d, eggs, (milk.0, milk.1 - 10.0)).await;
            wait_result(d, "Eggs,Milk,Bread,Butter").await;
        },
        dir.path(),
    )
    .await;
    let (_, milk_last) = journey_replays(
        &w,
        "dnd-list",
        &["drag"],
        OutputKind::String,
        Typed::Fixed,
        async |d| {
            let (milk, butter) = (item(d, "Milk").await, item(d, "Butter").await);
            drag(d, milk, (butter.0, butter.1 + 10.0)).await;
            wait_result(d, "Bread,Eggs,Butter,Milk").await;
        },
        dir.path(),
    )
    .await;
    assert_apart(&eggs_first, &milk_last);
    w.close().await;
}
