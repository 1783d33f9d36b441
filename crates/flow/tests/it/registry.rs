//! Filling the registry from files.

use std::path::Path;

use browserflow_contract::{Kind, ToolRef};
use browserflow_flow::Registry;
use serde_json::json;

use crate::support::*;

fn write(dir: &Path, name: &str, value: &serde_json::Value) {
    std::fs::write(dir.join(name), serde_json::to_string_pretty(value).unwrap()).unwrap();
}

#[test]
fn a_directory_holds_contracts_tool_files_and_flows_in_any_order() {
    let dir = tempfile::tempdir().unwrap();
    let base = registry();
    let fmt = base
        .get(&ToolRef::parse("format-name@1.0.0").unwrap())
        .unwrap()
        .contract
        .clone();
    let search = base
        .get(&ToolRef::parse("search-price@1.2.0").unwrap())
        .unwrap()
        .contract
        .clone();
    // The flow sorts first, so it is read before the tools it needs.
    let mut composite = flow(
        &base,
        json!([input("query", json!({"type": "string"}), false)]),
        json!([
            {"id": "search", "uses": "search-price@1.2.0", "with": {"query": {"from": "input.query"}}},
            {"id": "fmt", "uses": "format-name@1.0.0", "with": {"name": {"from": "steps.search.output.name"}}}
        ]),
        json!({"from": "steps.fmt.output"}),
    );
    composite["name"] = json!("a-named-search");
    write(dir.path(), "a-named-search.flow.json", &composite);
    write(dir.path(), "format-name.contract.json", &fmt.to_json());
    write(
        dir.path(),
        "search-price@1.2.0.json",
        &json!({"contract": search.to_json(), "steps": [{"navigate": "http://127.0.0.1/"}]}),
    );
    std::fs::write(dir.path().join("notes.txt"), "not json, not read").unwrap();

    let mut registry = Registry::new();
    assert_eq!(registry.load_dir(dir.path()).unwrap(), 3);
    let tool = registry
        .get(&ToolRef::parse("a-named-search@1.0.0").unwrap())
        .unwrap();
    assert_eq!(tool.contract.kind(), Kind::Composite);
    assert!(
        tool.source
            .as_deref()
            .unwrap()
            .ends_with("a-named-search.flow.json")
    );
    assert_eq!(registry.versions("format-name").len(), 1);
}

#[test]
fn bad_files_are_reported_by_file_and_the_rest_still_loads() {
    let dir = tempfile::tempdir().unwrap();
    let base = registry();
    let fmt = base
        .get(&ToolRef::parse("format-name@1.0.0").unwrap())
        .unwrap()
        .contract
        .clone();
    write(dir.path(), "good.json", &fmt.to_json());
    std::fs::write(dir.path().join("broken.json"), "{ not json").unwrap();
    let mut bad_contract = fmt.to_json();
    bad_contract["kind"] = json!("wizard");
    write(dir.path(), "weird.json", &bad_contract);
    write(dir.path(), "list.json", &json!([1, 2]));

    let mut registry = Registry::new();
    let errors = registry.load_dir(dir.path()).unwrap_err();
    let found: Vec<(&str, String, &str)> = errors
        .iter()
        .map(|d| {
            (
                d.code.as_str(),
                Path::new(d.file.as_deref().unwrap())
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
                d.pointer.as_str(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("invalid_json", "broken.json".to_owned(), ""),
            ("bad_file", "list.json".to_owned(), ""),
            ("unknown_variant", "weird.json".to_owned(), "/kind"),
        ]
    );
    assert_eq!(registry.len(), 1, "good.json still loaded");
    let line = errors.0[0].to_string();
    assert!(
        line.starts_with("[invalid_json] ") && line.contains("broken.json"),
        "{line}"
    );
}

#[test]
fn two_contracts_under_one_ref_are_a_duplicate_tool() {
    let dir = tempfile::tempdir().unwrap();
    let one = tool(
        "dup@1.0.0",
        "transform",
        &[],
        json!({"type": "string"}),
        &[],
    );
    let two = tool(
        "dup@1.0.0",
        "transform",
        &[],
        json!({"type": "number"}),
        &[],
    );
    write(dir.path(), "a.json", &one.to_json());
    write(dir.path(), "b.json", &two.to_json());
    write(dir.path(), "c.json", &one.to_json());
    let mut registry = Registry::new();
    let errors = registry.load_dir(dir.path()).unwrap_err();
    let d = only(&errors);
    assert_eq!(d.code.as_str(), "duplicate_tool");
    assert!(d.file.as_deref().unwrap().ends_with("b.json"));
    assert!(
        d.message
            .contains("`dup@1.0.0` is registered twice with different contracts"),
        "{}",
        d.message
    );
}

#[test]
fn a_flow_whose_tools_never_arrive_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let doc = json!({
        "name": "orphan", "version": "1.0.0",
        "requires": [{"ref": "gone@1.0.0", "contract_digest": format!("sha256:{}", "1".repeat(64))}],
        "steps": [{"id": "a", "uses": "gone@1.0.0"}],
        "output": {"from": "steps.a.output"}
    });
    write(dir.path(), "orphan.flow.json", &doc);
    let errors = Registry::new().load_dir(dir.path()).unwrap_err();
    assert_eq!(errors.codes(), ["unknown_tool"]);
    assert!(
        errors.0[0]
            .file
            .as_deref()
            .unwrap()
            .ends_with("orphan.flow.json")
    );
}

#[test]
fn a_missing_directory_is_a_bad_file() {
    let errors = Registry::new()
        .load_dir("/nonexistent/browserflow-tools")
        .unwrap_err();
    assert_eq!(errors.codes(), ["bad_file"]);
}
