//! Run inputs as typed values: what the shells give a run, the command line's `name=value`
//! already parsed.

use std::collections::BTreeMap;

use browserflow_contract::{InputDecl, JsonType};
use browserflow_flow::{Bound, SecretTemplate};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One input of a run: a literal JSON value, or a reference to a secret by name (its value is
/// looked up inside the tool that needs it, never here).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunInput {
    /// A literal value.
    Value(Value),
    /// The secret `NAME` (`BROWSERFLOW_SECRET_<NAME>` or the secrets file).
    Secret(String),
}

/// A run's inputs by name.
pub type RunInputs = BTreeMap<String, RunInput>;

impl RunInput {
    /// A value typed in as text, for the slot `decl`: a string-only slot takes the text as it
    /// is; any other takes it as JSON (`3`, `["a","b"]`), falling back to the text.
    pub fn from_text(decl: &InputDecl, text: &str) -> RunInput {
        let string_only = decl.schema.types.as_deref() == Some(&[JsonType::String][..]);
        let value = if string_only {
            Value::String(text.to_owned())
        } else {
            serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
        };
        RunInput::Value(value)
    }

    /// Text as a person writes an input (`--input name=TEXT`, a cell of a batch's rows) for
    /// the slot `decl`: a secret slot takes `secret.NAME` only (never a value), a plain slot
    /// takes its value as [`RunInput::from_text`] reads it and refuses `secret.…`. The one
    /// rule the command line and batch files share.
    pub fn from_written(decl: &InputDecl, text: &str) -> Result<RunInput, InputError> {
        match (decl.secret, text.strip_prefix("secret.")) {
            (true, Some(secret)) if !secret.is_empty() => Ok(RunInput::Secret(secret.to_owned())),
            (true, Some(_)) => Err(InputError::EmptySecret(decl.name.clone())),
            (true, None) => Err(InputError::SecretValue(decl.name.clone())),
            (false, Some(_)) => Err(InputError::NotSecret(decl.name.clone())),
            (false, None) => Ok(RunInput::from_text(decl, text)),
        }
    }

    /// Text typed into a form or given as `--input name=TEXT`, read by the rule the app and
    /// the command line share: blank text for a slot with a default is no value (the default
    /// is used, as a form showing the default sends it), blank text for a slot without one is
    /// refused ([`InputError::Blank`]); anything else as [`RunInput::from_written`] reads it.
    pub fn from_typed(decl: &InputDecl, text: &str) -> Result<Option<RunInput>, InputError> {
        if text.trim().is_empty() && !decl.secret {
            return match decl.schema.default {
                Some(_) => Ok(None),
                None => Err(InputError::Blank(decl.name.clone())),
            };
        }
        RunInput::from_written(decl, text).map(Some)
    }

    /// As the Rider takes it.
    pub fn to_bound(&self) -> Bound {
        match self {
            RunInput::Value(value) => Bound::Value(value.clone()),
            RunInput::Secret(name) => Bound::Secret(SecretTemplate::reference(name)),
        }
    }
}

/// Why inputs do not fit the slots they are given for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// No slot of that name.
    #[error("there is no input `{name}` (the inputs: {known})")]
    Unknown {
        /// The name given.
        name: String,
        /// The slots, comma-separated (`none` when there are none).
        known: String,
    },
    /// A secret slot given a value: it takes a reference only.
    #[error("the input `{0}` is secret; give a reference to a secret, never its value")]
    SecretValue(String),
    /// A secret reference for a plain slot.
    #[error("the input `{0}` is not secret and cannot take a secret")]
    NotSecret(String),
    /// Blank text for an input that has no default.
    #[error("the input {0} is required and was left blank: give it a value")]
    Blank(String),
    /// An empty secret name.
    #[error("the input `{0}` names no secret")]
    EmptySecret(String),
}

/// `inputs` checked against the slots `decls` (names known, secret slots given references and
/// plain slots values), as the Rider takes them. Missing inputs are left for the caller to
/// say in its own terms.
pub fn bind_inputs(
    decls: &[InputDecl],
    inputs: &RunInputs,
) -> Result<BTreeMap<String, Bound>, InputError> {
    let mut bound = BTreeMap::new();
    for (name, input) in inputs {
        let Some(decl) = decls.iter().find(|d| &d.name == name) else {
            let known: Vec<&str> = decls.iter().map(|d| d.name.as_str()).collect();
            return Err(InputError::Unknown {
                name: name.clone(),
                known: if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                },
            });
        };
        match (decl.secret, input) {
            (true, RunInput::Secret(secret)) if secret.is_empty() => {
                return Err(InputError::EmptySecret(name.clone()));
            }
            (true, RunInput::Value(_)) => return Err(InputError::SecretValue(name.clone())),
            (false, RunInput::Secret(_)) => return Err(InputError::NotSecret(name.clone())),
            (true, RunInput::Secret(_)) | (false, RunInput::Value(_)) => {}
        }
        bound.insert(name.clone(), input.to_bound());
    }
    Ok(bound)
}

#[cfg(test)]
mod tests {
    use super::*;
    use browserflow_contract::Schema;

    fn decl(schema: serde_json::Value) -> InputDecl {
        InputDecl::new("query", Schema::from_json(&schema).unwrap())
    }

    #[test]
    fn blank_text_is_the_default_or_refused_the_same_for_every_shell() {
        let with_default = decl(serde_json::json!({ "type": "string", "default": "mouse" }));
        assert_eq!(RunInput::from_typed(&with_default, "  ").unwrap(), None);
        let required = decl(serde_json::json!({ "type": "string" }));
        assert_eq!(
            RunInput::from_typed(&required, ""),
            Err(InputError::Blank("query".into()))
        );
        assert_eq!(
            RunInput::from_typed(&required, "keyboard").unwrap(),
            Some(RunInput::Value("keyboard".into()))
        );
    }
}
