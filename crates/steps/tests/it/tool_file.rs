use browserflow_steps::{ToolFile, ToolFileError};
use serde_json::json;

fn search_price_file() -> serde_json::Value {
    json!({
        "contract": {
            "name": "search-price", "version": "1.2.0", "kind": "browser",
            "description": "Search the shop and read the first result's price.",
            "inputs": [{ "name": "query", "schema": { "type": "string" }, "secret": false }],
            "output": { "type": "object",
                "properties": { "name": { "type": "string" }, "price": { "type": "number" },
                                "currency": { "type": "string" } },
                "required": ["currency", "name", "price"], "additionalProperties": false },
            "capabilities": ["browser"]
        },
        "steps": [
            { "type": "navigate", "url": "http://127.0.0.1:8080/index.html" },
            { "type": "fill", "value": "{{query}}", "selector": { "candidates": [{ "kind": "test_id", "value": "search-input" }] } }
        ],
        "metadata": { "recorded_with": "browserflow" }
    })
}

#[test]
fn a_tool_file_round_trips() {
    let text = serde_json::to_string_pretty(&search_price_file()).unwrap();
    let file = ToolFile::from_json_str(&text).unwrap();
    assert_eq!(file.contract.name(), "search-price");
    assert_eq!(file.steps.len(), 2);
    assert_eq!(file.metadata["recorded_with"], "browserflow");
    let again = ToolFile::from_json_str(&file.to_json_pretty()).unwrap();
    assert_eq!(again, file);
    assert_eq!(again.to_json_pretty(), file.to_json_pretty());
}

#[test]
fn bad_tool_files_say_where() {
    let mut bad = search_price_file();
    bad["steps"][1]["selector"]["candidates"] = json!([]);
    let err = ToolFile::from_json_str(&bad.to_string()).unwrap_err();
    assert!(matches!(err, ToolFileError::Step { index: 1, .. }));
    assert!(err.to_string().contains("/steps/1"), "{err}");
    let mut bad = search_price_file();
    bad["extra"] = json!(1);
    let err = ToolFile::from_json_str(&bad.to_string()).unwrap_err();
    assert!(err.to_string().contains("unknown field `extra`"), "{err}");
    let mut bad = search_price_file();
    bad["contract"]["name"] = json!("Bad Name");
    assert!(matches!(
        ToolFile::from_json_str(&bad.to_string()),
        Err(ToolFileError::Contract(_))
    ));
    assert!(matches!(
        ToolFile::from_json_str("[1]"),
        Err(ToolFileError::Shape(_))
    ));
    assert!(matches!(
        ToolFile::from_json_str("{"),
        Err(ToolFileError::Json(_))
    ));
}
