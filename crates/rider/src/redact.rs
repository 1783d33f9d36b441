//! The redactor: the one filter every writer goes through.
//!
//! When a tool resolves a secret, its value is registered here, together with every
//! encoding a secret is likely to be written in: raw, JSON-escaped, Base64 (standard and
//! URL-safe alphabets, padded or not, and at each of the three byte alignments it can have
//! inside a longer encoded blob), hex (lower and upper case) and URL-encoded (percent and
//! form encoding). Journal rows, log lines, error messages and reports are passed through
//! [`Redactor::redact`] before they are written, so none of those forms survives.

use std::borrow::Cow;
use std::sync::{Arc, RwLock};

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;

/// What a redacted secret is replaced with.
pub const REDACTED: &str = "[REDACTED]";

/// Base64 fragments shorter than this are not redacted on their own: a short fragment would
/// match innocent text everywhere, while a full standalone encoding is still caught.
const MIN_FRAGMENT_LEN: usize = 8;

/// Shared, cheap to clone; every clone sees every registered secret.
#[derive(Clone, Default)]
pub struct Redactor {
    needles: Arc<RwLock<Vec<String>>>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redactor")
            .field(
                "patterns",
                &self.needles.read().map(|n| n.len()).unwrap_or(0),
            )
            .finish()
    }
}

impl Redactor {
    /// A redactor that knows no secret yet.
    pub fn new() -> Redactor {
        Redactor::default()
    }

    /// Registers a resolved secret: from now on every encoded form of it is redacted.
    pub fn register(&self, secret: &SecretString) {
        let value = secret.expose_secret();
        if value.is_empty() {
            return;
        }
        let forms = encoded_forms(value.as_bytes(), value);
        let Ok(mut needles) = self.needles.write() else {
            return;
        };
        for form in forms {
            if !form.is_empty() && !needles.contains(&form) {
                needles.push(form);
            }
        }
        // Longest first, so a full encoding is replaced before a fragment of it.
        needles.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    }

    /// Whether no secret has been registered.
    pub fn is_empty(&self) -> bool {
        self.needles.read().map(|n| n.is_empty()).unwrap_or(true)
    }

    /// `text` with every registered form of every secret replaced by [`REDACTED`].
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let Ok(needles) = self.needles.read() else {
            // A poisoned lock means a writer panicked mid-update; refuse to leak.
            return Cow::Owned(REDACTED.to_owned());
        };
        let mut out = Cow::Borrowed(text);
        for needle in needles.iter() {
            if out.contains(needle.as_str()) {
                out = Cow::Owned(out.replace(needle.as_str(), REDACTED));
            }
        }
        out
    }

    /// [`Redactor::redact`] as an owned `String`.
    pub fn redact_string(&self, text: &str) -> String {
        self.redact(text).into_owned()
    }

    /// A copy of `value` with every string (and object key) redacted.
    pub fn redact_json(&self, value: &Value) -> Value {
        if self.is_empty() {
            return value.clone();
        }
        match value {
            Value::String(s) => Value::String(self.redact_string(s)),
            Value::Array(items) => {
                Value::Array(items.iter().map(|v| self.redact_json(v)).collect())
            }
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (self.redact_string(k), self.redact_json(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// A `tracing_subscriber` writer factory whose output passes through this redactor,
    /// line by line, before reaching `inner`.
    pub fn make_writer<W>(&self, inner: W) -> crate::redact_writer::RedactingMakeWriter<W> {
        crate::redact_writer::RedactingMakeWriter::new(self.clone(), inner)
    }
}

/// Every form of `bytes` (whose text is `text`) that the redactor replaces.
fn encoded_forms(bytes: &[u8], text: &str) -> Vec<String> {
    let mut forms = vec![text.to_owned()];
    // JSON-escaped (quotes, backslashes, control characters).
    if let Ok(json) = serde_json::to_string(text) {
        forms.push(json[1..json.len() - 1].to_owned());
    }
    for engine in [&STANDARD, &STANDARD_NO_PAD, &URL_SAFE, &URL_SAFE_NO_PAD] {
        forms.push(engine.encode(bytes));
    }
    for url_safe in [false, true] {
        for offset in 0..3 {
            let fragment = base64_fragment(bytes, offset, url_safe);
            if fragment.len() >= MIN_FRAGMENT_LEN {
                forms.push(fragment);
            }
        }
    }
    let hex = hex::encode(bytes);
    forms.push(hex.to_uppercase());
    forms.push(hex);
    for set in UrlSet::ALL {
        forms.push(percent_encode(bytes, set, false));
        forms.push(percent_encode(bytes, set, true));
    }
    forms
}

/// Which bytes a URL encoder leaves alone: encoders differ (RFC 3986, `encodeURIComponent`,
/// forms, and the WHATWG URL parser's query, path and userinfo sets, which is what an HTTP
/// client writes on the wire), so each variant is redacted.
#[derive(Clone, Copy)]
enum UrlSet {
    Unreserved,
    UriComponent,
    Form,
    Query,
    Path,
    Userinfo,
}

impl UrlSet {
    const ALL: [UrlSet; 6] = [
        UrlSet::Unreserved,
        UrlSet::UriComponent,
        UrlSet::Form,
        UrlSet::Query,
        UrlSet::Path,
        UrlSet::Userinfo,
    ];

    fn keeps(self, b: u8) -> bool {
        if b.is_ascii_alphanumeric() {
            return true;
        }
        let printable = (0x21..0x7F).contains(&b);
        match self {
            UrlSet::Unreserved => b"-._~".contains(&b),
            UrlSet::UriComponent => b"-_.!~*'()".contains(&b),
            UrlSet::Form => b"*-._".contains(&b),
            UrlSet::Query => printable && !b"\"#<>'".contains(&b),
            UrlSet::Path => printable && !b"\"#<>?^`{}".contains(&b),
            UrlSet::Userinfo => printable && !b"\"#<>?^`{}/:;=@[\\]|".contains(&b),
        }
    }
}

/// The part of the Base64 encoding of `bytes` that is the same wherever `bytes` sits inside
/// a longer input, given that it starts `offset` bytes (mod 3) into a 3-byte group.
fn base64_fragment(bytes: &[u8], offset: usize, url_safe: bool) -> String {
    let mut padded = vec![0u8; offset];
    padded.extend_from_slice(bytes);
    let encoded = if url_safe {
        URL_SAFE_NO_PAD.encode(&padded)
    } else {
        STANDARD_NO_PAD.encode(&padded)
    };
    // Characters wholly made of the secret's bits: skip those touching the prefix, and the
    // last one when it also holds bits of whatever follows.
    let start = (8 * offset).div_ceil(6);
    let end = (8 * padded.len()) / 6;
    encoded.get(start..end).unwrap_or_default().to_owned()
}

/// Percent-encoding of every byte `set` does not keep; the form set writes a space as `+`;
/// `lower` uses lowercase hex digits.
fn percent_encode(bytes: &[u8], set: UrlSet, lower: bool) -> String {
    let mut out = String::with_capacity(bytes.len() * 3);
    for &b in bytes {
        match b {
            b' ' if matches!(set, UrlSet::Form) => out.push('+'),
            _ if set.keeps(b) => out.push(b as char),
            _ if lower => out.push_str(&format!("%{b:02x}")),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redactor_for(secret: &str) -> Redactor {
        let r = Redactor::new();
        r.register(&SecretString::from(secret.to_owned()));
        r
    }

    #[test]
    fn base64_inside_a_longer_blob_is_caught_at_every_alignment() {
        let secret = "canary-9f8e7d6c5b4a";
        let r = redactor_for(secret);
        for prefix in ["", "u", "us", "user:"] {
            let blob = STANDARD.encode(format!("{prefix}{secret}:tail"));
            let out = r.redact(&blob);
            assert!(out.contains(REDACTED), "prefix {prefix:?}: {out}");
        }
    }

    #[test]
    fn every_simple_form_is_replaced() {
        let secret = "p@ss word/ü\"";
        let r = redactor_for(secret);
        let forms = encoded_forms(secret.as_bytes(), secret);
        for form in forms {
            let text = format!("before {form} after");
            let out = r.redact(&text);
            assert!(!out.contains(&form), "{form} survived in {out}");
        }
    }
}
