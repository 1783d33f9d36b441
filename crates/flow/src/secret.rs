//! Evaluated binding values: plain JSON, or a secret-bearing template that names secrets
//! without ever holding their values.

use std::fmt;

use serde_json::Value;

/// One piece of a [`SecretTemplate`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SecretPart {
    /// Literal text, not secret.
    Text(String),
    /// The value of the secret with this name, resolved only inside a tool holding the
    /// `secrets` capability.
    Secret(String),
}

/// A string made of literal text and secret references, such as
/// `Bearer {secret.API_TOKEN}` or just `{secret.WEBHOOK_URL}`.
///
/// It holds secret *names*, never secret values, so it may be logged, journaled and
/// serialised freely. [`SecretTemplate::resolve`] turns it into the real string; only a tool
/// with the `secrets` capability should call it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SecretTemplate {
    parts: Vec<SecretPart>,
}

impl SecretTemplate {
    /// The template that is exactly the secret `name`.
    pub fn reference(name: &str) -> SecretTemplate {
        SecretTemplate {
            parts: vec![SecretPart::Secret(name.to_owned())],
        }
    }

    /// A template from parts; adjacent texts are merged and empty texts dropped.
    pub fn from_parts(parts: impl IntoIterator<Item = SecretPart>) -> SecretTemplate {
        let mut template = SecretTemplate { parts: Vec::new() };
        for part in parts {
            template.push(part);
        }
        template
    }

    pub(crate) fn push(&mut self, part: SecretPart) {
        match (self.parts.last_mut(), part) {
            (_, SecretPart::Text(text)) if text.is_empty() => {}
            (Some(SecretPart::Text(last)), SecretPart::Text(text)) => last.push_str(&text),
            (_, part) => self.parts.push(part),
        }
    }

    /// The text, when no part is a secret; the template itself otherwise.
    pub(crate) fn into_plain(self) -> Result<String, SecretTemplate> {
        let mut text = String::new();
        for part in &self.parts {
            match part {
                SecretPart::Text(t) => text.push_str(t),
                SecretPart::Secret(_) => return Err(self),
            }
        }
        Ok(text)
    }

    /// The parts, in order.
    pub fn parts(&self) -> &[SecretPart] {
        &self.parts
    }

    /// The names of the secrets it needs, in order of first use, without repeats.
    pub fn secret_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for part in &self.parts {
            if let SecretPart::Secret(name) = part
                && !names.contains(&name.as_str())
            {
                names.push(name);
            }
        }
        names
    }

    /// The real string, asking `lookup` for each secret's value. Call this only inside a
    /// tool holding the `secrets` capability, and keep the result in a redacting type.
    pub fn resolve<E>(
        &self,
        mut lookup: impl FnMut(&str) -> Result<String, E>,
    ) -> Result<String, E> {
        let mut text = String::new();
        for part in &self.parts {
            match part {
                SecretPart::Text(t) => text.push_str(t),
                SecretPart::Secret(name) => text.push_str(&lookup(name)?),
            }
        }
        Ok(text)
    }
}

/// Shows the template with placeholders, e.g. `Bearer {secret.API_TOKEN}`; literal braces
/// are doubled as in flow templates.
impl fmt::Display for SecretTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for part in &self.parts {
            match part {
                SecretPart::Text(t) => f.write_str(&crate::escape_template_text(t))?,
                SecretPart::Secret(name) => write!(f, "{{secret.{name}}}")?,
            }
        }
        Ok(())
    }
}

/// What a [`Binding`](crate::Binding) evaluates to.
#[derive(Debug, Clone, PartialEq)]
pub enum Bound {
    /// A plain JSON value.
    Value(Value),
    /// A secret-bearing string, still unresolved.
    Secret(SecretTemplate),
}

impl Bound {
    /// The plain value, if this is not secret-bearing.
    pub fn as_value(&self) -> Option<&Value> {
        match self {
            Bound::Value(v) => Some(v),
            Bound::Secret(_) => None,
        }
    }

    /// Whether this carries a secret.
    pub fn is_secret(&self) -> bool {
        matches!(self, Bound::Secret(_))
    }

    /// A JSON form safe to journal or hash: the value itself, or
    /// `{"secret_template": "…{secret.NAME}…"}` for a secret-bearing value.
    pub fn to_redacted_json(&self) -> Value {
        match self {
            Bound::Value(v) => v.clone(),
            Bound::Secret(t) => serde_json::json!({ "secret_template": t.to_string() }),
        }
    }
}

impl serde::Serialize for Bound {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_redacted_json().serialize(serializer)
    }
}
