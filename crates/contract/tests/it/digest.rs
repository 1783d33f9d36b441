//! The contract digest: golden values, what changes it and what does not.

use browserflow_contract::{ToolContract, canonical_json};
use proptest::prelude::*;
use serde_json::{Value, json};

fn slugify() -> Value {
    json!({
        "name": "slugify",
        "version": "1.0.0",
        "kind": "transform",
        "description": "Lowercase, hyphenate, strip punctuation.",
        "inputs": [{"name": "text", "schema": {"type": "string"}, "secret": false}],
        "output": {"type": "string"},
        "capabilities": []
    })
}

fn search_price() -> Value {
    json!({
        "name": "search-price",
        "version": "1.2.0",
        "kind": "browser",
        "description": "Search the fixture shop and read the first result's name and price.",
        "inputs": [{"name": "query", "schema": {"type": "string"}, "secret": false}],
        "output": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "price": {"type": "number"},
                "currency": {"type": "string"}
            },
            "required": ["name", "price", "currency"],
            "additionalProperties": false
        },
        "capabilities": ["browser"]
    })
}

fn digest(value: &Value) -> String {
    ToolContract::from_json(value)
        .unwrap_or_else(|e| panic!("{e}"))
        .contract_digest()
        .to_string()
}

#[test]
fn golden_slugify() {
    let contract = ToolContract::from_json(&slugify()).unwrap();
    insta::assert_snapshot!(
        "slugify_interface",
        canonical_json(&contract.interface_json()).unwrap()
    );
    insta::assert_snapshot!("slugify_digest", contract.contract_digest().to_string());
}

#[test]
fn golden_search_price() {
    let contract = ToolContract::from_json(&search_price()).unwrap();
    insta::assert_snapshot!(
        "search_price_interface",
        canonical_json(&contract.interface_json()).unwrap()
    );
    insta::assert_snapshot!(
        "search_price_digest",
        contract.contract_digest().to_string()
    );
}

#[test]
fn version_and_description_are_not_part_of_the_digest() {
    let mut other = search_price();
    other["version"] = json!("9.9.9");
    other["description"] = json!("Something else entirely.");
    assert_eq!(digest(&search_price()), digest(&other));
}

#[test]
fn spelling_variants_of_the_same_interface_digest_the_same() {
    let mut other = search_price();
    // `required` in another order, and an input declared with `true` as its schema.
    other["output"]["required"] = json!(["price", "currency", "name"]);
    assert_eq!(digest(&search_price()), digest(&other));

    let mut with_any = slugify();
    with_any["inputs"][0]["schema"] = json!(true);
    let mut with_empty = slugify();
    with_empty["inputs"][0]["schema"] = json!({});
    assert_eq!(digest(&with_any), digest(&with_empty));
}

#[test]
fn descriptive_annotations_are_not_part_of_the_digest() {
    let mut other = search_price();
    other["inputs"][0]["schema"]["description"] = json!("What to search for.");
    other["output"]["title"] = json!("Price");
    other["output"]["properties"]["price"]["examples"] = json!([89.99]);
    assert_eq!(digest(&search_price()), digest(&other));
    // A default changes what a caller may omit: it is part of the interface.
    let mut defaulted = search_price();
    defaulted["inputs"][0]["schema"]["default"] = json!("keyboard");
    assert_ne!(digest(&search_price()), digest(&defaulted));
}

#[test]
fn reordering_inputs_does_not_change_the_digest() {
    let mut a = search_price();
    a["inputs"] = json!([
        {"name": "query", "schema": {"type": "string"}, "secret": false},
        {"name": "limit", "schema": {"type": "integer", "minimum": 1}, "secret": false}
    ]);
    let mut b = a.clone();
    b["inputs"] = json!([a["inputs"][1], a["inputs"][0]]);
    assert_eq!(digest(&a), digest(&b));
}

/// Each mutation changes exactly one interface field; each must change the digest.
#[test]
fn every_interface_change_changes_the_digest() {
    let base = search_price();
    type Mutation = Box<dyn Fn(&mut Value)>;
    let mutations: Vec<(&str, Mutation)> = vec![
        ("name", Box::new(|v| v["name"] = json!("search-prices"))),
        (
            "kind",
            Box::new(|v| {
                v["kind"] = json!("code");
            }),
        ),
        (
            "input name",
            Box::new(|v| v["inputs"][0]["name"] = json!("q")),
        ),
        (
            "input schema",
            Box::new(|v| v["inputs"][0]["schema"] = json!({"type": "string", "minLength": 1})),
        ),
        (
            "input secret flag",
            Box::new(|v| v["inputs"][0]["secret"] = json!(true)),
        ),
        (
            "output property type",
            Box::new(|v| v["output"]["properties"]["price"] = json!({"type": "string"})),
        ),
        (
            "output required",
            Box::new(|v| v["output"]["required"] = json!(["name", "price"])),
        ),
        (
            "capability added",
            Box::new(|v| v["capabilities"] = json!(["browser", "net"])),
        ),
        (
            "extra input",
            Box::new(|v| {
                v["inputs"]
                    .as_array_mut()
                    .unwrap()
                    .push(json!({"name": "page", "schema": {"type": "integer"}, "secret": false}))
            }),
        ),
    ];
    let base_digest = digest(&base);
    for (what, mutate) in mutations {
        let mut changed = base.clone();
        mutate(&mut changed);
        assert_ne!(
            digest(&changed),
            base_digest,
            "changing the {what} kept the digest"
        );
    }
    let mut no_caps = slugify();
    no_caps["kind"] = json!("code");
    assert_ne!(
        digest(&no_caps),
        digest(&slugify()),
        "kind transform → code"
    );
}

/// Writes `value` as JSON text with the keys of every object in an order driven by `seed`
/// (serde_json's own map may be sorted, so the shuffle is done while writing).
fn write_shuffled(value: &Value, seed: &mut u64) -> String {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            for i in (1..entries.len()).rev() {
                *seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let j = (*seed >> 33) as usize % (i + 1);
                entries.swap(i, j);
            }
            let parts: Vec<String> = entries
                .into_iter()
                .map(|(k, v)| format!("{}:{}", Value::String(k.clone()), write_shuffled(v, seed)))
                .collect();
            format!("{{{}}}", parts.join(","))
        }
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(|v| write_shuffled(v, seed)).collect();
            format!("[{}]", parts.join(","))
        }
        other => other.to_string(),
    }
}

proptest! {
    #[test]
    fn key_order_never_changes_the_digest(mut seed in any::<u64>()) {
        let original = search_price();
        let text = write_shuffled(&original, &mut seed);
        let reparsed = ToolContract::from_json_str(&text).unwrap();
        prop_assert_eq!(reparsed.contract_digest().to_string(), digest(&original));
    }
}
