//! Browser tools in the Rider: `run_tool` on the shipped search-price recording, the demo,
//! the pinned contract digest, secret inputs, and the run folder.

use std::sync::Arc;

use browserflow_catalog::run_tool::{demo, run_tool, search_price};
use browserflow_catalog::{RunInput, RunInputs, RunSetup, RunsFolder};
use browserflow_cdp::BrowserConfig;
use browserflow_replay::{SharedBrowser, StepStatus};
use browserflow_shop::FixtureServer;
use browserflow_steps::SelectorKind;
use browserflow_steps::ToolFile;
use serde_json::{Value, json};

fn repo_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn shipped_recording_has_the_pinned_contract_digest() {
    let tool = search_price().expect("the shipped recording parses");
    let flow: Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("recordings/daily-price-watch.flow.json"))
            .expect("the flow file"),
    )
    .expect("flow JSON");
    let pin = flow["requires"]
        .as_array()
        .and_then(|r| r.iter().find(|r| r["ref"] == "search-price@1.2.0"))
        .map(|r| r["contract_digest"].clone())
        .expect("the flow pins search-price@1.2.0");
    assert_eq!(json!(tool.contract.contract_digest().to_string()), pin);
    assert_eq!(tool.origin(), Some("http://127.0.0.1:4780"));
    // The file on disk is the embedded one, in its stable pretty form.
    let on_disk = std::fs::read_to_string(repo_root().join("recordings/search-price@1.2.0.json"))
        .expect("recording on disk");
    assert_eq!(ToolFile::from_json_str(&on_disk).expect("parses"), tool);
}

#[test]
fn rebase_moves_every_absolute_url_and_keeps_patterns() {
    let tool = search_price()
        .expect("parses")
        .rebase_to("http://127.0.0.1:9999");
    let text = tool.to_json_pretty();
    assert!(!text.contains("127.0.0.1:4780"), "{text}");
    assert!(text.contains("\"http://127.0.0.1:9999/index.html\""));
    assert!(text.contains("*/search.html?q=*"));
    assert_eq!(tool.origin(), Some("http://127.0.0.1:9999"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_tool_returns_typed_output_report_and_run_folder() {
    let shop = FixtureServer::shop().expect("shop");
    let tool = search_price().expect("parses").rebase_to(&shop.origin());
    let run_dir = tempfile::tempdir().expect("tempdir");
    let browser = Arc::new(SharedBrowser::new(BrowserConfig::default()));
    let options = RunSetup {
        browser: browser.clone(),
        runs_folder: RunsFolder::At(run_dir.path().to_path_buf()),
        ..RunSetup::default()
    };
    let run = run_tool(&tool, &value("query", json!("keyboard")), options)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        run.output,
        json!({ "name": "Mechanical Keyboard", "price": 89.99, "currency": "USD" })
    );
    let report = run.report.expect("a report");
    assert_eq!(report.steps.len(), 6);
    assert!(report.steps.iter().all(|s| s.status == StepStatus::Passed));
    assert_eq!(
        report.steps[1].selector.as_ref().map(|w| w.kind),
        Some(SelectorKind::TestId)
    );
    let folder = run.call_dir.expect("a call folder");
    let written: Value = serde_json::from_str(
        &std::fs::read_to_string(folder.join("report.json")).expect("report.json"),
    )
    .expect("report JSON");
    assert_eq!(written["status"], "passed");
    assert_eq!(written["tool"], "search-price@1.2.0");
    let steps = written["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 6);
    for step in steps {
        assert_eq!(step["status"], "passed");
        assert!(step["duration_ms"].as_f64().is_some());
        for key in ["screenshot", "thumbnail"] {
            let name = step[key].as_str().expect("file name");
            let png = std::fs::read(folder.join(name)).expect("png written");
            assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        }
    }
    assert_eq!(steps[1]["selector"]["kind"], "test_id");

    // A second run reuses the launched browser.
    let pid = browser.current().await.and_then(|b| b.pid());
    let again = run_tool(
        &tool,
        &value("query", json!("mouse")),
        RunSetup {
            browser: browser.clone(),
            ..RunSetup::default()
        },
    )
    .await
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(again.output["name"], "Wireless Mouse");
    assert_eq!(browser.current().await.and_then(|b| b.pid()), pid);

    // Bad inputs are refused before the browser does anything.
    let err = run_tool(
        &tool,
        &value("nope", json!(1)),
        RunSetup {
            browser: browser.clone(),
            ..RunSetup::default()
        },
    )
    .await
    .expect_err("unknown input");
    assert!(err.to_string().contains("nope"), "{err}");
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_serves_the_shop_and_writes_screenshots() {
    let out = tempfile::tempdir().expect("tempdir");
    let browser = Arc::new(SharedBrowser::new(BrowserConfig::default()));
    let done = demo("desk", out.path(), browser.clone())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        done.output,
        json!({ "name": "Standing Desk", "price": 1299.0, "currency": "USD" })
    );
    assert!(done.screenshots.starts_with(out.path()));
    let pngs = std::fs::read_dir(&done.screenshots)
        .expect("folder")
        .filter(|e| {
            e.as_ref()
                .map(|e| e.file_name().to_string_lossy().ends_with(".png"))
                .unwrap_or(false)
        })
        .count();
    assert_eq!(pngs, 12, "6 screenshots and 6 thumbnails");
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secret_inputs_are_resolved_late_and_never_written() {
    let shop = FixtureServer::shop().expect("shop");
    const SECRET: &str = "hunter2-very-secret";
    let tool = ToolFile::from_json_str(
        &json!({
            "contract": {
                "name": "type-secret", "version": "1.0.0", "kind": "browser", "description": "",
                "inputs": [{ "name": "token", "schema": { "type": "string" }, "secret": true }],
                "output": { "type": "object", "properties": { "typed": { "type": "string" } }, "required": [], "additionalProperties": false },
                "capabilities": ["browser", "secrets"]
            },
            "steps": [
                { "type": "navigate", "url": shop.url("/index.html") },
                { "type": "fill", "value": "{{token}}", "selector": { "candidates": [{ "kind": "test_id", "value": "search-input" }] } },
                { "type": "assert", "value_equals": "{{token}}", "selector": { "candidates": [{ "kind": "test_id", "value": "search-input" }] } },
                { "type": "assert", "text_equals": "never there", "timeout_ms": 300, "selector": { "candidates": [{ "kind": "test_id", "value": "service-status" }] } }
            ]
        })
        .to_string(),
    )
    .expect("tool parses");
    let run_dir = tempfile::tempdir().expect("tempdir");
    let secrets = tempfile::tempdir().expect("tempdir");
    let options = RunSetup {
        runs_folder: RunsFolder::At(run_dir.path().to_path_buf()),
        // The one secrets chain: the environment, then this file.
        secrets_file: Some(secrets_file(
            secrets.path(),
            &format!("API_TOKEN={SECRET}\n"),
        )),
        ..RunSetup::default()
    };
    let browser = options.browser.clone();
    // A plain value for a secret slot is refused.
    let refused = run_tool(&tool, &value("token", json!(SECRET)), options.clone()).await;
    assert!(refused.is_err());
    assert!(
        !refused
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
            .contains(SECRET)
    );
    let err = run_tool(
        &tool,
        &[("token".to_owned(), RunInput::Secret("API_TOKEN".into()))].into(),
        options,
    )
    .await
    .expect_err("the last assert fails");
    let message = err.to_string();
    assert!(message.contains("never there"), "{message}");
    assert!(!message.contains(SECRET));
    // The secret reached the page (the value assert passed), and no file mentions it.
    let mut files = 0;
    for entry in walk(run_dir.path()) {
        files += 1;
        let bytes = std::fs::read(&entry).expect("read");
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains(SECRET),
            "{} leaks the secret",
            entry.display()
        );
    }
    assert!(files >= 4, "report and screenshots written");
    let report = walk(run_dir.path())
        .into_iter()
        .find(|p| p.ends_with("report.json"))
        .expect("report.json");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(report).expect("read")).expect("json");
    assert_eq!(report["status"], "failed");
    assert_eq!(report["steps"][2]["status"], "passed");
    assert_eq!(report["steps"][3]["status"], "failed");
    browser.close().await;
}

/// One input given as a value.
fn value(name: &str, value: Value) -> RunInputs {
    [(name.to_owned(), RunInput::Value(value))].into()
}

/// A secrets file with `text`, readable by its owner only (as the secrets chain requires).
fn secrets_file(dir: &std::path::Path, text: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("secrets");
    std::fs::write(&path, text).expect("write");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    path
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_preview_that_passes_on_a_lower_ranked_candidate_says_the_replayers_warning() {
    use browserflow_catalog::preview::{PreviewInput, PreviewRequest, run_preview};
    let shop = FixtureServer::shop().expect("shop");
    let mut tool = search_price()
        .expect("parses")
        .rebase_to(&shop.origin())
        .to_json();
    // The click's best candidate no longer matches; its second one still does.
    tool["steps"][3]["selector"]["candidates"][0]["value"] = "#no-such-result-link".into();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("search-price@1.2.0.json");
    std::fs::write(&path, serde_json::to_string(&tool).unwrap()).unwrap();
    let request = PreviewRequest {
        tool: path.to_string_lossy().into_owned(),
        inputs: vec![PreviewInput {
            name: "query".into(),
            value: "keyboard".into(),
            secret: false,
        }],
        headed: false,
    };
    let result = run_preview(&request, &dir.path().join("runs"), |_| {}).await;
    assert!(result.ok, "{:?}", result.error);
    assert_eq!(result.warnings.len(), 1, "{:?}", result.warnings);
    assert!(
        result.warnings[0].starts_with(
            "step 4 (Open the first result) matched only on its selector #2 (xpath \"(//main//ul/li)[1]/a\"); \
             1 ranked above it found nothing: css \"#no-such-result-link\""
        ),
        "{}",
        result.warnings[0]
    );
}
