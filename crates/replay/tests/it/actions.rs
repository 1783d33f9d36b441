use std::time::Instant;

use serde_json::json;

use crate::support::{Harness, quick};

fn tid(id: &str) -> serde_json::Value {
    json!({ "candidates": [{ "kind": "test_id", "value": id }] })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_brief_overlay_is_waited_for_not_clicked_through() {
    let h = Harness::start().await;
    // The product page's overlay covers everything until it is removed 1 s after the step
    // before the click: the click starts with the overlay there however long the navigation
    // took on a loaded machine (timed from the load, it could be gone before the click).
    let steps = json!([
        { "type": "navigate", "url": "{{shop}}/product.html?id=kb-1&overlay=hold" },
        { "type": "wait_for_expression",
          "expression": "(setTimeout(() => document.getElementById('offers-overlay').remove(), 1000), true)" },
        { "type": "click", "selector": tid("add-to-cart") },
        { "type": "assert", "text_equals": "In cart: 1", "selector": tid("cart-status") }
    ]);
    let started = Instant::now();
    let report = h
        .replay(steps.clone(), json!({}))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        report.steps[2].duration_ms > 150.0,
        "the click must have waited for the overlay: {} ms",
        report.steps[2].duration_ms
    );
    eprintln!(
        "overlay wait: click took {:.0} ms (replay {:?})",
        report.steps[2].duration_ms,
        started.elapsed()
    );
    // With a budget shorter than the overlay, the click fails and says what covers the button.
    let steps = json!([
        { "type": "navigate", "url": "{{shop}}/product.html?id=kb-1&overlay=5000" },
        { "type": "click", "selector": tid("add-to-cart") }
    ]);
    let err = h
        .replay_with(steps, json!({}), quick(300))
        .await
        .unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("covered by <div#offers-overlay.overlay>"),
        "{message}"
    );
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disabled_elements_are_waited_for() {
    let h = Harness::start().await;
    let steps = json!([
        { "type": "navigate", "url": "{{shop}}/product.html?id=kb-1" },
        { "type": "click", "selector": tid("buy-now") }
    ]);
    let err = h
        .replay_with(steps, json!({}), quick(700))
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("<button#buy-now> is disabled"),
        "{err}"
    );
    let steps = json!([
        { "type": "navigate", "url": "{{shop}}/product.html?id=kb-1" },
        { "type": "click", "selector": tid("add-to-cart") },
        { "type": "click", "selector": tid("buy-now") },
        { "type": "assert", "text_equals": "Bought", "selector": tid("cart-status") }
    ]);
    h.replay(steps, json!({}))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fills_selects_textareas_and_contenteditable() {
    let h = Harness::start().await;
    let steps = json!([
        { "type": "navigate", "url": "{{shop}}/product.html?id=kb-1" },
        { "type": "fill", "value": "Two", "selector": { "candidates": [{ "kind": "label", "value": "Quantity" }] } },
        { "type": "change", "value": "3", "selector": tid("quantity") },
        { "type": "assert", "value_equals": "3", "selector": tid("quantity") },
        { "type": "fill", "value": "Solid and loud", "selector": tid("review") },
        { "type": "assert", "value_equals": "Solid and loud", "selector": tid("review") },
        { "type": "fill", "value": "Happy birthday", "selector": { "candidates": [{ "kind": "label", "value": "Gift note" }] } },
        { "type": "assert", "text_equals": "Happy birthday", "selector": tid("gift-note") },
        { "type": "fill", "value": "", "selector": tid("review") },
        { "type": "assert", "value_equals": "", "selector": tid("review") },
        { "type": "fill", "value": "Five", "selector": tid("quantity") }
    ]);
    let err = h.replay(steps, json!({})).await.unwrap_err();
    // Everything up to the last step passed; selecting a missing option fails clearly.
    let report = err.report().unwrap();
    assert_eq!(
        report
            .steps
            .iter()
            .filter(|s| s.status == browserflow_replay::StepStatus::Passed)
            .count(),
        10
    );
    assert!(
        err.to_string()
            .contains("no option `Five` (options: 1, 2, 3)"),
        "{err}"
    );
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mouse_buttons_double_clicks_and_key_modifiers() {
    let h = Harness::start().await;
    let steps = json!([
        { "type": "navigate", "url": "{{shop}}/product.html?id=kb-1" },
        { "type": "click", "click_count": 2, "selector": tid("double-target") },
        { "type": "click", "button": "right", "selector": tid("context-target") },
        { "type": "click", "button": "middle", "selector": tid("context-target") },
        { "type": "assert", "text_equals": "dblclick;contextmenu;auxclick2;auxclick1;", "selector": tid("pointer-log") },
        { "type": "key_press", "key": "x", "selector": tid("code") },
        { "type": "key_press", "key": "a", "modifiers": ["control"] },
        { "type": "key_press", "key": "Backspace" },
        { "type": "assert", "text_equals": "x;Control+ctrl;a+ctrl;Backspace;", "selector": tid("key-log") },
        { "type": "assert", "value_equals": "", "selector": tid("code") }
    ]);
    h.replay(steps, json!({}))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hover_scroll_viewport_and_waits() {
    let h = Harness::start().await;
    let steps = json!([
        { "type": "set_viewport", "width": 800, "height": 600 },
        { "type": "navigate", "url": "{{shop}}/index.html" },
        { "type": "wait_for_expression", "expression": "innerWidth === 800 && innerHeight === 600" },
        // The Orders link only shows while the Account menu is hovered.
        { "type": "wait_for_element", "visible": false, "selector": { "candidates": [{ "kind": "id", "value": "orders-link" }] } },
        { "type": "hover", "selector": tid("account-menu") },
        { "type": "wait_for_element", "visible": true, "selector": { "candidates": [{ "kind": "id", "value": "orders-link" }] } },
        { "type": "click", "selector": { "candidates": [{ "kind": "role", "value": "link", "name": "Orders" }] },
          "navigation": { "url": "*/orders.html", "title": "Your orders" } },
        { "type": "navigate", "url": "{{shop}}/widgets.html" },
        { "type": "scroll", "y": 900 },
        { "type": "wait_for_expression", "expression": "window.scrollY === 900" },
        { "type": "navigate", "url": "{{shop}}/search.html?q=keyboard" },
        { "type": "wait_for_element", "count": 2, "operator": ">=", "visible": true,
          "properties": { "tagName": "A" }, "selector": tid("result-link") },
        { "type": "wait_for_element", "count": 2, "selector": { "candidates": [{ "kind": "css", "value": "#results li" }] } }
    ]);
    h.replay(steps, json!({}))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    h.close().await;
}
