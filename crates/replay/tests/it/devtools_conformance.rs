//! The DevTools Recorder conformance suite (puppeteer/replay's runner cases), served from
//! `$BROWSERFLOW_CONFORMANCE_DIR` or `shared/conformance/devtools-recorder` beside the
//! repository (absent from a fresh clone: then not run, said loudly): import each case's flow,
//! replay it, check every expectation. Cases this replayer cannot run are listed with the
//! reason and must stay exactly that list.

use std::path::PathBuf;

use browserflow_cdp::{Browser, BrowserConfig};
use browserflow_replay::{ReplayOptions, Replayer};
use browserflow_shop::{FixtureServer, read_dir_files};
use browserflow_steps::import_devtools;
use browserflow_steps::{SetViewportStep, Step};
use serde_json::Value;

/// The variable that names the suite's folder; without it, `../shared/conformance/devtools-recorder`
/// beside the repository (where CI puts it).
const SUITE_ENV: &str = "BROWSERFLOW_CONFORMANCE_DIR";

/// Where the suite is, if it is there. A folder named by [`SUITE_ENV`] must hold the suite: a
/// wrong path is a failure, never a skip. Without the variable, an absent default folder means
/// a fresh clone: the suite is reported as not run, loudly, and `scripts/test` says so again
/// in its summary.
fn suite_dir() -> Option<PathBuf> {
    if let Some(named) = std::env::var_os(SUITE_ENV) {
        let dir = PathBuf::from(named);
        assert!(
            dir.join("cases.json").is_file(),
            "{SUITE_ENV}={} holds no cases.json: not the DevTools Recorder conformance suite",
            dir.display()
        );
        return Some(dir);
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/conformance/devtools-recorder");
    if dir.join("cases.json").is_file() {
        return Some(dir);
    }
    eprintln!(
        "\n!!!! DevTools Recorder conformance suite NOT RUN: not found at {} and {SUITE_ENV} is unset !!!!\n",
        dir.display()
    );
    None
}

/// Cases skipped on purpose, with why.
const NOT_RUN: &[(&str, &str)] = &[
    (
        "should abort execution of remaining steps",
        "runner abort API (customStep): no equivalent",
    ),
    (
        "should run afterAllSteps if the execution is aborted",
        "runner hooks (customStep): no equivalent",
    ),
    (
        "should return false when the execution is aborted before all the steps are executed",
        "runner abort API (customStep): no equivalent",
    ),
];

/// Cases that run but are known to fail, with why.
const KNOWN_FAILURES: &[(&str, &str)] = &[];

fn substitute(value: &mut Value, base: &str, cross: &str) {
    match value {
        Value::String(s) => *s = s.replace("{{BASE}}", base).replace("{{CROSS_BASE}}", cross),
        Value::Array(items) => items.iter_mut().for_each(|v| substitute(v, base, cross)),
        Value::Object(map) => map.values_mut().for_each(|v| substitute(v, base, cross)),
        _ => {}
    }
}

async fn run_case(browser: &Browser, case: &Value, base: &str, cross: &str) -> Result<(), String> {
    let mut flow = case["flow"].clone();
    substitute(&mut flow, base, cross);
    let tool =
        import_devtools(&flow.to_string(), "case", "1.0.0").map_err(|e| format!("import: {e}"))?;
    // Puppeteer's default viewport for a new page.
    let mut steps = vec![Step::SetViewport(SetViewportStep {
        label: None,
        width: 800,
        height: 600,
        device_scale_factor: 1.0,
        mobile: false,
    })];
    steps.extend(tool.steps);
    let context = browser.new_context().await.map_err(|e| e.to_string())?;
    let replay = Replayer::new(ReplayOptions::default())
        .run(&context, &steps, &Default::default())
        .await;
    let expects: Vec<Value> = match &case["expect"] {
        Value::Array(list) => list.clone(),
        one => vec![one.clone()],
    };
    let wants_error = expects.iter().find(|e| e["kind"] == "error");
    let outcome = match (replay, wants_error) {
        (Err(e), Some(want)) => {
            let needle = want["message_contains"].as_str().unwrap_or_default();
            if e.to_string().contains(needle) {
                Ok(())
            } else {
                Err(format!("error {e} lacks {needle:?}"))
            }
        }
        (Err(e), None) => Err(format!("replay failed: {e}")),
        (Ok(_), Some(_)) => Err("the replay was expected to fail".to_string()),
        (Ok(_), None) => {
            let mut result = Ok(());
            for want in &expects {
                let mut want = want.clone();
                substitute(&mut want, base, cross);
                let check = match want["kind"].as_str() {
                    Some("js") => {
                        let expression = want["expression"].as_str().unwrap_or_default();
                        match context.page().evaluate_in_main_frame(expression).await {
                            Ok(Value::Bool(true)) => Ok(()),
                            other => Err(format!("{expression} gave {other:?}")),
                        }
                    }
                    Some("url") => {
                        let equals = want["equals"].as_str().unwrap_or_default();
                        let urls = if want["frame"] == "any" {
                            context.page().frame_urls()
                        } else {
                            vec![context.page().url()]
                        };
                        if urls.iter().any(|u| u == equals) {
                            Ok(())
                        } else {
                            Err(format!("no frame at {equals}: {urls:?}"))
                        }
                    }
                    Some("run") => {
                        if want["returns"] == Value::Bool(true) {
                            Ok(())
                        } else {
                            Err("run expectation not supported".into())
                        }
                    }
                    other => Err(format!("unknown expectation {other:?}")),
                };
                if let Err(e) = check {
                    result = Err(e);
                    break;
                }
            }
            result
        }
    };
    let _ = context.close().await;
    outcome
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devtools_recorder_conformance_suite() {
    let Some(dir) = suite_dir() else {
        return;
    };
    let cases: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("cases.json")).expect("cases.json"))
            .expect("cases JSON");
    let server =
        FixtureServer::serve_files(read_dir_files(&dir.join("resources")).expect("resources"))
            .expect("serve");
    let base = format!("http://localhost:{}", server.port());
    let cross = format!("http://oopifdomain:{}", server.port());
    let browser = Browser::launch(&BrowserConfig {
        extra_args: vec![
            "--host-rules=MAP oopifdomain 127.0.0.1".into(),
            "--site-per-process".into(),
        ],
        ..BrowserConfig::default()
    })
    .await
    .expect("chromium");
    let mut passed = Vec::new();
    let mut failed = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap_or_default();
        if NOT_RUN.iter().any(|(n, _)| *n == name) {
            continue;
        }
        match run_case(&browser, case, &base, &cross).await {
            Ok(()) => passed.push(name.to_string()),
            Err(why) => failed.push(format!("{name}: {why}")),
        }
    }
    eprintln!(
        "conformance: {} passed, {} failed, {} not run",
        passed.len(),
        failed.len(),
        NOT_RUN.len()
    );
    for f in &failed {
        eprintln!("  FAILED {f}");
    }
    let unexpected: Vec<&String> = failed
        .iter()
        .filter(|f| {
            !KNOWN_FAILURES
                .iter()
                .any(|(n, _)| f.starts_with(&format!("{n}:")))
        })
        .collect();
    let fixed: Vec<&str> = KNOWN_FAILURES
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| passed.iter().any(|p| p == n))
        .collect();
    browser.close().await.expect("closes");
    assert!(
        unexpected.is_empty(),
        "unexpected failures: {unexpected:#?}"
    );
    assert!(
        fixed.is_empty(),
        "known failures now pass, update the list: {fixed:?}"
    );
    assert_eq!(passed.len() + failed.len() + NOT_RUN.len(), cases.len());
}
