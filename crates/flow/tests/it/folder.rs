//! Tools folders tolerate strangers: a JSON file that is not a tool, flow or contract (by its
//! top-level keys) is set apart, while a tool, contract or flow with an error still loads as
//! one and is reported.

use browserflow_flow::{FileShape, Registry, shape_of, tool_folder_files};
use serde_json::json;

#[test]
fn the_shape_is_decided_by_top_level_keys() {
    assert_eq!(shape_of(&json!({"contract": 1})), FileShape::ToolFile);
    assert_eq!(
        shape_of(&json!({"contract": {}, "steps": []})),
        FileShape::ToolFile
    );
    assert_eq!(shape_of(&json!({"steps": []})), FileShape::Flow);
    assert_eq!(
        shape_of(&json!({"name": "x", "kind": "code"})),
        FileShape::Contract
    );
    assert_eq!(shape_of(&json!({"inputs": []})), FileShape::Contract);
    for stranger in [
        json!({"a": 1}),
        json!({}),
        json!({"name": "web", "version": "1.0.0", "description": "a package.json"}),
        json!([1, 2]),
        json!("text"),
        json!(null),
    ] {
        assert_eq!(shape_of(&stranger), FileShape::Stranger, "{stranger}");
    }
}

#[test]
fn strangers_are_set_apart_and_broken_tools_still_fail_naming_their_file() {
    let dir = tempfile::tempdir().unwrap();
    let put = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    put("settings.json", r#"{"a":1}"#);
    put("list.json", "[1, 2]");
    put("package.json", r#"{"name": "web", "version": "1.0.0"}"#);
    // Browserflow's, each with an error: not strangers.
    put(
        "broken-tool.json",
        r#"{"contract": {"name": 3}, "steps": []}"#,
    );
    put(
        "broken-contract.json",
        r#"{"name": "x", "version": "1.0.0", "kind": "nope"}"#,
    );
    put("half-written.json", r#"{"contract": {"#);

    let found = tool_folder_files(dir.path()).unwrap();
    let names = |paths: Vec<&std::path::Path>| -> Vec<String> {
        paths
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(
        names(found.strangers.iter().map(|s| s.path.as_path()).collect()),
        ["list.json", "package.json", "settings.json"]
    );
    assert_eq!(
        names(found.files.iter().map(|p| p.as_path()).collect()),
        [
            "broken-contract.json",
            "broken-tool.json",
            "half-written.json"
        ]
    );
    let settings = found
        .strangers
        .iter()
        .find(|s| s.path.ends_with("settings.json"))
        .unwrap()
        .to_string();
    assert!(settings.contains("settings.json"), "{settings}");
    assert!(
        settings.contains("not a tool, flow or contract"),
        "{settings}"
    );
    assert!(settings.contains("top-level keys `a`"), "{settings}");
    let list = found
        .strangers
        .iter()
        .find(|s| s.path.ends_with("list.json"))
        .unwrap()
        .to_string();
    assert!(list.contains("not a JSON object"), "{list}");

    let errors = Registry::new().load_files(&found.files).unwrap_err();
    for file in [
        "broken-contract.json",
        "broken-tool.json",
        "half-written.json",
    ] {
        assert!(
            errors
                .iter()
                .any(|d| d.file.as_deref().is_some_and(|f| f.ends_with(file))),
            "{file} is reported: {errors:?}"
        );
    }
}
