//! Flow inputs from the command line: `--input name=value`.

use std::collections::BTreeMap;

use browserflow_contract::JsonType;
use browserflow_flow::{Bound, Plan, SecretTemplate};
use serde_json::Value;

/// A `--input` argument that does not fit the flow.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputArgError {
    /// Not `name=value`.
    #[error("`--input {0}`: expected name=value")]
    Malformed(String),
    /// The flow has no such input.
    #[error("`--input {name}=…`: the flow has no input `{name}` (its inputs: {known})")]
    Unknown {
        /// The name given.
        name: String,
        /// The flow's inputs, comma-separated.
        known: String,
    },
    /// Given twice.
    #[error("`--input {0}=…` is given twice")]
    Duplicate(String),
    /// A secret input needs a reference, never a value on the command line.
    #[error(
        "`--input {0}=…`: this input is secret; pass a reference, `{0}=secret.NAME`, and provide NAME through BROWSERFLOW_SECRET_NAME or the secrets file"
    )]
    SecretValue(String),
    /// A reference to a secret given for a plain input.
    #[error("`--input {0}=secret.…`: this input is not secret and cannot take a secret")]
    NotSecret(String),
}

/// Parses `name=value` arguments against the flow's inputs. A string-typed input takes the
/// text as it is; any other input takes it as JSON (`count=3`, `tags=["a","b"]`), falling
/// back to the text. A secret input takes `secret.NAME`.
pub fn parse_input_args(
    plan: &Plan,
    args: &[String],
) -> Result<BTreeMap<String, Bound>, InputArgError> {
    let mut inputs = BTreeMap::new();
    for arg in args {
        let Some((name, text)) = arg.split_once('=') else {
            return Err(InputArgError::Malformed(arg.clone()));
        };
        let Some(decl) = plan.inputs.iter().find(|d| d.name == name) else {
            let known: Vec<&str> = plan.inputs.iter().map(|d| d.name.as_str()).collect();
            return Err(InputArgError::Unknown {
                name: name.to_owned(),
                known: if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                },
            });
        };
        let secret_name = text.strip_prefix("secret.");
        let bound = match (decl.secret, secret_name) {
            (true, Some(secret)) if !secret.is_empty() => {
                Bound::Secret(SecretTemplate::reference(secret))
            }
            (true, _) => return Err(InputArgError::SecretValue(name.to_owned())),
            (false, Some(_)) => return Err(InputArgError::NotSecret(name.to_owned())),
            (false, None) => {
                let string_only = decl.schema.types.as_deref() == Some(&[JsonType::String][..]);
                let value = if string_only {
                    Value::String(text.to_owned())
                } else {
                    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
                };
                Bound::Value(value)
            }
        };
        if inputs.insert(name.to_owned(), bound).is_some() {
            return Err(InputArgError::Duplicate(name.to_owned()));
        }
    }
    Ok(inputs)
}
