//! How a secret-bearing input reaches a tool: as a reference, never as its value.
//!
//! The Rider hands a slot that carries a secret to the tool as
//! `{"secret_template": "Bearer {secret.API_TOKEN}"}` (the flow crate's redacted form), and a
//! plain slot as its JSON value. [`SecretInput`] reads either; the tool turns it into the real
//! string with [`SecretsCap::expose`](crate::caps::secrets::SecretsCap::expose), which needs
//! the `secrets` capability and registers the value with the redactor.

use std::borrow::Cow;

use browserflow_flow::{SecretPart, SecretTemplate, TemplateError, TemplatePiece, scan_template};
use secrecy::SecretString;
use serde_json::Value;

use crate::caps::secrets::{SecretsCap, SecretsError};

/// The key of the object that stands for a secret-bearing value in a tool's input.
pub const SECRET_TEMPLATE_KEY: &str = "secret_template";

/// An input slot that may carry a secret: plain text, or a template naming secrets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecretInput {
    /// A plain string (no secret in it).
    Plain(String),
    /// Text and secret references, still unresolved.
    Template(SecretTemplate),
}

impl SecretInput {
    /// Reads the input form: a string, or `{"secret_template": "…"}`.
    pub fn from_json(value: &Value) -> Result<SecretInput, String> {
        match value {
            Value::String(s) => Ok(SecretInput::Plain(s.clone())),
            Value::Object(map) if map.len() == 1 => match map.get(SECRET_TEMPLATE_KEY) {
                Some(Value::String(text)) => parse_template(text).map(SecretInput::Template),
                _ => Err(format!(
                    "expected a string or {{\"{SECRET_TEMPLATE_KEY}\": \"…\"}}"
                )),
            },
            _ => Err(format!(
                "expected a string or {{\"{SECRET_TEMPLATE_KEY}\": \"…\"}}"
            )),
        }
    }

    /// The input form (what the Rider passes to a tool).
    pub fn to_json(&self) -> Value {
        match self {
            SecretInput::Plain(s) => Value::String(s.clone()),
            SecretInput::Template(t) => serde_json::json!({ SECRET_TEMPLATE_KEY: t.to_string() }),
        }
    }

    /// Whether it carries a secret.
    pub fn is_secret(&self) -> bool {
        matches!(self, SecretInput::Template(_))
    }

    /// The names of the secrets it references.
    pub fn secret_names(&self) -> Vec<&str> {
        match self {
            SecretInput::Plain(_) => Vec::new(),
            SecretInput::Template(t) => t.secret_names(),
        }
    }

    /// Printable form with placeholders (`Bearer {secret.API_TOKEN}`): safe to log.
    pub fn display(&self) -> Cow<'_, str> {
        match self {
            SecretInput::Plain(s) => Cow::Borrowed(s),
            SecretInput::Template(t) => Cow::Owned(t.to_string()),
        }
    }
}

impl<'de> serde::Deserialize<'de> for SecretInput {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        SecretInput::from_json(&value).map_err(serde::de::Error::custom)
    }
}

/// Declared as a string: the slot's schema is the type of the resolved value.
impl schemars::JsonSchema for SecretInput {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("SecretInput")
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        String::json_schema(generator)
    }
}

impl SecretsCap {
    /// The real string of a secret-bearing input. A plain input is returned as it is.
    pub fn expose(&self, input: &SecretInput) -> Result<SecretString, SecretsError> {
        match input {
            SecretInput::Plain(s) => Ok(SecretString::from(s.clone())),
            SecretInput::Template(template) => {
                let mut text = String::new();
                for part in template.parts() {
                    match part {
                        SecretPart::Text(t) => text.push_str(t),
                        SecretPart::Secret(name) => {
                            use secrecy::ExposeSecret;
                            text.push_str(self.resolve(name)?.expose_secret());
                        }
                    }
                }
                let value = SecretString::from(text);
                self.register(&value);
                Ok(value)
            }
        }
    }
}

/// Parses template text: `{secret.NAME}` placeholders, `{{` and `}}` for literal braces (the
/// flow crate's one template grammar, [`scan_template`]).
pub fn parse_template(text: &str) -> Result<SecretTemplate, String> {
    let mut parts = Vec::new();
    for piece in scan_template(text) {
        let piece = piece.map_err(|e| match e {
            TemplateError::Unclosed { .. } => "an unclosed `{` in a secret template".to_owned(),
            TemplateError::Unmatched { .. } => "an unmatched `}` in a secret template".to_owned(),
        })?;
        parts.push(match piece {
            TemplatePiece::Text(text) => SecretPart::Text(text),
            TemplatePiece::Placeholder { name: inner, .. } => {
                let Some(name) = inner.strip_prefix("secret.") else {
                    return Err(format!(
                        "`{{{inner}}}` in a secret template: only `{{secret.NAME}}` placeholders are allowed"
                    ));
                };
                SecretPart::Secret(name.to_owned())
            }
        });
    }
    Ok(SecretTemplate::from_parts(parts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_text_round_trips() {
        let template = SecretTemplate::from_parts([
            SecretPart::Text("Bearer {x} ".into()),
            SecretPart::Secret("API_TOKEN".into()),
        ]);
        let text = template.to_string();
        assert_eq!(text, "Bearer {{x}} {secret.API_TOKEN}");
        assert_eq!(parse_template(&text), Ok(template));
        assert!(parse_template("{input.x}").is_err());
        assert!(parse_template("a } b").is_err());
    }
}
