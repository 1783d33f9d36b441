//! The tool file's `origins`: read, written, rebased, derived for files without it, and
//! given to imported DevTools recordings.

use browserflow_steps::{Origins, ToolFile, import_devtools};
use serde_json::{Value, json};

fn tool(origins: Option<Value>) -> String {
    let mut file = json!({
        "contract": { "name": "t", "version": "1.0.0", "kind": "browser", "description": "t",
                      "inputs": [], "output": { "type": "null" }, "capabilities": ["browser"] },
        "steps": [
            { "type": "navigate", "url": "http://127.0.0.1:4780/index.html" },
            { "type": "click", "navigation": { "url": "https://pay.test/checkout?*" },
              "selector": { "candidates": [{ "kind": "css", "value": "#pay" }] } }
        ],
        "metadata": { "origin": "http://127.0.0.1:4780" }
    });
    if let Some(origins) = origins {
        file["origins"] = origins;
    }
    file.to_string()
}

#[test]
fn origins_are_read_written_and_rebased() {
    let file = ToolFile::from_json_str(&tool(Some(json!(["http://127.0.0.1:4780"])))).unwrap();
    assert_eq!(
        file.origins,
        Some(Origins::only(["http://127.0.0.1:4780".to_string()]))
    );
    let written = file.to_json_pretty();
    assert!(
        written.contains("\"origins\": [\n    \"http://127.0.0.1:4780\"\n  ]"),
        "{written}"
    );
    assert_eq!(ToolFile::from_json_str(&written).unwrap(), file);
    let moved = file.rebase_to("http://127.0.0.1:9999");
    assert_eq!(
        moved.allowed_origins(),
        Origins::only(["http://127.0.0.1:9999".to_string()])
    );
    // `*` never includes this machine: the loopback step is refused when the file is read.
    let refused = ToolFile::from_json_str(&tool(Some(json!(["*"])))).unwrap_err();
    assert!(refused.to_string().contains("loopback"), "{refused}");
    let on_the_web = tool(Some(json!(["*"]))).replace("http://127.0.0.1:4780", "https://shop.test");
    let any = ToolFile::from_json_str(&on_the_web).unwrap();
    assert_eq!(any.allowed_origins(), Origins::Any);
    assert!(
        any.to_json_pretty()
            .contains("\"origins\": [\n    \"*\"\n  ]")
    );
}

#[test]
fn a_bad_entry_is_named() {
    let error = ToolFile::from_json_str(&tool(Some(json!(["http://127.0.0.1:4780", "file:///"]))))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("origins[1]") && error.contains("file:///"),
        "{error}"
    );
    let error = ToolFile::from_json_str(&tool(Some(json!("*"))))
        .unwrap_err()
        .to_string();
    assert!(error.contains("`origins` must be a list"), "{error}");
}

#[test]
fn a_file_without_origins_may_go_where_its_steps_go() {
    let old = ToolFile::from_json_str(&tool(None)).unwrap();
    assert_eq!(old.origins, None);
    assert_eq!(
        old.allowed_origins(),
        Origins::only(["http://127.0.0.1:4780".into(), "https://pay.test".into()])
    );
    assert!(!old.to_json_pretty().contains("origins\""));
}

#[test]
fn an_imported_recording_gets_the_origins_of_its_steps() {
    let recording = json!({
        "title": "pay",
        "steps": [
            { "type": "navigate", "url": "https://shop.test/cart",
              "assertedEvents": [{ "type": "navigation", "url": "https://shop.test/cart", "title": "" }] },
            { "type": "click", "selectors": [["#pay"]], "offsetX": 1, "offsetY": 1,
              "assertedEvents": [{ "type": "navigation", "url": "https://pay.test/checkout", "title": "" }] }
        ]
    });
    let file = import_devtools(&recording.to_string(), "pay", "1.0.0").unwrap();
    assert_eq!(
        file.origins,
        Some(Origins::only([
            "https://pay.test".into(),
            "https://shop.test".into()
        ]))
    );
}
