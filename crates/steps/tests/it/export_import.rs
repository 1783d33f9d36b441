//! DevTools Recorder import (shapes and refusals) and Playwright export (`node --check`).

use browserflow_steps::ToolFile;
use browserflow_steps::export_playwright;
use browserflow_steps::{ImportError, import_devtools};
use browserflow_steps::{MouseButton, SelectorKind, Step};
use serde_json::json;

#[test]
fn imports_the_recorder_vocabulary() {
    let flow = json!({
        "title": "t", "timeout": 4000,
        "steps": [
            { "type": "setViewport", "width": 1024, "height": 700, "deviceScaleFactor": 2, "isMobile": false, "hasTouch": false, "isLandscape": true },
            { "type": "navigate", "url": "http://localhost:1/a.html", "assertedEvents": [{ "type": "navigation", "url": "http://localhost:1/a.html", "title": "" }] },
            { "type": "click", "selectors": [["aria/Open[role=\"button\"]"], ["host-el", "button.x"], ["text/Op"], ["xpath///button"], ["pierce/.deep"]], "offsetX": 2, "offsetY": 3, "button": "secondary" },
            { "type": "doubleClick", "selectors": ["#d"], "offsetX": 1, "offsetY": 1 },
            { "type": "keyDown", "key": "Shift" }, { "type": "keyDown", "key": "a" }, { "type": "keyUp", "key": "a" }, { "type": "keyUp", "key": "Shift" },
            { "type": "change", "selectors": ["aria/Name"], "value": "v" },
            { "type": "hover", "selectors": ["#h"] },
            { "type": "scroll", "x": 0, "y": 10 },
            { "type": "waitForElement", "selectors": ["li"], "count": 2, "operator": ">=", "attributes": { "class": "c" } },
            { "type": "waitForExpression", "expression": "true" },
            { "type": "click", "selectors": ["#popup"], "offsetX": 1, "offsetY": 1 },
            { "type": "click", "target": "http://localhost:1/p.html", "selectors": ["button"], "offsetX": 1, "offsetY": 1 },
            { "type": "close", "target": "http://localhost:1/p.html" }
        ]
    });
    let tool =
        import_devtools(&flow.to_string(), "imported", "0.1.0").unwrap_or_else(|e| panic!("{e}"));
    let kinds: Vec<&str> = tool.steps.iter().map(|s| s.kind().name()).collect();
    assert_eq!(
        kinds,
        [
            "set_viewport",
            "navigate",
            "click",
            "click",
            "key_press",
            "fill",
            "hover",
            "scroll",
            "wait_for_element",
            "wait_for_expression",
            "click",
            "click",
            "close_page"
        ]
    );
    let Step::Click(click) = &tool.steps[2] else {
        panic!()
    };
    assert_eq!(click.button, MouseButton::Right);
    assert_eq!(click.timeout_ms, Some(4000));
    let kinds: Vec<SelectorKind> = click.selector.candidates.iter().map(|c| c.kind).collect();
    assert_eq!(
        kinds,
        [
            SelectorKind::Role,
            SelectorKind::Css,
            SelectorKind::Xpath,
            SelectorKind::Xpath,
            SelectorKind::Css
        ]
    );
    assert_eq!(click.selector.candidates[0].name.as_deref(), Some("Open"));
    assert_eq!(click.selector.candidates[1].shadow, ["host-el"]);
    let Step::Click(double) = &tool.steps[3] else {
        panic!()
    };
    assert_eq!(double.click_count, 2);
    let Step::KeyPress(press) = &tool.steps[4] else {
        panic!()
    };
    assert_eq!((press.key.as_str(), press.modifiers.len()), ("a", 1));
    let Step::Click(opener) = &tool.steps[10] else {
        panic!()
    };
    assert_eq!(
        opener.opens_popup.as_deref(),
        Some("http://localhost:1/p.html")
    );
    let Step::Navigate(nav) = &tool.steps[1] else {
        panic!()
    };
    assert_eq!(
        nav.navigation.as_ref().and_then(|n| n.url.as_deref()),
        Some("http://localhost:1/a.html")
    );
    assert_eq!(tool.origin(), Some("http://localhost:1"));
}

#[test]
fn refuses_what_it_cannot_replay_with_a_clear_error() {
    let custom = json!({ "title": "t", "steps": [{ "type": "navigate", "url": "http://x/" }, { "type": "customStep", "name": "n", "parameters": {} }] });
    let err = import_devtools(&custom.to_string(), "x", "1.0.0").expect_err("custom step");
    assert!(matches!(err, ImportError::Unsupported { index: 1, .. }));
    assert!(err.to_string().contains("step 2 (`customStep`)"), "{err}");
    let frame = json!({ "steps": [{ "type": "click", "frame": [0, "x"], "selectors": ["a"] }] });
    let err = import_devtools(&frame.to_string(), "x", "1.0.0").expect_err("frame");
    assert!(err.to_string().contains("/steps/0/frame"), "{err}");
    let bad = import_devtools("{\"steps\": 3}", "x", "1.0.0").expect_err("shape");
    assert!(bad.to_string().contains("/steps"), "{bad}");
    assert!(import_devtools("not json", "x", "1.0.0").is_err());
}

#[test]
fn a_frame_index_path_imports_with_a_note() {
    let flow = json!({ "steps": [
        { "type": "navigate", "url": "http://localhost:1/a.html" },
        { "type": "click", "frame": [0, 2], "selectors": ["button"] },
    ] });
    let tool = import_devtools(&flow.to_string(), "x", "1.0.0").expect("imports");
    let Step::Click(click) = &tool.steps[1] else {
        panic!("a click: {:?}", tool.steps[1]);
    };
    let frame = click.selector.frame.as_ref().expect("a frame selector");
    assert_eq!(frame.index_path.as_deref(), Some(&[0, 2][..]));
    assert_eq!((frame.url.as_deref(), frame.name.as_deref()), (None, None));
    let notes = tool.metadata["import_notes"].to_string();
    assert!(notes.contains("index path [0, 2]"), "{notes}");
    let script = export_playwright(&tool);
    assert!(script.contains("indexPath: [0, 2]"), "{script}");
}

#[test]
fn playwright_export_is_valid_javascript() {
    let tool = ToolFile::from_json_str(include_str!(
        "../../../../recordings/search-price@1.2.0.json"
    ))
    .expect("parses");
    let script = export_playwright(&tool);
    assert!(script.contains("require('playwright-core')"));
    assert!(script.contains("input(inputs, \"query\")"));
    assert!(script.contains("http://127.0.0.1:4780/index.html"));
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("search-price.js");
    std::fs::write(&path, &script).expect("write");
    let status = std::process::Command::new("node")
        .arg("--check")
        .arg(&path)
        .output()
        .expect("node runs");
    assert!(
        status.status.success(),
        "{}\n{script}",
        String::from_utf8_lossy(&status.stderr)
    );
    // A script with every step type is valid too.
    let flow = json!({ "steps": [
        { "type": "navigate", "url": "http://localhost:1/a.html" },
        { "type": "click", "selectors": ["#popup"], "offsetX": 1, "offsetY": 1, "button": "back" },
        { "type": "click", "target": "http://localhost:1/p.html", "selectors": [["host", "b"]], "offsetX": 1, "offsetY": 1 },
        { "type": "close", "target": "http://localhost:1/p.html" },
        { "type": "keyDown", "key": "Enter" }, { "type": "keyUp", "key": "Enter" },
        { "type": "hover", "selectors": ["text/it's \"quoted\""] },
        { "type": "scroll", "selectors": ["div"], "x": 1, "y": 2 },
        { "type": "waitForElement", "selectors": ["li"], "visible": false },
        { "type": "waitForExpression", "expression": "document.title === 'x'" }
    ]});
    let imported = import_devtools(&flow.to_string(), "all", "1.0.0").expect("imports");
    std::fs::write(&path, export_playwright(&imported)).expect("write");
    let status = std::process::Command::new("node")
        .arg("--check")
        .arg(&path)
        .output()
        .expect("node runs");
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
}

#[test]
fn a_press_duration_imports_as_a_held_click_and_exports_as_a_delay() {
    let flow = json!({ "steps": [
        { "type": "navigate", "url": "http://localhost:1/a.html" },
        { "type": "click", "selectors": ["#hold"], "offsetX": 3, "offsetY": 4, "duration": 800 },
        { "type": "doubleClick", "selectors": ["#twice"], "offsetX": 1, "offsetY": 1, "duration": 50 },
    ] });
    let tool = import_devtools(&flow.to_string(), "x", "1.0.0").expect("imports");
    let Step::Click(held) = &tool.steps[1] else {
        panic!("a click: {:?}", tool.steps[1]);
    };
    assert_eq!(held.hold_ms, Some(800));
    let Step::Click(double) = &tool.steps[2] else {
        panic!("a click: {:?}", tool.steps[2]);
    };
    assert_eq!((double.click_count, double.hold_ms), (2, None));
    let notes = tool.metadata["import_notes"].to_string();
    assert!(
        notes.contains("step 3: press `duration` ignored"),
        "{notes}"
    );
    let script = export_playwright(&tool);
    assert!(script.contains("delay: 800"), "{script}");
}

#[test]
fn a_paginated_list_exports_as_its_page_loop_never_as_its_first_page() {
    let mut tool = ToolFile::from_json_str(include_str!(
        "../../../../recordings/search-price@1.2.0.json"
    ))
    .expect("parses");
    let list: Step = serde_json::from_value(json!({ "type": "extract_list", "field": "results",
        "items": { "candidates": [{ "kind": "css", "value": ".card" }] },
        "fields": [{ "name": "name", "candidates": [{ "kind": "css", "value": "h3" }] }],
        "paginate": { "by": "load_more", "key": "name",
            "control": { "candidates": [{ "kind": "css", "value": "button.more" }] } } }))
    .expect("a paginated list step");
    tool.steps.push(list.clone());
    let script = export_playwright(&tool);
    assert!(
        script.contains("output[\"results\"] = await extractPages(page")
            && script.contains(
                "{ by: \"load_more\", control: { candidates: [{ kind: \"css\", value: \"button.more\" }] }, maxPages: 50, key: \"name\" }"
            ),
        "{script}"
    );
    assert!(script.contains("async function extractPages("), "{script}");
    // Without `paginate` the same list is read.
    let Step::ExtractList(mut unpaged) = list else {
        unreachable!()
    };
    unpaged.paginate = None;
    *tool.steps.last_mut().unwrap() = Step::ExtractList(unpaged);
    let script = export_playwright(&tool);
    assert!(
        script.contains("output[\"results\"] = await extractList(page"),
        "{script}"
    );
}
