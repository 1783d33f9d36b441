//! Tool names, `name@version` references, contract digests, and `Require` pins.

use std::fmt;

use serde_json::{Map, Value};

use crate::fields::Fields;
use crate::problem::{Problem, Problems, Rule};

/// The longest tool name accepted.
pub const MAX_NAME_LEN: usize = 128;

/// A tool name: lowercase letters, digits, `-`, `.` and `/`, such as `search-price` or
/// `std/http.post`. Segments between `/` are non-empty and start and end with a letter or
/// digit.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct ToolName(String);

impl ToolName {
    /// Validates a name.
    pub fn parse(text: &str) -> Result<ToolName, Problems> {
        let mut out = Vec::new();
        let name = ToolName::check(text, "", &mut out);
        Problems::check(out)?;
        name.ok_or_else(|| Problems(vec![Problem::new("", Rule::InvalidName, "invalid name")]))
    }

    pub(crate) fn check(text: &str, pointer: &str, out: &mut Vec<Problem>) -> Option<ToolName> {
        match name_error(text) {
            None => Some(ToolName(text.to_owned())),
            Some(why) => {
                out.push(Problem::new(
                    pointer,
                    Rule::InvalidName,
                    format!("`{text}` is not a valid tool name: {why}"),
                ));
                None
            }
        }
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn name_error(text: &str) -> Option<String> {
    if text.is_empty() {
        return Some("it is empty".into());
    }
    if text.len() > MAX_NAME_LEN {
        return Some(format!("it is longer than {MAX_NAME_LEN} characters"));
    }
    if let Some(c) = text
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '.' | '/')))
    {
        return Some(format!(
            "`{c}` is not allowed (use lowercase letters, digits, `-`, `.`, `/`)"
        ));
    }
    for segment in text.split('/') {
        let edge_ok = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
        if !edge_ok(segment.chars().next()) || !edge_ok(segment.chars().last()) {
            return Some(
                "each `/`-separated part must start and end with a letter or digit".into(),
            );
        }
    }
    None
}

impl fmt::Display for ToolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An exact tool reference, `name@version`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ToolRef {
    /// The tool name.
    pub name: ToolName,
    /// The exact version.
    pub version: semver::Version,
}

impl ToolRef {
    /// Parses `name@version`.
    pub fn parse(text: &str) -> Result<ToolRef, Problems> {
        let mut out = Vec::new();
        let parsed = ToolRef::check(text, "", &mut out);
        Problems::check(out)?;
        parsed.ok_or_else(|| Problems(vec![Problem::new("", Rule::InvalidRef, "invalid ref")]))
    }

    pub(crate) fn check(text: &str, pointer: &str, out: &mut Vec<Problem>) -> Option<ToolRef> {
        let bad = |why: String| Problem::new(pointer, Rule::InvalidRef, why);
        let Some((name, version)) = text.rsplit_once('@') else {
            out.push(bad(format!(
                "`{text}` is not a `name@version` reference (like search-price@1.2.0)"
            )));
            return None;
        };
        let name = match name_error(name) {
            None => Some(ToolName(name.to_owned())),
            Some(why) => {
                out.push(bad(format!(
                    "`{text}`: the name `{name}` is not valid: {why}"
                )));
                None
            }
        };
        let version = match semver::Version::parse(version) {
            Ok(v) => Some(v),
            Err(e) => {
                out.push(bad(format!(
                    "`{text}`: `{version}` is not an exact semver version: {e}"
                )));
                None
            }
        };
        Some(ToolRef {
            name: name?,
            version: version?,
        })
    }
}

impl fmt::Display for ToolRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}", self.name, self.version)
    }
}

impl std::str::FromStr for ToolRef {
    type Err = Problems;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ToolRef::parse(s)
    }
}

impl serde::Serialize for ToolRef {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for ToolRef {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        ToolRef::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// A content digest, `sha256:` followed by 64 lowercase hex digits.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Digest(String);

impl Digest {
    /// The digest of `bytes`.
    pub fn of_bytes(bytes: &[u8]) -> Digest {
        use sha2::Digest as _;
        let hash = sha2::Sha256::digest(bytes);
        Digest(format!("sha256:{}", hex::encode(hash)))
    }

    /// Parses `sha256:<64 hex>`.
    pub fn parse(text: &str) -> Result<Digest, Problems> {
        let mut out = Vec::new();
        let digest = Digest::check(text, "", &mut out);
        Problems::check(out)?;
        digest.ok_or_else(|| Problems(vec![Problem::new("", Rule::InvalidDigest, "invalid")]))
    }

    pub(crate) fn check(text: &str, pointer: &str, out: &mut Vec<Problem>) -> Option<Digest> {
        let hex_part = text.strip_prefix("sha256:");
        let ok = hex_part.is_some_and(|h| {
            h.len() == 64
                && h.chars()
                    .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
        });
        if ok {
            Some(Digest(text.to_owned()))
        } else {
            out.push(Problem::new(
                pointer,
                Rule::InvalidDigest,
                format!("`{text}` is not a digest (`sha256:` and 64 lowercase hex digits)"),
            ));
            None
        }
    }

    /// The digest as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl serde::Serialize for Digest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> serde::Deserialize<'de> for Digest {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        Digest::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// A pinned tool dependency: an exact `name@version` ref and the resolved contract digest,
/// so a flow's identity closes over tool behaviour.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Require {
    /// The exact reference.
    #[serde(rename = "ref")]
    pub reference: ToolRef,
    /// The pinned contract digest.
    pub contract_digest: Digest,
}

impl Require {
    /// Parses a require object at `pointer`, collecting problems.
    pub fn parse_nested(value: &Value, pointer: &str, out: &mut Vec<Problem>) -> Option<Require> {
        let mut fields = Fields::open(value, pointer, "a require", out);
        let reference = fields
            .string("ref", out)
            .and_then(|(s, at)| ToolRef::check(&s, &at, out));
        let digest = fields
            .string("contract_digest", out)
            .and_then(|(s, at)| Digest::check(&s, &at, out));
        fields.reject_unknown(out);
        Some(Require {
            reference: reference?,
            contract_digest: digest?,
        })
    }

    /// As JSON.
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("ref".into(), Value::String(self.reference.to_string()));
        map.insert(
            "contract_digest".into(),
            Value::String(self.contract_digest.to_string()),
        );
        Value::Object(map)
    }
}

impl<'de> serde::Deserialize<'de> for Require {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let mut out = Vec::new();
        let parsed = Require::parse_nested(&value, "", &mut out);
        Problems::check(out).map_err(serde::de::Error::custom)?;
        parsed.ok_or_else(|| serde::de::Error::custom("invalid require"))
    }
}
