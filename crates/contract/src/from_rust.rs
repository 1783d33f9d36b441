//! Schemas derived from Rust types: [`Schema::of`], through `schemars`.
//!
//! schemars describes a type in full JSON Schema 2020-12; the subset is smaller. The
//! conversion keeps what the subset can say exactly and refuses the rest, so a declared schema
//! never silently admits values the Rust type would reject.

use serde_json::{Map, Number, Value};

use crate::problem::{Problem, Problems, Rule, push_pointer};
use crate::schema::Schema;

/// Keywords that annotate but never decide validity, and that the subset does not carry.
const DROPPED_ANNOTATIONS: &[&str] = &["deprecated", "readOnly", "writeOnly", "$comment"];

/// Keywords allowed in a `oneOf` branch that stands for one constant.
const CONSTANT_BRANCH_KEYWORDS: &[&str] = &[
    "const",
    "enum",
    "type",
    "title",
    "description",
    "deprecated",
    "$comment",
];

impl Schema {
    /// The schema of the values `T` deserialises from, in the subset.
    ///
    /// schemars generates it (JSON Schema 2020-12, subschemas inlined); it is then converted
    /// and parsed with [`Schema::from_json`], so the result is normalised:
    ///
    /// - `$schema` is dropped and `$ref`s into `$defs` are inlined. A recursive type cannot be
    ///   inlined and is refused.
    /// - The numeric `format`s (`int32`, `uint8`, `uint64`, `double`, `float`, …) are not
    ///   subset formats. They are dropped, and an integer's fixed-width range becomes
    ///   `minimum`/`maximum` where schemars does not already give them.
    /// - `oneOf` whose branches are each one constant (a unit-only enum with documented
    ///   variants) becomes `enum`; any other `oneOf` (an enum with data) is refused.
    /// - The annotation-only keywords `deprecated`, `readOnly`, `writeOnly` and `$comment` are
    ///   dropped: they never decide whether a value is valid.
    /// - Everything else outside the subset (`uniqueItems` of a set, `prefixItems` of a tuple,
    ///   formats such as `uuid`, …) is refused.
    ///
    /// Structs with `#[serde(deny_unknown_fields)]` get `additionalProperties: false`; serde
    /// renames are respected. Every refusal is a [`Rule::UnsupportedRustType`] problem naming
    /// the keyword and its JSON pointer in the generated schema.
    ///
    /// ```
    /// use browserflow_contract::{JsonType, Rule, Schema};
    ///
    /// #[derive(schemars::JsonSchema, serde::Deserialize)]
    /// #[serde(deny_unknown_fields)]
    /// struct Price {
    ///     amount: f64,
    ///     currency: String,
    ///     quantity: u8,
    /// }
    ///
    /// let schema = Schema::of::<Price>().unwrap();
    /// assert_eq!(schema.types, Some(vec![JsonType::Object]));
    /// assert_eq!(schema.required, ["amount", "currency", "quantity"]);
    /// assert_eq!(schema.properties["quantity"].maximum, Some(255.into()));
    /// assert_eq!(schema.properties["amount"].format, None); // `double` is dropped
    ///
    /// // A tuple is a `prefixItems` array, which the subset cannot express.
    /// let problems = Schema::of::<(String, u8)>().unwrap_err();
    /// assert!(problems.has(Rule::UnsupportedRustType));
    /// ```
    pub fn of<T: schemars::JsonSchema>() -> Result<Schema, Problems> {
        let generator = schemars::generate::SchemaSettings::draft2020_12()
            .with(|settings| {
                settings.inline_subschemas = true;
                settings.meta_schema = None;
            })
            .into_generator();
        let document: Value = generator.into_root_schema_for::<T>().into();
        from_schemars(&document)
    }
}

/// Converts a schemars document into the subset.
fn from_schemars(document: &Value) -> Result<Schema, Problems> {
    let mut problems = Vec::new();
    let mut expanding = vec![Expansion {
        reference: "#".to_owned(),
        pointer: None,
    }];
    let converted = convert(document, "", document, &mut expanding, &mut problems);
    // A recursive type is found once per path into the cycle; one report per place is enough.
    let mut unique: Vec<Problem> = Vec::new();
    for problem in problems {
        if !unique.contains(&problem) {
            unique.push(problem);
        }
    }
    Problems::check(unique)?;
    Schema::from_json(&converted).map_err(|problems| {
        Problems(
            problems
                .0
                .into_iter()
                .map(|mut problem| {
                    // Outside the subset because of the Rust type: say so, keep the detail.
                    if problem.rule == Rule::UnsupportedKeyword {
                        problem.rule = Rule::UnsupportedRustType;
                        problem.message = format!(
                            "{} (in the schema derived from the Rust type)",
                            problem.message
                        );
                    }
                    problem
                })
                .collect(),
        )
    })
}

/// A `$ref` being inlined: what it refers to, and where it sits (`None` for the root).
struct Expansion {
    reference: String,
    pointer: Option<String>,
}

/// One schema, converted. `pointer` locates it in the converted document; `expanding` lists
/// the `$ref`s being inlined around it, to catch recursion.
fn convert(
    value: &Value,
    pointer: &str,
    root: &Value,
    expanding: &mut Vec<Expansion>,
    out: &mut Vec<Problem>,
) -> Value {
    let Value::Object(map) = value else {
        // `true` stays `{}`; anything else is for `Schema::from_json` to report.
        return value.clone();
    };
    if let Some(reference) = map.get("$ref") {
        return inline_ref(map, reference, pointer, root, expanding, out);
    }
    let mut result = Map::new();
    for (key, sub) in map {
        let at = push_pointer(pointer, key);
        match key.as_str() {
            "$schema" | "$defs" => {}
            k if DROPPED_ANNOTATIONS.contains(&k) => {}
            "properties" => {
                let converted = match sub {
                    Value::Object(properties) => Value::Object(
                        properties
                            .iter()
                            .map(|(name, schema)| {
                                let schema_at = push_pointer(&at, name);
                                let schema = convert(schema, &schema_at, root, expanding, out);
                                (name.clone(), schema)
                            })
                            .collect(),
                    ),
                    other => other.clone(),
                };
                result.insert(key.clone(), converted);
            }
            "additionalProperties" | "items" => {
                result.insert(key.clone(), convert(sub, &at, root, expanding, out));
            }
            "anyOf" => {
                let converted = match sub {
                    Value::Array(branches) => Value::Array(
                        branches
                            .iter()
                            .enumerate()
                            .map(|(i, branch)| {
                                let branch_at = push_pointer(&at, &i.to_string());
                                convert(branch, &branch_at, root, expanding, out)
                            })
                            .collect(),
                    ),
                    other => other.clone(),
                };
                result.insert(key.clone(), converted);
            }
            "oneOf" => {
                if let Some(values) = constant_branches(sub, &at, out) {
                    if map.contains_key("enum") || map.contains_key("const") {
                        out.push(Problem::new(
                            at,
                            Rule::UnsupportedRustType,
                            "`oneOf` of constants beside `enum` or `const` cannot be expressed in the subset",
                        ));
                    } else {
                        result.insert("enum".to_owned(), Value::Array(values));
                    }
                }
            }
            "format" => match sub.as_str().map(numeric_format) {
                Some(Some(width)) => add_integer_range(map, width, &mut result),
                // Not numeric: the subset's own formats pass, others are refused by parsing.
                _ => {
                    result.insert(key.clone(), sub.clone());
                }
            },
            _ => {
                result.insert(key.clone(), sub.clone());
            }
        }
    }
    Value::Object(result)
}

/// Inlines the schema a `$ref` points to, with the `$ref`'s sibling keywords.
fn inline_ref(
    map: &Map<String, Value>,
    reference: &Value,
    pointer: &str,
    root: &Value,
    expanding: &mut Vec<Expansion>,
    out: &mut Vec<Problem>,
) -> Value {
    let at = push_pointer(pointer, "$ref");
    let Some(reference) = reference.as_str() else {
        out.push(Problem::new(
            at,
            Rule::UnsupportedRustType,
            "`$ref` is not a string",
        ));
        return Value::Bool(true);
    };
    if let Some(cycle) = expanding.iter().find(|e| e.reference == reference) {
        // Report where the cycle is entered, not where it is noticed one turn later.
        let entry = cycle.pointer.clone().unwrap_or(at);
        out.push(Problem::new(
            entry,
            Rule::UnsupportedRustType,
            format!(
                "recursive type: `$ref` {reference} refers back to a type that contains it; \
                 the subset has no references, so a recursive type cannot be expressed"
            ),
        ));
        return Value::Bool(true);
    }
    let Some(target) = reference.strip_prefix('#').and_then(|p| root.pointer(p)) else {
        out.push(Problem::new(
            at,
            Rule::UnsupportedRustType,
            format!("`$ref` {reference} does not point into this schema's `$defs`"),
        ));
        return Value::Bool(true);
    };
    expanding.push(Expansion {
        reference: reference.to_owned(),
        pointer: Some(at),
    });
    let inlined = convert(target, pointer, root, expanding, out);
    expanding.pop();

    let siblings: Map<String, Value> = map
        .iter()
        .filter(|(key, _)| key.as_str() != "$ref")
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    if siblings.is_empty() {
        return inlined;
    }
    let siblings = convert(&Value::Object(siblings), pointer, root, expanding, out);
    let mut merged = match inlined {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    if let Value::Object(siblings) = siblings {
        for (key, value) in siblings {
            let annotation = matches!(
                key.as_str(),
                "title" | "description" | "default" | "examples"
            );
            match merged.get(&key) {
                Some(existing) if existing != &value && !annotation => out.push(Problem::new(
                    push_pointer(pointer, &key),
                    Rule::UnsupportedRustType,
                    format!("`{key}` beside `$ref` differs from the referenced schema's"),
                )),
                _ => {
                    merged.insert(key, value);
                }
            }
        }
    }
    Value::Object(merged)
}

/// The values of a `oneOf` whose branches are each one constant, or `None` (with a problem).
fn constant_branches(one_of: &Value, at: &str, out: &mut Vec<Problem>) -> Option<Vec<Value>> {
    let refuse = |out: &mut Vec<Problem>, why: &str| {
        out.push(Problem::new(
            at,
            Rule::UnsupportedRustType,
            format!(
                "keyword `oneOf` is outside the subset; it is accepted only when every branch \
                 is one constant (a unit-only enum), but {why}"
            ),
        ));
        None
    };
    let Some(branches) = one_of.as_array() else {
        return refuse(out, "it is not a list");
    };
    let mut values: Vec<Value> = Vec::new();
    for (i, branch) in branches.iter().enumerate() {
        let Some(map) = branch.as_object() else {
            return refuse(out, &format!("branch {i} is not an object"));
        };
        if let Some(key) = map
            .keys()
            .find(|k| !CONSTANT_BRANCH_KEYWORDS.contains(&k.as_str()))
        {
            return refuse(out, &format!("branch {i} has `{key}`"));
        }
        let value = match (map.get("const"), map.get("enum")) {
            (Some(value), None) => value,
            (None, Some(Value::Array(list))) if list.len() == 1 => &list[0],
            _ => return refuse(out, &format!("branch {i} is not exactly one value")),
        };
        if let Some(declared) = map.get("type")
            && !type_keyword_admits(declared, value)
        {
            return refuse(out, &format!("branch {i} admits no value"));
        }
        // `oneOf` rejects a value two branches accept; `enum` would accept it.
        if values.contains(value) {
            return refuse(out, &format!("branch {i} repeats {value}"));
        }
        values.push(value.clone());
    }
    Some(values)
}

fn type_keyword_admits(declared: &Value, value: &Value) -> bool {
    let admits = |name: &Value| {
        name.as_str()
            .and_then(crate::schema::JsonType::parse)
            .is_some_and(|t| t.admits(value))
    };
    match declared {
        Value::Array(names) => names.iter().any(admits),
        single => admits(single),
    }
}

/// What a numeric `format` says about the range of values.
#[derive(Debug, Clone, Copy)]
enum Width {
    /// `float`, `double`: nothing the type does not already say.
    Float,
    /// A signed integer's inclusive range.
    Signed(i128, i128),
    /// An unsigned integer's maximum.
    Unsigned(u128),
}

/// The numeric formats schemars emits; `None` for any other format.
fn numeric_format(name: &str) -> Option<Width> {
    Some(match name {
        "float" | "double" => Width::Float,
        "int8" => Width::Signed(i8::MIN.into(), i8::MAX.into()),
        "int16" => Width::Signed(i16::MIN.into(), i16::MAX.into()),
        "int32" => Width::Signed(i32::MIN.into(), i32::MAX.into()),
        "int64" => Width::Signed(i64::MIN.into(), i64::MAX.into()),
        "int" => Width::Signed(isize::MIN as i128, isize::MAX as i128),
        "int128" => Width::Signed(i128::MIN, i128::MAX),
        "uint8" => Width::Unsigned(u8::MAX.into()),
        "uint16" => Width::Unsigned(u16::MAX.into()),
        "uint32" => Width::Unsigned(u32::MAX.into()),
        "uint64" => Width::Unsigned(u64::MAX.into()),
        "uint" => Width::Unsigned(usize::MAX as u128),
        "uint128" => Width::Unsigned(u128::MAX),
        _ => return None,
    })
}

/// Replaces a numeric `format` with the range it implies, where the schema lacks one.
fn add_integer_range(map: &Map<String, Value>, width: Width, result: &mut Map<String, Value>) {
    let (low, high) = match width {
        Width::Float => return,
        Width::Signed(low, high) => (wide_number(low), wide_number(high)),
        Width::Unsigned(high) => (Some(Number::from(0)), wide_unsigned(high)),
    };
    let bounded_below = map.contains_key("minimum") || map.contains_key("exclusiveMinimum");
    let bounded_above = map.contains_key("maximum") || map.contains_key("exclusiveMaximum");
    if !bounded_below && let Some(low) = low {
        result.insert("minimum".to_owned(), Value::Number(low));
    }
    if !bounded_above && let Some(high) = high {
        result.insert("maximum".to_owned(), Value::Number(high));
    }
}

/// A JSON number for an integer bound. Beyond 64 bits JSON numbers are floats here; the
/// nearest float is used (128-bit bounds are off by at most the float's rounding).
fn wide_number(n: i128) -> Option<Number> {
    if let Ok(small) = i64::try_from(n) {
        Some(Number::from(small))
    } else {
        Number::from_f64(n as f64)
    }
}

fn wide_unsigned(n: u128) -> Option<Number> {
    if let Ok(small) = u64::try_from(n) {
        Some(Number::from(small))
    } else {
        Number::from_f64(n as f64)
    }
}
