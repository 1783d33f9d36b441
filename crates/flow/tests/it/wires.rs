//! Wires: types, slots, references, paths, cycles, conditional sources.

use serde_json::json;

use crate::support::*;

#[test]
fn a_number_wired_into_a_string_slot_is_a_type_mismatch() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([input("query", json!({"type": "string"}), false)]),
        json!([
            {"id": "search", "uses": "search-price@1.2.0", "with": {"query": {"from": "input.query"}}},
            {"id": "fmt", "uses": "format-name@1.0.0", "with": {"name": {"from": "steps.search.output.price"}}}
        ]),
        json!({"from": "steps.fmt.output"}),
    );
    let errors = compile_err(&doc, &registry);
    assert_diag(
        only(&errors),
        "type_mismatch",
        Some("fmt"),
        Some("name"),
        "/steps/1/with/name",
        &[
            "`steps.search.output.price` (number) does not fit slot `name` of `format-name@1.0.0` (string)",
            "number is not assignable to string",
        ],
    );
}

#[test]
fn a_mismatch_inside_an_object_names_the_path() {
    let registry = registry();
    let mut r = registry.clone();
    r.insert(tool(
        "wants-text-price@1.0.0",
        "transform",
        &[("item", json!({"type": "object", "properties": {"price": {"type": "string"}}, "required": ["price"]}), false)],
        json!({"type": "string"}),
        &[],
    ))
    .unwrap();
    let doc = flow(
        &r,
        json!([input("query", json!({"type": "string"}), false)]),
        json!([
            {"id": "search", "uses": "search-price@1.2.0", "with": {"query": {"from": "input.query"}}},
            {"id": "use", "uses": "wants-text-price@1.0.0", "with": {"item": {"from": "steps.search.output"}}}
        ]),
        json!({"from": "steps.use.output"}),
    );
    let errors = compile_err(&doc, &r);
    assert_diag(
        only(&errors),
        "type_mismatch",
        Some("use"),
        Some("item"),
        "/steps/1/with/item",
        &["price: number is not assignable to string"],
    );
}

#[test]
fn a_literal_that_does_not_match_its_slot_is_a_type_mismatch() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([]),
        json!([{"id": "fmt", "uses": "format-name@1.0.0", "with": {"name": {"value": 42}}}]),
        json!({"from": "steps.fmt.output"}),
    );
    let errors = compile_err(&doc, &registry);
    assert_diag(
        only(&errors),
        "type_mismatch",
        Some("fmt"),
        Some("name"),
        "/steps/0/with/name",
        &["the literal 42 does not fit slot `name`", "(string)"],
    );
}

#[test]
fn an_unbound_required_slot_is_a_missing_input() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([]),
        json!([{"id": "alert", "uses": "price-alert@1.0.0", "with": {"price": {"value": 10}}}]),
        json!({"from": "steps.alert.output"}),
    );
    let errors = compile_err(&doc, &registry);
    assert_diag(
        only(&errors),
        "missing_input",
        Some("alert"),
        Some("threshold"),
        "/steps/0/with",
        &["`price-alert@1.0.0` needs its input `threshold` (number)"],
    );
}

#[test]
fn a_slot_with_a_default_may_stay_unbound() {
    let mut registry = registry();
    registry
        .insert(tool(
            "greet@1.0.0",
            "transform",
            &[("name", json!({"type": "string", "default": "world"}), false)],
            json!({"type": "string"}),
            &[],
        ))
        .unwrap();
    let doc = flow(
        &registry,
        json!([]),
        json!([{"id": "g", "uses": "greet@1.0.0"}]),
        json!({"from": "steps.g.output"}),
    );
    let plan = compile_ok(&doc, &registry);
    let inputs = plan.steps[0]
        .evaluate_inputs(&browserflow_flow::Scope::new())
        .unwrap();
    assert_eq!(
        inputs["name"],
        browserflow_flow::Bound::Value(json!("world"))
    );
}

#[test]
fn a_binding_for_an_undeclared_slot_is_an_unknown_slot() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([]),
        json!([{"id": "fmt", "uses": "format-name@1.0.0", "with": {"name": {"value": "x"}, "nmae": {"value": "y"}}}]),
        json!({"from": "steps.fmt.output"}),
    );
    let errors = compile_err(&doc, &registry);
    assert_diag(
        only(&errors),
        "unknown_slot",
        Some("fmt"),
        Some("nmae"),
        "/steps/0/with/nmae",
        &["`format-name@1.0.0` has no input slot `nmae` (slots: name)"],
    );
}

#[test]
fn a_reference_to_a_missing_step_is_an_unknown_step() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([]),
        json!([{"id": "fmt", "uses": "format-name@1.0.0", "with": {"name": {"from": "steps.serch.output.name"}}}]),
        json!({"from": "steps.fmt.output"}),
    );
    let errors = compile_err(&doc, &registry);
    assert_diag(
        only(&errors),
        "unknown_step",
        Some("fmt"),
        Some("name"),
        "/steps/0/with/name",
        &["the flow has no step `serch` (steps: fmt)"],
    );
}

#[test]
fn a_reference_to_a_missing_flow_input_is_an_unknown_input() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([input("query", json!({"type": "string"}), false)]),
        json!([{"id": "fmt", "uses": "format-name@1.0.0", "with": {"name": {"template": "name: {input.qeury}"}}}]),
        json!({"from": "steps.fmt.output"}),
    );
    let errors = compile_err(&doc, &registry);
    assert_diag(
        only(&errors),
        "unknown_input",
        Some("fmt"),
        Some("name"),
        "/steps/0/with/name",
        &["the flow has no input `qeury` (inputs: query)"],
    );
}

#[test]
fn a_path_to_a_missing_property_is_a_bad_path() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([input("query", json!({"type": "string"}), false)]),
        json!([
            {"id": "search", "uses": "search-price@1.2.0", "with": {"query": {"from": "input.query"}}},
            {"id": "fmt", "uses": "format-name@1.0.0", "with": {"name": {"from": "steps.search.output.title"}}}
        ]),
        json!({"from": "steps.fmt.output"}),
    );
    let errors = compile_err(&doc, &registry);
    assert_diag(
        only(&errors),
        "bad_path",
        Some("fmt"),
        Some("name"),
        "/steps/1/with/name",
        &[
            "the output of step `search` (search-price@1.2.0) has no property `title` (properties: currency, name, price)",
        ],
    );
}

#[test]
fn a_path_into_a_scalar_is_a_bad_path() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([input("query", json!({"type": "string"}), false)]),
        json!([
            {"id": "search", "uses": "search-price@1.2.0", "with": {"query": {"from": "input.query"}}},
            {"id": "fmt", "uses": "format-name@1.0.0", "with": {"name": {"from": "steps.search.output.name.first"}}}
        ]),
        json!({"from": "steps.fmt.output"}),
    );
    let errors = compile_err(&doc, &registry);
    assert_diag(
        only(&errors),
        "bad_path",
        Some("fmt"),
        Some("name"),
        "/steps/1/with/name",
        &["`steps.search.output.name` is string and has no member `first`"],
    );
}

#[test]
fn an_optional_property_reads_as_nullable() {
    let mut registry = registry();
    registry
        .insert(tool(
            "lookup@1.0.0",
            "transform",
            &[],
            json!({"type": "object", "properties": {"nick": {"type": "string"}}, "additionalProperties": false}),
            &[],
        ))
        .unwrap();
    let doc = flow(
        &registry,
        json!([]),
        json!([
            {"id": "look", "uses": "lookup@1.0.0"},
            {"id": "fmt", "uses": "format-name@1.0.0", "with": {"name": {"from": "steps.look.output.nick"}}}
        ]),
        json!({"from": "steps.fmt.output"}),
    );
    let errors = compile_err(&doc, &registry);
    assert_diag(
        only(&errors),
        "type_mismatch",
        Some("fmt"),
        Some("name"),
        "/steps/1/with/name",
        &["null is not assignable to string"],
    );
}

#[test]
fn steps_that_read_each_other_are_a_cycle() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([]),
        json!([
            {"id": "a", "uses": "format-name@1.0.0", "with": {"name": {"from": "steps.b.output"}}},
            {"id": "b", "uses": "format-name@1.0.0", "with": {"name": {"from": "steps.a.output"}}},
            {"id": "c", "uses": "format-name@1.0.0", "with": {"name": {"from": "steps.b.output"}}}
        ]),
        json!({"from": "steps.c.output"}),
    );
    let errors = compile_err(&doc, &registry);
    assert_diag(
        only(&errors),
        "cycle",
        Some("a"),
        None,
        "/steps/0/with/name",
        &["steps depend on each other in a loop: a → b → a"],
    );
}

#[test]
fn a_step_reading_itself_is_a_cycle() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([]),
        json!([{"id": "a", "uses": "format-name@1.0.0", "with": {"name": {"from": "steps.a.output"}}}]),
        json!({"from": "steps.a.output"}),
    );
    let errors = compile_err(&doc, &registry);
    assert_diag(
        only(&errors),
        "cycle",
        Some("a"),
        None,
        "/steps/0/with/name",
        &["a → a"],
    );
}

#[test]
fn steps_are_ordered_by_their_wires_and_keep_the_authors_order_otherwise() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([input("query", json!({"type": "string"}), false)]),
        json!([
            {"id": "fmt", "uses": "format-name@1.0.0", "with": {"name": {"from": "steps.search.output.name"}}},
            {"id": "other", "uses": "format-name@1.0.0", "with": {"name": {"value": "x"}}},
            {"id": "search", "uses": "search-price@1.2.0", "with": {"query": {"from": "input.query"}}}
        ]),
        json!({"from": "steps.fmt.output"}),
    );
    let plan = compile_ok(&doc, &registry);
    let order: Vec<&str> = plan.steps.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(order, ["other", "search", "fmt"]);
    assert_eq!(plan.step("fmt").unwrap().depends_on, ["search"]);
    assert_eq!(plan.output_schema, browserflow_contract::Schema::string());
}

#[test]
fn an_unconditional_step_reading_a_conditional_one_must_accept_null() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([
            input("query", json!({"type": "string"}), false),
            input("go", json!({"type": "boolean"}), false)
        ]),
        json!([
            {"id": "search", "uses": "search-price@1.2.0", "when": "input.go", "with": {"query": {"from": "input.query"}}},
            {"id": "fmt", "uses": "format-name@1.0.0", "with": {"name": {"from": "steps.search.output.name"}}}
        ]),
        json!({"from": "steps.fmt.output"}),
    );
    let errors = compile_err(&doc, &registry);
    assert_diag(
        only(&errors),
        "skipped_input",
        Some("fmt"),
        Some("name"),
        "/steps/1/with/name",
        &[
            "reads step `search`, which is conditional",
            "give step `fmt` a `when` condition too",
        ],
    );

    // Either a nullable slot…
    let mut nullable = doc.clone();
    nullable["steps"][1] = json!({"id": "fmt", "uses": "maybe@1.0.0", "with": {"value": {"from": "steps.search.output.name"}}});
    nullable["requires"] =
        flow(&registry, json!([]), nullable["steps"].clone(), json!(null))["requires"].clone();
    compile_ok(&nullable, &registry);
    // …or a conditional step.
    let mut guarded = doc.clone();
    guarded["steps"][1]["when"] = json!("input.go");
    let plan = compile_ok(&guarded, &registry);
    // The flow output reads the conditional step: its type admits null.
    assert!(
        plan.output_schema.describe().contains("null"),
        "{}",
        plan.output_schema.describe()
    );
}

#[test]
fn a_template_must_not_interpolate_objects() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([input("query", json!({"type": "string"}), false)]),
        json!([
            {"id": "search", "uses": "search-price@1.2.0", "with": {"query": {"from": "input.query"}}},
            {"id": "fmt", "uses": "format-name@1.0.0", "with": {"name": {"template": "got {steps.search.output}"}}}
        ]),
        json!({"from": "steps.fmt.output"}),
    );
    let errors = compile_err(&doc, &registry);
    assert_diag(
        only(&errors),
        "type_mismatch",
        Some("fmt"),
        Some("name"),
        "/steps/1/with/name",
        &["`steps.search.output` (object) cannot be put into text"],
    );
}

#[test]
fn a_template_of_scalars_is_a_string() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([input("query", json!({"type": "string"}), false)]),
        json!([
            {"id": "search", "uses": "search-price@1.2.0", "with": {"query": {"from": "input.query"}}},
            {"id": "fmt", "uses": "format-name@1.0.0",
             "with": {"name": {"template": "{steps.search.output.name} costs {steps.search.output.price} {{sic}}"}}}
        ]),
        json!({"from": "steps.fmt.output"}),
    );
    compile_ok(&doc, &registry);
}

#[test]
fn duplicate_and_malformed_ids_are_reported() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([
            input("q", json!({"type": "string"}), false),
            input("q", json!({"type": "string"}), false),
            input("a b", json!({"type": "string"}), false)
        ]),
        json!([
            {"id": "x", "uses": "format-name@1.0.0", "with": {"name": {"value": "1"}}},
            {"id": "x", "uses": "format-name@1.0.0", "with": {"name": {"value": "2"}}},
            {"id": "9lives", "uses": "format-name@1.0.0", "with": {"name": {"value": "3"}}}
        ]),
        json!({"value": null}),
    );
    let errors = compile_err(&doc, &registry);
    assert_eq!(
        errors.codes(),
        [
            "duplicate_input",
            "invalid_id",
            "duplicate_step",
            "invalid_id"
        ]
    );
    assert_eq!(errors.0[0].pointer, "/inputs/1/name");
    assert_eq!(errors.0[2].pointer, "/steps/1/id");
    assert_eq!(errors.0[3].pointer, "/steps/2/id");
}
