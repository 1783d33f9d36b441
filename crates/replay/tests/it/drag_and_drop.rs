//! Drags on real Chromium: an HTML5 drag and drop (`draggable` cards between lists, served
//! from `tests/fixtures/widgets`) completed through the drags the browser hands over, and a
//! pointer drag (a slider) that stays one. Tool steps written by hand.

use std::time::Duration;

use browserflow_cdp::page::DragOutcome;
use browserflow_replay::{FailureKind, ReplayError, Unactionable};
use browserflow_shop::{FixtureServer, read_dir_files};
use serde_json::{Value, json};

use crate::support::Harness;

fn widgets() -> FixtureServer {
    let dir =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/widgets");
    FixtureServer::serve_files(read_dir_files(&dir).expect("widget fixtures read"))
        .expect("fixture server starts")
}

fn text(value: &str) -> Value {
    json!({ "candidates": [{ "kind": "text", "value": value }] })
}

fn css(value: &str) -> Value {
    json!({ "candidates": [{ "kind": "css", "value": value }] })
}

/// Two cards moved by hand-written `drag` steps: one onto a list (its centre, below its last
/// card: appended), one onto the upper edge of a card of the other list (inserted above it).
/// The lists accept a card only through the drag's data, so each move is a real HTML5 drag
/// whose data reached the drop; no click is left behind.
#[tokio::test]
async fn cards_dragged_between_html5_lists_land_where_they_were_dropped() {
    let h = Harness::start().await;
    let server = widgets();
    let steps = json!([
        { "type": "navigate", "url": server.url("/html5-dnd.html") },
        { "type": "drag", "selector": text("Buy milk"), "by": { "x": 0, "y": 0 },
          "target": css("#done") },
        { "type": "drag", "selector": text("Water plants"), "offset": { "x": 20, "y": 10 },
          "by": { "x": 0, "y": 0 }, "target": text("Answer mail"),
          "target_offset": { "x": 30, "y": 4 } },
        { "type": "extract", "selector": { "candidates": [{ "kind": "test_id", "value": "lists" }] },
          "field": "lists" },
        { "type": "extract", "selector": { "candidates": [{ "kind": "test_id", "value": "events" }] },
          "field": "events" },
    ]);
    let report = h.replay(steps, json!({})).await.unwrap();
    assert_eq!(
        report.outputs["lists"],
        json!("todo:tests done:plants,mail,milk")
    );
    let events = report.outputs["events"].as_str().unwrap();
    assert_eq!(events.matches("drop").count(), 2, "{events}");
    assert!(!events.contains("click"), "{events}");
    assert!(!events.contains("drop-without-data"), "{events}");
    h.close().await;
}

/// The engine says what each drag was: the card's an HTML5 drag completed with drag events,
/// the slider's a pointer drag (its handlers saw the moves, and the value followed).
#[tokio::test]
async fn the_page_decides_whether_a_drag_is_html5_or_a_pointer_drag() {
    let h = Harness::start().await;
    let server = widgets();
    let context = h.browser.new_context().await.unwrap();
    let page = context.page();
    let frame = page.target_id().to_string();
    let centre = |expr: &str| {
        format!(
            "(() => {{ const r = ({expr}).getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }})()"
        )
    };
    let point = |v: Value| (v[0].as_f64().unwrap(), v[1].as_f64().unwrap());

    page.navigate(&server.url("/html5-dnd.html"), Duration::from_secs(10))
        .await
        .unwrap();
    let card = point(
        page.evaluate_in_main_frame(&centre("document.querySelector('[data-id=milk]')"))
            .await
            .unwrap(),
    );
    let list = point(
        page.evaluate_in_main_frame(&centre("document.getElementById('done')"))
            .await
            .unwrap(),
    );
    let outcome = page.mouse_drag(&frame, card, list, 10).await.unwrap();
    assert_eq!(outcome, DragOutcome::Html5);
    let lists = page
        .evaluate_in_main_frame("document.querySelector('[data-testid=lists]').textContent")
        .await
        .unwrap();
    assert_eq!(lists, json!("todo:tests,plants done:mail,milk"));

    page.navigate(&server.url("/keys.html"), Duration::from_secs(10))
        .await
        .unwrap();
    let thumb = point(
        page.evaluate_in_main_frame(&centre("document.querySelector('[data-testid=months]')"))
            .await
            .unwrap(),
    );
    // 3 px a month: 30 px to the right is 10 more.
    let outcome = page
        .mouse_drag(&frame, thumb, (thumb.0 + 30.0, thumb.1), 10)
        .await
        .unwrap();
    assert_eq!(outcome, DragOutcome::Pointer);
    let months = page
        .evaluate_in_main_frame("document.querySelector('[data-testid=months-value]').textContent")
        .await
        .unwrap();
    assert_eq!(months, json!("20"));
    context.close().await.unwrap();
    h.close().await;
}

/// A card dropped where nothing accepts it (a list's heading) did not do what a drag does:
/// the step fails naming the refusal, and the next step never runs. Never a replay that
/// passes with the lists unchanged.
#[tokio::test]
async fn an_html5_drop_nothing_accepts_fails_the_step() {
    let h = Harness::start().await;
    let server = widgets();
    let steps = json!([
        { "type": "navigate", "url": server.url("/html5-dnd.html") },
        { "type": "drag", "selector": text("Buy milk"), "by": { "x": 0, "y": 0 },
          "target": css("#done-title") },
        { "type": "extract", "selector": { "candidates": [{ "kind": "test_id", "value": "lists" }] },
          "field": "lists" },
    ]);
    let error = h.replay(steps, json!({})).await.unwrap_err();
    assert_eq!(
        error.failure_kind(),
        FailureKind::NotActionable(Unactionable::Refused),
        "{error}"
    );
    let ReplayError::StepFailed { index, message, .. } = &error else {
        panic!("not a step failure: {error}")
    };
    assert_eq!(*index, 1);
    assert!(message.contains("accepted the drop"), "{message}");
    h.close().await;
}
