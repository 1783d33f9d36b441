//! Reading FlowSpec documents: strictness, locations, normal form, and no panics.

use browserflow_flow::{Binding, Condition, FlowSpec, Registry, check_str};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::support::*;

fn minimal() -> Value {
    json!({"name": "f", "version": "1.0.0", "steps": [], "output": {"value": 1}})
}

#[test]
fn malformed_json_is_one_invalid_json_diagnostic() {
    let errors = FlowSpec::from_json_str("{\"name\": \"f\",").unwrap_err();
    assert_diag(
        only(&errors),
        "invalid_json",
        None,
        None,
        "",
        &["not valid JSON", "line 1"],
    );
}

#[test]
fn unknown_fields_are_refused_wherever_they_are() {
    let mut doc = minimal();
    doc["colour"] = json!("red");
    doc["steps"] = json!([{"id": "a", "uses": "x@1.0.0", "retries": 3}]);
    doc["inputs"] =
        json!([{"name": "q", "schema": {"type": "string"}, "secret": false, "label": "Q"}]);
    let errors = FlowSpec::from_json(&doc).unwrap_err();
    let found: Vec<(&str, &str)> = errors
        .iter()
        .map(|d| (d.code.as_str(), d.pointer.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            ("unknown_field", "/inputs/0/label"),
            ("unknown_field", "/steps/0/retries"),
            ("unknown_field", "/colour")
        ]
    );
    assert!(
        errors.0[1]
            .message
            .contains("unknown field `retries` in a step")
    );
}

#[test]
fn missing_and_mistyped_fields_are_located() {
    let doc = json!({"name": "Bad Name", "version": "one", "steps": {}, "inputs": [{"name": "q", "secret": "no"}]});
    let errors = FlowSpec::from_json(&doc).unwrap_err();
    let found: Vec<(&str, &str)> = errors
        .iter()
        .map(|d| (d.code.as_str(), d.pointer.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            ("invalid_name", "/name"),
            ("invalid_version", "/version"),
            ("missing_field", "/inputs/0"),
            ("wrong_type", "/inputs/0/secret"),
            ("wrong_type", "/steps"),
            ("missing_field", ""),
        ]
    );
    assert!(errors.0[5].message.contains("`output`"));
}

#[test]
fn bad_refs_schemas_and_digests_are_located() {
    let doc = json!({
        "name": "f", "version": "1.0.0",
        "inputs": [{"name": "q", "schema": {"type": "strin"}, "secret": false}],
        "requires": [{"ref": "x@1.0.0", "contract_digest": "sha256:nope"}],
        "steps": [{"id": "a", "uses": "x@latest"}],
        "output": {"value": 1}
    });
    let errors = FlowSpec::from_json(&doc).unwrap_err();
    let found: Vec<(&str, &str)> = errors
        .iter()
        .map(|d| (d.code.as_str(), d.pointer.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            ("invalid_schema", "/inputs/0/schema/type"),
            ("invalid_digest", "/requires/0/contract_digest"),
            ("invalid_ref", "/steps/0/uses")
        ]
    );
    assert_eq!(errors.0[2].step.as_deref(), Some("a"));
}

#[test]
fn bad_bindings_are_located_by_step_and_slot() {
    let mut doc = minimal();
    doc["steps"] = json!([{"id": "a", "uses": "x@1.0.0", "with": {
        "bare": "input.q",
        "two": {"value": 1, "from": "input.q"},
        "ref": {"from": "inputs.q"},
        "tpl": {"template": "{input.q"},
        "sec": {"from": "secret.a.b"},
        "step": {"from": "steps.a"}
    }}]);
    doc["output"] = json!({"form": "input.q"});
    let errors = FlowSpec::from_json(&doc).unwrap_err();
    let found: Vec<(&str, Option<&str>, &str)> = errors
        .iter()
        .map(|d| (d.code.as_str(), d.slot.as_deref(), d.pointer.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            ("bad_binding", Some("bare"), "/steps/0/with/bare"),
            ("bad_binding", Some("ref"), "/steps/0/with/ref"),
            ("bad_binding", Some("sec"), "/steps/0/with/sec"),
            ("bad_binding", Some("step"), "/steps/0/with/step"),
            ("bad_binding", Some("tpl"), "/steps/0/with/tpl"),
            ("bad_binding", Some("two"), "/steps/0/with/two"),
            ("bad_binding", None, "/output"),
        ]
    );
    let message = |slot: &str| {
        errors
            .iter()
            .find(|d| d.slot.as_deref() == Some(slot))
            .unwrap()
            .message
            .clone()
    };
    assert!(
        message("bare").contains("found string"),
        "{}",
        message("bare")
    );
    assert!(
        message("two").contains("[from, value]"),
        "{}",
        message("two")
    );
    assert!(
        message("tpl").contains("never closed"),
        "{}",
        message("tpl")
    );
    assert!(
        message("step").contains("steps.a.output"),
        "{}",
        message("step")
    );
}

#[test]
fn the_normal_form_round_trips_and_fixes_the_digest() {
    let registry = registry();
    let doc = flow(
        &registry,
        json!([input(
            "q",
            json!({"type": ["string", "null"], "minLength": 1}),
            false
        )]),
        json!([{"id": "f", "uses": "maybe@1.0.0", "when": "( input.q!=null )",
                "with": {"value": {"template": "x {input.q} {{y}}"}}}]),
        json!({"from": "steps.f.output"}),
    );
    let spec = parse(&doc);
    let normal = spec.to_json();
    assert_eq!(normal["steps"][0]["when"], "input.q != null");
    let again = FlowSpec::from_json(&normal).unwrap();
    assert_eq!(again, spec);
    assert_eq!(again.digest(), spec.digest());
    assert_eq!(
        FlowSpec::from_json_str(&spec.to_pretty_json()).unwrap(),
        spec
    );
    // The digest covers the interface and the wiring: any change moves it.
    let mut changed = doc.clone();
    changed["steps"][0]["with"]["value"] = json!({"template": "x {input.q} {{z}}"});
    assert_ne!(parse(&changed).digest(), spec.digest());
    let d = spec.digest().to_string();
    assert!(d.starts_with("sha256:") && d.len() == 71);
}

#[test]
fn check_str_reports_parse_errors_before_compiling() {
    let errors = check_str("[]", &Registry::new()).unwrap_err();
    assert_diag(
        only(&errors),
        "wrong_type",
        None,
        None,
        "",
        &["expected a flow, found array"],
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn parsing_arbitrary_text_never_panics(text in ".{0,200}") {
        let _ = FlowSpec::from_json_str(&text);
        let _ = Condition::parse(&text);
        let _ = Binding::from_json(&json!({"template": text.clone()}));
        let _ = Binding::from_json(&json!({"from": text}));
    }

    #[test]
    fn parsing_arbitrary_json_never_panics(value in arbitrary_json()) {
        let _ = FlowSpec::from_json(&value);
        let _ = Binding::from_json(&value);
        let registry = registry();
        if let Ok(spec) = FlowSpec::from_json(&value) {
            let _ = browserflow_flow::compile(&spec, &registry);
        }
    }

    #[test]
    fn flow_shaped_json_never_panics_and_compiles_or_explains(doc in flow_shaped()) {
        let registry = registry();
        match FlowSpec::from_json(&doc) {
            Ok(spec) => {
                if let Err(errors) = browserflow_flow::compile(&spec, &registry) {
                    prop_assert!(!errors.0.is_empty());
                    for d in errors.iter() {
                        prop_assert!(d.pointer.is_empty() || d.pointer.starts_with('/'));
                        prop_assert!(!d.message.is_empty());
                    }
                }
            }
            Err(errors) => prop_assert!(!errors.0.is_empty()),
        }
    }

    #[test]
    fn condition_like_text_never_panics(text in "[a-z.!()&|<>=\" 0-9-]{0,60}") {
        if let Ok(c) = Condition::parse(&text) {
            // The normal form parses back to the same condition.
            prop_assert_eq!(Condition::parse(&c.to_string()).ok(), Some(c.clone()));
            let _ = c.evaluate(&browserflow_flow::Scope::new());
        }
    }
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        "[a-z.{}@/ 0-9]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("name".to_owned()),
                    Just("version".to_owned()),
                    Just("steps".to_owned()),
                    Just("output".to_owned()),
                    Just("inputs".to_owned()),
                    Just("with".to_owned()),
                    Just("from".to_owned()),
                    Just("value".to_owned()),
                    Just("id".to_owned()),
                    Just("uses".to_owned()),
                    Just("when".to_owned()),
                    "[a-z]{1,6}",
                ],
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Documents close to real flows, so parsing gets past the first field and the compiler runs.
fn flow_shaped() -> impl Strategy<Value = Value> {
    let tools = prop_oneof![
        Just("search-price@1.2.0"),
        Just("format-name@1.0.0"),
        Just("price-alert@1.0.0"),
        Just("http.post@1.0.0"),
        Just("vault-fetch@1.0.0"),
        Just("maybe@1.0.0"),
        Just("nope@1.0.0"),
    ];
    let refs = prop_oneof![
        Just("input.q".to_owned()),
        Just("input.n".to_owned()),
        Just("secret.S".to_owned()),
        "steps\\.s[0-3]\\.output(\\.(name|price|dropped|x|0))?",
    ];
    let binding = prop_oneof![
        refs.clone().prop_map(|r| json!({"from": r})),
        refs.clone()
            .prop_map(|r| json!({"template": format!("a {{{r}}} b")})),
        prop_oneof![
            Just(json!(1)),
            Just(json!("t")),
            Just(json!(null)),
            Just(json!({"k": true}))
        ]
        .prop_map(|v| json!({"value": v})),
    ];
    let slots = prop::collection::btree_map(
        prop_oneof![
            Just("query"),
            Just("name"),
            Just("price"),
            Just("threshold"),
            Just("url"),
            Just("body"),
            Just("token"),
            Just("value")
        ],
        binding.clone(),
        0..4,
    );
    let when = prop::option::of(prop_oneof![
        refs.clone(),
        refs.clone().prop_map(|r| format!("{r} < 3")),
        refs.clone()
            .prop_map(|r| format!("!({r} == \"x\") && input.n > 1")),
    ]);
    let step = (0..4usize, tools, slots, when).prop_map(|(i, uses, with, when)| {
        let mut s = json!({"id": format!("s{i}"), "uses": uses, "with": with});
        if let Some(w) = when {
            s["when"] = json!(w);
        }
        s
    });
    (prop::collection::vec(step, 0..5), binding, any::<bool>()).prop_map(|(steps, output, secret)| {
        let registry = registry();
        let mut refs: Vec<String> = steps.iter().map(|s| s["uses"].as_str().unwrap_or_default().to_owned()).collect();
        refs.sort();
        refs.dedup();
        let requires: Vec<Value> = refs
            .iter()
            .filter(|r| !r.starts_with("nope"))
            .map(|r| pin(&registry, r))
            .collect();
        json!({
            "name": "fuzz", "version": "1.0.0",
            "inputs": [input("q", json!({"type": "string"}), secret), input("n", json!({"type": "number"}), false)],
            "requires": requires, "steps": steps, "output": output
        })
    })
}

#[test]
fn a_step_timeout_is_whole_milliseconds_from_1_to_a_day_and_round_trips() {
    let mut doc = minimal();
    doc["steps"] = json!([{"id": "a", "uses": "x@1.0.0", "timeout_ms": 1500}]);
    let spec = FlowSpec::from_json(&doc).unwrap();
    assert_eq!(spec.steps[0].timeout_ms, Some(1500));
    assert_eq!(spec.steps[0].to_json()["timeout_ms"], 1500);
    for bad in [
        json!(0),
        json!(-1),
        json!(1.5),
        json!("30s"),
        json!(86_400_001u64),
    ] {
        doc["steps"] = json!([{"id": "a", "uses": "x@1.0.0", "timeout_ms": bad}]);
        let errors = FlowSpec::from_json(&doc).unwrap_err();
        let d = only(&errors);
        assert_eq!(d.pointer, "/steps/0/timeout_ms", "{bad}");
        assert_eq!(d.step.as_deref(), Some("a"), "{bad}");
        assert!(
            d.message.contains("all attempts of the step"),
            "{}",
            d.message
        );
    }
}
