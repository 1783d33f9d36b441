//! Deserialising a `serde_json::Value` with every error located by JSON pointer and typed by
//! [`Rule`].
//!
//! serde_json's own `from_value` says *what* is wrong (`invalid type: sequence, expected a
//! string`) but not *where*, and only as text. This deserializer knows the pointer of every
//! value it hands out and builds its errors through serde's typed constructors
//! (`unknown_field`, `invalid_type`…), so the tool-file parser reports
//! `/steps/0/selector/candidates/0/kind: expected a string` with a stable rule code.
//!
//! One limit: an internally tagged enum (`Step`, tagged by `type`) buffers its content
//! inside serde, so errors inside one carry the enum's own pointer; the tool-file parser then
//! reads the variant's struct directly to locate them.

use std::fmt;

use browserflow_contract::{Problem, Rule, push_pointer};
use serde::de::value::{BorrowedStrDeserializer, MapAccessDeserializer};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::forward_to_deserialize_any;
use serde_json::Value;

/// A deserialisation error: what, which rule, and where once known.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LocatedError {
    /// `None` until the innermost value that saw the error names itself.
    pub pointer: Option<String>,
    pub rule: Rule,
    pub message: String,
    /// For [`Rule::UnknownVariant`]: the variants serde expected.
    pub expected_variants: &'static [&'static str],
    /// For [`Rule::MissingField`]: the field.
    pub missing_field: Option<&'static str>,
}

impl LocatedError {
    fn new(rule: Rule, message: String) -> Self {
        LocatedError {
            pointer: None,
            rule,
            message,
            expected_variants: &[],
            missing_field: None,
        }
    }

    fn at(mut self, pointer: &str) -> Self {
        if self.pointer.is_none() {
            self.pointer = Some(pointer.to_owned());
        }
        self
    }

    /// As a problem, at `fallback` when the error was never located.
    pub fn into_problem(self, fallback: &str) -> Problem {
        let pointer = self.pointer.unwrap_or_else(|| fallback.to_owned());
        Problem::new(pointer, self.rule, self.message)
    }
}

impl fmt::Display for LocatedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LocatedError {}

impl de::Error for LocatedError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        LocatedError::new(Rule::InvalidValue, msg.to_string())
    }

    fn invalid_type(unexpected: de::Unexpected<'_>, expected: &dyn de::Expected) -> Self {
        LocatedError::new(
            Rule::WrongType,
            format!("expected {expected}, found {}", found(unexpected)),
        )
    }

    fn invalid_value(unexpected: de::Unexpected<'_>, expected: &dyn de::Expected) -> Self {
        LocatedError::new(
            Rule::InvalidValue,
            format!("expected {expected}, found {unexpected}"),
        )
    }

    fn invalid_length(len: usize, expected: &dyn de::Expected) -> Self {
        LocatedError::new(
            Rule::InvalidValue,
            format!("expected {expected}, found {len} items"),
        )
    }

    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        let mut error = LocatedError::new(
            Rule::UnknownVariant,
            format!(
                "unknown value `{variant}` (expected one of: {})",
                expected.join(", ")
            ),
        );
        error.expected_variants = expected;
        error
    }

    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        LocatedError::new(
            Rule::UnknownField,
            format!(
                "unknown field `{field}` (known fields: {})",
                expected.join(", ")
            ),
        )
    }

    fn missing_field(field: &'static str) -> Self {
        let mut error = LocatedError::new(Rule::MissingField, format!("needs the field `{field}`"));
        error.missing_field = Some(field);
        error
    }

    fn duplicate_field(field: &'static str) -> Self {
        LocatedError::new(Rule::DuplicateKey, format!("has the field `{field}` twice"))
    }
}

/// serde names JSON types its own way (`sequence`, `map`); these are JSON's names.
fn found(unexpected: de::Unexpected<'_>) -> String {
    use de::Unexpected::*;
    match unexpected {
        Seq => "array".to_owned(),
        Map => "object".to_owned(),
        Unit | Option => "null".to_owned(),
        Str(s) => format!("the string {s:?}"),
        Bool(b) => format!("the boolean {b}"),
        Unsigned(n) => format!("the number {n}"),
        Signed(n) => format!("the number {n}"),
        Float(n) => format!("the number {n}"),
        other => other.to_string(),
    }
}

/// Deserialises `T` from `value`, every error a [`Problem`] located by its JSON pointer inside
/// `value` (`""`: `value` itself) and typed by its [`Rule`] — the tool-file parser's reading,
/// for the other readers of JSON messages (the recorder's protocol). An internally tagged
/// enum's errors carry the enum's own pointer (see the module doc): read the variant's struct
/// to locate them.
pub fn from_value_located<T: de::DeserializeOwned>(value: &Value) -> Result<T, Problem> {
    from_value_at(value, "").map_err(|e| e.into_problem(""))
}

/// Deserialises `T` from `value`, which sits at `pointer` in its document.
pub(crate) fn from_value_at<'a, T: de::Deserialize<'a>>(
    value: &'a Value,
    pointer: &str,
) -> Result<T, LocatedError> {
    T::deserialize(ValueDe {
        value,
        pointer: pointer.to_owned(),
    })
}

struct ValueDe<'a> {
    value: &'a Value,
    pointer: String,
}

impl<'de> Deserializer<'de> for ValueDe<'de> {
    type Error = LocatedError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, LocatedError> {
        let pointer = self.pointer;
        let result = match self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    visitor.visit_u64(u)
                } else if let Some(i) = n.as_i64() {
                    visitor.visit_i64(i)
                } else {
                    visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(items) => visit_array(items, &pointer, visitor),
            Value::Object(map) => visitor.visit_map(MapDe {
                iter: map.iter(),
                pending: None,
                pointer: pointer.clone(),
            }),
        };
        result.map_err(|e| e.at(&pointer))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, LocatedError> {
        if self.value.is_null() {
            let pointer = self.pointer;
            visitor
                .visit_none()
                .map_err(|e: LocatedError| e.at(&pointer))
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, LocatedError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, LocatedError> {
        let pointer = self.pointer;
        let result = match self.value {
            Value::String(s) => {
                let access = BorrowedStrDeserializer::<LocatedError>::new(s);
                visitor.visit_enum(access)
            }
            Value::Object(map) if map.len() == 1 => {
                visitor.visit_enum(MapAccessDeserializer::new(MapDe {
                    iter: map.iter(),
                    pending: None,
                    pointer: pointer.clone(),
                }))
            }
            other => Err(LocatedError::new(
                Rule::WrongType,
                format!(
                    "expected a string (one of: {}), found {}",
                    variants.join(", "),
                    browserflow_contract::json_type_name(other)
                ),
            )),
        };
        result.map_err(|e| e.at(&pointer))
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

fn visit_array<'de, V: Visitor<'de>>(
    items: &'de [Value],
    pointer: &str,
    visitor: V,
) -> Result<V::Value, LocatedError> {
    let mut seq = SeqDe {
        iter: items.iter().enumerate(),
        pointer,
    };
    let value = visitor.visit_seq(&mut seq)?;
    let left = seq.iter.len();
    if left > 0 {
        return Err(LocatedError::new(
            Rule::InvalidValue,
            format!("has {left} more items than expected"),
        ));
    }
    Ok(value)
}

struct SeqDe<'a, 'p> {
    iter: std::iter::Enumerate<std::slice::Iter<'a, Value>>,
    pointer: &'p str,
}

impl<'de> SeqAccess<'de> for SeqDe<'de, '_> {
    type Error = LocatedError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, LocatedError> {
        let Some((index, value)) = self.iter.next() else {
            return Ok(None);
        };
        seed.deserialize(ValueDe {
            value,
            pointer: format!("{}/{index}", self.pointer),
        })
        .map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

struct MapDe<'a> {
    iter: serde_json::map::Iter<'a>,
    pending: Option<(&'a str, &'a Value)>,
    pointer: String,
}

impl<'de> MapAccess<'de> for MapDe<'de> {
    type Error = LocatedError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, LocatedError> {
        let Some((key, value)) = self.iter.next() else {
            return Ok(None);
        };
        self.pending = Some((key, value));
        let at = push_pointer(&self.pointer, key);
        seed.deserialize(BorrowedStrDeserializer::<LocatedError>::new(key))
            .map(Some)
            .map_err(|e| e.at(&at))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, LocatedError> {
        let (key, value) = self
            .pending
            .take()
            .ok_or_else(|| LocatedError::new(Rule::InvalidValue, "a value without a key".into()))?;
        seed.deserialize(ValueDe {
            value,
            pointer: push_pointer(&self.pointer, key),
        })
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}
