//! The secret boundary.

use browserflow_contract::Capability;
use serde_json::json;

use crate::support::*;

#[test]
fn a_secret_into_an_http_slot_is_accepted_and_adds_secrets() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([]),
        json!([{"id": "post", "uses": "http.post@1.0.0",
                "with": {"url": {"from": "secret.WEBHOOK_URL"}, "body": {"value": "hi"}}}]),
        json!({"from": "steps.post.output.status"}),
    );
    let plan = compile_ok(&doc, &registry);
    let step = &plan.steps[0];
    assert_eq!(
        step.contract.capabilities(),
        [Capability::Net],
        "the registry contract is unchanged"
    );
    assert_eq!(
        step.effective_capabilities,
        [Capability::Net, Capability::Secrets]
    );
    assert_eq!(step.secret_slots, ["url"]);
    assert_eq!(plan.capabilities, [Capability::Net, Capability::Secrets]);
    assert_eq!(
        plan.secret_names().into_iter().collect::<Vec<_>>(),
        ["WEBHOOK_URL"]
    );
}

#[test]
fn an_http_step_with_no_secret_bound_is_net_only() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([]),
        json!([{"id": "post", "uses": "http.post@1.0.0",
                "with": {"url": {"value": "http://127.0.0.1:1/hook"}, "body": {"value": "hi"}}}]),
        json!({"from": "steps.post.output.status"}),
    );
    let plan = compile_ok(&doc, &registry);
    assert_eq!(plan.steps[0].effective_capabilities, [Capability::Net]);
    assert!(plan.steps[0].secret_slots.is_empty());
}

#[test]
fn a_template_with_a_secret_is_secret_bearing() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([]),
        json!([{"id": "post", "uses": "http.post@1.0.0",
                "with": {"url": {"value": "http://127.0.0.1:1/hook"}, "body": {"template": "token={secret.API_TOKEN}"}}}]),
        json!({"value": true}),
    );
    let plan = compile_ok(&doc, &registry);
    assert_eq!(plan.steps[0].secret_slots, ["body"]);
    assert!(plan.steps[0].has(Capability::Secrets));
}

#[test]
fn a_secret_into_a_transform_is_a_secret_leak() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([]),
        json!([{"id": "fmt", "uses": "format-name@1.0.0", "with": {"name": {"from": "secret.WEBHOOK_URL"}}}]),
        json!({"from": "steps.fmt.output"}),
    );
    let errors = compile_err(&doc, &registry);
    assert_diag(
        only(&errors),
        "secret_leak",
        Some("fmt"),
        Some("name"),
        "/steps/0/with/name",
        &[
            "carries the secret `secret.WEBHOOK_URL` into slot `name` of `format-name@1.0.0` (transform tool), which is not `secret: true`",
        ],
    );
}

#[test]
fn a_value_derived_from_a_secret_into_a_transform_is_a_secret_leak() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([]),
        json!([{"id": "fmt", "uses": "format-name@1.0.0", "with": {"name": {"template": "Bearer {secret.TOKEN}"}}}]),
        json!({"from": "steps.fmt.output"}),
    );
    let errors = compile_err(&doc, &registry);
    assert_diag(
        only(&errors),
        "secret_leak",
        Some("fmt"),
        Some("name"),
        "/steps/0/with/name",
        &["`Bearer {secret.TOKEN}` carries the secret `secret.TOKEN`"],
    );
}

#[test]
fn a_secret_bound_to_a_non_secret_slot_of_a_secrets_tool_is_a_leak() {
    let mut registry = registry();
    registry
        .insert(tool(
            "vault-put@1.0.0",
            "code",
            &[
                ("token", json!({"type": "string"}), true),
                ("note", json!({"type": "string"}), false),
            ],
            json!({"type": "null"}),
            &["secrets"],
        ))
        .unwrap();
    let doc = flow(
        &registry,
        json!([]),
        json!([{"id": "put", "uses": "vault-put@1.0.0",
                "with": {"token": {"from": "secret.A"}, "note": {"from": "secret.B"}}}]),
        json!({"value": null}),
    );
    let errors = compile_err(&doc, &registry);
    assert_diag(
        only(&errors),
        "secret_leak",
        Some("put"),
        Some("note"),
        "/steps/0/with/note",
        &["`secret.B`", "not `secret: true`"],
    );
}

#[test]
fn a_secret_slot_of_a_tool_without_secrets_is_a_leak() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([]),
        json!([{"id": "l", "uses": "leaky@1.0.0", "with": {"token": {"from": "secret.TOKEN"}}}]),
        json!({"from": "steps.l.output"}),
    );
    let errors = compile_err(&doc, &registry);
    assert_diag(
        only(&errors),
        "secret_leak",
        Some("l"),
        Some("token"),
        "/steps/0/with/token",
        &["lacks the `secrets` capability"],
    );
}

#[test]
fn a_secret_slot_bound_to_a_plain_value_is_secret_expected() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([input("token", json!({"type": "string"}), false)]),
        json!([
            {"id": "v1", "uses": "vault-fetch@1.0.0", "with": {"token": {"from": "input.token"}}},
            {"id": "v2", "uses": "vault-fetch@1.0.0", "with": {"token": {"value": "hunter2"}}}
        ]),
        json!({"from": "steps.v1.output"}),
    );
    let errors = compile_err(&doc, &registry);
    assert_eq!(errors.codes(), ["secret_expected", "secret_expected"]);
    assert_diag(
        &errors.0[0],
        "secret_expected",
        Some("v1"),
        Some("token"),
        "/steps/0/with/token",
        &["`input.token` is a plain value"],
    );
    assert_diag(
        &errors.0[1],
        "secret_expected",
        Some("v2"),
        Some("token"),
        "/steps/1/with/token",
        &["never a literal"],
    );
}

#[test]
fn a_secret_slot_of_a_secrets_tool_takes_a_secret() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([]),
        json!([{"id": "v", "uses": "vault-fetch@1.0.0", "with": {"token": {"from": "secret.TOKEN"}}}]),
        json!({"from": "steps.v.output"}),
    );
    let plan = compile_ok(&doc, &registry);
    assert_eq!(plan.steps[0].secret_slots, ["token"]);
    assert_eq!(plan.capabilities, [Capability::Secrets]);
}

#[test]
fn a_secret_flow_input_follows_the_same_rules() {
    let registry = registry();
    let ok = flow(
        &registry,
        json!([input("token", json!({"type": "string"}), true)]),
        json!([{"id": "v", "uses": "vault-fetch@1.0.0", "with": {"token": {"from": "input.token"}}}]),
        json!({"from": "steps.v.output"}),
    );
    compile_ok(&ok, &registry);
    let leak = flow(
        &registry,
        json!([input("token", json!({"type": "string"}), true)]),
        json!([{"id": "f", "uses": "format-name@1.0.0", "with": {"name": {"from": "input.token"}}}]),
        json!({"from": "steps.f.output"}),
    );
    let errors = compile_err(&leak, &registry);
    assert_diag(
        only(&errors),
        "secret_leak",
        Some("f"),
        Some("name"),
        "/steps/0/with/name",
        &["carries the secret `input.token`"],
    );
}

#[test]
fn a_secret_as_the_flow_output_is_a_leak() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([]),
        json!([]),
        json!({"template": "{secret.TOKEN}"}),
    );
    let errors = compile_err(&doc, &registry);
    assert_diag(
        only(&errors),
        "secret_leak",
        None,
        None,
        "/output",
        &["the flow output", "`secret.TOKEN`"],
    );
}

#[test]
fn a_secret_in_a_condition_is_a_leak() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([]),
        json!([{"id": "f", "uses": "format-name@1.0.0", "when": "secret.TOKEN == \"x\"", "with": {"name": {"value": "n"}}}]),
        json!({"value": 1}),
    );
    let errors = compile_err(&doc, &registry);
    assert_diag(
        only(&errors),
        "secret_leak",
        Some("f"),
        None,
        "/steps/0/when",
        &["a condition cannot read `secret.TOKEN`"],
    );
}

#[test]
fn a_secret_input_with_a_default_is_a_leak() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([input(
            "token",
            json!({"type": "string", "default": "hunter2"}),
            true
        )]),
        json!([]),
        json!({"value": 1}),
    );
    let errors = compile_err(&doc, &registry);
    assert_diag(
        only(&errors),
        "secret_leak",
        None,
        None,
        "/inputs/0/schema/default",
        &["secret input `token` has a default"],
    );
}

#[test]
fn a_secret_is_opaque_text_so_a_uri_slot_takes_it() {
    let mut registry = registry();
    registry
        .insert(tool(
            "http.get@1.0.0",
            "http",
            &[("url", json!({"type": "string", "format": "uri"}), false)],
            json!({"type": "string"}),
            &["net"],
        ))
        .unwrap();
    let doc = flow(
        &registry,
        json!([]),
        json!([{"id": "g", "uses": "http.get@1.0.0", "with": {"url": {"from": "secret.URL"}}}]),
        json!({"value": 1}),
    );
    compile_ok(&doc, &registry);
    // A plain string is not known to be a URI.
    let doc = flow(
        &registry,
        json!([input("u", json!({"type": "string"}), false)]),
        json!([{"id": "g", "uses": "http.get@1.0.0", "with": {"url": {"from": "input.u"}}}]),
        json!({"value": 1}),
    );
    assert_eq!(compile_err(&doc, &registry).codes(), ["type_mismatch"]);
}
