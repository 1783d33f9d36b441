//! The library, flow, pack and error commands through the IPC layer of the mock runtime.

use serde_json::{Value, json};

use crate::support::TestApp;

fn by_ref<'a>(items: &'a Value, reference: &str) -> &'a Value {
    items
        .as_array()
        .and_then(|a| a.iter().find(|i| i["reference"] == reference))
        .unwrap_or_else(|| panic!("{reference} is not listed in {items:#}"))
}

#[test]
fn the_library_lists_tools_flows_and_contracts_with_their_interface() {
    let app = TestApp::with_recordings();
    let items = app.ok("library_list", json!({}));

    let tool = by_ref(&items, "search-price@1.2.0");
    assert_eq!(tool["kind"], "browser");
    assert_eq!(tool["capabilities"], json!(["browser"]));
    assert!(
        tool["digest"]
            .as_str()
            .is_some_and(|d| d.starts_with("sha256:"))
    );
    assert_eq!(tool["inputs"][0]["name"], "query");
    assert_eq!(tool["source"]["type"], "folder");
    assert_eq!(tool["last_run"], Value::Null);
    assert_eq!(tool["contract_only"], false);

    let flow = by_ref(&items, "daily-price-watch@1.0.0");
    assert_eq!(flow["kind"], "flow");
    assert_eq!(flow["problem"], Value::Null);

    let contract = by_ref(&items, "std/http.post@1.0.0");
    assert_eq!(contract["contract_only"], true);
}

#[test]
fn a_file_that_does_not_load_is_listed_with_its_problem() {
    let app = TestApp::with_recordings();
    std::fs::write(app.paths.recordings.join("broken@1.0.0.json"), "{ not json").expect("write");
    let items = app.ok("library_list", json!({}));
    let broken = by_ref(&items, "broken@1.0.0");
    assert!(
        broken["problem"]
            .as_str()
            .is_some_and(|p| p.contains("JSON")),
        "{broken:#}"
    );
    // The good files still list.
    by_ref(&items, "search-price@1.2.0");
}

#[test]
fn a_flow_checks_clean_and_a_broken_one_shows_diagnostics_on_step_and_slot() {
    let app = TestApp::with_recordings();
    let good = app.paths.recordings.join("daily-price-watch.flow.json");
    let view = app.ok("flow_check", json!({ "path": good }));
    assert_eq!(view["ok"], true, "{view:#}");
    assert_eq!(view["steps"].as_array().map(Vec::len), Some(3));
    assert!(
        view["flow_digest"]
            .as_str()
            .is_some_and(|d| d.starts_with("sha256:"))
    );

    // Wire the threshold (a number) from the query (a string), and bind a slot that does not
    // exist: two diagnostics, each on its step and slot.
    let text = std::fs::read_to_string(&good).expect("read");
    let mut doc: Value = serde_json::from_str(&text).expect("json");
    doc["steps"][1]["with"]["threshold"] = json!({ "from": "input.query" });
    doc["steps"][0]["with"]["colour"] = json!({ "value": "red" });
    let bad = app.paths.recordings.join("bad.flow.json");
    std::fs::write(&bad, serde_json::to_string_pretty(&doc).expect("json")).expect("write");

    let view = app.ok("flow_check", json!({ "path": bad }));
    assert_eq!(view["ok"], false);
    let diagnostics = view["diagnostics"].as_array().expect("diagnostics");
    let on = |step: &str, slot: &str| {
        diagnostics
            .iter()
            .find(|d| d["step"] == step && d["slot"] == slot)
            .unwrap_or_else(|| panic!("no diagnostic on {step}.{slot}: {diagnostics:#?}"))
    };
    assert_eq!(on("alert", "threshold")["code"], "type_mismatch");
    assert_eq!(on("search", "colour")["code"], "unknown_slot");
}

#[test]
fn errors_reach_the_ui_as_code_and_message() {
    let app = TestApp::with_recordings();
    let missing = app
        .invoke("flow_check", json!({ "path": "/nowhere/x.flow.json" }))
        .expect_err("a missing flow is an error");
    assert_eq!(missing["code"], "not_found");
    assert!(
        missing["message"]
            .as_str()
            .is_some_and(|m| m.contains("/nowhere/x.flow.json"))
    );

    let choice = json!({ "name": "p", "version": "1.0.0", "roots": [] });
    let none = app
        .invoke("pack_preview", json!({ "choice": choice }))
        .expect_err("no roots is an error");
    assert_eq!(
        none,
        json!({ "code": "bad_input", "message": "choose at least one tool or flow to export" })
    );

    let choice = json!({ "name": "p", "version": "one", "roots": ["search-price@1.2.0"] });
    let version = app
        .invoke("pack_preview", json!({ "choice": choice }))
        .expect_err("a bad version is an error");
    assert_eq!(version["code"], "bad_input");
}

#[test]
fn export_shows_the_manifest_writes_a_pack_that_verifies_and_imports() {
    let app = TestApp::with_recordings();
    let choice =
        json!({ "name": "prices", "version": "1.0.0", "roots": ["daily-price-watch@1.0.0"] });

    let manifest = app.ok("pack_preview", json!({ "choice": choice }));
    let refs: Vec<&str> = manifest["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter_map(|e| e["reference"].as_str())
        .collect();
    assert!(refs.contains(&"daily-price-watch@1.0.0"), "{refs:?}");
    assert!(refs.contains(&"search-price@1.2.0"), "{refs:?}");
    // The flow's http step comes along: as a file from recordings/contracts, or as external.
    let externals = manifest["externals"].as_array().expect("externals");
    assert!(
        refs.contains(&"std/http.post@1.0.0") || externals.contains(&json!("std/http.post@1.0.0"))
    );
    assert!(!app.paths.packs().exists(), "the preview writes nothing");

    let written = app.ok("pack_export", json!({ "choice": choice, "out": null }));
    let path = written[0].as_str().expect("a path");
    assert!(path.ends_with("prices-1.0.0.bfpack"), "{path}");
    assert_eq!(
        written[1]["digest"], manifest["digest"],
        "the preview is what was written"
    );

    let verified = app.ok("pack_verify", json!({ "path": path }));
    assert_eq!(verified["ok"], true, "{verified:#}");
    assert_eq!(verified["manifest"]["digest"], manifest["digest"]);

    let imported = app.ok("pack_import", json!({ "path": path }));
    assert_eq!(imported["ok"], true, "{imported:#}");
    assert_eq!(imported["newly_installed"], true);

    // A tampered pack does not verify, and says why.
    let mut bytes = std::fs::read(path).expect("read");
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x55;
    let tampered = app.paths.data.join("tampered.bfpack");
    std::fs::write(&tampered, bytes).expect("write");
    let refused = app.ok("pack_verify", json!({ "path": tampered }));
    assert_eq!(refused["ok"], false);
    assert!(refused["error"].as_str().is_some_and(|e| !e.is_empty()));
}

#[test]
fn an_imported_pack_lists_its_tools_in_the_library() {
    let source = TestApp::with_recordings();
    let choice = json!({ "name": "shop", "version": "2.0.0", "roots": ["search-price@1.2.0"] });
    let written = source.ok("pack_export", json!({ "choice": choice, "out": null }));
    let path = written[0].as_str().expect("a path").to_string();

    let app = TestApp::empty();
    let imported = app.ok("pack_import", json!({ "path": path }));
    assert_eq!(imported["ok"], true, "{imported:#}");
    let items = app.ok("library_list", json!({}));
    let tool = by_ref(&items, "search-price@1.2.0");
    assert_eq!(tool["source"]["type"], "pack");
    assert_eq!(tool["source"]["pack"], "shop@2.0.0");
}
