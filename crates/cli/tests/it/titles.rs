//! A secret in an untitled page's title: Chromium titles a page without `<title>` by its URL
//! as it displays one — the query form-encoded, with non-ASCII characters (and sometimes
//! spaces) decoded back to raw UTF-8 — and that title travels in the protocol's target
//! events, which the trace logs. A canary holding `+`, `&`, `/`, `%`, spaces and non-ASCII is
//! typed into a GET form of an untitled page; at `BROWSERFLOW_LOG=trace` no byte printed and
//! no file written holds it in any encoding, the displayed ones included.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::process::Command;

use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::json;

use crate::canary::{Scan, encodings_of};

const CANARY: &str = "Zx%41 Qu+ok&v=/9ü é-Wm";

/// A loopback site of untitled pages: `/` a GET form, `/results` what it submits to.
fn site() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request = String::new();
                let _ = reader.read_line(&mut request);
                let mut line = String::new();
                while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
                    line.clear();
                }
                let body = if request.starts_with("GET /results") {
                    r#"<!doctype html><h1 id="done">Searched</h1>"#
                } else {
                    r#"<!doctype html><form action="/results"><input id="q" name="q"><button>Go</button></form>"#
                };
                let _ = (&stream).write_all(
                    format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    )
                    .as_bytes(),
                );
            });
        }
    });
    origin
}

/// `encoded` with every percent-escaped run of non-ASCII bytes decoded to raw UTF-8, as
/// Chromium displays a URL.
fn displayed(encoded: &str) -> String {
    let mut out = String::new();
    let mut pending: Vec<u8> = Vec::new();
    let mut rest = encoded;
    while !rest.is_empty() {
        let byte = rest
            .strip_prefix('%')
            .and_then(|r| r.get(..2))
            .and_then(|hex| u8::from_str_radix(hex, 16).ok())
            .filter(|b| *b >= 0x80);
        match byte {
            Some(b) => {
                pending.push(b);
                rest = &rest[3..];
            }
            None => {
                out.push_str(&String::from_utf8_lossy(&std::mem::take(&mut pending)));
                let c = rest.chars().next().unwrap();
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    out.push_str(&String::from_utf8_lossy(&pending));
    out
}

/// Every form of the canary (and of its pieces of 8 bytes or more between spaces and `+`)
/// the battery's encoders make, and each URL encoding as Chromium displays it.
fn forms() -> Vec<(String, String)> {
    let mut forms = Vec::new();
    let pieces = ["Zx%41 Qu", "Qu+ok&v=/9ü", "ok&v=/9ü é-Wm", "ok&v=/9ü"];
    for text in std::iter::once(CANARY).chain(pieces) {
        for (name, form) in encodings_of(text) {
            forms.push((format!("{text:?} {name}"), form));
        }
        let form_encoded: String = form_urlencoded::byte_serialize(text.as_bytes()).collect();
        let percent = utf8_percent_encode(text, NON_ALPHANUMERIC).to_string();
        for (name, encoded) in [("form", form_encoded), ("percent", percent)] {
            let shown = displayed(&encoded);
            forms.push((format!("{text:?} {name} as displayed"), shown.clone()));
            forms.push((
                format!("{text:?} {name} as displayed, spaces decoded"),
                shown.replace("%20", " "),
            ));
        }
    }
    forms.retain(|(_, form)| form.len() >= 8);
    forms.sort_by(|a, b| a.1.cmp(&b.1));
    forms.dedup_by(|a, b| a.1 == b.1);
    forms
}

#[test]
fn a_secret_in_an_untitled_pages_title_is_redacted_in_every_encoding() {
    let dir = tempfile::tempdir().unwrap();
    let origin = site();
    let css = |value: &str| json!({ "candidates": [{ "kind": "css", "value": value }] });
    let tool = json!({
        "contract": { "name": "titles", "version": "1.0.0", "kind": "browser", "description": "",
                      "inputs": [{ "name": "query", "schema": { "type": "string" }, "secret": true }],
                      "output": { "type": "object" }, "capabilities": ["browser", "secrets"] },
        "origins": [origin],
        "steps": [
            { "type": "navigate", "url": format!("{origin}/") },
            { "type": "fill", "label": "Type the query", "value": "{{query}}", "selector": css("#q") },
            { "type": "key_press", "label": "Submit", "key": "Enter",
              "navigation": { "url": "*/results?q=*" } },
            { "type": "wait_for_element", "label": "Results", "selector": css("#done") }
        ]
    });
    let file = crate::write(dir.path(), "titles@1.0.0.json", &tool.to_string());
    let out = Command::new(env!("CARGO_BIN_EXE_bflow"))
        .current_dir(dir.path())
        .args([
            "run",
            &file,
            "--input",
            "query=secret.Q",
            "--screenshots",
            "shots",
        ])
        .env("BROWSERFLOW_SECRET_Q", CANARY)
        .env("BROWSERFLOW_LOG", "trace")
        .env("XDG_DATA_HOME", dir.path().join("data"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{}",
        stderr.chars().take(4000).collect::<String>()
    );
    // The untitled results page's title is in the trace, redacted.
    let host = origin.trim_start_matches("http://");
    let title = format!("\"title\":\"{host}/results?q=[REDACTED]");
    assert!(
        stderr.contains(&title),
        "the trace holds the page's title {title}: {}",
        stderr
            .lines()
            .filter(|l| l.contains("\"title\""))
            .take(5)
            .collect::<Vec<_>>()
            .join("\n")
    );
    let forms = forms();
    let mut scan = Scan::default();
    scan.bytes("stdout of bflow run", &out.stdout, &forms);
    scan.bytes("stderr of bflow run (trace)", &out.stderr, &forms);
    scan.tree(dir.path(), &forms);
    assert!(
        scan.leaks.is_empty(),
        "the canary leaked:\n{}",
        scan.leaks.join("\n")
    );
    println!(
        "titles: {} forms of {CANARY:?} over {} sources, none found",
        forms.len(),
        scan.covered.len()
    );
}
