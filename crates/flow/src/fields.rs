//! Strict reading of JSON objects, after the contract crate's reader: every field accounted
//! for, every problem collected as a [`Diagnostic`].

use browserflow_contract::{Rule, push_pointer};
use serde_json::{Map, Value};

use crate::diagnostic::{Code, Diagnostic};

pub(crate) fn wrong_type(at: &str, expected: &str, found: &Value) -> Diagnostic {
    Diagnostic::new(
        Code::Invalid(Rule::WrongType),
        at,
        format!(
            "expected {expected}, found {}",
            crate::json_type_name(found)
        ),
    )
}

/// Reads the fields of one JSON object, remembering which were read so that the rest can be
/// refused as unknown.
pub(crate) struct Fields<'a> {
    map: Option<&'a Map<String, Value>>,
    pointer: String,
    what: &'static str,
    seen: Vec<&'static str>,
}

impl<'a> Fields<'a> {
    /// Opens `value` as the object `what` at `pointer`.
    pub(crate) fn open(
        value: &'a Value,
        pointer: &str,
        what: &'static str,
        out: &mut Vec<Diagnostic>,
    ) -> Fields<'a> {
        let map = match value {
            Value::Object(map) => Some(map),
            other => {
                out.push(wrong_type(pointer, what, other));
                None
            }
        };
        Fields {
            map,
            pointer: pointer.to_owned(),
            what,
            seen: Vec::new(),
        }
    }

    /// A field that may be absent.
    pub(crate) fn optional(&mut self, key: &'static str) -> Option<(&'a Value, String)> {
        self.seen.push(key);
        let value = self.map?.get(key)?;
        Some((value, push_pointer(&self.pointer, key)))
    }

    /// A required field.
    pub(crate) fn take(
        &mut self,
        key: &'static str,
        out: &mut Vec<Diagnostic>,
    ) -> Option<(&'a Value, String)> {
        let found = self.optional(key);
        if found.is_none() && self.map.is_some() {
            out.push(Diagnostic::new(
                Code::Invalid(Rule::MissingField),
                self.pointer.clone(),
                format!("{} needs the field `{key}`", self.what),
            ));
        }
        found
    }

    /// A required string field.
    pub(crate) fn string(
        &mut self,
        key: &'static str,
        out: &mut Vec<Diagnostic>,
    ) -> Option<(String, String)> {
        let (value, at) = self.take(key, out)?;
        as_string(value, &at, out).map(|s| (s, at))
    }

    /// An optional string field.
    pub(crate) fn optional_string(
        &mut self,
        key: &'static str,
        out: &mut Vec<Diagnostic>,
    ) -> Option<(String, String)> {
        let (value, at) = self.optional(key)?;
        as_string(value, &at, out).map(|s| (s, at))
    }

    /// An optional array field.
    pub(crate) fn optional_array(
        &mut self,
        key: &'static str,
        out: &mut Vec<Diagnostic>,
    ) -> Option<(&'a Vec<Value>, String)> {
        match self.optional(key)? {
            (Value::Array(items), at) => Some((items, at)),
            (other, at) => {
                out.push(wrong_type(&at, "an array", other));
                None
            }
        }
    }

    /// A required array field.
    pub(crate) fn array(
        &mut self,
        key: &'static str,
        out: &mut Vec<Diagnostic>,
    ) -> Option<(&'a Vec<Value>, String)> {
        match self.take(key, out)? {
            (Value::Array(items), at) => Some((items, at)),
            (other, at) => {
                out.push(wrong_type(&at, "an array", other));
                None
            }
        }
    }

    /// An optional object field.
    pub(crate) fn optional_object(
        &mut self,
        key: &'static str,
        out: &mut Vec<Diagnostic>,
    ) -> Option<(&'a Map<String, Value>, String)> {
        match self.optional(key)? {
            (Value::Object(map), at) => Some((map, at)),
            (other, at) => {
                out.push(wrong_type(&at, "an object", other));
                None
            }
        }
    }

    /// Refuses every field that was not read.
    pub(crate) fn reject_unknown(self, out: &mut Vec<Diagnostic>) {
        let Some(map) = self.map else { return };
        for key in map.keys() {
            if !self.seen.contains(&key.as_str()) {
                out.push(Diagnostic::new(
                    Code::Invalid(Rule::UnknownField),
                    push_pointer(&self.pointer, key),
                    format!(
                        "unknown field `{key}` in {} (known fields: {})",
                        self.what,
                        self.seen.join(", ")
                    ),
                ));
            }
        }
    }
}

fn as_string(value: &Value, at: &str, out: &mut Vec<Diagnostic>) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        other => {
            out.push(wrong_type(at, "a string", other));
            None
        }
    }
}
