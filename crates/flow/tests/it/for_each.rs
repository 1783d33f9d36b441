//! `for_each` steps: the item typed from the array's schema, checked against the tool's
//! inputs (bound with `item.…` or filled from the item's fields of the same name), and the
//! collected outputs typed as an array for later steps.

use browserflow_flow::{FlowSpec, OnItemError, Registry};
use serde_json::{Value, json};

use crate::support::*;

/// `registry()` plus a list tool and two detail tools:
/// - `search-list@1.0.0` (browser): {query} → {results: [{name, url, price: number|null}], count: integer}
/// - `detail@1.0.0` (browser): {url: string, lang: string = "en"} → {title: string, stock: integer}
/// - `detail-by-sku@1.0.0` (browser): {sku: string} → {title: string}
fn list_registry() -> Registry {
    let mut r = registry();
    let result = json!({"type": "object",
        "properties": {"name": {"type": "string"}, "url": {"type": "string"}, "price": {"type": ["number", "null"]}},
        "required": ["name", "price", "url"], "additionalProperties": false});
    for t in [
        tool(
            "search-list@1.0.0",
            "browser",
            &[("query", json!({"type": "string"}), false)],
            json!({"type": "object",
                   "properties": {"results": {"type": "array", "items": result}, "count": {"type": "integer"}},
                   "required": ["count", "results"], "additionalProperties": false}),
            &["browser"],
        ),
        tool(
            "detail@1.0.0",
            "browser",
            &[
                ("url", json!({"type": "string"}), false),
                ("lang", json!({"type": "string", "default": "en"}), false),
            ],
            json!({"type": "object",
                   "properties": {"title": {"type": "string"}, "stock": {"type": "integer"}},
                   "required": ["stock", "title"], "additionalProperties": false}),
            &["browser"],
        ),
        tool(
            "detail-by-sku@1.0.0",
            "browser",
            &[("sku", json!({"type": "string"}), false)],
            json!({"type": "object", "properties": {"title": {"type": "string"}},
                   "required": ["title"], "additionalProperties": false}),
            &["browser"],
        ),
    ] {
        r.insert(t).unwrap();
    }
    r
}

fn search() -> Value {
    json!({"id": "search", "uses": "search-list@1.0.0", "with": {"query": {"from": "input.query"}}})
}

fn doc(registry: &Registry, details: Value, output: Value) -> Value {
    flow(
        registry,
        json!([input("query", json!({"type": "string"}), false)]),
        json!([search(), details]),
        output,
    )
}

#[test]
fn an_unbound_slot_is_filled_from_the_items_field_and_the_outputs_are_an_array() {
    let r = list_registry();
    let d = doc(
        &r,
        json!({"id": "details", "uses": "detail@1.0.0", "for_each": "steps.search.output.results", "concurrency": 3}),
        json!({"from": "steps.details.output"}),
    );
    let plan = compile_ok(&d, &r);
    let step = plan.step("details").unwrap();
    let for_each = step.for_each.as_ref().unwrap();
    assert_eq!(for_each.concurrency, 3);
    assert_eq!(for_each.on_item_error, OnItemError::Fail);
    assert_eq!(step.depends_on, ["search"]);
    assert_eq!(
        step.bindings["url"].to_string(),
        "item.url",
        "filled from the item"
    );
    assert!(
        !step.bindings.contains_key("lang"),
        "the item has no `lang`"
    );
    assert_eq!(
        plan.output_schema.to_json(),
        json!({"type": "array", "items": {"type": "object",
            "properties": {"stock": {"type": "integer"}, "title": {"type": "string"}},
            "required": ["stock", "title"], "additionalProperties": false}})
    );
}

#[test]
fn bindings_read_the_item_and_a_later_step_wires_from_the_collected_outputs() {
    let r = list_registry();
    let mut d = doc(
        &r,
        json!({"id": "details", "uses": "detail@1.0.0", "for_each": "steps.search.output.results",
               "with": {"url": {"template": "{item.url}?from={input.query}"}, "lang": {"from": "item.name"}}}),
        json!({"from": "steps.fmt.output"}),
    );
    d["steps"].as_array_mut().unwrap().push(json!(
        {"id": "fmt", "uses": "format-name@1.0.0", "with": {"name": {"from": "steps.details.output.0.title"}}}
    ));
    d["requires"] = json!([
        pin(&r, "search-list@1.0.0"),
        pin(&r, "detail@1.0.0"),
        pin(&r, "format-name@1.0.0")
    ]);
    let errors = compile_err(&d, &r);
    // `.0` of an array may be absent: null does not fit `name` (string).
    assert_diag(
        only(&errors),
        "type_mismatch",
        Some("fmt"),
        Some("name"),
        "/steps/2/with/name",
        &["steps.details.output.0.title"],
    );
}

#[test]
fn a_for_each_that_is_not_an_array_names_the_step_and_the_type() {
    let r = list_registry();
    let d = doc(
        &r,
        json!({"id": "details", "uses": "detail@1.0.0", "for_each": "steps.search.output.count"}),
        json!({"from": "steps.details.output"}),
    );
    let errors = compile_err(&d, &r);
    let d0 = errors
        .0
        .iter()
        .find(|d| d.code.as_str() == "bad_for_each")
        .unwrap_or_else(|| panic!("{errors}"));
    assert_diag(
        d0,
        "bad_for_each",
        Some("details"),
        None,
        "/steps/1/for_each",
        &[
            "`for_each` of step `details`",
            "`steps.search.output.count` is integer, not an array",
        ],
    );
}

#[test]
fn a_for_each_over_an_unknown_step_is_an_unknown_step() {
    let r = list_registry();
    let d = doc(
        &r,
        json!({"id": "details", "uses": "detail@1.0.0", "for_each": "steps.serch.output.results"}),
        json!({"from": "steps.details.output"}),
    );
    let errors = compile_err(&d, &r);
    assert_diag(
        &errors.0[0],
        "unknown_step",
        Some("details"),
        None,
        "/steps/1/for_each",
        &["the flow has no step `serch`"],
    );
}

#[test]
fn an_item_without_a_required_input_field_names_the_step_and_the_field() {
    let r = list_registry();
    let d = doc(
        &r,
        json!({"id": "details", "uses": "detail-by-sku@1.0.0", "for_each": "steps.search.output.results"}),
        json!({"from": "steps.details.output"}),
    );
    let errors = compile_err(&d, &r);
    assert_diag(
        only(&errors),
        "missing_input",
        Some("details"),
        Some("sku"),
        "/steps/1/for_each",
        &[
            "step `details`",
            "have no field `sku`",
            "`detail-by-sku@1.0.0` needs",
        ],
    );
}

#[test]
fn an_item_field_that_does_not_exist_or_has_the_wrong_type_is_reported_at_its_slot() {
    let r = list_registry();
    let d = doc(
        &r,
        json!({"id": "details", "uses": "detail@1.0.0", "for_each": "steps.search.output.results",
               "with": {"url": {"from": "item.link"}, "lang": {"from": "item.price"}}}),
        json!({"from": "steps.details.output"}),
    );
    let errors = compile_err(&d, &r);
    assert_eq!(errors.codes(), ["type_mismatch", "bad_path"], "{errors}");
    let bad_path = errors
        .0
        .iter()
        .find(|d| d.code.as_str() == "bad_path")
        .unwrap();
    assert_diag(
        bad_path,
        "bad_path",
        Some("details"),
        Some("url"),
        "/steps/1/with/url",
        &["`item.link`", "has no property `link`"],
    );
}

#[test]
fn item_outside_the_bindings_of_a_for_each_step_is_refused() {
    let r = list_registry();
    // In a step without for_each.
    let d = doc(
        &r,
        json!({"id": "details", "uses": "detail@1.0.0", "with": {"url": {"from": "item.url"}}}),
        json!({"from": "steps.details.output"}),
    );
    let errors = compile_err(&d, &r);
    assert_diag(
        only(&errors),
        "bad_for_each",
        Some("details"),
        Some("url"),
        "/steps/1/with/url",
        &["`item.url`", "only in the `with` of a step with `for_each`"],
    );
    // In the `when` of a for_each step.
    let d = doc(
        &r,
        json!({"id": "details", "uses": "detail@1.0.0", "for_each": "steps.search.output.results",
               "when": "item.price > 3"}),
        json!({"from": "steps.details.output"}),
    );
    let errors = compile_err(&d, &r);
    assert!(errors.codes().contains(&"bad_for_each"), "{errors}");
}

#[test]
fn collect_types_each_entry_as_an_output_or_an_error() {
    let r = list_registry();
    let d = doc(
        &r,
        json!({"id": "details", "uses": "detail-by-sku@1.0.0", "for_each": "steps.search.output.results",
               "on_item_error": "collect", "with": {"sku": {"from": "item.name"}}}),
        json!({"from": "steps.details.output.0.error.kind"}),
    );
    let plan = compile_ok(&d, &r);
    let kinds = plan.output_schema.to_json();
    // `.0` may be absent, and so may `error`: null is admitted too.
    assert_eq!(
        kinds["enum"],
        json!([
            "tool_failed",
            "invalid_input",
            "invalid_output",
            "evaluation",
            null
        ]),
        "{kinds}"
    );
    let out = doc(
        &r,
        json!({"id": "details", "uses": "detail-by-sku@1.0.0", "for_each": "steps.search.output.results",
               "on_item_error": "collect", "with": {"sku": {"from": "item.name"}}}),
        json!({"from": "steps.details.output.1.output.title"}),
    );
    let plan = compile_ok(&out, &r);
    assert_eq!(
        plan.output_schema.to_json(),
        json!({"type": ["null", "string"]})
    );
}

#[test]
fn concurrency_and_on_item_error_are_read_strictly_and_round_trip() {
    let r = list_registry();
    let bad = |step: Value| {
        FlowSpec::from_json(&doc(&r, step, json!({"from": "steps.details.output"}))).unwrap_err()
    };
    let e = bad(json!({"id": "details", "uses": "detail@1.0.0", "concurrency": 2}));
    assert_eq!(e.codes(), ["bad_for_each"], "{e}");
    assert_eq!(e.0[0].pointer, "/steps/1/concurrency");
    let e = bad(json!({"id": "details", "uses": "detail@1.0.0",
                       "for_each": "steps.search.output.results", "concurrency": 0}));
    assert_eq!(e.codes(), ["wrong_type"], "{e}");
    assert!(e.0[0].message.contains("from 1 to 64"), "{e}");
    let e = bad(json!({"id": "details", "uses": "detail@1.0.0",
                       "for_each": "steps.search.output.results", "on_item_error": "skip"}));
    assert_eq!(e.codes(), ["wrong_type"], "{e}");
    assert!(e.0[0].message.contains("\"fail\" or \"collect\""), "{e}");

    let d = doc(
        &r,
        json!({"id": "details", "uses": "detail@1.0.0", "for_each": "steps.search.output.results",
               "on_item_error": "collect"}),
        json!({"from": "steps.details.output"}),
    );
    let spec = parse(&d);
    let again = FlowSpec::from_json(&spec.to_json()).unwrap();
    assert_eq!(again, spec);
    assert_eq!(spec.to_json()["steps"][1]["concurrency"], 1);
}
