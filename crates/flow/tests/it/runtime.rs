//! The evaluation API the rider uses: scopes, bindings, templates, outputs.

use std::collections::BTreeMap;

use browserflow_flow::{Binding, Bound, EvalError, Scope, SecretPart, SecretTemplate};
use serde_json::json;

use crate::support::*;

fn binding(value: serde_json::Value) -> Binding {
    Binding::from_json(&value).unwrap()
}

#[test]
fn bindings_evaluate_against_the_scope() {
    let mut scope = Scope::new();
    scope.set_input("query", Bound::Value(json!("kb")));
    scope.set_input(
        "token",
        Bound::Secret(SecretTemplate::reference("API_TOKEN")),
    );
    scope.finish(
        "search",
        json!({"name": "Keyboard", "price": 19.5, "tags": ["a", "b"]}),
    );
    scope.skip("maybe");
    let eval = |v| binding(v).evaluate(&scope);
    assert_eq!(
        eval(json!({"value": [1, 2]})),
        Ok(Bound::Value(json!([1, 2])))
    );
    assert_eq!(
        eval(json!({"from": "input.query"})),
        Ok(Bound::Value(json!("kb")))
    );
    assert_eq!(
        eval(json!({"from": "steps.search.output.price"})),
        Ok(Bound::Value(json!(19.5)))
    );
    assert_eq!(
        eval(json!({"from": "steps.search.output.tags.1"})),
        Ok(Bound::Value(json!("b")))
    );
    assert_eq!(
        eval(json!({"from": "steps.search.output.missing"})),
        Ok(Bound::Value(json!(null)))
    );
    assert_eq!(
        eval(json!({"from": "steps.maybe.output.x"})),
        Ok(Bound::Value(json!(null)))
    );
    assert_eq!(
        eval(
            json!({"template": "{steps.search.output.name} at {steps.search.output.price} {{EUR}}"})
        ),
        Ok(Bound::Value(json!("Keyboard at 19.5 {EUR}")))
    );
    assert_eq!(
        eval(json!({"from": "secret.HOOK"})),
        Ok(Bound::Secret(SecretTemplate::reference("HOOK")))
    );
    assert_eq!(
        eval(json!({"from": "input.token"})),
        Ok(Bound::Secret(SecretTemplate::reference("API_TOKEN")))
    );
    assert_eq!(
        eval(json!({"template": "Bearer {input.token}/{input.query}"})),
        Ok(Bound::Secret(SecretTemplate::from_parts([
            SecretPart::Text("Bearer ".into()),
            SecretPart::Secret("API_TOKEN".into()),
            SecretPart::Text("/kb".into()),
        ])))
    );
    assert_eq!(
        eval(json!({"from": "steps.later.output"})),
        Err(EvalError::StepNotFinished {
            step: "later".into()
        })
    );
    assert!(matches!(
        eval(json!({"from": "steps.search.output.name.x"})),
        Err(EvalError::BadPath { .. })
    ));
    assert!(matches!(
        eval(json!({"from": "input.token.x"})),
        Err(EvalError::SecretPath { .. })
    ));
    assert!(matches!(
        eval(json!({"template": "{steps.maybe.output}"})),
        Err(EvalError::Interpolate { .. })
    ));
}

#[test]
fn a_secret_template_resolves_only_through_the_lookup_and_never_shows_values() {
    let template = SecretTemplate::from_parts([
        SecretPart::Text("https://hooks.test/".into()),
        SecretPart::Secret("HOOK_ID".into()),
        SecretPart::Text("?k=".into()),
        SecretPart::Secret("HOOK_ID".into()),
    ]);
    assert_eq!(template.secret_names(), ["HOOK_ID"]);
    let resolved = template.resolve(|name| {
        if name == "HOOK_ID" {
            Ok("s3cr3t".to_owned())
        } else {
            Err(name.to_owned())
        }
    });
    assert_eq!(resolved.unwrap(), "https://hooks.test/s3cr3t?k=s3cr3t");
    assert_eq!(
        template.to_string(),
        "https://hooks.test/{secret.HOOK_ID}?k={secret.HOOK_ID}"
    );
    let bound = Bound::Secret(template);
    let json = serde_json::to_string(&bound).unwrap();
    assert_eq!(
        json,
        r#"{"secret_template":"https://hooks.test/{secret.HOOK_ID}?k={secret.HOOK_ID}"}"#
    );
    assert!(!format!("{bound:?}").contains("s3cr3t"));
}

#[test]
fn start_scope_checks_inputs_and_applies_defaults() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([
            input("query", json!({"type": "string", "minLength": 1}), false),
            input("limit", json!({"type": "integer", "default": 3}), false),
            input("token", json!({"type": "string"}), true)
        ]),
        json!([{"id": "v", "uses": "vault-fetch@1.0.0", "with": {"token": {"from": "input.token"}}}]),
        json!({"template": "{input.query} {input.limit} {steps.v.output}"}),
    );
    let plan = compile_ok(&doc, &registry);
    let secret = || Bound::Secret(SecretTemplate::reference("T"));
    let ok: BTreeMap<String, Bound> = [
        ("query".into(), Bound::Value(json!("kb"))),
        ("token".into(), secret()),
    ]
    .into();
    let mut scope = plan.start_scope(ok.clone()).unwrap();
    assert_eq!(scope.input("limit"), Some(&Bound::Value(json!(3))));
    scope.finish("v", json!("fetched"));
    assert_eq!(plan.evaluate_output(&scope), Ok(json!("kb 3 fetched")));

    let mut missing = ok.clone();
    missing.remove("query");
    assert_eq!(
        plan.start_scope(missing),
        Err(EvalError::MissingInput {
            name: "query".into()
        })
    );
    let mut unknown = ok.clone();
    unknown.insert("extra".into(), Bound::Value(json!(1)));
    assert_eq!(
        plan.start_scope(unknown),
        Err(EvalError::UnknownInput {
            name: "extra".into()
        })
    );
    let mut invalid = ok.clone();
    invalid.insert("query".into(), Bound::Value(json!("")));
    assert!(
        matches!(plan.start_scope(invalid), Err(EvalError::InvalidInput { name, .. }) if name == "query")
    );
    let mut plain_secret = ok.clone();
    plain_secret.insert("token".into(), Bound::Value(json!("hunter2")));
    assert!(
        matches!(plan.start_scope(plain_secret), Err(EvalError::SecretMismatch { name, .. }) if name == "token")
    );
    let mut secret_plain = ok;
    secret_plain.insert("query".into(), secret());
    assert!(
        matches!(plan.start_scope(secret_plain), Err(EvalError::SecretMismatch { name, .. }) if name == "query")
    );
}

#[test]
fn a_plan_serialises_for_reports() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([input("query", json!({"type": "string"}), false)]),
        json!([
            {"id": "search", "uses": "search-price@1.2.0", "with": {"query": {"from": "input.query"}}},
            {"id": "post", "uses": "http.post@1.0.0", "when": "steps.search.output.price < 10",
             "with": {"url": {"from": "secret.HOOK"}, "body": {"from": "steps.search.output.name"}}}
        ]),
        json!({"from": "steps.search.output"}),
    );
    let plan = compile_ok(&doc, &registry);
    let value = serde_json::to_value(&plan).unwrap();
    assert_eq!(value["steps"][1]["uses"], "http.post@1.0.0");
    assert_eq!(value["steps"][1]["when"], "steps.search.output.price < 10");
    assert_eq!(
        value["steps"][1]["bindings"]["url"],
        json!({"from": "secret.HOOK"})
    );
    assert_eq!(
        value["steps"][1]["effective_capabilities"],
        json!(["net", "secrets"])
    );
    assert_eq!(value["capabilities"], json!(["browser", "net", "secrets"]));
    assert_eq!(value["flow_digest"], plan.flow_digest.to_string());
}
