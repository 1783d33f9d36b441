//! Canonical JSON (RFC 8785) and the contract digest.
//!
//! The exact rule, so that another implementation can reproduce a digest:
//!
//! 1. Build the *interface* object of the contract with exactly five members:
//!    `name` (string), `kind` (string), `inputs` (array of `{name, schema, secret}` objects,
//!    sorted by `name`), `output` (the output schema) and `capabilities` (array of strings,
//!    sorted). `version` and `description` are not part of it.
//! 2. Schemas appear in their normalised JSON Schema 2020-12 form (see [`crate::Schema`]):
//!    `type` lists and `required` sorted, the schema `true` written `{}`, and without the
//!    descriptive annotations `title`, `description` and `examples` at any depth (like the
//!    contract's own description, they document the interface without changing it). `default`
//!    stays: it decides what a caller may omit.
//! 3. Serialise the interface with the JSON Canonicalization Scheme, RFC 8785 (sorted keys,
//!    no white space, ECMAScript number formatting, minimal string escaping), as UTF-8.
//! 4. The digest is `sha256:` followed by the lowercase hex SHA-256 of those bytes.

use serde_json::{Map, Value};

use crate::contract::{ToolContract, input_json};
use crate::names::Digest;

/// Errors of canonicalisation.
#[derive(Debug, thiserror::Error)]
#[error("cannot canonicalise JSON: {0}")]
pub struct CanonicalError(#[from] serde_json::Error);

/// RFC 8785 canonical JSON of `value`, as UTF-8 text.
pub fn canonical_json(value: &Value) -> Result<String, CanonicalError> {
    Ok(serde_json_canonicalizer::to_string(value)?)
}

impl ToolContract {
    /// The interface object the digest is computed over (step 1 of the rule above).
    pub fn interface_json(&self) -> Value {
        let mut inputs: Vec<_> = self.inputs().iter().collect();
        inputs.sort_by(|a, b| a.name.cmp(&b.name));
        let mut capabilities: Vec<&str> = self.capabilities().iter().map(|c| c.as_str()).collect();
        capabilities.sort_unstable();
        let mut map = Map::new();
        map.insert("name".into(), Value::String(self.name().to_owned()));
        map.insert(
            "kind".into(),
            Value::String(self.kind().as_str().to_owned()),
        );
        let inputs = inputs.into_iter().map(|input| {
            let mut bare = input.clone();
            bare.schema = input.schema.without_annotations();
            input_json(&bare)
        });
        map.insert("inputs".into(), Value::Array(inputs.collect()));
        map.insert(
            "output".into(),
            self.output().without_annotations().to_json(),
        );
        map.insert(
            "capabilities".into(),
            Value::Array(
                capabilities
                    .into_iter()
                    .map(|c| Value::String(c.to_owned()))
                    .collect(),
            ),
        );
        Value::Object(map)
    }

    /// `sha256:<hex>` of the RFC 8785 canonical JSON of [`ToolContract::interface_json`].
    pub fn contract_digest(&self) -> Digest {
        // The interface holds only strings, booleans, arrays, objects and numbers that came
        // from JSON, so canonicalisation cannot fail; fall back to serde_json's text anyway.
        let interface = self.interface_json();
        let text = canonical_json(&interface).unwrap_or_else(|_| interface.to_string());
        Digest::of_bytes(text.as_bytes())
    }
}
