//! The redactor against independent encoders: random canaries over the whole Unicode range,
//! each encoding as a real library (or the standard library) writes it, embedded in random
//! text; text without a secret comes back unchanged; and the cost per log line.

use std::time::Instant;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use browserflow_rider::secrecy::SecretString;
use browserflow_rider::{REDACTED, Redactor};
use percent_encoding::{AsciiSet, CONTROLS, NON_ALPHANUMERIC, utf8_percent_encode};
use proptest::prelude::*;

/// The WHATWG query set, what a browser writes for a URL's query.
const QUERY: &AsciiSet = &CONTROLS.add(b' ').add(b'"').add(b'#').add(b'<').add(b'>');

fn redactor_for(secret: &str) -> Redactor {
    let r = Redactor::new();
    r.register(&SecretString::from(secret.to_owned()));
    r
}

/// JSON with every non-ASCII char escaped, as Python's `json.dumps` writes it (surrogate
/// pairs above U+FFFF), from serde_json's own escaping of the rest.
fn json_ascii(text: &str) -> String {
    let minimal = serde_json::to_string(text).unwrap();
    let mut out = String::new();
    for c in minimal[1..minimal.len() - 1].chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04X}"));
            }
        }
    }
    out
}

/// Every encoding of the brief, each from an encoder that is not the redactor's.
fn encodings(secret: &str) -> Vec<(&'static str, String)> {
    let bytes = secret.as_bytes();
    let json = serde_json::to_string(secret).unwrap();
    let debug = format!("{secret:?}");
    let percent = utf8_percent_encode(secret, NON_ALPHANUMERIC).to_string();
    vec![
        ("raw", secret.to_owned()),
        ("json", json[1..json.len() - 1].to_owned()),
        ("json-ascii", json_ascii(secret)),
        ("json-ascii-lower", json_ascii(secret).to_lowercase()),
        ("json-twice", {
            let inner = serde_json::to_string(secret).unwrap();
            let outer = serde_json::to_string(&inner).unwrap();
            outer[1..outer.len() - 1].to_owned()
        }),
        ("percent-upper", percent.clone()),
        ("percent-lower", percent.to_lowercase()),
        (
            "percent-query",
            utf8_percent_encode(secret, QUERY).to_string(),
        ),
        ("form", form_urlencoded::byte_serialize(bytes).collect()),
        ("base64", STANDARD.encode(bytes)),
        ("base64-nopad", STANDARD_NO_PAD.encode(bytes)),
        ("base64url", URL_SAFE.encode(bytes)),
        ("base64url-nopad", URL_SAFE_NO_PAD.encode(bytes)),
        ("hex-lower", hex::encode(bytes)),
        ("hex-upper", hex::encode_upper(bytes)),
        ("byte-escape", bytes.escape_ascii().to_string()),
        ("debug", debug[1..debug.len() - 1].to_owned()),
        ("debug-unicode", secret.escape_default().to_string()),
        (
            "debug-of-bytes-debug",
            format!("{:?}", bytes.escape_ascii().to_string()),
        ),
    ]
}

/// Whether `form` survives in `out` outside the markers (a form spanning a marker's
/// brackets is the marker's own text, not the secret).
fn survives(out: &str, form: &str) -> bool {
    out.split(REDACTED).any(|piece| piece.contains(form))
}

fn canary() -> impl Strategy<Value = String> {
    proptest::collection::vec(any::<char>(), 1..24).prop_map(|c| c.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_encoding_of_a_random_canary_is_redacted(
        secret in canary(),
        before in ".{0,40}",
        after in ".{0,40}",
    ) {
        let r = redactor_for(&secret);
        for (name, form) in encodings(&secret) {
            let text = format!("{before}{form}{after}");
            let out = r.redact(&text);
            prop_assert!(!survives(&out, &form), "{name} {form:?} survived in {out:?}");
        }
    }

    #[test]
    fn base64_of_a_canary_inside_a_longer_blob_is_redacted(
        secret in canary().prop_filter("long enough", |s| s.len() >= 9),
        prefix in proptest::collection::vec(any::<u8>(), 0..5),
        suffix in proptest::collection::vec(any::<u8>(), 0..5),
    ) {
        let r = redactor_for(&secret);
        let mut blob = prefix.clone();
        blob.extend_from_slice(secret.as_bytes());
        blob.extend_from_slice(&suffix);
        for encoded in [STANDARD.encode(&blob), URL_SAFE_NO_PAD.encode(&blob)] {
            prop_assert!(r.redact(&encoded).contains(REDACTED), "{encoded}");
        }
    }

    #[test]
    fn text_that_cannot_hold_a_form_is_left_alone(
        secret in canary(),
        text in proptest::collection::vec(any::<char>(), 0..200),
    ) {
        // Forms are made of the secret's characters (in any case) and ASCII: text of other
        // characters holds none, so nothing may change.
        let own: String = format!("{secret}{}{}", secret.to_lowercase(), secret.to_uppercase());
        let text: String = text
            .into_iter()
            .filter(|c| !c.is_ascii() && !own.contains(*c))
            .collect();
        let r = redactor_for(&secret);
        let out = r.redact(&text);
        prop_assert_eq!(out.as_ref(), text.as_str());
    }
}

#[test]
fn the_issue_canary_split_on_the_urls_plus_is_redacted() {
    let r = redactor_for("Ca Na/Ry+x&y=1é");
    // A query parser splitting the form-encoded value on `+` keeps this piece.
    let out = r.redact("words: [\"Ca\", \"Na%2FRy%2Bx%26y%3D1%C3%A9\"]");
    assert!(!out.contains("Na%2FRy"), "{out}");
    let out = r.redact("title: Ca Na/Ry and more");
    assert!(!out.contains("Ca Na/Ry"), "{out}");
}

/// The redactor runs on every log line: a typical 200-byte line against three registered
/// secrets. Prints the figure; fails only when it is pathologically slow (an automaton that
/// was rebuilt per line, or a scan per form, costs hundreds of times more).
#[test]
fn redacting_a_log_line_costs_microseconds() {
    let r = Redactor::new();
    for secret in [
        "Ca Na/Ry+x&y=1é",
        "sk-live-51HqAbCdEfGhIjKl",
        "hunter2 correct horse",
    ] {
        r.register(&SecretString::from(secret.to_owned()));
    }
    let clean = "2026-12-01T12:00:00.123456Z DEBUG browserflow::timing: step finished \
                 run_id=01JDXK4Q8Y step_id=search kind=click selector=\"role=button[name=Search]\" \
                 duration_ms=41.7 navigated_to=http://127.0.0.1:4780/search.html";
    let secret = format!("{clean} q=Ca+Na%2FRy%2Bx%26y%3D1%C3%A9");
    assert!(clean.len() >= 190, "{}", clean.len());
    let mut per_line = Vec::new();
    for line in [clean, secret.as_str()] {
        let rounds = 20_000;
        let started = Instant::now();
        let mut total = 0;
        for _ in 0..rounds {
            total += r.redact(std::hint::black_box(line)).len();
        }
        let ns = started.elapsed().as_nanos() as f64 / rounds as f64;
        assert!(total > 0);
        per_line.push(ns);
    }
    println!(
        "redaction: {:.0} ns per clean {}-byte line, {:.0} ns per line with a secret \
         ({:?}, 3 secrets; this build's profile)",
        per_line[0],
        clean.len(),
        per_line[1],
        r,
    );
    assert!(per_line.iter().all(|ns| *ns < 200_000.0), "{per_line:?}");
}
