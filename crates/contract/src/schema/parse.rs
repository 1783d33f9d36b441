//! Parsing the subset: every keyword checked, every problem collected with its JSON pointer,
//! then the combinations that cannot be meant refused.

use super::*;

/// Parses one schema value; `None` when it is not even an object.
pub(super) fn parse_at(value: &Value, pointer: &str, out: &mut Vec<Problem>) -> Option<Schema> {
    let map = match value {
        Value::Object(map) => map,
        Value::Bool(true) => return Some(Schema::any()),
        Value::Bool(false) => {
            out.push(Problem::new(
                pointer,
                Rule::InvalidSchema,
                "the schema `false` admits nothing; the subset has no use for it",
            ));
            return None;
        }
        other => {
            out.push(Problem::new(
                pointer,
                Rule::WrongType,
                format!(
                    "a schema must be an object, found {}",
                    json_type_name(other)
                ),
            ));
            return None;
        }
    };
    let mut schema = Schema::default();
    for (key, value) in map {
        let at = push_pointer(pointer, key);
        if !KEYWORDS.contains(&key.as_str()) {
            out.push(Problem::new(
                at,
                Rule::UnsupportedKeyword,
                format!("keyword `{key}` is not in the supported JSON-Schema subset"),
            ));
            continue;
        }
        parse_keyword(&mut schema, key, value, &at, out);
    }
    check_consistency(&schema, pointer, out);
    Some(schema)
}

fn parse_keyword(schema: &mut Schema, key: &str, value: &Value, at: &str, out: &mut Vec<Problem>) {
    match key {
        "type" => schema.types = parse_types(value, at, out),
        "properties" => {
            if let Some(map) = expect_object(value, at, out) {
                for (name, sub) in map {
                    let sub_at = push_pointer(at, name);
                    if let Some(s) = parse_at(sub, &sub_at, out) {
                        schema.properties.insert(name.clone(), s);
                    }
                }
            }
        }
        "required" => {
            if let Some(list) = expect_array(value, at, out) {
                let mut names = Vec::new();
                for (i, item) in list.iter().enumerate() {
                    let item_at = push_pointer(at, &i.to_string());
                    match item {
                        Value::String(name) if names.contains(name) => out.push(Problem::new(
                            item_at,
                            Rule::InvalidSchema,
                            format!("`{name}` is listed twice in `required`"),
                        )),
                        Value::String(name) => names.push(name.clone()),
                        other => out.push(wrong_type(&item_at, "a property name", other)),
                    }
                }
                names.sort();
                schema.required = names;
            }
        }
        "additionalProperties" => {
            schema.additional_properties = match value {
                Value::Bool(true) => Some(Additional::Any),
                Value::Bool(false) => Some(Additional::Forbidden),
                other => parse_at(other, at, out).map(|s| Additional::Schema(Box::new(s))),
            }
        }
        "items" => schema.items = parse_at(value, at, out).map(Box::new),
        "enum" => {
            if let Some(list) = expect_array(value, at, out) {
                if list.is_empty() {
                    out.push(Problem::new(
                        at,
                        Rule::InvalidSchema,
                        "`enum` must list at least one value",
                    ));
                }
                for (i, v) in list.iter().enumerate() {
                    if list[..i].contains(v) {
                        out.push(Problem::new(
                            push_pointer(at, &i.to_string()),
                            Rule::InvalidSchema,
                            format!("{v} is listed twice in `enum`"),
                        ));
                    }
                }
                schema.enum_values = Some(list.clone());
            }
        }
        "const" => schema.const_value = Some(value.clone()),
        "anyOf" => {
            if let Some(list) = expect_array(value, at, out) {
                if list.is_empty() {
                    out.push(Problem::new(
                        at,
                        Rule::InvalidSchema,
                        "`anyOf` must list at least one schema",
                    ));
                }
                let branches = list
                    .iter()
                    .enumerate()
                    .filter_map(|(i, v)| parse_at(v, &push_pointer(at, &i.to_string()), out))
                    .collect();
                schema.any_of = Some(branches);
            }
        }
        "format" => match value {
            Value::String(name) => match Format::parse(name) {
                Some(format) => schema.format = Some(format),
                None => out.push(Problem::new(
                    at,
                    Rule::UnsupportedKeyword,
                    format!(
                        "format `{name}` is not supported (supported: date-time, date, uri, email)"
                    ),
                )),
            },
            other => out.push(wrong_type(at, "a format name", other)),
        },
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
            let number = match value {
                Value::Number(n) => Some(n.clone()),
                other => {
                    out.push(wrong_type(at, "a number", other));
                    None
                }
            };
            match key {
                "minimum" => schema.minimum = number,
                "maximum" => schema.maximum = number,
                "exclusiveMinimum" => schema.exclusive_minimum = number,
                _ => schema.exclusive_maximum = number,
            }
        }
        "minLength" | "maxLength" | "minItems" | "maxItems" => {
            let count = match value {
                Value::Number(n) if n.as_u64().is_some() => n.as_u64(),
                other => {
                    out.push(wrong_type(at, "a non-negative integer", other));
                    None
                }
            };
            match key {
                "minLength" => schema.min_length = count,
                "maxLength" => schema.max_length = count,
                "minItems" => schema.min_items = count,
                _ => schema.max_items = count,
            }
        }
        "pattern" => match value {
            Value::String(pattern) => {
                if let Err(e) = regex::Regex::new(pattern) {
                    out.push(Problem::new(
                        at,
                        Rule::InvalidSchema,
                        format!("`pattern` is not a valid regular expression: {e}"),
                    ));
                }
                schema.pattern = Some(pattern.clone());
            }
            other => out.push(wrong_type(at, "a regular expression string", other)),
        },
        "title" | "description" => match value {
            Value::String(text) if key == "title" => schema.title = Some(text.clone()),
            Value::String(text) => schema.description = Some(text.clone()),
            other => out.push(wrong_type(at, "a string", other)),
        },
        "default" => schema.default = Some(value.clone()),
        "examples" => {
            if let Some(list) = expect_array(value, at, out) {
                schema.examples = Some(list.clone());
            }
        }
        _ => unreachable!("KEYWORDS and parse_keyword list the same keywords"),
    }
}

fn parse_types(value: &Value, at: &str, out: &mut Vec<Problem>) -> Option<Vec<JsonType>> {
    let one = |name: &Value, at: &str, out: &mut Vec<Problem>| {
        match name {
        Value::String(s) => JsonType::parse(s).or_else(|| {
            out.push(Problem::new(
                at,
                Rule::InvalidSchema,
                format!(
                    "`{s}` is not a JSON type (array, boolean, integer, null, number, object, string)"
                ),
            ));
            None
        }),
        other => {
            out.push(wrong_type(at, "a type name", other));
            None
        }
    }
    };
    match value {
        Value::Array(list) => {
            if list.is_empty() {
                out.push(Problem::new(
                    at,
                    Rule::InvalidSchema,
                    "`type` must name at least one type",
                ));
                return None;
            }
            let mut types = Vec::new();
            for (i, item) in list.iter().enumerate() {
                let item_at = push_pointer(at, &i.to_string());
                if let Some(t) = one(item, &item_at, out) {
                    if types.contains(&t) {
                        out.push(Problem::new(
                            item_at,
                            Rule::InvalidSchema,
                            format!("type `{t}` is listed twice"),
                        ));
                    } else {
                        types.push(t);
                    }
                }
            }
            types.sort();
            Some(types)
        }
        single => one(single, at, out).map(|t| vec![t]),
    }
}

/// Keyword combinations that cannot be meant: they make a schema unsatisfiable, or apply
/// keywords to a type the schema excludes.
fn check_consistency(schema: &Schema, pointer: &str, out: &mut Vec<Problem>) {
    let mut bad = |message: String| out.push(Problem::new(pointer, Rule::InvalidSchema, message));
    let pairs = [
        (
            "minLength",
            schema.min_length,
            "maxLength",
            schema.max_length,
        ),
        ("minItems", schema.min_items, "maxItems", schema.max_items),
    ];
    for (lo_name, lo, hi_name, hi) in pairs {
        if let (Some(lo), Some(hi)) = (lo, hi)
            && lo > hi
        {
            bad(format!(
                "`{lo_name}` ({lo}) is greater than `{hi_name}` ({hi}): nothing can match"
            ));
        }
    }
    if let (Some(lo), Some(hi)) = (&schema.minimum, &schema.maximum)
        && lo.as_f64() > hi.as_f64()
    {
        bad(format!(
            "`minimum` ({lo}) is greater than `maximum` ({hi}): nothing can match"
        ));
    }
    if schema.additional_properties == Some(Additional::Forbidden) {
        for name in &schema.required {
            if !schema.properties.contains_key(name) {
                bad(format!(
                    "`{name}` is required but not in `properties`, and `additionalProperties` is false: nothing can match"
                ));
            }
        }
    }
    let Some(types) = &schema.types else { return };
    let allows = |t: JsonType| {
        types.contains(&t) || (t == JsonType::Number && types.contains(&JsonType::Integer))
    };
    let groups: [(JsonType, &[(&str, bool)]); 3] = [
        (
            JsonType::Object,
            &[
                ("properties", !schema.properties.is_empty()),
                ("required", !schema.required.is_empty()),
                (
                    "additionalProperties",
                    schema.additional_properties.is_some(),
                ),
            ],
        ),
        (
            JsonType::Array,
            &[
                ("items", schema.items.is_some()),
                ("minItems", schema.min_items.is_some()),
                ("maxItems", schema.max_items.is_some()),
            ],
        ),
        (
            JsonType::String,
            &[
                ("minLength", schema.min_length.is_some()),
                ("maxLength", schema.max_length.is_some()),
                ("pattern", schema.pattern.is_some()),
                ("format", schema.format.is_some()),
            ],
        ),
    ];
    for (needed, keywords) in groups {
        for (keyword, present) in keywords {
            if *present && !allows(needed) {
                bad(format!(
                    "`{keyword}` applies to {needed} values, but `type` excludes {needed}"
                ));
            }
        }
    }
    let numeric = [
        ("minimum", schema.minimum.is_some()),
        ("maximum", schema.maximum.is_some()),
        ("exclusiveMinimum", schema.exclusive_minimum.is_some()),
        ("exclusiveMaximum", schema.exclusive_maximum.is_some()),
    ];
    for (keyword, present) in numeric {
        if present && !allows(JsonType::Number) {
            bad(format!(
                "`{keyword}` applies to numbers, but `type` excludes numbers"
            ));
        }
    }
}

fn expect_object<'a>(
    value: &'a Value,
    at: &str,
    out: &mut Vec<Problem>,
) -> Option<&'a Map<String, Value>> {
    match value {
        Value::Object(map) => Some(map),
        other => {
            out.push(wrong_type(at, "an object", other));
            None
        }
    }
}

fn expect_array<'a>(value: &'a Value, at: &str, out: &mut Vec<Problem>) -> Option<&'a Vec<Value>> {
    match value {
        Value::Array(list) => Some(list),
        other => {
            out.push(wrong_type(at, "an array", other));
            None
        }
    }
}

pub(crate) fn wrong_type(at: &str, expected: &str, found: &Value) -> Problem {
    Problem::new(
        at,
        Rule::WrongType,
        format!("expected {expected}, found {}", json_type_name(found)),
    )
}
