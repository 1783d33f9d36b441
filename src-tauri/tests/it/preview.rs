//! The replay preview on real Chromium against the fixture shop: steps stream live as events, the
//! output is the contract's, the last run is recorded in the library, and a failing step
//! comes back with its candidates.

use std::sync::{Arc, Mutex};

use browserflow_shop::FixtureServer;
use browserflow_steps::ToolFile;
use serde_json::{Value, json};
use tauri::Listener;

use crate::support::{TestApp, repo_recordings};

/// The shipped `search-price` tool pointed at a shop served on a free port, saved in the
/// app's recordings; returns its path.
fn shop_tool(app: &TestApp, shop: &FixtureServer, edit: impl FnOnce(&mut Value)) -> String {
    let shipped = ToolFile::load(&repo_recordings().join("search-price@1.2.0.json"))
        .expect("the shipped tool");
    let mut doc = shipped.rebase_to(&shop.origin()).to_json();
    edit(&mut doc);
    let path = app.paths.recordings.join("search-price@1.2.0.json");
    std::fs::write(&path, serde_json::to_string_pretty(&doc).expect("json")).expect("write");
    path.display().to_string()
}

#[test]
fn a_preview_streams_steps_returns_the_typed_output_and_records_the_last_run() {
    let shop = FixtureServer::shop().expect("the shop serves");
    let app = TestApp::empty();
    let tool = shop_tool(&app, &shop, |_| {});

    let plan = app.ok("preview_plan", json!({ "tool": tool }));
    assert_eq!(plan.as_array().map(Vec::len), Some(6));
    assert!(
        plan.as_array()
            .expect("steps")
            .iter()
            .all(|s| s["state"] == "pending")
    );

    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    let sink = seen.clone();
    app.app.listen_any("preview://step", move |event| {
        if let Ok(step) = serde_json::from_str::<Value>(event.payload()) {
            sink.lock().expect("lock").push(step);
        }
    });

    let request = json!({
        "tool": tool,
        "headed": false,
        "inputs": [{ "name": "query", "value": "keyboard", "secret": false }],
    });
    let result = app.ok("preview_run", json!({ "request": request }));
    assert_eq!(result["ok"], true, "{result:#}");
    assert_eq!(result["output"]["price"], json!(89.99), "{result:#}");
    assert_eq!(result["output"]["name"], "Mechanical Keyboard");
    assert_eq!(result["steps"].as_array().map(Vec::len), Some(6));
    let fill = &result["steps"][1];
    assert_eq!(fill["state"], "passed");
    assert!(
        fill["winner"]
            .as_str()
            .is_some_and(|w| w.contains("search-input")),
        "{fill:#}"
    );
    assert!(
        fill["screenshot"]
            .as_str()
            .is_some_and(|s| s.starts_with("data:image/png;base64,"))
    );

    // Live: each step running, then passed with the screenshot just taken; then the final
    // timeline once more (with thumbnails).
    let events = seen.lock().expect("lock").clone();
    let timeline: Vec<(u64, String)> = events
        .iter()
        .map(|e| {
            (
                e["index"].as_u64().unwrap_or(99),
                e["state"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let mut expected: Vec<(u64, String)> = (0..6)
        .flat_map(|i| [(i, "running".to_string()), (i, "passed".to_string())])
        .collect();
    expected.extend((0..6).map(|i| (i, "passed".to_string())));
    assert_eq!(timeline, expected);
    assert!(
        events
            .iter()
            .filter(|e| e["state"] == "passed")
            .all(|e| e["screenshot"]
                .as_str()
                .is_some_and(|s| s.starts_with("data:image/png;base64,"))),
        "every finished step shows its screenshot"
    );

    let items = app.ok("library_list", json!({}));
    let item = items
        .as_array()
        .and_then(|a| a.iter().find(|i| i["reference"] == "search-price@1.2.0"))
        .expect("listed");
    assert_eq!(item["last_run"]["status"], "passed", "{item:#}");
    // Every step won on its best candidate: nothing to warn of.
    assert_eq!(item["last_run"]["warnings"], json!([]), "{item:#}");
}

#[test]
fn a_failing_step_comes_back_with_every_candidate_tried() {
    let shop = FixtureServer::shop().expect("the shop serves");
    let app = TestApp::empty();
    let tool = shop_tool(&app, &shop, |doc| {
        doc["steps"][3]["selector"]["candidates"] = json!([
            { "kind": "css", "value": "#no-such-result" },
            { "kind": "text", "value": "No such link" },
        ]);
        doc["steps"][3]["timeout_ms"] = json!(1500);
    });
    let request = json!({
        "tool": tool,
        "headed": false,
        "inputs": [{ "name": "query", "value": "keyboard", "secret": false }],
    });
    let result = app.ok("preview_run", json!({ "request": request }));
    assert_eq!(result["ok"], false);
    assert_eq!(result["failed_step"], 3, "{result:#}");
    let failed = &result["steps"][3];
    assert_eq!(failed["state"], "failed");
    assert_eq!(failed["candidates"].as_array().map(Vec::len), Some(2));
    assert!(
        failed["error"]
            .as_str()
            .is_some_and(|e| e.contains("#no-such-result")),
        "{failed:#}"
    );
    assert!(
        failed["screenshot"].as_str().is_some(),
        "the failing step has its screenshot"
    );
    assert_eq!(result["steps"][4]["state"], "skipped");

    let items = app.ok("library_list", json!({}));
    let item = items
        .as_array()
        .and_then(|a| a.iter().find(|i| i["reference"] == "search-price@1.2.0"))
        .expect("listed");
    assert_eq!(item["last_run"]["status"], "failed");
}

#[test]
fn run_on_a_file_streams_each_row_and_writes_the_results() {
    let shop = FixtureServer::shop().expect("the shop serves");
    let app = TestApp::empty();
    let tool = shop_tool(&app, &shop, |_| {});
    std::fs::create_dir_all(&app.paths.data).expect("the data folder");
    let rows = app.paths.data.join("rows.csv");
    std::fs::write(&rows, "query\nkeyboard\nmouse\n\"\"\n").expect("rows");
    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    let sink = seen.clone();
    app.app.listen_any("batch://row", move |event| {
        if let Ok(row) = serde_json::from_str::<Value>(event.payload()) {
            sink.lock().expect("lock").push(row);
        }
    });
    let request = json!({ "tool": tool, "rows": rows.display().to_string(), "concurrency": 2 });
    let done = app.ok("preview_batch", json!({ "request": request }));
    assert_eq!(
        (
            done["rows"].as_u64(),
            done["ok"].as_u64(),
            done["failed"].as_u64()
        ),
        (Some(3), Some(2), Some(1)),
        "{done:#}"
    );
    let seen = seen.lock().expect("lock").clone();
    assert_eq!(seen.len(), 3, "{seen:#?}");
    assert_eq!(seen.last().map(|r| r["finished"].clone()), Some(json!(3)));
    let by_row = |n: u64| {
        seen.iter()
            .find(|r| r["row"] == n)
            .expect("the row")
            .clone()
    };
    assert_eq!(by_row(1)["output"]["price"], json!(89.99));
    assert_eq!(by_row(2)["output"]["price"], json!(24.5));
    assert_eq!(
        by_row(3)["error"],
        "row 3, column `query` is empty and the input has no default"
    );
    let results =
        std::fs::read_to_string(done["results"].as_str().expect("a path")).expect("results");
    assert_eq!(results.lines().count(), 3, "{results}");

    // A file that is not rows: said, nothing run.
    let request = json!({ "tool": tool, "rows": tool, "concurrency": 1 });
    let refused = app
        .invoke("preview_batch", json!({ "request": request }))
        .expect_err("refused");
    assert_eq!(refused["code"], "batch", "{refused:#}");
    assert!(
        refused["message"]
            .as_str()
            .is_some_and(|m| m.contains(".csv")),
        "{refused:#}"
    );
}
