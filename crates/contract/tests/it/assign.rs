// One file on purpose: one table of cases, in the order of the rules in `src/assign.rs`, so a
// rule and its cases are read side by side.

//! Schema assignability: a table of cases with their exact explanations, and a soundness
//! property checked against real validation.

use browserflow_contract::{CompiledSchema, PathSegment, Schema, check_assignable};
use proptest::prelude::*;
use serde_json::{Value, json};

fn parse(text: &str) -> Schema {
    let value: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    Schema::from_json(&value).unwrap_or_else(|p| panic!("{text}: {p}"))
}

/// (source, target, `None` when assignable, else the full expected message).
const CASES: &[(&str, &str, Option<&str>)] = &[
    // Types.
    (r#"{"type":"string"}"#, r#"{"type":"string"}"#, None),
    (r#"{"type":"integer"}"#, r#"{"type":"number"}"#, None),
    (
        r#"{"type":"number"}"#,
        r#"{"type":"integer"}"#,
        Some("(root): number is not assignable to integer"),
    ),
    (
        r#"{"type":"number"}"#,
        r#"{"type":"string"}"#,
        Some("(root): number is not assignable to string"),
    ),
    (
        r#"{"type":"boolean"}"#,
        r#"{"type":"string"}"#,
        Some("(root): boolean is not assignable to string"),
    ),
    (r#"{"type":"null"}"#, r#"{"type":["null","string"]}"#, None),
    (
        r#"{"type":["integer","string"]}"#,
        r#"{"type":["number","string"]}"#,
        None,
    ),
    (
        r#"{"type":["integer","string"]}"#,
        r#"{"type":"integer"}"#,
        Some("(root): string is not assignable to integer"),
    ),
    // Nullability.
    (
        r#"{"type":["number","null"]}"#,
        r#"{"type":"number"}"#,
        Some("(root): null is not assignable to number"),
    ),
    (
        r#"{"type":"number"}"#,
        r#"{"type":["number","null"]}"#,
        None,
    ),
    (
        r#"{"anyOf":[{"type":"string"},{"type":"null"}]}"#,
        r#"{"type":["string","null"]}"#,
        None,
    ),
    (
        r#"{"anyOf":[{"type":"string"},{"type":"null"}]}"#,
        r#"{"type":"string"}"#,
        Some("(root): null is not assignable to string"),
    ),
    // Any.
    (
        r#"{}"#,
        r#"{"type":"number"}"#,
        Some("(root): any is not assignable to number"),
    ),
    (r#"{}"#, r#"{"description":"anything at all"}"#, None),
    (r#"{"type":"object"}"#, r#"true"#, None),
    (
        r#"{}"#,
        r#"{"type":["array","boolean","null","number","object","string"]}"#,
        None,
    ),
    // Annotations never matter.
    (
        r#"{"type":"string","title":"A","description":"d","default":"x","examples":["y"]}"#,
        r#"{"type":"string","title":"B","default":"z"}"#,
        None,
    ),
    // Keywords for other types do not constrain this one.
    (r#"{"type":"number"}"#, r#"{"minLength":3}"#, None),
    (
        r#"{"type":"string"}"#,
        r#"{"minimum":3,"required":["a"]}"#,
        None,
    ),
    // Objects.
    (
        r#"{"type":"object","properties":{"price":{"type":"number"}},"required":["price"]}"#,
        r#"{"type":"object","properties":{"price":{"type":"string"}},"required":["price"]}"#,
        Some("price: number is not assignable to string"),
    ),
    (
        r#"{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}"#,
        r#"{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a","b"]}"#,
        Some("b: may be missing, but the target requires it"),
    ),
    (
        r#"{"type":"object","properties":{"a":{"type":"string"}}}"#,
        r#"{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}"#,
        Some("a: may be missing, but the target requires it"),
    ),
    (
        r#"{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}"#,
        r#"{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"}},"required":["a"]}"#,
        None,
    ),
    (
        r#"{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}"#,
        r#"{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}"#,
        Some(
            "(root): the source allows keys the target does not list, and the target forbids other keys",
        ),
    ),
    (
        r#"{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"additionalProperties":false}"#,
        r#"{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}"#,
        Some("b: the source allows this key, the target does not"),
    ),
    (
        r#"{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}"#,
        r#"{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"boolean"}}}"#,
        None,
    ),
    (
        r#"{"type":"object","additionalProperties":{"type":"integer"}}"#,
        r#"{"type":"object","additionalProperties":{"type":"number"}}"#,
        None,
    ),
    (
        r#"{"type":"object","additionalProperties":{"type":"number"}}"#,
        r#"{"type":"object","additionalProperties":{"type":"integer"}}"#,
        Some("*: number is not assignable to integer"),
    ),
    (
        r#"{"type":"object","properties":{"n":{"type":"integer"}},"additionalProperties":false}"#,
        r#"{"type":"object","additionalProperties":{"type":"number"}}"#,
        None,
    ),
    (
        r#"{"type":"object","additionalProperties":{"type":"string"}}"#,
        r#"{"type":"object","properties":{"id":{"type":"integer"}}}"#,
        Some("id: string is not assignable to integer"),
    ),
    (
        r#"{"type":"object"}"#,
        r#"{"type":"object","properties":{"a":{"type":"string"}}}"#,
        Some("a: any is not assignable to string"),
    ),
    // Nested paths.
    (
        r#"{"type":"object","properties":{"user":{"type":"object","properties":{"email":{"type":["string","null"]}},"required":["email"]}},"required":["user"]}"#,
        r#"{"type":"object","properties":{"user":{"type":"object","properties":{"email":{"type":"string"}},"required":["email"]}},"required":["user"]}"#,
        Some("user.email: null is not assignable to string"),
    ),
    (
        r#"{"type":"object","properties":{"rows":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}}},"required":["rows"]}"#,
        r#"{"type":"object","properties":{"rows":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}},"required":["rows"]}"#,
        Some("rows[].id: integer is not assignable to string"),
    ),
    // Arrays.
    (
        r#"{"type":"array","items":{"type":"string"}}"#,
        r#"{"type":"array","items":{"type":"string"}}"#,
        None,
    ),
    (
        r#"{"type":"array","items":{"type":["string","null"]}}"#,
        r#"{"type":"array","items":{"type":"string"}}"#,
        Some("[]: null is not assignable to string"),
    ),
    (
        r#"{"type":"object","properties":{"tags":{"type":"array","items":{"type":["string","null"]}}}}"#,
        r#"{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}}}"#,
        Some("tags[]: null is not assignable to string"),
    ),
    (
        r#"{"type":"array","items":{"type":"integer"},"minItems":2,"maxItems":3}"#,
        r#"{"type":"array","items":{"type":"number"},"minItems":1,"maxItems":5}"#,
        None,
    ),
    (
        r#"{"type":"array","items":{"type":"string"}}"#,
        r#"{"type":"array","items":{"type":"string"},"minItems":1}"#,
        Some("(root): array is not assignable to array (minItems 1)"),
    ),
    (
        r#"{"type":"array","maxItems":6}"#,
        r#"{"type":"array","maxItems":5}"#,
        Some("(root): array (maxItems 6) is not assignable to array (maxItems 5)"),
    ),
    (
        r#"{"type":"array"}"#,
        r#"{"type":"array","items":{"type":"string"}}"#,
        Some("[]: any is not assignable to string"),
    ),
    (
        r#"{"type":"array","maxItems":0}"#,
        r#"{"type":"array","items":{"type":"string"}}"#,
        None,
    ),
    // Enum and const.
    (r#"{"enum":["a","b"]}"#, r#"{"type":"string"}"#, None),
    (
        r#"{"type":"string","enum":["a","b"]}"#,
        r#"{"enum":["c","b","a"]}"#,
        None,
    ),
    (
        r#"{"enum":["a","x"]}"#,
        r#"{"enum":["a","b"]}"#,
        Some(r#"(root): "x" is not assignable to "a" | "b""#),
    ),
    (
        r#"{"type":"string"}"#,
        r#"{"enum":["EUR","USD"]}"#,
        Some(r#"(root): string is not assignable to "EUR" | "USD""#),
    ),
    (
        r#"{"type":"integer","minimum":1,"maximum":3}"#,
        r#"{"enum":[1,2,3]}"#,
        Some("(root): integer (minimum 1, maximum 3) is not assignable to 1 | 2 | 3"),
    ),
    (r#"{"const":3}"#, r#"{"type":"integer","minimum":1}"#, None),
    (
        r#"{"const":0}"#,
        r#"{"type":"integer","minimum":1}"#,
        Some("(root): 0 is not assignable to integer"),
    ),
    (r#"{"type":"boolean"}"#, r#"{"enum":[false,true]}"#, None),
    (
        r#"{"type":"boolean"}"#,
        r#"{"const":true}"#,
        Some("(root): boolean is not assignable to true"),
    ),
    (
        r#"{"enum":["ab","a"]}"#,
        r#"{"type":"string","maxLength":1}"#,
        Some(r#"(root): "ab" is not assignable to string"#),
    ),
    (
        r#"{"enum":["a",null]}"#,
        r#"{"type":"string"}"#,
        Some("(root): null is not assignable to string"),
    ),
    (
        r#"{"type":"string","enum":["a",1]}"#,
        r#"{"type":"string"}"#,
        None,
    ),
    (
        r#"{"anyOf":[{"const":"a"},{"type":"boolean"}]}"#,
        r#"{"enum":["a",true,false]}"#,
        None,
    ),
    // Unions.
    (
        r#"{"anyOf":[{"type":"string"},{"type":"integer"}]}"#,
        r#"{"type":["number","string"]}"#,
        None,
    ),
    (
        r#"{"type":["string","null"]}"#,
        r#"{"anyOf":[{"type":"string"},{"type":"null"}]}"#,
        None,
    ),
    (
        r#"{"type":"string"}"#,
        r#"{"anyOf":[{"type":"string","minLength":1},{"type":"null"}]}"#,
        Some("(root): string is not assignable to string (minLength 1)"),
    ),
    (
        r#"{"type":"number"}"#,
        r#"{"anyOf":[{"type":"integer"},{"type":"string"}]}"#,
        Some("(root): number is not assignable to integer | string"),
    ),
    (
        r#"{"type":"object","properties":{"a":{"type":"string"}},"anyOf":[{"required":["a"]},{"required":["a","b"]}]}"#,
        r#"{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}"#,
        None,
    ),
    (
        r#"{"type":"string","minLength":2}"#,
        r#"{"type":"string","anyOf":[{"maxLength":1},{"minLength":1}]}"#,
        None,
    ),
    (
        r#"{"type":"integer"}"#,
        r#"{"type":"integer","minimum":0,"anyOf":[{"maximum":5},{"minimum":3}]}"#,
        Some("(root): integer is not assignable to integer (minimum 0)"),
    ),
    (
        r#"{"anyOf":[{"type":"integer"},{"type":"number","minimum":0}]}"#,
        r#"{"type":"number","minimum":0}"#,
        Some("(root): integer is not assignable to number (minimum 0)"),
    ),
    // Numeric bounds.
    (
        r#"{"type":"integer","minimum":0}"#,
        r#"{"type":"number","minimum":0}"#,
        None,
    ),
    (
        r#"{"type":"number"}"#,
        r#"{"type":"number","minimum":0}"#,
        Some("(root): number is not assignable to number (minimum 0)"),
    ),
    (
        r#"{"type":"number","minimum":0}"#,
        r#"{"type":"number","exclusiveMinimum":0}"#,
        Some("(root): number (minimum 0) is not assignable to number (exclusiveMinimum 0)"),
    ),
    (
        r#"{"type":"number","exclusiveMinimum":0}"#,
        r#"{"type":"number","minimum":0}"#,
        None,
    ),
    (
        r#"{"type":"integer","exclusiveMinimum":0}"#,
        r#"{"type":"integer","minimum":1}"#,
        None,
    ),
    (
        r#"{"type":"integer","minimum":0.5}"#,
        r#"{"type":"number","minimum":1}"#,
        None,
    ),
    (
        r#"{"type":"number","minimum":0.5}"#,
        r#"{"type":"number","minimum":1}"#,
        Some("(root): number (minimum 0.5) is not assignable to number (minimum 1)"),
    ),
    (
        r#"{"type":"number","minimum":0,"maximum":10}"#,
        r#"{"type":"number","minimum":-1,"maximum":100}"#,
        None,
    ),
    (
        r#"{"type":"number","maximum":10}"#,
        r#"{"type":"number","maximum":5}"#,
        Some("(root): number (maximum 10) is not assignable to number (maximum 5)"),
    ),
    (
        r#"{"type":"integer","exclusiveMaximum":10}"#,
        r#"{"type":"integer","maximum":9}"#,
        None,
    ),
    (
        r#"{"type":"number","exclusiveMaximum":10}"#,
        r#"{"type":"number","maximum":9}"#,
        Some("(root): number (exclusiveMaximum 10) is not assignable to number (maximum 9)"),
    ),
    (
        r#"{"type":"integer","minimum":18446744073709551615}"#,
        r#"{"type":"integer","minimum":18446744073709551614}"#,
        None,
    ),
    (
        r#"{"type":"integer","minimum":18446744073709551614}"#,
        r#"{"type":"integer","minimum":18446744073709551615}"#,
        Some(
            "(root): integer (minimum 18446744073709551614) is not assignable to integer (minimum 18446744073709551615)",
        ),
    ),
    (
        r#"{"type":"integer","minimum":9007199254740993}"#,
        r#"{"type":"integer","exclusiveMinimum":9007199254740992.0}"#,
        None,
    ),
    // Strings.
    (
        r#"{"type":"string","minLength":2,"maxLength":5}"#,
        r#"{"type":"string","minLength":1,"maxLength":10}"#,
        None,
    ),
    (
        r#"{"type":"string"}"#,
        r#"{"type":"string","maxLength":10}"#,
        Some("(root): string is not assignable to string (maxLength 10)"),
    ),
    (
        r#"{"type":"string","pattern":"^a"}"#,
        r#"{"type":"string","pattern":"^a"}"#,
        None,
    ),
    (
        r#"{"type":"string","pattern":"^ab"}"#,
        r#"{"type":"string","pattern":"^a"}"#,
        Some("(root): string (pattern ^ab) is not assignable to string (pattern ^a)"),
    ),
    (
        r#"{"type":"string","format":"date"}"#,
        r#"{"type":"string","format":"date"}"#,
        None,
    ),
    (
        r#"{"type":"string","format":"date","maxLength":10}"#,
        r#"{"type":"string"}"#,
        None,
    ),
    (
        r#"{"type":"string"}"#,
        r#"{"type":"string","format":"date"}"#,
        Some("(root): string is not assignable to string (format date)"),
    ),
    (
        r#"{"type":"string","format":"email"}"#,
        r#"{"type":"string","format":"uri"}"#,
        Some("(root): string (format email) is not assignable to string (format uri)"),
    ),
];

#[test]
fn every_case_gives_the_expected_answer_and_explanation() {
    assert!(CASES.len() >= 40);
    let mut failures = Vec::new();
    for (i, (source, target, expected)) in CASES.iter().enumerate() {
        let got = check_assignable(&parse(source), &parse(target))
            .err()
            .map(|m| m.to_string());
        let matches = got.as_deref() == *expected;
        if !matches {
            failures.push(format!(
                "case {i}: {source} -> {target}\n  expected {expected:?}\n  got      {got:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_mismatch_locates_itself_by_path_and_json_pointer() {
    let source = parse(
        r#"{"type":"object","properties":{"a/b":{"type":"array","items":{"type":"object","additionalProperties":{"type":"number"}}}}}"#,
    );
    let target = parse(
        r#"{"type":"object","properties":{"a/b":{"type":"array","items":{"type":"object","additionalProperties":{"type":"integer"}}}}}"#,
    );
    let mismatch = check_assignable(&source, &target).unwrap_err();
    assert_eq!(
        mismatch.path,
        vec![
            PathSegment::Key("a/b".into()),
            PathSegment::Items,
            PathSegment::OtherKeys
        ]
    );
    assert_eq!(mismatch.path_text(), "a/b[].*");
    assert_eq!(mismatch.pointer(), "/a~1b/*/*");
    assert_eq!(mismatch.reason, "number is not assignable to integer");

    let root = check_assignable(&Schema::number(), &Schema::string()).unwrap_err();
    assert!(root.path.is_empty());
    assert_eq!(root.pointer(), "");
    assert_eq!(root.path_text(), "(root)");
}

#[test]
fn a_mismatch_is_a_standard_error() {
    let mismatch = check_assignable(&Schema::number().nullable(), &Schema::number()).unwrap_err();
    let error: Box<dyn std::error::Error + Send + Sync> = Box::new(mismatch.clone());
    assert_eq!(
        error.to_string(),
        "(root): null is not assignable to number"
    );
    assert_eq!(mismatch.clone(), mismatch);
}

#[test]
fn the_constructors_relate_as_expected() {
    let closed = Schema::object([("name", Schema::string()), ("age", Schema::integer())]);
    let looser = Schema::object([
        ("name", Schema::string().nullable()),
        ("age", Schema::number()),
    ]);
    assert_eq!(check_assignable(&closed, &looser), Ok(()));
    let back = check_assignable(&looser, &closed).unwrap_err();
    assert_eq!(back.to_string(), "age: number is not assignable to integer");
    assert_eq!(check_assignable(&Schema::any(), &Schema::any()), Ok(()));
    assert_eq!(check_assignable(&closed, &Schema::any()), Ok(()));
}

// ---------------------------------------------------------------------------------------------
// Soundness property
// ---------------------------------------------------------------------------------------------

const STRINGS: &[&str] = &[
    "",
    "a",
    "b",
    "ab",
    "ba",
    "abc",
    "2024-01-02",
    "2024-01-02T03:04:05Z",
    "https://x.example/a",
    "me@x.example",
    "hello world",
];

fn pool_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..12).prop_map(Value::from),
        prop::sample::select(vec![-1.5, 0.5, 2.5, 10.0]).prop_map(|f| json!(f)),
        prop::sample::select(STRINGS).prop_map(|s| json!(s)),
    ]
}

fn random_value() -> impl Strategy<Value = Value> {
    pool_value().prop_recursive(2, 12, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(prop::sample::select(vec!["a", "b", "c"]), inner, 0..3)
                .prop_map(|m| json!(m)),
        ]
    })
}

fn bound() -> impl Strategy<Value = Option<Value>> {
    prop::option::weighted(
        0.4,
        prop_oneof![(-2i64..8).prop_map(Value::from), Just(json!(0.5)),],
    )
}

fn leaf_schema() -> impl Strategy<Value = Value> {
    let type_names = vec![
        "array", "boolean", "integer", "null", "number", "object", "string",
    ];
    prop_oneof![
        Just(json!({})),
        prop::sample::subsequence(type_names, 1..=3).prop_map(|t| json!({"type": t})),
        (
            prop::sample::select(vec!["integer", "number"]),
            bound(),
            bound(),
            bound(),
            bound()
        )
            .prop_map(|(t, min, max, xmin, xmax)| {
                let mut s = json!({"type": t});
                for (key, value) in [
                    ("minimum", min),
                    ("maximum", max),
                    ("exclusiveMinimum", xmin),
                    ("exclusiveMaximum", xmax),
                ] {
                    if let Some(v) = value {
                        s[key] = v;
                    }
                }
                s
            }),
        (
            prop::option::of(0u64..3),
            prop::option::of(0u64..4),
            prop::option::weighted(0.2, prop::sample::select(vec!["^a", "b$"])),
            prop::option::weighted(0.2, prop::sample::select(vec!["date", "email"])),
            any::<bool>(),
        )
            .prop_map(|(min, max, pattern, format, nullable)| {
                let mut s = json!({"type": if nullable { json!(["null", "string"]) } else { json!("string") }});
                if let Some(n) = min {
                    s["minLength"] = json!(n);
                }
                if let Some(n) = max {
                    s["maxLength"] = json!(n);
                }
                if let Some(p) = pattern {
                    s["pattern"] = json!(p);
                }
                if let Some(f) = format {
                    s["format"] = json!(f);
                }
                s
            }),
        prop::collection::vec(pool_value(), 1..4).prop_map(|mut values| {
            let mut unique = Vec::new();
            values.retain(|v| {
                let fresh = !unique.contains(v);
                unique.push(v.clone());
                fresh
            });
            json!({"enum": values})
        }),
        pool_value().prop_map(|v| json!({"const": v})),
    ]
}

fn random_schema() -> impl Strategy<Value = Value> {
    leaf_schema().prop_recursive(3, 24, 3, |inner| {
        prop_oneof![
            (
                inner.clone(),
                prop::option::of(0u64..3),
                prop::option::of(0u64..4)
            )
                .prop_map(|(items, min, max)| {
                    let mut s = json!({"type": "array", "items": items});
                    if let Some(n) = min {
                        s["minItems"] = json!(n);
                    }
                    if let Some(n) = max {
                        s["maxItems"] = json!(n);
                    }
                    s
                }),
            (
                prop::collection::btree_map(
                    prop::sample::select(vec!["a", "b"]),
                    inner.clone(),
                    0..3
                ),
                prop::sample::subsequence(vec!["a", "b"], 0..=2),
                prop_oneof![
                    Just(None),
                    Just(Some(json!(true))),
                    Just(Some(json!(false))),
                    inner.clone().prop_map(Some)
                ],
            )
                .prop_map(|(properties, required, additional)| {
                    let required: Vec<&str> = required
                        .into_iter()
                        .filter(|k| properties.contains_key(*k))
                        .collect();
                    let mut s = json!({"type": "object", "properties": properties});
                    if !required.is_empty() {
                        s["required"] = json!(required);
                    }
                    if let Some(a) = additional {
                        s["additionalProperties"] = a;
                    }
                    s
                }),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|b| json!({"anyOf": b})),
            inner.prop_map(|s| json!({"anyOf": [s, {"type": "null"}]})),
        ]
    })
}

/// A small deterministic random source for [`perturb`] and [`sample`].
struct Bits(u64);

impl Bits {
    fn next(&mut self) -> u64 {
        // xorshift64*: plenty for test-case variety.
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn chance(&mut self, one_in: u64) -> bool {
        self.next().is_multiple_of(one_in)
    }

    fn pick<'a, T>(&mut self, list: &'a [T]) -> Option<&'a T> {
        if list.is_empty() {
            None
        } else {
            list.get((self.next() % list.len() as u64) as usize)
        }
    }
}

/// A near copy of a schema: each keyword may be dropped, loosened or tightened a little
/// (bounds moved, inclusive and exclusive swapped, types changed, patterns and formats
/// swapped…). Pairs of a schema and its perturbation are often assignable one way, and the
/// change is often exactly what the check must catch.
fn perturb(schema: &Value, bits: &mut Bits) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    let mut out = serde_json::Map::new();
    for (key, value) in map {
        if bits.chance(8) {
            continue;
        }
        let (key, value) = match key.as_str() {
            "additionalProperties" if value.is_boolean() && bits.chance(4) => {
                (key.clone(), json!(!value.as_bool().unwrap_or(true)))
            }
            "items" | "additionalProperties" => (key.clone(), perturb(value, bits)),
            "properties" => {
                let properties = value
                    .as_object()
                    .map(|p| {
                        p.iter()
                            .map(|(k, v)| (k.clone(), perturb(v, bits)))
                            .collect::<serde_json::Map<_, _>>()
                    })
                    .unwrap_or_default();
                (key.clone(), Value::Object(properties))
            }
            "anyOf" => {
                let branches = value
                    .as_array()
                    .map(|b| b.iter().map(|s| perturb(s, bits)).collect::<Vec<_>>())
                    .unwrap_or_default();
                (key.clone(), json!(branches))
            }
            "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
                let n = value.as_f64().unwrap_or(0.0);
                let key = if bits.chance(4) {
                    match key.as_str() {
                        "minimum" => "exclusiveMinimum",
                        "exclusiveMinimum" => "minimum",
                        "maximum" => "exclusiveMaximum",
                        _ => "maximum",
                    }
                    .to_owned()
                } else {
                    key.clone()
                };
                let value = match bits.next() % 6 {
                    0 => json!(n + 1.0),
                    1 => json!(n - 1.0),
                    2 => json!(n + 0.5),
                    _ => value.clone(),
                };
                (key, value)
            }
            "minLength" | "maxLength" | "minItems" | "maxItems" => {
                let n = value.as_u64().unwrap_or(0);
                let value = match bits.next() % 5 {
                    0 => json!(n + 1),
                    1 => json!(n.saturating_sub(1)),
                    _ => value.clone(),
                };
                (key.clone(), value)
            }
            "pattern" if bits.chance(3) => {
                (key.clone(), json!(if value == "^a" { "b$" } else { "^a" }))
            }
            "format" if bits.chance(3) => (
                key.clone(),
                json!(if value == "date" { "email" } else { "date" }),
            ),
            "type" if bits.chance(3) => {
                let swap = |t: &Value| match t.as_str() {
                    Some("integer") => json!("number"),
                    Some("number") => json!("integer"),
                    _ => t.clone(),
                };
                let value = match value {
                    Value::Array(list) if bits.chance(2) => {
                        let mut list: Vec<Value> = list.iter().map(swap).collect();
                        list.dedup();
                        json!(list)
                    }
                    Value::String(t) if t != "null" && bits.chance(2) => json!([t, "null"]),
                    other => swap(other),
                };
                (key.clone(), value)
            }
            "required" if bits.chance(4) => {
                let mut list = value.as_array().cloned().unwrap_or_default();
                if list.len() > 1 && bits.chance(2) {
                    list.pop();
                } else if !list.contains(&json!("a")) {
                    list.push(json!("a"));
                }
                (key.clone(), json!(list))
            }
            "enum" if bits.chance(3) => {
                let mut list = value.as_array().cloned().unwrap_or_default();
                if list.len() > 1 && bits.chance(2) {
                    list.pop();
                } else if !list.contains(&json!("b")) {
                    list.push(json!("b"));
                }
                (key.clone(), json!(list))
            }
            "const" if bits.chance(3) => (
                key.clone(),
                match value {
                    Value::Number(n) => json!(n.as_f64().unwrap_or(0.0) + 1.0),
                    Value::String(text) => json!(format!("{text}b")),
                    _ => json!(null),
                },
            ),
            _ => (key.clone(), value.clone()),
        };
        out.insert(key, value);
    }
    Value::Object(out)
}

/// A value shaped by the schema (best effort; the caller keeps only values the schema admits).
fn sample(schema: &Value, bits: &mut Bits, depth: u32) -> Value {
    let universe = [
        json!(null),
        json!(true),
        json!(0),
        json!(2.5),
        json!("a"),
        json!([]),
        json!({}),
    ];
    let fallback = universe[(bits.next() % universe.len() as u64) as usize].clone();
    let Value::Object(map) = schema else {
        return fallback;
    };
    if let Some(value) = map.get("const") {
        return value.clone();
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        return bits.pick(values).cloned().unwrap_or(fallback);
    }
    if let Some(Value::Array(branches)) = map.get("anyOf") {
        return match bits.pick(branches) {
            Some(branch) => sample(branch, bits, depth),
            None => fallback,
        };
    }
    let types: Vec<&str> = match map.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => return fallback,
    };
    let number_at = |key: &str| map.get(key).and_then(Value::as_f64);
    match bits.pick(&types).copied().unwrap_or("null") {
        "null" => Value::Null,
        "boolean" => Value::Bool(bits.chance(2)),
        "integer" | "number" => {
            let mut candidates: Vec<f64> = vec![-2.0, 0.0, 1.0, 3.0, 7.0, 1.5];
            for key in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
                if let Some(n) = number_at(key) {
                    candidates.extend([n, n + 1.0, n - 1.0, n + 0.5, n.ceil(), n.floor()]);
                }
            }
            let n = *bits.pick(&candidates).unwrap_or(&0.0);
            if n.fract() == 0.0 && !bits.chance(4) {
                json!(n as i64)
            } else {
                json!(n)
            }
        }
        "string" => {
            if bits.chance(2) {
                json!(bits.pick(STRINGS).copied().unwrap_or(""))
            } else {
                let low = map.get("minLength").and_then(Value::as_u64).unwrap_or(0);
                let high = map.get("maxLength").and_then(Value::as_u64).unwrap_or(4);
                let len = low + bits.next() % (high.saturating_sub(low) + 1);
                let text: String = (0..len)
                    .map(|_| if bits.chance(2) { 'a' } else { 'b' })
                    .collect();
                json!(text)
            }
        }
        "array" if depth < 4 => {
            let low = map.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            let high = map.get("maxItems").and_then(Value::as_u64).unwrap_or(3);
            let len = low + bits.next() % (high.saturating_sub(low) + 1);
            let items = map.get("items").cloned().unwrap_or(json!({}));
            json!(
                (0..len)
                    .map(|_| sample(&items, bits, depth + 1))
                    .collect::<Vec<_>>()
            )
        }
        "object" if depth < 4 => {
            let mut object = serde_json::Map::new();
            let required: Vec<&str> = map
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if let Some(Value::Object(properties)) = map.get("properties") {
                for (key, schema) in properties {
                    if required.contains(&key.as_str()) || bits.chance(2) {
                        object.insert(key.clone(), sample(schema, bits, depth + 1));
                    }
                }
            }
            if bits.chance(3) {
                let other = match map.get("additionalProperties") {
                    Some(s @ Value::Object(_)) => s.clone(),
                    _ => json!({}),
                };
                object.insert("z".into(), sample(&other, bits, depth + 1));
            }
            Value::Object(object)
        }
        _ => fallback,
    }
}

fn schema_pair() -> impl Strategy<Value = (Schema, Schema)> {
    let independent = (random_schema(), random_schema());
    let near = (random_schema(), any::<u64>(), any::<bool>()).prop_map(|(s, seed, flip)| {
        let p = perturb(&s, &mut Bits(seed | 1));
        if flip { (p, s) } else { (s, p) }
    });
    prop_oneof![1 => independent, 4 => near]
        .prop_filter_map("both must be valid schemas of the subset", |(s, t)| {
            Some((Schema::from_json(&s).ok()?, Schema::from_json(&t).ok()?))
        })
}

/// When the check says yes, no value valid under the source is rejected by the target.
/// Counts what was really tested, so the property cannot pass by never saying yes.
#[test]
fn a_yes_is_never_wrong() {
    use proptest::test_runner::{Config, TestRunner};
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

    const CASES: u32 = 2048;
    let yes = AtomicUsize::new(0);
    let values_checked = AtomicUsize::new(0);
    let strategy = (
        schema_pair(),
        prop::collection::vec(random_value(), 16),
        any::<u64>(),
    );
    let mut runner = TestRunner::new(Config {
        cases: CASES,
        ..Config::default()
    });
    let outcome = runner.run(&strategy, |((source, target), random, seed)| {
        if check_assignable(&source, &target).is_err() {
            // A no is always allowed; only a yes makes a promise to test.
            return Ok(());
        }
        yes.fetch_add(1, Relaxed);
        let from = CompiledSchema::new(&source).expect("source compiles");
        let to = CompiledSchema::new(&target).expect("target compiles");
        let mut bits = Bits(seed | 1);
        let source_json = source.to_json();
        let shaped = (0..48).map(|_| sample(&source_json, &mut bits, 0));
        for value in random.into_iter().chain(shaped) {
            if from.is_valid(&value) {
                values_checked.fetch_add(1, Relaxed);
                prop_assert!(
                    to.is_valid(&value),
                    "said yes, but {} is valid under {} and not under {}",
                    value,
                    source_json,
                    target.to_json()
                );
            }
        }
        Ok(())
    });
    if let Err(failure) = outcome {
        panic!("{failure}");
    }
    let (yes, values_checked) = (yes.into_inner(), values_checked.into_inner());
    eprintln!("yes {yes} of {CASES}, {values_checked} values checked");
    assert!(
        yes >= CASES as usize / 4,
        "only {yes} of {CASES} pairs said yes"
    );
    assert!(
        values_checked >= 10 * yes,
        "only {values_checked} valid values for {yes} yes answers"
    );
}

proptest! {
    /// A schema is assignable to itself: the check is not so cautious as to refuse that.
    #[test]
    fn every_schema_is_assignable_to_itself(schema in random_schema()) {
        if let Ok(schema) = Schema::from_json(&schema) {
            prop_assert_eq!(check_assignable(&schema, &schema), Ok(()));
        }
    }
}
