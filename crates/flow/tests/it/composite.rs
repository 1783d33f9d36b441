//! Composite tools: flows published as tools, nesting with secrets carried by reference.

use std::collections::BTreeMap;

use browserflow_contract::{Capability, Kind, ToolRef};
use browserflow_flow::{Bound, Plan, Registry, Scope, SecretTemplate};
use serde_json::{Value, json};

use crate::support::*;

/// `notify-inner@1.0.0`: posts `message` to the secret `url` (http, so `secrets` is added).
fn inner(registry: &Registry) -> Value {
    let mut doc = flow(
        registry,
        json!([
            input("url", json!({"type": "string"}), true),
            input("message", json!({"type": "string"}), false)
        ]),
        json!([{"id": "post", "uses": "http.post@1.0.0",
                "with": {"url": {"from": "input.url"}, "body": {"from": "input.message"}}}]),
        json!({"from": "steps.post.output.status"}),
    );
    doc["name"] = json!("notify-inner");
    doc
}

/// `notify-mid@1.0.0`: passes its secret `url` on to `notify-inner`.
fn mid(registry: &Registry) -> Value {
    let mut doc = flow(
        registry,
        json!([
            input("url", json!({"type": "string"}), true),
            input("message", json!({"type": "string"}), false)
        ]),
        json!([{"id": "inner", "uses": "notify-inner@1.0.0",
                "with": {"url": {"from": "input.url"}, "message": {"from": "input.message"}}}]),
        json!({"from": "steps.inner.output"}),
    );
    doc["name"] = json!("notify-mid");
    doc
}

/// The outermost flow: search, then notify through two levels of composites.
fn top(registry: &Registry) -> Value {
    flow(
        registry,
        json!([input("query", json!({"type": "string"}), false)]),
        json!([
            {"id": "search", "uses": "search-price@1.2.0", "with": {"query": {"from": "input.query"}}},
            {"id": "notify", "uses": "notify-mid@1.0.0",
             "with": {"url": {"from": "secret.WEBHOOK_URL"}, "message": {"template": "{steps.search.output.name}: {steps.search.output.price}"}}}
        ]),
        json!({"from": "steps.notify.output"}),
    )
}

fn three_levels() -> (Registry, Plan) {
    let mut registry = registry();
    registry.insert_flow(&parse(&inner(&registry))).unwrap();
    registry.insert_flow(&parse(&mid(&registry))).unwrap();
    let plan = compile_ok(&top(&registry), &registry);
    (registry, plan)
}

#[test]
fn a_composite_contract_is_derived_from_its_flow() {
    let (registry, _) = three_levels();
    let mid = registry
        .get(&ToolRef::parse("notify-mid@1.0.0").unwrap())
        .unwrap();
    let contract = &mid.contract;
    assert_eq!(contract.kind(), Kind::Composite);
    assert_eq!(
        contract.capabilities(),
        [Capability::Net, Capability::Secrets]
    );
    let url = contract.input("url").unwrap();
    assert!(url.secret, "a secret flow input stays a secret slot");
    assert!(!contract.input("message").unwrap().secret);
    assert_eq!(contract.output(), &browserflow_contract::Schema::integer());
    let inner_plan = mid.composite.as_ref().expect("the inner plan");
    assert_eq!(inner_plan.steps[0].id, "inner");
    assert!(
        inner_plan.steps[0].composite.is_some(),
        "and its inner plan, one level further"
    );
}

#[test]
fn capabilities_are_the_union_of_every_level() {
    let (_, plan) = three_levels();
    assert_eq!(
        plan.capabilities,
        [Capability::Browser, Capability::Net, Capability::Secrets]
    );
    let notify = plan.step("notify").unwrap();
    assert_eq!(
        notify.effective_capabilities,
        [Capability::Net, Capability::Secrets]
    );
    assert_eq!(notify.secret_slots, ["url"]);
    // The composite of the top flow hides nothing either.
    let contract = plan.contract().unwrap();
    assert_eq!(
        contract.capabilities(),
        [Capability::Browser, Capability::Net, Capability::Secrets]
    );
}

#[test]
fn a_secret_is_passed_by_reference_through_three_levels() {
    let (_, plan) = three_levels();
    assert_eq!(
        plan.secret_names().into_iter().collect::<Vec<_>>(),
        ["WEBHOOK_URL"]
    );
    // Run the plan's bindings the way the rider does, descending into composites.
    let scope = plan
        .start_scope([("query".to_owned(), Bound::Value(json!("kb")))].into())
        .unwrap();
    let mut scope = scope;
    scope.finish(
        "search",
        json!({"name": "Keyboard", "price": 19.5, "currency": "EUR"}),
    );
    let notify = plan.step("notify").unwrap();
    let mut inputs = notify.evaluate_inputs(&scope).unwrap();
    assert_eq!(
        inputs["url"],
        Bound::Secret(SecretTemplate::reference("WEBHOOK_URL"))
    );
    assert_eq!(inputs["message"], Bound::Value(json!("Keyboard: 19.5")));
    let mut level = notify.composite.as_deref().unwrap();
    let mut depth = 1;
    loop {
        let scope: Scope = level.start_scope(inputs.clone()).unwrap();
        let step = &level.steps[0];
        inputs = step.evaluate_inputs(&scope).unwrap();
        assert_eq!(
            inputs["url"],
            Bound::Secret(SecretTemplate::reference("WEBHOOK_URL")),
            "depth {depth}"
        );
        match step.composite.as_deref() {
            Some(next) => {
                level = next;
                depth += 1;
            }
            None => break,
        }
    }
    assert_eq!(depth, 2, "mid, then inner");
    let http: BTreeMap<_, _> = inputs;
    assert_eq!(http["body"], Bound::Value(json!("Keyboard: 19.5")));
}

#[test]
fn a_plain_value_into_a_composites_secret_input_is_secret_expected() {
    let (registry, _) = three_levels();
    let mut doc = top(&registry);
    doc["steps"][1]["with"]["url"] = json!({"value": "http://127.0.0.1:9/hook"});
    let errors = compile_err(&doc, &registry);
    assert_diag(
        only(&errors),
        "secret_expected",
        Some("notify"),
        Some("url"),
        "/steps/1/with/url",
        &["`notify-mid@1.0.0` is `secret: true`"],
    );
}

#[test]
fn a_secret_into_a_composites_plain_input_is_a_leak() {
    let (registry, _) = three_levels();
    let mut doc = top(&registry);
    doc["steps"][1]["with"]["message"] = json!({"from": "secret.WEBHOOK_URL"});
    let errors = compile_err(&doc, &registry);
    assert_diag(
        only(&errors),
        "secret_leak",
        Some("notify"),
        Some("message"),
        "/steps/1/with/message",
        &["(composite tool), which is not `secret: true`"],
    );
}

#[test]
fn an_inner_flow_that_leaks_its_secret_input_cannot_be_published() {
    let mut registry = registry();
    let mut doc = flow(
        &registry,
        json!([input("url", json!({"type": "string"}), true)]),
        json!([{"id": "fmt", "uses": "format-name@1.0.0", "with": {"name": {"from": "input.url"}}}]),
        json!({"from": "steps.fmt.output"}),
    );
    doc["name"] = json!("leaky-composite");
    let errors = registry.insert_flow(&parse(&doc)).unwrap_err();
    assert_diag(
        only(&errors),
        "secret_leak",
        Some("fmt"),
        Some("name"),
        "/steps/0/with/name",
        &["`input.url`"],
    );
    assert!(
        registry
            .get(&ToolRef::parse("leaky-composite@1.0.0").unwrap())
            .is_none()
    );
}

#[test]
fn a_composite_that_never_resolves_its_secret_input_lacks_secrets() {
    let mut registry = registry();
    let mut doc = flow(
        &registry,
        json!([input("token", json!({"type": "string"}), true)]),
        json!([{"id": "fmt", "uses": "format-name@1.0.0", "with": {"name": {"value": "x"}}}]),
        json!({"from": "steps.fmt.output"}),
    );
    doc["name"] = json!("ignores-token");
    registry.insert_flow(&parse(&doc)).unwrap();
    let outer = flow(
        &registry,
        json!([]),
        json!([{"id": "c", "uses": "ignores-token@1.0.0", "with": {"token": {"from": "secret.T"}}}]),
        json!({"from": "steps.c.output"}),
    );
    let errors = compile_err(&outer, &registry);
    assert_diag(
        only(&errors),
        "secret_leak",
        Some("c"),
        Some("token"),
        "/steps/0/with/token",
        &["lacks the `secrets` capability"],
    );
}
