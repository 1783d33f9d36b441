//! `bflow contract check` and `bflow contract digest`.

use std::process::Command;

use crate::{bflow, stderr, stdout, write};

const SEARCH_PRICE: &str = r#"{
  "name": "search-price",
  "version": "1.2.0",
  "kind": "browser",
  "description": "Search the fixture shop and read the first result's name and price.",
  "inputs": [
    {"name": "query", "schema": {"type": "string", "minLength": 1}, "secret": false},
    {"name": "limit", "schema": {"type": "integer", "minimum": 1, "default": 10}, "secret": false}
  ],
  "output": {
    "type": "object",
    "properties": {
      "name": {"type": "string", "title": "Product name"},
      "description": {"type": "string", "description": "A property named like an annotation."},
      "price": {"type": "number", "minimum": 0, "examples": [89.99]},
      "currency": {"enum": ["EUR", "GBP", "USD"]}
    },
    "required": ["currency", "name", "price"],
    "additionalProperties": false
  },
  "capabilities": ["browser"]
}"#;

#[test]
fn check_prints_a_one_line_summary() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "c.json", SEARCH_PRICE);
    let out = bflow(&["contract", "check", &file]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(
        text.starts_with("ok search-price@1.2.0 (browser)"),
        "{text}"
    );
    assert!(text.contains("sha256:"), "{text}");
}

#[test]
fn digest_prints_only_the_digest() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "c.json", SEARCH_PRICE);
    let out = bflow(&["contract", "digest", &file]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let line = text.trim_end();
    assert_eq!(text, format!("{line}\n"));
    assert!(
        line.starts_with("sha256:") && line.len() == 7 + 64,
        "{line}"
    );
}

/// An implementation that shares no code with ours: Python's standard library builds the
/// interface object from the raw file and serialises it canonically (for documents with
/// only integers and ASCII keys, sorted compact JSON is RFC 8785).
#[test]
fn digest_matches_an_independent_rfc8785_sha256() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "c.json", SEARCH_PRICE);
    let tool_file = write(
        dir.path(),
        "tool.json",
        &format!(r#"{{"contract": {SEARCH_PRICE}, "steps": []}}"#),
    );
    let script = r#"
import hashlib, json, sys
doc = json.load(open(sys.argv[1]))
c = doc.get("contract", doc)

def bare(schema):
    if not isinstance(schema, dict):
        return schema
    out = {k: v for k, v in schema.items() if k not in ("title", "description", "examples")}
    if "properties" in out:
        out["properties"] = {k: bare(v) for k, v in out["properties"].items()}
    for key in ("items", "additionalProperties"):
        if key in out:
            out[key] = bare(out[key])
    if "anyOf" in out:
        out["anyOf"] = [bare(b) for b in out["anyOf"]]
    return out

inputs = [dict(i, schema=bare(i["schema"])) for i in c["inputs"]]
interface = {
    "name": c["name"],
    "kind": c["kind"],
    "inputs": sorted(inputs, key=lambda i: i["name"]),
    "output": bare(c["output"]),
    "capabilities": sorted(c["capabilities"]),
}
text = json.dumps(interface, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
print("sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest())
"#;
    for path in [&file, &tool_file] {
        let python = Command::new("python3")
            .args(["-c", script, path])
            .output()
            .expect("python3 is installed");
        assert!(python.status.success(), "{}", stderr(&python));
        let out = bflow(&["contract", "digest", path]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(stdout(&out), stdout(&python), "digest of {path}");
    }
}

#[test]
fn a_bad_contract_lists_every_problem_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "bad.json",
        r##"{"name": "Bad Name", "version": "1.x", "kind": "transform",
            "description": "over-permissive",
            "inputs": [{"name": "q", "schema": {"type": "string", "$ref": "#/x"}, "secret": false},
                       {"name": "q", "schema": {}, "secret": false}],
            "output": {"type": "string"},
            "capabilities": ["net", "fs"], "extra": true}"##,
    );
    for command in ["check", "digest"] {
        let out = bflow(&["contract", command, &file]);
        assert_eq!(out.status.code(), Some(1), "{command}");
        let err = stderr(&out);
        assert!(err.contains("6 problems"), "{err}");
        for expected in [
            "/name:",
            "/version:",
            "/inputs/0/schema/$ref:",
            "/inputs/1/name:",
            "/capabilities:",
            "transform_has_capabilities",
            "/extra:",
        ] {
            assert!(
                err.contains(expected),
                "{command}: `{expected}` missing from\n{err}"
            );
        }
        assert!(
            !err.contains("panicked") && !err.contains("backtrace"),
            "{err}"
        );
        assert!(stdout(&out).is_empty(), "nothing on stdout for {command}");
    }
}

#[test]
fn unreadable_and_non_json_files_get_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.json");
    let out = bflow(&["contract", "check", &missing.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("cannot read"), "{}", stderr(&out));

    let file = write(dir.path(), "junk.json", "{\"name\": ");
    let out = bflow(&["contract", "check", &file]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("not valid JSON") && err.contains("line 1"),
        "{err}"
    );
}
