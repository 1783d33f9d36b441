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

/// An "Account" navigation of three buttons, as recorded (`?grown`: a fourth before the
/// recorded second; `?twice`: the recorded name on two buttons).
const NAV: &str = r#"<!doctype html><html><body>
<nav aria-label="Account"></nav><output id="out"></output>
<script>
const names = location.search === '?grown' ? ['Profile', 'Returns', 'Your orders', 'Settings']
  : location.search === '?twice' ? ['Profile', 'Orders', 'Orders', 'Settings']
  : ['Profile', 'Your orders', 'Settings'];
for (const [i, name] of names.entries()) {
  const b = document.createElement('button');
  b.textContent = name;
  b.onclick = () => { document.getElementById('out').textContent = name + ' ' + (i + 1); };
  document.querySelector('nav').append(b);
}
</script></body></html>"#;

/// Position never settles what the recording did not see: an `nth` pick names an element
/// only among as many as the recording counted there (`of`), and no positional candidate —
/// `nth` pick, CSS `:nth-of-type`, XPath `[n]` — chooses among elements a name matches
/// several of. A renamed button among as many as recorded is still found by its place.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn position_decides_only_among_as_many_as_the_recording_saw_and_never_between_names() {
    let h = Harness::start().await;
    let server =
        browserflow_shop::FixtureServer::serve_files(std::collections::BTreeMap::from([(
            "nav.html".to_string(),
            NAV.as_bytes().to_vec(),
        )]))
        .expect("fixture server starts");
    let nth = |of: Option<u32>| {
        let mut structure = json!({ "within": { "region": { "role": "navigation", "name": "Account" } },
            "pick": { "nth": 2 } });
        if let Some(of) = of {
            structure["of"] = json!(of);
        }
        json!({ "kind": "structure", "value": "button", "structure": structure })
    };
    let run = |query: &str, candidates: serde_json::Value| {
        json!([
            { "type": "navigate", "url": server.url(&format!("/nav.html{query}")) },
            { "type": "click", "timeout_ms": 600, "selector": { "candidates": candidates } },
            { "type": "extract", "field": "clicked", "selector": { "candidates": [{ "kind": "id", "value": "out" }] } }
        ])
    };
    let orders = json!({ "kind": "role", "value": "button", "name": "Orders" });
    let clicked = |report: &browserflow_replay::ReplayReport| report.outputs["clicked"].clone();

    // Renamed, as many buttons as recorded: the place finds it.
    let report = h
        .replay(run("", json!([orders, nth(Some(3))])), json!({}))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(clicked(&report), "Your orders 2");

    // Renamed, and the navigation grew: four buttons where the recording counted three.
    let failed = h
        .replay(run("?grown", json!([orders, nth(Some(3))])), json!({}))
        .await
        .expect_err("position among four is not the recorded place");
    let message = failed.to_string();
    assert!(
        message.contains("holds 4 elements of role button where the recording saw 3"),
        "{message}"
    );
    // Written without the count (by hand, or before it was recorded): the second, as before.
    let report = h
        .replay(run("?grown", json!([orders, nth(None)])), json!({}))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(clicked(&report), "Returns 2");

    // The name matches two: neither the place nor a path through positions chooses.
    for positional in [
        nth(None),
        json!({ "kind": "css", "value": "nav > button:nth-of-type(3)" }),
        json!({ "kind": "css", "value": "nav > button:last-child" }),
        json!({ "kind": "xpath", "value": "//nav/button[3]" }),
    ] {
        let failed = h
            .replay(run("?twice", json!([orders, positional])), json!({}))
            .await
            .expect_err("an ambiguous name is never settled by position");
        let message = failed.to_string();
        assert!(
            message.contains(r#"role "button" name "Orders": matched 2 elements"#)
                && message.contains(
                    "not consulted: candidate 1 names several elements, and position does not choose among them"
                ),
            "{message}"
        );
    }
    h.close().await;
}
