use browserflow_steps::SelectorKind;
use serde_json::json;

use crate::support::Harness;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_selector_kind_resolves() {
    let h = Harness::start().await;
    // One fill per kind, each followed by an assert that the right element got the value.
    let kinds = [
        (json!({ "kind": "test_id", "value": "search-input" }), "k1"),
        (
            json!({ "kind": "role", "value": "searchbox", "name": "Search products" }),
            "k2",
        ),
        (json!({ "kind": "label", "value": "Search products" }), "k3"),
        (
            json!({ "kind": "placeholder", "value": "What are you looking for?" }),
            "k4",
        ),
        (json!({ "kind": "id", "value": "search-input" }), "k5"),
        (
            json!({ "kind": "css", "value": "form#search-form input[name=q]" }),
            "k6",
        ),
        (
            json!({ "kind": "xpath", "value": "//input[@name='q']" }),
            "k7",
        ),
    ];
    let mut steps = vec![json!({ "type": "navigate", "url": "{{shop}}/index.html" })];
    for (candidate, value) in &kinds {
        steps.push(
            json!({ "type": "fill", "value": value, "selector": { "candidates": [candidate] } }),
        );
        steps.push(json!({ "type": "assert", "value_equals": value,
            "selector": { "candidates": [{ "kind": "id", "value": "search-input" }] } }));
    }
    // Text: the innermost element with exactly this text (the button, not <p> or <main>).
    steps.push(json!({ "type": "click", "selector": { "candidates": [{ "kind": "text", "value": "Open deals" }] },
        "opens_popup": "deals" }));
    steps.push(json!({ "type": "assert", "title": "Deals" }));
    let report = h
        .replay(json!(steps), json!({}))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let winners: Vec<SelectorKind> = report
        .steps
        .iter()
        .filter(|s| s.kind == "fill" || s.kind == "click")
        .map(|s| s.selector.as_ref().unwrap().kind)
        .collect();
    use SelectorKind::*;
    assert_eq!(
        winners,
        [TestId, Role, Label, Placeholder, Id, Css, Xpath, Text]
    );
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ranked_candidates_fall_through_to_the_first_that_matches() {
    let h = Harness::start().await;
    let steps = json!([
        { "type": "navigate", "url": "{{shop}}/product.html?id=kb-1" },
        { "type": "extract", "field": "name", "selector": { "candidates": [
            { "kind": "test_id", "value": "no-such-test-id" },
            { "kind": "css", "value": "h1, p" },
            { "kind": "role", "value": "heading", "name": "Mechanical Keyboard" },
            { "kind": "css", "value": "h1" }
        ] } },
        { "type": "extract", "field": "testid", "from": "attribute", "attribute": "data-testid",
          "selector": { "candidates": [{ "kind": "css", "value": "h1" }] } },
        { "type": "extract", "field": "review", "from": "value",
          "selector": { "candidates": [{ "kind": "placeholder", "value": "Tell us what you think" }] } },
        { "type": "click", "selector": { "candidates": [{ "kind": "role", "value": "button", "name": "Add to cart" }] } },
        { "type": "extract", "field": "in_cart", "kind": "integer",
          "selector": { "candidates": [{ "kind": "test_id", "value": "cart-status" }] } },
        { "type": "extract", "field": "can_buy", "kind": "boolean", "from": "attribute", "attribute": "data-can-buy",
          "selector": { "candidates": [{ "kind": "test_id", "value": "buy-now" }] } }
    ]);
    let report = h.replay(steps, json!({})).await.unwrap();
    assert_eq!(
        serde_json::Value::Object(report.outputs.clone()),
        json!({ "name": "Mechanical Keyboard", "testid": "product-name", "review": "Great!",
                "in_cart": 1, "can_buy": true })
    );
    // Candidate 2 matches several elements, so the unique role match (index 2) wins.
    let winner = report.steps[1].selector.as_ref().unwrap();
    assert_eq!((winner.index, winner.kind), (2, SelectorKind::Role));
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shadow_dom_chains_and_semantic_candidates_pierce_open_roots() {
    let h = Harness::start().await;
    let steps = json!([
        { "type": "navigate", "url": "{{shop}}/widgets.html" },
        { "type": "click", "selector": { "candidates": [
            { "kind": "test_id", "value": "rate-5", "shadow": ["shop-rating"] }
        ] } },
        { "type": "assert", "text_equals": "Rated 5", "selector": { "candidates": [{ "kind": "test_id", "value": "rating-status" }] } },
        { "type": "click", "selector": { "candidates": [
            { "kind": "role", "value": "button", "name": "1 star" },
            { "kind": "role", "value": "button", "name": "Rate five stars", "shadow": ["#rating"] }
        ] } },
        { "type": "assert", "text_equals": "Rated 1", "selector": { "candidates": [{ "kind": "test_id", "value": "rating-status" }] } },
        { "type": "click", "selector": { "candidates": [
            { "kind": "css", "value": "button.star", "shadow": ["shop-rating", "#nested"] }
        ] } },
        { "type": "assert", "text_equals": "Nested star clicked", "selector": { "candidates": [{ "kind": "test_id", "value": "rating-status" }] } },
        { "type": "fill", "value": "lovely", "selector": { "candidates": [
            { "kind": "label", "value": "Comment", "shadow": ["shop-rating"] }
        ] } },
        { "type": "assert", "value_equals": "lovely", "selector": { "candidates": [
            { "kind": "test_id", "value": "rating-comment", "shadow": ["shop-rating"] }
        ] } },
        // Without chains: a test id, a label, a text two shadow roots down, and a role.
        { "type": "fill", "value": "pierced", "selector": { "candidates": [{ "kind": "label", "value": "Comment" }] } },
        { "type": "assert", "value_equals": "pierced", "selector": { "candidates": [{ "kind": "test_id", "value": "rating-comment" }] } },
        { "type": "click", "selector": { "candidates": [{ "kind": "test_id", "value": "rate-5" }] } },
        { "type": "assert", "text_equals": "Rated 5", "selector": { "candidates": [{ "kind": "test_id", "value": "rating-status" }] } },
        { "type": "click", "selector": { "candidates": [{ "kind": "text", "value": "Nested star" }] } },
        { "type": "assert", "text_equals": "Nested star clicked", "selector": { "candidates": [{ "kind": "test_id", "value": "rating-status" }] } },
        { "type": "click", "selector": { "candidates": [{ "kind": "role", "value": "button", "name": "1 star" }] } },
        { "type": "assert", "text_equals": "Rated 1", "selector": { "candidates": [{ "kind": "test_id", "value": "rating-status" }] } }
    ]);
    let report = h
        .replay(steps, json!({}))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    // The role candidate without a shadow chain sees inside the widget: the first won.
    assert_eq!(report.steps[3].selector.as_ref().unwrap().index, 0);
    let text = report.steps[13].selector.as_ref().unwrap();
    assert_eq!(text.kind, SelectorKind::Text);
    h.close().await;
}
