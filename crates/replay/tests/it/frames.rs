use browserflow_replay::{FailureKind, ReplayOptions, Replayer, Unactionable};
use browserflow_steps::Step;
use serde_json::json;

use crate::support::{Harness, quick};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn same_origin_iframe_by_name_and_cross_origin_iframe_by_url() {
    let h = Harness::start().await;
    let steps = json!([
        { "type": "navigate", "url": "{{shop}}/frames.html" },
        { "type": "click", "selector": { "frame": { "name": "promo" }, "candidates": [
            { "kind": "test_id", "value": "claim-coupon" }
        ] } },
        { "type": "extract", "field": "coupon", "selector": { "frame": { "name": "promo" }, "candidates": [
            { "kind": "test_id", "value": "coupon-code" }
        ] }, "kind": "string" },
        { "type": "fill", "value": "ada@example.com", "selector": { "frame": { "url": "http://localhost:*/partner.html" }, "candidates": [
            { "kind": "placeholder", "value": "Your email" }
        ] } },
        { "type": "click", "selector": { "frame": { "url": "*/partner.html" }, "candidates": [
            { "kind": "role", "value": "button", "name": "Join" }
        ] } },
        { "type": "assert", "text_equals": "Joined as ada@example.com", "selector": {
            "frame": { "name": "partner" }, "candidates": [{ "kind": "test_id", "value": "partner-status" }] } },
        // A press that missed a frame (the browser routed it to the page around) was stopped.
        { "type": "assert", "text_equals": "0", "selector": {
            "candidates": [{ "kind": "test_id", "value": "page-presses" }] } }
    ]);
    let report = h
        .replay(steps, json!({}))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.outputs["coupon"], "SPRING-10");
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_overlay_of_the_page_over_a_frame_is_waited_for_not_clicked_through() {
    let h = Harness::start().await;
    let click_in = |frame: serde_json::Value, id: &str| {
        json!({ "type": "click", "selector": { "frame": frame, "candidates": [
            { "kind": "test_id", "value": id }
        ] } })
    };
    // The page's notice covers both frames for 1.5 s after the script runs: the click waits.
    let steps = json!([
        { "type": "navigate", "url": "{{shop}}/frames.html?cover=1500" },
        click_in(json!({ "name": "promo" }), "claim-coupon"),
        { "type": "assert", "text_equals": "SPRING-10", "selector": { "frame": { "name": "promo" },
            "candidates": [{ "kind": "test_id", "value": "coupon-code" }] } },
    ]);
    let report = h
        .replay(steps, json!({}))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        report.steps[1].duration_ms > 500.0,
        "the click waited for the notice: {:?}",
        report.steps[1]
    );

    // A notice that stays: the clicks fail, naming what covers the frame, in the same-origin
    // and in the out-of-process frame alike. The frame's element is waited for first with a
    // budget of its own: the click's short budget is for the cover, not for a frame loading
    // on a busy machine (with it, a loaded run ended while the button was still settling).
    for (frame, id) in [
        (json!({ "name": "promo" }), "claim-coupon"),
        (json!({ "url": "*/partner.html" }), "partner-join"),
    ] {
        let steps = json!([
            { "type": "navigate", "url": "{{shop}}/frames.html?cover=60000" },
            { "type": "wait_for_element", "visible": true, "timeout_ms": 30000, "selector": {
                "frame": frame.clone(), "candidates": [{ "kind": "test_id", "value": id }] } },
            click_in(frame, id),
        ]);
        let err = h
            .replay_with(steps, json!({}), quick(800))
            .await
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("covered by <div#frames-cover.overlay> in the page around the frame"),
            "{err}"
        );
    }
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_frame_is_named_in_the_error() {
    let h = Harness::start().await;
    let steps = json!([
        { "type": "navigate", "url": "{{shop}}/frames.html" },
        { "type": "click", "selector": { "frame": { "name": "nope" }, "candidates": [
            { "kind": "test_id", "value": "claim-coupon" }
        ] } }
    ]);
    let err = h
        .replay_with(steps, json!({}), crate::support::quick(300))
        .await
        .unwrap_err();
    let message = err.to_string();
    assert!(message.contains("step 2 (click)"), "{message}");
    assert!(message.contains("frame name \"nope\""), "{message}");
    assert!(message.contains("name \"promo\""), "{message}");
    assert!(message.contains("test_id \"claim-coupon\""), "{message}");
    h.close().await;
}

/// The partner frame (out of process) showing the runaway page in `mode`.
fn runaway_steps(mode: &str) -> serde_json::Value {
    json!([
        { "type": "navigate", "url": format!("{{{{shop}}}}/frames.html?partner=partner-runaway.html%3Fmode%3D{mode}") },
        { "type": "click", "selector": { "frame": { "url": "*/partner-runaway.html*" }, "candidates": [
            { "kind": "role", "value": "button", "name": "Ready" }
        ] } },
        { "type": "click", "selector": { "frame": { "url": "*/partner-runaway.html*" }, "candidates": [
            { "kind": "role", "value": "button", "name": "Join" }
        ] } },
        { "type": "assert", "text_equals": "Decoy", "selector": {
            "frame": { "url": "*/partner-runaway.html*" },
            "candidates": [{ "kind": "test_id", "value": "runaway-slot" }] } },
        { "type": "assert", "text_equals": "join 1, decoy 0", "selector": {
            "frame": { "url": "*/partner-runaway.html*" },
            "candidates": [{ "kind": "test_id", "value": "runaway-clicks" }] } },
        // A fresh frame often misses its first press, which the browser then routes to the
        // page around it: stopped there, so the page never saw one.
        { "type": "assert", "text_equals": "0", "selector": {
            "candidates": [{ "kind": "test_id", "value": "page-presses" }] } }
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_click_into_a_frame_that_reflows_under_the_pointer_reaches_its_element_once() {
    // The page puts a Decoy button where Join was as the pointer arrives: the press that lands
    // on Decoy is stopped before the page sees it, and the click is sent again at Join's new
    // place. Decoy is there, Join is clicked once and Decoy never heard of it (the asserts).
    let h = Harness::start().await;
    h.replay(runaway_steps("once"), json!({}))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_click_that_never_reaches_its_element_in_a_frame_fails_without_acting() {
    // Join runs away at every move onto it: every attempt's press lands on a Decoy and is
    // stopped. The step fails as not delivered, and the page saw no click at all.
    let h = Harness::start().await;
    let steps: Vec<Step> = serde_json::from_value(runaway_steps("always")).expect("steps parse");
    let mut inputs = serde_json::Map::new();
    inputs.insert("shop".into(), json!(h.url("")));
    let context = h.browser.new_context().await.expect("context");
    let err = Replayer::new(ReplayOptions::default())
        .run(&context, &steps, &inputs)
        .await
        .expect_err("the click cannot reach Join");
    assert_eq!(
        err.failure_kind(),
        FailureKind::NotActionable(Unactionable::InputNotDelivered),
        "{err}"
    );
    let message = err.to_string();
    assert!(message.contains("step 3 (click)"), "{message}");
    assert!(message.contains("none of which acted"), "{message}");
    assert!(
        message.contains("the press landed on <button>"),
        "{message}"
    );
    // The same page, read by a replay of more steps: no button and not the page around the
    // frame heard of a click.
    let read: Vec<Step> = serde_json::from_value(json!([
        { "type": "assert", "text_equals": "join 0, decoy 0", "selector": {
            "frame": { "url": "*/partner-runaway.html*" },
            "candidates": [{ "kind": "test_id", "value": "runaway-clicks" }] } },
        { "type": "assert", "text_equals": "0", "selector": {
            "candidates": [{ "kind": "test_id", "value": "page-presses" }] } }
    ]))
    .expect("steps parse");
    Replayer::new(ReplayOptions::default())
        .run(&context, &read, &inputs)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    context.close().await.expect("context closes");
    h.close().await;
}
