use browserflow_contract::Rule;
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

fn problems_of(text: &str) -> Vec<(String, Rule)> {
    let err = ToolFile::from_json_str(text).unwrap_err();
    err.problems()
        .unwrap_or_else(|| panic!("problems expected: {err}"))
        .iter()
        .map(|p| (p.pointer.clone(), p.rule))
        .collect()
}

fn pairs(list: &[(&str, Rule)]) -> Vec<(String, Rule)> {
    list.iter().map(|(p, r)| (p.to_string(), *r)).collect()
}

#[test]
fn bad_tool_files_say_where() {
    let mut bad = search_price_file();
    bad["steps"][1]["selector"]["candidates"] = json!([]);
    let err = ToolFile::from_json_str(&bad.to_string()).unwrap_err();
    assert_eq!(
        problems_of(&bad.to_string()),
        pairs(&[("/steps/1", Rule::InvalidStep)])
    );
    assert!(err.to_string().contains("/steps/1"), "{err}");
    let mut bad = search_price_file();
    bad["extra"] = json!(1);
    let err = ToolFile::from_json_str(&bad.to_string()).unwrap_err();
    assert!(err.to_string().contains("unknown field `extra`"), "{err}");
    let mut bad = search_price_file();
    bad["contract"]["name"] = json!("Bad Name");
    assert_eq!(
        problems_of(&bad.to_string()),
        pairs(&[("/contract/name", Rule::InvalidName)])
    );
    assert_eq!(problems_of("[1]"), pairs(&[("", Rule::WrongType)]));
    assert_eq!(problems_of("{"), pairs(&[("", Rule::InvalidJson)]));
    assert_eq!(
        problems_of("{}"),
        pairs(&[("", Rule::MissingField), ("", Rule::MissingField)])
    );
}

#[test]
fn three_wrong_fields_are_three_problems() {
    let mut bad = search_price_file();
    bad["contract"]["version"] = json!(["1"]);
    bad["steps"][0]["url"] = json!(7);
    bad["steps"][1]["selector"]["candidates"][0]["kind"] = json!(["test_id"]);
    let err = ToolFile::from_json_str(&bad.to_string()).unwrap_err();
    assert_eq!(
        problems_of(&bad.to_string()),
        pairs(&[
            ("/contract/version", Rule::WrongType),
            ("/steps/0/url", Rule::WrongType),
            ("/steps/1/selector/candidates/0/kind", Rule::WrongType),
        ]),
        "{err}"
    );
    let text = err.to_string();
    assert!(text.starts_with("the tool file has 3 problems:"), "{text}");
    assert!(
        text.contains("/steps/0/url: expected a string, found the number 7"),
        "{text}"
    );
    assert!(
        text.contains("/steps/1/selector/candidates/0/kind: expected a string"),
        "{text}"
    );
}

#[test]
fn unknown_fields_anywhere_are_reported() {
    let mut bad = search_price_file();
    bad["contract"]["bar"] = json!(1);
    bad["steps"][0]["baz"] = json!(true);
    bad["steps"][1]["qux"] = json!(null);
    bad["steps"][1]["selector"]["candidates"][0]["deep"] = json!(1);
    bad["metadata"] = json!("not an object");
    bad["top"] = json!(0);
    assert_eq!(
        problems_of(&bad.to_string()),
        pairs(&[
            ("/contract/bar", Rule::UnknownField),
            ("/steps/0/baz", Rule::UnknownField),
            ("/steps/1/qux", Rule::UnknownField),
            ("/steps/1/selector/candidates/0/deep", Rule::UnknownField),
            ("/metadata", Rule::WrongType),
            ("/top", Rule::UnknownField),
        ])
    );
}

#[test]
fn steps_of_unknown_or_missing_type_are_located() {
    let mut bad = search_price_file();
    bad["steps"][0] = json!({"type": "teleport"});
    bad["steps"][1] = json!({"url": "x"});
    bad["steps"].as_array_mut().unwrap().push(json!(3));
    bad["steps"]
        .as_array_mut()
        .unwrap()
        .push(json!({"type": 3}));
    assert_eq!(
        problems_of(&bad.to_string()),
        pairs(&[
            ("/steps/0/type", Rule::UnknownVariant),
            ("/steps/1", Rule::MissingField),
            ("/steps/2", Rule::WrongType),
            ("/steps/3/type", Rule::WrongType),
        ])
    );
}

#[test]
fn a_repeated_key_is_refused_with_its_pointer() {
    let text = search_price_file().to_string().replacen(
        "\"kind\":\"browser\"",
        "\"kind\":\"browser\",\"kind\":\"code\"",
        1,
    );
    assert_eq!(
        problems_of(&text),
        pairs(&[("/contract/kind", Rule::DuplicateKey)])
    );
}

#[test]
fn files_are_read_bounded_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.json");
    std::fs::File::create(&path)
        .unwrap()
        .set_len(browserflow_contract::MAX_DOCUMENT_BYTES + 1)
        .unwrap();
    let err = ToolFile::load(&path).unwrap_err();
    assert!(matches!(err, ToolFileError::Unreadable(_)), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!("{}: is larger than the limit of 16 MiB", path.display())
    );
    let err = ToolFile::load(std::path::Path::new("/dev/zero")).unwrap_err();
    assert!(
        err.to_string().starts_with("/dev/zero: 1 problem:"),
        "{err}"
    );
    let mut bad = search_price_file();
    bad["steps"][0]["baz"] = json!(1);
    let path = dir.path().join("bad.json");
    std::fs::write(&path, bad.to_string()).unwrap();
    let err = ToolFile::load(&path).unwrap_err();
    assert!(
        err.to_string().starts_with(&format!(
            "{}: 1 problem:\n/steps/0/baz: unknown field `baz`",
            path.display()
        )),
        "{err}"
    );
}

#[test]
fn the_pretty_layout_is_serde_jsons_with_each_post_state_check_on_one_line() {
    let mut file = search_price_file();
    let text = ToolFile::from_json(&file).unwrap().to_json_pretty();
    let serde =
        serde_json::to_string_pretty(&ToolFile::from_json(&file).unwrap().to_json()).unwrap();
    assert_eq!(
        text,
        serde + "\n",
        "without checks the layout is serde_json's"
    );

    file["steps"][1]["expect"] = json!([
        { "state": "value", "equals": "{{query}}" },
        { "state": "text", "of": "focused", "changes": true }
    ]);
    let tool = ToolFile::from_json(&file).unwrap();
    let text = tool.to_json_pretty();
    assert!(
        text.contains(
            "      \"expect\": [\n        {\"state\": \"value\", \"equals\": \"{{query}}\"},\n        \
             {\"state\": \"text\", \"changes\": true, \"of\": \"focused\"}\n      ]"
        ),
        "{text}"
    );
    assert_eq!(ToolFile::from_json_str(&text).unwrap(), tool);
}

#[test]
fn a_check_that_cannot_be_checked_is_a_problem_at_its_step() {
    let mut file = search_price_file();
    file["steps"][1]["expect"] = json!([{ "state": "page", "equals": "x" }]);
    let problems = problems_of(&file.to_string());
    assert_eq!(problems, [("/steps/1".to_string(), Rule::InvalidStep)]);
    file["steps"][1]["expect"] = json!([{ "state": "colour", "equals": "x" }]);
    let problems = problems_of(&file.to_string());
    assert!(
        problems.iter().any(|(at, _)| at.starts_with("/steps/1")),
        "{problems:?}"
    );
}
