//! Where a pointer step acts and in which viewport: a recorded offset keeps its place relative
//! to an element whose box has another size on replay, and a tool's recorded viewport is set
//! before its first step. Fixture: `tests/fixtures/place/track.html`; steps written by hand.

use browserflow_replay::ReplayOptions;
use browserflow_shop::{FixtureServer, read_dir_files};
use browserflow_steps::Viewport;
use serde_json::{Value, json};

use crate::support::Harness;

fn place() -> FixtureServer {
    let dir =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/place");
    FixtureServer::serve_files(read_dir_files(&dir).expect("place fixtures read"))
        .expect("fixture server starts")
}

fn css(value: &str) -> Value {
    json!({ "candidates": [{ "kind": "css", "value": value }] })
}

fn result() -> Value {
    json!({ "type": "extract", "field": "result",
            "selector": { "candidates": [{ "kind": "test_id", "value": "result" }] } })
}

/// A press recorded at 300 px of a 400 px track lands at 150 px of today's 200 px track (the
/// same fraction); one recorded 20 px above a 20 px thumb (on its label) lands 20 px above
/// today's 40 px thumb, on the label still, at the same fraction across.
#[tokio::test]
async fn a_recorded_offset_keeps_its_relative_place_in_a_box_of_another_size() {
    let h = Harness::start().await;
    let server = place();
    let track = json!([
        { "type": "navigate", "url": server.url("/track.html") },
        { "type": "click", "selector": css("#track"),
          "offset": { "x": 300.0, "y": 10.0, "box": { "width": 400.0, "height": 20.0 } } },
        result(),
    ]);
    let report = h.replay(track, json!({})).await.unwrap();
    assert_eq!(report.outputs["result"], "track 150,10");
    let label = json!([
        { "type": "navigate", "url": server.url("/track.html") },
        { "type": "click", "selector": css("#thumb"),
          "offset": { "x": 5.0, "y": -20.0, "box": { "width": 20.0, "height": 20.0 } } },
        result(),
    ]);
    let report = h.replay(label, json!({})).await.unwrap();
    // 5/20 of 40 px across; 20 px above the thumb is 16 px down the label (it starts 36 px up).
    assert_eq!(report.outputs["result"], "label 10,16");
    // Without a recorded box the pixels stay.
    let pixels = json!([
        { "type": "navigate", "url": server.url("/track.html") },
        { "type": "click", "selector": css("#track"), "offset": { "x": 150.0, "y": 10.0 } },
        result(),
    ]);
    let report = h.replay(pixels, json!({})).await.unwrap();
    assert_eq!(report.outputs["result"], "track 150,10");
    h.close().await;
}

/// The tool's recorded viewport is the page's from its first step; without it, the browser's.
#[tokio::test]
async fn a_recorded_viewport_is_set_before_the_first_step() {
    let h = Harness::start().await;
    let server = place();
    let steps = json!([
        { "type": "navigate", "url": server.url("/track.html") },
        { "type": "extract", "field": "viewport",
          "selector": { "candidates": [{ "kind": "test_id", "value": "viewport" }] } },
    ]);
    let recorded = ReplayOptions {
        viewport: Some(Viewport {
            width: 640,
            height: 431,
        }),
        ..ReplayOptions::default()
    };
    let report = h
        .replay_with(steps.clone(), json!({}), recorded)
        .await
        .unwrap();
    assert_eq!(report.outputs["viewport"], "640x431");
    let report = h.replay(steps, json!({})).await.unwrap();
    assert_ne!(report.outputs["viewport"], "640x431");
    h.close().await;
}
