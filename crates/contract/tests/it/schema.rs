//! The JSON-Schema subset: what it accepts, what it refuses, how it serialises.

use browserflow_contract::{CompiledSchema, JsonType, Rule, Schema};
use serde_json::json;

#[test]
fn every_supported_keyword_round_trips() {
    let value = json!({
        "type": ["null", "object"],
        "title": "Thing",
        "description": "A thing.",
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 80, "pattern": "^[a-z]+$"},
            "when": {"type": "string", "format": "date-time"},
            "day": {"type": "string", "format": "date"},
            "home": {"type": "string", "format": "uri"},
            "mail": {"type": "string", "format": "email"},
            "price": {"type": "number", "minimum": 0, "exclusiveMaximum": 1000000},
            "count": {"type": "integer", "maximum": 10, "exclusiveMinimum": -1},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 0, "maxItems": 5},
            "currency": {"enum": ["EUR", "USD"]},
            "version": {"const": 2},
            "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "extra": {"type": "object", "additionalProperties": {"type": "boolean"}}
        },
        "required": ["name", "price"],
        "additionalProperties": false,
        "default": null,
        "examples": [null, {"name": "abc", "price": 1}]
    });
    let schema = Schema::from_json(&value).unwrap();
    assert_eq!(schema.to_json(), value);
    assert_eq!(
        schema.to_document()["$schema"],
        json!("https://json-schema.org/draft/2020-12/schema")
    );
}

#[test]
fn unsupported_keywords_are_named_with_their_pointer() {
    let value = json!({
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/x"},
            "b": {"type": "array", "items": {"allOf": [{}]}},
            "c": {"anyOf": [{"not": {}}]}
        },
        "if": {},
        "$defs": {},
        "multipleOf": 2
    });
    let problems = Schema::from_json(&value).unwrap_err();
    let found: Vec<(String, String)> = problems
        .iter()
        .filter(|p| p.rule == Rule::UnsupportedKeyword)
        .map(|p| (p.pointer.clone(), p.message.clone()))
        .collect();
    for (pointer, keyword) in [
        ("/properties/a/$ref", "$ref"),
        ("/properties/b/items/allOf", "allOf"),
        ("/properties/c/anyOf/0/not", "not"),
        ("/if", "if"),
        ("/$defs", "$defs"),
        ("/multipleOf", "multipleOf"),
    ] {
        assert!(
            found
                .iter()
                .any(|(p, m)| p == pointer && m.contains(&format!("`{keyword}`"))),
            "{pointer} not reported: {found:?}"
        );
    }
}

#[test]
fn nonsense_is_refused() {
    let cases = [
        (json!({"type": "strin"}), "/type"),
        (json!({"type": []}), "/type"),
        (json!({"type": ["string", "string"]}), "/type/1"),
        (json!({"enum": []}), "/enum"),
        (
            json!({"type": "string", "minLength": 5, "maxLength": 2}),
            "",
        ),
        (json!({"type": "number", "minimum": 5, "maximum": 2}), ""),
        (json!({"type": "string", "pattern": "("}), "/pattern"),
        (json!({"type": "string", "format": "ipv4"}), "/format"),
        (json!({"type": "string", "minLength": -1}), "/minLength"),
        (json!({"type": "string", "items": {}}), ""),
        (json!({"type": "integer", "default": "x"}), "/default"),
        (
            json!({"type": "object", "required": ["a", "a"]}),
            "/required/1",
        ),
        (
            json!({"type": "object", "required": ["a"], "additionalProperties": false}),
            "",
        ),
        (json!(false), ""),
        (json!(3), ""),
    ];
    for (value, pointer) in cases {
        let problems = Schema::from_json(&value).expect_err(&value.to_string());
        assert!(
            problems.iter().any(|p| p.pointer == pointer),
            "{value}: expected a problem at {pointer:?}, got {problems}"
        );
    }
}

#[test]
fn normalisation_sorts_types_and_required() {
    let schema = Schema::from_json(&json!({
        "type": ["object", "null"],
        "properties": {"b": {}, "a": {}},
        "required": ["b", "a"]
    }))
    .unwrap();
    assert_eq!(schema.types, Some(vec![JsonType::Null, JsonType::Object]));
    assert_eq!(schema.required, vec!["a".to_owned(), "b".to_owned()]);
    assert_eq!(Schema::from_json(&json!(true)).unwrap(), Schema::any());
}

#[test]
fn validation_reports_json_pointers_and_checks_formats() {
    let schema = Schema::from_json(&json!({
        "type": "object",
        "properties": {
            "price": {"type": "number"},
            "when": {"type": "string", "format": "date-time"},
            "mail": {"type": "string", "format": "email"},
            "tags": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["price"],
        "additionalProperties": false
    }))
    .unwrap();
    let compiled = CompiledSchema::new(&schema).unwrap();
    assert!(compiled.is_valid(&json!({"price": 1.5, "when": "2026-11-30T10:00:00Z"})));
    let errors = compiled
        .validate(&json!({"price": "9", "when": "yesterday", "mail": "nope", "tags": ["a", 3]}))
        .unwrap_err();
    let pointers: Vec<&str> = errors.iter().map(|e| e.pointer.as_str()).collect();
    for expected in ["/price", "/when", "/mail", "/tags/1"] {
        assert!(
            pointers.contains(&expected),
            "{expected} missing from {pointers:?}"
        );
    }
}

#[test]
fn integer_accepts_whole_floats_like_json_schema() {
    let compiled = CompiledSchema::new(&Schema::integer()).unwrap();
    assert!(compiled.is_valid(&json!(3)));
    assert!(compiled.is_valid(&json!(3.0)));
    assert!(!compiled.is_valid(&json!(3.5)));
    assert!(JsonType::Integer.admits(&json!(3.0)));
}

#[test]
fn describe_is_short_and_readable() {
    assert_eq!(Schema::number().describe(), "number");
    assert_eq!(Schema::string().nullable().describe(), "null | string");
    let e = Schema::from_json(&json!({"enum": ["EUR", "USD"]})).unwrap();
    assert_eq!(e.describe(), r#""EUR" | "USD""#);
    assert_eq!(Schema::any().describe(), "any");
}
