//! A dnd kit sortable list reordered by dragging.

use browserflow_steps::OutputKind;

use super::*;

#[tokio::test]
async fn dnd_kit_list_reordered_by_dragging_replays_as_a_drag() {
    let w = Widgets::start().await;
    let dir = tempfile::tempdir().unwrap();
    journey_replays(
        &w,
        "dnd-list",
        &["drag"],
        OutputKind::String,
        Typed::Fixed,
        async |d| {
            let eggs = d
                .centre(
                    "[...document.querySelectorAll('li')].find((li) => li.textContent === 'Eggs')",
                )
                .await;
            let milk = d
                .centre(
                    "[...document.querySelectorAll('li')].find((li) => li.textContent === 'Milk')",
                )
                .await;
            drag(d, eggs, (milk.0, milk.1 - 10.0)).await;
            wait_result(d, "Eggs,Milk,Bread,Butter").await;
        },
        dir.path(),
    )
    .await;
    w.close().await;
}
