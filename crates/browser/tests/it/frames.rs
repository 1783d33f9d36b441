use serde_json::json;

use crate::support::Harness;

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
