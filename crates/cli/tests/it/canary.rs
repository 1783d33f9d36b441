//! The secret canary battery (issue 17): a browser tool (the shipped `search-price@1.2.0`
//! with `query` secret and the `secrets` capability) and a flow carry the canary
//! `Ca Na/Ry+x&y=1é` through every path — typed into the search box, submitted in a GET form,
//! echoed by the page, in the URL, in an error, in an output — through real `bflow`
//! processes at `BROWSERFLOW_LOG=trace`, one of them SIGKILLed mid-run so the journal's
//! `-wal` and `-shm` are left as a crash leaves them. Then every file written and every
//! byte printed is scanned for every encoded form of the canary, and every screenshot is
//! read by OCR (Debian's `tesseract`): the canary must not be readable. A control run with
//! the canary as a plain input shows the OCR does read it when it is on screen.
//!
//! Left for the other parts of the issue, each in its place below: the browser profile
//! scan (while paused mid-way and after the run) and the `file:` navigation cases.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use percent_encoding::{AsciiSet, CONTROLS, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Value, json};

use crate::shop::Shop;

pub(crate) const CANARY: &str = "Ca Na/Ry+x&y=1é";

/// The query set browsers percent-encode a URL's query with (special schemes).
const QUERY: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'<')
    .add(b'>')
    .add(b'\'');

/// Every encoded form of `text` the battery looks for, named; from library encoders, not
/// the redactor's own.
pub(crate) fn encodings_of(text: &str) -> Vec<(String, String)> {
    let bytes = text.as_bytes();
    let json = serde_json::to_string(text).unwrap();
    let json = json[1..json.len() - 1].to_owned();
    let json_twice = serde_json::to_string(&json).unwrap();
    let json_ascii: String = json
        .chars()
        .flat_map(|c| {
            if c.is_ascii() {
                vec![c.to_string()]
            } else {
                let mut units = [0u16; 2];
                c.encode_utf16(&mut units)
                    .iter()
                    .map(|u| format!("\\u{u:04x}"))
                    .collect()
            }
        })
        .collect();
    let percent = utf8_percent_encode(text, NON_ALPHANUMERIC).to_string();
    let debug = format!("{text:?}");
    let mut forms = vec![
        ("raw", text.to_owned()),
        ("json", json.clone()),
        ("json-twice", json_twice[1..json_twice.len() - 1].to_owned()),
        ("json-ascii", json_ascii.clone()),
        ("json-ascii-upper", json_ascii.replace("\\u00e9", "\\u00E9")),
        ("percent-upper", percent.clone()),
        ("percent-lower", percent.to_lowercase()),
        (
            "percent-query",
            utf8_percent_encode(text, QUERY).to_string(),
        ),
        ("form", form_urlencoded::byte_serialize(bytes).collect()),
        (
            "form-lower",
            form_urlencoded::byte_serialize(bytes)
                .collect::<String>()
                .to_lowercase(),
        ),
        ("base64", STANDARD.encode(bytes)),
        ("base64-nopad", STANDARD_NO_PAD.encode(bytes)),
        ("base64url", URL_SAFE.encode(bytes)),
        ("base64url-nopad", URL_SAFE_NO_PAD.encode(bytes)),
        ("hex-lower", hex::encode(bytes)),
        ("hex-upper", hex::encode_upper(bytes)),
        ("hex-of-json", hex::encode(json.as_bytes())),
        ("byte-escape", bytes.escape_ascii().to_string()),
        (
            "byte-escape-of-json",
            json.as_bytes().escape_ascii().to_string(),
        ),
        ("debug", debug[1..debug.len() - 1].to_owned()),
        ("debug-unicode", text.escape_default().to_string()),
    ];
    // Base64 of the canary inside a longer blob: the characters that only its bits make, at
    // each of the three alignments.
    for prefix in 1..3 {
        let mut blob = vec![b'x'; prefix];
        blob.extend_from_slice(bytes);
        let encoded = STANDARD_NO_PAD.encode(&blob);
        let start = (8 * prefix).div_ceil(6);
        let end = (8 * blob.len()) / 6;
        forms.push(("base64-in-blob", encoded[start..end].to_owned()));
    }
    forms
        .into_iter()
        .map(|(name, form)| (name.to_owned(), form))
        .collect()
}

/// The canary, the forms a page gives it (lower case: the shop echoes it so), and its pieces
/// of 8 bytes or more between spaces or `+` (a split on the URL's `+`), each in every
/// encoding.
pub(crate) fn forbidden_forms() -> Vec<(String, String)> {
    let mut forms = Vec::new();
    for (variant, text) in [
        ("canary", CANARY.to_owned()),
        ("lower", CANARY.to_lowercase()),
        ("upper", CANARY.to_uppercase()),
        ("piece", "Na/Ry+x&y=1é".to_owned()),
        ("piece", "Ca Na/Ry".to_owned()),
        ("lower piece", "na/ry+x&y=1é".to_owned()),
    ] {
        for (name, form) in encodings_of(&text) {
            forms.push((format!("{variant} {name}"), form));
        }
    }
    forms.sort_by(|a, b| a.1.cmp(&b.1));
    forms.dedup_by(|a, b| a.1 == b.1);
    forms
}

/// What was scanned, for the closing list.
#[derive(Default)]
pub(crate) struct Scan {
    pub(crate) covered: Vec<String>,
    pub(crate) leaks: Vec<String>,
}

impl Scan {
    pub(crate) fn bytes(&mut self, what: &str, bytes: &[u8], forms: &[(String, String)]) {
        self.covered.push(format!("{what} ({} bytes)", bytes.len()));
        for (name, form) in forms {
            if bytes.windows(form.len()).any(|w| w == form.as_bytes()) {
                self.leaks.push(format!("{what}: {name} {form:?}"));
            }
        }
    }

    pub(crate) fn tree(&mut self, root: &Path, forms: &[(String, String)]) -> Vec<PathBuf> {
        let mut files = Vec::new();
        walk(root, &mut files);
        for file in &files {
            let bytes = std::fs::read(file).unwrap();
            self.bytes(&file.display().to_string(), &bytes, forms);
        }
        files
    }
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(&path, files);
        } else {
            files.push(path);
        }
    }
}

/// What tesseract reads in `png`, lower-cased, without whitespace.
pub(crate) fn ocr(png: &Path) -> String {
    let out = Command::new("tesseract")
        .arg(png)
        .arg("stdout")
        .stderr(Stdio::null())
        .output()
        .expect("tesseract runs (apt-get install tesseract-ocr; scripts/install-deps has it)");
    assert!(
        out.status.success(),
        "tesseract failed on {}",
        png.display()
    );
    String::from_utf8_lossy(&out.stdout)
        .to_lowercase()
        .split_whitespace()
        .collect()
}

/// Whether OCR text shows any 6-character piece of the canary (lower-cased, without
/// whitespace, as `ocr` returns text): readable enough to give part of it away.
pub(crate) fn shows_canary(text: &str) -> Option<String> {
    let canary: Vec<char> = CANARY
        .to_lowercase()
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    canary
        .windows(6)
        .map(|w| w.iter().collect::<String>())
        .find(|piece| text.contains(piece.as_str()))
}

/// A tool file derived from the shipped `search-price@1.2.0`: `name`, its `query` secret
/// (with the `secrets` capability) when `secret`, the steps up to the search's submission,
/// then `tail`; its output `{heading}`.
pub(crate) fn tool(name: &str, secret: bool, tail: Value) -> Value {
    let shipped =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../recordings/search-price@1.2.0.json");
    let mut file: Value = serde_json::from_str(&std::fs::read_to_string(shipped).unwrap()).unwrap();
    let contract = &mut file["contract"];
    contract["name"] = json!(name);
    contract["version"] = json!("1.0.0");
    contract["inputs"][0]["secret"] = json!(secret);
    if secret {
        contract["capabilities"] = json!(["browser", "secrets"]);
    }
    contract["output"] = json!({
        "type": "object", "additionalProperties": false,
        "properties": { "heading": { "type": "string" } }, "required": ["heading"]
    });
    let steps = file["steps"].as_array_mut().unwrap();
    steps.truncate(3); // navigate, fill the query, press Enter (a GET form: ?q=…)
    assert_eq!(steps[2]["type"], "key_press");
    steps.extend(tail.as_array().unwrap().iter().cloned());
    file
}

/// The page echoes the query in its heading; the output carries it.
pub(crate) fn extract_heading() -> Value {
    json!([{ "type": "extract", "label": "Read the heading", "field": "heading",
             "selector": { "candidates": [{ "kind": "id", "value": "results-heading" }] } }])
}

struct Battery {
    dir: tempfile::TempDir,
}

impl Battery {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn write_json(&self, name: &str, value: &Value) -> String {
        let path = self.path(name);
        std::fs::write(&path, serde_json::to_string_pretty(value).unwrap()).unwrap();
        path.to_string_lossy().into_owned()
    }

    fn bflow(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_bflow"));
        command
            .current_dir(self.dir.path())
            .args(args)
            .env("BROWSERFLOW_SECRET_Q", CANARY)
            .env("BROWSERFLOW_LOG", "trace")
            .env_remove("BROWSERFLOW_TEST_CRASH_AT");
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        self.bflow(args).output().unwrap()
    }
}

#[test]
fn the_canary_never_leaves_the_run_in_any_form() {
    let _shop = Shop::start();
    let battery = Battery {
        dir: tempfile::tempdir().unwrap(),
    };
    let forms = forbidden_forms();
    let mut scan = Scan::default();

    // 1. `bflow run`: typed, submitted in a GET form, echoed, in the URL, in the output.
    let echo = battery.write_json(
        "canary-search@1.0.0.json",
        &tool("canary-search", true, extract_heading()),
    );
    let run = battery.run(&[
        "run",
        &echo,
        "--input",
        "query=secret.Q",
        "--screenshots",
        "shots",
    ]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        run.status.success(),
        "{}",
        stderr.chars().take(4000).collect::<String>()
    );
    let output: Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(
        output["heading"], "Results for \"[REDACTED]\"",
        "the echo is in the output"
    );
    assert!(stderr.contains("TRACE"), "trace logs were on");
    assert!(
        stderr.contains("Input.insertText"),
        "the typing is in the trace"
    );
    scan.bytes("stdout of bflow run", &run.stdout, &forms);
    scan.bytes("stderr of bflow run (trace)", &run.stderr, &forms);

    // 2. In an error: the URL the search reached fails an assertion that names it.
    let fails = battery.write_json(
        "canary-fails@1.0.0.json",
        &tool(
            "canary-fails",
            true,
            json!([{ "type": "assert", "label": "Stay home", "url": "*/elsewhere.html",
                     "timeout_ms": 300 }]),
        ),
    );
    let failed = battery.run(&[
        "run",
        &fails,
        "--input",
        "query=secret.Q",
        "--screenshots",
        "shots",
    ]);
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(!failed.status.success());
    assert!(
        stderr.contains("the url is") && stderr.contains("[REDACTED]"),
        "the error names the URL, redacted: {}",
        stderr.lines().rev().take(5).collect::<Vec<_>>().join("\n")
    );
    scan.bytes("stdout of the failing bflow run", &failed.stdout, &forms);
    scan.bytes(
        "stderr of the failing bflow run (trace)",
        &failed.stderr,
        &forms,
    );

    // 3. A flow, SIGKILLed once its browser step is committed: the journal, -wal and -shm
    //    as the crash left them; then resumed to the end.
    let digest = crate::bflow(&["contract", "digest", &echo]);
    let digest = String::from_utf8_lossy(&digest.stdout).trim().to_owned();
    let flow = battery.write_json(
        "canary.flow.json",
        &json!({
            "name": "canary-battery", "version": "1.0.0",
            "description": "A secret query through a browser tool.",
            "inputs": [],
            "requires": [{ "ref": "canary-search@1.0.0", "contract_digest": digest }],
            "steps": [{ "id": "search", "uses": "canary-search@1.0.0",
                        "with": { "query": { "from": "secret.Q" } } }],
            "output": { "from": "steps.search.output" }
        }),
    );
    let journal = battery
        .path("journal.sqlite")
        .to_string_lossy()
        .into_owned();
    let mut child = battery
        .bflow(&["flow", "run", &flow, "--journal", &journal])
        .env("BROWSERFLOW_TEST_CRASH_AT", "after-commit:search")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut seen = Vec::new();
    let mut run_id = None;
    let mut lines = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while lines.read_line(&mut line).unwrap() > 0 {
        seen.extend_from_slice(line.as_bytes());
        if let Some(rest) = line.split(" as run ").nth(1) {
            run_id = Some(rest.trim().to_owned());
        }
        if line.starts_with("CRASH_POINT") {
            break;
        }
        line.clear();
    }
    let tail = String::from_utf8_lossy(&seen);
    assert!(
        tail.contains("CRASH_POINT"),
        "the flow never reached its crash point"
    );
    // Item 4 of the issue (the in-memory browser profile) scans the profile here, while
    // the run is paused mid-way, and again after the run.
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let mut killed_stdout = Vec::new();
    std::io::Read::read_to_end(&mut child.stdout.take().unwrap(), &mut killed_stdout).unwrap();
    scan.bytes("stdout of the killed flow run", &killed_stdout, &forms);
    for suffix in ["-wal", "-shm"] {
        let path = format!("{journal}{suffix}");
        assert!(Path::new(&path).exists(), "{path}: the crash left it");
    }
    scan.bytes("stderr of the killed flow run (trace)", &seen, &forms);
    scan.tree(battery.dir.path(), &forms);

    let run_id = run_id.expect("the run id is printed first");
    let resumed = battery.run(&["flow", "resume", &run_id, "--journal", &journal]);
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert!(
        resumed.status.success(),
        "{}",
        stderr.chars().take(4000).collect::<String>()
    );
    let result: Value = serde_json::from_slice(&resumed.stdout).unwrap();
    assert_eq!(result["output"]["heading"], "Results for \"[REDACTED]\"");
    scan.bytes("stdout of the resumed flow", &resumed.stdout, &forms);
    scan.bytes(
        "stderr of the resumed flow (trace)",
        &resumed.stderr,
        &forms,
    );
    let files = scan.tree(battery.dir.path(), &forms);

    // Item 5 of the issue (a browser tool reaches only the web) adds its `file:`
    // navigation cases here: a recorded step, a clicked link and a redirect, each refused.

    // 4. Every screenshot read by OCR.
    let shots: Vec<&PathBuf> = files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "png"))
        .collect();
    assert!(shots.len() >= 12, "screenshots of every run: {shots:?}");
    for shot in &shots {
        let text = ocr(shot);
        scan.covered.push(format!("OCR of {}", shot.display()));
        if let Some(piece) = shows_canary(&text) {
            scan.leaks
                .push(format!("OCR of {} reads {piece:?}: {text}", shot.display()));
        }
        // The OCR reads these very images: the shop's header is on every full-size one.
        let thumbnail = shot.to_string_lossy().ends_with(".thumb.png");
        if !thumbnail {
            assert!(
                text.contains("fixture"),
                "OCR read nothing in {}: {text}",
                shot.display()
            );
        }
    }

    // The control: the same journey with the canary as a plain input is read by the OCR,
    // so the check above can fail.
    let plain = battery.write_json(
        "canary-plain@1.0.0.json",
        &tool("canary-plain", false, extract_heading()),
    );
    let control = battery.run(&[
        "run",
        &plain,
        "--input",
        &format!("query={CANARY}"),
        "--screenshots",
        "control",
    ]);
    assert!(
        control.status.success(),
        "{}",
        String::from_utf8_lossy(&control.stderr)
    );
    let mut control_files = Vec::new();
    walk(&battery.path("control"), &mut control_files);
    let read = control_files
        .iter()
        .filter(|p| p.to_string_lossy().ends_with("-fill.png"))
        .map(|p| ocr(p))
        .find_map(|text| shows_canary(&text));
    assert!(
        read.is_some(),
        "the OCR cannot read the canary even unmasked"
    );
    println!(
        "control: unmasked, the OCR reads {:?} of the canary",
        read.unwrap_or_default()
    );

    println!("canary battery: {CANARY:?}, {} forms:", forms.len());
    for (name, form) in &forms {
        println!("  form {name}: {form}");
    }
    println!("covered ({}):", scan.covered.len());
    for what in &scan.covered {
        println!("  {what}");
    }
    assert!(
        scan.leaks.is_empty(),
        "the canary leaked:\n{}",
        scan.leaks.join("\n")
    );
}
