//! Bindings: what fills a step's input slot (or the flow's output).

use std::fmt;

use serde_json::{Map, Value};

use crate::reference::Reference;
use crate::scope::{EvalError, Scope};
use crate::secret::{Bound, SecretPart, SecretTemplate};
use crate::template::{TemplatePiece, escape_template_text, scan_template};

/// One piece of a template binding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplatePart {
    /// Literal text.
    Text(String),
    /// A `{reference}` placeholder.
    Ref(Reference),
}

/// What fills a slot.
///
/// On disk a binding is an object with exactly one member:
///
/// | form | meaning |
/// |---|---|
/// | `{"value": <any JSON>}` | a literal |
/// | `{"from": "input.query"}` | a flow input, or a path inside it |
/// | `{"from": "steps.search.output.price"}` | a step's output, or a path inside it |
/// | `{"from": "secret.WEBHOOK_URL"}` | a secret, carried as a reference |
/// | `{"template": "{steps.search.output.name} costs {steps.search.output.price}"}` | text joined from the others; `{{` and `}}` are literal braces |
///
/// The explicit forms keep a literal string from ever being mistaken for a reference — and
/// a secret from ever being mistaken for text.
#[derive(Debug, Clone, PartialEq)]
pub enum Binding {
    /// A literal JSON value.
    Literal(Value),
    /// A flow input, a step output (or a path inside either), or a secret.
    Ref(Reference),
    /// Text joined from literal parts and references; secret-bearing when any part is.
    Template(Vec<TemplatePart>),
}

impl Binding {
    /// Parses the on-disk form; the error says what is wrong, for a person.
    pub fn from_json(value: &Value) -> Result<Binding, String> {
        const FORMS: &str = "a binding is an object with exactly one of `value` (a literal), `from` (a reference such as \"input.query\", \"steps.search.output.price\", \"secret.NAME\") or `template` (text with {reference} placeholders)";
        let Value::Object(map) = value else {
            return Err(format!("{FORMS}; found {}", crate::json_type_name(value)));
        };
        let mut members = map.iter();
        let (Some((key, inner)), None) = (members.next(), members.next()) else {
            let keys: Vec<&str> = map.keys().map(String::as_str).collect();
            return Err(format!("{FORMS}; found the members [{}]", keys.join(", ")));
        };
        match (key.as_str(), inner) {
            ("value", v) => Ok(Binding::Literal(v.clone())),
            ("from", Value::String(text)) => Reference::parse(text).map(Binding::Ref),
            ("template", Value::String(text)) => parse_template(text).map(Binding::Template),
            ("from" | "template", other) => Err(format!(
                "`{key}` takes a string, found {}",
                crate::json_type_name(other)
            )),
            (other, _) => Err(format!("unknown member `{other}`: {FORMS}")),
        }
    }

    /// The on-disk form, normalised (templates re-rendered).
    pub fn to_json(&self) -> Value {
        let (key, value) = match self {
            Binding::Literal(v) => ("value", v.clone()),
            Binding::Ref(r) => ("from", Value::String(r.to_string())),
            Binding::Template(_) => ("template", Value::String(self.to_string())),
        };
        let mut map = Map::new();
        map.insert(key.to_owned(), value);
        Value::Object(map)
    }

    /// Every reference it reads.
    pub fn references(&self) -> Vec<&Reference> {
        match self {
            Binding::Literal(_) => Vec::new(),
            Binding::Ref(r) => vec![r],
            Binding::Template(parts) => parts
                .iter()
                .filter_map(|p| match p {
                    TemplatePart::Ref(r) => Some(r),
                    TemplatePart::Text(_) => None,
                })
                .collect(),
        }
    }

    /// Evaluates the binding in `scope`. A secret (or a template with a secret in it, or a
    /// `secret: true` flow input) evaluates to [`Bound::Secret`], never to its value.
    pub fn evaluate(&self, scope: &Scope) -> Result<Bound, EvalError> {
        match self {
            Binding::Literal(v) => Ok(Bound::Value(v.clone())),
            Binding::Ref(r) => r.resolve(scope),
            Binding::Template(parts) => {
                let mut template = SecretTemplate::from_parts([]);
                for part in parts {
                    match part {
                        TemplatePart::Text(t) => template.push(SecretPart::Text(t.clone())),
                        TemplatePart::Ref(r) => match r.resolve(scope)? {
                            Bound::Secret(inner) => {
                                for p in inner.parts() {
                                    template.push(p.clone());
                                }
                            }
                            Bound::Value(v) => template.push(SecretPart::Text(interpolate(r, &v)?)),
                        },
                    }
                }
                Ok(match template.into_plain() {
                    Ok(text) => Bound::Value(Value::String(text)),
                    Err(template) => Bound::Secret(template),
                })
            }
        }
    }
}

/// The text of a value placed in a template: strings as they are, numbers and booleans as
/// JSON writes them.
fn interpolate(reference: &Reference, value: &Value) -> Result<String, EvalError> {
    match value {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        other => Err(EvalError::Interpolate {
            reference: reference.to_string(),
            found: crate::json_type_name(other),
        }),
    }
}

fn parse_template(text: &str) -> Result<Vec<TemplatePart>, String> {
    scan_template(text)
        .map(
            |piece| match piece.map_err(|e| format!("template `{text}`: {e}"))? {
                TemplatePiece::Text(t) => Ok(TemplatePart::Text(t)),
                TemplatePiece::Placeholder { name, .. } => Reference::parse(name)
                    .map(TemplatePart::Ref)
                    .map_err(|e| format!("template `{text}`: {e}")),
            },
        )
        .collect()
}

/// Literals as JSON, references as text, templates as template text.
impl fmt::Display for Binding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Binding::Literal(v) => write!(f, "{v}"),
            Binding::Ref(r) => write!(f, "{r}"),
            Binding::Template(parts) => {
                for part in parts {
                    match part {
                        TemplatePart::Text(t) => f.write_str(&escape_template_text(t))?,
                        TemplatePart::Ref(r) => write!(f, "{{{r}}}")?,
                    }
                }
                Ok(())
            }
        }
    }
}
