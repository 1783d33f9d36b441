use browserflow_replay::{ReplayError, StepStatus};
use serde_json::json;

use crate::support::{Harness, quick};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_element_names_the_step_and_every_candidate() {
    let h = Harness::start().await;
    let steps = json!([
        { "type": "navigate", "url": "{{shop}}/index.html" },
        { "type": "click", "label": "Open the cart", "selector": { "candidates": [
            { "kind": "test_id", "value": "cart-button" },
            { "kind": "role", "value": "button", "name": "Cart" },
            { "kind": "css", "value": "button" },
            { "kind": "xpath", "value": "//a[text()='Cart']" }
        ] } },
        { "type": "extract", "field": "never", "selector": { "candidates": [{ "kind": "css", "value": "h1" }] } }
    ]);
    let err = h
        .replay_with(steps, json!({}), quick(1000))
        .await
        .unwrap_err();
    // All candidates are watched at once: the failure costs one budget, not four.
    let failed_step_ms = err.report().unwrap().steps[1].duration_ms;
    assert!(
        (1000.0..3000.0).contains(&failed_step_ms),
        "{failed_step_ms} ms"
    );
    let message = err.to_string();
    for expected in [
        "step 2 (click \"Open the cart\") failed",
        "within 1000 ms",
        "1. test_id \"cart-button\": matched no element",
        "2. role \"button\" name \"Cart\": matched no element",
        "3. css \"button\": matched 4 elements (needs exactly one)",
        "4. xpath \"//a[text()='Cart']\": matched no element",
    ] {
        assert!(
            message.contains(expected),
            "missing {expected:?} in:\n{message}"
        );
    }
    let ReplayError::StepFailed { index, report, .. } = err else {
        panic!("not a step failure")
    };
    assert_eq!(index, 1);
    let statuses: Vec<StepStatus> = report.steps.iter().map(|s| s.status).collect();
    assert_eq!(
        statuses,
        [StepStatus::Passed, StepStatus::Failed, StepStatus::Skipped]
    );
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn asserted_navigation_is_checked() {
    let h = Harness::start().await;
    let steps = json!([
        { "type": "navigate", "url": "{{shop}}/index.html" },
        { "type": "click", "selector": { "candidates": [{ "kind": "role", "value": "link", "name": "Widgets" }] },
          "navigation": { "url": "*/frames.html" } }
    ]);
    let err = h.replay(steps, json!({})).await.unwrap_err();
    let message = err.to_string();
    assert!(message.contains("step 2 (click) failed"), "{message}");
    assert!(
        message.contains("expected navigation to url \"*/frames.html\""),
        "{message}"
    );
    assert!(message.contains("/widgets.html"), "{message}");
    // A title mismatch, and a step that was expected to navigate but did not.
    let steps = json!([
        { "type": "navigate", "url": "{{shop}}/orders.html", "navigation": { "title": "Checkout" } }
    ]);
    let err = h.replay(steps, json!({})).await.unwrap_err();
    assert!(
        err.to_string().contains("but the title is \"Your orders\""),
        "{err}"
    );
    let steps = json!([
        { "type": "navigate", "url": "{{shop}}/product.html?id=kb-2&overlay=0" },
        { "type": "click", "selector": { "candidates": [{ "kind": "test_id", "value": "add-to-cart" }] },
          "navigation": { "url": "*/checkout.html" } }
    ]);
    let err = h
        .replay_with(steps, json!({}), quick(300))
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("expected a navigation to url \"*/checkout.html\", but the page stayed at"),
        "{err}"
    );
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_steps_and_missing_inputs_fail_before_the_browser_acts() {
    let h = Harness::start().await;
    let steps = json!([
        { "type": "navigate", "url": "{{shop}}/index.html" },
        { "type": "fill", "value": "{{query}}", "selector": { "candidates": [{ "kind": "test_id", "value": "search-input" }] } }
    ]);
    let err = h.replay(steps, json!({})).await.unwrap_err();
    assert!(matches!(err, ReplayError::Input { index: 1, .. }));
    assert_eq!(
        err.to_string(),
        "step 2 (fill): the input `query` is referenced but was not provided"
    );
    let steps = json!([{ "type": "click", "selector": { "candidates": [] } }]);
    let err = h.replay(steps, json!({})).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "step 1 (click) is invalid: the selector has no candidates"
    );
    // Secrets stay out of messages: errors quote the recorded step, not the expanded value.
    let steps = json!([
        { "type": "navigate", "url": "{{shop}}/index.html" },
        { "type": "click", "selector": { "candidates": [{ "kind": "text", "value": "{{password}}" }] } }
    ]);
    let err = h
        .replay_with(steps, json!({ "password": "hunter2" }), quick(200))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("{{password}}"), "{err}");
    assert!(!err.to_string().contains("hunter2"), "{err}");
    h.close().await;
}
