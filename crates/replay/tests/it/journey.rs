use browserflow_replay::{ReplayOptions, StepStatus};
use browserflow_steps::SelectorKind;
use serde_json::json;

use crate::support::Harness;

/// The search-price journey: home → search (late results) → first result → typed output.
fn search_price_steps() -> serde_json::Value {
    json!([
        { "type": "navigate", "url": "{{shop}}/index.html", "label": "Open the shop" },
        { "type": "fill", "label": "Type the query", "value": "{{query}}", "selector": { "candidates": [
            { "kind": "test_id", "value": "search-input" },
            { "kind": "role", "value": "searchbox", "name": "Search products" },
            { "kind": "css", "value": "#search-input" }
        ] } },
        { "type": "key_press", "key": "Enter", "label": "Submit the search",
          "navigation": { "url": "*/search.html?q={{query}}" } },
        { "type": "click", "label": "Open the first result", "selector": { "candidates": [
            { "kind": "css", "value": "#results li:first-child a" },
            { "kind": "test_id", "value": "result-link" }
        ] }, "navigation": { "url": "*/product.html?id=*", "title": "* | Fixture Shop" } },
        { "type": "extract", "field": "name", "selector": { "candidates": [
            { "kind": "test_id", "value": "product-name" }
        ] } },
        { "type": "extract", "field": "price", "kind": "number", "currency_field": "currency",
          "selector": { "candidates": [ { "kind": "test_id", "value": "product-price" } ] } }
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_price_journey_returns_typed_output() {
    let h = Harness::start().await;
    let options = ReplayOptions {
        screenshots: true,
        ..ReplayOptions::default()
    };
    let report = h
        .replay_with(
            search_price_steps(),
            json!({ "query": "keyboard" }),
            options,
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        serde_json::Value::Object(report.outputs.clone()),
        json!({ "name": "Mechanical Keyboard", "price": 89.99, "currency": "USD" })
    );
    assert!(report.steps.iter().all(|s| s.status == StepStatus::Passed));
    // The fill won on the first-ranked candidate, the click on the CSS one.
    let fill = report.steps[1].selector.as_ref().unwrap();
    assert_eq!((fill.index, fill.kind), (0, SelectorKind::TestId));
    assert_eq!(
        report.steps[3].selector.as_ref().unwrap().kind,
        SelectorKind::Css
    );
    // Navigations are reported where they happened.
    assert!(
        report.steps[2]
            .navigated_to
            .as_deref()
            .unwrap()
            .ends_with("/search.html?q=keyboard")
    );
    assert!(
        report.steps[3]
            .navigated_to
            .as_deref()
            .unwrap()
            .ends_with("/product.html?id=kb-1")
    );
    assert!(report.final_url.ends_with("/product.html?id=kb-1"));
    // Every step has a real PNG screenshot.
    for step in &report.steps {
        let png = step.screenshot.as_ref().expect("screenshot");
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    }
    eprintln!("search-price journey: {:.1} ms", report.duration_ms);
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_journey_with_a_click_on_search_and_other_inputs() {
    let h = Harness::start().await;
    let mut steps = search_price_steps();
    // Submit with the button instead of Enter; search for the desk with a grouped price.
    steps[2] = json!({ "type": "click", "selector": { "candidates": [
        { "kind": "role", "value": "button", "name": "Search" }
    ] }, "navigation": { "url": "*/search.html?q=desk" } });
    let report = h
        .replay(steps, json!({ "query": "desk" }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.outputs["name"], "Standing Desk");
    assert_eq!(report.outputs["price"], 1299.0);
    assert_eq!(report.outputs["currency"], "USD");
    let report = h
        .replay(search_price_steps(), json!({ "query": "espresso" }))
        .await
        .unwrap();
    assert_eq!(report.outputs["price"], 1299.0);
    assert_eq!(report.outputs["currency"], "EUR");
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_journeys_on_one_browser() {
    let h = Harness::start().await;
    let queries = ["keyboard", "mouse", "desk", "espresso"];
    let runs = queries
        .iter()
        .map(|q| h.replay(search_price_steps(), json!({ "query": q })));
    let reports = futures::future::join_all(runs).await;
    let names: Vec<String> = reports
        .into_iter()
        .map(|r| {
            r.unwrap_or_else(|e| panic!("{e}")).outputs["name"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        names,
        [
            "Mechanical Keyboard",
            "Wireless Mouse",
            "Standing Desk",
            "Espresso Machine"
        ]
    );
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn screenshots_make_thumbnails() {
    let h = Harness::start().await;
    let context = h.browser.new_context().await.unwrap();
    let steps: Vec<browserflow_steps::Step> = serde_json::from_value(json!([
        { "type": "set_viewport", "width": 640, "height": 480 },
        { "type": "navigate", "url": h.url("/index.html") }
    ]))
    .unwrap();
    browserflow_replay::Replayer::default()
        .run(&context, &steps, &Default::default())
        .await
        .unwrap();
    let png = context.page().screenshot_png().await.unwrap();
    let full = image::load_from_memory(&png).unwrap();
    assert_eq!((full.width(), full.height()), (640, 480));
    let thumb = browserflow_cdp::thumbnail::thumbnail_png(&png, 160).unwrap();
    let thumb = image::load_from_memory(&thumb).unwrap();
    assert_eq!((thumb.width(), thumb.height()), (160, 120));
    context.close().await.unwrap();
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_step_is_reported_the_moment_it_finishes() {
    use std::sync::{Arc, Mutex};
    use std::time::Instant;

    use base64::Engine;
    use browserflow_replay::StepObserver;

    let h = Harness::start().await;
    type Seen = Vec<(Instant, usize, StepStatus, bool)>;
    let seen: Arc<Mutex<Seen>> = Arc::default();
    let sink = seen.clone();
    let options = ReplayOptions {
        screenshots: true,
        on_step: Some(StepObserver::new(move |progress| {
            let png = progress.screenshot_base64.as_deref().map(|b| {
                base64::engine::general_purpose::STANDARD
                    .decode(b)
                    .expect("base64")
            });
            let is_png = png.is_some_and(|p| p.starts_with(b"\x89PNG\r\n\x1a\n"));
            sink.lock().unwrap().push((
                Instant::now(),
                progress.report.index,
                progress.report.status,
                is_png,
            ));
        })),
        ..ReplayOptions::default()
    };
    let report = h
        .replay_with(
            search_price_steps(),
            json!({ "query": "keyboard" }),
            options,
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let ended = Instant::now();
    let seen = seen.lock().unwrap().clone();
    let order: Vec<usize> = seen.iter().map(|s| s.1).collect();
    assert_eq!(order, vec![0, 1, 2, 3, 4, 5]);
    assert!(
        seen.iter().all(|s| s.2 == StepStatus::Passed && s.3),
        "{seen:?}"
    );
    // The first step was reported before the later steps ran, not when the replay ended.
    let later: f64 = report.steps[1..].iter().map(|s| s.duration_ms).sum();
    let after_first = ended.duration_since(seen[0].0).as_secs_f64() * 1000.0;
    assert!(
        after_first >= later * 0.9,
        "step 1 reported {after_first:.0} ms before the end; later steps took {later:.0} ms"
    );
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_step_is_reported_live_too() {
    use std::sync::{Arc, Mutex};

    use browserflow_replay::StepObserver;

    let h = Harness::start().await;
    type Seen = Vec<(usize, StepStatus, Option<String>)>;
    let seen: Arc<Mutex<Seen>> = Arc::default();
    let sink = seen.clone();
    let options = ReplayOptions {
        candidate_timeout: std::time::Duration::from_millis(300),
        on_step: Some(StepObserver::new(move |progress| {
            let r = progress.report;
            sink.lock().unwrap().push((r.index, r.status, r.error));
        })),
        ..ReplayOptions::default()
    };
    let steps = json!([
        { "type": "navigate", "url": "{{shop}}/index.html" },
        { "type": "click", "selector": { "candidates": [ { "kind": "css", "value": "#no-such-thing" } ] } },
        { "type": "navigate", "url": "{{shop}}/orders.html" }
    ]);
    let failed = h.replay_with(steps, json!({}), options).await;
    assert!(failed.is_err());
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!((seen[1].0, seen[1].1), (1, StepStatus::Failed));
    assert!(
        seen[1]
            .2
            .as_deref()
            .unwrap_or_default()
            .contains("#no-such-thing")
    );
    h.close().await;
}
