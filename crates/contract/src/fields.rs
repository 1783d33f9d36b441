//! Strict reading of JSON objects: every field accounted for, every problem collected.

use std::str::FromStr;

use serde_json::{Map, Value};

use crate::problem::{Problem, Rule, push_pointer};
use crate::schema::wrong_type;

/// Reads the fields of one JSON object, remembering which were read so that the rest can
/// be refused as unknown.
pub(crate) struct Fields<'a> {
    map: Option<&'a Map<String, Value>>,
    pointer: String,
    what: &'static str,
    seen: Vec<&'static str>,
}

impl<'a> Fields<'a> {
    /// Opens `value` as the object `what` (e.g. "a tool contract") at `pointer`.
    pub(crate) fn open(
        value: &'a Value,
        pointer: &str,
        what: &'static str,
        out: &mut Vec<Problem>,
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
        out: &mut Vec<Problem>,
    ) -> Option<(&'a Value, String)> {
        let found = self.optional(key);
        if found.is_none() && self.map.is_some() {
            out.push(Problem::new(
                self.pointer.clone(),
                Rule::MissingField,
                format!("{} needs the field `{key}`", self.what),
            ));
        }
        found
    }

    /// A required string field.
    pub(crate) fn string(&mut self, key: &'static str, out: &mut Vec<Problem>) -> Option<String> {
        let (value, at) = self.take(key, out)?;
        as_string(value, &at, out)
    }

    /// A required boolean field.
    pub(crate) fn boolean(&mut self, key: &'static str, out: &mut Vec<Problem>) -> Option<bool> {
        match self.take(key, out)? {
            (Value::Bool(b), _) => Some(*b),
            (other, at) => {
                out.push(wrong_type(&at, "a boolean", other));
                None
            }
        }
    }

    /// A required array field.
    pub(crate) fn array(
        &mut self,
        key: &'static str,
        out: &mut Vec<Problem>,
    ) -> Option<(&'a Vec<Value>, String)> {
        match self.take(key, out)? {
            (Value::Array(items), at) => Some((items, at)),
            (other, at) => {
                out.push(wrong_type(&at, "an array", other));
                None
            }
        }
    }

    /// A required string field parsed with `FromStr`.
    pub(crate) fn parsed<T: FromStr<Err = String>>(
        &mut self,
        key: &'static str,
        out: &mut Vec<Problem>,
    ) -> Option<T> {
        let (value, at) = self.take(key, out)?;
        crate::contract::parse_string_enum(value, &at, out)
    }

    /// Refuses every field that was not read.
    pub(crate) fn reject_unknown(self, out: &mut Vec<Problem>) {
        let Some(map) = self.map else { return };
        for key in map.keys() {
            if !self.seen.contains(&key.as_str()) {
                out.push(Problem::new(
                    push_pointer(&self.pointer, key),
                    Rule::UnknownField,
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

fn as_string(value: &Value, at: &str, out: &mut Vec<Problem>) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        other => {
            out.push(wrong_type(at, "a string", other));
            None
        }
    }
}
