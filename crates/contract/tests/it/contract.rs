//! Parsing contracts: strictness, every problem located, the kind rules.

use browserflow_contract::{
    Capability, ContractParts, InputDecl, Kind, Problems, Rule, Schema, ToolContract, ToolName,
    ToolRef,
};
use serde_json::{Value, json};

fn base(kind: &str, capabilities: Value) -> Value {
    json!({
        "name": "example",
        "version": "1.0.0",
        "kind": kind,
        "description": "",
        "inputs": [{"name": "text", "schema": {"type": "string"}, "secret": false}],
        "output": {"type": "string"},
        "capabilities": capabilities
    })
}

fn problems(value: &Value) -> Problems {
    ToolContract::from_json(value).expect_err("the contract should be refused")
}

fn has(problems: &Problems, pointer: &str, rule: Rule) -> bool {
    problems
        .iter()
        .any(|p| p.pointer == pointer && p.rule == rule)
}

#[test]
fn valid_contract_round_trips_through_json() {
    let value = base("transform", json!([]));
    let contract = ToolContract::from_json(&value).unwrap();
    assert_eq!(contract.to_json(), value);
    assert_eq!(serde_json::to_value(&contract).unwrap(), value);
    assert!(contract.is_pure());
    assert_eq!(contract.reference(), "example@1.0.0");
}

#[test]
fn unknown_fields_are_refused_everywhere() {
    let mut value = base("transform", json!([]));
    value["extra"] = json!(1);
    value["inputs"][0]["optional"] = json!(true);
    let p = problems(&value);
    assert!(has(&p, "/extra", Rule::UnknownField), "{p}");
    assert!(has(&p, "/inputs/0/optional", Rule::UnknownField), "{p}");
}

#[test]
fn missing_fields_are_each_named() {
    let p = problems(&json!({}));
    for field in [
        "name",
        "version",
        "kind",
        "description",
        "inputs",
        "output",
        "capabilities",
    ] {
        assert!(
            p.iter().any(|problem| problem.rule == Rule::MissingField
                && problem.message.contains(&format!("`{field}`"))),
            "no problem names missing `{field}`: {p}"
        );
    }
}

#[test]
fn names_versions_and_slots_are_validated() {
    let cases = [
        ("Upper", false),
        ("with space", false),
        ("-lead", false),
        ("trail.", false),
        ("a//b", false),
        ("a@b", false),
        ("", false),
        ("search-price", true),
        ("std/http.post", true),
        ("a1.b2-c3/d", true),
    ];
    for (name, ok) in cases {
        assert_eq!(ToolName::parse(name).is_ok(), ok, "name {name:?}");
        let mut value = base("transform", json!([]));
        value["name"] = json!(name);
        assert_eq!(
            ToolContract::from_json(&value).is_ok(),
            ok,
            "contract name {name:?}"
        );
    }
    let mut value = base("transform", json!([]));
    value["version"] = json!("1.2");
    assert!(has(&problems(&value), "/version", Rule::InvalidVersion));

    let mut value = base("transform", json!([]));
    value["inputs"] = json!([
        {"name": "", "schema": {}, "secret": false},
        {"name": "a", "schema": {}, "secret": false},
        {"name": "a", "schema": {}, "secret": false}
    ]);
    let p = problems(&value);
    assert!(has(&p, "/inputs/0/name", Rule::EmptySlotName), "{p}");
    assert!(has(&p, "/inputs/2/name", Rule::DuplicateSlot), "{p}");
}

#[test]
fn refs_parse_exactly() {
    let r = ToolRef::parse("search-price@1.2.0").unwrap();
    assert_eq!(r.name.as_str(), "search-price");
    assert_eq!(r.version.to_string(), "1.2.0");
    assert_eq!(
        ToolRef::parse("std/http.post@1.0.0").unwrap().to_string(),
        "std/http.post@1.0.0"
    );
    for bad in [
        "search-price",
        "search-price@",
        "@1.0.0",
        "search-price@^1.0",
        "Bad@1.0.0",
    ] {
        let err = ToolRef::parse(bad).unwrap_err();
        assert!(err.has(Rule::InvalidRef), "{bad}: {err}");
    }
}

#[test]
fn kind_rules_name_the_rule() {
    let cases: &[(&str, Value, Option<Rule>)] = &[
        ("transform", json!([]), None),
        (
            "transform",
            json!(["net"]),
            Some(Rule::TransformHasCapabilities),
        ),
        ("http", json!(["net"]), None),
        ("http", json!([]), Some(Rule::HttpNeedsNet)),
        (
            "http",
            json!(["net", "secrets"]),
            Some(Rule::HttpSecretsMismatch),
        ),
        ("browser", json!(["browser"]), None),
        ("browser", json!(["net"]), Some(Rule::BrowserNeedsBrowser)),
        ("shell", json!(["spawn", "fs"]), None),
        ("shell", json!(["fs"]), Some(Rule::ShellNeedsSpawn)),
        ("model", json!(["model"]), None),
        ("model", json!(["net"]), Some(Rule::ModelNeedsModel)),
        ("code", json!([]), None),
        ("code", json!(["net", "fs"]), None),
        ("composite", json!(["browser", "net", "secrets"]), None),
    ];
    for (kind, caps, expected) in cases {
        let value = base(kind, caps.clone());
        match (ToolContract::from_json(&value), expected) {
            (Ok(_), None) => {}
            (Err(p), Some(rule)) => {
                assert!(has(&p, "/capabilities", *rule), "{kind} {caps}: {p}");
                let line = p.to_string();
                assert!(line.contains(rule.code()), "{line}");
            }
            (result, expected) => panic!("{kind} {caps}: got {result:?}, expected {expected:?}"),
        }
    }
}

#[test]
fn http_secrets_exactly_when_a_secret_input_exists() {
    let mut value = base("http", json!(["net"]));
    value["inputs"][0]["secret"] = json!(true);
    let p = problems(&value);
    assert!(has(&p, "/capabilities", Rule::HttpSecretsMismatch), "{p}");
    assert!(
        p.to_string().contains("text"),
        "the message names the secret input: {p}"
    );
    value["capabilities"] = json!(["net", "secrets"]);
    assert!(ToolContract::from_json(&value).is_ok());
}

#[test]
fn duplicate_and_unknown_capabilities_are_refused() {
    let p = problems(&base("code", json!(["net", "net", "gpu"])));
    assert!(has(&p, "/capabilities/1", Rule::DuplicateCapability), "{p}");
    assert!(has(&p, "/capabilities/2", Rule::UnknownVariant), "{p}");
}

#[test]
fn construction_checks_the_same_rules_as_parsing() {
    let parts = ContractParts {
        name: "slugify".into(),
        version: "1.0.0".into(),
        kind: Kind::Transform,
        description: "Lowercase, hyphenate, strip punctuation.".into(),
        inputs: vec![InputDecl::new("text", Schema::string())],
        output: Schema::string(),
        capabilities: vec![],
    };
    let contract = ToolContract::new(parts.clone()).unwrap();
    assert_eq!(
        ToolContract::from_json(&contract.to_json()).unwrap(),
        contract
    );

    let bad = ContractParts {
        capabilities: vec![Capability::Net],
        name: "Slugify".into(),
        ..parts
    };
    let p = ToolContract::new(bad).unwrap_err();
    assert!(has(&p, "/name", Rule::InvalidName), "{p}");
    assert!(
        has(&p, "/capabilities", Rule::TransformHasCapabilities),
        "{p}"
    );
}

#[test]
fn a_tool_file_contract_is_read_under_contract() {
    let file = json!({"contract": base("transform", json!(["net"])), "steps": []});
    let p = ToolContract::from_document(&file).unwrap_err();
    assert!(
        has(&p, "/contract/capabilities", Rule::TransformHasCapabilities),
        "{p}"
    );
    let file = json!({"contract": base("transform", json!([])), "steps": []});
    assert!(ToolContract::from_document(&file).is_ok());
}

#[test]
fn input_schema_makes_defaulted_slots_optional() {
    let mut value = base("transform", json!([]));
    value["inputs"] = json!([
        {"name": "query", "schema": {"type": "string"}, "secret": false},
        {"name": "limit", "schema": {"type": "integer", "default": 10}, "secret": false}
    ]);
    let contract = ToolContract::from_json(&value).unwrap();
    let schema = contract.input_schema();
    assert_eq!(schema.required, vec!["query".to_owned()]);
    assert_eq!(schema.properties.len(), 2);
}
