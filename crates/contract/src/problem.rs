//! Problems found while reading or checking contracts and schemas.
//!
//! Parsing never stops at the first problem: a file with five mistakes gets five
//! [`Problem`]s, each with the JSON pointer of the offending value and the [`Rule`]
//! it breaks, so a person can fix everything in one pass.

use std::fmt;

/// The rule a [`Problem`] breaks. Stable codes: tools and tests match on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// The text is not JSON at all.
    InvalidJson,
    /// The document is larger than its size limit.
    TooLarge,
    /// The document nests deeper than its depth limit.
    TooDeep,
    /// An object has the same key twice.
    DuplicateKey,
    /// A value of the right type that the format does not accept (out of range, wrong length…).
    InvalidValue,
    /// A step that its kind's own rules refuse (a click without a selector…).
    InvalidStep,
    /// A field that the format does not define.
    UnknownField,
    /// A field the format requires is absent.
    MissingField,
    /// A value of the wrong JSON type (a number where a string belongs…).
    WrongType,
    /// A tool name outside `[a-z0-9./-]`, or otherwise malformed.
    InvalidName,
    /// A version that is not semver.
    InvalidVersion,
    /// A `name@version` reference that does not parse.
    InvalidRef,
    /// A digest that is not `sha256:` and 64 lowercase hex digits.
    InvalidDigest,
    /// An empty input slot name.
    EmptySlotName,
    /// Two input slots with the same name.
    DuplicateSlot,
    /// A capability listed twice.
    DuplicateCapability,
    /// A kind or capability name the model does not define.
    UnknownVariant,
    /// A JSON-Schema keyword outside the supported subset.
    UnsupportedKeyword,
    /// A schema keyword with a value that makes no sense (bad regex, empty enum, min > max…).
    InvalidSchema,
    /// A `default` or example that its own schema rejects.
    InvalidDefault,
    /// Kind rule: a transform declares no capability.
    TransformHasCapabilities,
    /// Kind rule: an http tool declares `net`.
    HttpNeedsNet,
    /// Kind rule: an http tool declares `secrets` exactly when it has a secret input.
    HttpSecretsMismatch,
    /// Kind rule: a browser tool declares `browser`.
    BrowserNeedsBrowser,
    /// Kind rule: a shell tool declares `spawn`.
    ShellNeedsSpawn,
    /// Kind rule: a model tool declares `model`.
    ModelNeedsModel,
    /// A Rust type whose schema the subset cannot express.
    UnsupportedRustType,
}

impl Rule {
    /// The stable snake_case code of the rule.
    pub fn code(self) -> &'static str {
        match self {
            Rule::InvalidJson => "invalid_json",
            Rule::TooLarge => "too_large",
            Rule::TooDeep => "too_deep",
            Rule::DuplicateKey => "duplicate_key",
            Rule::InvalidValue => "invalid_value",
            Rule::InvalidStep => "invalid_step",
            Rule::UnknownField => "unknown_field",
            Rule::MissingField => "missing_field",
            Rule::WrongType => "wrong_type",
            Rule::InvalidName => "invalid_name",
            Rule::InvalidVersion => "invalid_version",
            Rule::InvalidRef => "invalid_ref",
            Rule::InvalidDigest => "invalid_digest",
            Rule::EmptySlotName => "empty_slot_name",
            Rule::DuplicateSlot => "duplicate_slot",
            Rule::DuplicateCapability => "duplicate_capability",
            Rule::UnknownVariant => "unknown_variant",
            Rule::UnsupportedKeyword => "unsupported_keyword",
            Rule::InvalidSchema => "invalid_schema",
            Rule::InvalidDefault => "invalid_default",
            Rule::TransformHasCapabilities => "transform_has_capabilities",
            Rule::HttpNeedsNet => "http_needs_net",
            Rule::HttpSecretsMismatch => "http_secrets_mismatch",
            Rule::BrowserNeedsBrowser => "browser_needs_browser",
            Rule::ShellNeedsSpawn => "shell_needs_spawn",
            Rule::ModelNeedsModel => "model_needs_model",
            Rule::UnsupportedRustType => "unsupported_rust_type",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// One thing wrong with a document, located by JSON pointer (RFC 6901; `""` is the root).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    /// Where: the JSON pointer of the offending value inside the document.
    pub pointer: String,
    /// Which rule is broken.
    pub rule: Rule,
    /// What is wrong, for a person.
    pub message: String,
}

impl Problem {
    /// A problem at `pointer`.
    pub fn new(pointer: impl Into<String>, rule: Rule, message: impl Into<String>) -> Self {
        Problem {
            pointer: pointer.into(),
            rule,
            message: message.into(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() {
            "(root)"
        } else {
            &self.pointer
        };
        write!(f, "{at}: {} [{}]", self.message, self.rule)
    }
}

/// Every problem found in one document. Never empty.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct Problems(pub Vec<Problem>);

impl Problems {
    /// Wraps a non-empty list; `Ok(())` for an empty one.
    pub fn check(list: Vec<Problem>) -> Result<(), Problems> {
        if list.is_empty() {
            Ok(())
        } else {
            Err(Problems(list))
        }
    }

    /// The problems, in document order.
    pub fn iter(&self) -> impl Iterator<Item = &Problem> {
        self.0.iter()
    }

    /// Whether some problem breaks `rule`.
    pub fn has(&self, rule: Rule) -> bool {
        self.0.iter().any(|p| p.rule == rule)
    }
}

impl fmt::Display for Problems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

/// Appends one reference token to a JSON pointer, escaping `~` and `/` (RFC 6901).
pub fn push_pointer(base: &str, token: &str) -> String {
    let escaped = token.replace('~', "~0").replace('/', "~1");
    format!("{base}/{escaped}")
}

/// The JSON type name of a value, for messages (`integer` for whole numbers).
pub fn json_type_name(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
