//! The static type of a reference: walking paths through schemas, and type sets for
//! conditions.

use std::collections::BTreeSet;

use browserflow_contract::{Additional, JsonType, Schema};
use serde_json::Value;

/// The type of a value source, as the compiler sees it.
#[derive(Debug, Clone)]
pub(crate) struct Typed {
    /// The schema of the value when it is present.
    pub schema: Schema,
    /// When the value carries a secret: what carries it, for messages (`secret.X`,
    /// `input.token`).
    pub secret: Option<String>,
    /// When the value comes from a conditional step, that step (its output may be `null`).
    pub conditional: Option<String>,
}

impl Typed {
    pub(crate) fn plain(schema: Schema) -> Typed {
        Typed {
            schema,
            secret: None,
            conditional: None,
        }
    }

    /// The schema including the `null` a skipped step leaves.
    pub(crate) fn with_skip(&self) -> Schema {
        maybe_null(self.schema.clone(), self.conditional.is_some())
    }
}

/// The schema of `segment` inside a value of `schema`, and whether the member may be absent
/// (which reads as `null`).
pub(crate) fn member(schema: &Schema, segment: &str) -> Result<(Schema, bool), String> {
    if schema.types.is_none()
        && let Some(branches) = &schema.any_of
    {
        let mut found = Vec::new();
        let mut absent = false;
        for branch in branches {
            if only_null(branch) {
                absent = true;
                continue;
            }
            let (s, a) = member(branch, segment)?;
            found.push(s);
            absent |= a;
        }
        let schema = match found.len() {
            0 => return Err("is always null and has no members".to_owned()),
            1 => found.remove(0),
            _ => Schema {
                any_of: Some(found),
                ..Schema::default()
            },
        };
        return Ok((schema, absent));
    }
    let types = schema
        .types
        .clone()
        .unwrap_or_else(|| JsonType::ALL.to_vec());
    let nullable = types.contains(&JsonType::Null);
    if types.contains(&JsonType::Object) {
        if let Some(property) = schema.properties.get(segment) {
            return Ok((
                property.clone(),
                nullable || !schema.required.iter().any(|r| r == segment),
            ));
        }
        match &schema.additional_properties {
            Some(Additional::Schema(s)) => return Ok(((**s).clone(), true)),
            None | Some(Additional::Any) => return Ok((Schema::any(), true)),
            Some(Additional::Forbidden) if !types.contains(&JsonType::Array) => {
                let known: Vec<&str> = schema.properties.keys().map(String::as_str).collect();
                return Err(format!(
                    "has no property `{segment}` (properties: {})",
                    known.join(", ")
                ));
            }
            Some(Additional::Forbidden) => {}
        }
    }
    if types.contains(&JsonType::Array)
        && !segment.is_empty()
        && segment.bytes().all(|b| b.is_ascii_digit())
    {
        let items = schema.items.as_deref().cloned().unwrap_or_default();
        return Ok((items, true));
    }
    Err(format!(
        "is {} and has no member `{segment}`",
        schema.describe()
    ))
}

/// The schema at `path` inside `schema`, `null` admitted when some step of the path may be
/// absent. The error gives how many segments were read before the failing one, and why.
pub(crate) fn at_path(schema: &Schema, path: &[String]) -> Result<Schema, (usize, String)> {
    let mut current = schema.clone();
    let mut absent = false;
    for (depth, segment) in path.iter().enumerate() {
        let (next, a) = member(&current, segment).map_err(|m| (depth, m))?;
        current = next;
        absent |= a;
    }
    Ok(maybe_null(current, absent))
}

/// `schema`, admitting `null` too when `absent` (a schema that admits anything already does).
pub(crate) fn maybe_null(schema: Schema, absent: bool) -> Schema {
    if !absent || schema == Schema::any() {
        schema
    } else {
        schema.nullable()
    }
}

fn only_null(schema: &Schema) -> bool {
    schema.types.as_deref() == Some(&[JsonType::Null]) || schema.const_value == Some(Value::Null)
}

/// The JSON types a schema admits (`integer` folded into `number`); `None` for any type.
pub(crate) fn type_set(schema: &Schema) -> Option<BTreeSet<JsonType>> {
    let fold = |t: JsonType| {
        if t == JsonType::Integer {
            JsonType::Number
        } else {
            t
        }
    };
    if let Some(v) = &schema.const_value {
        return Some([fold(value_type(v))].into());
    }
    if let Some(values) = &schema.enum_values {
        return Some(values.iter().map(|v| fold(value_type(v))).collect());
    }
    if let Some(branches) = &schema.any_of {
        let mut all = BTreeSet::new();
        for b in branches {
            all.extend(type_set(b)?);
        }
        return Some(all);
    }
    schema
        .types
        .as_ref()
        .map(|ts| ts.iter().map(|t| fold(*t)).collect())
}

pub(crate) fn value_type(value: &Value) -> JsonType {
    match value {
        Value::Null => JsonType::Null,
        Value::Bool(_) => JsonType::Boolean,
        Value::Number(_) => JsonType::Number,
        Value::String(_) => JsonType::String,
        Value::Array(_) => JsonType::Array,
        Value::Object(_) => JsonType::Object,
    }
}

/// Names a type set for messages.
pub(crate) fn describe_set(set: &Option<BTreeSet<JsonType>>) -> String {
    match set {
        None => "any".to_owned(),
        Some(s) => s.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(" | "),
    }
}

/// The schema of a literal: exactly that value.
pub(crate) fn literal_schema(value: &Value) -> Schema {
    Schema {
        const_value: Some(value.clone()),
        ..Schema::default()
    }
}

/// What a template placeholder may hold: text, a number or a boolean.
pub(crate) fn interpolable() -> Schema {
    Schema::of_types(&[JsonType::String, JsonType::Number, JsonType::Boolean])
}
