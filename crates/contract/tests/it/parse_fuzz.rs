//! Parsing arbitrary JSON as a contract or a schema never panics.

use browserflow_contract::{Schema, ToolContract};
use proptest::prelude::*;
use serde_json::Value;

/// Arbitrary JSON, biased towards the keys and values contracts and schemas use, so that the
/// generator reaches deep into the parsers rather than failing at the first field.
fn arb_json() -> impl Strategy<Value = Value> {
    let keys = prop::sample::select(vec![
        "name",
        "version",
        "kind",
        "description",
        "inputs",
        "output",
        "capabilities",
        "schema",
        "secret",
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "anyOf",
        "format",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "pattern",
        "minItems",
        "maxItems",
        "default",
        "examples",
        "$ref",
        "x",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        prop::sample::select(vec![
            "string",
            "number",
            "integer",
            "object",
            "array",
            "null",
            "boolean",
            "browser",
            "transform",
            "http",
            "net",
            "secrets",
            "1.0.0",
            "a",
            "",
            "date-time",
            "(",
            "^a+$",
        ])
        .prop_map(|s| Value::String(s.to_owned())),
        ".*".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(keys.clone().prop_map(str::to_owned), inner, 0..8)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn contract_parsing_never_panics(value in arb_json()) {
        if let Err(problems) = ToolContract::from_json(&value) {
            prop_assert!(problems.iter().count() > 0);
        }
    }

    #[test]
    fn schema_parsing_never_panics(value in arb_json()) {
        if let Ok(schema) = Schema::from_json(&value) {
            // What parses serialises back to something that parses to the same schema.
            prop_assert_eq!(Schema::from_json(&schema.to_json()).unwrap(), schema);
        }
    }

    #[test]
    fn contract_text_parsing_never_panics(text in ".{0,200}") {
        let _ = ToolContract::from_json_str(&text);
    }
}
