//! Downloads and uploads on the fixture shop's `files.html`, with real headless Chromium.

use std::path::{Path, PathBuf};

use browserflow_replay::ReplayError;
use browserflow_steps::ToolFile;
use browserflow_steps::export_playwright;
use browserflow_steps::{DownloadOutput, Step};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::support::{Harness, quick};

fn tid(id: &str) -> Value {
    json!({ "candidates": [{ "kind": "test_id", "value": id }] })
}

fn options_into(dir: &Path) -> browserflow_replay::ReplayOptions {
    browserflow_replay::ReplayOptions {
        download_dir: Some(dir.to_path_buf()),
        ..Default::default()
    }
}

fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/shop")
            .join(path),
    )
    .expect("fixture file")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn downloads_are_saved_under_their_name_and_described() {
    let h = Harness::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let steps = json!([
        { "type": "navigate", "url": "{{shop}}/files.html" },
        { "type": "download", "selector": tid("download-receipt"), "filename": "receipt-*.csv",
          "field": "receipt" },
        // A file generated in the page (blob URL), only its name kept.
        { "type": "download", "selector": tid("export-orders"), "field": "export", "output": "name" },
        // The same file again: the first copy is not overwritten.
        { "type": "download", "selector": tid("download-receipt"), "field": "again", "output": "path" },
        { "type": "assert", "url": "*/files.html" }
    ]);
    let report = h
        .replay_with(steps, json!({}), options_into(dir.path()))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let expected = fixture("downloads/receipt-1001.csv");
    let receipt = &report.outputs["receipt"];
    assert_eq!(receipt["name"], "receipt-1001.csv");
    assert_eq!(receipt["size"], expected.len());
    assert_eq!(receipt["sha256"], hex::encode(Sha256::digest(&expected)));
    assert!(
        receipt["url"]
            .as_str()
            .unwrap()
            .ends_with("/downloads/receipt-1001.csv")
    );
    let saved = PathBuf::from(receipt["path"].as_str().unwrap());
    assert_eq!(saved, dir.path().join("receipt-1001.csv"));
    assert_eq!(std::fs::read(&saved).unwrap(), expected);
    assert_eq!(report.outputs["export"], "orders-export.csv");
    let export = std::fs::read_to_string(dir.path().join("orders-export.csv")).unwrap();
    assert!(export.starts_with("order,total\n1001,89.99"), "{export}");
    assert_eq!(
        report.outputs["again"],
        dir.path()
            .join("receipt-1001 (1).csv")
            .to_string_lossy()
            .as_ref()
    );
    // The step report carries the file too, and the page did not navigate away.
    let step = &report.steps[1];
    assert_eq!(
        step.download.as_ref().map(|d| d.size),
        Some(expected.len() as u64)
    );
    assert_eq!(step.selector.as_ref().map(|s| s.index), Some(0));
    assert!(report.final_url.ends_with("/files.html"));
    // Only the named files: no GUID-named leftovers.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "orders-export.csv",
            "receipt-1001 (1).csv",
            "receipt-1001.csv"
        ]
    );
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_download_that_does_not_happen_or_is_misnamed_fails_clearly() {
    let h = Harness::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let no_download = json!([
        { "type": "navigate", "url": "{{shop}}/files.html" },
        { "type": "download", "selector": tid("choose-pictures"), "timeout_ms": 800 }
    ]);
    let err = h
        .replay_with(no_download, json!({}), options_into(dir.path()))
        .await
        .expect_err("no download");
    let message = err.to_string();
    assert!(message.contains("step 2 (download)"), "{message}");
    assert!(
        message.contains("no download started within 800 ms"),
        "{message}"
    );

    let misnamed = json!([
        { "type": "navigate", "url": "{{shop}}/files.html" },
        { "type": "download", "selector": tid("download-receipt"), "filename": "invoice-*.pdf" }
    ]);
    let err = h
        .replay_with(misnamed, json!({}), options_into(dir.path()))
        .await
        .expect_err("misnamed");
    assert!(
        err.to_string()
            .contains("expected a download named \"invoice-*.pdf\", but got \"receipt-1001.csv\""),
        "{err}"
    );
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_download_dir_files_go_to_a_kept_temporary_folder() {
    let h = Harness::start().await;
    let steps = json!([
        { "type": "navigate", "url": "{{shop}}/files.html" },
        { "type": "download", "selector": tid("download-receipt"), "field": "path", "output": "path" }
    ]);
    let report = h
        .replay(steps, json!({}))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let path = PathBuf::from(report.outputs["path"].as_str().unwrap());
    assert_eq!(
        std::fs::read(&path).unwrap(),
        fixture("downloads/receipt-1001.csv")
    );
    let folder = path.parent().unwrap();
    assert!(
        folder
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("browserflow-downloads-")
    );
    std::fs::remove_dir_all(folder).unwrap();
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploads_reach_the_server_through_a_file_input() {
    let h = Harness::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("notes for you.txt");
    std::fs::write(&file, "twelve bytes").unwrap();
    let steps = json!([
        { "type": "navigate", "url": "{{shop}}/files.html" },
        { "type": "upload", "selector": { "candidates": [
            { "kind": "test_id", "value": "no-such-input" },
            { "kind": "label", "value": "Attachment" }
        ] }, "files": ["{{file}}"] },
        { "type": "fill", "selector": tid("upload-note"), "value": "see attached" },
        { "type": "click", "selector": tid("upload-submit"), "navigation": { "url": "*/upload" } },
        { "type": "extract", "selector": tid("upload-name"), "field": "name" },
        { "type": "extract", "selector": tid("upload-size"), "field": "size", "kind": "integer" },
        { "type": "extract", "selector": tid("upload-field-note"), "field": "note" }
    ]);
    let report = h
        .replay(steps, json!({ "file": file.to_string_lossy() }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.outputs["name"], "notes for you.txt");
    assert_eq!(report.outputs["size"], 12);
    assert_eq!(report.outputs["note"], "see attached");
    // The label candidate won: the test id matched nothing.
    assert_eq!(report.steps[1].selector.as_ref().map(|s| s.index), Some(1));
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_button_that_opens_a_file_chooser_is_answered_with_the_files() {
    let h = Harness::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let a = dir.path().join("a.png");
    let b = dir.path().join("b.png");
    std::fs::write(&a, [0u8; 3]).unwrap();
    std::fs::write(&b, [0u8; 5]).unwrap();
    let steps = json!([
        { "type": "navigate", "url": "{{shop}}/files.html" },
        { "type": "upload", "selector": tid("choose-pictures"), "files": ["{{a}}", "{{b}}"] },
        { "type": "assert", "selector": tid("chosen-files"),
          "text_equals": "a.png (3 bytes), b.png (5 bytes)" },
        // The hidden input itself takes files directly (no visibility needed).
        { "type": "upload", "selector": { "candidates": [{ "kind": "css", "value": "#picture-input" }] },
          "files": ["{{b}}"] },
        { "type": "assert", "selector": tid("chosen-files"), "text_equals": "b.png (5 bytes)" }
    ]);
    let report = h
        .replay(
            steps,
            json!({ "a": a.to_string_lossy(), "b": b.to_string_lossy() }),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.steps.len(), 5);
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upload_problems_are_reported_before_or_at_the_step() {
    let h = Harness::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("missing.pdf");
    let steps = json!([
        { "type": "navigate", "url": "{{shop}}/files.html" },
        { "type": "upload", "selector": tid("upload-input"), "files": ["{{file}}"] }
    ]);
    let err = h
        .replay(steps.clone(), json!({ "file": missing.to_string_lossy() }))
        .await
        .expect_err("missing file");
    assert!(matches!(err, ReplayError::File { index: 1, .. }), "{err:?}");
    assert!(err.report().is_none(), "nothing ran");
    assert_eq!(
        err.to_string(),
        format!(
            "step 2 (upload): the file to upload {:?} does not exist",
            missing.to_string_lossy()
        )
    );

    // Two files into a single-file input: refused, naming the input.
    let one = dir.path().join("one.txt");
    std::fs::write(&one, "1").unwrap();
    let two_files = json!([
        { "type": "navigate", "url": "{{shop}}/files.html" },
        { "type": "upload", "selector": tid("upload-input"), "files": ["{{file}}", "{{file}}"] }
    ]);
    let err = h
        .replay(two_files, json!({ "file": one.to_string_lossy() }))
        .await
        .expect_err("single file input");
    assert!(err.to_string().contains("accepts one file, not 2"), "{err}");

    // Something that is neither a file input nor opens a chooser.
    let not_a_chooser = json!([
        { "type": "navigate", "url": "{{shop}}/files.html" },
        { "type": "upload", "selector": tid("upload-note"), "files": ["{{file}}"] }
    ]);
    let err = h
        .replay_with(
            not_a_chooser,
            json!({ "file": one.to_string_lossy() }),
            quick(600),
        )
        .await
        .expect_err("no chooser");
    assert!(err.to_string().contains("opened no file chooser"), "{err}");
    h.close().await;
}

#[test]
fn download_and_upload_steps_round_trip_and_export_to_playwright() {
    let steps = json!([
        { "type": "navigate", "url": "http://127.0.0.1:4780/files.html" },
        { "type": "download", "label": "Get the receipt", "selector": tid("download-receipt"),
          "offset": { "x": 2.0, "y": 3.0 }, "filename": "receipt-*.csv", "field": "receipt",
          "output": "sha256", "timeout_ms": 9000 },
        { "type": "download", "selector": tid("export-orders") },
        { "type": "upload", "selector": tid("upload-input"), "files": ["{{file}}", "/tmp/b.txt"] }
    ]);
    let parsed: Vec<Step> = serde_json::from_value(steps.clone()).expect("parses");
    assert_eq!(serde_json::to_value(&parsed).unwrap(), steps);
    let Step::Download(download) = &parsed[1] else {
        panic!("{:?}", parsed[1])
    };
    assert_eq!(download.output, DownloadOutput::Sha256);
    assert_eq!(parsed[3].kind().name(), "upload");
    for step in &parsed {
        step.validate().unwrap_or_else(|e| panic!("{e}"));
    }
    // Checks serde cannot make.
    let bad: Step =
        serde_json::from_value(json!({ "type": "upload", "selector": tid("x"), "files": [] }))
            .unwrap();
    assert_eq!(bad.validate(), Err("`files` is empty".into()));
    let bad: Step = serde_json::from_value(
        json!({ "type": "download", "selector": tid("x"), "output": "path" }),
    )
    .unwrap();
    assert_eq!(bad.validate(), Err("`output` needs `field`".into()));
    assert!(
        serde_json::from_value::<Step>(
            json!({ "type": "download", "selector": tid("x"), "save_as": "y" })
        )
        .is_err(),
        "unknown fields are refused"
    );

    let tool = ToolFile::from_json_str(
        &json!({
            "contract": {
                "name": "receipt", "version": "1.0.0", "kind": "browser",
                "description": "Downloads a receipt after uploading a file",
                "inputs": [{ "name": "file", "schema": { "type": "string" }, "secret": false }],
                "output": { "type": "object", "properties": { "receipt": { "type": "string" } } },
                "capabilities": ["browser"]
            },
            "steps": steps,
            "metadata": {}
        })
        .to_string(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let script = export_playwright(&tool);
    assert!(
        script.contains("const file = await download(page, el, { position: { x: 2, y: 3 }, filename: \"receipt-*.csv\", timeout: 9000 });\n    output[\"receipt\"] = file.sha256;"),
        "{script}"
    );
    assert!(
        script.contains("await uploadTo(page, { candidates: [{ kind: \"test_id\", value: \"upload-input\" }] }, [input(inputs, \"file\"), \"/tmp/b.txt\"], undefined);"),
        "{script}"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("receipt.js");
    std::fs::write(&path, &script).unwrap();
    let status = std::process::Command::new("node")
        .arg("--check")
        .arg(&path)
        .status()
        .expect("node runs");
    assert!(status.success(), "node --check failed on:\n{script}");
}
