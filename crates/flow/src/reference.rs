//! References: the places a value can come from — `input.NAME.path`, `steps.ID.output.path`,
//! `secret.NAME`, and inside a `for_each` step `item.path`.

use std::fmt;

use serde_json::Value;

use crate::scope::{EvalError, Scope, StepState};
use crate::secret::{Bound, SecretTemplate};

/// Where a value comes from. Paths are dot-separated segments: a segment names an object
/// property, or (all digits) an array index.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reference {
    /// `input.NAME` or `input.NAME.path…`: a flow input, or a value inside it.
    Input {
        /// The flow input's name.
        name: String,
        /// The path inside the input (empty: the whole input).
        path: Vec<String>,
    },
    /// `steps.ID.output` or `steps.ID.output.path…`: a step's output, or a value inside it.
    Step {
        /// The step id.
        step: String,
        /// The path inside the output (empty: the whole output).
        path: Vec<String>,
    },
    /// `secret.NAME`: a secret, carried as a reference and never resolved by this crate.
    Secret {
        /// The secret's name.
        name: String,
    },
    /// `item` or `item.path…`: in the bindings of a `for_each` step, the element of the
    /// array the step is mapped over that this call is for (see [`ForEach`](crate::ForEach)).
    Item {
        /// The path inside the item (empty: the whole item).
        path: Vec<String>,
    },
}

/// Whether `text` is an identifier: a letter or `_`, then letters, digits, `_` or `-`.
pub(crate) fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Whether `text` is a secret name: a letter or `_`, then letters, digits or `_`.
pub(crate) fn is_secret_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn is_segment(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

const FORMS: &str = "`input.NAME`, `steps.ID.output` (optionally followed by `.field`…), \
     `secret.NAME`, or in a `for_each` step `item` (optionally followed by `.field`…)";

impl Reference {
    /// Parses a reference; the error says what is wrong, for a person.
    pub fn parse(text: &str) -> Result<Reference, String> {
        let parts: Vec<&str> = text.split('.').collect();
        let path_of = |rest: &[&str]| -> Result<Vec<String>, String> {
            rest.iter()
                .map(|s| {
                    if is_segment(s) {
                        Ok((*s).to_owned())
                    } else {
                        Err(format!(
                            "`{text}`: `{s}` is not a path segment (letters, digits, `_`, `-`)"
                        ))
                    }
                })
                .collect()
        };
        match parts.as_slice() {
            ["input", name, rest @ ..] => {
                if !is_identifier(name) {
                    return Err(format!("`{text}`: `{name}` is not an input name"));
                }
                Ok(Reference::Input {
                    name: (*name).to_owned(),
                    path: path_of(rest)?,
                })
            }
            ["steps", step, "output", rest @ ..] => {
                if !is_identifier(step) {
                    return Err(format!("`{text}`: `{step}` is not a step id"));
                }
                Ok(Reference::Step {
                    step: (*step).to_owned(),
                    path: path_of(rest)?,
                })
            }
            ["item", rest @ ..] => Ok(Reference::Item {
                path: path_of(rest)?,
            }),
            ["steps", step] | ["steps", step, ..] => Err(format!(
                "`{text}`: a step is read through its output, as in `steps.{step}.output`"
            )),
            ["secret", name] if is_secret_name(name) => Ok(Reference::Secret {
                name: (*name).to_owned(),
            }),
            ["secret", ..] => Err(format!(
                "`{text}`: a secret reference is `secret.NAME` (letters, digits, `_`), with no path"
            )),
            _ => Err(format!("`{text}` is not a reference: use {FORMS}")),
        }
    }

    /// Whether this is a `secret.NAME` reference.
    pub fn is_secret(&self) -> bool {
        matches!(self, Reference::Secret { .. })
    }

    /// The step this reference reads, if any.
    pub fn step(&self) -> Option<&str> {
        match self {
            Reference::Step { step, .. } => Some(step),
            _ => None,
        }
    }

    /// Reads the referenced value from `scope`. A skipped step reads as `null`, and so does
    /// a path that runs into a missing property, an index out of range, or a `null`.
    pub fn resolve(&self, scope: &Scope) -> Result<Bound, EvalError> {
        match self {
            Reference::Secret { name } => Ok(Bound::Secret(SecretTemplate::reference(name))),
            Reference::Input { name, path } => match scope.input(name) {
                None => Err(EvalError::MissingInput { name: name.clone() }),
                Some(Bound::Secret(template)) if path.is_empty() => {
                    Ok(Bound::Secret(template.clone()))
                }
                Some(Bound::Secret(_)) => Err(EvalError::SecretPath {
                    reference: self.to_string(),
                }),
                Some(Bound::Value(value)) => self.walk(value, path).map(Bound::Value),
            },
            Reference::Step { step, path } => match scope.step(step) {
                None => Err(EvalError::StepNotFinished { step: step.clone() }),
                Some(StepState::Skipped) => Ok(Bound::Value(Value::Null)),
                Some(StepState::Finished(value)) => self.walk(value, path).map(Bound::Value),
            },
            Reference::Item { path } => match scope.item() {
                None => Err(EvalError::NoItem {
                    reference: self.to_string(),
                }),
                Some(item) => self.walk(item, path).map(Bound::Value),
            },
        }
    }

    fn walk(&self, value: &Value, path: &[String]) -> Result<Value, EvalError> {
        let mut current = value;
        for segment in path {
            current = match current {
                Value::Null => return Ok(Value::Null),
                Value::Object(map) => match map.get(segment) {
                    Some(v) => v,
                    None => return Ok(Value::Null),
                },
                Value::Array(items) => {
                    match segment.parse::<usize>().ok().and_then(|i| items.get(i)) {
                        Some(v) => v,
                        None => return Ok(Value::Null),
                    }
                }
                other => {
                    return Err(EvalError::BadPath {
                        reference: self.to_string(),
                        segment: segment.clone(),
                        found: crate::json_type_name(other),
                    });
                }
            };
        }
        Ok(current.clone())
    }
}

impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (head, path) = match self {
            Reference::Secret { name } => return write!(f, "secret.{name}"),
            Reference::Input { name, path } => (format!("input.{name}"), path),
            Reference::Step { step, path } => (format!("steps.{step}.output"), path),
            Reference::Item { path } => ("item".to_owned(), path),
        };
        f.write_str(&head)?;
        for segment in path {
            write!(f, ".{segment}")?;
        }
        Ok(())
    }
}
