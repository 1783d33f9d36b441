//! Pins: unknown tools, digest mismatches, unpinned and doubly pinned tools.

use browserflow_flow::{FlowSpec, Registry, compile};
use serde_json::json;

use crate::support::*;

fn slugify(version: &str, output: serde_json::Value) -> browserflow_contract::ToolContract {
    tool(
        &format!("slugify@{version}"),
        "transform",
        &[("text", json!({"type": "string"}), false)],
        output,
        &[],
    )
}

fn slug_flow(reference: &str, digest: &str) -> serde_json::Value {
    json!({
        "name": "slugs", "version": "1.0.0",
        "inputs": [input("title", json!({"type": "string"}), false)],
        "requires": [{"ref": reference, "contract_digest": digest}],
        "steps": [{"id": "slug", "uses": reference, "with": {"text": {"from": "input.title"}}}],
        "output": {"from": "steps.slug.output"}
    })
}

#[test]
fn a_patch_release_that_changes_the_output_is_a_digest_mismatch() {
    // The spec's case: slugify 1.0.0 → 1.0.1 quietly changes its output schema.
    let old = slugify("1.0.0", json!({"type": "string"}));
    let pinned = old.contract_digest().to_string();
    let mut registry = Registry::new();
    registry.insert(old).unwrap();
    compile_ok(&slug_flow("slugify@1.0.0", &pinned), &registry);

    let new = slugify(
        "1.0.1",
        json!({"type": "array", "items": {"type": "string"}}),
    );
    let actual = new.contract_digest().to_string();
    let mut registry = Registry::new();
    registry.insert(new).unwrap();
    let errors = compile_err(&slug_flow("slugify@1.0.1", &pinned), &registry);
    assert_diag(
        only(&errors),
        "digest_mismatch",
        Some("slug"),
        None,
        "/requires/0/contract_digest",
        &[
            "`slugify@1.0.1` is pinned to",
            &pinned,
            &actual,
            "update the pin",
        ],
    );
}

#[test]
fn a_tool_missing_from_the_registry_is_unknown_and_names_known_versions() {
    let mut registry = Registry::new();
    registry
        .insert(slugify("1.0.0", json!({"type": "string"})))
        .unwrap();
    let digest = format!("sha256:{}", "a".repeat(64));
    let errors = compile_err(&slug_flow("slugify@2.0.0", &digest), &registry);
    assert_diag(
        only(&errors),
        "unknown_tool",
        Some("slug"),
        None,
        "/steps/0/uses",
        &["no tool `slugify@2.0.0`", "known versions: 1.0.0"],
    );
}

#[test]
fn an_unused_pin_of_an_unknown_tool_is_reported_at_the_pin() {
    let registry = registry();
    let mut doc = flow(&registry, json!([]), json!([]), json!({"value": 1}));
    doc["requires"] =
        json!([{"ref": "ghost@1.0.0", "contract_digest": format!("sha256:{}", "0".repeat(64))}]);
    let errors = compile_err(&doc, &registry);
    assert_diag(
        only(&errors),
        "unknown_tool",
        None,
        None,
        "/requires/0/ref",
        &["no version of `ghost` is known"],
    );
}

#[test]
fn a_step_without_a_pin_is_unpinned_and_the_message_gives_the_pin() {
    let registry = registry();
    let mut doc = flow(
        &registry,
        json!([input("name", json!({"type": "string"}), false)]),
        json!([{"id": "fmt", "uses": "format-name@1.0.0", "with": {"name": {"from": "input.name"}}}]),
        json!({"from": "steps.fmt.output"}),
    );
    doc["requires"] = json!([]);
    let errors = compile_err(&doc, &registry);
    let digest = pin(&registry, "format-name@1.0.0")["contract_digest"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_diag(
        only(&errors),
        "unpinned_tool",
        Some("fmt"),
        None,
        "/steps/0/uses",
        &["`format-name@1.0.0` is not pinned", &digest],
    );
}

#[test]
fn a_tool_pinned_twice_is_a_duplicate_require() {
    let registry = registry();
    let mut doc = flow(
        &registry,
        json!([input("name", json!({"type": "string"}), false)]),
        json!([{"id": "fmt", "uses": "format-name@1.0.0", "with": {"name": {"from": "input.name"}}}]),
        json!({"from": "steps.fmt.output"}),
    );
    let p = pin(&registry, "format-name@1.0.0");
    doc["requires"] = json!([p.clone(), p]);
    let errors = compile_err(&doc, &registry);
    assert_diag(
        only(&errors),
        "duplicate_require",
        None,
        None,
        "/requires/1/ref",
        &["pinned twice"],
    );
}

#[test]
fn every_problem_is_reported_at_once() {
    let registry = registry();
    let doc = json!({
        "name": "many", "version": "1.0.0",
        "steps": [
            {"id": "a", "uses": "nope@1.0.0"},
            {"id": "b", "uses": "format-name@1.0.0", "with": {"name": {"value": 3}}}
        ],
        "output": {"from": "steps.c.output"}
    });
    let errors = compile(&FlowSpec::from_json(&doc).unwrap(), &registry).unwrap_err();
    let codes = errors.codes();
    for code in [
        "unpinned_tool",
        "unknown_tool",
        "type_mismatch",
        "unknown_step",
    ] {
        assert!(codes.contains(&code), "{code} missing from {codes:?}");
    }
}
