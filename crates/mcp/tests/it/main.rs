//! What `Served::load` makes of folders, without a client or a browser: names, schemas,
//! `_meta`, secret bindings, and what stops the start. The server end to end, through a real
//! MCP client, is tested by the CLI (`crates/cli/tests/it/mcp.rs`).

// A panic is how a test fails.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use browserflow_catalog::RunSetup;
use browserflow_mcp::{ServeError, Served, Sources};
use serde_json::{Value, json};

/// The shipped search-price tool file with `edit` applied, written into `dir` as `file`.
fn tool_in(dir: &Path, file: &str, edit: impl FnOnce(&mut Value)) -> Value {
    let shipped =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../recordings/search-price@1.2.0.json");
    let mut tool: Value = serde_json::from_str(&std::fs::read_to_string(shipped).unwrap()).unwrap();
    edit(&mut tool);
    std::fs::write(dir.join(file), serde_json::to_string_pretty(&tool).unwrap()).unwrap();
    tool
}

fn load(dir: &Path, secrets: &[(&str, &str)]) -> Result<Served, ServeError> {
    let sources = Sources {
        dirs: vec![dir.to_path_buf()],
        // No pack store: only what the folder holds.
        store: Some(dir.join("no-store")),
        secrets: secrets
            .iter()
            .map(|(slot, name)| ((*slot).to_owned(), (*name).to_owned()))
            .collect(),
        ..Sources::default()
    };
    Served::load(&sources, &RunSetup::default())
}

#[test]
fn a_tool_is_served_under_its_derived_name_with_its_contract_schemas_and_meta() {
    let dir = tempfile::tempdir().unwrap();
    let file = tool_in(dir.path(), "search-price@1.2.0.json", |_| {});
    let served = load(dir.path(), &[]).unwrap();
    assert_eq!(served.tools.len(), 1);
    let tool = &served.tools[0];
    let contract = browserflow_contract::ToolContract::from_json(&file["contract"]).unwrap();
    assert_eq!(tool.mcp_name, "search_price_v1_2_0");
    assert_eq!(tool.input_schema, contract.input_schema().to_json());
    assert_eq!(tool.output_schema, contract.output().to_json());
    assert!(!tool.wrapped);
    let meta = Value::Object(tool.meta());
    assert_eq!(
        meta,
        json!({
            "browserflow/ref": "search-price@1.2.0",
            "browserflow/version": "1.2.0",
            "browserflow/contract_digest": contract.contract_digest().to_string(),
            "browserflow/kind": "browser",
        })
    );
    assert!(served.get("search_price_v1_2_0").is_some());
    assert!(served.get("search-price@1.2.0").is_none());
}

#[test]
fn tools_and_flows_are_listed_in_name_order_and_an_output_that_is_no_object_is_wrapped() {
    let dir = tempfile::tempdir().unwrap();
    let tool = tool_in(dir.path(), "search-price@1.2.0.json", |_| {});
    let digest = browserflow_contract::ToolContract::from_json(&tool["contract"])
        .unwrap()
        .contract_digest()
        .to_string();
    let flow = json!({
        "name": "alpha-price", "version": "2.0.0",
        "description": "The first result's price, a number.",
        "inputs": [{ "name": "query", "schema": { "type": "string" }, "secret": false }],
        "requires": [{ "ref": "search-price@1.2.0", "contract_digest": digest }],
        "steps": [{ "id": "search", "uses": "search-price@1.2.0",
                    "with": { "query": { "from": "input.query" } } }],
        "output": { "from": "steps.search.output.price" }
    });
    std::fs::write(
        dir.path().join("alpha-price.flow.json"),
        serde_json::to_string_pretty(&flow).unwrap(),
    )
    .unwrap();
    let served = load(dir.path(), &[]).unwrap();
    let names: Vec<&str> = served.tools.iter().map(|t| t.mcp_name.as_str()).collect();
    assert_eq!(names, ["alpha_price_v2_0_0", "search_price_v1_2_0"]);
    let alpha = &served.tools[0];
    assert_eq!(alpha.reference, "alpha-price@2.0.0");
    assert_eq!(alpha.meta()["browserflow/kind"], "composite");
    assert!(alpha.wrapped);
    assert_eq!(
        alpha.output_schema,
        json!({
            "type": "object", "additionalProperties": false,
            "properties": { "result": { "type": "number" } }, "required": ["result"]
        })
    );
}

#[test]
fn a_secret_slot_is_left_out_of_the_schema_and_must_be_set_at_start() {
    let dir = tempfile::tempdir().unwrap();
    tool_in(dir.path(), "guarded@1.0.0.json", |t| {
        t["contract"]["name"] = json!("guarded");
        t["contract"]["version"] = json!("1.0.0");
        t["contract"]["inputs"][0]["secret"] = json!(true);
        t["contract"]["capabilities"] = json!(["browser", "secrets"]);
    });
    // Bound to a secret nobody sets: the start is refused, naming the tool and the variable.
    let refused = load(dir.path(), &[("query", "BFLOW_MCP_TEST_UNSET")]).unwrap_err();
    let said = refused.to_string();
    assert!(
        matches!(refused, ServeError::MissingSecrets { .. }),
        "{said}"
    );
    assert!(
        said.contains("guarded@1.0.0") && said.contains("BROWSERFLOW_SECRET_BFLOW_MCP_TEST_UNSET"),
        "{said}"
    );
    // The default binding is the slot's name in upper case.
    let said = load(dir.path(), &[]).unwrap_err().to_string();
    assert!(said.contains("BROWSERFLOW_SECRET_QUERY"), "{said}");
}

#[test]
fn two_refs_on_one_name_stop_the_start_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["a-b", "a.b"] {
        tool_in(dir.path(), &format!("{name}@1.0.0.json"), |t| {
            t["contract"]["name"] = json!(name);
            t["contract"]["version"] = json!("1.0.0");
        });
    }
    let refused = load(dir.path(), &[]).unwrap_err();
    let said = refused.to_string();
    assert!(matches!(refused, ServeError::Collision { .. }), "{said}");
    assert!(
        said.contains("`a_b_v1_0_0`") && said.contains("a-b@1.0.0") && said.contains("a.b@1.0.0"),
        "{said}"
    );
}
