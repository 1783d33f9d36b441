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
            "frame": { "name": "partner" }, "candidates": [{ "kind": "test_id", "value": "partner-status" }] } }
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
    // and in the out-of-process frame alike.
    for (frame, id) in [
        (json!({ "name": "promo" }), "claim-coupon"),
        (json!({ "url": "*/partner.html" }), "partner-join"),
    ] {
        let steps = json!([
            { "type": "navigate", "url": "{{shop}}/frames.html?cover=60000" },
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
