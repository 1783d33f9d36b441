//! `bflow check`: the canonical flow, a changed pin, a changed wire, JSON output.

use std::path::{Path, PathBuf};

use crate::{bflow, stderr, stdout};

fn recordings() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../recordings")
}

/// A copy of the canonical flow and its contracts in a fresh folder, with `edit` applied to
/// the flow text.
fn edited_copy(edit: impl Fn(&str) -> String) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let contracts = dir.path().join("contracts");
    std::fs::create_dir(&contracts).unwrap();
    for entry in std::fs::read_dir(recordings().join("contracts")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, contracts.join(path.file_name().unwrap())).unwrap();
    }
    for tool in ["search-price@1.2.0.json", "price-alert@1.0.0.json"] {
        std::fs::copy(recordings().join(tool), dir.path().join(tool)).unwrap();
    }
    let text = std::fs::read_to_string(recordings().join("daily-price-watch.flow.json")).unwrap();
    let edited = edit(&text);
    let flow = dir.path().join("daily-price-watch.flow.json");
    std::fs::write(&flow, edited).unwrap();
    (dir, flow.to_string_lossy().into_owned())
}

/// The flow with its `threshold` input declared a string instead of a number.
fn threshold_as_string(text: &str) -> String {
    let mut flow: serde_json::Value = serde_json::from_str(text).unwrap();
    let input = flow["inputs"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|i| i["name"] == "threshold")
        .unwrap();
    input["schema"] = serde_json::json!({"type": "string"});
    serde_json::to_string_pretty(&flow).unwrap()
}

#[test]
fn the_canonical_flow_checks_ok() {
    let flow = recordings().join("daily-price-watch.flow.json");
    let out = bflow(&["check", &flow.to_string_lossy()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("ok daily-price-watch@1.0.0 sha256:"),
        "{text}"
    );
    assert!(
        text.contains("capabilities [browser, net, secrets]"),
        "the webhook's secret adds `secrets`: {text}"
    );
}

#[test]
fn one_changed_byte_of_a_pin_is_a_digest_mismatch() {
    let (_dir, flow) = edited_copy(|text| {
        let at = text.find("\"contract_digest\": \"sha256:").unwrap() + 27;
        let mut bytes = text.as_bytes().to_vec();
        bytes[at] = if bytes[at] == b'0' { b'1' } else { b'0' };
        String::from_utf8(bytes).unwrap()
    });
    let out = bflow(&["check", &flow]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("[digest_mismatch]"), "{err}");
    assert!(err.contains("/requires/0/contract_digest"), "{err}");
}

#[test]
fn one_changed_wire_type_is_a_type_mismatch() {
    // The threshold becomes a string; the alert step's `threshold` slot takes a number.
    let (_dir, flow) = edited_copy(threshold_as_string);
    let out = bflow(&["check", &flow]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("[type_mismatch]"), "{err}");
    assert!(err.contains("step `alert`, slot `threshold`"), "{err}");
    assert!(err.contains("string is not assignable to number"), "{err}");
}

#[test]
fn json_output_carries_code_step_slot_and_pointer() {
    let (_dir, flow) = edited_copy(threshold_as_string);
    let out = bflow(&["check", &flow, "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["ok"], false);
    let first = &report["diagnostics"][0];
    assert_eq!(first["code"], "type_mismatch");
    assert_eq!(first["step"], "alert");
    assert_eq!(first["slot"], "threshold");
    assert!(first["pointer"].as_str().unwrap().starts_with("/steps/"));

    let ok = bflow(&[
        "check",
        &recordings()
            .join("daily-price-watch.flow.json")
            .to_string_lossy(),
        "--json",
    ]);
    assert!(ok.status.success());
    let report: serde_json::Value = serde_json::from_str(&stdout(&ok)).unwrap();
    assert_eq!(report["ok"], true);
    assert!(
        report["flow_digest"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
}

#[test]
fn malformed_flows_get_located_diagnostics() {
    let (_dir, flow) = edited_copy(|_| "{\"name\": \"x\", ".to_owned());
    let out = bflow(&["check", &flow]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("line 1"), "{err}");

    let (_dir, flow) =
        edited_copy(|text| text.replace("steps.search.output", "steps.serch.output"));
    let out = bflow(&["check", &flow]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("[unknown_step]") && err.contains("serch"),
        "{err}"
    );
}

#[test]
fn a_missing_flow_is_said_and_its_would_be_folder_is_not_searched() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("settings.json"), r#"{"a": 1}"#).unwrap();
    let missing = dir.path().join("none.flow.json");
    let out = crate::bflow(&["check", &missing.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(1));
    let err = crate::stderr(&out);
    assert!(err.contains("does not exist"), "{err}");
    assert!(
        !err.contains("settings.json"),
        "the folder is not scanned: {err}"
    );
}

#[test]
fn checks_refuse_what_run_refuses_before_starting() {
    for (what, edit) in [
        (
            "javascript: URL",
            ("/steps/0/url", "javascript:alert(document.cookie)"),
        ),
        ("file: URL", ("/steps/0/url", "file:///etc/passwd")),
        ("URL that is not absolute", ("/steps/0/url", "//shop.test/")),
        ("unknown placeholder", ("/steps/1/value", "{{nope}}")),
        ("unclosed placeholder", ("/steps/1/value", "{{query")),
    ] {
        let (dir, flow) = edited_copy(|text| text.to_owned());
        let tool = dir.path().join("search-price@1.2.0.json");
        let mut file: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&tool).unwrap()).unwrap();
        *file.pointer_mut(edit.0).unwrap() = serde_json::json!(edit.1);
        std::fs::write(&tool, serde_json::to_string_pretty(&file).unwrap()).unwrap();
        let tool = tool.to_string_lossy().into_owned();
        for args in [
            vec!["contract", "check", tool.as_str()],
            vec!["check", flow.as_str()],
            vec!["run", tool.as_str(), "--input", "query=keyboard"],
        ] {
            let out = bflow(&args);
            let err = stderr(&out);
            assert!(
                !out.status.success(),
                "{what}: {args:?} passed: {}",
                stdout(&out)
            );
            assert!(
                err.contains(edit.0),
                "{what}: {args:?} names {}: {err}",
                edit.0
            );
        }
    }
}

#[test]
fn an_import_never_writes_a_tool_run_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let recording = crate::write(
        dir.path(),
        "rec.json",
        &serde_json::json!({ "title": "t", "steps": [
            { "type": "navigate", "url": "https://shop.test/" },
            { "type": "navigate", "url": "javascript:alert(document.cookie)" }
        ]})
        .to_string(),
    );
    let out_file = dir.path().join("imported@1.0.0.json");
    let out = bflow(&[
        "import",
        "devtools",
        &recording,
        "--name",
        "imported",
        "--out",
        &out_file.to_string_lossy(),
    ]);
    assert!(!out.status.success(), "{}", stdout(&out));
    assert!(stderr(&out).contains("javascript:"), "{}", stderr(&out));
    assert!(!out_file.exists(), "nothing written");
}
