//! The JSON-Schema subset: a typed representation, strict parsing, and serialisation back
//! to standard JSON Schema 2020-12.
//!
//! Supported keywords: `type` (one name or a list), `properties`, `required`,
//! `additionalProperties` (boolean or schema), `items`, `enum`, `const`, `anyOf`, `format`
//! (`date-time`, `date`, `uri`, `email`), `minimum`, `maximum`, `exclusiveMinimum`,
//! `exclusiveMaximum`, `minLength`, `maxLength`, `pattern`, `minItems`, `maxItems`, and the
//! annotations `title`, `description`, `default`, `examples`. Every other keyword (`$ref`,
//! `allOf`, `oneOf`, `not`, `if`, …) is refused with a [`Rule::UnsupportedKeyword`] problem
//! naming the keyword and its JSON pointer.
//!
//! A parsed schema is *normalised*: `type` lists and `required` are sorted and free of
//! duplicates, and the schema `true` becomes `{}`. So two spellings of the same schema
//! serialise, and digest, identically.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map, Number, Value};

use crate::problem::{Problem, Problems, Rule, json_type_name, push_pointer};

mod parse;

use parse::parse_at;
pub(crate) use parse::wrong_type;

/// The URI of the dialect a [`Schema`] serialises to.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// A JSON type name, as used by the `type` keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum JsonType {
    /// `"array"`
    Array,
    /// `"boolean"`
    Boolean,
    /// `"integer"`: a number with no fractional part.
    Integer,
    /// `"null"`
    Null,
    /// `"number"`
    Number,
    /// `"object"`
    Object,
    /// `"string"`
    String,
}

impl JsonType {
    /// Every type, in sorted order.
    pub const ALL: [JsonType; 7] = [
        JsonType::Array,
        JsonType::Boolean,
        JsonType::Integer,
        JsonType::Null,
        JsonType::Number,
        JsonType::Object,
        JsonType::String,
    ];

    /// The keyword spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            JsonType::Array => "array",
            JsonType::Boolean => "boolean",
            JsonType::Integer => "integer",
            JsonType::Null => "null",
            JsonType::Number => "number",
            JsonType::Object => "object",
            JsonType::String => "string",
        }
    }

    /// Parses a keyword spelling.
    pub fn parse(name: &str) -> Option<JsonType> {
        JsonType::ALL.into_iter().find(|t| t.as_str() == name)
    }

    /// Whether `value` is of this type (`integer` also accepts `1.0`, as JSON Schema does).
    pub fn admits(self, value: &Value) -> bool {
        match (self, value) {
            (JsonType::Array, Value::Array(_))
            | (JsonType::Boolean, Value::Bool(_))
            | (JsonType::Null, Value::Null)
            | (JsonType::Number, Value::Number(_))
            | (JsonType::Object, Value::Object(_))
            | (JsonType::String, Value::String(_)) => true,
            (JsonType::Integer, Value::Number(n)) => is_integral(n),
            _ => false,
        }
    }
}

impl fmt::Display for JsonType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether a JSON number has no fractional part.
pub(crate) fn is_integral(n: &Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// A string `format` the subset validates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Format {
    /// `"date-time"` (RFC 3339).
    DateTime,
    /// `"date"` (RFC 3339 full-date).
    Date,
    /// `"uri"` (RFC 3986).
    Uri,
    /// `"email"` (RFC 5321 mailbox).
    Email,
}

impl Format {
    /// The keyword spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::DateTime => "date-time",
            Format::Date => "date",
            Format::Uri => "uri",
            Format::Email => "email",
        }
    }

    /// Parses a keyword spelling.
    pub fn parse(name: &str) -> Option<Format> {
        [Format::DateTime, Format::Date, Format::Uri, Format::Email]
            .into_iter()
            .find(|f| f.as_str() == name)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What `additionalProperties` allows for keys not named in `properties`.
#[derive(Debug, Clone, PartialEq)]
pub enum Additional {
    /// `true` (or absent): anything.
    Any,
    /// `false`: no other key.
    Forbidden,
    /// A schema every other value must match.
    Schema(Box<Schema>),
}

/// A schema of the supported JSON-Schema subset. `Schema::default()` is `{}`: any value.
///
/// Build one by parsing ([`Schema::from_json`]), from a Rust type ([`Schema::of`]), or with
/// the constructors ([`Schema::string`], [`Schema::object`], …).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Schema {
    /// `type`: sorted, without duplicates; `None` means any type.
    pub types: Option<Vec<JsonType>>,
    /// `properties`, by name.
    pub properties: BTreeMap<String, Schema>,
    /// `required`: sorted, without duplicates.
    pub required: Vec<String>,
    /// `additionalProperties`; `None` when absent (which allows anything).
    pub additional_properties: Option<Additional>,
    /// `items`.
    pub items: Option<Box<Schema>>,
    /// `enum`: the allowed values, in the author's order.
    pub enum_values: Option<Vec<Value>>,
    /// `const`.
    pub const_value: Option<Value>,
    /// `anyOf`.
    pub any_of: Option<Vec<Schema>>,
    /// `format`.
    pub format: Option<Format>,
    /// `minimum`.
    pub minimum: Option<Number>,
    /// `maximum`.
    pub maximum: Option<Number>,
    /// `exclusiveMinimum` (2020-12: a number).
    pub exclusive_minimum: Option<Number>,
    /// `exclusiveMaximum` (2020-12: a number).
    pub exclusive_maximum: Option<Number>,
    /// `minLength`, in Unicode code points.
    pub min_length: Option<u64>,
    /// `maxLength`, in Unicode code points.
    pub max_length: Option<u64>,
    /// `pattern`: an ECMA-262 regular expression, unanchored.
    pub pattern: Option<String>,
    /// `minItems`.
    pub min_items: Option<u64>,
    /// `maxItems`.
    pub max_items: Option<u64>,
    /// `title` (annotation).
    pub title: Option<String>,
    /// `description` (annotation).
    pub description: Option<String>,
    /// `default` (annotation; checked against the schema).
    pub default: Option<Value>,
    /// `examples` (annotation; each checked against the schema).
    pub examples: Option<Vec<Value>>,
}

const KEYWORDS: &[&str] = &[
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
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "title",
    "description",
    "default",
    "examples",
];

impl Schema {
    /// `{}`: any value.
    pub fn any() -> Schema {
        Schema::default()
    }

    /// A schema admitting exactly the given types.
    pub fn of_types(types: &[JsonType]) -> Schema {
        let mut list = types.to_vec();
        list.sort();
        list.dedup();
        Schema {
            types: Some(list),
            ..Schema::default()
        }
    }

    /// `{"type": "string"}`.
    pub fn string() -> Schema {
        Schema::of_types(&[JsonType::String])
    }

    /// `{"type": "number"}`.
    pub fn number() -> Schema {
        Schema::of_types(&[JsonType::Number])
    }

    /// `{"type": "integer"}`.
    pub fn integer() -> Schema {
        Schema::of_types(&[JsonType::Integer])
    }

    /// `{"type": "boolean"}`.
    pub fn boolean() -> Schema {
        Schema::of_types(&[JsonType::Boolean])
    }

    /// `{"type": "null"}`.
    pub fn null() -> Schema {
        Schema::of_types(&[JsonType::Null])
    }

    /// `{"type": "array", "items": items}`.
    pub fn array(items: Schema) -> Schema {
        Schema {
            items: Some(Box::new(items)),
            ..Schema::of_types(&[JsonType::Array])
        }
    }

    /// A closed object: every listed property required, no other key allowed.
    pub fn object<'a>(properties: impl IntoIterator<Item = (&'a str, Schema)>) -> Schema {
        let properties: BTreeMap<String, Schema> = properties
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect();
        Schema {
            required: properties.keys().cloned().collect(),
            properties,
            additional_properties: Some(Additional::Forbidden),
            ..Schema::of_types(&[JsonType::Object])
        }
    }

    /// This schema, also admitting `null`.
    pub fn nullable(mut self) -> Schema {
        if let Some(types) = &mut self.types {
            if !types.contains(&JsonType::Null) {
                types.push(JsonType::Null);
                types.sort();
            }
            if let Some(values) = &mut self.enum_values
                && !values.contains(&Value::Null)
            {
                values.push(Value::Null);
            }
            self
        } else {
            Schema {
                any_of: Some(vec![self, Schema::null()]),
                ..Schema::default()
            }
        }
    }

    /// Parses a schema, reporting every problem with its JSON pointer.
    pub fn from_json(value: &Value) -> Result<Schema, Problems> {
        let mut problems = Vec::new();
        let schema = parse_at(value, "", &mut problems);
        Problems::check(problems)?;
        let schema = schema.unwrap_or_default();
        schema.check_annotations()?;
        Ok(schema)
    }

    /// Parses a schema nested in a larger document at `pointer`, appending problems to `out`.
    pub(crate) fn parse_nested(value: &Value, pointer: &str, out: &mut Vec<Problem>) -> Schema {
        let before = out.len();
        let schema = parse_at(value, pointer, out).unwrap_or_default();
        if out.len() == before {
            out.extend(schema.annotation_problems(pointer));
        }
        schema
    }

    /// Standard JSON Schema 2020-12 for this schema (without `$schema`, as a subschema).
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        if let Some(types) = &self.types {
            let value = match types.as_slice() {
                [one] => Value::String(one.as_str().to_owned()),
                many => Value::Array(
                    many.iter()
                        .map(|t| Value::String(t.as_str().to_owned()))
                        .collect(),
                ),
            };
            map.insert("type".into(), value);
        }
        if !self.properties.is_empty() {
            let props = self
                .properties
                .iter()
                .map(|(k, v)| (k.clone(), v.to_json()))
                .collect();
            map.insert("properties".into(), Value::Object(props));
        }
        if !self.required.is_empty() {
            map.insert(
                "required".into(),
                Value::Array(self.required.iter().cloned().map(Value::String).collect()),
            );
        }
        match &self.additional_properties {
            None => {}
            Some(Additional::Any) => {
                map.insert("additionalProperties".into(), Value::Bool(true));
            }
            Some(Additional::Forbidden) => {
                map.insert("additionalProperties".into(), Value::Bool(false));
            }
            Some(Additional::Schema(s)) => {
                map.insert("additionalProperties".into(), s.to_json());
            }
        }
        if let Some(items) = &self.items {
            map.insert("items".into(), items.to_json());
        }
        if let Some(values) = &self.enum_values {
            map.insert("enum".into(), Value::Array(values.clone()));
        }
        if let Some(value) = &self.const_value {
            map.insert("const".into(), value.clone());
        }
        if let Some(branches) = &self.any_of {
            map.insert(
                "anyOf".into(),
                Value::Array(branches.iter().map(Schema::to_json).collect()),
            );
        }
        if let Some(format) = self.format {
            map.insert("format".into(), Value::String(format.as_str().to_owned()));
        }
        let numbers = [
            ("minimum", &self.minimum),
            ("maximum", &self.maximum),
            ("exclusiveMinimum", &self.exclusive_minimum),
            ("exclusiveMaximum", &self.exclusive_maximum),
        ];
        for (key, value) in numbers {
            if let Some(n) = value {
                map.insert(key.into(), Value::Number(n.clone()));
            }
        }
        let counts = [
            ("minLength", self.min_length),
            ("maxLength", self.max_length),
            ("minItems", self.min_items),
            ("maxItems", self.max_items),
        ];
        for (key, value) in counts {
            if let Some(n) = value {
                map.insert(key.into(), Value::from(n));
            }
        }
        if let Some(pattern) = &self.pattern {
            map.insert("pattern".into(), Value::String(pattern.clone()));
        }
        if let Some(title) = &self.title {
            map.insert("title".into(), Value::String(title.clone()));
        }
        if let Some(description) = &self.description {
            map.insert("description".into(), Value::String(description.clone()));
        }
        if let Some(default) = &self.default {
            map.insert("default".into(), default.clone());
        }
        if let Some(examples) = &self.examples {
            map.insert("examples".into(), Value::Array(examples.clone()));
        }
        Value::Object(map)
    }

    /// The schema without its descriptive annotations (`title`, `description`, `examples`),
    /// at every depth: what the contract digest covers. `default` stays: it changes what a
    /// caller may omit.
    pub fn without_annotations(&self) -> Schema {
        let strip = |s: &Schema| s.without_annotations();
        Schema {
            title: None,
            description: None,
            examples: None,
            properties: self
                .properties
                .iter()
                .map(|(k, v)| (k.clone(), strip(v)))
                .collect(),
            additional_properties: match &self.additional_properties {
                Some(Additional::Schema(s)) => Some(Additional::Schema(Box::new(strip(s)))),
                other => other.clone(),
            },
            items: self.items.as_deref().map(|s| Box::new(strip(s))),
            any_of: self
                .any_of
                .as_ref()
                .map(|branches| branches.iter().map(strip).collect()),
            ..self.clone()
        }
    }

    /// A standalone JSON Schema 2020-12 document: [`Schema::to_json`] plus `$schema`.
    pub fn to_document(&self) -> Value {
        let mut value = self.to_json();
        if let Value::Object(map) = &mut value {
            map.insert("$schema".into(), Value::String(DIALECT.to_owned()));
        }
        value
    }

    /// A short human description of the schema's type, for messages: `number`,
    /// `string | null`, `object`, `"EUR" | "USD"`, `any`.
    pub fn describe(&self) -> String {
        if let Some(value) = &self.const_value {
            return value.to_string();
        }
        if let Some(values) = &self.enum_values {
            return values
                .iter()
                .map(Value::to_string)
                .collect::<Vec<_>>()
                .join(" | ");
        }
        if let Some(branches) = &self.any_of {
            return branches
                .iter()
                .map(Schema::describe)
                .collect::<Vec<_>>()
                .join(" | ");
        }
        match &self.types {
            None => "any".to_owned(),
            Some(types) => types
                .iter()
                .map(|t| t.as_str())
                .collect::<Vec<_>>()
                .join(" | "),
        }
    }

    /// Checks every `default` and `examples` value against the schema it annotates.
    fn check_annotations(&self) -> Result<(), Problems> {
        Problems::check(self.annotation_problems(""))
    }

    /// Every `default` or example that its schema rejects, located under `pointer`.
    pub(crate) fn annotation_problems(&self, pointer: &str) -> Vec<Problem> {
        let mut problems = Vec::new();
        self.collect_annotation_problems(pointer, &mut problems);
        problems
    }

    fn collect_annotation_problems(&self, pointer: &str, out: &mut Vec<Problem>) {
        if self.default.is_some() || self.examples.is_some() {
            let bare = Schema {
                default: None,
                examples: None,
                ..self.clone()
            };
            match crate::validate::CompiledSchema::new(&bare) {
                Ok(compiled) => {
                    let mut check = |value: &Value, at: String, what: &str| {
                        if let Err(errors) = compiled.validate(value) {
                            let first = errors.first().map(ToString::to_string).unwrap_or_default();
                            out.push(Problem::new(
                                at,
                                Rule::InvalidDefault,
                                format!("{what} {value} does not match its schema: {first}"),
                            ));
                        }
                    };
                    if let Some(default) = &self.default {
                        check(default, push_pointer(pointer, "default"), "default");
                    }
                    for (i, example) in self.examples.iter().flatten().enumerate() {
                        let at = push_pointer(&push_pointer(pointer, "examples"), &i.to_string());
                        check(example, at, "example");
                    }
                }
                Err(problems) => out.extend(problems.0),
            }
        }
        for (name, property) in &self.properties {
            let at = push_pointer(&push_pointer(pointer, "properties"), name);
            property.collect_annotation_problems(&at, out);
        }
        if let Some(Additional::Schema(s)) = &self.additional_properties {
            s.collect_annotation_problems(&push_pointer(pointer, "additionalProperties"), out);
        }
        if let Some(items) = &self.items {
            items.collect_annotation_problems(&push_pointer(pointer, "items"), out);
        }
        for (i, branch) in self.any_of.iter().flatten().enumerate() {
            let at = push_pointer(&push_pointer(pointer, "anyOf"), &i.to_string());
            branch.collect_annotation_problems(&at, out);
        }
    }
}

impl fmt::Display for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

impl serde::Serialize for Schema {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

impl<'de> serde::Deserialize<'de> for Schema {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Schema::from_json(&value).map_err(serde::de::Error::custom)
    }
}
