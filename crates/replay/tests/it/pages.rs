use serde_json::json;

use crate::support::Harness;

fn tid(id: &str) -> serde_json::Value {
    json!({ "candidates": [{ "kind": "test_id", "value": id }] })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dialogs_are_answered_as_recorded() {
    let h = Harness::start().await;
    let steps = json!([
        { "type": "navigate", "url": "{{shop}}/index.html" },
        { "type": "handle_dialog", "accept": true },
        { "type": "click", "selector": tid("clear-history") },
        { "type": "assert", "text_equals": "History cleared", "selector": tid("service-status") },
        { "type": "click", "selector": tid("clear-history") },
        { "type": "assert", "text_equals": "History kept", "selector": tid("service-status") },
        { "type": "handle_dialog", "accept": true, "prompt_text": "{{name}}" },
        { "type": "click", "selector": tid("ask-name") },
        { "type": "assert", "text_equals": "Hello, Ada", "selector": tid("service-status") }
    ]);
    let report = h
        .replay(steps, json!({ "name": "Ada" }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let first = &report.steps[2].dialogs;
    assert_eq!(first.len(), 1);
    assert_eq!(
        (
            first[0].kind.as_str(),
            first[0].message.as_str(),
            first[0].accepted
        ),
        ("confirm", "Clear your search history?", true)
    );
    // Without an armed answer, a dialog is dismissed (and reported).
    assert!(!report.steps[4].dialogs[0].accepted);
    assert_eq!(report.steps[7].dialogs[0].kind, "prompt");
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn popups_are_followed_and_left() {
    let h = Harness::start().await;
    let steps = json!([
        { "type": "navigate", "url": "{{shop}}/index.html" },
        { "type": "click", "selector": tid("open-deals"), "opens_popup": "deals" },
        { "type": "extract", "field": "deal", "selector": tid("deal-name") },
        { "type": "extract", "field": "deal_price", "kind": "number", "selector": tid("deal-price") },
        { "type": "switch_page", "page": "main" },
        { "type": "fill", "value": "mouse", "selector": tid("search-input") },
        { "type": "switch_page", "page": "deals" },
        { "type": "assert", "url": "*/deals.html" },
        { "type": "close_page", "page": "deals" },
        { "type": "assert", "value_equals": "mouse", "selector": tid("search-input") }
    ]);
    let report = h
        .replay(steps, json!({}))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.outputs["deal"], "Wireless Mouse");
    assert_eq!(report.outputs["deal_price"], 19.99);
    assert!(
        report.steps[1]
            .navigated_to
            .as_deref()
            .unwrap()
            .ends_with("/deals.html")
    );
    assert!(report.final_url.ends_with("/index.html"));
    h.close().await;
}
