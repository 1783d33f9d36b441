//! Strict reading of JSON objects: every field accounted for, every problem collected.
//!
//! One reader for every strict format of browserflow (contracts, requires, flows, steps…).
//! Problems are reported as [`Problem`]s converted into the caller's own type, so a crate
//! with richer diagnostics (the flow compiler's `Diagnostic`) collects straight into its own
//! list instead of keeping a copy of this reader.

use std::str::FromStr;

use serde_json::{Map, Value};

use crate::problem::{Problem, Rule, push_pointer};
use crate::schema::wrong_type;

/// Reads the fields of one JSON object, remembering which were read so that the rest can
/// be refused as unknown.
///
/// Open the object, read each field the format defines (absent required fields and values of
/// the wrong type are pushed to `out`), then call [`Fields::reject_unknown`]. Readers of raw
/// values return them with their JSON pointer, so later checks can locate their problems.
///
/// `out` is any list of problems `P: From<Problem>`: [`Problem`] itself, or a richer type.
///
/// ```
/// use browserflow_contract::{Fields, Problem, Rule};
/// use serde_json::json;
///
/// let value = json!({"name": "a", "size": 3});
/// let mut out: Vec<Problem> = Vec::new();
/// let mut fields = Fields::open(&value, "", "a box", &mut out);
/// let name = fields.string("name", &mut out);
/// let open = fields.boolean("open", &mut out);
/// fields.reject_unknown(&mut out);
///
/// assert_eq!(name, Some(("a".to_owned(), "/name".to_owned())));
/// assert_eq!(open, None);
/// let rules: Vec<Rule> = out.iter().map(|p| p.rule).collect();
/// assert_eq!(rules, [Rule::MissingField, Rule::UnknownField]);
/// assert_eq!(out[1].pointer, "/size");
/// ```
pub struct Fields<'a> {
    /// `None` when the value is not an object: its problem is already reported, and every
    /// read then finds nothing without reporting more.
    map: Option<&'a Map<String, Value>>,
    pointer: String,
    what: &'static str,
    seen: Vec<&'static str>,
}

impl<'a> Fields<'a> {
    /// Opens `value` as the object `what` (e.g. "a tool contract") at `pointer`.
    pub fn open<P: From<Problem>>(
        value: &'a Value,
        pointer: &str,
        what: &'static str,
        out: &mut Vec<P>,
    ) -> Fields<'a> {
        let map = match value {
            Value::Object(map) => Some(map),
            other => {
                out.push(wrong_type(pointer, what, other).into());
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

    /// A field that may be absent, with its pointer.
    pub fn optional(&mut self, key: &'static str) -> Option<(&'a Value, String)> {
        self.seen.push(key);
        let value = self.map?.get(key)?;
        Some((value, push_pointer(&self.pointer, key)))
    }

    /// A required field, with its pointer.
    pub fn take<P: From<Problem>>(
        &mut self,
        key: &'static str,
        out: &mut Vec<P>,
    ) -> Option<(&'a Value, String)> {
        let found = self.optional(key);
        if found.is_none() && self.map.is_some() {
            out.push(
                Problem::new(
                    self.pointer.clone(),
                    Rule::MissingField,
                    format!("{} needs the field `{key}`", self.what),
                )
                .into(),
            );
        }
        found
    }

    /// A required string field, with its pointer.
    pub fn string<P: From<Problem>>(
        &mut self,
        key: &'static str,
        out: &mut Vec<P>,
    ) -> Option<(String, String)> {
        let (value, at) = self.take(key, out)?;
        as_string(value, &at, out).map(|s| (s, at))
    }

    /// An optional string field, with its pointer.
    pub fn optional_string<P: From<Problem>>(
        &mut self,
        key: &'static str,
        out: &mut Vec<P>,
    ) -> Option<(String, String)> {
        let (value, at) = self.optional(key)?;
        as_string(value, &at, out).map(|s| (s, at))
    }

    /// A required boolean field.
    pub fn boolean<P: From<Problem>>(
        &mut self,
        key: &'static str,
        out: &mut Vec<P>,
    ) -> Option<bool> {
        match self.take(key, out)? {
            (Value::Bool(b), _) => Some(*b),
            (other, at) => {
                out.push(wrong_type(&at, "a boolean", other).into());
                None
            }
        }
    }

    /// A required array field, with its pointer.
    pub fn array<P: From<Problem>>(
        &mut self,
        key: &'static str,
        out: &mut Vec<P>,
    ) -> Option<(&'a Vec<Value>, String)> {
        let found = self.take(key, out)?;
        as_array(found, out)
    }

    /// An optional array field, with its pointer.
    pub fn optional_array<P: From<Problem>>(
        &mut self,
        key: &'static str,
        out: &mut Vec<P>,
    ) -> Option<(&'a Vec<Value>, String)> {
        let found = self.optional(key)?;
        as_array(found, out)
    }

    /// An optional object field, with its pointer.
    pub fn optional_object<P: From<Problem>>(
        &mut self,
        key: &'static str,
        out: &mut Vec<P>,
    ) -> Option<(&'a Map<String, Value>, String)> {
        match self.optional(key)? {
            (Value::Object(map), at) => Some((map, at)),
            (other, at) => {
                out.push(wrong_type(&at, "an object", other).into());
                None
            }
        }
    }

    /// A required string field parsed with `FromStr`; a string that does not parse is an
    /// [`Rule::UnknownVariant`] with the parser's message.
    ///
    /// `out` is an `impl` argument so that callers name only the target: `parsed::<Kind>`.
    pub fn parsed<T: FromStr<Err = String>>(
        &mut self,
        key: &'static str,
        out: &mut Vec<impl From<Problem>>,
    ) -> Option<T> {
        let (value, at) = self.take(key, out)?;
        let mut problems = Vec::new();
        let parsed = crate::contract::parse_string_enum(value, &at, &mut problems);
        out.extend(problems.into_iter().map(Into::into));
        parsed
    }

    /// Refuses every field that was not read.
    pub fn reject_unknown<P: From<Problem>>(self, out: &mut Vec<P>) {
        let Some(map) = self.map else { return };
        for key in map.keys() {
            if !self.seen.contains(&key.as_str()) {
                out.push(
                    Problem::new(
                        push_pointer(&self.pointer, key),
                        Rule::UnknownField,
                        format!(
                            "unknown field `{key}` in {} (known fields: {})",
                            self.what,
                            self.seen.join(", ")
                        ),
                    )
                    .into(),
                );
            }
        }
    }
}

fn as_string<P: From<Problem>>(value: &Value, at: &str, out: &mut Vec<P>) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        other => {
            out.push(wrong_type(at, "a string", other).into());
            None
        }
    }
}

fn as_array<'a, P: From<Problem>>(
    (value, at): (&'a Value, String),
    out: &mut Vec<P>,
) -> Option<(&'a Vec<Value>, String)> {
    match value {
        Value::Array(items) => Some((items, at)),
        other => {
            out.push(wrong_type(&at, "an array", other).into());
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A caller's own problem type, as the flow compiler's `Diagnostic` is.
    #[derive(Debug, PartialEq)]
    struct Located(String, Rule);

    impl From<Problem> for Located {
        fn from(p: Problem) -> Located {
            Located(p.pointer, p.rule)
        }
    }

    #[test]
    fn collects_every_problem_into_the_callers_type() {
        let value = json!({
            "name": 7, "tags": {}, "extra": true, "when": "later", "kind": "nope"
        });
        let mut out: Vec<Located> = Vec::new();
        let mut fields = Fields::open(&value, "/steps/0", "a step", &mut out);
        assert_eq!(fields.string("name", &mut out), None);
        assert_eq!(fields.optional_array("tags", &mut out), None);
        assert_eq!(fields.boolean("open", &mut out), None);
        assert_eq!(
            fields.optional_string("when", &mut out),
            Some(("later".to_owned(), "/steps/0/when".to_owned()))
        );
        assert!(fields.optional_object("with", &mut out).is_none());
        assert_eq!(fields.parsed::<crate::Kind>("kind", &mut out), None);
        fields.reject_unknown(&mut out);
        assert_eq!(
            out,
            [
                Located("/steps/0/name".into(), Rule::WrongType),
                Located("/steps/0/tags".into(), Rule::WrongType),
                Located("/steps/0".into(), Rule::MissingField),
                Located("/steps/0/kind".into(), Rule::UnknownVariant),
                Located("/steps/0/extra".into(), Rule::UnknownField),
            ]
        );
    }

    #[test]
    fn a_value_that_is_not_an_object_is_one_problem() {
        let value = json!([1, 2]);
        let mut out: Vec<Problem> = Vec::new();
        let mut fields = Fields::open(&value, "", "a flow", &mut out);
        assert!(fields.take("name", &mut out).is_none());
        assert!(fields.array("steps", &mut out).is_none());
        fields.reject_unknown(&mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].rule, Rule::WrongType);
        assert_eq!(out[0].message, "expected a flow, found array");
    }
}
