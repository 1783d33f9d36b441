//! Replays the search-price journey on the embedded fixture shop and prints the step timeline.
//!
//! `cargo run -p browserflow-replay --example search_price -- keyboard`

use std::time::Instant;

use browserflow_cdp::{Browser, BrowserConfig};
use browserflow_replay::Replayer;
use browserflow_shop::FixtureServer;
use browserflow_steps::Step;
use serde_json::json;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let query = std::env::args().nth(1).unwrap_or_else(|| "keyboard".into());
    let started = Instant::now();
    let shop = FixtureServer::shop()?;
    let browser = Browser::launch(&BrowserConfig::default()).await?;
    let launched = started.elapsed();
    let steps: Vec<Step> = serde_json::from_value(json!([
        { "type": "navigate", "url": shop.url("/index.html") },
        { "type": "fill", "value": "{{query}}", "selector": { "candidates": [
            { "kind": "test_id", "value": "search-input" }
        ] } },
        { "type": "key_press", "key": "Enter", "navigation": { "url": "*/search.html?q=*" } },
        { "type": "click", "selector": { "candidates": [
            { "kind": "css", "value": "#results li:first-child a" }
        ] } },
        { "type": "extract", "field": "name", "selector": { "candidates": [
            { "kind": "test_id", "value": "product-name" }
        ] } },
        { "type": "extract", "field": "price", "kind": "number", "currency_field": "currency",
          "selector": { "candidates": [{ "kind": "test_id", "value": "product-price" }] } }
    ]))?;
    let inputs = json!({ "query": query })
        .as_object()
        .cloned()
        .unwrap_or_default();
    let context = browser.new_context().await?;
    let with_context = started.elapsed();
    let report = Replayer::default().run(&context, &steps, &inputs).await?;
    for step in &report.steps {
        println!(
            "{:>2} {:<12} {:>8.1} ms",
            step.index + 1,
            step.kind,
            step.duration_ms
        );
    }
    println!("{}", serde_json::to_string_pretty(&report.outputs)?);
    println!(
        "launch {:.0} ms, context {:.0} ms, replay {:.0} ms, total {:.0} ms",
        launched.as_secs_f64() * 1000.0,
        (with_context - launched).as_secs_f64() * 1000.0,
        report.duration_ms,
        started.elapsed().as_secs_f64() * 1000.0
    );
    context.close().await?;
    browser.close().await?;
    Ok(())
}
