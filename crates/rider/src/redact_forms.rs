//! Every form a secret takes on its way to a file, a log line or a screen.
//!
//! A secret is written the way the layer that carries it encodes text, often two layers deep
//! (a URL inside a JSON string inside a `Debug`-printed WebSocket frame). The forms, built
//! from the secret (and from its lower- and upper-case variants, which pages echo):
//!
//! - **text layer**: raw; percent-encoded under each set encoders use (RFC 3986 unreserved,
//!   `encodeURIComponent`, form encoding with `+` for space, the WHATWG query, path and
//!   userinfo sets), and each of those with non-ASCII characters — and spaces, or not — left
//!   raw, as Chromium displays a URL (an untitled page's title); JSON-escaped (minimal as serde writes it, ASCII-only `\uXXXX` with
//!   surrogate pairs, Chromium's `<` → `\u003C`, Go's `<>&`, each with and without `\/`);
//!   Rust's `str` Debug escapes (`escape_debug`, and `\u{e9}` for every non-ASCII char);
//!   Rust byte-string escapes (`\xc3\xa9`, as `Bytes`' and `[u8]::escape_ascii` print);
//! - **a second layer** over each of those: JSON-escaped, `Debug`-escaped, byte-escaped and
//!   hex (a hex dump of a frame holds the JSON-escaped secret);
//! - **binary encodings** of the secret's bytes: Base64 (standard and URL-safe, padded or
//!   not, and the fragments that stay the same at each of the three byte alignments inside a
//!   longer blob) and hex;
//! - **fragments**: the runs of the secret between the characters URL and form handling
//!   split on (space, `+`, or both), each with its text-layer and second-layer forms, when
//!   at least [`MIN_FRAGMENT_LEN`] bytes long.
//!
//! Hex digits and percent escapes come in upper and lower case; the matcher compares ASCII
//! case-insensitively, so one form covers both.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};

/// The shortest fragment (in bytes of the secret) redacted on its own. Why 8: a fragment is
/// redacted everywhere it appears, so a short one (`Ca`, `x&y`) would blank innocent words in
/// every log line, while it tells a reader little of the secret; 8 bytes is past the length
/// of most words and short tokens (so over-redaction stays rare), and a secret split into
/// pieces shorter than that leaks at most 7 bytes per piece, never the whole. Base64
/// fragments use the same bound for the same reason.
pub(crate) const MIN_FRAGMENT_LEN: usize = 8;

/// Every form of `secret` the redactor replaces (empty strings excluded).
pub(crate) fn encoded_forms(secret: &str) -> BTreeSet<String> {
    let mut forms = BTreeSet::new();
    let variants: BTreeSet<String> = [
        secret.to_owned(),
        secret.to_lowercase(),
        secret.to_uppercase(),
    ]
    .into();
    for variant in &variants {
        for form in text_forms(variant) {
            add_second_layer(&mut forms, &form);
            forms.insert(form);
        }
        for fragment in fragments(variant) {
            for form in text_forms(fragment) {
                add_second_layer(&mut forms, &form);
                forms.insert(form);
            }
        }
    }
    forms.extend(binary_forms(secret.as_bytes()));
    forms.retain(|f| !f.is_empty());
    forms
}

/// The pieces of `secret` between spaces, between `+`, and between either (a form-encoded
/// URL writes the space as `+`, and a query parser reads a raw `+` as a space: either can
/// be where a consumer splits it), long enough to identify it; the whole secret is not one
/// of its fragments.
fn fragments(secret: &str) -> BTreeSet<&str> {
    let splits: [&[char]; 3] = [&[' '], &['+'], &[' ', '+']];
    splits
        .into_iter()
        .flat_map(|separators| secret.split(separators))
        .filter(|piece| piece.len() >= MIN_FRAGMENT_LEN && piece.len() < secret.len())
        .collect()
}

/// The text-layer forms of `text` (see the module docs).
fn text_forms(text: &str) -> Vec<String> {
    let mut forms = vec![text.to_owned()];
    for set in UrlSet::ALL {
        forms.push(percent_encode(text.as_bytes(), set));
        // Chromium shows a URL (an untitled page's title, the address) with the escapes of
        // non-ASCII text decoded to its characters, and sometimes `%20` to a space too, but
        // every ASCII escape kept: a mix of the set's encoding and raw UTF-8.
        if !text.is_ascii() {
            forms.push(percent_encode_ascii(text, set, false));
            forms.push(percent_encode_ascii(text, set, true));
        }
    }
    for style in JsonStyle::ALL {
        forms.push(json_escape(text, style, false));
        forms.push(json_escape(text, style, true));
    }
    forms.push(text.escape_debug().to_string());
    forms.push(text.escape_default().to_string());
    forms.push(debug_form(text));
    forms.push(debug_escape_non_ascii(text));
    forms.push(byte_escape(text.as_bytes()));
    forms
}

/// The second layer over one text-layer form: the escapes a writer adds when it prints a
/// string that already holds the form, and a hex dump of it.
fn add_second_layer(forms: &mut BTreeSet<String>, form: &str) {
    forms.insert(json_escape(form, JsonStyle::Minimal, false));
    forms.insert(form.escape_debug().to_string());
    forms.insert(debug_form(form));
    forms.insert(byte_escape(form.as_bytes()));
    forms.insert(hex::encode(form.as_bytes()));
}

/// Base64 (both alphabets, padded or not, and the alignment-independent fragments) and hex.
fn binary_forms(bytes: &[u8]) -> Vec<String> {
    let mut forms = Vec::new();
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
    forms.push(hex::encode(bytes));
    forms
}

/// How a JSON writer escapes beyond `"`, `\` and control characters.
#[derive(Clone, Copy)]
enum JsonStyle {
    /// serde_json, JavaScript's `JSON.stringify`: nothing more.
    Minimal,
    /// Python's `json.dumps`, Java's writers: every non-ASCII char as `\uXXXX`.
    AsciiOnly,
    /// Chromium's JSON writer (CDP messages): `<` as `\u003C`, U+2028/U+2029 escaped.
    Chromium,
    /// Go's `encoding/json`: `<`, `>`, `&`, U+2028/U+2029 escaped.
    HtmlSafe,
}

impl JsonStyle {
    const ALL: [JsonStyle; 4] = [
        JsonStyle::Minimal,
        JsonStyle::AsciiOnly,
        JsonStyle::Chromium,
        JsonStyle::HtmlSafe,
    ];

    fn escapes(self, c: char) -> bool {
        match self {
            JsonStyle::Minimal => false,
            JsonStyle::AsciiOnly => !c.is_ascii(),
            JsonStyle::Chromium => matches!(c, '<' | '\u{2028}' | '\u{2029}'),
            JsonStyle::HtmlSafe => matches!(c, '<' | '>' | '&' | '\u{2028}' | '\u{2029}'),
        }
    }
}

/// `text` as inside a JSON string written in `style`; `slash` also writes `/` as `\/`.
fn json_escape(text: &str, style: JsonStyle, slash: bool) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' if slash => out.push_str("\\/"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || style.escapes(c) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// `text` inside the quotes `{:?}` prints around a `str`.
fn debug_form(text: &str) -> String {
    let quoted = format!("{text:?}");
    quoted
        .strip_prefix('"')
        .and_then(|q| q.strip_suffix('"'))
        .unwrap_or(&quoted)
        .to_owned()
}

/// `text` as Rust's `escape_debug` writes it, with every non-ASCII char as `\u{..}` too (as
/// `escape_default` and `char::escape_unicode` do).
fn debug_escape_non_ascii(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_ascii() {
            out.extend(c.escape_debug());
        } else {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
    out
}

/// `bytes` as a Rust byte string prints them (`[u8]::escape_ascii`, `Bytes`' `Debug`):
/// printable ASCII as is, `\"`, `\'`, `\\`, `\n`, `\r`, `\t`, every other byte as `\xNN`.
fn byte_escape(bytes: &[u8]) -> String {
    bytes.escape_ascii().to_string()
}

/// Which bytes a URL encoder leaves alone: encoders differ (RFC 3986, `encodeURIComponent`,
/// forms, and the WHATWG URL parser's sets, which is what a browser or an HTTP client writes
/// on the wire), so each variant is redacted.
#[derive(Clone, Copy)]
enum UrlSet {
    /// Everything but ASCII letters and digits (the `percent-encoding` crate's
    /// `NON_ALPHANUMERIC`, PHP's `rawurlencode` of old).
    AlphanumericOnly,
    Unreserved,
    UriComponent,
    Form,
    /// WHATWG C0 control set: only controls and non-ASCII (a URL's host, `data:` URLs).
    C0Control,
    Fragment,
    /// The query of a non-special scheme (`'` kept).
    Query,
    /// The query of `http(s)`, `ws(s)`, `ftp`, `file` (`'` encoded too).
    SpecialQuery,
    Path,
    Userinfo,
}

impl UrlSet {
    const ALL: [UrlSet; 10] = [
        UrlSet::AlphanumericOnly,
        UrlSet::Unreserved,
        UrlSet::UriComponent,
        UrlSet::Form,
        UrlSet::C0Control,
        UrlSet::Fragment,
        UrlSet::Query,
        UrlSet::SpecialQuery,
        UrlSet::Path,
        UrlSet::Userinfo,
    ];

    fn keeps(self, b: u8) -> bool {
        if b.is_ascii_alphanumeric() {
            return true;
        }
        let printable = (0x21..0x7F).contains(&b);
        match self {
            UrlSet::AlphanumericOnly => false,
            UrlSet::Unreserved => b"-._~".contains(&b),
            UrlSet::UriComponent => b"-_.!~*'()".contains(&b),
            UrlSet::Form => b"*-._".contains(&b),
            UrlSet::C0Control => (0x20..0x7F).contains(&b),
            UrlSet::Fragment => printable && !b"\"<>`".contains(&b),
            UrlSet::Query => printable && !b"\"#<>".contains(&b),
            UrlSet::SpecialQuery => printable && !b"\"#<>'".contains(&b),
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

/// Percent-encoding of every byte `set` does not keep (upper-case hex; the matcher ignores
/// case); the form set writes a space as `+`.
fn percent_encode(bytes: &[u8], set: UrlSet) -> String {
    let mut out = String::with_capacity(bytes.len() * 3);
    for &b in bytes {
        match b {
            b' ' if matches!(set, UrlSet::Form) => out.push('+'),
            _ if set.keeps(b) => out.push(b as char),
            _ => {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    out
}

/// [`percent_encode`] of the ASCII characters of `text` only, non-ASCII characters kept as
/// they are (and a space too with `raw_spaces`): how Chromium displays an encoded URL.
fn percent_encode_ascii(text: &str, set: UrlSet, raw_spaces: bool) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for c in text.chars() {
        if !c.is_ascii() || (raw_spaces && c == ' ') {
            out.push(c);
        } else {
            let mut byte = [0u8; 1];
            out.push_str(&percent_encode(c.encode_utf8(&mut byte).as_bytes(), set));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_issue_canary_has_the_forms_seen_in_the_wild() {
        let forms = encoded_forms("Ca Na/Ry+x&y=1é");
        for seen in [
            // report.json's final_url (form-encoded).
            "Ca+Na%2FRy%2Bx%26y%3D1%C3%A9",
            // A byte-string escape in a trace line.
            "Ca Na/Ry+x&y=1\\xc3\\xa9",
            // The page's lower-case echo.
            "ca na/ry+x&y=1é",
            // A fragment after a split on the URL's `+`.
            "Na%2FRy%2Bx%26y%3D1%C3%A9",
            // JSON, ASCII-only.
            "Ca Na/Ry+x&y=1\\u00e9",
        ] {
            assert!(forms.contains(seen), "{seen} missing");
        }
    }

    #[test]
    fn a_url_as_chromium_shows_it_mixes_escapes_and_raw_utf8() {
        let forms = encoded_forms("Ca Na/Ry+x&y=1%zé ü");
        for seen in [
            // An untitled page's title: the form-encoded query, non-ASCII decoded.
            "Ca+Na%2FRy%2Bx%26y%3D1%25zé+ü",
            // The same, percent-encoded with `%20`, and with spaces decoded too.
            "Ca%20Na%2FRy%2Bx%26y%3D1%25zé%20ü",
            "Ca Na%2FRy%2Bx%26y%3D1%25zé ü",
        ] {
            assert!(forms.contains(seen), "{seen} missing");
        }
    }

    #[test]
    fn short_pieces_are_not_fragments() {
        let forms = encoded_forms("ab cdefghijk");
        assert!(!forms.contains("ab"));
        assert!(forms.contains("cdefghijk"));
    }

    #[test]
    fn surrogate_pairs_are_written_as_json_does() {
        assert_eq!(
            json_escape("a😀", JsonStyle::AsciiOnly, false),
            "a\\ud83d\\ude00"
        );
    }
}
