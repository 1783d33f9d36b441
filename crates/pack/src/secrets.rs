//! The secret check run on export: no secret value may enter a pack.
//!
//! Three rules, each reported with the file at fault and never with the value:
//!
//! 1. no `secret: true` input (of a tool or a flow) carries a `default`;
//! 2. no flow binds a literal (or a template without any secret in it) into a secret slot;
//! 3. no file contains any value of the caller's [`DenyList`] — raw, JSON-escaped, Base64
//!    (standard and URL-safe, at every byte alignment), hex (either case) or URL-encoded.

use base64::Engine as _;
use secrecy::{ExposeSecret, SecretString};

/// Values shorter than this are not scanned for: they would match everywhere and cannot be
/// real credentials.
pub const MIN_SECRET_LEN: usize = 4;

/// Secret values that must not appear in a pack, each with a label (such as the name of the
/// environment variable it came from) used in messages instead of the value.
#[derive(Default)]
pub struct DenyList {
    values: Vec<(String, SecretString)>,
}

impl std::fmt::Debug for DenyList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let labels: Vec<&str> = self.values.iter().map(|(l, _)| l.as_str()).collect();
        f.debug_struct("DenyList").field("labels", &labels).finish()
    }
}

impl DenyList {
    /// An empty list.
    pub fn new() -> DenyList {
        DenyList::default()
    }

    /// Adds a value under `label`.
    pub fn add(&mut self, label: impl Into<String>, value: impl Into<String>) {
        self.values
            .push((label.into(), SecretString::from(value.into())));
    }

    /// Every `BROWSERFLOW_SECRET_*` variable of the environment, labelled by its name.
    pub fn from_env() -> DenyList {
        let mut list = DenyList::new();
        for (name, value) in std::env::vars_os() {
            if let (Some(name), Some(value)) = (name.to_str(), value.to_str())
                && name.starts_with("BROWSERFLOW_SECRET_")
            {
                list.add(name, value);
            }
        }
        list
    }

    /// How many values.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The label and form of the first denied value found in `bytes`, if any.
    pub(crate) fn find_in(&self, bytes: &[u8]) -> Option<(String, &'static str)> {
        let strings = json_strings(bytes);
        for (label, value) in &self.values {
            let value = value.expose_secret().as_bytes();
            if value.len() < MIN_SECRET_LEN {
                continue;
            }
            for (form, pattern) in encodings(value) {
                if contains(bytes, &pattern) || strings.iter().any(|s| contains(s, &pattern)) {
                    return Some((label.clone(), form));
                }
            }
        }
        None
    }
}

/// Every string (keys and values) of a JSON document, decoded, so `\u0041`-style escapes
/// cannot hide a value. Empty for text that is not JSON.
fn json_strings(bytes: &[u8]) -> Vec<Vec<u8>> {
    fn walk(value: &serde_json::Value, out: &mut Vec<Vec<u8>>) {
        match value {
            serde_json::Value::String(s) => out.push(s.as_bytes().to_vec()),
            serde_json::Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    out.push(k.as_bytes().to_vec());
                    walk(v, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes) {
        walk(&value, &mut out);
    }
    out
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|w| w == needle)
}

/// The forms a value can take in a file.
fn encodings(value: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    let mut out = vec![("raw", value.to_vec())];
    if let Ok(text) = std::str::from_utf8(value) {
        let escaped = serde_json::to_string(text).unwrap_or_default();
        let inner = escaped.trim_start_matches('"').trim_end_matches('"');
        if inner.as_bytes() != value {
            out.push(("JSON-escaped", inner.as_bytes().to_vec()));
        }
    }
    for engine in [
        base64::engine::general_purpose::STANDARD_NO_PAD,
        base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ] {
        for core in base64_cores(value, &engine) {
            out.push(("Base64", core));
        }
    }
    out.push(("hex", hex::encode(value).into_bytes()));
    out.push(("hex", hex::encode_upper(value).into_bytes()));
    for (upper, plus) in [(true, false), (false, false), (true, true), (false, true)] {
        let encoded = percent_encode(value, upper, plus);
        if encoded != value {
            out.push(("URL-encoded", encoded));
        }
    }
    out
}

/// The Base64 characters fixed by `value` alone, for each of the three byte alignments it
/// can have inside a longer encoded stream.
fn base64_cores(value: &[u8], engine: &base64::engine::GeneralPurpose) -> Vec<Vec<u8>> {
    let mut cores = Vec::new();
    for shift in 0..3usize {
        let mut stream = vec![0u8; shift];
        stream.extend_from_slice(value);
        stream.extend_from_slice(&[0, 0]);
        let encoded = engine.encode(&stream).into_bytes();
        let (first_bit, end_bit) = (shift * 8, (shift + value.len()) * 8);
        let core: Vec<u8> = encoded
            .iter()
            .enumerate()
            .filter(|(j, _)| j * 6 >= first_bit && j * 6 + 6 <= end_bit)
            .map(|(_, c)| *c)
            .collect();
        if core.len() >= MIN_SECRET_LEN {
            cores.push(core);
        }
    }
    cores
}

/// RFC 3986 percent-encoding of everything but unreserved characters; `plus` writes a
/// space as `+` (HTML forms).
fn percent_encode(value: &[u8], upper: bool, plus: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for &b in value {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b);
        } else if plus && b == b' ' {
            out.push(b'+');
        } else if upper {
            out.extend(format!("%{b:02X}").into_bytes());
        } else {
            out.extend(format!("%{b:02x}").into_bytes());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(list: &DenyList, text: &str) -> Option<&'static str> {
        list.find_in(text.as_bytes()).map(|(_, form)| form)
    }

    #[test]
    fn finds_every_form_and_nothing_else() {
        let mut list = DenyList::new();
        list.add("BROWSERFLOW_SECRET_TOKEN", "s3cr3t/to+ken value");
        let secret = "s3cr3t/to+ken value";
        assert_eq!(found(&list, &format!("x{secret}y")), Some("raw"));
        let b64 = base64::engine::general_purpose::STANDARD.encode(format!("Bearer {secret}!"));
        assert_eq!(found(&list, &b64), Some("Base64"));
        for prefix in ["", "a", "ab"] {
            let b64 = base64::engine::general_purpose::URL_SAFE.encode(format!("{prefix}{secret}"));
            assert_eq!(
                found(&list, &format!("\"{b64}\"")),
                Some("Base64"),
                "prefix {prefix:?}"
            );
        }
        assert_eq!(found(&list, &hex::encode(secret)), Some("hex"));
        assert_eq!(
            found(&list, "s3cr3t%2Fto%2Bken%20value"),
            Some("URL-encoded")
        );
        assert_eq!(found(&list, "s3cr3t%2fto%2bken+value"), Some("URL-encoded"));
        assert_eq!(
            found(&list, r#"{"a": "s3cr3t\/to+ken value"}"#),
            Some("raw")
        );
        assert_eq!(found(&list, "s3cr3t to ken value"), None);
        assert!(!format!("{list:?}").contains("s3cr3t"));
    }
}
